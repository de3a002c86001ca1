"""What the parts of static reading call back on the interpreter (`interpreter.Interpreter`):
`Evaluator`. The statements, calls, replayed parser calls, declared fields and objects are run
by functions given the interpreter they run in; they name it by this protocol, so that none of
them imports `interpreter` (which imports them), not even for annotations."""

from __future__ import annotations

import ast
from typing import Any, Protocol

from argmatrix.loaders.static.python.budget import Budget
from argmatrix.loaders.static.python.context import ModuleContext, ReadContext
from argmatrix.loaders.static.python.values import ClassRef, FunctionRef


class Evaluator(Protocol):
    """An interpreter of one scope: a function's, a class body's, a comprehension's.

    `strict`: following a module's top level, where anything not followed exactly makes the
    name being read unknown. `as_of`: the line of the top-level statement being followed.
    `alternatives`: inside the second branch of an `if` static reading cannot decide."""

    module: ModuleContext
    loader: ReadContext
    budget: Budget
    scope: dict[str, Any]
    enclosing: tuple[dict[str, Any], ...]  # scopes of the functions this one is defined in
    owner: ClassRef | None  # the class a method runs for
    function_start: int
    depth: int  # calls deep
    as_of: int | None
    strict: bool
    alternatives: int

    def eval(self, node: ast.expr) -> Any: ...

    def try_eval(self, node: ast.expr) -> Any:
        """The value, or the source text kept as `Unevaluated`."""
        ...

    def known(self, node: ast.expr) -> Any:
        """A value whose truth or comparison static reading may decide."""
        ...

    def statement_value(self, node: ast.expr) -> Any: ...

    def elements(self, nodes: list[ast.expr]) -> list[Any]: ...

    def binary_op(self, op: ast.operator, left: Any, right: Any) -> Any: ...

    def exec_block(self, body: list[ast.stmt]) -> None: ...

    def report(self, node: ast.AST, message: str, stops: bool = False) -> None:
        """Say what static reading could not follow, at `node`; `stops`: a parser call was
        missed, so the read holds part of the registry and stops."""
        ...

    def quoted(self, node: ast.AST) -> str: ...

    def calls_parser(self, node: ast.AST) -> bool: ...

    def call_value(
        self, function: Any, args: list[Any], kwargs: dict[str, Any] | None = None
    ) -> Any: ...

    def follow(self, function: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run a function of the source, one call deeper."""
        ...

    def compute(self, function: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """A function of the source run for its value, one call deeper: exactly or not at all."""
        ...

    def inner(
        self,
        module: ModuleContext,
        scope: dict[str, Any],
        depth: int,
        owner: ClassRef | None,
        enclosing: tuple[dict[str, Any], ...],
    ) -> Evaluator: ...
