"""Replaying a registry's parser calls on real argparse, with plain data only.

The interpreter hands over evaluated arguments; here they become what argparse accepts: plain
data, `Unevaluated` source text, and named stand-ins for custom types and actions. Real argparse
objects never go back to the registry's code: it gets a `ParserHandle` or an `ActionHandle`.
The converter (`argmatrix.loaders.convert.registry_from_parser`) then reads the parser as in
live mode.

`argparse` itself is seen by the registry's code through a whitelist of its public names (and
the action classes custom actions derive from: see `argparse_names`); any other name of it is an
`ExternalRef`, a name and nothing more (`argparse._os.replace` reaches no module).
"""

from __future__ import annotations

import argparse
import ast
import inspect
from typing import Any, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE_KEYWORDS
from argmatrix.loaders.sections import CallSite
from argmatrix.loaders.static.argparse_parsers.argparse_names import (
    argparse_class,
    is_action_class,
)
from argmatrix.loaders.static.argparse_parsers.argparse_values import (
    STAND_INS,
    callable_name,
    check_help,
    final_value,
    named_callable,
)
from argmatrix.loaders.static.argparse_parsers.handles import (
    ActionHandle,
    ParserHandle,
    ParserMethod,
)
from argmatrix.loaders.static.argparse_parsers.recording import Recording, recording_of
from argmatrix.loaders.static.python.budget import FIX, BudgetExceeded
from argmatrix.loaders.static.python.calls import lenient_arguments, unreadable
from argmatrix.loaders.static.python.classes import ancestors, init_default
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    PLAIN_TYPES,
    REFS,
    CannotEvaluate,
    ClassRef,
    FunctionRef,
    SourceObject,
    contains_unevaluated,
    first_unevaluated,
    one_deeper,
    resolve,
    settle,
    short_source,
)
from argmatrix.model.registry import Unevaluated

PARSER_KEYWORDS = (
    "prog",
    "description",
    "epilog",
    "add_help",
    "prefix_chars",
    "allow_abbrev",
    "usage",
    "argument_default",
    "conflict_handler",
    "parents",
)
# Keywords of add_parser/add_subparsers that name classes: they change nothing the model shows.
CLASS_KEYWORDS = ("formatter_class", "parser_class", "action")


def argparse_base(cls: ClassRef) -> type:
    """The argparse action class a custom action of the source derives from."""
    for base in ancestors(cls):
        if is_action_class(base):
            found = argparse_class(base)
            assert found is not None
            return found
    return argparse.Action


# ------------------------------------------------------------------ calls inside an undecided branch


def note_call(recording: Recording, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Remember a parser call made inside an undecided branch (by value, not identity), to
    compare the branches (see `statements`)."""
    if recording.logging:
        recording.log.append((name, _signature(args), _signature(kwargs)))


def _signature(value: Any, depth: int = 0) -> Any:
    """A comparable stand-in for replayed values: plain data as it is, a handle by identity,
    a class or callable by its name."""
    value = settle(value, depth)
    kind = type(value)
    if kind in (list, tuple):
        return (kind.__name__, *(_signature(v, one_deeper(depth)) for v in value))
    if kind is dict:
        return (
            "dict",
            *sorted((repr(k), _signature(v, one_deeper(depth))) for k, v in value.items()),
        )
    if kind in (set, frozenset):
        return (kind.__name__, *sorted(repr(_signature(v, one_deeper(depth))) for v in value))
    if isinstance(value, (ParserHandle, ActionHandle)):
        return ("handle", id(value.target))
    if isinstance(value, (*REFS, Unevaluated)):
        return (type(value).__name__, callable_name(value))
    return (kind.__name__, repr(value))


# ------------------------------------------------------------------ the parser calls met


# What replaying a parser call costs, in steps: argparse's own work, then the model's, the
# export's and the page's for what it adds (add_argument: about 60 microseconds in all).
REPLAY_STEPS = {"add_argument": 60, "add_parser": 250, "ArgumentParser": 150}
OTHER_CALL_STEPS = 10
_ITEM_STEPS = 8  # a flag, an alias, a keyword of a parser call
_USUAL_ITEMS = 8  # what the steps of a call above count already


def new_parser(it: Evaluator, node: ast.Call, kind: Any = None) -> ParserHandle:
    it.budget.visit(REPLAY_STEPS["ArgumentParser"])
    report_parser_class(it, node, kind)
    note_call(recording_of(it), "ArgumentParser", [], {"at": node.lineno})
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg not in PARSER_KEYWORDS:
            continue
        value = settle(it.try_eval(keyword.value))
        if keyword.arg == "parents":
            kwargs["parents"] = parents(it, node, value)
            continue
        value = final_value(value)
        if contains_unevaluated(value):
            report_unevaluated(it, node, "the parser", keyword.arg, value, "left out")
            continue
        kwargs[keyword.arg] = value
    try:
        return recording_of(it).parser(**kwargs)
    except (BudgetExceeded, ArgmatrixError):
        raise
    except Exception as exc:
        raise argparse_error(it, node, exc) from None


def parser_from_keywords(it: Evaluator, node: ast.Call, given: dict[str, Any]) -> ParserHandle:
    """The parser a subclass of the source makes when its `__init__` reaches argparse's
    (`super().__init__(*args, **kwargs)`): argparse's keywords of those it was given."""
    it.budget.visit(REPLAY_STEPS["ArgumentParser"])
    note_call(recording_of(it), "ArgumentParser", [], {"at": node.lineno})
    kwargs: dict[str, Any] = {}
    for key, value in given.items():
        if key not in PARSER_KEYWORDS:
            continue
        if key == "parents":
            kwargs["parents"] = parents(it, node, resolve(value))
            continue
        value = final_value(value)
        if contains_unevaluated(value):
            report_unevaluated(it, node, "the parser", key, value, "left out")
            continue
        kwargs[key] = value
    try:
        return recording_of(it).parser(**kwargs)
    except (BudgetExceeded, ArgmatrixError):
        raise
    except Exception as exc:
        raise argparse_error(it, node, exc) from None


def parents(it: Evaluator, node: ast.Call, value: Any) -> list[argparse.ArgumentParser]:
    if type(value) not in (list, tuple) or not all(
        isinstance(p, ParserHandle) and isinstance(p.target, argparse.ArgumentParser) for p in value
    ):
        raise unreadable(it, node, "parents=")
    # argparse copies every group and argument of each parent (`parents=[base] * 3000`).
    it.budget.visit(
        sum(10 * (len(p.target._actions) + len(p.target._action_groups)) for p in value)
    )
    return [p.target for p in value]


def parser_call(it: Evaluator, method: ParserMethod, node: ast.Call) -> Any:
    """Replay a call on a parser, group or subparsers object against real argparse."""
    name = method.name
    it.budget.visit(REPLAY_STEPS.get(name, OTHER_CALL_STEPS))
    args, kwargs = lenient_arguments(it, node)
    # Each flag, alias or default beyond the usual few is argparse's and the model's work of its
    # own (100,000 flags in one call).
    items = len(args) + len(kwargs) + len(kwargs.get("aliases") or ())
    it.budget.visit(_ITEM_STEPS * max(0, items - _USUAL_ITEMS))
    if name == "add_argument":
        return add_argument(it, method.handle, node, args, kwargs)
    note_call(recording_of(it), name, [method.handle, *args], kwargs)
    if name == "add_parser" and (not args or type(args[0]) is not str):
        raise unreadable(it, node, "a subcommand's name")
    plain_args: list[Any] = []
    for index, arg in enumerate(args):
        plain_args.append(replay_value(it, node, name, f"argument {index + 1}", arg))
    plain_kwargs: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in CLASS_KEYWORDS and name != "set_defaults":
            if key == "parser_class":
                report_parser_class(it, node, value)
            continue  # classes for parsers and help: nothing the model shows
        if key == "parents":
            plain_kwargs[key] = parents(it, node, value)
        elif name == "set_defaults" and contains_unevaluated(final_value(value, default=True)):
            plain_kwargs[key] = unknown_default(it, method.handle, node, key, value)
        else:
            plain_kwargs[key] = replay_value(it, node, name, key, value)
    try:
        return recording_of(it).call(method.handle, name, plain_args, plain_kwargs)
    except (BudgetExceeded, ArgmatrixError):
        raise
    except Exception as exc:
        raise argparse_error(it, node, exc) from None


def unknown_default(
    it: Evaluator, handle: ParserHandle, node: ast.Call, key: str, value: Any
) -> Any:
    """`set_defaults(key=...)` of a value kept as source text. It reaches the model only as the
    default of an argument of that parser whose dest is `key`, added before or after: said at
    the end of the read if there is one (`set_defaults(run=CLI.chat)` is not)."""
    value = final_value(value, default=True)
    found = first_unevaluated(value)
    if found is not None:
        reason = f" ({found.reason})" if found.reason else ""
        where = it.loader.argument_site or (str(it.module.path), getattr(node, "lineno", None))
        message = f"set_defaults({key}=...): the value kept as source text:"
        message += f" `{short_source(found.source)}`{reason}"
        it.loader.unknown_defaults.append((handle.target, key, where[0], where[1], message))
    return value


def replay_value(it: Evaluator, node: ast.Call, call: str, what: str, value: Any) -> Any:
    """A value for a parser call other than add_argument: plain data; what cannot be
    computed is reported, and left out (None) except as a default (kept as source text)."""
    value = final_value(value, default=call == "set_defaults")
    if not contains_unevaluated(value):
        return value
    if call == "set_defaults":
        report_unevaluated(
            it, node, f"set_defaults({what}=...)", "the value", value, "kept as source text"
        )
        return value
    report_unevaluated(it, node, f"{call}()", what, value, "left out")
    return None


def add_argument(
    it: Evaluator, handle: ParserHandle, node: ast.Call, args: list[Any], kwargs: dict[str, Any]
) -> ActionHandle | None:
    flags = [a for a in args if type(a) is str]
    if len(flags) != len(args):
        raise ArgmatrixError.at(
            "cannot read an argument's name statically",
            file=str(it.module.path),
            line=node.lineno,
            fix="use literal flag strings or constants, or load the registry live",
        )
    note_call(recording_of(it), "add_argument", [handle, *flags], kwargs)
    wrappers = recording_of(it).wrapper_calls
    if not wrappers:
        return _add_argument(it, handle, node, flags, kwargs)
    it.loader.argument_site = (wrappers[0].file, wrappers[0].line)
    try:
        return _add_argument(it, handle, node, flags, kwargs)
    finally:
        it.loader.argument_site = None


def _add_argument(
    it: Evaluator, handle: ParserHandle, node: ast.Call, flags: list[str], kwargs: dict[str, Any]
) -> ActionHandle | None:
    label = _label(flags, kwargs)
    extra: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key not in ARGPARSE_KEYWORDS:
            extra[key] = final_value(value)
            report_keyword(it, node, label, key, extra[key])
    prog = getattr(handle.target, "prog", None) or recording_of(it).prog  # a group has none
    names = sum(len(flag) + 4 for flag in flags) + len(str(prog))
    given = {k: v for k, v in kwargs.items() if k in ARGPARSE_KEYWORDS}
    action = resolve(given.get("action"))
    init = source_init(action) if isinstance(action, ClassRef) else None
    if init is not None:  # run after the other keywords are ready, with them
        del given["action"]
    ready = argparse_ready(it, given, node, label, names)
    if init is not None:
        assert isinstance(action, ClassRef)
        made = run_action_init(it, handle, node, label, flags, ready, action, init)
        ready["action"] = action
        if made is None:
            replay_action(it, node, label, ready)
        else:
            ready = {"action": made}
    _check_nargs(it, ready.get("nargs"))
    declaring = it.loader.declaring
    wrappers = recording_of(it).wrapper_calls
    if wrappers:  # a wrapper's add_argument of the source: the outermost call is the site
        for call in reversed(wrappers):
            extra.update(call.extra)
        outer = wrappers[0]
        site = CallSite(outer.file, outer.line, outer.start, tuple(extra.items()))
    elif declaring is None:
        site = CallSite(str(it.module.path), node.lineno, it.function_start, tuple(extra.items()))
    else:  # a field's argument, made by a generic helper: the section of its declaration
        site = CallSite(
            declaring.file, declaring.line, declaring.start, tuple(extra.items()), declaring.cls
        )
    try:
        return recording_of(it).add_argument(handle, flags, ready, site)
    except argparse.ArgumentError as exc:
        if it.alternatives and "conflicting option" in str(exc):
            return None  # the other branch's one stands
        raise argparse_error(it, node, exc) from None
    except (BudgetExceeded, ArgmatrixError):
        raise
    except Exception as exc:
        raise argparse_error(it, node, exc) from None


def argparse_ready(
    it: Evaluator, kwargs: dict[str, Any], node: ast.Call, label: str, names: int = 0
) -> dict[str, Any]:
    """Swap what static reading cannot run for stand-ins argparse accepts, and say which
    values are kept as source text."""
    for key, value in list(kwargs.items()):
        if key in ("type", "action"):
            continue
        if key == "choices" and type(resolve(value)) is dict:
            value = list(resolve(value))  # a mapping offers its keys; its values never matter
        value = final_value(value, default=key == "default")
        kwargs[key] = value
        if key == "dest" and contains_unevaluated(value):
            raise unreadable(it, node, "dest=")
        if key in ("required", "deprecated") and contains_unevaluated(value):
            report_unevaluated(it, node, label, key, value, "shown as False")
            kwargs[key] = False
        else:
            report_unevaluated(it, node, label, key, value)
    check_help(kwargs, names, it.budget)
    if "type" in kwargs:
        kwargs["type"] = replay_type(it, node, label, kwargs["type"])
    if kwargs.get("action") is not None:
        replay_action(it, node, label, kwargs)
    return kwargs


def _check_nargs(it: Evaluator, nargs: Any) -> None:
    """argparse writes a metavar per value of an integer `nargs` when the argument is added
    (`nargs=10**8` took 17 s and gigabytes)."""
    if type(nargs) is int and nargs > 0:
        it.budget.size(nargs, "an argument's nargs")


def replay_type(it: Evaluator, node: ast.Call, label: str, type_: Any) -> Any:
    type_ = resolve(type_)
    if type_ is None or type(type_) in PLAIN_TYPES:
        return type_  # argparse itself says what it thinks of `type="int"` or `type=5`
    if type_ in STAND_INS:
        return type_
    if type(type_) is Unevaluated:
        report_unevaluated(it, node, label, "type", type_)
    return named_callable(callable_name(type_))


def replay_action(it: Evaluator, node: ast.Call, label: str, kwargs: dict[str, Any]) -> None:
    action = resolve(kwargs["action"])
    if type(action) is str:
        return
    if is_action_class(action):
        kwargs["action"] = argparse_class(action)
    elif isinstance(action, ClassRef):
        kwargs["action"] = recording_of(it).placeholder_action(
            action.node.name, argparse_base(action)
        )
        for key in ("nargs", "default", "const"):  # as the class's own __init__ would
            if key not in kwargs:
                value = init_default(action, key)
                if value is not None:
                    kwargs[key] = value
    else:
        if type(action) is Unevaluated:
            report_unevaluated(it, node, label, "action", action)
        kwargs["action"] = recording_of(it).placeholder_action(callable_name(action))


# An object of the source that is an argument being made: what its `super().__init__` gave
# argparse's Action (see `objects.call`), kept among its attributes until it is read.
ACTION_INIT = "\0argparse_init"
# The fields of an argparse action an `__init__` may set on `self` after argparse's has run.
_ACTION_FIELDS = (
    "option_strings",
    "dest",
    "nargs",
    "const",
    "default",
    "type",
    "choices",
    "required",
    "help",
    "metavar",
    "deprecated",
)


def source_init(cls: ClassRef) -> FunctionRef | None:
    """The `__init__` a custom action class of the source (or a base of the source) defines."""
    if is_action_class(cls):
        return None
    for owner in [cls, *(a for a in ancestors(cls) if isinstance(a, ClassRef))]:
        init = owner.module.loader.members(owner.node)[0].get("__init__")
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return FunctionRef(owner.module, init, owner)
        if init is not None:
            return None
    return None


def run_action_init(
    it: Evaluator,
    handle: ParserHandle,
    node: ast.Call,
    label: str,
    flags: list[str],
    ready: dict[str, Any],
    cls: ClassRef,
    init: FunctionRef,
) -> type | None:
    """The action class argparse is handed for a custom action of the source whose `__init__`
    is written in the source: that `__init__` is run by the interpreter, given what argparse
    would give it (the option strings, the dest, the call's keywords), and what it hands
    argparse's `Action.__init__` (`super().__init__(option_strings, dest, nargs=0,
    default=False, **kwargs)`, option strings it adds included) and the fields it sets on
    `self` afterwards are what the stand-in class gives argparse. None (said, and the literal
    defaults of its parameters are taken instead) where it cannot be followed."""
    container = handle.target
    try:
        if flags and flags[0][:1] in container.prefix_chars:
            called = container._get_optional_kwargs(*flags, **ready)
        else:
            called = container._get_positional_kwargs(*flags, **ready)
    except (TypeError, ValueError):
        return None  # argparse says what it thinks of the call when it is replayed
    obj = SourceObject(cls)
    obj.attrs[ACTION_INIT] = None
    reason = "it never calls argparse's `Action.__init__` static reading sees"
    try:
        it.follow(init, [obj], called)
    except CannotEvaluate as exc:
        reason = exc.reason
    except ArgmatrixError as exc:
        if any(problem.fix == FIX for problem in exc.problems):
            raise  # a budget spent: said as it is
        reason = exc.problems[0].message
    captured = obj.attrs.pop(ACTION_INIT, None)
    if captured is None:
        it.report(
            node,
            f"{label}: `{cls.node.name}.__init__` cannot be followed statically ({reason}):"
            " its nargs, default and const are read from the defaults of its parameters",
        )
        return None
    base = argparse_base(cls)
    try:
        bound = inspect.signature(base).bind(*captured[0], **captured[1])
    except TypeError as exc:
        raise argparse_error(it, node, exc) from None
    values = dict(bound.arguments)
    after = {k: v for k, v in obj.attrs.items() if k in _ACTION_FIELDS}
    return _action_class(it, node, label, cls.node.name, base, values, after)


def _action_class(
    it: Evaluator,
    node: ast.Call,
    label: str,
    name: str,
    base: type,
    values: dict[str, Any],
    after: dict[str, Any],
) -> type:
    """A stand-in of the action class that gives argparse's `__init__` these values, then sets
    these fields, whatever argparse hands it."""
    for fields in (values, after):
        for key, value in list(fields.items()):
            if key == "type":
                fields[key] = replay_type(it, node, label, value)
                continue
            value = final_value(value, default=key == "default")
            fields[key] = value
            report_unevaluated(it, node, label, key, value)
    for key, stand_in in (("choices", None), ("nargs", "*")):
        if contains_unevaluated(values.get(key)):  # set afterwards, as `Recording` does
            after.setdefault(key, values[key])
            values[key] = stand_in
    if type(values.get("option_strings")) not in (list, tuple) or not all(
        type(flag) is str for flag in values["option_strings"]
    ):
        raise unreadable(it, node, "the option strings of the action")
    _check_nargs(it, values.get("nargs"))
    names = sum(len(flag) + 4 for flag in values["option_strings"]) + len(recording_of(it).prog)
    check_help({**values, **after}, names, it.budget)

    base_init = cast(Any, base).__init__

    def __init__(self: argparse.Action, **_given: Any) -> None:
        base_init(self, **values)
        for key, value in after.items():
            setattr(self, key, value)

    return type(name, (base,), {"__init__": __init__})


def report_parser_class(it: Evaluator, node: ast.Call, cls: Any) -> None:
    """A parser class of the source whose `__init__` makes parser calls (a `--common` flag on
    every parser it makes): static reading does not run it, and says so."""
    if not isinstance(cls, ClassRef):
        return
    for owner in [cls, *(a for a in ancestors(cls) if isinstance(a, ClassRef))]:
        init = owner.module.loader.members(owner.node)[0].get("__init__")
        if isinstance(init, ast.FunctionDef) and it.calls_parser(init):
            it.report(
                node,
                f"`{cls.node.name}` adds to every parser it makes (in `{owner.node.name}."
                "__init__`), which static reading does not run: what it adds is missing",
                stops=True,
            )
            return


def report_unevaluated(
    it: Evaluator,
    node: ast.AST,
    label: str,
    key: str,
    value: Any,
    outcome: str = "kept as source text",
) -> None:
    found = first_unevaluated(value)
    if found is None:
        return
    reason = f" ({found.reason})" if found.reason else ""
    it.report(node, f"{label}: {key} {outcome}: `{short_source(found.source)}`{reason}")


def report_keyword(it: Evaluator, node: ast.AST, label: str, key: str, value: Any) -> None:
    """A keyword argparse does not know (`env_name=`, `bind_to=`) kept as source text: said once
    for all the arguments it is kept for, for one reason (see `StaticLoader.report_keyword`)."""
    found = first_unevaluated(value)
    if found is None:
        return
    where = it.loader.argument_site or (str(it.module.path), getattr(node, "lineno", None))
    it.loader.report_keyword(
        where[0], where[1], label, key, short_source(found.source), found.reason or ""
    )


def argparse_error(it: Evaluator, node: ast.Call, exc: Exception) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"argparse rejects this call as static reading replays it: {exc}",
        file=str(it.module.path),
        line=node.lineno,
        fix="if the registry works when imported, read it live (registry.mode: live)",
    )


def _label(flags: list[str], kwargs: dict[str, Any]) -> str:
    """How an argument is named in a diagnostic: its first long flag, or its dest."""
    for flag in flags:
        if flag.startswith("--"):
            return flag
    if flags:
        return flags[0]
    dest = kwargs.get("dest")
    return dest if type(dest) is str else "a positional argument"
