"""The statements static reading runs: one function per kind of statement, each given the
interpreter it runs in (`EXECUTORS` maps a node type to its function).

Where the reader cannot decide a condition or follow a loop it reads the branches or the body
once, and says so if parser calls were made there; a name the two branches of such a condition
set differently is unknown after it. Inside a module's top level (`strict`), it does not guess at
all: the name being followed becomes unknown instead.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.python.budget import FIX
from argmatrix.loaders.static.python.calls import reaches_parser
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    PLAIN_TYPES,
    CannotEvaluate,
    FunctionRef,
    ReaderValue,
    SourceObject,
    hashable,
    is_plain,
    iterate,
    resolve,
    truth,
)
from argmatrix.model.registry import Unevaluated

# The kinds of value a loop may go over that say where a field is declared (`.site`): those of
# the declared fields' reader (`dataclasses.fields()` gives them), which registers them.
DECLARED_ITEMS: set[type] = set()


class FunctionReturn(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class LoopBreak(Exception):
    pass


class LoopContinue(Exception):
    pass


_MISSING: Any = object()


def exec_expr(it: Evaluator, node: ast.Expr) -> None:
    it.statement_value(node.value)


def exec_assign(it: Evaluator, node: ast.Assign) -> None:
    value = it.statement_value(node.value)
    for target in node.targets:
        bind(it, target, value)


def exec_ann_assign(it: Evaluator, node: ast.AnnAssign) -> None:
    if node.value is not None:
        bind(it, node.target, it.statement_value(node.value))


def exec_aug_assign(it: Evaluator, node: ast.AugAssign) -> None:
    target = node.target
    try:
        if isinstance(target, ast.Name):
            current = it.eval(target)
            it.scope[target.id] = in_place(it, node, current, it.eval(node.value))
        elif isinstance(target, ast.Subscript):
            container = resolve(it.eval(target.value))
            key = it.eval(target.slice)
            if type(container) not in (list, dict):
                raise CannotEvaluate(f"`{it.quoted(target.value)}` cannot be changed here")
            hashable([key])
            container[key] = in_place(it, node, container[key], it.eval(node.value))
        else:
            bind(it, target, None)  # an attribute: see bind
    except CannotEvaluate as exc:
        if it.strict:
            raise
        if isinstance(target, ast.Name):
            it.scope[target.id] = Unevaluated(it.module.segment(node), exc.reason)


def in_place(it: Evaluator, node: ast.AugAssign, current: Any, value: Any) -> Any:
    """`x += y`: lists, sets and dicts change in place (other names for them see it)."""
    current, value = resolve(current), resolve(value)
    op, kind = type(node.op), type(current)
    if kind is list and op is ast.Add:
        items = iterate(value, it.budget)
        it.budget.size(len(current) + len(items), "a list", added=len(items))
        current.extend(items)
        return current
    if kind in (set, dict) and op is ast.BitOr and type(value) is kind:
        it.budget.size(len(current) + len(value), f"a {kind.__name__}", added=len(value))
        current.update(value)
        return current
    return it.binary_op(node.op, current, value)


def exec_return(it: Evaluator, node: ast.Return) -> None:
    raise FunctionReturn(it.statement_value(node.value) if node.value else None)


def exec_if(it: Evaluator, node: ast.If) -> None:
    try:
        test = truth(it.known(node.test))
    except CannotEvaluate as exc:
        if it.strict:
            raise CannotEvaluate(
                f"the condition at line {node.lineno} cannot be decided ({exc.reason})"
            ) from None
        undecided_if(it, node, exc.reason)
        return
    it.exec_block(node.body if test else node.orelse)


def undecided_if(it: Evaluator, node: ast.If, reason: str) -> None:
    """Both branches may add arguments: read both, in source order. Where both add the same
    flag (a platform-dependent default), the first one stands. A name the branches set to
    different values is unknown after the `if`."""
    recording = it.loader.recording  # the parser calls replayed, logged to compare branches
    it.budget.visit(3 * len(it.scope))  # two copies of the scope and a look at each name
    before = dict(it.scope)
    containers = {n: v for n, v in before.items() if type(v) in _CHANGED_IN_PLACE}
    it.budget.visit(sum(len(v) for v in containers.values()))
    copies = {name: type(value)(value) for name, value in containers.items()}
    recording.logging += 1
    start = len(recording.log)
    try:
        interrupted = branch(it, node.body)
        middle = len(recording.log)
        first = dict(it.scope)
        it.scope.clear()
        it.scope.update(before)
        it.alternatives += 1
        try:
            interrupted = branch(it, node.orelse) or interrupted
        finally:
            it.alternatives -= 1
    finally:
        recording.logging -= 1
    calls = recording.log[start:middle], recording.log[middle:]
    if not recording.logging:
        del recording.log[start:]
    second = dict(it.scope)
    why = (
        f"set differently by the branches of the condition at line {node.lineno}, which"
        " static reading cannot decide"
    )
    for name in [*first, *(n for n in second if n not in first)]:
        a, b = first.get(name, _MISSING), second.get(name, _MISSING)
        it.scope[name] = a if _same(a, b) else Unevaluated(name, why)
    for name, copy in copies.items():  # `choices.add(x)` in a branch: changed or not
        value = it.scope.get(name)
        if value is not containers[name] or (len(value) == len(copy) and value == copy):
            continue
        changed = f"changed in place {why[4:]}"
        if type(value) is dict:  # `kwargs["choices"] = x` in a branch: that key is unknown
            for key in [k for k in value if k not in copy or value[k] is not copy[k]]:
                if type(value[key]) is not Unevaluated:
                    value[key] = Unevaluated(f"{name}[{key!r}]", changed)
        else:
            it.scope[name] = Unevaluated(name, changed)
    condition = it.quoted(node.test)
    if calls[0] != calls[1]:
        it.report(
            node,
            f"the condition `{condition}` cannot be decided statically"
            f" ({reason}): the arguments of both branches are read",
        )
    if interrupted:
        it.report(
            node,
            f"a branch of the condition `{condition}` {interrupted}; static"
            " reading cannot decide it and goes on past it",
        )


_CHANGED_IN_PLACE = (list, dict, set)


def branch(it: Evaluator, body: list[ast.stmt]) -> str:
    """Run one branch of an undecided `if`; what ended it early, if something did."""
    try:
        it.exec_block(body)
    except FunctionReturn:
        return "returns"
    except (LoopBreak, LoopContinue):
        return "leaves the loop"
    return ""


def exec_for(it: Evaluator, node: ast.For | ast.AsyncFor) -> None:
    try:
        items = iterate(it.eval(node.iter), it.budget)
    except CannotEvaluate as exc:
        if it.strict:
            raise
        bind(it, node.target, Unevaluated(it.module.segment(node.target), exc.reason))
        once(it, node, f"the loop over `{it.quoted(node.iter)}`", exc.reason)
        return
    loader = it.loader
    outer = loader.declaring
    try:
        for item in items:
            bind(it, node.target, item)
            if type(item) in DECLARED_ITEMS:  # a loop over declared fields: the arguments it
                loader.declaring = item.site  # adds are sectioned where each field is declared
            if not loop_body(it, node.body):
                break
        else:
            it.exec_block(node.orelse)
    finally:
        loader.declaring = outer


def exec_while(it: Evaluator, node: ast.While) -> None:
    while True:
        try:
            test = truth(it.known(node.test))
        except CannotEvaluate as exc:
            if it.strict:
                raise
            once(it, node, f"the loop `while {it.quoted(node.test)}`", exc.reason)
            return
        if not test:
            it.exec_block(node.orelse)
            return
        if not loop_body(it, node.body):
            return


def once(it: Evaluator, node: ast.For | ast.AsyncFor | ast.While, what: str, reason: str) -> None:
    """A loop static reading cannot follow: its body is read once, and that is said if the
    body replays parser calls."""
    calls = it.loader.recording.calls
    try:
        loop_body(it, node.body)
    except ArgmatrixError as exc:
        if any(problem.fix == FIX for problem in exc.problems):
            raise  # a budget spent: said as it is
        raise ArgmatrixError.at(
            f"{what} cannot be followed statically ({reason}), and the arguments its body adds"
            f" cannot be read without it ({exc.problems[0].message})",
            file=str(it.module.path),
            line=node.lineno,
            fix="declare the arguments in source static reading can follow, or load the"
            " registry live (registry.mode: live)",
        ) from None
    if it.loader.recording.calls > calls:
        it.report(node, f"{what} cannot be followed statically ({reason}): its body was read once")


def loop_body(it: Evaluator, body: list[ast.stmt]) -> bool:
    """Run one pass of a loop body; False when it breaks out of the loop."""
    try:
        it.exec_block(body)
    except LoopBreak:
        return False
    except LoopContinue:
        pass
    return True


def exec_with(it: Evaluator, node: ast.With | ast.AsyncWith) -> None:
    it.exec_block(node.body)


def exec_try(it: Evaluator, node: ast.Try) -> None:
    it.exec_block(node.body)
    it.exec_block(node.orelse)
    it.exec_block(node.finalbody)


def exec_def(it: Evaluator, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    function: Any = FunctionRef(it.module, node, it.owner, (it.scope, *it.enclosing))
    if node.decorator_list and it.loader.framework_calls:
        # a read of a Click command: a decorator of the project's own may apply Click's to a
        # function it defines (`@click.option(...)`, `@functools.wraps(f)` on its wrapper)
        for decorator in reversed(node.decorator_list):
            function = it.call_value(it.eval(decorator), [function])
    it.scope[node.name] = function


def exec_import(it: Evaluator, node: ast.Import | ast.ImportFrom) -> None:
    """An import inside the builder binds names as a module-level one would."""
    loader = it.loader
    if isinstance(node, ast.Import):
        for alias in node.names:
            top = alias.name if alias.asname else alias.name.split(".", 1)[0]
            it.scope[alias.asname or top] = loader.imported(top, None, it.module.path.parent)
        return
    base = it.module.absolute(node.module, node.level)
    for alias in node.names:
        if alias.name != "*":
            it.scope[alias.asname or alias.name] = loader.imported(
                base, alias.name, it.module.path.parent
            )


def exec_break(it: Evaluator, node: ast.Break) -> None:
    raise LoopBreak


def exec_continue(it: Evaluator, node: ast.Continue) -> None:
    raise LoopContinue


def exec_delete(it: Evaluator, node: ast.Delete) -> None:
    for target in node.targets:
        if isinstance(target, ast.Name):
            it.scope.pop(target.id, None)
        elif it.strict:
            raise CannotEvaluate(f"`del` at line {node.lineno} is not followed")


def exec_pass(it: Evaluator, node: ast.stmt) -> None:
    return None


def exec_other(it: Evaluator, node: ast.stmt) -> None:
    """A statement static reading does not run (`match`, a class inside a function...)."""
    if it.strict:
        raise CannotEvaluate(
            f"a `{type(node).__name__}` statement at line {node.lineno} is not followed"
        )
    if it.calls_parser(node):
        it.report(
            node,
            f"this `{type(node).__name__}` statement is not read statically:"
            " the arguments it adds are missing",
            stops=True,
        )


def bind_starred(it: Evaluator, targets: list[ast.expr], values: list[Any], star: int) -> None:
    """`first, *rest = values`: the starred name takes what the others leave, as a list."""
    after = len(targets) - star - 1
    middle = values[star : len(values) - after]
    for index, element in enumerate(targets):
        if index < star:
            bind(it, element, values[index])
        elif index > star:
            bind(it, element, values[len(values) - (len(targets) - index)])
        else:
            assert isinstance(element, ast.Starred)
            bind(it, element.value, list(middle))


def bind(it: Evaluator, target: ast.expr, value: Any) -> None:
    if isinstance(target, ast.Name):
        it.scope[target.id] = value
    elif isinstance(target, ast.Subscript):  # kw["default"] = 5
        bind_item(it, target, value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        value = resolve(value)
        values = list(value) if type(value) in (list, tuple) else None
        starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
        if len(starred) == 1 and values is not None and len(values) >= len(target.elts) - 1:
            bind_starred(it, target.elts, values, starred[0])
            return
        if it.strict and (values is None or len(values) != len(target.elts)):
            raise CannotEvaluate(f"cannot unpack `{it.quoted(target)}` statically")
        for index, element in enumerate(target.elts):
            if values is not None and index < len(values):
                bind(it, element, values[index])
            else:
                reason = getattr(value, "reason", "") or "cannot be unpacked statically"
                bind(it, element, Unevaluated(it.module.segment(element), reason))
    elif isinstance(target, ast.Attribute):
        bind_attribute(it, target, value)
    elif it.strict:
        raise CannotEvaluate(f"cannot assign to `{it.quoted(target)}` statically")


def bind_item(it: Evaluator, target: ast.Subscript, value: Any) -> None:
    try:
        container, key = resolve(it.eval(target.value)), it.eval(target.slice)
    except CannotEvaluate:
        if it.strict:
            raise
        return
    if type(container) is dict:
        hashable([key])
        if key not in container:
            it.budget.size(len(container) + 1, "a dict", added=1)
        container[key] = value
    elif type(container) is list and type(key) in (int, bool):
        container[key] = value
    elif it.strict:
        raise CannotEvaluate(f"`{it.quoted(target)}` cannot be assigned statically")


def bind_attribute(it: Evaluator, target: ast.Attribute, value: Any = None) -> None:
    try:
        base = it.eval(target.value)
    except CannotEvaluate:
        if it.strict:
            raise
        base = None
    if type(base) is SourceObject:  # `self._group = group` in a method of the source
        base.attrs[target.attr] = value
        return
    if it.strict:
        raise CannotEvaluate(
            f"`{it.quoted(target)}` is assigned; static reading does not follow attributes"
        )
    owned = isinstance(base, ReaderValue) and base.takes_attributes
    if not owned and reaches_parser(value):
        # `holder.p = parser` on an object static reading does not follow: whatever is
        # handed the object later reaches the parser unseen
        it.report(
            target,
            f"`{it.quoted(target)}` keeps a parser in an object static reading does not"
            " follow: what is added to it through that object is missing",
            stops=True,
        )
        return
    if base is None:
        return
    if isinstance(base, ReaderValue) and base.changed_by(target.attr):
        # the argument as read would be wrong, not merely incomplete: the read stops here
        it.report(
            target,
            f"`{it.quoted(target)}` changes an argument or parser after it was made, which"
            " static reading does not follow: what it changes is missing",
            stops=True,
        )


def _same(a: Any, b: Any) -> bool:
    """The same value after both branches of an undecided `if`."""
    if a is b:
        return True
    return type(a) is type(b) and type(a) in PLAIN_TYPES and is_plain(a) and is_plain(b) and a == b


EXECUTORS: dict[type, Callable[[Evaluator, Any], None]] = {
    ast.Expr: exec_expr,
    ast.Assign: exec_assign,
    ast.AnnAssign: exec_ann_assign,
    ast.AugAssign: exec_aug_assign,
    ast.Return: exec_return,
    ast.If: exec_if,
    ast.For: exec_for,
    ast.AsyncFor: exec_for,
    ast.While: exec_while,
    ast.With: exec_with,
    ast.AsyncWith: exec_with,
    ast.Try: exec_try,
    ast.FunctionDef: exec_def,
    ast.AsyncFunctionDef: exec_def,
    ast.Import: exec_import,
    ast.ImportFrom: exec_import,
    ast.Break: exec_break,
    ast.Continue: exec_continue,
    ast.Delete: exec_delete,
    ast.Pass: exec_pass,
    ast.Global: exec_pass,
    ast.Nonlocal: exec_pass,
}
