"""One read as its parts see it: the read (`ReadContext`, what `reader.StaticLoader` gives them)
and a module being read (`ModuleContext`, what `source.SourceModule` gives them), with the
places a read keeps (`Site`, `StarImport`).

These are protocols, so that the value model's references (`values.ClassRef.module`) and every
part below `reader` and `source` name what they use without importing the modules that
implement it, not even for annotations: the layers of `loaders/static` (pyproject.toml, and
`tests/test_static_layers.py`, which counts annotation imports too) have no way back up. What
the parts call back on the interpreter is `evaluator.Evaluator`, a layer higher (it names values).

A member typed `Any` here holds a type of a module above this one: noted where it is declared.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from argmatrix.loaders.static.python.budget import Budget


class Site:
    """Where a field is declared: its module, line, and class (for its section)."""

    __slots__ = ("cls", "file", "line", "start")

    def __init__(self, file: str, line: int, start: int, cls: str) -> None:
        self.file = file
        self.line = line
        self.start = start
        self.cls = cls


class StarImport(NamedTuple):
    """`from module import *` at a module's top level (see `star_imports`)."""

    module: str  # absolute
    line: int
    conditional: bool  # inside a compound statement of the top level


class ModuleContext(Protocol):
    """A module of the read, parsed on demand and never run (`source.SourceModule`)."""

    name: str
    path: Path
    is_stub: bool  # a compiled module's `.pyi` stub: nothing of it runs
    text: str
    tree: ast.Module | None  # None until it is parsed whole
    loader: ReadContext
    # Top-level names as read so far (whole after `parse`): a name's value, where it was
    # assigned; the module and attribute it was imported as; a class or function it defines.
    assignments: dict[str, ast.expr]
    imports: dict[str, tuple[str, str | None]]
    definitions: dict[str, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]
    history: dict[str, list[ast.stmt]]  # whole parse: the top-level statements binding a name
    attribute_changes: dict[str, dict[str, int]]  # `Class.attr = v` at the top level
    star_imports: list[StarImport]

    def parse(self) -> None: ...

    def segment(self, node: ast.AST) -> str: ...

    def absolute(self, module: str | None, level: int) -> str: ...

    def global_value(self, name: str, as_of: int | None = None) -> Any: ...

    def evaluate(
        self,
        node: ast.expr,
        line: int,
        owner: Any = None,  # a `values.ClassRef`, or None
        scope: dict[str, Any] | None = None,
    ) -> Any: ...


class ReadContext(Protocol):
    """One read (`reader.StaticLoader`): its budget, the modules it reads, what it keeps per read
    and what it could not follow. `report(..., stops=True)`: what a parser would have been given
    was not followed, so the read holds part of the registry and stops (see
    `reader.stop_if_incomplete`)."""

    budget: Budget
    # A read whose reader records calls of its framework as values before the evaluator looks
    # at them (the interpreter's `framework_call` hooks), decorators of nested functions applied.
    framework_calls: bool
    recording: Any  # what the reader of parsers keeps of one read (`argparse_parsers.recording`)
    nesting: int  # expressions being evaluated, one inside the other
    # Where what is said about the argument being replayed is located, if not at the call being
    # replayed (the outermost call of a wrapper's add_argument).
    argument_site: tuple[str, int] | None
    declaring: Site | None  # the declared field a loop is at (its arguments get its section)
    declarations: dict[Any, Any]  # per class, the type value of each field, where declared
    type_sites: dict[int, tuple[Any, Site]]
    # set_defaults(key=value kept as source text): parser, key, file, line, message.
    unknown_defaults: list[tuple[Any, str, str, int | None, str]]
    class_values: dict[tuple[int, str], tuple[ast.ClassDef, Any]]
    # The target function being run: its module's file and its definition.
    target_function: tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None
    # The first statement of its own body whose value could not be computed.
    unfollowed: tuple[int, str, str] | None

    def walked(self, node: ast.AST, test: Callable[[Any], bool]) -> bool: ...

    def members(self, node: ast.ClassDef) -> tuple[dict[str, Any], dict[str, int]]: ...

    def class_namespace(self, module: ModuleContext, node: ast.ClassDef) -> dict[str, Any]: ...

    def module(self, name: str) -> ModuleContext | None: ...

    def in_package(self, name: str) -> bool: ...

    def module_missing(self, name: str) -> bool:
        """Whether importing `name` fails: its top-level module is nowhere on the search path
        (those places are among the files the read looked for, so one appearing is seen)."""
        ...

    def imported(self, module: str, attr: str | None, near: Path | None = None) -> Any: ...

    def assigned_elsewhere(self, module: str, name: str) -> str | None: ...

    def report(self, file: str, line: int | None, message: str, stops: bool = False) -> None: ...

    def report_keyword(
        self, file: str, line: int | None, label: str, keyword: str, source: str, reason: str
    ) -> None: ...
