"""How the configuration, manifests and directives name an argument or a section of a registry
with subcommands: one spelling everywhere.

A subcommand's argument is its subcommands' names, then its flag: `serve --revision` (`serve
api_server --port` deeper down); a subcommand's section is its subcommands' names, then the
section's title: `serve LoRA`. A bare flag names the top level's argument, else the one
subcommand argument that has it; when several subcommands have it, the bare flag is ambiguous
and every spelling it could mean is given (`serve --revision`, `download --revision`). An alias
of a subcommand may stand for its name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Argument, Registry


class Scope(NamedTuple):
    """A registry of the program and the words that lead to it: "" at the top, "serve " for a
    subcommand (its canonical names, each followed by a space)."""

    words: str
    registry: Registry


def scopes(registry: Registry, words: str = "") -> Iterator[Scope]:
    """The registry and each subcommand's, at any depth, top first, in order."""
    yield Scope(words, registry)
    for sub in registry.subcommands:
        yield from scopes(sub.registry, f"{words}{sub.name} ")


class Found(NamedTuple):
    """What a spelling names: the argument and its scope; or, for an ambiguous bare flag, the
    spellings it could mean (`argument` None); or nothing (both empty)."""

    argument: Argument | None
    scope: str = ""
    ambiguous: tuple[str, ...] = ()

    @property
    def spelled(self) -> str:
        """The argument's canonical spelling: `serve --revision`."""
        assert self.argument is not None
        return self.scope + self.argument.name


def find_argument(registry: Registry, spelled: str) -> Found:
    """The argument `spelled` names (see the module's rule)."""
    words = spelled.split()
    if not words:
        return Found(None)
    if len(words) > 1:
        scope = _subcommand(registry, words[:-1])
        if scope is None:
            return Found(None)
        argument = scope.registry.by_flag().get(words[-1])
        return Found(argument, scope.words) if argument is not None else Found(None)
    flag = words[0]
    top = registry.by_flag().get(flag)
    if top is not None:
        return Found(top, "")
    found = [
        Found(scope.registry.by_flag()[flag], scope.words)
        for scope in scopes(registry)
        if scope.words and flag in scope.registry.by_flag()
    ]
    if len(found) == 1:
        return found[0]
    if found:
        return Found(None, "", tuple(f.spelled for f in found))
    return Found(None)


def ambiguous_flag_error(
    context: str, spelled: str, ambiguous: tuple[str, ...], file: str | None, line: int | None
) -> ArgmatrixError:
    """The located error of a configuration key that names, by a bare flag, an argument of
    several subcommands: every spelling it could mean, and the fix of writing one."""
    spellings = ", ".join(repr(s) for s in ambiguous)
    return ArgmatrixError.at(
        f"{context}{spelled!r} is an argument of several subcommands ({spellings})",
        file=file,
        line=line,
        fix=f"name the subcommand: write {ambiguous[0]!r} or another of them",
    )


def find_section(registry: Registry, spelled: str) -> tuple[Scope, str] | None:
    """The scope and section title `spelled` names: a section of the top level as it is
    (titles may have spaces), else `serve LoRA`: a subcommand's words, then its section."""
    if spelled in registry.sections:
        return Scope("", registry), spelled
    words = spelled.split(" ")
    for count in range(1, len(words)):
        scope = _subcommand(registry, words[:count])
        if scope is None:
            continue
        title = " ".join(words[count:])
        if title in scope.registry.sections:
            return scope, title
    return None


def argument_spellings(registry: Registry) -> list[str]:
    """Every argument's canonical spelling (for a suggestion when a spelling names nothing)."""
    return [scope.words + a.name for scope in scopes(registry) for a in scope.registry.arguments]


def section_spellings(registry: Registry) -> list[str]:
    """Every section's spelling, the top level's first."""
    return list(
        dict.fromkeys(
            scope.words + section
            for scope in scopes(registry)
            for section in scope.registry.sections
        )
    )


def _subcommand(registry: Registry, names: list[str]) -> Scope | None:
    """The subcommand the names (or aliases) lead to, with its canonical words."""
    words = ""
    for name in names:
        sub = next((s for s in registry.subcommands if name in (s.name, *s.aliases)), None)
        if sub is None:
            return None
        registry, words = sub.registry, f"{words}{sub.name} "
    return Scope(words, registry)
