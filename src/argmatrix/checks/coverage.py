"""The coverage check of hand-maintained pages (`checks.coverage` in argmatrix.yaml).

A project that writes its server-arguments page by hand (SGLang's Mintlify `.mdx` page with its
JSX `<table>`s, a Markdown page of pipe tables) keeps it honest with a test of its own: every
flag of the parser has a row, unless it is on an allowlist that may only shrink. This check is
that test, with file:line findings in the formats of every other check:

* `undocumented-flag`: an argument of the registry with no row naming any of its flags, and
  none of them on the page's `allow_undocumented` list. Deprecated and hidden arguments are
  registered but need no row.
* `stale-allowlist-entry`: an entry whose argument now has a row, whose flag is gone, whose
  argument needs no row, or that repeats another entry. `check --fix` removes these from
  argmatrix.yaml (`checks/fix.py`), and never adds one.
* `unregistered-row`: a row naming a flag the registry does not have (renamed, removed), in its
  first cell or as code in another.
* `misshapen-row`: a row with more or fewer cells than its table has columns (or than the page's
  `columns:`).

A table is an argument table when a row below its header names a flag in its first cell; other
tables of the page (environment variables, a comparison) are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix._runtime.files import read_regular_file, real, within
from argmatrix.config import Config, CoverageSpec
from argmatrix.config.spec import AllowedFlag
from argmatrix.errors import ArgmatrixError
from argmatrix.model.findings import Finding, closest
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.spelling import (
    ambiguous_flag_error,
    argument_spellings,
    find_argument,
    scopes,
)
from argmatrix.project import Project

if TYPE_CHECKING:  # the page readers are imported when a coverage page is read
    from argmatrix.pagetables import PageTable, Syntax, TableRow

STALE = "stale-allowlist-entry"
# SGLang's hand-written page is about 60 KB; reading markup costs a few microseconds a tag, so a
# page of this size is read in about three seconds at worst.
MAX_PAGE_BYTES = 2 * 1024 * 1024
FIX_BY_COMMAND = "remove it from allow_undocumented ('argmatrix check --fix' does)"


@dataclass(frozen=True)
class Documented:
    """The argument rows of one page: each flag with the line of its first row."""

    tables: tuple[PageTable, ...]
    rows: tuple[TableRow, ...]  # rows naming at least one flag, in page order
    flags: dict[str, int]  # flag -> line of its first row


@dataclass(frozen=True)
class StaleEntry:
    """An allowlist entry to remove: the page's index in `checks.coverage`, and the entry's."""

    page: int
    entry: int
    finding: Finding


def coverage_findings(project: Project) -> list[Finding]:
    findings: list[Finding] = []
    for spec in project.config.coverage:
        findings.extend(page_findings(project, spec))
    return findings


def page_findings(project: Project, spec: CoverageSpec) -> list[Finding]:
    registry, config = project.registry, project.config
    documented = read_documented(spec, config)
    known = registry.all_flags() | set(config.ignore_flags)
    return [
        *misshapen_rows(spec, documented),
        *unregistered_rows(spec, documented, known),
        *undocumented_flags(spec, documented, registry, config),
        *(stale.finding for stale in stale_entries(spec, 0, documented, registry, config)),
    ]


# ------------------------------------------------------------------ reading the page


def read_documented(spec: CoverageSpec, config: Config) -> Documented:
    from argmatrix.pagetables import read_tables  # markdown-it and the HTML reader: here only

    page = str(spec.path)
    where = f"{config.file}" if config.file else None
    if not within(real(spec.path), real(config.project)):
        raise ArgmatrixError.at(
            f"coverage page {spec.page!r} is a symbolic link leading out of the project",
            file=where,
            line=spec.page_line,
            fix="replace the link by the page itself",
        )
    if not spec.path.exists():
        raise ArgmatrixError.at(
            f"coverage page {spec.page!r} not found (under {config.docs_dir})",
            file=where,
            line=spec.page_line,
            fix="give the page's path relative to docs_dir, or remove the entry",
        )
    text = _page_text(spec.path)
    syntax: Syntax = "mdx" if spec.format == "mdx" else "markdown"
    tables = tuple(t for t in read_tables(text, page, syntax) if _is_argument_table(t))
    if not tables:
        raise ArgmatrixError.at(
            "no argument table found: no table has a row naming a flag in its first cell",
            file=page,
            line=1,
            fix="write the flags in the first column (`--flag` or <code>--flag</code>), or"
            " remove the page from checks.coverage",
        )
    rows = tuple(row for table in tables for row in table.body if _row_flags(row))
    flags: dict[str, int] = {}
    for row in rows:
        for flag in _row_flags(row):
            flags.setdefault(flag, row.line)
    return Documented(tables, rows, flags)


def _page_text(path: Path) -> str:
    """A hand-maintained page, at most MAX_PAGE_BYTES of UTF-8 text."""
    data = read_regular_file(
        path,
        "the page",
        "checks.coverage names a text page",
        limit=MAX_PAGE_BYTES,
        too_large_fix="a page a person maintains is far smaller: split it, or leave it out of"
        " checks.coverage",
    )
    if data is None:
        raise ArgmatrixError.at("the page is gone", file=str(path), fix="check its path")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArgmatrixError.at(
            f"the page is not UTF-8 text ({exc.reason} at byte {exc.start})",
            file=str(path),
            fix="save it as UTF-8",
        ) from None


def _row_flags(row: TableRow) -> tuple[str, ...]:
    return row.cells[0].flags() if row.cells else ()


def _is_argument_table(table: PageTable) -> bool:
    return any(_row_flags(row) for row in table.body)


# ------------------------------------------------------------------ the rows


def misshapen_rows(spec: CoverageSpec, documented: Documented) -> list[Finding]:
    found = []
    for table in documented.tables:
        width = spec.columns or table.width
        for row in table.rows:
            if row.width == width or (row.header and not spec.columns):
                continue
            flags = _row_flags(row)
            which = f"the row of {flags[0]}" if flags else "a row"
            expected = "the page's 'columns:'" if spec.columns else "its table's header"
            found.append(
                Finding(
                    "misshapen-row",
                    f"{which} has {_cells(row.width)}; {expected} says {width}",
                    flag=flags[0] if flags else None,
                    file=str(spec.path),
                    line=row.line,
                    fix=f"give the row {_cells(width)}, one per column",
                )
            )
    return found


def _cells(count: int) -> str:
    return f"{count} cell" if count == 1 else f"{count} cells"


def unregistered_rows(spec: CoverageSpec, documented: Documented, known: set[str]) -> list[Finding]:
    candidates = sorted(known)
    found = []
    for table in documented.tables:
        for row in table.body:
            named = [*_row_flags(row), *(f for cell in row.cells[1:] for f in cell.code_flags())]
            for flag in dict.fromkeys(named):
                if flag in known:
                    continue
                suggestion = closest(flag, candidates)
                found.append(
                    Finding(
                        "unregistered-row",
                        f"the row names {flag}, which the registry does not have",
                        flag=flag,
                        file=str(spec.path),
                        line=row.line,
                        fix=f"did you mean {suggestion}?"
                        if suggestion
                        else "remove it, or write the flag that replaced it",
                    )
                )
    return found


# ------------------------------------------------------------------ the registry's flags


def needs_row(argument: Argument) -> bool:
    """Deprecated and hidden arguments are registered, but a page need not show them."""
    return bool(argument.flags) and not argument.deprecated and not argument.hidden


def undocumented_flags(
    spec: CoverageSpec, documented: Documented, registry: Registry, config: Config
) -> list[Finding]:
    """Arguments with no row: the top level's, and those of each subcommand the page documents
    (a row naming a flag only that subcommand has), named as the configuration names them
    (`serve --port`); an allowlist entry holds back the argument it names."""
    allowed = {id(argument) for _, argument in allowed_arguments(spec, registry, config)}
    list_at = f"{_shown(config.file)}:{spec.allow_line or spec.line}"
    found = []
    counts = _flag_counts(registry)
    for scope in scopes(registry):
        if scope.words and not _page_documents(scope.registry, documented, counts):
            continue
        previous: tuple[str, int] | None = None  # the last documented argument, and its row
        for argument in scope.registry.arguments:
            spelled = scope.words + argument.name
            lines = [documented.flags[f] for f in argument.flags if f in documented.flags]
            if lines:
                # a flag several commands have is documented, but its row may be another's
                if any(counts[f] == 1 for f in argument.flags if f in documented.flags):
                    previous = (spelled, min(lines))
                continue
            if not needs_row(argument) or id(argument) in allowed:
                continue
            after = f" after the row of {previous[0]}" if previous else ""
            found.append(
                Finding(
                    "undocumented-flag",
                    f"{spelled} has no row on the page",
                    flag=spelled,
                    file=str(spec.path),
                    line=previous[1] if previous else documented.rows[0].line,
                    fix=f"add a row for it{after}, or list it under allow_undocumented at"
                    f" {list_at}",
                )
            )
    return found


def _flag_counts(registry: Registry) -> dict[str, int]:
    """How many commands (the top level, each subcommand) have each flag."""
    counts: dict[str, int] = {}
    for scope in scopes(registry):
        for flag in scope.registry.by_flag():
            counts[flag] = counts.get(flag, 0) + 1
    return counts


def _page_documents(command: Registry, documented: Documented, counts: dict[str, int]) -> bool:
    """Whether the page has a row naming a flag that only this subcommand has."""
    return any(counts.get(f) == 1 and f in documented.flags for f in command.by_flag())


def allowed_arguments(
    spec: CoverageSpec, registry: Registry, config: Config
) -> list[tuple[AllowedFlag, Argument | None]]:
    """Each allowlist entry with the argument it names (`model.spelling`: `serve --port`, or a
    bare flag one command has), None when it names none; a bare flag several subcommands have
    is a located error naming each spelling."""
    named = []
    for entry in spec.allowed:
        found = find_argument(registry, entry.flag)
        if found.ambiguous:
            raise ambiguous_flag_error(
                "checks: coverage: allow_undocumented: ",
                entry.flag,
                found.ambiguous,
                str(config.file) if config.file else None,
                entry.line,
            )
        named.append((entry, found.argument))
    return named


def _shown(file: Path | None) -> str:
    return file.name if file else "argmatrix.yaml"


def stale_entries(
    spec: CoverageSpec, index: int, documented: Documented, registry: Registry, config: Config
) -> list[StaleEntry]:
    """Every allowlist entry that no longer holds back a finding."""
    where = str(config.file) if config.file else None
    first_of: dict[int, str] = {}  # id of an argument -> the entry that named it first
    stale = []
    for position, (entry, argument) in enumerate(allowed_arguments(spec, registry, config)):
        reason = _why_stale(entry.flag, argument, documented, first_of, registry, spec)
        if argument is not None:
            first_of.setdefault(id(argument), entry.flag)
        if reason is None:
            continue
        message, fix = reason
        finding = Finding(STALE, message, flag=entry.flag, file=where, line=entry.line, fix=fix)
        stale.append(StaleEntry(index, position, finding))
    return stale


def _why_stale(
    flag: str,
    argument: Argument | None,
    documented: Documented,
    first_of: dict[int, str],
    registry: Registry,
    spec: CoverageSpec,
) -> tuple[str, str] | None:
    """(message, fix) when the entry is stale, else None."""
    if argument is None:
        suggestion = closest(flag, sorted({*registry.all_flags(), *argument_spellings(registry)}))
        hint = f"did you mean {suggestion}? Otherwise " if suggestion else ""
        return (
            f"{flag} is allow-listed for {spec.page}, but the registry has no such flag",
            f"{hint}{FIX_BY_COMMAND}",
        )
    if id(argument) in first_of:
        return (
            f"{flag} is allow-listed twice for {spec.page} (as {first_of[id(argument)]})",
            FIX_BY_COMMAND,
        )
    rows = [documented.flags[f] for f in argument.flags if f in documented.flags]
    if rows:
        return (
            f"{flag} is allow-listed as undocumented, but {spec.page}:{min(rows)} has a row for it",
            FIX_BY_COMMAND,
        )
    if not needs_row(argument):
        why = "deprecated" if argument.deprecated else "hidden from --help"
        return (f"{flag} is {why}, so it needs no row and no allowlist entry", FIX_BY_COMMAND)
    return None
