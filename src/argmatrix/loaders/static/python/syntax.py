"""What a module's statements bind and change, read off the syntax tree without evaluating
anything: the names a top-level statement touches, the functions a module calls when it is
imported, the members of a class body. `SourceModule` follows a module's names with them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from argmatrix.loaders.static.python.ops import MUTATING
from argmatrix.loaders.static.python.values import FunctionRef

COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
DEFINITION = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# What marks a call as one that builds the registry, so that a statement making it is not left
# out and a helper naming it is followed: the method names (`parser.add_argument(...)`) and,
# besides them, the names that make a registry (`argparse.ArgumentParser`). The evaluator knows
# none of its own; each reader registers its framework's (`argparse_parsers/argparse_names.py`).
BUILDING_METHODS: set[str] = set()
BUILDING_NAMES: set[str] = set()


def subnodes(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node under it, as `ast.walk` gives them but in another order (depth
    first): about three times faster, for a caller that does not depend on the order (a test
    of any node, a set of names)."""
    pending = [node]
    while pending:
        node = pending.pop()
        yield node
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                pending.append(value)


def is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def aliases(statement: ast.stmt, name: str) -> bool:
    """`X = OTHER` (or `X = a.b`): the value is shared with another name."""
    value = assigned_value(statement, name)
    return isinstance(value, (ast.Name, ast.Attribute))


def inner_statements(statement: ast.stmt) -> Iterator[ast.stmt]:
    """The statements nested in a compound one, in source order (not function bodies)."""
    for field in ("body", "orelse", "finalbody"):
        for child in getattr(statement, field, ()):
            yield child
            if isinstance(child, COMPOUND):
                yield from inner_statements(child)
    for handler in getattr(statement, "handlers", ()):
        for child in handler.body:
            yield child
    for case in getattr(statement, "cases", ()):
        for child in case.body:
            yield child


def child_statements(statement: ast.stmt) -> Iterator[ast.stmt]:
    """The statements directly in a compound one's blocks. A walk that recurses into each of
    them sees every nested statement once; recursing into `inner_statements` (all of them)
    would see a statement at depth d 2**d times (90 nested `if True:` never ended)."""
    for field in ("body", "orelse", "finalbody"):
        yield from getattr(statement, field, ())


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _target_names(target: ast.expr, bound: set[str], changed: set[str]) -> None:
    if isinstance(target, ast.Name):
        bound.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_names(element, bound, changed)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, bound, changed)
    elif isinstance(target, ast.Subscript):
        root = _root_name(target)
        if root:
            changed.add(root)


def touched_names(statement: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds or changes (nested bodies included,
    function and class bodies not)."""
    bound: set[str] = set()
    changed: set[str] = set()
    _touches(statement, bound, changed)
    return bound | changed


def _touches(statement: ast.stmt, bound: set[str], changed: set[str]) -> None:
    if isinstance(statement, DEFINITION):
        bound.add(statement.name)
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            _target_names(target, bound, changed)
    elif isinstance(statement, ast.AnnAssign):
        if statement.value is not None:
            _target_names(statement.target, bound, changed)
    elif isinstance(statement, ast.AugAssign):
        root = _root_name(statement.target)
        if root and not isinstance(statement.target, ast.Attribute):
            changed.add(root)
    elif isinstance(statement, ast.Delete):
        for target in statement.targets:
            _target_names(target, bound, changed)
    elif isinstance(statement, ast.Expr):
        call = statement.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and (call.func.attr in MUTATING)
        ):
            root = _root_name(call.func.value)
            if root:
                changed.add(root)
    elif isinstance(statement, ast.Import):
        for alias in statement.names:
            bound.add(alias.asname or alias.name.split(".", 1)[0])
    elif isinstance(statement, ast.ImportFrom):
        for alias in statement.names:
            if alias.name != "*":
                bound.add(alias.asname or alias.name)
    elif isinstance(statement, COMPOUND):
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            _target_names(statement.target, bound, changed)
        for item in getattr(statement, "items", ()):
            if item.optional_vars is not None:
                _target_names(item.optional_vars, bound, changed)
        for child in child_statements(statement):
            _touches(child, bound, changed)


def loop_names(statement: ast.stmt) -> set[str]:
    bound: set[str] = set()
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        _target_names(statement.target, bound, set())
    return bound


def filled_by_calls(
    tree: ast.Module, functions: dict[str, Any], history: dict[str, list[ast.stmt]]
) -> dict[str, str]:
    called: dict[str, int] = {}
    for statement in tree.body:
        for function, line in _import_time_calls(statement):
            called.setdefault(function, line)
    filled: dict[str, str] = {}
    for function, line in called.items():
        node = functions.get(function)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = _local_names(node)
        for name in _changed_in(node):
            if name in history and name not in local:
                filled.setdefault(
                    name,
                    f"`{name}` is filled by `{function}`, which the module"
                    f" calls at line {line} when it is imported",
                )
    return filled


FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)


def filled_elsewhere(
    tree: ast.Module, functions: dict[str, Any], history: dict[str, list[ast.stmt]]
) -> dict[str, str]:
    """Names of the module bound to an empty container that a function of it changes in place
    (`NAMES.append(name)`, `REGISTRY[key] = cls`) where the module itself never calls or names
    that function: its
    callers are elsewhere (plugin modules registering themselves when they are imported, with
    `register(...)` or `@register`), so what the name holds depends on which of them ran.
    name -> the reason its value cannot be known."""
    named: set[str] = set()  # names the module reads: outside a function, or in another one
    for statement in tree.body:
        own = statement.name if isinstance(statement, FUNCTION) else None
        named.update(
            node.id
            for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != own
        )
    filled: dict[str, str] = {}
    for name, node in functions.items():
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or name in named:
            continue
        local = _local_names(node)
        for changed in _changed_in(node):
            if changed in history and changed not in local and _starts_empty(history[changed]):
                filled.setdefault(
                    changed,
                    f"`{changed}` is filled by `{name}`, which its module never calls: other"
                    " modules call it (a registration when they are imported), and only"
                    " running them would tell what it holds",
                )
    return filled


def _starts_empty(statements: list[ast.stmt]) -> bool:
    """A name bound once, to an empty list, dict or set (`NAMES: list[str] = []`): whatever
    it holds comes from what fills it. A registry that starts with entries of its own (sglang's
    `ATTENTION_BACKEND_CHOICES`, extended by out-of-tree plugins) is read as it stands."""
    if len(statements) != 1:
        return False
    value = getattr(statements[0], "value", None)
    if isinstance(value, (ast.List, ast.Set)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("list", "dict", "set")
        and not value.args
        and not value.keywords
    )


def _import_time_calls(statement: ast.stmt) -> Iterator[tuple[str, int]]:
    """Calls of plain names that run when the module is imported, in the shapes that fill
    registries: decorators (`@register`, `@register("x")`) of definitions and methods, and a
    statement that is a call or assigns one (`register_all()`, `X = build()`), at the top level,
    in its `if`/`try` blocks and in class bodies (not function bodies)."""
    if isinstance(statement, DEFINITION):
        for decorator in statement.decorator_list:
            name = decorator.id if isinstance(decorator, ast.Name) else _called_name(decorator)
            if name:
                yield name, decorator.lineno
        if isinstance(statement, ast.ClassDef):
            for child in statement.body:
                yield from _import_time_calls(child)
        return
    value = getattr(statement, "value", None)
    if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)):
        name = _called_name(value)
        if name:
            yield name, statement.lineno
    elif isinstance(statement, COMPOUND):
        for child in child_statements(statement):
            yield from _import_time_calls(child)


def _called_name(node: ast.expr | None) -> str | None:
    """`f(...)` or `f(...)(...)`: the plain name called."""
    while isinstance(node, ast.Call):
        node = node.func
        if isinstance(node, ast.Name):
            return node.id
    return None


def _changed_in(function: ast.AST) -> Iterator[str]:
    """Names a function changes in place (`X[k] = v`, `X.append(v)`) or rebinds as `global`."""
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Global):
            declared.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                root = _root_name(target)
                if root and (not isinstance(target, ast.Name) or root in declared):
                    yield root
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr in MUTATING)
        ):
            root = _root_name(node.func.value)
            if root:
                yield root


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    declared = {
        n for node in ast.walk(function) if isinstance(node, ast.Global) for n in node.names
    }
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names - declared


def class_members(node: ast.ClassDef) -> tuple[dict[str, Any], dict[str, int]]:
    """A class body's names: the method, nested class or value each is bound to (the last
    binding, as Python leaves it), and the names changed in place in the body (name -> line)."""
    found: dict[str, Any] = {}
    changed: dict[str, int] = {}
    for child in node.body:
        if isinstance(child, DEFINITION):
            found[child.name] = child
        elif isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
            if child.value is not None:
                found[child.target.id] = child.value
        elif isinstance(child, ast.Assign):
            for target in child.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = child.value
                elif (root := _root_name(target)) is not None:
                    changed.setdefault(root, child.lineno)
        elif not isinstance(child, ast.Pass) and not is_docstring(child):
            for name in touched_names(child):
                changed.setdefault(name, child.lineno)
    return found, changed


def assigned_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value a statement assigns to `name`, if it is an assignment to it."""
    if isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == name for target in statement.targets
    ):
        return statement.value
    if (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and (statement.target.id == name)
    ):
        return statement.value
    return None


# ------------------------------------------------------------------ functions


def calls_parser(node: ast.AST) -> bool:
    return any(
        isinstance(child, ast.Call)
        and isinstance(child.func, ast.Attribute)
        and child.func.attr in BUILDING_METHODS
        for child in ast.walk(node)
    )


def returns_parser(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Heuristic: a helper worth following builds or returns a parser."""
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and (
            child.attr in BUILDING_METHODS or child.attr in BUILDING_NAMES
        ):
            return True
    return False


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    return [*node.args.posonlyargs, *node.args.args]


def skips_first(function: FunctionRef) -> bool:
    """Plain and class methods take self/cls first; static methods and functions do not."""
    if function.owner is None:
        return False
    names = {getattr(d, "id", getattr(d, "attr", "")) for d in function.node.decorator_list}
    return "staticmethod" not in names


def function_start(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def namespace_writes(tree: ast.Module, lines: set[int]) -> dict[str, int]:
    """Names a module binds through its namespace, with the line: `globals()["X"] = v`,
    `vars()["X"] = v`, `setattr(sys.modules[__name__], "X", v)` (directly, or through a name
    bound to `sys.modules[__name__]`); "*" for a key not written out or `globals().update(...)`.
    Only the top-level statements holding one of `lines` (where the text may write the
    namespace) are walked.
    """
    # A module's `__getattr__` is called only for names the module does not bind: what it
    # caches in `globals()` (a lazy re-export) never changes a name the module gives a value.
    body = [
        statement
        for statement in tree.body
        if not (isinstance(statement, FUNCTION) and statement.name == "__getattr__")
        and any(
            statement.lineno <= line <= (statement.end_lineno or statement.lineno) for line in lines
        )
    ]
    nodes = [node for statement in body for node in ast.walk(statement)]
    modules = {"sys.modules"}
    for node in nodes:
        if isinstance(node, ast.Assign) and _is_own_module(node.value, modules):
            modules.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found: dict[str, int] = {}
    for node in nodes:
        key: ast.expr | None = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and _is_namespace(target.value):
                    _note_key(found, target.slice, node.lineno)
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("update", "setdefault", "__setitem__")
            and _is_namespace(func.value)
        ):
            found.setdefault("*", node.lineno)
        elif (
            isinstance(func, ast.Name)
            and func.id == "setattr"
            and len(node.args) >= 2
            and _is_own_module(node.args[0], modules)
        ):
            key = node.args[1]
            _note_key(found, key, node.lineno)
    return found


def _note_key(found: dict[str, int], key: ast.expr, line: int) -> None:
    if isinstance(key, ast.Constant) and type(key.value) is str:
        found.setdefault(key.value, line)
    else:
        found.setdefault("*", line)


def _is_namespace(node: ast.expr) -> bool:
    """`globals()` or `vars()`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("globals", "vars")
        and not node.args
    )


def _is_own_module(node: ast.expr, modules: set[str]) -> bool:
    """`sys.modules[__name__]`, or a name bound to it."""
    if isinstance(node, ast.Name):
        return node.id in modules
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "modules"
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == "sys"
        and isinstance(node.slice, ast.Name)
        and node.slice.id == "__name__"
    )
