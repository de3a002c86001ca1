"""The interpreter of static reading: expressions over the syntax tree, on the value model of
`values`, within the budget of the read. Statements are run by the functions of `statements`,
calls (their arguments, builtins, lambdas, helper functions) by those of `calls`.

`PythonInterpreter` knows Python only. What a framework makes of a value (a parser call replayed,
a Click decorator applied, a dataclass field) is asked of its hooks (`framework_call`,
`reader_call`, `reader_attribute`, `attribute`, `union`, `subscript_form`,
`framework_call_value`), which know nothing of a framework here: the read's interpreter
(`loaders/static/interpreter.py`) overrides them to hand the value to its reader, so this package
imports no reader."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.python import calls, environment
from argmatrix.loaders.static.python.budget import FIX, BudgetExceeded
from argmatrix.loaders.static.python.builtins import BUILTIN_TYPES, LIBRARY_FUNCTIONS
from argmatrix.loaders.static.python.classes import ancestors, class_attribute, runs_body
from argmatrix.loaders.static.python.context import ModuleContext, ReadContext
from argmatrix.loaders.static.python.formatting import format_value
from argmatrix.loaders.static.python.ops import binary, compare, method, unary, unbound_method
from argmatrix.loaders.static.python.statements import (
    EXECUTORS,
    FunctionReturn,
    LoopBreak,
    LoopContinue,
    bind,
    exec_other,
)
from argmatrix.loaders.static.python.syntax import calls_parser, function_start
from argmatrix.loaders.static.python.values import (
    KNOWN_FUNCTIONS,
    PLAIN_TYPES,
    SIZED,
    UNDECIDABLE,
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    Deferred,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    MethodRef,
    ModuleRef,
    ReaderRef,
    SourceObject,
    SuperOf,
    SuperRef,
    describe,
    hashable,
    iterate,
    plain_function,
    resolve,
    settle,
    short_source,
    truth,
)
from argmatrix.model.registry import FromEnvironment, Unevaluated

# What a hook answers when the value is none of its reader's.
UNHANDLED: Any = object()


class PythonInterpreter:
    """Evaluates expressions and runs a builder function's statements over its AST.

    `strict`: following a module's top level, where anything not followed exactly makes the
    name being read unknown (a condition it cannot decide is an error, not two branches).
    `as_of`: the line of the top-level statement being followed, for reads of names the module
    changes again later."""

    def __init__(
        self,
        module: ModuleContext,
        scope: dict[str, Any],
        function_start: int = 0,
        depth: int = 0,
        owner: ClassRef | None = None,
        as_of: int | None = None,
        strict: bool = False,
        enclosing: tuple[dict[str, Any], ...] = (),
    ) -> None:
        self.module = module
        self.loader: ReadContext = module.loader
        self.budget = self.loader.budget
        self.scope = scope
        self.function_start = function_start
        self.depth = depth
        self.owner = owner
        self.as_of = as_of
        self.strict = strict
        self.enclosing = enclosing  # scopes of the functions this one is defined in
        self.alternatives = 0  # inside the second branch of an `if` static reading cannot decide
        self.receiver: SourceObject | None = None  # `self` of a method run on an object

    # -------------------------------------------------------------- reporting

    def report(self, node: ast.AST, message: str, stops: bool = False) -> None:
        """Say what static reading could not follow, at `node`; `stops`: a parser call was
        missed, so the read holds part of the registry and stops (`reader.stop_if_incomplete`)."""
        where = self.loader.argument_site  # an argument added through a wrapper: its call
        if where is not None:
            self.loader.report(where[0], where[1], message, stops)
            return
        self.loader.report(str(self.module.path), getattr(node, "lineno", None), message, stops)

    def calls_parser(self, node: ast.AST) -> bool:
        return self.loader.walked(node, calls_parser)

    def quoted(self, node: ast.AST) -> str:
        return short_source(self.module.segment(node))

    def stopped(self, exc: BudgetExceeded, node: ast.AST) -> ArgmatrixError:
        return ArgmatrixError.at(
            exc.message, file=str(self.module.path), line=getattr(node, "lineno", None), fix=FIX
        )

    # -------------------------------------------------------------- statements

    def run(self, body: list[ast.stmt]) -> Any:
        try:
            self.exec_block(body)
        except FunctionReturn as result:
            return result.value
        return None

    def exec_block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.exec(statement)

    def exec(self, node: ast.stmt) -> None:
        try:
            self.budget.step()
            EXECUTORS.get(type(node), exec_other)(self, node)
        except (FunctionReturn, LoopBreak, LoopContinue, ArgmatrixError):
            raise
        except BudgetExceeded as exc:
            raise self.stopped(exc, node) from None
        except RecursionError:
            raise self.stopped(
                BudgetExceeded("the nesting budget", "Python's own stack"), node
            ) from None
        except CannotEvaluate as exc:
            self.not_run(node, exc.reason)
        except Exception as exc:  # an operation on plain values failed: only running would tell
            self.not_run(node, f"running it raises {type(exc).__name__}")

    def not_run(self, node: ast.stmt, reason: str) -> None:
        """A statement that could not be run: at a module's top level the name followed is then
        unknown; in a function the reading goes on, and says so if parser calls were missed."""
        if self.strict:
            raise CannotEvaluate(reason)
        if self.calls_parser(node):
            self.report(
                node,
                f"this statement could not be followed statically ({reason}):"
                " what it adds is missing",
                stops=True,
            )

    # -------------------------------------------------------------- expressions

    def statement_value(self, node: ast.expr) -> Any:
        """A statement's expression; what cannot be computed is kept as its source text, and
        a parser call that could not be replayed is reported."""
        try:
            return self.eval(node)
        except CannotEvaluate as exc:
            if self.strict:
                raise
            if self.calls_parser(node):
                self.report(
                    node,
                    f"`{self.quoted(node)}` could not be replayed statically"
                    f" ({exc.reason}): what it adds is missing",
                    stops=True,
                )
            self._note_unfollowed(node, exc.reason)
            return Unevaluated(self.module.segment(node), exc.reason)

    def _note_unfollowed(self, node: ast.expr, reason: str) -> None:
        """The first statement of the target function's own body not followed: where a read
        finding no parser says it stopped."""
        loader = self.loader
        if loader.unfollowed is not None or loader.target_function is None:
            return
        path, function = loader.target_function
        if (
            self.depth == 0
            and str(self.module.path) == path
            and function.lineno < node.lineno <= (function.end_lineno or 0)
        ):
            loader.unfollowed = (node.lineno, self.module.segment(node), reason)

    def try_eval(self, node: ast.expr) -> Any:
        try:
            return self.eval(node)
        except CannotEvaluate as exc:
            return Unevaluated(self.module.segment(node), exc.reason)

    def eval(self, node: ast.expr) -> Any:
        loader = self.loader
        loader.nesting += 1
        try:
            self.budget.step()
            if loader.nesting > self.budget.limits.nesting:
                self.budget.nesting(loader.nesting)
            handler = _EVALUATORS.get(type(node))
            if handler is None:
                raise CannotEvaluate(f"a {type(node).__name__} is not evaluated statically")
            return handler(self, node)
        except (CannotEvaluate, ArgmatrixError):
            raise
        except BudgetExceeded as exc:
            raise self.stopped(exc, node) from None
        except RecursionError:
            raise self.stopped(
                BudgetExceeded("the nesting budget", "Python's own stack"), node
            ) from None
        except Exception as exc:  # an operation on plain values failed: only running would tell
            raise CannotEvaluate(f"evaluating it raises {type(exc).__name__}") from None
        finally:
            loader.nesting -= 1

    def known(self, node: ast.expr) -> Any:
        """A value whose truth or comparison static reading may decide: not a reference to
        something outside the code read (`sys.platform`, an imported class)."""
        value = self.checked(resolve(self.eval(node)))
        if type(value) is FromEnvironment:
            raise CannotEvaluate(f"{describe(value)} depends on the running program")
        return value

    def checked(self, value: Any) -> Any:
        """`value` if static reading may decide its truth or compare it (see `known`), or a
        default read from the environment (whose truth only `or` may use)."""
        if (type(value) is ExternalRef and value.dotted in KNOWN_FUNCTIONS) or plain_function(
            value
        ):
            return value
        if type(value) is FromEnvironment:
            return value
        if isinstance(value, UNDECIDABLE) or type(value) is Unevaluated:
            raise CannotEvaluate(f"{describe(value)} depends on the running program")
        return value

    def eval_Constant(self, node: ast.Constant) -> Any:
        value = node.value
        if type(value) is int and value.bit_length() > 64:
            self.budget.int_bits(value.bit_length())
        return value

    def eval_Name(self, node: ast.Name) -> Any:
        if node.id in self.scope:
            value = self.scope[node.id]
            if type(value) is Unevaluated:
                raise CannotEvaluate(value.reason or f"`{node.id}` is not known statically")
            return value
        for outer in self.enclosing:
            if node.id in outer:
                value = outer[node.id]
                if type(value) is Unevaluated:
                    raise CannotEvaluate(value.reason or f"`{node.id}` is not known statically")
                return value
        return self.module.global_value(node.id, self.as_of)

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        if type(base) in self.node_attribute_kinds:
            found = self.reader_attribute(base, node)
            if found is not UNHANDLED:
                return found
        return self.attribute(base, node.attr)

    def attribute(self, base: Any, attr: str) -> Any:
        """`base.attr` by the kind of value: a method of plain data, a name of a module of the
        source (read when asked), a member of a class of the source or of an enum, a method of
        a builtin type. Any other attribute is not known (`CannotEvaluate`): never the
        attribute of a real object. The read's interpreter adds the readers' kinds."""
        base = resolve(base)
        kind = type(base)
        if kind in PLAIN_TYPES:
            return method(base, attr)
        if kind is ModuleRef:
            return self.loader.imported(base.name, attr)
        if kind is ClassRef:
            return class_attribute(base, attr)
        if kind is SuperRef:
            for ancestor in ancestors(base.owner):
                if isinstance(ancestor, ClassRef):
                    try:
                        return class_attribute(ancestor, attr)
                    except CannotEvaluate:
                        continue
            raise CannotEvaluate(f"no base class defines `{attr}` in the source read")
        if kind is EnumMember and attr in ("name", "value"):
            return getattr(base, attr)
        if kind is BuiltinRef and base.name in BUILTIN_TYPES:
            return unbound_method(BUILTIN_TYPES[base.name], attr)
        raise CannotEvaluate(f"{describe(base)} has no attribute `{attr}` static reading follows")

    # -------------------------------------------------------------- the readers' hooks
    # Each hook is asked only for the kinds of value its reader declares (the sets below) or, for
    # the framework hooks, in a framework read (`ReadContext.framework_calls`): a hook costs a call
    # on every expression of its kind, and the evaluator runs hundreds of thousands of them.

    node_attribute_kinds: frozenset[type] = frozenset()  # asked of `reader_attribute`
    call_kinds: frozenset[type] = frozenset()  # asked of `reader_call`
    form_kinds: frozenset[type] = frozenset()  # asked of `subscript_form`

    def reader_attribute(self, base: Any, node: ast.Attribute) -> Any:
        """`base.attr` as a reader reads it from the expression itself, or `UNHANDLED`."""
        return UNHANDLED

    def framework_call(self, function: Any, node: ast.Call) -> Any:
        """A call a framework read records before anything else looks at it, or `UNHANDLED`."""
        return UNHANDLED

    def reader_call(self, function: Any, node: ast.Call) -> Any:
        """A call of a reader's kind of value (a parser method, a record class), or
        `UNHANDLED`."""
        return UNHANDLED

    def framework_call_value(self, value: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """A value called back (a decorator applied) that a framework read records, or
        `UNHANDLED`."""
        return UNHANDLED

    def union(self, left: Any, right: Any) -> Any:
        """`left | right` as a typing form a reader models, or None."""
        return None

    def subscript_form(self, base: Any, key: Any) -> Any:
        """`base[key]` as a typing form a reader models, or None."""
        return None

    def eval_List(self, node: ast.List) -> list[Any]:
        return self.elements(node.elts)

    def eval_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.elements(node.elts))

    def eval_Set(self, node: ast.Set) -> set[Any]:
        return set(hashable(self.elements(node.elts)))

    def elements(self, nodes: list[ast.expr]) -> list[Any]:
        result: list[Any] = []
        for element in nodes:
            if isinstance(element, ast.Starred):
                items = iterate(self.eval(element.value), self.budget)
                self.budget.size(len(result) + len(items), "a list", added=len(items))
                result.extend(items)
            else:
                result.append(self.eval(element))
        return result

    def eval_Dict(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                spread = resolve(self.eval(value))
                if type(spread) is not dict:
                    raise CannotEvaluate(f"`**{self.quoted(value)}` is not a dict")
                self.budget.size(len(result) + len(spread), "a dict", added=len(spread))
                result.update(spread)
            elif isinstance(value, ast.Constant):
                result[hashable([self.eval(key)])[0]] = value.value
            else:
                # Values may be classes from other modules (a registry of detectors) when only
                # the keys are wanted: read them only if something asks for a value.
                result[hashable([self.eval(key)])[0]] = Deferred(self, value)
        return result

    def eval_BinOp(self, node: ast.BinOp) -> Any:
        chain: list[ast.BinOp] = []
        left: ast.expr = node
        while isinstance(left, ast.BinOp):  # `a + b + c + ...`: a loop, not a deep recursion
            chain.append(left)
            left = left.left
        value = self.eval(left)
        for operation in reversed(chain):
            self.budget.step()
            value = self.binary_op(operation.op, value, self.eval(operation.right))
        return value

    def binary_op(self, op: ast.operator, left: Any, right: Any) -> Any:
        if type(op) is ast.BitOr:
            form = self.union(resolve(left), resolve(right))
            if form is not None:
                return form
        return binary(type(op), left, right, self.budget)

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return unary(type(node.op), self.known(node.operand))

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for index, operand in enumerate(node.values):
            value = self.checked(resolve(self.eval(operand)))
            if type(value) is FromEnvironment:  # `os.environ.get("X") or "d"`
                rest = node.values[index + 1 :]
                if not isinstance(node.op, ast.Or) or not rest:
                    raise CannotEvaluate(f"{describe(value)} depends on the running program")
                return environment.either(value, self.eval_BoolOp(ast.BoolOp(node.op, rest)))
            if isinstance(node.op, ast.And) and not truth(value):
                return value
            if isinstance(node.op, ast.Or) and truth(value):
                return value
        return value

    def eval_Lambda(self, node: ast.Lambda) -> LambdaRef:
        return LambdaRef(node, self.module, (self.scope, *self.enclosing), self.owner)

    def eval_Compare(self, node: ast.Compare) -> bool:
        identity = all(type(op) in _IDENTITY for op in node.ops)
        left = self.comparable(node.left, identity)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.comparable(comparator, identity)
            if not compare(type(op), left, right, self.budget):
                return False
            left = right
        return True

    def comparable(self, node: ast.expr, identity: bool) -> Any:
        """A value compared: known, or (by identity or membership) a class or function of the
        source, which is itself whatever the program runs."""
        if not identity:
            return self.known(node)
        value = resolve(self.eval(node))
        if type(value) in (ClassRef, FunctionRef) or (
            isinstance(value, ReaderRef) and value.identified()
        ):
            return value
        if isinstance(value, UNDECIDABLE) or type(value) is Unevaluated:
            raise CannotEvaluate(f"{describe(value)} depends on the running program")
        return value

    def eval_IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if truth(self.known(node.test)) else self.eval(node.orelse)

    def eval_Subscript(self, node: ast.Subscript) -> Any:
        base = resolve(self.eval(node.value))
        key = self.eval(node.slice)
        if type(base) in self.form_kinds:
            form = self.subscript_form(base, key)
            if form is not None:
                return form
        if type(base) is ExternalRef and base.dotted == environment.MAPPING:
            return environment.required(key)
        if type(base) not in SIZED:
            raise CannotEvaluate(f"indexing {describe(base)} is not evaluated statically")
        if type(base) is dict:
            hashable([key])
        if type(key) is slice:
            self.budget.size(len(base), "a slice")
        return settle(base[key])

    def eval_Slice(self, node: ast.Slice) -> slice:
        parts = [
            self.eval(n) if n is not None else None for n in (node.lower, node.upper, node.step)
        ]
        if any(type(p) not in (int, bool, type(None)) for p in parts):
            raise CannotEvaluate("a slice of values that are not integers")
        return slice(*parts)

    def eval_JoinedStr(self, node: ast.JoinedStr) -> str:
        parts: list[str] = []
        total = 0
        for value in node.values:
            if isinstance(value, ast.Constant):
                text = str(value.value)
            else:
                assert isinstance(value, ast.FormattedValue)
                self.budget.visit(2)  # a field formatted
                item = self.eval(value.value)
                spec = self.eval(value.format_spec) if value.format_spec else ""
                conversion = chr(value.conversion) if value.conversion > 0 else None
                text = format_value(item, spec, conversion, self.budget)
            parts.append(text)
            total += len(text)
            self.budget.size(total, "an f-string", added=len(text))
        return "".join(parts)

    def eval_ListComp(self, node: ast.ListComp) -> list[Any]:
        return self.comprehension(node.elt, node.generators)

    def eval_SetComp(self, node: ast.SetComp) -> set[Any]:
        return set(hashable(self.comprehension(node.elt, node.generators)))

    def eval_GeneratorExp(self, node: ast.GeneratorExp) -> list[Any]:
        return self.comprehension(node.elt, node.generators)

    def eval_DictComp(self, node: ast.DictComp) -> dict[Any, Any]:
        pairs = self.comprehension(ast.Tuple([node.key, node.value], ast.Load()), node.generators)
        hashable([key for key, _ in pairs])
        return dict(pairs)

    def comprehension(self, element: ast.expr, generators: list[ast.comprehension]) -> list[Any]:
        """Its names in a scope of their own, in front of the function's (never a copy of the
        function's scope: a scope of 100,000 names copied at every pass of a loop)."""
        self.budget.visit(2)
        inner = self.inner(self.module, {}, self.depth, self.owner, (self.scope, *self.enclosing))
        result: list[Any] = []

        def walk(index: int) -> None:
            if index == len(generators):
                result.append(inner.eval(element))
                self.budget.size(len(result), "a comprehension", added=1)
                return
            generator = generators[index]
            for item in iterate(inner.eval(generator.iter), self.budget):
                bind(inner, generator.target, item)
                if all(truth(inner.known(cond)) for cond in generator.ifs):
                    walk(index + 1)

        walk(0)
        return result

    # -------------------------------------------------------------- calls

    def eval_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            if self.owner is None:
                raise CannotEvaluate("super() outside a class")
            if self.receiver is not None:
                return SuperOf(self.owner, self.receiver)
            return SuperRef(self.owner)
        try:
            function = resolve(self.eval(node.func))
        except CannotEvaluate as exc:
            calls.runs_text(self, node, None)
            calls.parser_passed(self, node, exc.reason)
            raise
        kind = type(function)
        if self.loader.framework_calls:  # a read whose reader records its framework's calls
            found = self.framework_call(function, node)
            if found is not UNHANDLED:
                return found
        if kind is ExternalRef:
            calls.runs_text(self, node, function)
        if kind in self.call_kinds:
            found = self.reader_call(function, node)
            if found is not UNHANDLED:
                return found
        if kind is FunctionRef:
            owner = function.owner
            return calls.call_function(
                self, function, node, builds=owner is not None and runs_body(owner)
            )
        if kind is ExternalRef and function.dotted in LIBRARY_FUNCTIONS:
            args, kwargs = calls.call_arguments(self, node)
            return LIBRARY_FUNCTIONS[function.dotted](self, args, kwargs)
        if kind in (BuiltinRef, MethodRef, LambdaRef):
            args, kwargs = calls.call_arguments(self, node)
            return calls.call_value(self, function, args, kwargs)
        reason = f"calls {describe(function)}, which static reading does not run"
        calls.parser_passed(self, node, reason)
        raise CannotEvaluate(reason)

    def call_value(
        self, function: Any, args: list[Any], kwargs: dict[str, Any] | None = None
    ) -> Any:
        """Call a value of the source (see `calls.call_value`): what builtins and methods
        given a function (`key=`, `map`) call back, and decorators applied."""
        value = resolve(function)
        if self.loader.framework_calls:
            found = self.framework_call_value(value, args, kwargs or {})
            if found is not UNHANDLED:
                return found
        return calls.call_value(self, function, args, kwargs)

    def follow(self, function: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run a function of the source, one call deeper than this one."""
        self.budget.calls(self.depth + 1)
        return run_function(type(self), function, args, kwargs, self.depth + 1)

    def compute(self, function: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """A function of the source run for its value, one call deeper: exactly or not at all."""
        self.budget.calls(self.depth + 1)
        return run_function(type(self), function, args, kwargs, self.depth + 1, strict=True)

    def inner(
        self,
        module: ModuleContext,
        scope: dict[str, Any],
        depth: int,
        owner: ClassRef | None,
        enclosing: tuple[dict[str, Any], ...],
    ) -> PythonInterpreter:
        """An interpreter for a scope inside this one's (a comprehension's, a lambda's): its
        names in `scope`, in front of `enclosing`; the same line and strictness."""
        return type(self)(
            module, scope, self.function_start, depth, owner, self.as_of, self.strict, enclosing
        )


_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)

_EVALUATORS: dict[type, Callable[[PythonInterpreter, Any], Any]] = {
    getattr(ast, name[5:]): function
    for name, function in vars(PythonInterpreter).items()
    if name.startswith("eval_") and hasattr(ast, name[5:])
}


def run_function(
    interpreter_class: type[PythonInterpreter],
    function: FunctionRef,
    args: list[Any],
    kwargs: dict[str, Any],
    depth: int = 0,
    strict: bool = False,
) -> Any:
    """Run a function of the source with these arguments, `depth` calls deep. `strict`: every
    statement followed exactly, or the call's value is unknown (`CannotEvaluate`).
    `interpreter_class`: the read's, with its readers' hooks."""
    node = function.node
    interpreter = interpreter_class(
        function.module,
        {},
        function_start(node),
        depth,
        function.owner,
        strict=strict,
        enclosing=function.enclosing,
    )
    if function.module.is_stub:
        raise CannotEvaluate(f"`{node.name}` is declared in a stub: only running it would tell")
    if function.owner is not None and args and type(args[0]) is SourceObject:
        interpreter.receiver = args[0]
    calls.bind_parameters(interpreter, node, args, kwargs)
    return interpreter.run(node.body)
