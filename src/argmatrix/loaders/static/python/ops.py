"""Operators and methods of plain data, for static reading: dispatch on the exact type and the
name, with the budget checked before a value grows (see `values` for the value model)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from argmatrix.loaders.static.python.budget import Budget
from argmatrix.loaders.static.python.builtins import Caller, dict_pairs, sorted_items
from argmatrix.loaders.static.python.formatting import format_map, format_string, percent_format
from argmatrix.loaders.static.python.values import (
    NUMBERS,
    PLAIN_TYPES,
    SIZED,
    UNBOUND,
    BaseRef,
    CannotEvaluate,
    MethodRef,
    describe,
    hashable,
    iterate,
    resolve,
    settle,
    truth,
    weigh,
)

# ------------------------------------------------------------------ methods

_STR_PURE = frozenset(
    {
        "capitalize",
        "casefold",
        "count",
        "endswith",
        "find",
        "index",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isspace",
        "istitle",
        "isupper",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "rfind",
        "rindex",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "upper",
    }
)
_STR_GROWING = frozenset(
    {"center", "ljust", "rjust", "zfill", "replace", "join", "expandtabs", "format", "format_map"}
)
_SET_READING = frozenset(
    {
        "union",
        "intersection",
        "difference",
        "symmetric_difference",
        "issubset",
        "issuperset",
        "isdisjoint",
        "copy",
    }
)
METHODS: dict[type, frozenset[str]] = {
    str: _STR_PURE | _STR_GROWING,
    list: frozenset(
        {
            "append",
            "extend",
            "insert",
            "pop",
            "remove",
            "index",
            "count",
            "copy",
            "reverse",
            "sort",
            "clear",
        }
    ),
    tuple: frozenset({"index", "count"}),
    dict: frozenset(
        {
            "keys",
            "values",
            "items",
            "get",
            "copy",
            "update",
            "setdefault",
            "pop",
            "popitem",
            "clear",
            "fromkeys",
        }
    ),
    set: _SET_READING | {"add", "update", "discard", "remove", "clear"},
    frozenset: _SET_READING,
}
# Methods that change their receiver: at the top of a module they are followed in order.
MUTATING = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "reverse",
        "sort",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
    }
)


def method(receiver: Any, name: str) -> MethodRef:
    """`receiver.name` for plain data, as a method the interpreter can call."""
    kind = type(receiver)
    if name in METHODS.get(kind, ()) and name != "fromkeys":
        return MethodRef(kind, name, receiver)
    raise CannotEvaluate(f"{describe(receiver)} has no method {name!r} static reading runs")


def unbound_method(kind: type, name: str) -> MethodRef:
    """`str.lower`, `dict.fromkeys`: a method named on the type itself."""
    if name in METHODS.get(kind, ()):
        return MethodRef(kind, name)
    raise CannotEvaluate(f"{kind.__name__}.{name} is not evaluated statically")


def call_method(ctx: Caller, ref: MethodRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
    receiver = ref.receiver
    if ref.name == "fromkeys":
        return _fromkeys(ctx.budget, args, kwargs)
    if receiver is UNBOUND:
        if not args or type(resolve(args[0])) is not ref.owner:
            raise CannotEvaluate(f"{ref.owner.__name__}.{ref.name} needs a {ref.owner.__name__}")
        receiver, args = resolve(args[0]), args[1:]
    receiver = resolve(receiver)
    if ref.owner is str:
        return _str_method(ctx.budget, receiver, ref.name, args, kwargs)
    if ref.owner is list and ref.name == "sort":
        if args:
            raise CannotEvaluate("sort() takes keywords only")
        receiver[:] = sorted_items(ctx, list(receiver), kwargs.get("key"), kwargs.get("reverse"))
        return None
    return _container_method(ctx.budget, receiver, ref.name, args, kwargs)


def _fromkeys(budget: Budget, args: list[Any], kwargs: dict[str, Any]) -> dict[Any, Any]:
    if kwargs or not 1 <= len(args) <= 2:
        raise CannotEvaluate("wrong arguments to dict.fromkeys")
    keys = hashable(iterate(args[0], budget))
    budget.size(len(keys), "a dict")
    return dict.fromkeys(keys, args[1] if len(args) == 2 else None)


def _strings(values: list[Any]) -> bool:
    return all(type(v) in (str, int, bool, type(None), tuple) for v in values)


def _str_method(
    budget: Budget, text: str, name: str, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    args = [resolve(a) for a in args]
    kwargs = {k: resolve(v) for k, v in kwargs.items()}
    if name == "format":
        return format_string(text, args, kwargs, budget)
    if name == "format_map":
        if len(args) != 1 or kwargs:
            raise CannotEvaluate("format_map() takes one mapping")
        return format_map(text, args[0], budget)
    budget.work(len(text))
    if name == "join":
        return _join(budget, text, args, kwargs)
    if not _strings(args) or not _strings(list(kwargs.values())):
        raise CannotEvaluate(f"str.{name}() of {describe(next(iter(args), None))}")
    if name in ("center", "ljust", "rjust", "zfill") and args and type(args[0]) is int:
        budget.size(max(len(text), args[0]), "a padded string")
    elif name == "expandtabs":
        tab = args[0] if args else kwargs.get("tabsize", 8)
        if type(tab) is int:
            budget.size(len(text) + text.count("\t") * max(tab, 0), "a string")
    elif name == "replace" and len(args) >= 2 and type(args[0]) is str and type(args[1]) is str:
        _check_replace(budget, text, args)
    result = getattr(text, name)(*args, **kwargs)
    if type(result) is list:  # split: a new string per item, all kept if the list is
        budget.size(len(result), "a list of strings", added=len(result) + len(text))
    return result


def _check_replace(budget: Budget, text: str, args: list[Any]) -> None:
    old, new = args[0], args[1]
    times = text.count(old)
    if len(args) > 2 and type(args[2]) is int and args[2] >= 0:
        times = min(times, args[2])
    budget.size(len(text) + times * max(0, len(new) - len(old)), "a string")


def _join(budget: Budget, separator: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    if len(args) != 1 or kwargs:
        raise CannotEvaluate("join() takes one iterable")
    items = iterate(args[0], budget)
    budget.visit(len(items) >> 2)
    if any(type(item) is not str for item in items):
        raise CannotEvaluate("join() of items that are not all text")
    budget.size(sum(map(len, items)) + len(separator) * max(0, len(items) - 1), "a string")
    return separator.join(items)


def _container_method(
    budget: Budget, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    kind = type(receiver)
    if name in ("index", "count", "remove"):  # compares items with the argument, in depth
        weigh(receiver, "the items compared")
        weigh(args, "the value compared")
    elif kind is not list:  # keys or members are hashed (those of a list given, too)
        weigh(args, "the values hashed")
        weigh(kwargs, "the values hashed")
    if name in ("keys", "values", "items"):
        if args or kwargs:
            raise CannotEvaluate(f"{name}() takes no arguments")
        budget.size(len(receiver), f"a list of {name}")
        if name == "keys":
            return list(receiver)
        settle(receiver)
        return list(receiver.values()) if name == "values" else list(receiver.items())
    if name == "update":
        return _update(budget, receiver, args, kwargs)
    if name == "extend":
        if len(args) != 1 or kwargs:
            raise CannotEvaluate("extend() takes one iterable")
        items = iterate(args[0], budget)
        budget.size(len(receiver) + len(items), "a list", added=len(items))
        receiver.extend(items)
        return None
    if name in ("append", "insert", "add", "setdefault"):
        budget.size(len(receiver) + 1, f"a {kind.__name__}", added=1)
    elif name in _SET_READING or name in ("copy", "index", "count"):
        budget.work(len(receiver) + sum(len(a) for a in args if type(a) in SIZED))
        if name in ("union", "symmetric_difference") or name == "copy":
            budget.size(
                len(receiver) + sum(len(a) for a in args if type(a) in SIZED), f"a {kind.__name__}"
            )
        args = [resolve(a) for a in args]
    if kind is dict and name in ("get", "pop"):
        return settle(getattr(receiver, name)(*args, **kwargs))
    return getattr(receiver, name)(*args, **kwargs)


def _update(budget: Budget, receiver: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    if type(receiver) is set:
        items = hashable([item for a in args for item in iterate(a, budget)])
        budget.size(len(receiver) + len(items), "a set", added=len(items))
        receiver.update(items)
        return
    if len(args) > 1:
        raise CannotEvaluate("update() takes one mapping")
    pairs = dict_pairs(args[0], budget) if args else []  # its keys weighed
    budget.size(len(receiver) + len(pairs) + len(kwargs), "a dict", added=len(pairs) + len(kwargs))
    receiver.update(pairs)
    receiver.update(kwargs)


# ------------------------------------------------------------------ operators

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_ORDERING: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _bits(value: Any) -> int:
    return value.bit_length() if type(value) is int else 1


def binary(op: type, left: Any, right: Any, budget: Budget) -> Any:
    """`left <op> right` for plain data; the size of the result checked before it is built."""
    left, right = resolve(left), resolve(right)
    lkind, rkind = type(left), type(right)
    if lkind not in PLAIN_TYPES or rkind not in PLAIN_TYPES:
        culprit = left if lkind not in PLAIN_TYPES else right
        raise CannotEvaluate(f"an operation on {describe(culprit)}, which only running would tell")
    function = _BINARY.get(op)
    if function is None:
        raise CannotEvaluate("this operator is not evaluated statically")
    if op is ast.Mod and lkind is str:
        return percent_format(left, right, budget)
    if op is ast.Mod and lkind is bytes:  # `b"%999999999s" % (b"a",)`: left as source text
        raise CannotEvaluate("%-formatting bytes is not evaluated statically")
    if lkind in NUMBERS and rkind in NUMBERS:
        _check_arithmetic(op, left, right, budget)
    elif op is ast.Add and lkind is rkind and lkind in SIZED:
        budget.size(len(left) + len(right), f"a {lkind.__name__}", added=len(left) + len(right))
    elif op is ast.Mult and (lkind in SIZED) != (rkind in SIZED):
        sequence, times = (left, right) if lkind in SIZED else (right, left)
        if type(times) not in (int, bool):
            raise CannotEvaluate("a sequence repeated by a number that is not an integer")
        budget.size(len(sequence) * max(times, 0), f"a {type(sequence).__name__}")
    elif op is ast.BitOr and lkind is rkind and lkind in (dict, set, frozenset):
        budget.size(len(left) + len(right), f"a {lkind.__name__}")
    else:
        _charge_sizes(budget, left, right)
    return function(left, right)


def _check_arithmetic(op: type, left: Any, right: Any, budget: Budget) -> None:
    if type(left) not in (int, bool) or type(right) not in (int, bool):
        return  # floats overflow to an error or inf, complex likewise: no size to check
    if op is ast.Pow and right > 0 and abs(left) > 1:
        budget.int_bits((abs(left).bit_length() - 1) * right)
    elif op is ast.LShift and right > 0:
        budget.int_bits(_bits(left) + right)
    elif op is ast.Mult:
        budget.int_bits(_bits(left) + _bits(right))
    elif op in (ast.Add, ast.Sub, ast.BitOr, ast.BitXor):
        budget.int_bits(max(_bits(left), _bits(right)) + 1)


_HASHED = (dict, set, frozenset)


def compare(op: type, left: Any, right: Any, budget: Budget) -> bool:
    left, right = resolve(left), resolve(right)
    if op not in (ast.Is, ast.IsNot, ast.In, ast.NotIn):
        left, right = settle(left), settle(right)  # values compared (and weighed): Deferred read
    elif op in (ast.In, ast.NotIn):  # compared or hashed, in depth
        weigh(left, "the value compared")
        if type(right) in _HASHED:  # a key looked up: its hash, not the whole container
            hashable([left])
            budget.work(1)
            return (left in right) == (op is ast.In)
        weigh(right, "the items compared")
    if op is ast.Eq or op is ast.NotEq:
        _charge_sizes(budget, left, right)
        return bool(left == right) == (op is ast.Eq)
    if op is ast.Is or op is ast.IsNot:
        same = left is right
        if not same and isinstance(left, BaseRef) and type(left) is type(right):
            same = bool(left == right)  # two references to one thing of the source
        return same == (op is ast.Is)
    if op is ast.In or op is ast.NotIn:
        if type(right) not in SIZED:
            raise CannotEvaluate(f"membership in {describe(right)} is not known statically")
        budget.work(len(right))
        return (left in right) == (op is ast.In)
    function = _ORDERING.get(op)
    if function is None or type(left) not in PLAIN_TYPES or type(right) not in PLAIN_TYPES:
        raise CannotEvaluate("an ordering of values only running would tell")
    _charge_sizes(budget, left, right)
    return bool(function(left, right))


def _charge_sizes(budget: Budget, left: Any, right: Any) -> None:
    size = (len(left) if type(left) in SIZED else 0) + (len(right) if type(right) in SIZED else 0)
    if size:
        budget.work(size)


def unary(op: type, operand: Any) -> Any:
    operand = resolve(operand)
    if op is ast.Not:
        return not truth(operand)
    if type(operand) not in NUMBERS:
        raise CannotEvaluate(f"an operation on {describe(operand)}, which only running would tell")
    if op is ast.USub:
        return -operand
    if op is ast.UAdd:
        return +operand
    if op is ast.Invert and type(operand) in (int, bool):
        return ~operand
    raise CannotEvaluate("this operator is not evaluated statically")
