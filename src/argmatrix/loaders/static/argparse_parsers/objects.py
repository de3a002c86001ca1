"""Objects of the source's own classes, as far as a parser builder needs them: a project's
`ArgumentParser` subclass and a wrapper around an argument group, run as written.

A registry may build its parser with its own subclass (`EnvArgumentParser`) whose
`add_argument_group` returns a wrapper whose `add_argument` rewrites the keywords (injects a
`metavar`, swallows `env_name=`) and then calls the real group's. Static reading makes such an
object a `SourceObject`: its class, the attributes its methods set, and, for a parser subclass,
the real parser being replayed behind it. A method written in the source is followed as any
function of the source, with the object as `self`; `super()` reaches the next class of the
source, then argparse's own methods on the replayed parser. Objects are made only of a parser
subclass, or of a class given a parser or a group when it is made: any other class of the
source (a configuration object) stays unknown, as before.

The keyword arguments a wrapper's `add_argument` is given beyond argparse's (its keyword-only
parameters and its `**kwargs`, as live reading records them) are kept from the outermost call,
which is also the argument's call site. A parser asked to parse its command line
(`parse_args`, `parse_known_args`, ...) is the registry: the read stops there (`Captured`), as
live reading does; the method is not run (it reads the command line and the environment).
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Callable
from typing import Any

from argmatrix.loaders.convert import ARGPARSE_KEYWORDS
from argmatrix.loaders.static.argparse_parsers.argparse_names import PARSER_METHODS, ArgparseRef
from argmatrix.loaders.static.argparse_parsers.argparse_values import final_value
from argmatrix.loaders.static.argparse_parsers.handles import (
    ActionHandle,
    ArgparseInit,
    ParseMethod,
    ParserHandle,
    ParserMethod,
    parser_of,
)
from argmatrix.loaders.static.argparse_parsers.recording import WrapperCall, recording_of
from argmatrix.loaders.static.argparse_parsers.replay import (
    ACTION_INIT,
    parser_from_keywords,
    report_keyword,
)
from argmatrix.loaders.static.python.calls import lenient_arguments
from argmatrix.loaders.static.python.classes import ancestors, class_attribute
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    BoundMethod,
    CannotEvaluate,
    ClassRef,
    FunctionRef,
    SourceObject,
    SuperOf,
    resolve,
)

PARSE_METHODS = frozenset(
    {"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"}
)
# Containers of an argparse parser a subclass may hand to a wrapper (`self._optionals`).
_CONTAINERS = ("_positionals", "_optionals")


class Captured(BaseException):
    """The registry asked a parser to parse its command line: that parser is the registry. A
    BaseException, so that nothing of the interpreter takes it for a failed statement."""

    def __init__(self, handle: ParserHandle) -> None:
        super().__init__()
        self.handle = handle


_KNOWN_ONLY = ("parse_known_args", "parse_known_intermixed_args")


def _whole_parser(it: Evaluator, parsing: ParseMethod, node: ast.Call) -> ParserHandle:
    """The parser of the command line, where the code parses: a pre-parser (`parse_known_args`
    on a parser without `--help`, with another parse after it in the same block) is merged into
    the parser of that later parse when that one is built already, and stopped at otherwise;
    as live reading does."""
    handle = parsing.handle
    pre = handle.target
    if parsing.name not in _KNOWN_ONLY or not isinstance(pre, argparse.ArgumentParser):
        return handle
    later = _later_parse(it.module.tree, node) if not pre.add_help else None
    if later is None:
        return handle
    whole = resolve(it.try_eval(later)) if isinstance(later, ast.Name) else None
    if type(whole) is ParserHandle and isinstance(whole.target, argparse.ArgumentParser):
        if whole.target is not pre:
            known = set(whole.target._option_string_actions)
            for action in pre._actions:
                if action.option_strings and not known.intersection(action.option_strings):
                    whole.target._add_action(action)
            return whole
        return handle
    flags = ", ".join(a.option_strings[0] for a in pre._actions if a.option_strings) or "none"
    it.report(
        node,
        f"`{it.quoted(node)}` parses a pre-parser ({flags}) with parse_known_args and the parser"
        " of the rest of the command line is built after it, when it runs: static reading stops"
        " at the pre-parse",
        stops=True,
    )
    return handle


def _later_parse(tree: ast.Module | None, node: ast.Call) -> ast.expr | None:
    """What the next parse written after `node`, in the block of statements holding it, is
    called on (`parser` of `parser.parse_args(rest)`); None where none follows."""
    body = _block_of(tree, node) if tree is not None else None
    for statement in body or ():
        if statement.lineno <= node.lineno:
            continue
        for inner in ast.walk(statement):
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr in PARSE_METHODS
            ):
                return inner.func.value
    return None


def _block_of(tree: ast.AST, node: ast.Call) -> list[ast.stmt] | None:
    """The innermost list of statements holding `node` (a function's body, an `if`'s)."""
    found: list[ast.stmt] | None = None
    for parent in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(parent, name, None)
            if not isinstance(body, list):
                continue
            for statement in body:
                if (
                    isinstance(statement, ast.stmt)
                    and statement.lineno <= node.lineno <= (statement.end_lineno or 0)
                    and (found is None or statement.lineno >= found[0].lineno)
                    and not isinstance(statement, (ast.If, ast.FunctionDef, ast.With, ast.Try))
                ):
                    found = body
    return found


# ------------------------------------------------------------------ which classes make objects


def _source_lineage(cls: ClassRef) -> list[ClassRef]:
    """The class and its ancestors read from source, nearest first."""
    return [cls, *(a for a in ancestors(cls) if isinstance(a, ClassRef))]


def _derives_from_parser(cls: ClassRef) -> bool:
    return any(isinstance(b, ArgparseRef) and b.name == "ArgumentParser" for b in ancestors(cls))


def writes_methods(cls: ClassRef) -> bool:
    """A parser subclass whose own source defines methods (beyond argparse's): followed as an
    object. One that defines none is argparse's parser (see `replay.new_parser`)."""
    for owner in _source_lineage(cls):
        members = owner.module.loader.members(owner.node)[0]
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in members.values()):
            return True
    return False


def new_object(
    it: Evaluator, cls: ClassRef, node: ast.Call, args: list[Any], kwargs: dict[str, Any]
) -> SourceObject:
    """`Cls(...)`: an object whose `__init__` (the first the source defines) is followed; a
    parser subclass whose `__init__` never reached argparse's gets its parser from the call."""
    obj = SourceObject(cls)
    it.budget.visit(10)
    init = _method(cls, "__init__")
    if init is not None:
        it.follow(init, [obj, *args], kwargs)
    if obj.parser is None and _derives_from_parser(cls):
        make_parser(it, obj, node, kwargs)
    return obj


def make_parser(it: Evaluator, obj: SourceObject, node: ast.Call, kwargs: dict[str, Any]) -> None:
    obj.parser = parser_from_keywords(it, node, kwargs)


def _method(cls: ClassRef, name: str, after: ClassRef | None = None) -> FunctionRef | None:
    """The method `name` the source defines for `cls` (after `after` in its lineage, for
    `super()`); None where argparse's own (or nobody's) would be used."""
    lineage = _source_lineage(cls)
    if after is not None:
        lineage = lineage[lineage.index(after) + 1 :] if after in lineage else []
    for owner in lineage:
        member = owner.module.loader.members(owner.node)[0].get(name)
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return FunctionRef(owner.module, member, owner)
        if member is not None:
            return None
    return None


# ------------------------------------------------------------------ attributes


def attribute(it: Evaluator, obj: SourceObject, attr: str) -> Any:
    if attr in obj.attrs:
        return obj.attrs[attr]
    parser = parser_of(obj)
    if attr in PARSE_METHODS and parser is not None:
        # the parser is taken where it would parse: a `parse_args` the project overrides (to
        # rewrite the command line first) is not followed, as live reading does not run it
        return ParseMethod(parser, attr)
    method = _method(obj.cls, attr)
    if method is not None:
        return _bound(method, obj)
    try:
        return class_attribute(obj.cls, attr)
    except CannotEvaluate:
        pass
    parser = parser_of(obj)  # read again: what ran since may have made it
    if parser is not None:
        return parser_attribute(parser, attr)
    getattr_ = _method(obj.cls, "__getattr__")
    if getattr_ is not None:
        return it.follow(getattr_, [obj, attr], {})
    raise CannotEvaluate(f"`{obj.cls.node.name}` objects have no `{attr}` static reading follows")


def _bound(method: FunctionRef, obj: SourceObject) -> Any:
    names = {getattr(d, "id", getattr(d, "attr", "")) for d in method.node.decorator_list}
    if "staticmethod" in names:
        return FunctionRef(method.module, method.node, None, method.enclosing)
    if "classmethod" in names or "property" in names:
        raise CannotEvaluate(f"`{method.node.name}` is a {'/'.join(sorted(names))} method")
    return BoundMethod(method, obj)


def reads_as_modelled(handle: ParserHandle, attr: str) -> bool:
    """Whether reading `attr` of a parser or group gives what `parser_attribute` models: a
    public name, or one of argparse's own that static reading follows."""
    if not attr.startswith("_"):
        return True
    if attr in _CONTAINERS and isinstance(handle.target, argparse.ArgumentParser):
        return True
    return attr == "_group_actions" and isinstance(handle.target, argparse._ArgumentGroup)


def parser_attribute(handle: ParserHandle, attr: str) -> Any:
    """What the registry may take from a parser being replayed: its methods of parser calls,
    its parse methods (which capture it), the containers a wrapper is given."""
    if attr in PARSER_METHODS and hasattr(handle.target, attr):
        return ParserMethod(handle, attr)
    if attr in PARSE_METHODS and isinstance(handle.target, argparse.ArgumentParser):
        return ParseMethod(handle, attr)
    if attr in _CONTAINERS and isinstance(handle.target, argparse.ArgumentParser):
        return ParserHandle(getattr(handle.target, attr))
    if attr == "_group_actions" and isinstance(handle.target, argparse._ArgumentGroup):
        return GroupActions(handle)
    raise CannotEvaluate(f"`{attr}` of a parser is not read statically")


# ------------------------------------------------------------------ a group's list of actions


class GroupActions:
    """`group._group_actions`, argparse's list of the actions a group lists in help. A registry
    appends an action added through another group to it (lmdeploy lists its engine arguments
    under both engines' titles); the first group that lists an action stays its section. Only
    `append` of an action is followed; anything else done to the list is said (the section an
    argument is listed under may then differ from live reading's), as the list is not read."""

    __slots__ = ("handle",)

    def __init__(self, handle: ParserHandle) -> None:
        self.handle = handle


class GroupAppend:
    """`group._group_actions.append`, replayed on the group when called."""

    __slots__ = ("handle",)

    def __init__(self, handle: ParserHandle) -> None:
        self.handle = handle


# What calling each of these means (see `call`).
CALLED = frozenset({BoundMethod, ParseMethod, ArgparseInit, GroupAppend})


def group_actions_attribute(it: Evaluator, base: GroupActions, node: ast.Attribute) -> Any:
    if node.attr == "append":
        return GroupAppend(base.handle)
    raise _not_followed(it, node, f"`{node.attr}` of it is not")


def _not_followed(it: Evaluator, node: ast.expr, what: str) -> CannotEvaluate:
    reason = (
        f"argparse's private list of a group's actions is followed only to append an"
        f" argument to it; {what}"
    )
    it.report(
        node,
        f"`{it.quoted(node)}` is not followed statically ({reason}): the section an argument"
        " is listed under may differ",
    )
    return CannotEvaluate(reason)


def _group_append(it: Evaluator, function: GroupAppend, node: ast.Call) -> None:
    args, kwargs = lenient_arguments(it, node)
    action = resolve(args[0]) if len(args) == 1 and not kwargs else None
    if type(action) is not ActionHandle:
        raise _not_followed(it, node, "what is appended is no argument static reading made")
    it.budget.visit(1)
    function.handle.target._group_actions.append(action.target)


def super_attribute(
    it: Evaluator, base: SuperOf, attr: str, other_init: Callable[[SourceObject], Any]
) -> Any:
    """`super().attr` in a method of the source. `other_init`: the `__init__` another framework's
    class has when the object derives from one (Click's, Typer's), or None: argparse's."""
    method = _method(base.receiver.cls, attr, after=base.owner)
    if method is not None:
        return _bound(method, base.receiver)
    if attr == "__init__":
        found = other_init(base.receiver)
        return ArgparseInit(base.receiver) if found is None else found
    parser = parser_of(base.receiver)
    if parser is None:
        raise CannotEvaluate(f"`super().{attr}` of an object that is no parser yet")
    return parser_attribute(parser, attr)


def set_attribute(obj: SourceObject, attr: str, value: Any) -> None:
    obj.attrs[attr] = value


# ------------------------------------------------------------------ calls


def call(it: Evaluator, function: Any, node: ast.Call) -> Any:
    kind = type(function)
    if kind is ParseMethod:
        raise Captured(_whole_parser(it, function, node))
    if kind is GroupAppend:
        _group_append(it, function, node)
        return None
    args, kwargs = lenient_arguments(it, node)
    if kind is ArgparseInit:
        if ACTION_INIT in function.receiver.attrs:  # an argument being made: what it is given
            function.receiver.attrs[ACTION_INIT] = (args, kwargs)
            return None
        make_parser(it, function.receiver, node, kwargs)
        return None
    assert kind is BoundMethod
    if function.function.node.name != "add_argument":
        return it.follow(function.function, [function.receiver, *args], kwargs)
    calls = recording_of(it).wrapper_calls
    calls.append(_wrapper_call(it, function.function.node, node, kwargs))
    try:
        return it.follow(function.function, [function.receiver, *args], kwargs)
    finally:
        calls.pop()


def _wrapper_call(
    it: Evaluator,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    node: ast.Call,
    kwargs: dict[str, Any],
) -> WrapperCall:
    """The keywords an `add_argument` of the source takes beyond argparse's, as live reading
    records them: its keyword-only parameters given a value other than None, and what lands in
    its `**kwargs`. Positional parameters are the flags, never keywords."""
    named = {a.arg for a in [*method.args.posonlyargs, *method.args.args]}
    keyword_only = {a.arg for a in method.args.kwonlyargs}
    extra: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in ARGPARSE_KEYWORDS or key in named:
            continue
        if key in keyword_only or method.args.kwarg is not None:
            value = final_value(value)
            if value is None and key in keyword_only:
                continue
            extra[key] = value
    label = next((a for a in _flags(node) if a.startswith("--")), "an argument")
    for key, value in extra.items():
        report_keyword(it, node, label, key, value)
    return WrapperCall(str(it.module.path), node.lineno, it.function_start, extra)


def _flags(node: ast.Call) -> list[str]:
    return [a.value for a in node.args if isinstance(a, ast.Constant) and type(a.value) is str]
