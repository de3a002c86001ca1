"""How a default, a choice or an argument's kind of value reads to a person, whatever the
output format: audit, import, diff and every page writer use the same words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from argmatrix.model.registry import (
    CLICK,
    Argument,
    FromEnvironment,
    Opaque,
    Unevaluated,
    json_value,
    python_value,
)


def value_text(value: Any) -> str:
    """How a default or choice reads in a table: strings bare, other values as Python writes them.

    Values pass through their JSON form first, so a live registry and its snapshot (where a
    tuple comes back as a list) render the same. A string's control characters are shown as
    their escapes (`</think>\\n\\n`), never dropped or folded: see `visible_controls`.
    """
    if isinstance(value, (Unevaluated, Opaque)):
        return str(value)
    if isinstance(value, FromEnvironment):
        if value.required:
            return f"${value.variable} (must be set)"
        if value.otherwise is None:
            return f"unset, or ${value.variable}"
        return f"{value_text(value.otherwise)}, or ${value.variable} when set"
    if isinstance(value, str):
        return value if value.isprintable() else visible_controls(value)
    return repr(python_value(json_value(value)))


def shows_default(value: Any, framework: str) -> bool:
    """Whether a page shows a default: never None, which is no default (argparse's help says
    nothing of it unless the help asks with `%(default)s`, Click's says nothing); for Click, which
    prints no default for them either, neither a tuple of Nones (an option of several values
    given none) nor an empty tuple (a `multiple` option or a variadic argument given none)."""
    if value is None:
        return False
    if framework == CLICK and isinstance(value, (tuple, list)):
        return not all(item is None for item in value)
    return True


# C0 and C1 control characters and DEL: a page would drop or fold them (a newline is a space in a
# table cell), so a default of "</think>\n\n" would read as "</think> ".
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED_CONTROLS = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def visible_controls(text: str) -> str:
    """A text with each control character written as its Python escape (`\\n`, `\\t`, `\\r`,
    `\\x1b`), as a reader would type it in Python; a text with none is returned as it is. In a
    text that has one, a backslash is doubled, so the escapes read one way."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escape_control, text.replace("\\", "\\\\"))


def _escape_control(match: re.Match[str]) -> str:
    char = match.group(0)
    return _NAMED_CONTROLS.get(char) or f"\\x{ord(char):02x}"


# Types a reader knows by their own name.
PLAIN_TYPES = frozenset(
    {
        "str",
        "int",
        "float",
        "bool",
        "complex",
        "bytes",
        "dict",
        "list",
        "Path",
        "PosixPath",
        "File",  # the types of Click parameters (loaders/clicks.py) that read as words
        "datetime",
        "UUID",
    }
)
# Words in a converter's name that say what it reads: `str2bool` reads a bool,
# `_grpc_config_from_json` JSON (anywhere in the name); `human_readable_int` an int,
# `nullable_str` a str (a word).
_NAME_WORDS = {"bool": "bool", "json": "JSON", "int": "int", "float": "float", "str": "str"}
_CALLABLE_NAME = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)")


def readable_type(argument: Argument, names: Mapping[str, str] | None = None) -> str:
    """An argument's kind of value as a reader understands it, never the source of a converter.

    The project's own names come first (`types:` in the configuration maps a converter to its
    text); then plain types as they are; then a converter named for booleans or JSON
    (`str2bool`: bool; `_grpc_config_from_json(...)`: JSON); then the metavar the project chose;
    then a converter named for numbers or text (`positive_int`: int, `nullable_str`: str); then
    a public converter's own name (`parse_size`, as `export` says it); else (a private helper
    `_parse`, a lambda, a call, an expression) `value`.
    """
    raw = argument.type or "str"
    match = _CALLABLE_NAME.match(raw)
    if names:
        # As recorded (`_grpc_config_from_json(grpc_config)`), else the callable it names
        # (`_grpc_config_from_json`, `module.parse`), else its last name (`parse`).
        for key in (raw, match.group(0) if match else "", match.group(1) if match else ""):
            if key in names:
                return names[key]
    if raw in PLAIN_TYPES:
        return raw
    name = match.group(1).lower() if match else ""
    if raw in ("json.loads", "loads"):  # the standard JSON parser, as live and static name it
        return "JSON"
    for word in ("bool", "json"):
        if word in name:
            return _NAME_WORDS[word]
    if isinstance(argument.metavar, str) and argument.metavar.strip():
        return argument.metavar.strip()
    words = name.replace("2", "_").split("_")
    number = next((_NAME_WORDS[w] for w in ("int", "float", "str") if w in words), None)
    if number is not None:
        return number
    # The converter's own name, when it is a public one (`parse_size`; not `_parse`, a helper
    # of the project's own, nor an expression: a lambda, a call).
    named = match is not None and match.end() == len(raw) and match.group(1) != "lambda"
    return match.group(1) if named and match is not None and name[:1] != "_" else "value"


def value_description(argument: Argument, names: Mapping[str, str] | None = None) -> str:
    kind = readable_type(argument, names)
    bounds = argument.extra.get("range")  # a Click IntRange/FloatRange: `1<=x<=65535`
    if isinstance(bounds, str) and bounds and argument.action != "count":
        kind = f"{kind}, {bounds}"
    action = argument.action
    if action == "store_true":
        return "bool flag (set to enable)"
    if action == "store_false":
        return "bool flag (set to disable)"
    if action == "boolean_optional":
        return "bool flag (" + " / ".join(argument.flags) + ")"
    if action == "count":
        return "count (repeatable flag)"
    if action in ("store_const", "append_const"):
        return "flag (stores a constant)"
    if action == "version":
        return "flag (prints the version)"
    nargs = argument.nargs
    if nargs == 0:  # a custom Action that takes no value
        return "flag (takes no value)"
    if (
        action in ("append", "extend")
        or nargs in ("+", "*")
        or (isinstance(nargs, int) and nargs > 1)
    ):
        return f"List[{kind}]"
    if nargs == "?":
        return f"Type: {kind} (value optional)"
    return f"Type: {kind}"
