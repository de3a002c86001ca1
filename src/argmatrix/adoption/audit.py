"""`argmatrix audit`: how far a hand-written argument page is from the registry.

Every row of the page (see `handwritten`) is compared with the registry argument it names: does the
flag exist, does the default agree, are the options real choices, is the type right, is the row
intact. Registry arguments the page never mentions are reported too. Each finding carries the
page's file and line.

The rules a reader relies on:

* A flag written with the other separator (`--tp-size` where the registry declares only
  `--tp_size`, or the reverse) is one `wrong-separator` finding naming the registry's spelling:
  argparse rejects the other one. The row still documents that argument, so its default, options
  and type are compared, and the argument is not reported missing.
* A row for an argument that already has one (in the same table or another, in either
  spelling; the same unknown flag twice, too) is one `duplicate-flag` finding and nothing else:
  the row is to be removed.
* Defaults are compared by value and class, by one rule described in `page_defaults`.
* "did you mean" names a flag only when it is a typo away (`model.findings.closest`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from argmatrix._runtime.files import read_user_file
from argmatrix.adoption import AUDIT_FORMATS
from argmatrix.adoption.audit_values import (
    registry_kind,
    row_finding,
    self_contradicting_type,
    wrong_default,
    wrong_options,
    wrong_type,
)
from argmatrix.adoption.handwritten import (
    OPTIONS,
    REPLACEMENT,
    ArgumentPage,
    ArgumentRow,
    parse_page,
    read_page,
    section_key,
)
from argmatrix.adoption.page_arguments import (
    ReadRow,
    RegistryFlags,
    RowFlags,
    heading_scopes,
    read_rows,
)
from argmatrix.checks.report import finding_dict, text_line
from argmatrix.errors import json_for_log, printable
from argmatrix.model.findings import Finding, closest
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.spelling import scopes
from argmatrix.project import Project, SourceOptions, config_with, configured_registry

KINDS = (
    "broken-row",
    "unknown-flag",
    "wrong-separator",
    "duplicate-flag",
    "wrong-default",
    "wrong-options",
    "wrong-type",
    "raw-html",
    "ambiguous-flag",
    "missing-flag",
)
FORMATS = AUDIT_FORMATS


@dataclass(frozen=True)
class AuditReport:
    page: ArgumentPage
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        counted = Counter(f.kind for f in self.findings)
        return {kind: counted[kind] for kind in KINDS if counted[kind]}


def audit_file(path: Path, options: SourceOptions) -> AuditReport:
    """`argmatrix audit`: the page at `path` against the registry the configuration (with
    `options` over it) names; the page is read first."""
    page = read_page(path)
    config = config_with(options)
    registry = configured_registry(config, options.verbose)
    # Defaults the configuration says are computed at run time may be said in words.
    computed = config.display.facts(registry, str(config.file or "argmatrix.yaml")).computed
    return audit_page(page, registry, computed)


def audit_page(
    page: ArgumentPage, registry: Registry, computed: Mapping[int, str] | None = None
) -> AuditReport:
    """`computed`: defaults computed at run time (id(argument) -> the configuration's text,
    `computed_defaults:`), which a page may say in words instead of the registry's value.

    A program with subcommands is audited in the spelling the configuration uses for a
    subcommand's flag (`serve --port`); which argument a row documents is read from the page
    (`page_arguments`)."""
    flags = RegistryFlags.of(registry)
    findings: list[Finding] = []
    first_line: dict[str, int] = {}
    documented: set[str] = set()
    for read in read_rows(page, flags):
        findings.extend(_row_findings(page, read, flags, first_line, computed or {}))
        documented.update(_documented(read.flags))
    findings.extend(missing_flags(page, registry, documented))
    return AuditReport(page, tuple(findings))


def _documented(found: RowFlags) -> set[str]:
    """The spellings a row documents: its argument's, or every one of a flag the page does not
    tell apart (its finding says so; they are not missing as well)."""
    if found.argument is not None:
        return {found.argument.spelled}
    return {spelled for _, spellings in found.ambiguous for spelled in spellings}


# The coverage check's comparisons (`compare:` of a `checks.coverage` page) and their findings.
COMPARED_KINDS = {"defaults": "wrong-default", "options": "wrong-options", "types": "wrong-type"}


def coverage_value_findings(project: Project) -> list[Finding]:
    """What `argmatrix check` adds to the coverage check of each hand-maintained Markdown page
    (`checks.coverage`): its rows' defaults, options and types compared with the registry as
    `audit` compares them, each comparison as the page's `compare:` allows. The first row of an
    argument is compared (a second is the coverage check's concern). A page read as MDX (JSX
    tables) is not compared: audit reads Markdown tables and copied text."""
    config, registry = project.config, project.registry
    computed = config.display.facts(registry, str(config.file or "argmatrix.yaml")).computed
    flags = RegistryFlags.of(registry)
    found: list[Finding] = []
    for spec in config.coverage:
        kinds = {COMPARED_KINDS[name] for name in spec.compare}
        if not kinds or spec.format == "mdx":
            continue
        page = parse_page(
            read_user_file(spec.path, "page", "check checks.coverage"), str(spec.path)
        )
        seen: set[str] = set()
        for read in read_rows(page, flags):  # none when audit's reader finds no table it reads
            scoped, row = read.flags.argument, read.row
            if scoped is None or scoped.spelled in seen or row.broken:
                continue  # a misshapen row is the coverage check's own finding
            seen.add(scoped.spelled)
            argument = scoped.argument
            shown = computed.get(id(argument))
            for finding in value_findings(page, row, argument, shown, scoped.spelled):
                if finding.kind in kinds:
                    found.append(finding)
    return found


def _row_findings(
    page: ArgumentPage,
    read: ReadRow,
    flags: RegistryFlags,
    first_line: dict[str, int],
    computed: Mapping[int, str],
) -> list[Finding]:
    row, found = read.row, read.flags
    key = found.key()
    if key is not None and key in first_line:
        return [duplicate_row(page, row, key, first_line[key])]
    if key is not None:
        first_line[key] = row.line
    findings = [
        *broken_row(page, row),
        *unknown_flags(page, row, found.unknown, flags, read.scope),
        *ambiguous_flags(page, row, found.ambiguous),
        *respelled_flags(page, row, found.respelled),
        *raw_html(page, row),
    ]
    scoped = found.argument
    if scoped is None or registry_kind(scoped.argument) is None:
        findings.extend(self_contradicting_type(page, row))
    if scoped is not None:
        argument = scoped.argument
        findings.extend(
            value_findings(page, row, argument, computed.get(id(argument)), scoped.spelled)
        )
    return findings


def duplicate_row(page: ArgumentPage, row: ArgumentRow, key: str, first: int) -> Finding:
    """A second row for an argument (or for the same unknown flag): the one finding of the row."""
    return row_finding(
        page,
        "duplicate-flag",
        f"{key} is documented twice (first at line {first})",
        key,
        row.line,
        "keep one row per argument",
    )


def broken_row(page: ArgumentPage, row: ArgumentRow) -> list[Finding]:
    if not row.broken:
        return []
    fix = (
        "write a '|' inside a cell as '\\|'"
        if "unescaped" in row.broken
        else "give the row one cell per column"
    )
    return [
        row_finding(
            page, "broken-row", f"{row.flags[0]}: {row.broken}", row.flags[0], row.line, fix
        )
    ]


def value_findings(
    page: ArgumentPage,
    row: ArgumentRow,
    argument: Argument,
    computed: str | None = None,
    name: str | None = None,
) -> list[Finding]:
    """What the row says about the argument's values: default, options, type. `name`: the
    argument's spelling (`serve --port` for a subcommand's)."""
    shown = name or argument.name
    found = wrong_default(page, row, argument, computed, shown)
    options = row.cell(OPTIONS)
    if options is not None:
        found += wrong_options(page, row, argument, options, shown)
        found += wrong_type(page, row, argument, options, shown)
    return found


# ------------------------------------------------------------------ flags


def respelled_flags(
    page: ArgumentPage, row: ArgumentRow, respelled: tuple[tuple[str, str], ...]
) -> list[Finding]:
    return [
        row_finding(
            page,
            "wrong-separator",
            f"the page writes {written}, but the registry's flag is {real}: argparse rejects"
            f" {written}",
            real,
            row.line,
            f"write {real}",
        )
        for written, real in respelled
    ]


def unknown_flags(
    page: ArgumentPage,
    row: ArgumentRow,
    unknown: tuple[str, ...],
    flags: RegistryFlags,
    scope: str = "",
) -> list[Finding]:
    found = []
    for flag in unknown:
        if row.table.has(REPLACEMENT):
            found.append(
                row_finding(
                    page,
                    "unknown-flag",
                    f"deprecated {flag} is no longer an argument of the registry",
                    flag,
                    row.line,
                    "remove it from the deprecated arguments",
                )
            )
            continue
        suggestion = flags.suggestion(closest(flag, flags.candidates), scope)
        found.append(
            row_finding(
                page,
                "unknown-flag",
                f"{flag} is not an argument of the registry",
                flag,
                row.line,
                f"did you mean {suggestion}?"
                if suggestion
                else "remove the row, or update it to the argument that replaced it",
            )
        )
    return found


def ambiguous_flags(
    page: ArgumentPage, row: ArgumentRow, ambiguous: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[Finding]:
    """A flag several subcommands have, on a row the page does not place under one of them:
    a finding naming every spelling it could mean, never a guess."""
    found = []
    for flag, spellings in ambiguous:
        named = ", ".join(repr(s) for s in spellings)
        found.append(
            row_finding(
                page,
                "ambiguous-flag",
                f"{flag} is an argument of several subcommands ({named}): the page does not say"
                " which one the row documents",
                flag,
                row.line,
                f"put the row under a heading naming its subcommand (e.g. '## "
                f"{spellings[0].rsplit(' ', 1)[0]}'), or write {spellings[0]!r} in its cell",
            )
        )
    return found


def missing_flags(page: ArgumentPage, registry: Registry, documented: set[str]) -> list[Finding]:
    """Registry arguments without a row, at the heading of their section when the page has it.
    The top level's are audited, and those of each subcommand the page documents (a page about
    `serve` alone is not missing `bench`'s)."""
    after = heading_scopes(page, registry) if registry.subcommands else []
    audited = {""} | {
        words for spelled in documented for words in _enclosing(spelled.rsplit(" ", 1)[0])
    }
    found = []
    for scope in scopes(registry):
        if scope.words not in audited:
            continue
        for argument in scope.registry.arguments:
            spelled = scope.words + argument.name
            # A page's rows are found by their --flags; positionals are not audited.
            if argument.hidden or argument.positional or spelled in documented:
                continue
            found.append(_missing(page, after, scope.words, argument))
    return found


def _enclosing(words: str) -> list[str]:
    """`serve api` -> ["serve ", "serve api "]: the subcommand scopes a spelling sits in (a
    top-level spelling, a bare flag, has none)."""
    names = [w for w in words.split() if not w.startswith("-")]
    return [" ".join(names[:count]) + " " for count in range(1, len(names) + 1)]


def _missing(
    page: ArgumentPage, after: list[tuple[int, str]], words: str, argument: Argument
) -> Finding:
    spelled = words + argument.name
    where = f"'{argument.section}'" + (f" of '{words.strip()}'" if words else "")
    return row_finding(
        page,
        "missing-flag",
        f"{spelled} is in the registry but not on the page",
        spelled,
        page_line_of(page, after, words, argument.section),
        f"add a row for it under {where}",
    )


def page_line_of(
    page: ArgumentPage, scopes_after: list[tuple[int, str]], words: str, section: str
) -> int | None:
    """The line of the heading of `section` of the subcommand `words` on the page: among the
    headings under the subcommand's first heading, else the first heading of that title; the
    subcommand's own heading; or None."""
    headings = page.page.headings
    own = next((i for i, (_, scope) in enumerate(scopes_after) if scope == words), None)
    if not words or own is None:
        return page.section_line(section)
    level = headings[own][2]
    wanted = section_key(section)
    for index in range(own + 1, len(headings)):
        text, line, deeper = headings[index]
        if scopes_after[index][1] != words or (deeper <= level and page.layout != "text"):
            break
        if section_key(text) == wanted:
            return line
    return headings[own][1]


# ------------------------------------------------------------------ cells that lose text

_HTML_TAG = re.compile(r"^</?([A-Za-z][A-Za-z0-9-]*)")
KNOWN_HTML = frozenset(
    (  # elements a page may use on purpose
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "big",
        "blockquote",
        "br",
        "caption",
        "center",
        "cite",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "font",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "input",
        "ins",
        "kbd",
        "label",
        "li",
        "mark",
        "ol",
        "p",
        "picture",
        "pre",
        "q",
        "rp",
        "rt",
        "ruby",
        "s",
        "samp",
        "small",
        "source",
        "span",
        "strike",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "time",
        "tr",
        "tt",
        "u",
        "ul",
        "var",
        "video",
        "wbr",
    )
)


def raw_html(page: ArgumentPage, row: ArgumentRow) -> list[Finding]:
    """Text like `<PATH>` outside a code span is an HTML tag to Markdown: it vanishes."""
    unknown = list(
        dict.fromkeys(tag for cell in row.cells for tag in cell.html if _unknown_tag(tag))
    )
    if not unknown:
        return []
    shown = ", ".join(unknown)
    first = unknown[0].strip("</>")
    verbs = (
        "is read as an HTML tag and vanishes"
        if len(unknown) == 1
        else ("are read as HTML tags and vanish")
    )
    return [
        row_finding(
            page,
            "raw-html",
            f"{row.flags[0]}: {shown} {verbs} from the rendered page",
            row.flags[0],
            row.line,
            f"put it in a code span (`<{first}>`) or write &lt;{first}&gt;",
        )
    ]


def _unknown_tag(tag: str) -> bool:
    match = _HTML_TAG.match(tag)
    return match is not None and match.group(1).lower() not in KNOWN_HTML


# ------------------------------------------------------------------ output


def report_dict(report: AuditReport) -> dict[str, Any]:
    return {
        "page": report.page.file,
        "layout": report.page.layout,
        "rows": len(report.page.rows),
        "counts": report.counts(),
        "findings": [finding_dict(f, None) for f in report.findings],
    }


def emit(report: AuditReport, form: str, stream: TextIO) -> None:
    if form == "json":
        stream.write(
            json_for_log(json.dumps(report_dict(report), indent=2, ensure_ascii=False)) + "\n"
        )
        return
    for finding in report.findings:
        stream.write(text_line(finding) + "\n")
    stream.write(printable(summary(report)) + "\n")


def summary(report: AuditReport) -> str:
    rows = len(report.page.rows)
    if not report.findings:
        return f"argmatrix audit: the page agrees with the registry ({rows} rows)"
    return f"argmatrix audit: {len(report.findings)} finding(s) on {rows} rows: " + _count_text(
        report.counts().items()
    )


def _count_text(counts: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{number} {kind}" for kind, number in counts)
