"""Load and validate a capability manifest (one YAML file per platform).

Validation is complete: every problem in the file is reported at once, each with its line.
Checks that need the registry (unknown flags, options outside the choices) live in `resolve`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from argmatrix._runtime.yamlfile import Located, line_of, load_yaml_file
from argmatrix.errors import ArgmatrixError, Problem, has_control
from argmatrix.model.platform import NEEDS_REASON, STATUSES, Capability, Platform

TOP_KEYS = ("platform", "title", "description", "variants", "default", "sections", "arguments")
ENTRY_KEYS = (
    "status",
    "variants",
    "options",
    "default",
    "note",
    "reason",
    "computed_default",
    "review",
)
SECTION_ENTRY_KEYS = ("status", "variants", "note", "reason", "review")
REVIEW_NEEDED = "needed"  # the one value of `review:`; a person deletes the key once checked
_BARE_STATUSES = frozenset(STATUSES) - NEEDS_REASON  # a status that is a whole, valid entry
PLATFORM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class Problems:
    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[Problem] = []

    def add(self, message: str, line: int | None, fix: str | None = None) -> None:
        self.items.append(Problem(message, self.file, line, fix))


def load_manifest(path: Path) -> Platform:
    data = load_yaml_file(path)
    problems = Problems(str(path))
    platform = parse_manifest(data, problems)
    if problems.items:
        raise ArgmatrixError(*sorted(problems.items, key=lambda p: p.line or 0))
    assert platform is not None
    return platform


def parse_manifest(data: Any, problems: Problems) -> Platform | None:
    if not isinstance(data, dict):
        problems.add(
            "a manifest must be a mapping with at least 'platform'",
            line_of(data) or 1,
            "start the file with 'platform: <name>'",
        )
        return None
    _duplicates(data, problems, "key")
    for key in data:
        if key not in TOP_KEYS:
            problems.add(
                f"unknown key {key!r}", line_of(data, key), f"use one of: {', '.join(TOP_KEYS)}"
            )
    name = data.get("platform")
    if not isinstance(name, str) or not PLATFORM_NAME.match(name):
        problems.add(
            "'platform' must be a short name such as 'ascend'",
            line_of(data, "platform") if "platform" in data else line_of(data) or 1,
            "add 'platform: <name>' (letters, digits, '-', '_', '.')",
        )
        name = "?"
    title = data.get("title", name)
    if not isinstance(title, str):
        problems.add("'title' must be text", line_of(data, "title"))
        title = name
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.add("'description' must be text", line_of(data, "description"))
        description = ""
    variants = _variants_list(data, problems)
    default = data.get("default")
    if default is not None and default not in STATUSES:
        problems.add(
            f"unknown status {default!r} for 'default'{_bool_hint(default)}",
            line_of(data, "default"),
            f"use one of: {', '.join(STATUSES)}",
        )
        default = None
    if default in NEEDS_REASON:
        problems.add(
            f"'default: {default}' needs a reason per argument, so it cannot be the file default",
            line_of(data, "default"),
            "use 'unverified' as the default",
        )
    sections = _entries(data, "sections", variants, problems, SECTION_ENTRY_KEYS)
    arguments = _entries(data, "arguments", variants, problems, ENTRY_KEYS)
    return Platform(
        name=name,
        title=title,
        variants=variants,
        default=default,
        sections=sections,
        arguments=arguments,
        description=description,
        file=problems.file,
    )


def _bool_hint(value: Any) -> str:
    """YAML 1.1 reads a bare yes/no/on/off as a boolean: say so when that is what happened."""
    return " (YAML read a bare yes/no/on/off as true/false)" if isinstance(value, bool) else ""


def _duplicates(mapping: Any, problems: Problems, what: str) -> None:
    for key, line in getattr(mapping, "duplicates", ()):
        problems.add(f"{what} {key!r} is named twice", line, "keep one entry")


def _variants_list(data: dict[str, Any], problems: Problems) -> tuple[str, ...]:
    raw = data.get("variants", [])
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(v, (str, int)) for v in raw):
        problems.add("'variants' must be a list of names, e.g. [A2, A3]", line_of(data, "variants"))
        return ()
    names = tuple(str(v) for v in raw)
    if len(set(names)) != len(names):
        problems.add("'variants' names a variant twice", line_of(data, "variants"))
    return names


def _entries(
    data: dict[str, Any],
    key: str,
    variants: tuple[str, ...],
    problems: Problems,
    allowed: tuple[str, ...],
) -> dict[str, Capability]:
    raw = data.get(key)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.add(f"'{key}' must be a mapping", line_of(data, key))
        return {}
    _duplicates(raw, problems, "flag" if key == "arguments" else "section")
    entries: dict[str, Capability] = {}
    key_lines = raw.key_lines if isinstance(raw, Located) else {}
    for name, value in raw.items():
        line = key_lines.get(name)
        if _bare_status(name, value):
            entries[name] = _new_capability(_BARE[value] + (line,))
            continue
        if key == "arguments" and (not isinstance(name, str) or not name.strip()):
            problems.add(f"an argument key must be a flag such as --page-size, not {name!r}", line)
            continue
        entry = _entry(str(name), value, line, variants, problems, allowed)
        if entry is not None:
            entries[str(name)] = entry
    return entries


# A bare status's entry but its line (`Capability.line`, the last field), and what makes one of
# those fields in C: tens of thousands per large manifest, where a call with keywords took most
# of the time it was read in.
_BARE = {status: Capability(status=status)[:-1] for status in _BARE_STATUSES}
_new_capability = functools.partial(tuple.__new__, Capability)


def _bare_status(name: Any, value: Any) -> bool:
    """`--flag: supported`, most entries of a large manifest, valid as it stands."""
    return (
        isinstance(value, str)
        and value in _BARE_STATUSES
        and isinstance(name, str)
        and bool(name.strip())
    )


def _entry(
    name: str,
    value: Any,
    line: int | None,
    variants: tuple[str, ...],
    problems: Problems,
    allowed: tuple[str, ...],
) -> Capability | None:
    if isinstance(value, str):
        value = {"status": value}
    if not isinstance(value, dict):
        problems.add(
            f"{name}: an entry is a status or a mapping with 'status'",
            line,
            "write e.g. '{status: supported}'",
        )
        return None
    _duplicates(value, problems, f"{name}: key")
    ok = True
    for key in value:
        if key not in allowed:
            problems.add(
                f"{name}: unknown key {key!r}",
                line_of(value, key) or line,
                f"use one of: {', '.join(allowed)}",
            )
            ok = False
    status = value.get("status")
    if status not in STATUSES:
        problems.add(
            f"{name}: unknown status {status!r}{_bool_hint(status)}",
            line_of(value, "status") or line,
            f"use one of: {', '.join(STATUSES)}",
        )
        return None
    reason = value.get("reason")
    if reason is not None and not isinstance(reason, str):
        problems.add(
            f"{name}: 'reason' must be text{_bool_hint(reason)}",
            line_of(value, "reason") or line,
            "put the reason in quotes",
        )
        ok = False
    elif status in NEEDS_REASON and not (isinstance(reason, str) and reason.strip()):
        problems.add(
            f"{name}: status {status!r} needs a 'reason'",
            line,
            f"write '{{status: {status}, reason: <why>}}'",
        )
        ok = False
    note = value.get("note")
    if note is not None and not isinstance(note, str):
        problems.add(f"{name}: 'note' must be text", line_of(value, "note") or line)
        ok = False
    computed = value.get("computed_default")
    if computed is not None and not (
        isinstance(computed, str) and computed.strip() and not has_control(computed)
    ):
        problems.add(
            f"{name}: 'computed_default' must be a short text on one line",
            line_of(value, "computed_default") or line,
            "say how the value is chosen, e.g. 'computed_default: chosen from GPU memory'",
        )
        ok = False
    elif computed is not None and "default" in value:
        problems.add(
            f"{name}: 'computed_default' and 'default' say two things of one default",
            line_of(value, "computed_default") or line,
            "keep one of them",
        )
        ok = False
    review = value.get("review")
    if review is not None and review != REVIEW_NEEDED:
        problems.add(
            f"{name}: 'review' can only be {REVIEW_NEEDED!r}, not {review!r}",
            line_of(value, "review") or line,
            "delete the 'review' key once a person has checked the entry",
        )
        ok = False
    entry_variants = _entry_variants(name, value, line, variants, status, problems)
    options = value.get("options")
    if options is not None and not isinstance(options, list):
        problems.add(f"{name}: 'options' must be a list", line_of(value, "options") or line)
        ok = False
    if not ok:
        return None
    return Capability(
        status=status,
        variants=entry_variants,
        options=tuple(options) if options is not None else None,
        default=value.get("default"),
        has_default="default" in value,
        note=note,
        reason=reason,
        computed=computed.strip() if computed else None,
        review=review == REVIEW_NEEDED,
        line=line,
    )


def _entry_variants(
    name: str,
    value: dict[str, Any],
    line: int | None,
    variants: tuple[str, ...],
    status: str,
    problems: Problems,
) -> tuple[str, ...] | None:
    raw = value.get("variants")
    if raw is None:
        return None
    where = line_of(value, "variants") or line
    if not isinstance(raw, list) or not raw:
        problems.add(f"{name}: 'variants' must be a non-empty list", where)
        return None
    names = tuple(str(v) for v in raw)
    if not variants:
        problems.add(
            f"{name}: the platform declares no variants",
            where,
            "add a top-level 'variants:' list or drop this one",
        )
        return None
    unknown = [v for v in names if v not in variants]
    if unknown:
        problems.add(
            f"{name}: unknown variant {unknown[0]!r}",
            where,
            f"use variants the platform declares: {', '.join(variants)}",
        )
        return None
    if status not in ("supported", "experimental"):
        problems.add(f"{name}: 'variants' only narrows supported or experimental", where)
        return None
    return names
