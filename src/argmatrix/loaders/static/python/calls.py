"""Calls in the registry's source other than parser calls (those are replayed: see `replay`):
a call's arguments evaluated, and a builtin, a method of plain data, a lambda or a function of
the source called with them. Each function is given the interpreter the call is made in; a
lambda or a function runs in an interpreter of its own, one call deeper (`Evaluator.inner`,
`Evaluator.follow`), within the call depth budget."""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.python.builtins import call_builtin
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.ops import call_method
from argmatrix.loaders.static.python.syntax import parameters, returns_parser, skips_first
from argmatrix.loaders.static.python.values import (
    BoundMethod,
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    MethodRef,
    ReaderValue,
    SourceObject,
    builds_registry,
    describe,
    resolve,
    settle,
    short_source,
)
from argmatrix.model.registry import Unevaluated

# ------------------------------------------------------------------ arguments


def call_arguments(it: Evaluator, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments, `*xs` and `**kw` spread; any that cannot be computed
    makes the call unknown (`CannotEvaluate`)."""
    args = it.elements(node.args)
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            spread = resolve(it.eval(keyword.value))
            if type(spread) is not dict or any(type(k) is not str for k in spread):
                raise CannotEvaluate(f"`**{it.quoted(keyword.value)}` is not a dict")
            kwargs.update(spread)
        else:
            kwargs[keyword.arg] = it.eval(keyword.value)
    it.budget.visit(len(args) + len(kwargs))
    return [settle(a) for a in args], {k: settle(v) for k, v in kwargs.items()}


def lenient_arguments(
    it: Evaluator, node: ast.Call, strict_spreads: bool = True
) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments, `*xs` and `**kw` spread; what cannot be computed
    is kept as its source text."""
    args: list[Any] = []
    for argument in node.args:
        if isinstance(argument, ast.Starred):
            spread = resolve(it.try_eval(argument.value))
            if type(spread) not in (list, tuple):
                if strict_spreads:
                    raise unreadable(it, node, f"*{it.module.segment(argument.value)}")
                continue
            args.extend(spread)
        else:
            args.append(it.try_eval(argument))
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is not None:
            kwargs[keyword.arg] = it.try_eval(keyword.value)
            continue
        spread = resolve(it.try_eval(keyword.value))
        if type(spread) is not dict or any(type(k) is not str for k in spread):
            if strict_spreads:
                raise unreadable(it, node, f"**{it.module.segment(keyword.value)}")
            continue
        kwargs.update(spread)
    it.budget.visit(len(args) + len(kwargs))
    return [settle(a) for a in args], {k: settle(v) for k, v in kwargs.items()}


def unreadable(it: Evaluator, node: ast.Call, what: str) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"cannot read {short_source(what)} statically",
        file=str(it.module.path),
        line=node.lineno,
        fix="spell the arguments out, or load the registry live",
    )


def bind_parameters(
    it: Evaluator,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    args: list[Any],
    kwargs: dict[str, Any],
) -> None:
    """Fill the scope of `it`, about to run a function of the source, with its parameters.
    One given no value and with no default is unknown (`Unevaluated`), not an error: only
    what reads it cannot be computed."""
    scope = it.scope
    params = parameters(node)
    defaults = node.args.defaults
    first_default = len(params) - len(defaults)
    for index, param in enumerate(params):
        if index < len(args):
            scope[param.arg] = args[index]
        elif param.arg in kwargs:
            scope[param.arg] = kwargs[param.arg]
        elif index >= first_default:
            scope[param.arg] = it.try_eval(defaults[index - first_default])
        else:
            scope[param.arg] = Unevaluated(param.arg, f"`{param.arg}` is not given a value")
    for param, default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
        if param.arg in kwargs:
            scope[param.arg] = kwargs[param.arg]
        elif default is not None:
            scope[param.arg] = it.try_eval(default)
    if node.args.vararg is not None:
        scope[node.args.vararg.arg] = tuple(args[len(params) :])
    if node.args.kwarg is not None:
        named = {a.arg for a in [*params, *node.args.kwonlyargs]}
        scope[node.args.kwarg.arg] = {k: v for k, v in kwargs.items() if k not in named}


# ------------------------------------------------------------------ calls


def call_value(
    it: Evaluator, function: Any, args: list[Any], kwargs: dict[str, Any] | None = None
) -> Any:
    """Call a value of the source: a builtin, a method of plain data, a lambda, a function
    (a `key=` or a function given to `map`)."""
    kwargs = kwargs or {}
    function = resolve(function)
    kind = type(function)
    it.budget.visit(3)  # `map(str, items)` calls it once per item
    if kind is BuiltinRef:
        return call_builtin(it, function.name, args, kwargs)
    if kind is MethodRef:
        return call_method(it, function, args, kwargs)
    if kind is LambdaRef:
        return call_lambda(it, function, args, kwargs)
    if kind is FunctionRef:
        receiver = [function.owner] if skips_first(function) else []
        return it.follow(function, [*receiver, *args], kwargs)
    raise CannotEvaluate(f"calls {describe(function)}, which static reading does not run")


def call_lambda(it: Evaluator, function: LambdaRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
    it.budget.calls(it.depth + 1)
    arguments = function.node.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
        raise CannotEvaluate("a lambda with * or ** parameters is not evaluated")
    scope: dict[str, Any] = {}
    inner = it.inner(function.module, scope, it.depth + 1, function.owner, function.enclosing)
    params = [*arguments.posonlyargs, *arguments.args]
    first_default = len(params) - len(arguments.defaults)
    if len(args) > len(params):
        raise CannotEvaluate("too many arguments for a lambda")
    for index, param in enumerate(params):
        if index < len(args):
            scope[param.arg] = args[index]
        elif param.arg in kwargs:
            scope[param.arg] = kwargs[param.arg]
        elif index >= first_default:
            scope[param.arg] = inner.eval(arguments.defaults[index - first_default])
        else:
            raise CannotEvaluate("a lambda called without all its arguments")
    return inner.eval(function.node.body)


def call_function(
    it: Evaluator, function: FunctionRef, node: ast.Call, builds: bool = False
) -> Any:
    """Follow a helper that adds arguments: `add_model_args(parser)`, `cls._more(parser)`, or
    a method of a class whose body builds parsers (`builds`), which may add to them through the
    class (`CLI.subparsers.add_parser(...)`)."""
    receiver = [function.owner] if skips_first(function) else []
    args, kwargs = lenient_arguments(it, node)
    involves_parser = builds or any(
        builds_registry(v) for v in [*receiver, *args, *kwargs.values()]
    )
    if not involves_parser and not it.loader.walked(function.node, returns_parser):
        return computed(it, function, [*receiver, *args], kwargs)
    return it.follow(function, [*receiver, *args], kwargs)


def computed(it: Evaluator, function: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """A helper that adds no argument (`_unwrap_optional(tp)`, `default_ports()`): its value,
    if every statement it runs can be followed exactly; else it is unknown. An argument kept as
    source text is given as such: whatever reads it cannot be computed, so the call is unknown
    unless the helper only closes over it (`make_converter(config)` returning `converter`)."""
    if function.node.decorator_list:
        raise CannotEvaluate(
            f"calls `{function.node.name}`, whose decorators static reading does not run"
        )
    return it.compute(function, args, kwargs)


def parser_passed(it: Evaluator, node: ast.Call, reason: str) -> None:
    """A call static reading does not follow that is handed a parser: what it adds is
    missing, so that is said."""
    if not (node.args or node.keywords):  # most calls that fail have no argument worth a look
        return
    args, kwargs = lenient_arguments(it, node, strict_spreads=False)
    # An argument object handed to a class of the source (RTP-LLM's `ConfigBinding(action,
    # ...)` keeps it for later) is read as kept, not changed; handed to anything else
    # (`setattr`, a function of another package) it may be changed.
    try:
        kept = type(resolve(it.eval(node.func))) is ClassRef
    except CannotEvaluate:
        kept = False
    if any(_holds_parser(v, arguments=not kept) for v in [*args, *kwargs.values()]):
        it.report(
            node,
            f"`{it.quoted(node.func)}(...)` is handed a parser, but static"
            f" reading does not follow that call ({reason}): the arguments"
            " it adds are missing",
            stops=True,
        )


def reaches_parser(value: Any) -> bool:
    """A parser, or a value that holds or reaches one (see `_holds_parser`)."""
    return _holds_parser(value, arguments=False)


def _holds_parser(value: Any, depth: int = 0, arguments: bool = True) -> bool:
    """A parser, a group, a parser's bound method (`parser.add_argument`), an argument (with
    `arguments`), or a list, tuple, set or dict holding one (two levels down): what a call may
    add to or change."""
    value = resolve(value)
    if builds_registry(value) or (isinstance(value, ReaderValue) and value.reaches_registry):
        return True
    if arguments and isinstance(value, ReaderValue) and value.registry_part:
        return True
    if depth < 2 and type(value) in (list, tuple, set, frozenset):
        return any(_holds_parser(item, depth + 1, arguments) for item in value)
    if depth < 2 and type(value) is dict:
        return any(_holds_parser(item, depth + 1, arguments) for item in value.values())
    if depth < 2:
        return any(_holds_parser(item, depth + 1, arguments) for item in _reached(value))
    return False


def _reached(value: Any) -> list[Any]:
    """What a value lets the code it is handed reach: an object's attributes, a bound method's
    object, and the names a local function (a closure) reads from the functions around it."""
    kind = type(value)
    if kind is SourceObject:
        return list(value.attrs.values())
    if kind is BoundMethod:
        return [value.receiver]
    if kind in (FunctionRef, LambdaRef) and value.enclosing:
        nodes = list(ast.walk(value.node))
        value.module.loader.budget.visit(len(nodes))  # a large closure handed on in a loop
        read = {n.id for n in nodes if isinstance(n, ast.Name)}
        return [scope[name] for scope in value.enclosing for name in read if name in scope]
    return []


# Python's builtins that run code given as text: what that code adds is never seen.
_RUNS_TEXT = frozenset({"exec", "eval", "compile"})


def runs_text(it: Evaluator, node: ast.Call, function: ExternalRef | None) -> None:
    """`exec(...)`, `eval(...)` or `compile(...)` (or `builtins.exec`): code built as text,
    which static reading never runs. What it does (an `add_argument` in the text, a name it
    binds) cannot be known, so the read stops there, in a builder or a class body alike.
    `function`: the call's value, if it was known (None: the name is not bound in the source
    read, as a builtin is not)."""
    func = node.func
    if function is None:
        name = func.id if isinstance(func, ast.Name) else None
        if name is None or any(name in scope for scope in (it.scope, *it.enclosing)):
            return
    else:
        name = function.dotted.removeprefix("builtins.")
        if function.dotted != f"builtins.{name}":
            return
    if name in _RUNS_TEXT:
        it.report(
            node,
            f"`{name}(...)` runs code given as text, which static reading never runs: what"
            " it adds to a parser or binds is not known",
            stops=True,
        )
