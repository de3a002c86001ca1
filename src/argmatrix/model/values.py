"""How a default, a choice or an argument's kind of value reads to a person, whatever the
output format: audit, import, diff and every page writer use the same words."""

from __future__ import annotations

from typing import Any

from argmatrix.model.registry import (
    Argument,
    Opaque,
    Unevaluated,
    json_value,
    python_value,
)


def value_text(value: Any) -> str:
    """How a default or choice reads in a table: strings bare, other values as Python writes them.

    Values pass through their JSON form first, so a live registry and its snapshot (where a
    tuple comes back as a list) render the same.
    """
    if isinstance(value, (Unevaluated, Opaque)):
        return str(value)
    if isinstance(value, str):
        return value
    return repr(python_value(json_value(value)))


def value_description(argument: Argument) -> str:
    kind = argument.type or "str"
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
