"""`checks:` of the configuration: the kinds of finding and their severities, the prose globs,
ignored flags, and `coverage` (hand-maintained pages and their allowlists)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import within
from argmatrix._runtime.yamlfile import line_of
from argmatrix.config.fields import _inside, _too_long, _unknown_keys
from argmatrix.config.pages import _page_format
from argmatrix.config.spec import AllowedFlag, CoverageSpec
from argmatrix.errors import Problem, has_control

CHECK_KEYS = ("severity", "prose", "ignore_flags", "coverage", "compatibility")
CHECK_KINDS = (
    "stale-page",
    "unclassified-argument",
    "stale-manifest-entry",
    "duplicate-manifest-entry",
    "impossible-entry",
    "dead-flag",
    # What the registry's reading says of what reaches a page (a value kept as source text):
    # the warning every command prints, a finding of `check`.
    "registry-warning",
    # The coverage check of hand-maintained pages (checks/coverage.py, `checks.coverage`).
    "undocumented-flag",
    "stale-allowlist-entry",
    "unregistered-row",
    "misshapen-row",
    # The compatibility gate (checks/compatibility.py, `checks.compatibility`): a command line
    # valid against the baseline snapshot that the registry now refuses or reads otherwise.
    "removed-argument",
    "removed-subcommand",
    "renamed-argument",
    "changed-default",
    "narrowed-choices",
    "rejected-value",
    "removed-envvar",
    "moved-positional",
    "new-required-argument",
    "new-exclusion",
    "stale-accept-entry",
    # An entry `argmatrix import` marked `review: needed` that no person has checked yet.
    "needs-review",
    # The coverage check's comparison of a row's values (`compare:`), in `argmatrix audit`'s words.
    "wrong-default",
    "wrong-options",
    "wrong-type",
)
# An entry of `checks.coverage`: a hand-maintained page whose tables must cover the registry.
COVERAGE_KEYS = ("page", "allow_undocumented", "columns", "format", "compare")
# What `compare:` switches: each row's values against the registry, as `argmatrix audit` does.
COMPARISONS = ("defaults", "options", "types")
MAX_COLUMNS = 1000
SEVERITIES = ("error", "warning", "off")


def _checks(
    raw: Any, where: str, problems: list[Problem]
) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    defaults: tuple[dict[str, str], tuple[str, ...], tuple[str, ...]] = ({}, ("**/*.md",), ())
    if raw is None:
        return defaults
    if not isinstance(raw, dict):
        problems.append(Problem("'checks' must be a mapping", where, None))
        return defaults
    _unknown_keys(raw, CHECK_KEYS, "checks: ", where, problems)
    return (
        _severities(raw, where, problems),
        _strings(raw, "prose", ["**/*.md"], where, problems),
        _strings(raw, "ignore_flags", [], where, problems),
    )


def _severities(raw: dict[str, Any], where: str, problems: list[Problem]) -> dict[str, str]:
    severity = raw.get("severity", {}) or {}
    result: dict[str, str] = {}
    if not isinstance(severity, dict):
        problems.append(
            Problem(
                "checks: 'severity' must map a kind to error|warning|off",
                where,
                line_of(raw, "severity"),
            )
        )
        return result
    for kind, level in severity.items():
        if level is False:
            level = "off"  # YAML 1.1 reads a bare `off` as false
        if kind not in CHECK_KINDS:
            problems.append(
                Problem(
                    f"checks: unknown kind {kind!r}",
                    where,
                    line_of(severity, kind),
                    f"use one of: {', '.join(CHECK_KINDS)}",
                )
            )
        elif level not in SEVERITIES:
            problems.append(
                Problem(
                    f"checks: severity {level!r} for {kind!r}",
                    where,
                    line_of(severity, kind),
                    "use error, warning or off",
                )
            )
        else:
            result[str(kind)] = level
    return result


def _strings(
    raw: dict[str, Any], key: str, default: list[str], where: str, problems: list[Problem]
) -> tuple[str, ...]:
    value = raw.get(key, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(
            Problem(f"checks: '{key}' must be a list of text", where, line_of(raw, key))
        )
        return tuple(default)
    return tuple(value)


def _coverage(
    raw: Any, docs_dir: Path, project: Path, where: str, problems: list[Problem]
) -> tuple[CoverageSpec, ...]:
    """`checks.coverage`: a list of hand-maintained pages, each with its allowlist."""
    if not isinstance(raw, dict) or raw.get("coverage") is None:
        return ()
    entries = raw["coverage"]
    if not isinstance(entries, list):
        problems.append(
            Problem(
                "checks: 'coverage' must be a list of pages",
                where,
                line_of(raw, "coverage"),
                "write '- page: reference/server_arguments.md' items, each with an optional"
                " 'allow_undocumented: [--flag, ...]'",
            )
        )
        return ()
    specs: list[CoverageSpec] = []
    seen: dict[str, int | None] = {}
    for index, item in enumerate(entries):
        spec = _coverage_page(item, line_of(entries, index), docs_dir, project, where, problems)
        if spec is None:
            continue
        normal = os.path.normpath(spec.page)
        if normal in seen:
            problems.append(
                Problem(
                    f"checks: coverage: page {spec.page!r} is listed twice (first at line"
                    f" {seen[normal]})",
                    where,
                    spec.page_line,
                    "keep one entry per page",
                )
            )
            continue
        seen[normal] = spec.page_line
        specs.append(spec)
    return tuple(specs)


def _coverage_page(
    item: Any, line: int | None, docs_dir: Path, project: Path, where: str, problems: list[Problem]
) -> CoverageSpec | None:
    fix = "write e.g. '- page: reference/server_arguments.md'"
    if not isinstance(item, dict):
        problems.append(
            Problem("checks: coverage: an entry is a mapping with 'page'", where, line, fix)
        )
        return None
    before = len(problems)
    for key, key_line in getattr(item, "duplicates", ()):
        problems.append(
            Problem(f"checks: coverage: key {key!r} is named twice", where, key_line, "keep one")
        )
    _unknown_keys(item, COVERAGE_KEYS, "checks: coverage: ", where, problems)
    page = item.get("page")
    page_line = line_of(item, "page") if "page" in item else line
    if not isinstance(page, str) or not page:
        problems.append(
            Problem("checks: coverage: 'page' must be a file path", where, page_line, fix)
        )
        return None
    if has_control(page) or not _inside(page):
        problems.append(
            Problem(
                f"checks: coverage: page {page!r} is not a plain file path inside docs_dir",
                where,
                page_line,
                "use a relative path such as reference/server_arguments.md",
            )
        )
        return None
    path = docs_dir / page
    too_long = _too_long(path, page)
    if too_long:
        problems.append(
            Problem(
                f"checks: coverage: page {too_long}, more than a file system allows",
                where,
                page_line,
                "use the page's real path (a shorter name)",
            )
        )
        return None
    if not within(os.path.realpath(path), project):
        problems.append(
            Problem(
                f"checks: coverage: page {page!r} is outside the project ({project})",
                where,
                page_line,
                "keep the page inside the project (no symbolic link leading out)",
            )
        )
        return None
    allowed = _allowed_flags(item, where, problems)
    columns = _columns(item, where, problems)
    page_format = _page_format(item, page, where, problems)
    compare = _compare(item, where, problems)
    if len(problems) > before:
        return None
    return CoverageSpec(
        page,
        path,
        allowed,
        columns,
        page_format,
        line,
        page_line,
        line_of(item, "allow_undocumented") if "allow_undocumented" in item else None,
        compare,
    )


def _compare(item: dict[str, Any], where: str, problems: list[Problem]) -> tuple[str, ...]:
    """`compare:` of a coverage page: which of a row's values are compared with the registry,
    as a mapping of `defaults`, `options`, `types` to true or false (each true when left out)."""
    raw = item.get("compare")
    if raw is None:
        return COMPARISONS
    fix = "write e.g. 'compare: {defaults: true, options: true, types: false}'"
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                "checks: coverage: 'compare' must map defaults, options, types to true or false",
                where,
                line_of(item, "compare"),
                fix,
            )
        )
        return COMPARISONS
    chosen = []
    for name in COMPARISONS:
        value = raw.get(name, True)
        if not isinstance(value, bool):
            problems.append(
                Problem(
                    f"checks: coverage: compare: {name!r} must be true or false, not {value!r}",
                    where,
                    line_of(raw, name),
                    fix,
                )
            )
        elif value:
            chosen.append(name)
    _unknown_keys(raw, COMPARISONS, "checks: coverage: compare: ", where, problems)
    return tuple(chosen)


def _allowed_flags(
    item: dict[str, Any], where: str, problems: list[Problem]
) -> tuple[AllowedFlag, ...]:
    """`allow_undocumented`: flags that may have no row (empty, or left out, is no flag)."""
    raw = item.get("allow_undocumented")
    if raw is None:
        return ()
    line = line_of(item, "allow_undocumented")
    if not isinstance(raw, list):
        problems.append(
            Problem(
                "checks: coverage: 'allow_undocumented' must be a list of flags",
                where,
                line,
                "write e.g. 'allow_undocumented: [--debug-tensor-dump-output-folder]'",
            )
        )
        return ()
    allowed = []
    for index, flag in enumerate(raw):
        flag_line = line_of(raw, index) or line
        if not isinstance(flag, str) or has_control(flag) or not _spells_a_flag(flag):
            shown = repr(flag) if isinstance(flag, str) else f"{flag!r} (not a text)"
            problems.append(
                Problem(
                    f"checks: coverage: {shown} in 'allow_undocumented' is not a flag",
                    where,
                    flag_line,
                    "write each flag as the registry spells it, e.g. --log-level (a"
                    " subcommand's: serve --port)",
                )
            )
            continue
        allowed.append(AllowedFlag(flag, flag_line))
    return tuple(allowed)


def _spells_a_flag(text: str) -> bool:
    """`--flag`, or a subcommand's `serve --flag` (`model.spelling`): words, then a flag."""
    *words, flag = text.split(" ") or [""]
    return flag.startswith("-") and all(w and not w.startswith("-") for w in words)


def _columns(item: dict[str, Any], where: str, problems: list[Problem]) -> int | None:
    value = item.get("columns")
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= MAX_COLUMNS:
        problems.append(
            Problem(
                f"checks: coverage: 'columns' must be a number of cells from 1 to {MAX_COLUMNS},"
                f" not {value!r}",
                where,
                line_of(item, "columns"),
                "write e.g. 'columns: 4', or leave it out to hold each row to its table's header",
            )
        )
        return None
    return value
