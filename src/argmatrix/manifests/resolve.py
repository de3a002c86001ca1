"""Apply a platform's manifest to the registry: precedence and registry-level consistency.

Pure functions over the model. `resolve_platform` gives every registry argument its capability
(argument entry > section entry > file default) and the findings about entries that do not fit
the registry (stale flags, impossible options, unknown sections).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from argmatrix.model.findings import Finding, closest
from argmatrix.model.platform import UNCLASSIFIED, Capability, Platform, Resolved
from argmatrix.model.registry import Argument, Registry, Unevaluated
from argmatrix.model.values import value_text


@dataclass(frozen=True)
class ResolvedPlatform:
    platform: Platform
    by_argument: dict[str, Resolved]  # keyed by Argument.name
    findings: tuple[Finding, ...]

    def of(self, argument: Argument) -> Resolved:
        return self.by_argument[argument.name]


def resolve_platform(platform: Platform, registry: Registry) -> ResolvedPlatform:
    index = registry.by_flag()
    findings: list[Finding] = []
    entries = _entries_by_argument(platform, registry, index, findings)
    for section, capability in platform.sections.items():
        if section not in registry.sections:
            suggestion = closest(section, list(registry.sections))
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
    by_section = {
        name: _resolved(c, "section", platform, None) for name, c in platform.sections.items()
    }
    fallback = _fallback(platform)
    resolved: dict[str, Resolved] = {}
    shared: dict[Any, Resolved] = {}  # entries that say the same thing share one Resolved
    for argument in registry.arguments:
        entry = entries.get(argument.name)
        if entry is not None:
            if entry.options is not None or entry.has_default:
                findings.extend(_impossible(argument, entry, platform))
            resolved[argument.name] = _shared(shared, entry, platform)
        else:
            resolved[argument.name] = by_section.get(argument.section, fallback)
    return ResolvedPlatform(platform, resolved, tuple(findings))


def _entries_by_argument(
    platform: Platform, registry: Registry, index: Mapping[str, Argument], findings: list[Finding]
) -> dict[str, Capability]:
    entries: dict[str, Capability] = {}
    named_by: dict[str, str] = {}
    for flag, capability in platform.arguments.items():
        argument = index.get(flag)
        if argument is None:
            suggestion = closest(flag, sorted(index))
            findings.append(
                Finding(
                    "stale-manifest-entry",
                    f"{flag} is not an argument of the registry",
                    flag=flag,
                    platform=platform.name,
                    file=platform.file,
                    line=capability.line,
                    fix=f"did you mean {suggestion}?" if suggestion else "remove the entry",
                )
            )
            continue
        if argument.name in named_by:
            findings.append(
                Finding(
                    "duplicate-manifest-entry",
                    f"{flag} names the same argument as {named_by[argument.name]}",
                    flag=flag,
                    platform=platform.name,
                    file=platform.file,
                    line=capability.line,
                    fix="keep one entry per argument",
                )
            )
            continue
        named_by[argument.name] = flag
        entries[argument.name] = capability
    return entries


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


def _impossible(argument: Argument, entry: Capability, platform: Platform) -> list[Finding]:
    found: list[Finding] = []

    def add(message: str, fix: str, severity: str = "error") -> None:
        found.append(
            Finding(
                "impossible-entry",
                message,
                flag=argument.name,
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
                f"{argument.name} has 'options' but the registry defines no choices for it",
                "drop 'options' or use a 'note'",
            )
        elif not isinstance(choices, Unevaluated):
            outside = [o for o in entry.options if not in_choices(o, choices)]
            if outside:
                add(
                    f"{argument.name}: option {outside[0]!r} is not among the registry's choices",
                    f"pick from: {', '.join(str(c) for c in choices)}",
                )
    if entry.has_default and _same_value(entry.default, argument.default):
        add(
            f"{argument.name}: the default override equals the registry default"
            f" ({argument.default!r})",
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
