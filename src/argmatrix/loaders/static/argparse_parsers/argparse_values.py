"""The values argparse receives from a replayed call: plain data all the way down (`final_value`),
a callable of the source as a stand-in named after it (`named_callable`: argparse calls a `type=`
only on its own defaults, never on the registry's behalf), and a help whose placeholders
(`%(default)s`) argparse could not fill, refused the way argparse would."""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable
from typing import Any

from argmatrix.loaders.static.argparse_parsers.argparse_names import ArgparseRef
from argmatrix.loaders.static.argparse_parsers.handles import (
    ActionHandle,
    ParserHandle,
    ParserMethod,
)
from argmatrix.loaders.static.declared_fields import declared
from argmatrix.loaders.static.python import environment
from argmatrix.loaders.static.python.budget import Budget, BudgetExceeded
from argmatrix.loaders.static.python.values import (
    REFS,
    BoundMethod,
    BuiltinRef,
    ClassRef,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    MethodRef,
    SourceObject,
    one_deeper,
    resolve,
    settle,
    weigh,
)
from argmatrix.model.registry import FromEnvironment, Opaque, Unevaluated


def callable_name(value: Any) -> str:
    """The name Python would give a type or action: `int`, `Path`, `<lambda>`."""
    if isinstance(value, (ClassRef, FunctionRef)):
        return value.node.name
    if isinstance(value, ExternalRef):
        return value.short
    if isinstance(value, (BuiltinRef, ArgparseRef)):
        return value.name
    if isinstance(value, LambdaRef):
        return "<lambda>"
    if isinstance(value, MethodRef):
        return value.name
    if isinstance(value, SourceObject):
        return f"{value.cls.node.name}()"
    if isinstance(value, BoundMethod):
        return value.function.node.name
    if isinstance(value, Unevaluated):
        return value.source
    if type(value) in declared.VALUES:
        return declared.spelled(value)
    return type(value).__name__


def final_value(value: Any, depth: int = 0, default: bool = False) -> Any:
    """What the model keeps of a computed value: plain data as it is, Enum members as
    `Class.MEMBER`, a reference to something only running would give (`sys.maxsize`) as its
    name, marked unevaluated. `default`: the value is a default, which may be read from the
    environment (`FromEnvironment`, a fact the pages state); anywhere else (a help, a choice,
    an item of a list) what the environment gives is known only to the running program."""
    if depth == 0:  # what follows goes through it several times (model, checks, argparse)
        value = resolve(value)
        weigh(value, "a value the model keeps", _MODEL_STEPS)
    value = settle(value, depth or 1)
    kind = type(value)
    if kind is EnumMember:
        return Opaque(str(value))
    if kind is FromEnvironment and (depth or not default):
        return Unevaluated(
            environment.spelled(value), "it is read from the environment when the program runs"
        )
    if kind in declared.VALUES:
        return Unevaluated(declared.spelled(value), "only running the code would give its value")
    if isinstance(value, REFS):
        if isinstance(value, ExternalRef):
            name = value.dotted
        elif isinstance(value, (ParserHandle, ParserMethod, ActionHandle)):
            name = "<parser object>"
        else:
            name = callable_name(value)
        return Unevaluated(name, "only running the code would give its value")
    if kind is list:
        return [final_value(v, one_deeper(depth)) for v in value]
    if kind is tuple:
        return tuple(final_value(v, one_deeper(depth)) for v in value)
    if kind in (set, frozenset):
        return kind(final_value(v, one_deeper(depth)) for v in value)
    if kind is dict:
        return {k: final_value(v, one_deeper(depth)) for k, v in value.items()}
    return value


def named_callable(name: str) -> Callable[[Any], Any]:
    """A stand-in for a custom `type=` callable: argparse only needs something callable."""

    def convert(value: Any) -> Any:
        return value

    convert.__name__ = convert.__qualname__ = name
    STAND_INS.add(convert)
    return convert


# The stand-ins made by `named_callable`: a custom action's `__init__` hands argparse the one it
# was given (`type=int` passed on through `**kwargs`), which keeps its name.
STAND_INS: weakref.WeakSet[Callable[[Any], Any]] = weakref.WeakSet()


@functools.cache
def _help_placeholder() -> re.Pattern[str]:
    """`%(default)999999999s` in a help text: the converter fills placeholders as argparse
    would (compiled when first used: most help texts have none)."""
    return re.compile(r"%\((\w+)\)[-#0 +]*(\d+)?(?:\.(\d+))?")


_NAMES = ("option_strings", "prog", "dest")  # placeholders argparse fills from the flags


def check_help(kwargs: dict[str, Any], names: int, budget: Budget) -> None:
    """Refuse a help text whose placeholders would expand beyond the size budget: a width of
    10**9, or `%(default)s` a thousand times over a large default (`%(help)s` repeats the help
    itself). `names`: the length of the flags and the program's name."""
    text = kwargs.get("help")
    if type(text) is not str or "%(" not in text:
        return
    limit = budget.limits.value_size
    length = len(text)
    for match in _help_placeholder().finditer(text):
        name, width, precision = match.groups()
        for digits in (width, precision):
            if digits and (len(digits) > 9 or int(digits) > limit):
                raise BudgetExceeded(
                    "the size budget", f"a help placeholder width of {digits[:12]}, limit {limit:,}"
                )
        if name in kwargs:
            written = 10 * weigh(kwargs[name], "a value a help text shows") + 400
        else:
            written = 10 * names + 400 if name in _NAMES else 0
        length += max(int(width or 0), written + int(precision or 0))
        if length > limit:
            raise BudgetExceeded(
                "the size budget",
                f"a help text that expands to more than {limit:,} characters",
            )


_MODEL_STEPS = 3  # an item of a value the model keeps
