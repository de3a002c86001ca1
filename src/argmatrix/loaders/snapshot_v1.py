"""Reading a snapshot of format version 1 as version 2 says the same registry.

Version 1 kept a default read from the environment as its source text
(`{"unevaluated": "int(os.environ.get(\\"PORT\\", \\"8000\\"))"}`); version 2 holds the fact
(`FromEnvironment`: the variable, and the value when it is unset). A version 1 baseline read
as it was would make the compatibility gate report every such default as changed, though the
program did not change: so each default whose source text is an environment lookup is read as
static reading reads it now. Only the forms static reading turns into a fact are: a lookup
(`os.environ.get`, `os.getenv`, `os.environ[...]`, or the same names imported from `os`) with a
literal name and fallback, converted by `int`, `float` or `str`, or followed by `or` a literal.
Anything else stays source text."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any

from argmatrix.model.registry import Argument, FromEnvironment, Registry, Unevaluated

_LOOKUPS = frozenset({"os.environ.get", "os.getenv", "environ.get", "getenv"})
_MAPPINGS = frozenset({"os.environ", "environ"})
_CONVERSIONS = {"int": int, "float": float, "str": str}
_LONGEST_SOURCE = 1000  # a default's source text longer than this is no lookup of one variable


class _NotALookup(Exception):
    pass


def upgraded(registry: Registry) -> Registry:
    """`registry` (read from a version 1 snapshot) with its defaults read from the environment
    as facts, its subcommands' too."""
    arguments = tuple(_upgraded_argument(argument) for argument in registry.arguments)
    subcommands = tuple(replace(s, registry=upgraded(s.registry)) for s in registry.subcommands)
    return replace(registry, arguments=arguments, subcommands=subcommands)


def _upgraded_argument(argument: Argument) -> Argument:
    default = argument.default
    if not isinstance(default, Unevaluated):
        return argument
    fact = environment_fact(default.source)
    return argument if fact is None else replace(argument, default=fact)


def environment_fact(source: str) -> FromEnvironment | None:
    """The fact an environment lookup's source text states; None for any other text."""
    if len(source) > _LONGEST_SOURCE:
        return None
    try:
        tree = ast.parse(source.strip(), mode="eval")
        return _fact(tree.body)
    except (SyntaxError, ValueError, _NotALookup, RecursionError, MemoryError):
        return None


def _fact(node: ast.expr) -> FromEnvironment:
    if isinstance(node, ast.Call) and _dotted(node.func) in _LOOKUPS:
        return _lookup(node)
    if isinstance(node, ast.Subscript) and _dotted(node.value) in _MAPPINGS:
        return FromEnvironment(_name(node.slice), required=True)
    if isinstance(node, ast.Call) and _dotted(node.func) in _CONVERSIONS:
        if len(node.args) != 1 or node.keywords:
            raise _NotALookup
        return _converted(_fact(node.args[0]), _CONVERSIONS[_dotted(node.func)])
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        fact = _fact(node.values[0])
        if fact.required:
            return fact
        return FromEnvironment(fact.variable, _literal(node.values[1]))
    raise _NotALookup


def _lookup(call: ast.Call) -> FromEnvironment:
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if set(keywords) - {"default"} or not call.args or len(call.args) + len(keywords) > 2:
        raise _NotALookup
    otherwise = call.args[1] if len(call.args) > 1 else keywords.get("default")
    return FromEnvironment(_name(call.args[0]), None if otherwise is None else _literal(otherwise))


def _converted(fact: FromEnvironment, convert: Any) -> FromEnvironment:
    """As static reading converts one (`loaders/static/environment.converted`): the fallback
    converted now; one the conversion refuses means the variable must be set."""
    if fact.required:
        return fact
    try:
        return FromEnvironment(fact.variable, convert(fact.otherwise))
    except (TypeError, ValueError):
        return FromEnvironment(fact.variable, required=True)


def _name(node: ast.expr) -> str:
    name = _literal(node)
    if type(name) is not str or not name or "=" in name or not name.isprintable():
        raise _NotALookup
    return name


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (str, int, float, bool, type(None)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        number = node.operand.value if isinstance(node.operand, ast.Constant) else None
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return -number
    raise _NotALookup


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""
