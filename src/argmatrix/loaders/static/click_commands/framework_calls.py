"""Calls of Click and Typer in a read of a command, made by the interpreter (`Interpreter.eval_Call`
and `call_value` hand them here): a call of Click or Typer, or of a class of the source deriving
from one of theirs, is recorded as a `FrameworkCall`; a decorator of Click applied to a function
adds its parameter to it (`Decorated`), as `click.option` appends to `__click_params__`;
`functools.wraps` hands those on. So a decorator of the project's own (`def common_options(f):
...`) runs in the interpreter like any other function of the source, and what it applies is
known. A class of the source is made by following its `__init__` (the first the source defines)
with an object of the source as `self`: what its `super().__init__` hands the framework's class,
and what it sets on `self` after that, are kept on the call."""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.loaders.static.click_commands.framework_values import (
    FRAMEWORK_INIT,
    PARAMETER_DECORATORS,
    PLAIN_DECORATORS,
    Decorated,
    FrameworkCall,
    FrameworkInit,
    Wraps,
    framework_of,
)
from argmatrix.loaders.static.python.calls import lenient_arguments
from argmatrix.loaders.static.python.classes import ancestors
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    SourceObject,
    resolve,
)

WRAPS = ("functools.wraps", "functools.update_wrapper")
# Decorators of Click applied without a call (`@click.pass_context`): they give the function.
DIRECT_DECORATORS = frozenset({"pass_context", "pass_obj"})


def records(it: Evaluator, function: Any) -> bool:
    """Whether a call of `function` is recorded as a `FrameworkCall` in this read: a name of
    Click or Typer, or a class of the source deriving from one of theirs (only in a read of a
    Click command or Typer app: an argparse read keeps such a call unknown, as before)."""
    if not it.loader.framework_calls:
        return False
    kind = type(function)
    if kind is ExternalRef:
        return framework_of(function.dotted) is not None or function.dotted in WRAPS
    return kind is ClassRef and framework_base(function) is not None


def framework_base(cls: ClassRef) -> ExternalRef | None:
    """The first class of Click or Typer among a source class's ancestors (depth first)."""
    for base in ancestors(cls):
        if type(base) is ExternalRef and framework_of(base.dotted) is not None:
            return base
    return None


def make(it: Evaluator, function: ExternalRef | ClassRef, node: ast.Call) -> Any:
    """The value of a recorded call: `functools.wraps(f)`, or a `FrameworkCall`."""
    args, kwargs = lenient_arguments(it, node)
    direct = type(function) is ExternalRef and function.short in DIRECT_DECORATORS
    if direct and len(args) == 1 and not kwargs:  # `click.pass_context(f)`: f itself
        return pass_through(args[0])
    if type(function) is ExternalRef and function.dotted in WRAPS:
        if function.dotted == "functools.wraps":
            return Wraps(args[0] if args else None)
        return wrap(args[1] if len(args) > 1 else None, args[0] if args else None)
    return construct(it, function, args, kwargs, node)


def construct(
    it: Evaluator,
    function: ExternalRef | ClassRef,
    args: list[Any],
    kwargs: dict[str, Any],
    node: ast.Call,
) -> FrameworkCall:
    """The record of a call of Click or Typer, or of a class of the source deriving from one
    of theirs (its `__init__` followed), with these arguments, made at `node`."""
    call = FrameworkCall(function, args, kwargs, it.module, node)
    if type(function) is ClassRef:
        _follow_init(it, function, call)
    it.budget.visit(len(args) + len(kwargs) + 1)
    return call


def _follow_init(it: Evaluator, cls: ClassRef, call: FrameworkCall) -> None:
    """Run the `__init__` the source defines for `cls` (none: the arguments go to the
    framework's class as they are), keeping what its `super().__init__` was given and the
    attributes it sets after that."""
    init = _own_init(cls)
    if init is None:
        return
    obj = SourceObject(cls)
    obj.attrs[FRAMEWORK_INIT] = None
    it.compute(init, [obj, *call.args], dict(call.kwargs))
    given = obj.attrs.pop(FRAMEWORK_INIT)
    if given is None:
        raise CannotEvaluate(
            f"`{cls.node.name}.__init__` does not call its base class's `__init__` in a way"
            " static reading follows"
        )
    call.init = given
    set_by_init = given[1]
    call.attrs = {  # what the project's `__init__` set after the framework's
        key: value
        for key, value in obj.attrs.items()
        if key not in set_by_init or value is not set_by_init[key]
    }


def _own_init(cls: ClassRef) -> FunctionRef | None:
    for owner in [cls, *(a for a in ancestors(cls) if type(a) is ClassRef)]:
        member = owner.module.loader.members(owner.node)[0].get("__init__")
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return FunctionRef(owner.module, member, owner)
    return None


def framework_init(receiver: SourceObject) -> FrameworkInit | None:
    """`super().__init__` of an object being made for a `FrameworkCall` (see `_follow_init`)."""
    return FrameworkInit(receiver) if FRAMEWORK_INIT in receiver.attrs else None


def pass_through(target: Any) -> Any:
    if type(resolve(target)) not in (Decorated, FunctionRef):
        raise CannotEvaluate("a decorator of Click applied to something other than a function")
    return target


def call(it: Evaluator, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Calling one of the values of `framework_values`, or a decorator of Click applied
    without a call (`click.pass_context`): a decorator applied, a `functools.wraps` applied,
    the framework's `__init__` reached."""
    kind = type(function)
    if kind is ExternalRef and function.short in DIRECT_DECORATORS and len(args) == 1:
        return pass_through(args[0])
    if kind is FrameworkInit:
        # The framework's `__init__` sets the object's attributes: those given as keywords are
        # known (`self.help` after it), any set before are replaced.
        receiver = function.receiver
        receiver.attrs.clear()
        receiver.attrs.update(kwargs)
        receiver.attrs[FRAMEWORK_INIT] = (list(args), dict(kwargs))
        return None
    if kind is Wraps:
        if len(args) != 1 or kwargs:
            raise CannotEvaluate("`functools.wraps(...)` applied to other than one function")
        return wrap(args[0], function.wrapped)
    if kind is FrameworkCall and len(args) == 1 and not kwargs:
        return apply(function, resolve(args[0]))
    raise CannotEvaluate("calls an object of Click or Typer, which static reading does not run")


def apply(decorator: FrameworkCall, target: Any) -> Any:
    """`click.option(...)(f)`: `f` with the parameter added (a function of the source becomes a
    `Decorated` one); a decorator that adds nothing gives `f` back."""
    name = decorator.name if type(decorator.callee) is ExternalRef else ""
    if name in PLAIN_DECORATORS and type(target) in (Decorated, FunctionRef):
        return target
    if name not in PARAMETER_DECORATORS:
        raise CannotEvaluate(f"applies `{name or decorator.name}(...)`, which adds no parameter")
    if type(target) is FunctionRef:
        target = Decorated([], target)
    if type(target) is not Decorated:
        raise CannotEvaluate("a Click parameter applied to something other than a function")
    decorator.module.loader.budget.size(len(target.params) + 1, "a list of parameters", added=1)
    target.params.append(decorator)
    return target


def wrap(wrapper: Any, wrapped: Any) -> Any:
    """`functools.wraps(wrapped)(wrapper)`: the wrapper, with the Click parameters of the
    wrapped function (the same list: `__dict__` is copied, not the list)."""
    wrapped = resolve(wrapped)
    if type(wrapped) is Decorated:
        return Decorated(wrapped.params, wrapped.function)
    return wrapper
