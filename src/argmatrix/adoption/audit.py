"""`argmatrix audit`: how far a hand-written argument page is from the registry.

Every row of the page (see `handwritten`) is compared with the registry argument it names: does the
flag exist, does the default agree, are the options real choices, is the type right, is the row
intact. Registry arguments the page never mentions are reported too. Each finding carries the
page's file and line.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from argmatrix.adoption.handwritten import (
    DEFAULT,
    OPTIONS,
    REPLACEMENT,
    Cell,
    Page,
    Row,
    TypeHint,
    option_values,
    type_hint,
)
from argmatrix.checks.report import finding_dict, text_line
from argmatrix.errors import json_for_log, printable
from argmatrix.manifests.resolve import in_choices
from argmatrix.model.findings import Finding, closest
from argmatrix.model.registry import FLAG_ACTIONS, Argument, Registry
from argmatrix.model.values import value_description, value_text

AUDIT_FORMATS = ("text", "json")

KINDS = (
    "broken-row",
    "unknown-flag",
    "duplicate-flag",
    "wrong-default",
    "wrong-options",
    "wrong-type",
    "raw-html",
    "missing-flag",
)
FORMATS = AUDIT_FORMATS


@dataclass(frozen=True)
class AuditReport:
    page: Page
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        counted = Counter(f.kind for f in self.findings)
        return {kind: counted[kind] for kind in KINDS if counted[kind]}


def audit_page(page: Page, registry: Registry) -> AuditReport:
    index = registry.by_flag()
    candidates = sorted(index)
    findings: list[Finding] = []
    first_line: dict[str, int] = {}
    for row in page.rows:
        findings.extend(_row_findings(page, row, index, candidates, first_line))
    findings.extend(missing_flags(page, registry, set(first_line)))
    return AuditReport(page, tuple(findings))


def _finding(
    page: Page, kind: str, message: str, flag: str | None, line: int | None, fix: str | None
) -> Finding:
    return Finding(kind, message, flag=flag, file=page.file, line=line, fix=fix)


def _row_findings(
    page: Page,
    row: Row,
    index: Mapping[str, Argument],
    candidates: list[str],
    first_line: dict[str, int],
) -> list[Finding]:
    found = [
        *broken_row(page, row),
        *unknown_flags(page, row, index, candidates),
        *raw_html(page, row),
    ]
    argument = next((index[f] for f in row.flags if f in index), None)
    if argument is None or registry_kind(argument) is None:
        found.extend(self_contradicting_type(page, row))
    if argument is None:
        return found
    if argument.name in first_line:
        found.append(
            _finding(
                page,
                "duplicate-flag",
                f"{argument.name} is documented twice (first at line {first_line[argument.name]})",
                argument.name,
                row.line,
                "keep one row per argument",
            )
        )
        return found
    first_line[argument.name] = row.line
    return found + value_findings(page, row, argument)


def broken_row(page: Page, row: Row) -> list[Finding]:
    if not row.broken:
        return []
    fix = (
        "write a '|' inside a cell as '\\|'"
        if "unescaped" in row.broken
        else "give the row one cell per column"
    )
    return [
        _finding(page, "broken-row", f"{row.flags[0]}: {row.broken}", row.flags[0], row.line, fix)
    ]


def value_findings(page: Page, row: Row, argument: Argument) -> list[Finding]:
    """What the row says about the argument's values: default, options, type."""
    found = wrong_default(page, row, argument)
    options = row.cell(OPTIONS)
    if options is not None:
        found += wrong_options(page, row, argument, options)
        found += wrong_type(page, row, argument, options)
    return found


# ------------------------------------------------------------------ flags


def unknown_flags(
    page: Page, row: Row, index: Mapping[str, Argument], candidates: list[str]
) -> list[Finding]:
    found = []
    for flag in row.flags:
        if flag in index:
            continue
        if row.table.has(REPLACEMENT):
            found.append(
                _finding(
                    page,
                    "unknown-flag",
                    f"deprecated {flag} is no longer an argument of the registry",
                    flag,
                    row.line,
                    "remove it from the deprecated arguments",
                )
            )
            continue
        suggestion = closest(flag, candidates)
        found.append(
            _finding(
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


def missing_flags(page: Page, registry: Registry, documented: set[str]) -> list[Finding]:
    """Registry arguments without a row, at the heading of their section when the page has it."""
    found = []
    for argument in registry.arguments:
        # A page's rows are found by their --flags; positionals are not audited.
        if argument.hidden or argument.positional or argument.name in documented:
            continue
        line = page.section_line(argument.section)
        found.append(
            _finding(
                page,
                "missing-flag",
                f"{argument.name} is in the registry but not on the page",
                argument.name,
                line,
                f"add a row for it under '{argument.section}'",
            )
        )
    return found


# ------------------------------------------------------------------ defaults

_EMPTY_TEXTS = {"", "none", "null", "n/a", "-", "—"}
_FALSY: tuple[Any, ...] = (None, "", False, (), [], {})


def _unquoted(text: str) -> str:
    text = " ".join(text.split()).strip().strip("`").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def comparable(value: Any) -> bool:
    """Whether a registry default is a plain value (not computed at run time or unreadable)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(comparable(v) for v in value)
    if isinstance(value, dict):
        return all(comparable(k) and comparable(v) for k, v in value.items())
    return False


def default_agrees(text: str, argument: Argument) -> bool | None:
    """Whether the page's default text says the registry default; None if not comparable.

    Lenient on how a value is written: `None`, empty and `null` are one; quotes and backticks
    do not count; `1` equals `1.0`; a switch that is off may read `None` or `False`; a required
    argument without a default may read `required`.
    """
    value = argument.default
    if not comparable(value):
        return None
    page = _unquoted(text)
    if argument.required and value is None and page.lower().strip("()") == "required":
        return True
    if page.lower() in _EMPTY_TEXTS or page in ("[]", "{}", "()"):
        return (
            _is_falsy(value) or page == value_text(value) or (argument.is_flag and value is False)
        )
    if isinstance(value, bool) or (argument.is_flag and value is None):
        return page.lower() == str(bool(value)).lower()
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return _number(page) == value
    if isinstance(value, str):
        return page == value or page == _unquoted(value)
    if isinstance(value, dict):
        return page == value_text(value) or _literal(page) == value
    return (
        page == value_text(value)
        or _literal(page) == _plain(value)
        or page == ", ".join(value_text(v) for v in value)
    )


def _is_falsy(value: Any) -> bool:
    return any(value is f or (type(value) is type(f) and value == f) for f in _FALSY)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _literal(text: str) -> Any:
    try:
        return _plain(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def wrong_default(page: Page, row: Row, argument: Argument) -> list[Finding]:
    cell = row.cell(DEFAULT)
    if cell is None or default_agrees(cell.text, argument) is not False:
        return []
    expected = value_text(argument.default)
    return [
        _finding(
            page,
            "wrong-default",
            f"{argument.name}: the page says the default is {_quoted(cell.text)}, the registry"
            f" says {_quoted(expected)}",
            argument.name,
            row.line,
            f"write {_quoted(expected)}; a platform's own default belongs in its manifest"
            if page.states_support
            else f"write {_quoted(expected)}",
        )
    ]


def _quoted(text: str) -> str:
    return "'" + " ".join(text.split()) + "'"


# ------------------------------------------------------------------ options and types


def wrong_options(page: Page, row: Row, argument: Argument, cell: Cell) -> list[Finding]:
    values = option_values(cell)
    choices = argument.choices
    if not values or not isinstance(choices, tuple):
        return []
    choice_list = ", ".join(value_text(c) for c in choices)
    outside = [v for v in values if not in_choices(v, choices)]
    if outside:
        return [
            _finding(
                page,
                "wrong-options",
                f"{argument.name}: {', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not"
                " among the registry's choices",
                argument.name,
                row.line,
                f"list only registry choices: {choice_list}",
            )
        ]
    missing = [value_text(c) for c in choices if value_text(c) not in values]
    if missing and not page.states_support:
        return [
            _finding(
                page,
                "wrong-options",
                f"{argument.name}: the page leaves out the choices {', '.join(missing)}",
                argument.name,
                row.line,
                f"list every choice: {choice_list}",
            )
        ]
    return []


_TYPE_BASES = {
    "str": "str",
    "nullable_str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str2bool": "bool",
    "loads": "json",
    "json_list_type": "json",
}


def registry_kind(argument: Argument) -> TypeHint | None:
    """The value type the registry accepts, in the terms a page uses; None when unknown."""
    if argument.action in FLAG_ACTIONS:
        return TypeHint("bool", False, argument.action) if argument.action != "count" else None
    if argument.action in ("version", "help") or argument.nargs == 0:
        return None  # takes no value: no type to compare
    base = _TYPE_BASES.get(argument.type or "str")
    if base is None and argument.type and "json" in argument.type.lower():
        base = "json"
    if base is None:
        return None
    nargs = argument.nargs
    many = (
        nargs in ("+", "*")
        or (isinstance(nargs, int) and nargs > 1)
        or argument.action in ("append", "extend")
        or argument.type == "json_list_type"
    )
    return TypeHint(base, many, argument.type or "str")


def types_agree(page: TypeHint, registry: TypeHint) -> bool:
    if page.base is None:
        return True
    if "json" in (page.base, registry.base):
        # JSON travels as a string: str and JSON are the same to the command line.
        return {page.base, registry.base} <= {"json", "str"}
    return page.base == registry.base and page.many == registry.many


def describe_kind(kind: TypeHint, argument: Argument) -> str:
    if kind.base == "bool" and argument.action in FLAG_ACTIONS:
        return f"is a switch ({argument.action}) that takes no value"
    if not kind.many:
        return f"takes one {kind.base} value"
    how = (
        f"action={argument.action!r}"
        if argument.action in ("append", "extend")
        else f"nargs={argument.nargs!r}"
    )
    return f"takes several {kind.base} values ({how})"


def wrong_type(page: Page, row: Row, argument: Argument, cell: Cell) -> list[Finding]:
    hint = type_hint(cell)
    expected = registry_kind(argument)
    if hint is None or expected is None or types_agree(hint, expected):
        return []
    return [
        _finding(
            page,
            "wrong-type",
            f"{argument.name}: the page says {_quoted(hint.text)}, but the argument"
            f" {describe_kind(expected, argument)}",
            argument.name,
            row.line,
            f"write {_quoted(value_description(argument))}",
        )
    ]


_LITERAL_KINDS = (
    ("bool", re.compile(r"^(true|false)$", re.IGNORECASE)),
    ("int", re.compile(r"^[+-]?\d+$")),
    ("float", re.compile(r"^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$")),
)


def literal_kind(text: str) -> str | None:
    """bool, int or float when a default is written as such a literal."""
    return next((kind for kind, pattern in _LITERAL_KINDS if pattern.match(text)), None)


def self_contradicting_type(page: Page, row: Row) -> list[Finding]:
    """A row whose type and default disagree, for flags the registry cannot speak for.

    `Type: str` with the default `False` documents a switch as taking a string.
    """
    options, default = row.cell(OPTIONS), row.cell(DEFAULT)
    if options is None or default is None:
        return []
    hint = type_hint(options)
    shown = _unquoted(default.text)
    kind = literal_kind(shown)
    if hint is None or hint.base is None or hint.many or kind is None:
        return []
    clash = (
        (kind == "bool" and hint.base in ("str", "int", "float"))
        or (hint.base == "bool" and kind in ("int", "float"))
        or (hint.base == "int" and kind == "float")
    )
    if not clash:
        return []
    return [
        _finding(
            page,
            "wrong-type",
            f"{row.flags[0]}: the page says {_quoted(hint.text)} but shows the default"
            f" {_quoted(shown)}, a {kind} value",
            row.flags[0],
            row.line,
            "correct the row's type to what the argument really takes",
        )
    ]


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


def raw_html(page: Page, row: Row) -> list[Finding]:
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
        _finding(
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
