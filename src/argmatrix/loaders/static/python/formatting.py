"""Text from values, the way Python would write it, for plain data only.

`str.format`, `format_map`, f-strings, `%` and `str()`/`repr()` are implemented here instead of
being handed to Python: Python's own `"{0.attr}".format(x)` walks the attributes of whatever it
is given, and `"{:>{}}".format(x, 10**9)` builds a gigabyte. Here a replacement field may only
index plain lists, tuples and dicts, never read an attribute; only plain data is formatted (a
class or an imported name would print a Python repr with a memory address); and widths and
precisions are checked against the budget before anything is built.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # the parser str.format itself uses
import functools
import re
from typing import Any

from argmatrix.loaders.static.python.budget import Budget, BudgetExceeded
from argmatrix.loaders.static.python.values import (
    CONTAINERS,
    LEAVES,
    CannotEvaluate,
    EnumMember,
    describe,
    is_plain,
    resolve,
    settle,
    weigh,
)

# [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_SPEC = re.compile(
    r"(?:.?[<>=^])?[-+ ]?z?#?0?(?P<width>\d+)?[,_]?(?:\.(?P<precision>\d+))?"
    r"[bcdeEfFgGnosxX%]?\Z",
    re.S,
)


@functools.cache
def _percent() -> re.Pattern[str]:
    """One conversion of printf-style formatting (compiled when first used)."""
    return re.compile(
        r"%(?:\((?P<key>[^)]*)\))?[-#0 +]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?[hlL]?"
        r"(?P<kind>.?)",
        re.S,
    )


_CONVERSIONS = frozenset("diouxXeEfFgGcrsa%")


def _check_number(digits: str | None, what: str, budget: Budget) -> None:
    if digits is None:
        return
    limit = budget.limits.value_size
    if len(digits) > len(str(limit)) or int(digits) > limit:
        shown = digits if len(digits) <= 12 else f"{digits[:6]}...({len(digits)} digits)"
        raise BudgetExceeded("the size budget", f"a format {what} of {shown}, limit {limit:,}")


def check_spec(spec: str, budget: Budget) -> None:
    """A format spec static reading understands, with a width and precision within budget."""
    match = _SPEC.match(spec)
    if match is None:
        raise CannotEvaluate(f"format spec {spec!r} is not understood statically")
    _check_number(match.group("width"), "width", budget)
    _check_number(match.group("precision"), "precision", budget)


def _built(text: str, budget: Budget) -> str:
    budget.size(len(text), "a string")
    return text


def to_str(value: Any, budget: Budget) -> str:
    """`str(value)` of plain data (or a member of a plain Enum)."""
    value = resolve(value)
    if type(value) is EnumMember and value.plain:
        return str(value)
    if not is_plain(value):
        raise CannotEvaluate(f"str() of {describe(value)} would write a Python object, not a value")
    if type(value) is str:
        return value
    return _built(str(value), budget)


def to_repr(value: Any, budget: Budget) -> str:
    value = resolve(value)
    if not is_plain(value):
        raise CannotEvaluate(f"repr() of {describe(value)} would write a Python object")
    return _built(repr(value), budget)


def format_value(value: Any, spec: str, conversion: str | None, budget: Budget) -> str:
    """`format(value, spec)` after an optional `!r`/`!s`/`!a` conversion."""
    value = resolve(value)
    if conversion == "r":
        value = to_repr(value, budget)
    elif conversion == "a":
        value = _built(ascii(to_repr(value, budget)), budget)
    elif conversion == "s":
        value = to_str(value, budget)
    elif conversion is not None:
        raise CannotEvaluate(f"unknown conversion !{conversion}")
    kind = type(value)
    if kind is EnumMember and value.plain and not spec:
        return str(value)
    if kind in CONTAINERS:
        if spec:
            raise CannotEvaluate("a container takes no format spec")
        return to_str(value, budget)
    if kind not in LEAVES:
        raise CannotEvaluate(f"formatting {describe(value)} would write a Python object")
    check_spec(spec, budget)
    return _built(format(value, spec), budget)


class _Fields:
    """The arguments of one `format` call, and its automatic field numbering."""

    def __init__(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        self.args = args
        self.kwargs = kwargs
        self.next_auto: int | None = 0  # None: manual numbering was used
        self.manual = False

    def first(self, name: Any) -> Any:
        if name == "":
            if self.manual or self.next_auto is None:
                raise CannotEvaluate("cannot switch from manual to automatic field numbering")
            name, self.next_auto = self.next_auto, self.next_auto + 1
        elif type(name) is int:
            if self.next_auto:
                raise CannotEvaluate("cannot switch from automatic to manual field numbering")
            self.manual = True
        if type(name) is int:
            if name >= len(self.args):
                raise CannotEvaluate("a replacement field names a missing argument")
            return self.args[name]
        if name not in self.kwargs:
            raise CannotEvaluate(f"a replacement field names a missing argument {name!r}")
        return self.kwargs[name]


def _index(value: Any, key: Any) -> Any:
    value = resolve(value)
    kind = type(value)
    if kind in (list, tuple) and type(key) is int:
        if not -len(value) <= key < len(value):
            raise CannotEvaluate("a replacement field indexes past the end")
        return settle(value[key])
    if kind is dict and type(key) in (int, str):
        if key not in value:
            raise CannotEvaluate(f"a replacement field names a missing key {key!r}")
        return settle(value[key])
    raise CannotEvaluate("a replacement field indexes something that is not a list or dict")


def format_string(template: str, args: list[Any], kwargs: dict[str, Any], budget: Budget) -> str:
    """`template.format(*args, **kwargs)` for plain data, never following `.attribute`."""
    return _format(template, _Fields(args, kwargs), budget, 2)


def _format(template: str, fields: _Fields, budget: Budget, depth: int) -> str:
    parts: list[str] = []
    total = 0
    try:
        parsed = list(_string.formatter_parser(template))
    except ValueError as exc:
        raise CannotEvaluate(f"malformed format string: {exc}") from None
    budget.visit(2 * len(parsed))  # each field is Python work of its own
    for literal, name, spec, conversion in parsed:
        parts.append(literal)
        total += len(literal)
        if name is None:
            continue
        try:
            first, rest = _string.formatter_field_name_split(name)
        except ValueError as exc:
            raise CannotEvaluate(f"malformed replacement field: {exc}") from None
        value = fields.first(first)
        for is_attribute, key in rest:
            if is_attribute:
                raise CannotEvaluate(
                    f"replacement field {{{name}}} reads an attribute, which static reading"
                    " never follows"
                )
            value = _index(value, key)
        if spec and "{" in spec:
            if depth == 0:
                raise CannotEvaluate("format spec nested too deeply")
            spec = _format(spec, fields, budget, depth - 1)
        text = format_value(value, spec or "", conversion, budget)
        parts.append(text)
        total += len(text)
        budget.size(total, "a formatted string", added=len(text))
    return "".join(parts)


def format_map(template: str, mapping: Any, budget: Budget) -> str:
    mapping = resolve(mapping)
    if type(mapping) is not dict:
        raise CannotEvaluate(f"format_map() of {describe(mapping)}")
    return format_string(template, [], mapping, budget)


def percent_format(template: str, values: Any, budget: Budget) -> str:
    """`template % values` (printf-style) for plain data, with widths within budget."""
    values = resolve(values)
    if not is_plain(values):
        raise CannotEvaluate(f"%-formatting {describe(values)} would write a Python object")
    length = len(template)
    index = 0
    for match in _percent().finditer(template):
        if match.group("kind") == "%":
            continue
        if match.group("kind") not in _CONVERSIONS:
            raise CannotEvaluate("unsupported % conversion")
        if "*" in (match.group("width") or "") + (match.group("precision") or ""):
            raise CannotEvaluate("a width given by `*` is not evaluated statically")
        _check_number(match.group("width"), "width", budget)
        _check_number(match.group("precision"), "precision", budget)
        length += _conversion_length(match, _converted(values, match.group("key"), index))
        index += 1
        budget.visit(3)
        if length > budget.limits.value_size:  # `"%s" * 1000 % ((s,) * 1000)`: refused unbuilt
            raise BudgetExceeded(
                "the size budget",
                f"a %-formatted string of more than {budget.limits.value_size:,} characters",
            )
    return _built(template % values, budget)


def _converted(values: Any, key: str | None, index: int) -> Any:
    """The value one conversion of `template % values` writes (a guess is fine: it only bounds
    the length of the result)."""
    if key is not None and type(values) is dict:
        return values.get(key, "")
    if type(values) is tuple:
        return values[index] if index < len(values) else ""
    return values


def _conversion_length(match: re.Match[str], value: Any) -> int:
    """At most how long one conversion writes: its width, a number's digits and precision,
    or the value's text (a repr escapes a character in at most 10)."""
    width = int(match.group("width") or 0)
    precision = int(match.group("precision") or 0)
    kind = type(value)
    text: int
    if kind is int or kind is bool:
        text = int(value).bit_length() // 3 + 4 + precision
    elif kind is float:
        text = 320 + precision  # `%f` of 1e308: 309 digits
    else:
        text = weigh(value, "a value %-formatted")
        if kind is not str or match.group("kind") in "ra":
            text = 10 * text + 32
    return max(width, text)
