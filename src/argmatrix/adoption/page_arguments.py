"""Which registry argument a row of a hand-written page documents, subcommands included.

A program with subcommands is documented by pages that write a subcommand's flag bare
(`--port`) under a heading naming the subcommand (`## serve`, ``### `llmserve serve` ``), or
with the subcommand in the flag's cell (`serve --port`). A row's flag is matched to an argument
in the spelling the configuration, manifests and directives use (`serve --port`,
`model.spelling`):

* a flag the registry has once (at the top level or in one subcommand) is that argument;
* a flag several commands have is the one of the subcommand the row sits under (its headings,
  outermost first, or the words before the flag in its cell); on a page whose other rows all
  document one subcommand, that one; the top level's when the row sits under no subcommand and
  the top level has it (as `model.spelling` reads a bare flag);
* otherwise the page cannot tell: the row is ambiguous and every spelling it could mean is
  given, never a guess.

`audit` and `import` share this reading; neither guesses where the page does not say.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from argmatrix.adoption.handwritten import ARGUMENT, ArgumentPage, ArgumentRow
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.spelling import scopes


def separator_key(flag: str) -> str:
    """A flag with `_` and `-` alike: `--tp-size` and `--tp_size` are one key (argparse is not
    so lenient: it accepts only the spelling the registry declares)."""
    return flag.replace("_", "-")


@dataclass(frozen=True)
class Scoped:
    """An argument and the subcommand words that lead to it ("" at the top, "serve ")."""

    words: str
    argument: Argument

    @property
    def spelled(self) -> str:
        """Its spelling everywhere in argmatrix: `--port` at the top, `serve --port` below."""
        return self.words + self.argument.name


@dataclass(frozen=True)
class RowFlags:
    """How a row's flags meet the registry: the argument they name, flags written with the other
    separator (page spelling, registry spelling), flags the registry does not have, and flags
    several commands have that the page does not tell apart (page spelling, their spellings)."""

    argument: Scoped | None
    respelled: tuple[tuple[str, str], ...]
    unknown: tuple[str, ...]
    ambiguous: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def key(self) -> str | None:
        """What makes two rows the same: their argument, else their first unknown flag; None
        for a row the page does not tell apart (two such rows may be two commands')."""
        if self.argument is not None:
            return self.argument.spelled
        if self.unknown:
            return separator_key(self.unknown[0])
        return None


@dataclass(frozen=True)
class RegistryFlags:
    """The registry's flags, every command's, by spelling and by spelling with either
    separator."""

    registry: Registry
    index: Mapping[str, tuple[Scoped, ...]]  # flag -> the commands' arguments with it
    by_separator_key: Mapping[str, str]  # only keys that one flag spelling has
    candidates: list[str]  # every flag spelling, for "did you mean"

    @classmethod
    def of(cls, registry: Registry) -> RegistryFlags:
        index: dict[str, list[Scoped]] = {}
        for scope in scopes(registry):
            for flag, argument in scope.registry.by_flag().items():
                index.setdefault(flag, []).append(Scoped(scope.words, argument))
        keyed = Counter(separator_key(flag) for flag in index)
        by_key = {separator_key(f): f for f in index if keyed[separator_key(f)] == 1}
        frozen = {flag: tuple(found) for flag, found in index.items()}
        return cls(registry, frozen, by_key, sorted(index))

    def resolve(self, row: ArgumentRow, scope: str = "") -> RowFlags:
        """The row's flags, read under the subcommand words `scope` (see the module's rule)."""
        argument: Scoped | None = None
        respelled: list[tuple[str, str]] = []
        unknown: list[str] = []
        ambiguous: list[tuple[str, tuple[str, ...]]] = []
        for flag in row.flags:
            spelling = (
                flag if flag in self.index else self.by_separator_key.get(separator_key(flag))
            )
            if spelling is None:
                unknown.append(flag)
                continue
            found = self.index[spelling]
            chosen = _chosen(found, scope)
            if chosen is None:
                ambiguous.append((flag, tuple(f.spelled for f in found)))
                continue
            if spelling != flag:
                respelled.append((flag, chosen.words + spelling))
            argument = argument or chosen
        return RowFlags(argument, tuple(respelled), tuple(unknown), tuple(ambiguous))

    def suggestion(self, near: str | None, scope: str) -> str | None:
        """A flag suggested for a typo, in its spelling (`serve --port`), or None."""
        if near is None:
            return None
        chosen = _chosen(self.index[near], scope)
        return chosen.words + near if chosen is not None else near


def _chosen(found: tuple[Scoped, ...], scope: str) -> Scoped | None:
    """The argument a flag names under `scope` among the commands that have it, or None."""
    if len(found) == 1:
        return found[0]
    exact = [f for f in found if f.words == scope]
    if exact:
        return exact[0]
    below = [f for f in found if scope and f.words.startswith(scope)]
    return below[0] if len(below) == 1 else None


# ------------------------------------------------------------------ where a row sits


_WORD_EDGES = "`*_~'\"“”‘’()[]{}:;,.!?"


def subcommand_words(registry: Registry, text: str, words: str = "") -> str:
    """The subcommand words `text` leads to from `words` (`llmserve serve` -> "serve "): each
    word naming a subcommand (or an alias) of where it stands so far, in any case, descends."""
    current = _registry_at(registry, words)
    for raw in text.split():
        word = raw.strip(_WORD_EDGES).lower()
        sub = next(
            (
                s
                for s in current.subcommands
                if word in (s.name.lower(), *(a.lower() for a in s.aliases))
            ),
            None,
        )
        if sub is not None:
            current, words = sub.registry, f"{words}{sub.name} "
    return words


def _registry_at(registry: Registry, words: str) -> Registry:
    for name in words.split():
        registry = next(s.registry for s in registry.subcommands if s.name == name)
    return registry


def heading_scopes(page: ArgumentPage, registry: Registry) -> list[tuple[int, str]]:
    """After each heading (its line), the subcommand words of the headings then in effect,
    outermost first; one pass over the page. Text copied from a rendered site has lost its
    heading levels (every heading after the title reads as a section): there a heading naming
    no subcommand (`Model` after `serve`) stays under the last one that did."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[int, str]] = []  # (level, the words once this heading is read)
    for text, at, level in page.page.headings:
        if page.layout == "text":
            words = subcommand_words(registry, text) or (found[-1][1] if found else "")
        else:
            while stack and stack[-1][0] >= level:
                stack.pop()
            words = subcommand_words(registry, text, stack[-1][1] if stack else "")
            stack.append((level, words))
        found.append((at, words))
    return found


def scope_at(scopes_after: list[tuple[int, str]], line: int) -> str:
    """The words in effect at `line` (`heading_scopes`): those of the last heading above it."""
    index = bisect_left(scopes_after, (line, "")) - 1
    return scopes_after[index][1] if index >= 0 else ""


_FLAG_START = re.compile(r"(?<![\w-])--?[A-Za-z]")


def row_scope(row: ArgumentRow, registry: Registry, scopes_after: list[tuple[int, str]]) -> str:
    """The subcommand words a row is read under: the words before the flag in its cell
    (`serve --port`, `llmserve serve --port`) when they name one, else its headings'."""
    cell = row.cell(ARGUMENT)
    written = cell.text if cell is not None else ""
    before = written[: m.start()] if (m := _FLAG_START.search(written)) else ""
    return subcommand_words(registry, before) or scope_at(scopes_after, row.line)


@dataclass(frozen=True)
class ReadRow:
    """A row with the scope it is read under and what its flags name."""

    row: ArgumentRow
    scope: str
    flags: RowFlags


def read_rows(page: ArgumentPage, flags: RegistryFlags) -> list[ReadRow]:
    """Every row of the page with the argument it documents (the module's rule): a row under no
    subcommand heading on a page whose rows otherwise document one subcommand is read there."""
    registry = flags.registry
    if not registry.subcommands:
        return [ReadRow(row, "", flags.resolve(row)) for row in page.rows]
    after = heading_scopes(page, registry)
    placed = [(row, row_scope(row, registry, after)) for row in page.rows]
    first = [flags.resolve(row, scope) for row, scope in placed]
    documented = {f.argument.words for f in first if f.argument is not None and f.argument.words}
    only = next(iter(documented)) if len(documented) == 1 else ""
    read = []
    for (row, scope), found in zip(placed, first, strict=True):
        if found.ambiguous and not scope and only:
            scope, found = only, flags.resolve(row, only)
        read.append(ReadRow(row, scope, found))
    return read
