"""The JSON-value invariant of an export (issue 31): every value the model holds is what the user
wrote or Python computed, in plain JSON (text, numbers, true/false/null, lists and objects of
them), or a marker of its own: `{"unevaluated": SOURCE}` (a value kept as its source text) only
with a warning naming its argument printed, and `{"python": TEXT}` (a value JSON cannot hold)
never the text of one of argmatrix's own objects. No repr of argmatrix's own classes reaches an
export, wherever it would hide (a default, a choice, an extra, a help text).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import argmatrix

VALUE_FIELDS = ("default", "choices", "nargs", "metavar", "help", "extra")
MARKERS = ("unevaluated", "python")


@cache
def own_class_names() -> frozenset[str]:
    """Every class argmatrix defines (its static reader's values among them)."""
    names: set[str] = set()
    for module_info in pkgutil.walk_packages(argmatrix.__path__, "argmatrix."):
        if (
            module_info.name.endswith(("__main__", ".sphinx"))
            or ".integrations." in module_info.name
        ):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module_info.name and len(name) > 3:
                names.add(value.__name__)
    return frozenset(names)


@cache
def own_repr() -> re.Pattern[str]:
    """What the text of one of argmatrix's objects looks like: `Name(` of one of its classes,
    `<argmatrix.` of a default repr, its `MISSING`."""
    names = "|".join(sorted(map(re.escape, own_class_names()), key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{names})\(|<argmatrix\.|^MISSING$|^_Missing\b")


def argument_name(argument: dict[str, Any]) -> str:
    """How argmatrix names an argument: its first long flag, else its first flag or its dest."""
    flags = argument["flags"]
    return next((f for f in flags if f.startswith("--")), flags[0] if flags else argument["dest"])


def values(registry: dict[str, Any], path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(where, argument name, value) of every value field of every argument, at any depth."""
    for argument in registry["arguments"]:
        name = argument_name(argument)
        for key in VALUE_FIELDS:
            yield f"{path}{name} {key}", name, argument.get(key)
    for sub in registry.get("subcommands", ()):
        yield from values(sub["registry"], f"{path}{sub['name']} ")


def problems(registry: dict[str, Any], said: str) -> list[str]:
    """What breaks the invariant, one line each; `said` is what the command printed on stderr
    (where a value kept as source text must be named)."""
    found: list[str] = []
    for where, name, value in values(registry):
        found += _problems(where, name, value, said)
    return found


def _problems(where: str, name: str, value: Any, said: str) -> list[str]:
    if value is None or isinstance(value, (bool, int, float)):
        return []
    if isinstance(value, str):
        return (
            [f"{where}: {value!r} is the text of an argmatrix object"]
            if own_repr().search(value)
            else []
        )
    if isinstance(value, list):
        return [p for item in value for p in _problems(where, name, item, said)]
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not JSON"]
    if set(value) == {"unevaluated"}:
        source = value["unevaluated"]
        if not isinstance(source, str):
            return [f"{where}: a marker holding {source!r}"]
        named = any(name in line and "warning" in line for line in said.splitlines())
        return [] if named else [f"{where}: kept as source text ({source!r}) with no warning"]
    if set(value) == {"python"}:
        text = value["python"]
        if not isinstance(text, str) or own_repr().search(text):
            return [f"{where}: {text!r} is the text of an argmatrix object"]
        return []
    return [p for key, item in value.items() for p in _problems(f"{where}.{key}", name, item, said)]


def assert_plain_values(registry: dict[str, Any], said: str) -> None:
    found = problems(registry, said)
    assert not found, "\n".join(found[:20])
