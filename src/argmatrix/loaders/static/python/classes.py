"""Classes read from source: their bases, members and class-level values.

A class body that only binds values (a dataclass field default, an Enum member, an action's
`nargs`) is not run: each value is worked out when it is asked for. A class body that builds a
parser (`parser = ArgumentParser(...)`, `parser.add_argument(...)`, `CLI.subparsers.add_parser(...)`
in the body, as lmdeploy's `CLI` does) is run once per read, statement by statement, the first
time the class is read (see `StaticLoader.class_namespace`): its attributes are then the values the
body left, the same parser handles at every read."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from argmatrix.loaders.static.python.syntax import (
    BUILDING_METHODS,
    BUILDING_NAMES,
    DEFINITION,
    assigned_value,
    subnodes,
)
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    Deferred,
    EnumMember,
    ExternalRef,
    FunctionRef,
    resolve,
)
from argmatrix.model.registry import Unevaluated

# What a class-level value of a class that is not an Enum means, as a reader of declared
# records registers it (`declared_fields`: a field made by `field(default=X)` means X): the
# expression to evaluate in its place. None: the value as written.
class_value_expression: Callable[[ast.expr], ast.expr] | None = None


def _evaluate(cls: ClassRef, node: ast.expr, line: int, owner: ClassRef | None = None) -> Any:
    return cls.module.evaluate(node, line, owner)


MEMBER_NODE = ast.Constant(None)  # what a Deferred of a member evaluates: nothing, see Member


class Member:
    """Reads one member of a class when a `Deferred` asks for it (`vars(cls)`'s values)."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: ClassRef, name: str) -> None:
        self.cls = cls
        self.name = name

    def try_eval(self, node: ast.expr) -> Any:
        try:
            return class_attribute(self.cls, self.name)
        except CannotEvaluate as exc:
            return Unevaluated(f"{self.cls.node.name}.{self.name}", exc.reason)


def member_scope(cls: ClassRef, line: int, node: ast.expr) -> dict[str, Any]:
    """The names of a class body that `node` (at `line` in the body) reads and the body has
    bound before it, each read (as a class attribute) when asked."""
    members = cls.module.loader.members(cls.node)[0]
    names = {n.id for n in subnodes(node) if isinstance(n, ast.Name)}
    cls.module.loader.budget.visit(len(names))
    return {
        name: Deferred(Member(cls, name), MEMBER_NODE)
        for name in names
        if name in members and getattr(members[name], "lineno", line) < line
    }


def body_scope(cls: ClassRef, line: int, node: ast.expr) -> dict[str, Any]:
    """The names of the class body `node` reads that the body has bound before `line`, as a
    statement of the body sees them (`ALL = (FULL, EMPTY)`), each read when asked for."""
    return member_scope(cls, line, node)


def ancestors(cls: ClassRef, depth: int = 0) -> Iterator[Any]:
    """The base classes of a class read from source, depth first; unreadable ones skipped."""
    for base_node in cls.node.bases:
        try:
            base = _evaluate(cls, base_node, cls.node.lineno)
        except CannotEvaluate:
            continue
        yield base
        if isinstance(base, ClassRef) and depth < cls.module.loader.budget.limits.call_depth:
            yield from ancestors(base, depth + 1)


def direct_bases(cls: ClassRef) -> list[Any]:
    """The base classes a class statement names, each evaluated (and resolved) where it is
    written; one static reading cannot evaluate makes them unknown, never fewer."""
    bases = []
    for node in cls.node.bases:
        cls.module.loader.budget.visit(4)
        try:
            bases.append(resolve(_evaluate(cls, node, cls.node.lineno)))
        except CannotEvaluate as exc:
            raise CannotEvaluate(
                f"a base class of `{cls.node.name}` is not known statically ({exc.reason})"
            ) from None
    return bases


def init_default(cls: ClassRef, parameter: str) -> Any:
    """The literal default of a parameter of the class's (or an ancestor's) __init__."""
    for owner in [cls, *(a for a in ancestors(cls) if isinstance(a, ClassRef))]:
        init = owner.module.loader.members(owner.node)[0].get("__init__")
        if not isinstance(init, ast.FunctionDef):
            continue
        arguments = init.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = (
            dict(
                zip(
                    [a.arg for a in positional[-len(arguments.defaults) :]],
                    arguments.defaults,
                    strict=True,
                )
            )
            if arguments.defaults
            else {}
        )
        defaults.update(
            {
                a.arg: d
                for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
                if d is not None
            }
        )
        node = defaults.get(parameter)
        return node.value if isinstance(node, ast.Constant) else None
    return None


def enum_kind(cls: ClassRef) -> str | None:
    """ "plain" for a class derived from enum.Enum alone, "mixed" for another Enum, else None."""
    bases = list(ancestors(cls))
    if not any(isinstance(b, ExternalRef) and b.dotted.startswith("enum.") for b in bases):
        return None
    direct = [b for b in bases if not isinstance(b, ClassRef)]
    plain = all(isinstance(b, ExternalRef) and b.dotted in ("enum.Enum", "Enum") for b in direct)
    return "plain" if plain else "mixed"


def builds_in_body(node: ast.ClassDef) -> bool:
    """The class body itself (not its methods) makes a parser or calls a parser method."""
    for statement in node.body:
        if isinstance(statement, DEFINITION):
            continue
        for child in subnodes(statement):
            if not isinstance(child, ast.Call):
                continue
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in BUILDING_METHODS or name in BUILDING_NAMES:
                return True
    return False


def runs_body(cls: ClassRef) -> bool:
    """A class whose body is run (once per read) rather than read value by value."""
    return not cls.module.is_stub and cls.module.loader.walked(cls.node, builds_in_body)


def class_attribute(cls: ClassRef, attr: str, depth: int = 0) -> Any:
    """A class-level value: a dataclass field default, a constant, a nested class or method."""
    patched = cls.module.attribute_changes.get(cls.node.name, {}).get(attr)
    if patched is not None:
        raise CannotEvaluate(f"`{cls.node.name}.{attr}` is assigned again at line {patched}")
    if runs_body(cls):
        return _body_attribute(cls, attr, depth)
    members, changed = cls.module.loader.members(cls.node)
    if attr in changed:
        raise CannotEvaluate(
            f"`{cls.node.name}.{attr}` is changed in the class body at line {changed[attr]}"
        )
    node = members.get(attr)
    if cls.module.is_stub:
        return _stub_attribute(cls, attr, node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return FunctionRef(cls.module, node, cls)
    if isinstance(node, ast.ClassDef):
        return ClassRef(cls.module, node)
    if node is not None:
        return _class_value(cls, attr, node)
    return _inherited(cls, attr, depth)


def _body_attribute(cls: ClassRef, attr: str, depth: int) -> Any:
    """An attribute of a class whose body was run: what the body left bound to the name (a
    method or nested class as any class's), else what a base class has."""
    namespace = cls.module.loader.class_namespace(cls.module, cls.node)
    node = cls.module.loader.members(cls.node)[0].get(attr)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return FunctionRef(cls.module, node, cls)
    if isinstance(node, ast.ClassDef):
        return ClassRef(cls.module, node)
    if attr in namespace:
        value = namespace[attr]
        if type(value) is Unevaluated:
            raise CannotEvaluate(
                value.reason or f"`{cls.node.name}.{attr}` cannot be computed statically"
            )
        return value
    return _inherited(cls, attr, depth)


def _inherited(cls: ClassRef, attr: str, depth: int) -> Any:
    for base_node in cls.node.bases:
        cls.module.loader.budget.visit(4)  # a scope to evaluate the base in
        try:
            base = _evaluate(cls, base_node, cls.node.lineno)
        except CannotEvaluate:
            continue
        if isinstance(base, ClassRef) and depth < cls.module.loader.budget.limits.call_depth:
            return class_attribute(base, attr, depth + 1)
    raise CannotEvaluate(f"`{cls.node.name}.{attr}` is not found in the source read")


@functools.cache
def _stub_value() -> re.Pattern[str]:
    """stubgen writes a pybind11 enum member as `NAME: typing.ClassVar[Cls]  # value =
    <Cls.NAME: 0>` (compiled when first used: only stubs have them)."""
    return re.compile(r"#\s*value\s*=\s*<(\w+)\.(\w+):\s*(-?\d{1,18})>")


def _stub_attribute(cls: ClassRef, attr: str, node: Any) -> Any:
    """A name of a class of a `.pyi` stub: a nested class, or a member of an enum of a compiled
    module (the class declares `__members__`, the member is a ClassVar of the class itself,
    its value in stubgen's comment). Anything else is known only to the compiled module."""
    if isinstance(node, ast.ClassDef):
        return ClassRef(cls.module, node)
    cache = cls.module.loader.class_values
    key = (id(cls.node), attr)
    found = cache.get(key)
    if found is None or found[0] is not cls.node:
        found = (cls.node, _stub_member(cls, attr))
        cache[key] = found
    if found[1] is None:
        raise CannotEvaluate(f"`{cls.node.name}.{attr}` is known only to the compiled module")
    return found[1]


def _stub_member(cls: ClassRef, attr: str) -> EnumMember | None:
    declared: ast.AnnAssign | None = None
    enum = False
    for child in cls.node.body:
        if not (isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name)):
            continue
        if child.target.id == "__members__":
            enum = True
        elif child.target.id == attr and child.value is None and _class_var_of(child, cls):
            declared = declared or child
    if not enum or declared is None:
        return None
    lines = cls.module.text.splitlines()
    line = lines[declared.lineno - 1] if declared.lineno <= len(lines) else ""
    match = _stub_value().search(line)
    value: Any
    if match and match.group(1) == cls.node.name and match.group(2) == attr:
        value = int(match.group(3))
    else:
        value = Unevaluated(f"{cls.node.name}.{attr}", "the stub does not say its value")
    return EnumMember(cls.node.name, attr, value, True)


def _class_var_of(node: ast.AnnAssign, cls: ClassRef) -> bool:
    """`typing.ClassVar[Cls]` (or `ClassVar[Cls]`) of the class itself."""
    annotation = node.annotation
    if not isinstance(annotation, ast.Subscript):
        return False
    outer = annotation.value
    name = outer.attr if isinstance(outer, ast.Attribute) else getattr(outer, "id", "")
    inner = annotation.slice
    return name == "ClassVar" and isinstance(inner, ast.Name) and inner.id == cls.node.name


def _class_value(cls: ClassRef, attr: str, value: ast.expr) -> Any:
    """Evaluated once per class and name: a registry refers to ServerArgs.x hundreds of times."""
    cache = cls.module.loader.class_values
    key = (id(cls.node), attr)
    found = cache.get(key)
    if found is None or found[0] is not cls.node:
        kind = enum_kind(cls)
        result: Any
        try:
            expression = (
                value if kind or class_value_expression is None else class_value_expression(value)
            )
            result = cls.module.evaluate(
                expression, value.lineno, cls, body_scope(cls, value.lineno, expression)
            )
        except CannotEvaluate as exc:
            result = exc
        not_member = _not_a_member(cls, attr) if kind is not None else None
        if not_member is not None:
            result = CannotEvaluate(not_member)
        elif kind is not None:
            member = (
                result
                if not isinstance(result, CannotEvaluate)
                else Unevaluated(cls.module.segment(value), result.reason)
            )
            result = EnumMember(cls.node.name, attr, member, kind == "plain")
        found = (cls.node, result)
        cache[key] = found
    result = found[1]
    if isinstance(result, CannotEvaluate):
        raise CannotEvaluate(result.reason)
    return result


def _not_a_member(cls: ClassRef, attr: str) -> str | None:
    """Why a name an Enum's body binds is not one of its members, if it is not: a `_sunder_`
    or `__dunder__` name (Enum's own settings), or a name its `_ignore_` lists (Python removes
    those from the class); an `_ignore_` static reading cannot list makes every name unknown."""
    name = cls.node.name
    if (attr.startswith("__") and attr.endswith("__")) or (
        len(attr) > 2 and attr[0] == attr[-1] == "_" and attr[1] != "_" and attr[-2] != "_"
    ):
        return f"`{name}.{attr}` is a setting of the Enum, not a member"
    for child in cls.node.body:
        value = assigned_value(child, "_ignore_")
        if value is None:
            continue
        listed: Any = None
        if isinstance(value, ast.Constant) and type(value.value) is str:
            listed = value.value.replace(",", " ").split()
        elif isinstance(value, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and type(e.value) is str for e in value.elts
        ):
            listed = [e.value for e in value.elts]  # type: ignore[attr-defined]
        if listed is None:
            return f"`{name}._ignore_` is not a list of names static reading can read"
        if attr in listed:
            return f"`{name}.{attr}` is listed in `_ignore_`: Python removes it from the class"
    return None
