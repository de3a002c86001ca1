"""Defaults read from the environment, as facts of the source: `os.environ.get("X", d)`,
`os.getenv("X", d)`, `os.environ["X"]`, and `int(...)`, `float(...)` or `str(...)` of them, or
`... or d`, become a `FromEnvironment` (the variable's name and the value when it is unset).

Static reading never reads the environment: the name is what the source says, the fallback what
the source computes, so a page reads the same on every machine ("8000, or `$PORT` when set").
Anything else done with such a value (its truth, a comparison, a method, formatting it into a
text) depends on the running program and stays unknown (`values.UNDECIDABLE`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from argmatrix.loaders.static.python.values import CannotEvaluate, describe, resolve
from argmatrix.model.registry import FromEnvironment

# The names static reading reads a variable with (as `from os import environ, getenv` binds
# them too: the imported name is the dotted one).
LOOKUPS = frozenset({"os.environ.get", "os.getenv"})
MAPPING = "os.environ"
# Longer names are not what a program documents; a NUL or "=" cannot be in one.
_LONGEST_NAME = 256


def variable_name(value: Any) -> str:
    """The name of the variable read: a text known statically that can name one."""
    value = resolve(value)
    if type(value) is not str:
        raise CannotEvaluate(f"the environment variable's name is {describe(value)}")
    if not value or len(value) > _LONGEST_NAME or "=" in value or not value.isprintable():
        raise CannotEvaluate("the environment variable's name is not one a program can read")
    return value


def lookup(args: list[Any], kwargs: dict[str, Any]) -> FromEnvironment:
    """`os.environ.get(name[, default])` or `os.getenv(name[, default])`."""
    if set(kwargs) - {"default"} or not 1 <= len(args) + len(kwargs) <= 2 or not args:
        raise CannotEvaluate("an environment lookup called with other arguments")
    otherwise = args[1] if len(args) > 1 else kwargs.get("default")
    return FromEnvironment(variable_name(args[0]), _fallback(otherwise))


def required(name: Any) -> FromEnvironment:
    """`os.environ[name]`: the program stops (KeyError) when the variable is not set."""
    return FromEnvironment(variable_name(name), required=True)


def converted(value: FromEnvironment, convert: Callable[[Any], Any]) -> FromEnvironment:
    """`int(os.environ.get("X", "8000"))`: the variable's text converted when it is set, the
    fallback converted now. A fallback the conversion refuses (`int(None)`) stops the program
    when the variable is unset: the variable must be set."""
    if value.required:
        return value
    try:
        otherwise = convert(value.otherwise)
    except (CannotEvaluate, TypeError, ValueError):
        return FromEnvironment(value.variable, required=True)
    return FromEnvironment(value.variable, _fallback(otherwise))


def either(value: FromEnvironment, fallback: Any) -> FromEnvironment:
    """`os.environ.get("X") or d`: the variable when it is set (and not empty), else `d`."""
    if value.required:
        return value
    return FromEnvironment(value.variable, _fallback(fallback))


def spelled(value: FromEnvironment) -> str:
    """The lookup as source would write it (`os.environ.get('X', 8000)`): how a value read
    from the environment is kept where a page cannot say it (inside a list)."""
    if value.required:
        return f"os.environ[{value.variable!r}]"
    if value.otherwise is None:
        return f"os.environ.get({value.variable!r})"
    return f"os.environ.get({value.variable!r}, {value.otherwise!r})"


def _fallback(value: Any) -> Any:
    """A fallback the model can keep: plain data (a value only running would give is not a
    fact a page can state)."""
    value = resolve(value)
    if type(value) in (str, int, float, bool, type(None)):
        return value
    raise CannotEvaluate(f"the value when the variable is unset is {describe(value)}")
