"""`checks.compatibility` (the baseline snapshot and the breaks accepted, each with its reason)
and `stability` (how far each argument is promised) of the configuration: the values
`CompatibilitySpec`, `Accepted`, `Stability`, `Tagged`, and reading them from the file.

The check itself is `checks/compatibility.py`; here only what the file says is validated, every
problem one located line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import within
from argmatrix._runtime.yamlfile import line_of
from argmatrix.config.fields import _shown, _unknown_keys
from argmatrix.errors import Problem, has_control
from argmatrix.model.registry import Registry
from argmatrix.model.spelling import ambiguous_flag_error, find_argument

COMPATIBILITY_KEYS = ("baseline", "accept")
STABILITY_KEYS = ("default", "sections", "arguments")
# Stability tags, most promised first. With `stability:` in the configuration, the compatibility
# check holds only `stable` arguments to the baseline.
STABILITY_TAGS = ("stable", "beta", "prototype", "deprecated")
GATED = "stable"

_BASELINE_FIX = (
    "write 'baseline: compat/baseline.json', a snapshot written at the last release with"
    " 'argmatrix snapshot -o compat/baseline.json'"
)
_ACCEPT_FIX = "write e.g. '--old-flag: removed in 0.6, use --new-flag'"


@dataclass(frozen=True)
class Accepted:
    """A reviewed breaking change: the argument as `check` names it (`--flag`, `serve --port`,
    a positional's name, a subcommand), why its break is accepted, and the entry's line."""

    name: str
    reason: str
    line: int | None


@dataclass(frozen=True)
class CompatibilitySpec:
    """`checks.compatibility`: the command line is held to the snapshot `baseline`."""

    baseline: Path  # the snapshot, resolved against the configuration's folder
    shown: str  # as written in the file
    accepted: tuple[Accepted, ...] = ()
    line: int | None = None  # the line of 'compatibility:'
    baseline_line: int | None = None

    def reason_for(self, names: tuple[str, ...]) -> Accepted | None:
        """The accept entry naming one of `names` (an argument's spellings), if any."""
        return next((entry for entry in self.accepted if entry.name in names), None)


@dataclass(frozen=True)
class Tagged:
    """A name the configuration gives a stability tag (an argument or a section), and its line."""

    name: str
    tag: str
    line: int | None


@dataclass(frozen=True)
class Stability:
    """`stability:`: an argument's own entry, else its section's, else `default`."""

    default: str = GATED
    sections: tuple[Tagged, ...] = ()
    arguments: tuple[Tagged, ...] = ()
    line: int | None = None

    def tag_of(self, names: tuple[str, ...], section: str | None, scope: str = "") -> str:
        """The tag of an argument known by `names` (its spellings, as `check` names them:
        `serve --port`), in `section` of the subcommand `scope` (`serve `): its own entry, else
        its section's (`serve LoRA`, or the title alone for that section of every command)."""
        for entry in self.arguments:
            if entry.name in names:
                return entry.tag
        for entry in self.sections:
            if section is not None and entry.name in (scope + section, section):
                return entry.tag
        return self.default

    def holds(self, names: tuple[str, ...], section: str | None, scope: str = "") -> bool:
        """Whether the compatibility check holds the argument to the baseline: stable ones."""
        return self.tag_of(names, section, scope) == GATED

    def canonical(self, registry: Registry, where: str) -> Stability:
        """The entries as `check` names the arguments: a bare flag of one subcommand's argument
        becomes its spelling (`--lora-rank` -> `serve --lora-rank`); one several subcommands
        have is an error naming each spelling. A name the registry lacks is left for the check
        (it may be the baseline's)."""
        arguments = []
        for entry in self.arguments:
            found = find_argument(registry, entry.name)
            if found.ambiguous:
                raise ambiguous_flag_error(
                    "stability: ", entry.name, found.ambiguous, where, entry.line
                )
            if found.argument is not None and found.scope and " " not in entry.name.strip():
                entry = replace(entry, name=found.scope + entry.name.strip())
            arguments.append(entry)
        return replace(self, arguments=tuple(arguments))


# ------------------------------------------------------------------ checks.compatibility


def _compatibility(
    checks: Any, root: Path, project: Path, where: str, problems: list[Problem]
) -> CompatibilitySpec | None:
    if not isinstance(checks, dict) or checks.get("compatibility") is None:
        return None
    raw, line = checks["compatibility"], line_of(checks, "compatibility")
    if not isinstance(raw, dict) or "baseline" not in raw:
        problems.append(
            Problem(
                "checks: 'compatibility' must be a mapping with 'baseline'",
                where,
                line,
                _BASELINE_FIX,
            )
        )
        return None
    before = len(problems)
    _repeated_keys(raw, "checks: compatibility: ", where, problems)
    _unknown_keys(raw, COMPATIBILITY_KEYS, "checks: compatibility: ", where, problems)
    baseline = _baseline(raw, root, project, where, problems)
    accepted = _accepted(raw, where, problems)
    if baseline is None or len(problems) > before:
        return None
    return CompatibilitySpec(baseline, raw["baseline"], accepted, line, line_of(raw, "baseline"))


def _baseline(
    raw: dict[str, Any], root: Path, project: Path, where: str, problems: list[Problem]
) -> Path | None:
    """The baseline snapshot: a file inside the project. That it is there is for `check` to see
    (`snapshot` writes it where the configuration already names it)."""
    value, line = raw["baseline"], line_of(raw, "baseline")
    if not isinstance(value, str) or not value.strip() or has_control(value):
        problems.append(
            Problem(
                f"checks: compatibility: 'baseline' must be a file path, not {_shown(value)}",
                where,
                line,
                _BASELINE_FIX,
            )
        )
        return None
    path = root / value
    if not within(os.path.realpath(path), project):
        problems.append(
            Problem(
                f"checks: compatibility: baseline {value!r} is outside the project ({project})",
                where,
                line,
                "keep the snapshot inside the project (no absolute path, '..' or symbolic link"
                " leading out)",
            )
        )
        return None
    return path


def _accepted(raw: dict[str, Any], where: str, problems: list[Problem]) -> tuple[Accepted, ...]:
    """`accept`: argument -> the reason its break is accepted. Empty or left out: none."""
    entries = raw.get("accept")
    if entries is None:
        return ()
    if not isinstance(entries, dict):
        problems.append(
            Problem(
                "checks: compatibility: 'accept' must map each argument to the reason its"
                " break is accepted",
                where,
                line_of(raw, "accept"),
                _ACCEPT_FIX,
            )
        )
        return ()
    _repeated_keys(entries, "checks: compatibility: accept: ", where, problems)
    accepted = []
    for name, reason in entries.items():
        line = line_of(entries, name)
        if not _is_name(name):
            problems.append(
                Problem(
                    f"checks: compatibility: accept: {_shown(name)} is not an argument's name",
                    where,
                    line,
                    "name it as 'argmatrix check' does: --flag, or 'serve --port' in a subcommand",
                )
            )
        elif not isinstance(reason, str) or not reason.strip():
            problems.append(
                Problem(
                    f"checks: compatibility: accept: {name!r} needs a reason",
                    where,
                    line,
                    f"write '{name}: <why the break is accepted>' (quote a reason YAML would"
                    " read as something else, such as 'no')",
                )
            )
        else:
            accepted.append(Accepted(name, reason.strip(), line))
    return tuple(accepted)


# ------------------------------------------------------------------ stability


def _stability(data: dict[str, Any], where: str, problems: list[Problem]) -> Stability | None:
    """`stability:` at the top of the file; None when the project gives no tags."""
    raw, line = data.get("stability"), line_of(data, "stability")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                "'stability' must be a mapping",
                where,
                line,
                "write 'arguments: {--flag: beta}' (and 'sections:', 'default:') under it",
            )
        )
        return None
    before = len(problems)
    _repeated_keys(raw, "stability: ", where, problems)
    _unknown_keys(raw, STABILITY_KEYS, "stability: ", where, problems)
    default = raw.get("default", GATED)
    if default not in STABILITY_TAGS:
        _unknown_tag("stability: 'default'", default, line_of(raw, "default"), where, problems)
    sections = _tagged(raw, "sections", where, problems)
    arguments = _tagged(raw, "arguments", where, problems)
    if len(problems) > before:
        return None
    return Stability(default, sections, arguments, line)


def _tagged(
    raw: dict[str, Any], key: str, where: str, problems: list[Problem]
) -> tuple[Tagged, ...]:
    entries = raw.get(key)
    if entries is None:
        return ()
    if not isinstance(entries, dict):
        problems.append(
            Problem(
                f"stability: '{key}' must map a name to its tag",
                where,
                line_of(raw, key),
                f"write e.g. '{key}: {{{'--flag' if key == 'arguments' else 'LoRA'}: beta}}'",
            )
        )
        return ()
    _repeated_keys(entries, f"stability: {key}: ", where, problems)
    found = []
    for name, tag in entries.items():
        line = line_of(entries, name)
        if not _is_name(name):
            problems.append(
                Problem(
                    f"stability: {key}: {_shown(name)} is not a name",
                    where,
                    line,
                    "write the argument as 'argmatrix check' names it (--flag, 'serve --port')"
                    if key == "arguments"
                    else "write the section's title as the pages show it",
                )
            )
        elif tag not in STABILITY_TAGS:
            _unknown_tag(f"stability: {name!r}", tag, line, where, problems)
        else:
            found.append(Tagged(name, tag, line))
    return tuple(found)


def _unknown_tag(
    what: str, tag: Any, line: int | None, where: str, problems: list[Problem]
) -> None:
    problems.append(
        Problem(
            f"{what}: unknown tag {_shown(tag)}",
            where,
            line,
            f"use one of: {', '.join(STABILITY_TAGS)}",
        )
    )


# ------------------------------------------------------------------ shared


def _is_name(name: Any) -> bool:
    return isinstance(name, str) and bool(name.strip()) and not has_control(name)


def _repeated_keys(raw: Any, context: str, where: str, problems: list[Problem]) -> None:
    for key, key_line in getattr(raw, "duplicates", ()):
        problems.append(Problem(f"{context}{key!r} is named twice", where, key_line, "keep one"))
