"""The values of a hand-written row compared with the registry's, for `argmatrix audit` and for
`checks.coverage` (`audit.value_findings`): a default (by the one rule of `page_defaults`),
options that are not the argument's choices, a type that is not the registry's (`wrong-default`,
`wrong-options`, `wrong-type`), and a row whose type contradicts its own default."""

from __future__ import annotations

import re

from argmatrix.adoption.handwritten import (
    DEFAULT,
    OPTIONS,
    ArgumentPage,
    ArgumentRow,
    TypeHint,
    option_values,
    type_hint,
)
from argmatrix.adoption.page_defaults import (
    default_agrees,
    page_text,
    page_value,
    unquoted,
    value_class,
)
from argmatrix.manifests.resolve import in_choices
from argmatrix.model.findings import Finding
from argmatrix.model.registry import FLAG_ACTIONS, Argument
from argmatrix.model.values import value_description, value_text
from argmatrix.pagetables import Cell


def row_finding(
    page: ArgumentPage, kind: str, message: str, flag: str | None, line: int | None, fix: str | None
) -> Finding:
    """A finding about a row of `page`, in its file."""
    return Finding(kind, message, flag=flag, file=page.file, line=line, fix=fix)


def wrong_default(
    page: ArgumentPage,
    row: ArgumentRow,
    argument: Argument,
    computed: str | None = None,
    name: str | None = None,
) -> list[Finding]:
    """`name`, here and below: the argument's spelling (`serve --port` for a subcommand's)."""
    name = name or argument.name
    cell = row.cell(DEFAULT)
    if cell is None or default_agrees(cell.text, argument, computed) is not False:
        return []
    expected = page_text(argument.default) if computed is None else computed
    says = (
        f"the registry says {_quoted(expected)}{_class_difference(cell.text, argument.default)}"
        if computed is None
        else f"it is computed at run time ({_quoted(computed)})"
    )
    return [
        row_finding(
            page,
            "wrong-default",
            f"{name}: the page says the default is {_quoted(cell.text)}, {says}",
            name,
            row.line,
            f"write {_quoted(expected)}; a platform's own default belongs in its manifest"
            if page.states_support
            else f"write {_quoted(expected)}",
        )
    ]


def _class_difference(text: str, default: object) -> str:
    """Why texts that read alike differ: ' (a bool; the registry's is a number)', or nothing."""
    shown, expected = value_class(page_value(text).value), value_class(default)
    if shown == expected:
        return ""
    return f" (the page's value is {shown}, the registry's {expected})"


def _quoted(text: str) -> str:
    return "'" + " ".join(text.split()) + "'"


def wrong_options(
    page: ArgumentPage, row: ArgumentRow, argument: Argument, cell: Cell, name: str | None = None
) -> list[Finding]:
    name = name or argument.name
    values = option_values(cell)
    choices = argument.choices
    if not values or not isinstance(choices, tuple):
        return []
    choice_list = ", ".join(value_text(c) for c in choices)
    outside = [v for v in values if not in_choices(v, choices)]
    if outside:
        return [
            row_finding(
                page,
                "wrong-options",
                f"{name}: {', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not"
                " among the registry's choices",
                name,
                row.line,
                f"list only registry choices: {choice_list}",
            )
        ]
    missing = [value_text(c) for c in choices if value_text(c) not in values]
    if missing and not page.states_support:
        return [
            row_finding(
                page,
                "wrong-options",
                f"{name}: the page leaves out the choices {', '.join(missing)}",
                name,
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


def wrong_type(
    page: ArgumentPage, row: ArgumentRow, argument: Argument, cell: Cell, name: str | None = None
) -> list[Finding]:
    name = name or argument.name
    hint = type_hint(cell)
    expected = registry_kind(argument)
    if hint is None or expected is None or types_agree(hint, expected):
        return []
    return [
        row_finding(
            page,
            "wrong-type",
            f"{name}: the page says {_quoted(hint.text)}, but the argument"
            f" {describe_kind(expected, argument)}",
            name,
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


def self_contradicting_type(page: ArgumentPage, row: ArgumentRow) -> list[Finding]:
    """A row whose type and default disagree, for flags the registry cannot speak for.

    `Type: str` with the default `False` documents a switch as taking a string.
    """
    options, default = row.cell(OPTIONS), row.cell(DEFAULT)
    if options is None or default is None:
        return []
    hint = type_hint(options)
    shown = unquoted(default.text)
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
        row_finding(
            page,
            "wrong-type",
            f"{row.flags[0]}: the page says {_quoted(hint.text)} but shows the default"
            f" {_quoted(shown)}, a {kind} value",
            row.flags[0],
            row.line,
            "correct the row's type to what the argument really takes",
        )
    ]
