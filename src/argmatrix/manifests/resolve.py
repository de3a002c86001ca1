"""Apply a platform's manifest to the registry: precedence and registry-level consistency.

Pure functions over the model. `resolve_platform` gives every registry argument its capability
(argument entry > section entry > file default) and the findings about entries that do not fit
the registry (stale flags, impossible options, unknown sections).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from argmatrix.model.findings import Finding, closest
from argmatrix.model.platform import UNCLASSIFIED, Capability, Platform, Resolved
from argmatrix.model.registry import Argument, Registry, Unevaluated
from argmatrix.model.spelling import (
    argument_spellings,
    find_argument,
    find_section,
    scopes,
    section_spellings,
)
from argmatrix.model.values import value_text


@dataclass(frozen=True)
class ResolvedPlatform:
    platform: Platform
    # Keyed by the argument's spelling: `Argument.name` at the top level, `serve --port` for a
    # subcommand's (`model.spelling`).
    by_argument: dict[str, Resolved]
    findings: tuple[Finding, ...]

    def of(self, argument: Argument, scope: str = "") -> Resolved:
        """The argument's capability; `scope`: the words of its subcommand (`serve `)."""
        return self.by_argument[scope + argument.name]


def resolve_platform(platform: Platform, registry: Registry) -> ResolvedPlatform:
    """Every argument's capability, the subcommands' too: its own entry (`--flag`, or `serve
    --flag` for a subcommand's), else its section's (`LoRA` in every command that has it, or
    `serve LoRA` in one), else the file default."""
    findings: list[Finding] = []
    entries = _entries_by_argument(platform, registry, findings)
    sections = _sections(platform, registry, findings)
    fallback = _fallback(platform)
    resolved: dict[str, Resolved] = {}
    shared: dict[Any, Resolved] = {}  # entries that say the same thing share one Resolved
    for scope in scopes(registry):
        for argument in scope.registry.arguments:
            spelled = scope.words + argument.name
            entry = entries.get(spelled)
            if entry is not None:
                if entry.options is not None or entry.has_default:
                    findings.extend(_impossible(argument, spelled, entry, platform))
                resolved[spelled] = _shared(shared, entry, platform)
            else:
                resolved[spelled] = sections.get(
                    (scope.words, argument.section),
                    sections.get(("", argument.section), fallback),
                )
    return ResolvedPlatform(platform, resolved, tuple(findings))


def _sections(
    platform: Platform, registry: Registry, findings: list[Finding]
) -> dict[tuple[str, str], Resolved]:
    """Each section entry by (subcommand words, title): a title alone ("", title) applies to
    that section wherever it is; one naming none of the registry's sections is stale."""
    found: dict[tuple[str, str], Resolved] = {}
    known = section_spellings(registry)
    bare = {title for scope in scopes(registry) for title in scope.registry.sections}
    for section, capability in platform.sections.items():
        where = ("", section) if section in bare else None
        if where is None:
            spelled = find_section(registry, section)
            where = (spelled[0].words, spelled[1]) if spelled is not None else None
        if where is None:
            suggestion = closest(section, known)
            findings.append(
                Finding(
                    "stale-manifest-entry",
                    f"section {section!r} is not in the registry",
                    platform=platform.name,
                    file=platform.file,
                    line=capability.line,
                    fix=f"did you mean {suggestion!r}?" if suggestion else "remove the entry",
                )
            )
            continue
        found[where] = _resolved(capability, "section", platform, None)
    return found


def _entries_by_argument(
    platform: Platform, registry: Registry, findings: list[Finding]
) -> dict[str, Capability]:
    """Each argument entry by the spelling of the argument it names."""
    entries: dict[str, Capability] = {}
    named_by: dict[str, str] = {}
    for flag, capability in platform.arguments.items():
        found = find_argument(registry, flag)
        if found.argument is None:
            findings.append(_not_an_argument(platform, flag, capability, found.ambiguous, registry))
            continue
        spelled = found.spelled
        if spelled in named_by:
            findings.append(
                Finding(
                    "duplicate-manifest-entry",
                    f"{flag} names the same argument as {named_by[spelled]}",
                    flag=flag,
                    platform=platform.name,
                    file=platform.file,
                    line=capability.line,
                    fix="keep one entry per argument",
                )
            )
            continue
        named_by[spelled] = flag
        entries[spelled] = capability
    return entries


def _not_an_argument(
    platform: Platform,
    flag: str,
    capability: Capability,
    ambiguous: tuple[str, ...],
    registry: Registry,
) -> Finding:
    """The finding of an entry that names no argument: a bare flag several subcommands have
    (each spelling said), or a flag the registry lacks (the nearest spelling suggested)."""
    if ambiguous:
        spellings = ", ".join(ambiguous)
        message = f"{flag} is an argument of several subcommands ({spellings})"
        fix = f"name the subcommand: write {ambiguous[0]} or another of them"
    else:
        suggestion = closest(flag, argument_spellings(registry))
        message = f"{flag} is not an argument of the registry"
        fix = (
            f"did you mean {suggestion}?"
            if suggestion
            else "write the flag it was renamed to, if it was (the fact is kept), else remove"
            " the entry"
        )
    return Finding(
        "stale-manifest-entry",
        message,
        flag=flag,
        platform=platform.name,
        file=platform.file,
        line=capability.line,
        fix=fix,
    )


def _shared(shared: dict[Any, Resolved], entry: Capability, platform: Platform) -> Resolved:
    key = entry[:-1]  # all but the line it is written on
    try:
        found = shared.get(key)
    except TypeError:  # an unhashable default or option (a list): not shared
        return _resolved(entry, "argument", platform, entry)
    if found is None:
        found = shared[key] = _resolved(entry, "argument", platform, entry)
    return found


def _fallback(platform: Platform) -> Resolved:
    """What an argument with no entry and no section entry gets: the file default, or nothing."""
    status = platform.default or UNCLASSIFIED
    variants = platform.variants if status in ("supported", "experimental") else ()
    origin = "default" if platform.default else "none"
    return Resolved(status, variants, None, None, False, None, None, origin)


def _resolved(
    chosen: Capability, origin: str, platform: Platform, entry: Capability | None
) -> Resolved:
    status = chosen.status
    variants: tuple[str, ...] = ()
    if status in ("supported", "experimental"):
        variants = chosen.variants or platform.variants
    overridden = entry is not None and entry.has_default
    return Resolved(
        status,
        variants,
        entry.options if entry is not None else None,
        entry.default if entry is not None and overridden else None,
        overridden,
        chosen.note,
        chosen.reason,
        origin,
        entry.computed if entry is not None else None,
        chosen.review,
    )


def _impossible(
    argument: Argument, spelled: str, entry: Capability, platform: Platform
) -> list[Finding]:
    found: list[Finding] = []

    def add(message: str, fix: str, severity: str = "error") -> None:
        found.append(
            Finding(
                "impossible-entry",
                message,
                flag=spelled,
                platform=platform.name,
                file=platform.file,
                line=entry.line,
                fix=fix,
                severity=severity,
            )
        )

    if entry.options is not None:
        choices = argument.choices
        if choices is None:
            add(
                f"{spelled} has 'options' but the registry defines no choices for it",
                "drop 'options' or use a 'note'",
            )
        elif not isinstance(choices, Unevaluated):
            outside = [o for o in entry.options if not in_choices(o, choices)]
            if outside:
                add(
                    f"{spelled}: option {outside[0]!r} is not among the registry's choices",
                    f"pick from: {', '.join(str(c) for c in choices)}",
                )
    if entry.has_default and _same_value(entry.default, argument.default):
        add(
            f"{spelled}: the default override equals the registry default ({argument.default!r})",
            "drop the 'default' override",
            severity="warning",
        )
    return found


def in_choices(value: Any, choices: tuple[Any, ...]) -> bool:
    """Whether a value (from a manifest, or as text from a page) is one of the choices."""
    if value in choices:
        return True
    text = str(value)
    return any(text == value_text(c) or text == str(c) for c in choices)


def _same_value(a: Any, b: Any) -> bool:
    return (type(a) is type(b) and a == b) or (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )
