"""The builtins static reading implements (`sorted`, `len`, `str`, `dict`, ...), for the plain
data of `values` only, each with the budget checked before a value is built. A builtin
that takes a function (`key=`, `map`) calls back into the interpreter through `Caller`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from argmatrix.loaders.static.python import environment
from argmatrix.loaders.static.python.budget import Budget
from argmatrix.loaders.static.python.formatting import to_repr, to_str
from argmatrix.loaders.static.python.values import (
    NUMBERS,
    SIZED,
    CannotEvaluate,
    describe,
    hashable,
    is_plain,
    iterate,
    resolve,
    settle,
    truth,
    weigh,
)
from argmatrix.model.registry import FromEnvironment


class Caller(Protocol):
    """What a builtin needs of the interpreter: the budget, and calling a value of the source
    (a lambda or function given as `key=`)."""

    budget: Budget

    def call_value(self, function: Any, args: list[Any]) -> Any: ...


def _no_keywords(kwargs: dict[str, Any], allowed: tuple[str, ...] = ()) -> None:
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise CannotEvaluate(f"keyword {sorted(unknown)[0]!r} is not supported")


def _arity(args: list[Any], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise CannotEvaluate("wrong number of arguments")


def _keys(ctx: Caller, items: list[Any], key: Any) -> list[Any]:
    if key is None:
        return items
    return [ctx.call_value(key, [item]) for item in items]


def sorted_items(ctx: Caller, items: list[Any], key: Any, reverse: Any) -> list[Any]:
    ctx.budget.work(len(items) * max(1, len(items).bit_length()))
    keys = _keys(ctx, items, key)
    weigh(keys, "the items compared")
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=truth(reverse))
    return [items[index] for index in order]


def _pick(ctx: Caller, args: list[Any], kwargs: dict[str, Any], choose: Callable[..., Any]) -> Any:
    _no_keywords(kwargs, ("key", "default"))
    if not args:
        raise CannotEvaluate("wrong number of arguments")
    items = iterate(args[0], ctx.budget) if len(args) == 1 else [settle(a) for a in args]
    if not items:
        if "default" in kwargs:
            return kwargs["default"]
        raise CannotEvaluate("an empty sequence has no smallest or largest item")
    keys = _keys(ctx, items, kwargs.get("key"))
    weigh(keys, "the items compared")
    ctx.budget.work(len(items))
    return items[choose(range(len(items)), key=keys.__getitem__)]


def _b_sorted(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs, ("key", "reverse"))
    items = iterate(args[0], ctx.budget)
    ctx.budget.size(len(items), "a sorted list")
    return sorted_items(ctx, items, kwargs.get("key"), kwargs.get("reverse"))


def _b_range(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 3)
    _no_keywords(kwargs)
    if any(type(a) not in (int, bool) for a in args):
        raise CannotEvaluate("range() takes integers")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if step == 0:
        raise CannotEvaluate("range() step must not be zero")
    length = max(0, (stop - start + step - (1 if step > 0 else -1)) // step)
    ctx.budget.size(length, "a range")
    return list(range(start, stop, step))


def _b_list(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 1)
    _no_keywords(kwargs)
    items = iterate(args[0], ctx.budget) if args else []
    ctx.budget.size(len(items), "a list")  # a copy, kept: it counts as built
    return items


def _b_tuple(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return tuple(_b_list(ctx, args, kwargs))


def _b_set(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return set(hashable(_b_list(ctx, args, kwargs)))


def _b_frozenset(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return frozenset(hashable(_b_list(ctx, args, kwargs)))


def dict_pairs(value: Any, budget: Budget) -> list[tuple[Any, Any]]:
    value = resolve(value)
    if type(value) is dict:
        budget.work(len(value))
        return list(value.items())
    pairs = []
    items = iterate(value, budget)
    budget.visit(len(items))
    for item in items:
        item = resolve(item)
        if type(item) not in (list, tuple) or len(item) != 2:
            raise CannotEvaluate("dict() needs pairs")
        pairs.append((item[0], item[1]))
    hashable([key for key, _ in pairs])
    return pairs


def _b_dict(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 1)
    result = dict(dict_pairs(args[0], ctx.budget)) if args else {}
    ctx.budget.size(len(result) + len(kwargs), "a dict")
    result.update(kwargs)
    return result


def _from_environment(
    convert: Callable[[Caller, list[Any], dict[str, Any]], Any],
) -> Callable[[Caller, list[Any], dict[str, Any]], Any]:
    """A conversion that also converts a default read from the environment
    (`int(os.environ.get("PORT", "8000"))`): its fallback now, the variable when it is set."""

    def call(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if args and type(resolve(args[0])) is FromEnvironment:
            rest = args[1:]
            return environment.converted(
                resolve(args[0]), lambda value: convert(ctx, [value, *rest], kwargs)
            )
        return convert(ctx, args, kwargs)

    call.__name__ = convert.__name__
    return call


def _b_str(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 1)
    _no_keywords(kwargs)
    return to_str(args[0], ctx.budget) if args else ""


def _b_repr(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    return to_repr(args[0], ctx.budget)


def _number_from(value: Any, kinds: frozenset[type]) -> Any:
    value = resolve(value)
    if type(value) not in kinds:
        raise CannotEvaluate(f"cannot convert {describe(value)} statically")
    return value


def _b_int(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 2)
    _no_keywords(kwargs, ("base",))
    if not args:
        return 0
    value = _number_from(args[0], frozenset({int, bool, float, str, bytes}))
    base = [*args[1:], kwargs.get("base")][0]
    result = int(value) if base is None else int(value, _number_from(base, frozenset({int})))
    ctx.budget.int_bits(result.bit_length())
    return result


def _b_float(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 1)
    _no_keywords(kwargs)
    return float(_number_from(args[0], frozenset({int, bool, float, str}))) if args else 0.0


def _b_bool(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 0, 1)
    _no_keywords(kwargs)
    return truth(args[0]) if args else False


def _b_len(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    value = resolve(args[0])
    if type(value) not in SIZED:
        raise CannotEvaluate(f"the length of {describe(value)} is not known statically")
    return len(value)


def _b_abs(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    return abs(_number_from(args[0], NUMBERS))


def _b_round(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 2)
    _no_keywords(kwargs, ("ndigits",))
    number = _number_from(args[0], frozenset({int, bool, float}))
    digits = [*args[1:], kwargs.get("ndigits")][0]
    if digits is None:
        return round(number)
    digits = _number_from(digits, frozenset({int, bool}))
    if abs(digits) > 400:  # round(5, -10**18) would compute 10**(10**18)
        raise CannotEvaluate("round() with that many digits is not evaluated")
    return round(number, digits)


def _b_min(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return _pick(ctx, args, kwargs, min)


def _b_max(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return _pick(ctx, args, kwargs, max)


def _b_reversed(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    value = resolve(args[0])
    if type(value) not in (list, tuple, str, dict):
        raise CannotEvaluate(f"cannot reverse {describe(value)}")
    items = iterate(value, ctx.budget)
    ctx.budget.size(len(items), "a reversed list")
    return items[::-1]


def _b_enumerate(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 2)
    _no_keywords(kwargs, ("start",))
    start = _number_from([*args[1:], kwargs.get("start", 0)][0], frozenset({int, bool}))
    items = iterate(args[0], ctx.budget)
    ctx.budget.size(len(items), "an enumeration")
    return [(start + index, item) for index, item in enumerate(items)]


def _b_zip(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _no_keywords(kwargs, ("strict",))
    columns = [iterate(a, ctx.budget) for a in args]
    if truth(kwargs.get("strict", False)) and len({len(c) for c in columns}) > 1:
        raise CannotEvaluate("zip(strict=True) of unequal lengths")
    shortest = min((len(c) for c in columns), default=0)
    ctx.budget.size(shortest * max(1, len(columns)), "a zip")  # before the rows are made
    return list(zip(*columns, strict=False))


def _b_any(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    items = iterate(args[0], ctx.budget)
    ctx.budget.visit(len(items))
    return any(truth(item) for item in items)


def _b_all(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    items = iterate(args[0], ctx.budget)
    ctx.budget.visit(len(items))
    return all(truth(item) for item in items)


def _b_sum(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 1, 2)
    _no_keywords(kwargs, ("start",))
    items = iterate(args[0], ctx.budget)
    ctx.budget.visit(len(items))
    start = [*args[1:], kwargs.get("start", 0)][0]
    numbers = [_number_from(item, NUMBERS) for item in [start, *items]]
    return sum(numbers[1:], numbers[0])


def _b_map(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if len(args) < 2:
        raise CannotEvaluate("wrong number of arguments")
    _no_keywords(kwargs)
    columns = [iterate(a, ctx.budget) for a in args[1:]]
    return [ctx.call_value(args[0], list(row)) for row in zip(*columns, strict=False)]


def _b_filter(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arity(args, 2, 2)
    _no_keywords(kwargs)
    test = args[0]
    items = iterate(args[1], ctx.budget)
    ctx.budget.visit(len(items))
    if test is None:
        return [item for item in items if truth(item)]
    return [item for item in items if truth(ctx.call_value(test, [item]))]


Builtin = Callable[[Caller, list[Any], dict[str, Any]], Any]
BUILTINS: dict[str, Builtin] = {
    "list": _b_list,
    "tuple": _b_tuple,
    "set": _b_set,
    "frozenset": _b_frozenset,
    "dict": _b_dict,
    "str": _from_environment(_b_str),
    "repr": _b_repr,
    "int": _from_environment(_b_int),
    "float": _from_environment(_b_float),
    "bool": _b_bool,
    "len": _b_len,
    "abs": _b_abs,
    "round": _b_round,
    "min": _b_min,
    "max": _b_max,
    "sorted": _b_sorted,
    "range": _b_range,
    "reversed": _b_reversed,
    "enumerate": _b_enumerate,
    "zip": _b_zip,
    "any": _b_any,
    "all": _b_all,
    "sum": _b_sum,
    "map": _b_map,
    "filter": _b_filter,
}
# The builtins that are also types: `str.lower`, `dict.fromkeys` name their methods.
BUILTIN_TYPES: dict[str, type] = {
    "str": str,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "int": int,
    "float": float,
    "bool": bool,
}


def call_builtin(ctx: Caller, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return BUILTINS[name](ctx, args, kwargs)


# ------------------------------------------------------------------ functions of the stdlib

_JSON_OPEN = frozenset("[{")
_JSON_CLOSE = frozenset("]}")


def _json_depth(text: str) -> int:
    """How deep a JSON text nests (outside its strings), read before Python's parser, whose
    recursion a text of a million brackets would exhaust."""
    depth = deepest = 0
    quoted = escaped = False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in _JSON_OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _JSON_CLOSE:
            depth -= 1
    return deepest


def _json_loads(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`json.loads(text)` of a text known statically: plain data, within the budget."""
    _arity(args, 1, 1)
    _no_keywords(kwargs)
    text = resolve(args[0])
    if type(text) is not str:
        raise CannotEvaluate(f"`json.loads` of {describe(text)}")
    ctx.budget.size(len(text), "a JSON text")
    ctx.budget.visit(len(text) >> 3)
    if _json_depth(text) > ctx.budget.limits.nesting:
        raise CannotEvaluate("a JSON text nested deeper than static reading follows")
    value = json.loads(text)
    weigh(value, "a value read from JSON")
    return value


def _json_dumps(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> str:
    """`json.dumps(data, separators=..., sort_keys=..., indent=..., ensure_ascii=...)` of plain
    data, its length checked against the budget."""
    _arity(args, 1, 1)
    _no_keywords(kwargs, ("separators", "sort_keys", "indent", "ensure_ascii"))
    data = settle(args[0])
    if not is_plain(data):
        raise CannotEvaluate(f"`json.dumps` of {describe(data)}")
    options = {k: resolve(v) for k, v in kwargs.items()}
    separators = options.get("separators")
    if separators is not None and (
        type(separators) not in (tuple, list)
        or len(separators) != 2
        or any(type(s) is not str or len(s) > 8 for s in separators)
    ):
        raise CannotEvaluate("`json.dumps` separators that are not two short texts")
    indent = options.get("indent")
    if indent is not None and (type(indent) is not int or not 0 <= indent <= 16):
        raise CannotEvaluate("`json.dumps` with an indent that is not a small number")
    weight = weigh(data, "a value written as JSON")
    ctx.budget.size(weight * (2 + (indent or 0)), "a JSON text")
    ctx.budget.visit(weight)
    return json.dumps(
        data,
        separators=tuple(separators) if separators is not None else None,
        sort_keys=truth(options.get("sort_keys", False)),
        indent=indent,
        ensure_ascii=truth(options.get("ensure_ascii", True)),
    )


def _environment_lookup(ctx: Caller, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`os.environ.get(name, default)`, `os.getenv(...)`: the fact that the program reads the
    variable, never its value here (see `environment`)."""
    return environment.lookup(args, kwargs)


# Functions of other modules of the standard library, by their dotted name.
LIBRARY_FUNCTIONS: dict[str, Callable[[Caller, list[Any], dict[str, Any]], Any]] = {
    "json.loads": _json_loads,
    "json.dumps": _json_dumps,
    **{name: _environment_lookup for name in environment.LOOKUPS},
}
