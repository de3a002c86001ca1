"""`from module import *` at a module's top level: which names it binds, as Python does.

A star import binds the names of the module's `__all__`, or, without one, every name of the
module that does not start with an underscore; the last binding of a name wins, whether a star
import or a statement of the module's own. Static reading follows a star import of the package's
own modules. One under a condition (`try:`/`if`) may or may not bind what it binds: such a
name is unknown. One of a module outside the source read binds names static reading cannot
list: a name the module does not bind itself and that is no builtin is then unknown, never
taken from elsewhere; the module's own names and the builtins are taken to be its own (a
library's star import rebinding `argparse` or `len` is not followed).
"""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.loaders.static.python.context import ModuleContext, StarImport
from argmatrix.loaders.static.python.syntax import DEFINITION
from argmatrix.loaders.static.python.values import CannotEvaluate

NOT_BOUND: Any = object()  # no star import binds the name
_UNDEFINED = "is not defined where static reading looks"


def star_imports(module: ModuleContext, body: list[ast.stmt]) -> list[StarImport]:
    """The star imports of a module's top level, those under a condition too, in source order
    (not those inside functions or classes, which bind names there)."""
    found: list[StarImport] = []
    for statement in body:
        if isinstance(statement, DEFINITION):
            continue
        conditional = not isinstance(statement, ast.ImportFrom)
        for node in _outside_definitions(statement):
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                base = module.absolute(node.module, node.level)
                found.append(StarImport(base, node.lineno, conditional))
    return found


def _outside_definitions(statement: ast.stmt) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        nodes.append(node)
        pending.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, DEFINITION))
    return nodes


def lookup(
    module: ModuleContext,
    name: str,
    stars: list[StarImport],
    own: bool = False,
    builtin: bool = False,
) -> Any:
    """The value the last of `stars` that binds `name` gives it, else `NOT_BOUND`. A star import
    that may bind it but whose names are not known (one under a condition; one of a module
    outside the source read, unless the name is `own`: bound by the module itself, or a
    `builtin`) makes it unknown; so does a value found through modules that star import each
    other (Python's result then depends on the order they are imported in)."""
    cycle: list[str] = []
    value = _lookup(module, name, stars, own or builtin, (module.name,), cycle)
    if value is not NOT_BOUND and cycle:
        raise CannotEvaluate(
            f"`{name}` is bound through modules that star import each other ({cycle[0]}):"
            " which value it takes depends on the order they are imported in"
        )
    return value


def _lookup(
    module: ModuleContext,
    name: str,
    stars: list[StarImport],
    assumed: bool,
    through: tuple[str, ...],
    cycle: list[str],
) -> Any:
    for star in reversed(stars):
        module.loader.budget.visit(4)
        if not module.loader.in_package(star.module):
            if assumed:
                continue
            raise CannotEvaluate(
                f"`{name}` may be bound by `from {star.module} import *` (line {star.line}),"
                " a module outside the source read"
            )
        source = module.loader.module(star.module)
        if source is None or source.is_stub:
            raise CannotEvaluate(
                f"`{name}` may be bound by `from {star.module} import *` (line {star.line}),"
                " whose names are not in the source read"
            )
        if not exports(source, name):
            continue
        if source.name in through:  # a cycle: its own bindings are looked at where it began
            cycle.append(source.name)
            continue
        value = _bound_in(source, name, assumed, (*through, source.name), cycle)
        if value is NOT_BOUND:
            continue
        if _reaches(source, module.name, set()):  # it star imports this module back
            cycle.append(source.name)
        if star.conditional:
            raise CannotEvaluate(
                f"`{name}` is bound by `from {star.module} import *` under a condition"
                f" (line {star.line}), which static reading cannot decide"
            )
        return value
    return NOT_BOUND


def _reaches(module: ModuleContext, target: str, seen: set[str]) -> bool:
    """Whether `module` star imports `target`, itself or through the modules it star imports."""
    seen.add(module.name)
    for star in module.star_imports:
        module.loader.budget.visit(2)
        if star.module == target:
            return True
        if star.module in seen or not module.loader.in_package(star.module):
            continue
        source = module.loader.module(star.module)
        if source is not None and not source.is_stub:
            source.parse()
            if _reaches(source, target, seen):
                return True
    return False


def _bound_in(
    source: ModuleContext, name: str, assumed: bool, through: tuple[str, ...], cycle: list[str]
) -> Any:
    """What `source` binds `name` to, itself or through its own star imports; `NOT_BOUND` if
    it binds nothing of that name (a builtin is not bound by a module)."""
    source.parse()
    if name in source.history:
        try:
            return source.global_value(name)
        except CannotEvaluate as exc:
            if _UNDEFINED in exc.reason:  # deleted at its top level
                return NOT_BOUND
            raise
    if source.star_imports:
        return _lookup(source, name, source.star_imports, assumed, through, cycle)
    return NOT_BOUND


def exports(module: ModuleContext, name: str) -> bool:
    """Whether `from module import *` binds `name`: it is in the module's `__all__`, or, with
    no `__all__`, it does not start with an underscore."""
    module.parse()
    if "__all__" not in module.history:
        return not name.startswith("_")
    names = module.global_value("__all__")
    if type(names) not in (list, tuple) or any(type(n) is not str for n in names):
        raise CannotEvaluate(f"`__all__` of `{module.name}` is not known statically")
    return name in names


def after_own(module: ModuleContext, name: str, statements: list[ast.stmt]) -> Any:
    """A name the module binds itself: the value a star import after its last binding gives
    it, else `NOT_BOUND`. One between its own bindings that binds it is not followed."""
    first, last = statements[0].lineno, _last_line(statements[-1])
    value = lookup(module, name, [s for s in module.star_imports if s.line > last], own=True)
    if value is not NOT_BOUND:
        return value
    between = [s for s in module.star_imports if first < s.line <= last]
    if between and lookup(module, name, between, own=True) is not NOT_BOUND:
        raise CannotEvaluate(f"`{name}` is bound by `from ... import *` between its own bindings")
    return NOT_BOUND


def before_own(module: ModuleContext, name: str, statements: list[ast.stmt]) -> Any:
    """The value star imports give a name before the module's own statements change it
    (`X = X.upper()` after `from .common import *`), else `NOT_BOUND`."""
    first = statements[0].lineno
    return lookup(module, name, [s for s in module.star_imports if s.line < first], own=True)


def _last_line(statement: ast.stmt) -> int:
    return getattr(statement, "end_lineno", None) or statement.lineno
