"""Live reading of a default the program reads from the environment (`os.environ.get("X", d)`).

Live reading gets the value the environment of argmatrix's own process gives: `None` or the
fallback where the variable is unset, and where it is set, its value (an API key written onto
a page). The fact a page should state ("d, or `$X` when set", as static reading gives it) is in
the source of the call that added the argument, which live reading knows (its file and line):
the `default=` written there is recognised when it is one of the plain forms, directly or through
a module constant assigned once:

    os.environ.get("X"), os.environ.get("X", d), os.getenv("X", d), os.environ["X"],
    int(...), float(...), str(...) of one, and `... or d`

with a name and fallbacks written as literals (a constant no other top-level statement reads: a
module that stops when it is unset does not fall back). The fact is taken only when it agrees with
the value live reading got (the fallback where the variable is unset, the variable's value,
converted, where it is set), and never for a variable the configuration sets (`registry.env`: its
value is the one the pages are meant to show); anything else (a custom action's `__init__`, a
helper computing the name) keeps the live value, which is what the docs say of live mode.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from argmatrix.loaders.sections import CallSite
from argmatrix.model.registry import FromEnvironment

_LOOKUPS = {("os", "environ", "get"), ("os", "getenv")}
_MAPPING = ("os", "environ")
_CONVERSIONS: dict[str, Callable[[Any], Any]] = {"int": int, "float": float, "str": str}
_LITERALS = (str, int, float, bool, type(None))


class _Fact(NamedTuple):
    """A recognised lookup: the variable, its fallback (or required), and the conversions
    applied to what it gives, innermost first."""

    variable: str
    otherwise: Any
    required: bool
    conversions: tuple[str, ...] = ()


def mark_environment_defaults(
    parser: argparse.ArgumentParser,
    sites: Mapping[int, CallSite],
    read_source: Callable[[str], str | None],
    environ: Mapping[str, str],
    configured: frozenset[str] = frozenset(),
) -> None:
    """Give each action of `parser` (and of its subcommands' parsers) whose default is a
    plain environment lookup in its source the fact instead of the value (`FromEnvironment`),
    so that the model and `%(default)s` in its help say it. `environ`: the environment the
    registry ran in (the process's, with the configuration's `env:`, whose variables are
    `configured`)."""
    seen: set[int] = set()
    stack = [parser]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action._name_parser_map.values())
                continue
            site = sites.get(id(action))
            if site is None or not site.file or type(action.default) not in _LITERALS:
                continue
            source = read_source(site.file)
            fact = (
                environment_default(source, site.line, action.default, environ) if source else None
            )
            if fact is not None and fact.variable not in configured:
                action.default = fact


def environment_default(
    source: str, line: int, live: Any, environ: Mapping[str, str]
) -> FromEnvironment | None:
    """The fact behind a default of the call on `line` of `source`, when it is a plain
    environment lookup that agrees with the value live reading got under `environ`; else
    None."""
    module = _module(source)
    if module is None:
        return None
    names, constants, defaults = module
    expression = defaults.get(line)
    if expression is None:
        return None
    fact = _recognised(expression, names, constants, 0)
    if fact is None or not _agrees(fact, live, environ):
        return None
    return FromEnvironment(fact.variable, fact.otherwise, fact.required)


_Module = tuple[dict[str, tuple[str, ...]], dict[str, ast.expr], dict[int, ast.expr]]


@lru_cache(maxsize=16)
def _module(source: str) -> _Module | None:
    """The dotted names the module's imports bind (`environ` -> os.environ), its
    constants assigned once at the top level, and the `default=` of the innermost call that
    has one on each line."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: dict[str, tuple[str, ...]] = {}
    constants: dict[str, ast.expr] = {}
    assigned: dict[str, int] = {}
    read = _read_at_top_level(tree)
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name == "os":
                    names[alias.asname or "os"] = ("os",)
        elif isinstance(statement, ast.ImportFrom) and statement.module == "os":
            for alias in statement.names:
                names[alias.asname or alias.name] = ("os", alias.name)
        for target in _assigned_names(statement):
            assigned[target] = assigned.get(target, 0) + 1
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                constants[targets[0].id] = statement.value
    constants = {k: v for k, v in constants.items() if assigned.get(k) == 1 and k not in read}
    return names, constants, _default_keywords(tree)


def _read_at_top_level(tree: ast.Module) -> set[str]:
    """The names the module's top-level statements read (outside the bodies of its functions
    and classes, which run later or build the parser)."""
    found: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _assigned_names(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds (to tell a constant assigned once)."""
    return [
        node.id
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    ]


def _default_keywords(tree: ast.Module) -> dict[int, ast.expr]:
    """Each line's `default=` of the innermost call spanning it that has one (a call spread
    over lines is known by any of them: Pythons differ on the line they give a call)."""
    spans: list[tuple[int, int, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "default":
                    spans.append((node.lineno, node.end_lineno or node.lineno, keyword.value))
    found: dict[int, ast.expr] = {}
    for start, end, value in sorted(spans, key=lambda s: s[0] - s[1]):  # widest first
        for line in range(start, end + 1):
            found[line] = value
    return found


def _recognised(
    node: ast.expr,
    names: dict[str, tuple[str, ...]],
    constants: dict[str, ast.expr],
    depth: int,
) -> _Fact | None:
    if depth > 8:
        return None
    if isinstance(node, ast.Name) and node.id in constants:
        return _recognised(constants[node.id], names, constants, depth + 1)
    if isinstance(node, ast.Subscript) and _dotted(node.value, names) == _MAPPING:
        variable = _literal(node.slice)
        return _Fact(variable, None, True) if _is_name(variable) else None
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        inner = _recognised(node.values[0], names, constants, depth + 1)
        fallback = _literal(node.values[1])
        if inner is None or inner.required or inner.conversions or not _plain(node.values[1]):
            return None
        return inner._replace(otherwise=fallback)
    if not isinstance(node, ast.Call):
        return None
    if (
        isinstance(node.func, ast.Name)
        and node.func.id in _CONVERSIONS
        and node.func.id not in names
        and len(node.args) == 1
        and not node.keywords
    ):
        inner = _recognised(node.args[0], names, constants, depth + 1)
        if inner is None:
            return None
        return _converted(inner, node.func.id)
    if _dotted(node.func, names) not in _LOOKUPS:
        return None
    given = [*node.args, *(k.value for k in node.keywords if k.arg == "default")]
    if len(given) != len(node.args) + len(node.keywords) or not 1 <= len(given) <= 2:
        return None
    if not all(_plain(n) for n in given):
        return None
    variable = _literal(given[0])
    if not _is_name(variable):
        return None
    return _Fact(variable, _literal(given[1]) if len(given) == 2 else None, False)


def _converted(fact: _Fact, conversion: str) -> _Fact:
    conversions = (*fact.conversions, conversion)
    if fact.required:
        return fact._replace(conversions=conversions)
    try:
        otherwise = _CONVERSIONS[conversion](fact.otherwise)
    except (TypeError, ValueError):
        return _Fact(fact.variable, None, True, conversions)
    return _Fact(fact.variable, otherwise, False, conversions)


def _agrees(fact: _Fact, live: Any, environ: Mapping[str, str]) -> bool:
    """Whether the value live reading got is the one the fact gives in `environ`."""
    value = environ.get(fact.variable)
    if value is None:
        return not fact.required and type(live) is type(fact.otherwise) and live == fact.otherwise
    try:
        for conversion in fact.conversions:
            value = _CONVERSIONS[conversion](value)
    except (TypeError, ValueError):
        return False
    return type(live) is type(value) and bool(live == value)


def _dotted(node: ast.expr, names: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """`os.environ.get` as ("os", "environ", "get"), through the module's imports."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in names:
        return None
    return (*names[node.id], *reversed(parts))


def _plain(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in _LITERALS


def _literal(node: ast.expr) -> Any:
    return node.value if isinstance(node, ast.Constant) else None


def _is_name(value: Any) -> bool:
    return type(value) is str and 0 < len(value) <= 256 and "=" not in value and value.isprintable()
