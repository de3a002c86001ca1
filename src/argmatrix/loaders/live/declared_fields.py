"""Live: the declared field a generic helper is turning into an argument, and where it is declared.

A registry may declare its options as annotated fields of dataclasses or msgspec Structs and let
one helper loop over them (`for field in fields(cls): parser.add_argument(...)`, sglang 0.5.14 and
later). The call site of every such argument is the same line of the helper, so its comments say
nothing about the argument. While the helper runs, the frames that led to `add_argument` say which
field it is working on: a `for` loop whose variable holds a `dataclasses.Field` or a
`msgspec.structs.FieldInfo`, and a class among the locals that has that field. The argument is
then placed where the field is declared: the line of its annotation in the body of the class that
declares it (a base class, or, for a class assembled by `defstruct`/`make_dataclass`, the
namespace class of the same module that declares a field of that name and annotation). Static
reading places it at the same line (`loaders/static/declared_fields/declared.py`), and both modes name the section
with `sections.site_section`.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import tokenize
import typing
from pathlib import Path
from typing import Any

from argmatrix.loaders.sections import CallSite

_ARGMATRIX = str(Path(__file__).resolve().parents[2])  # frames of argmatrix itself

# (line of `class`, {field: line of its annotation}, class name) by qualified name
ClassFields = dict[str, tuple[int, dict[str, int], str]]


@dataclasses.dataclass(frozen=True)
class Declaration:
    """Where a field is declared: its file, the line of its class and of its annotation."""

    file: str
    class_line: int
    line: int
    class_name: str

    def site(self, extra: tuple[tuple[str, object], ...]) -> CallSite:
        """The call site an argument made of this field is sectioned by (as static reading's)."""
        return CallSite(self.file, self.line, self.class_line, extra, self.class_name)


def is_field(value: object) -> bool:
    """A field as `dataclasses.fields()` or `msgspec.structs.fields()` describe it."""
    kind = type(value)
    return kind is dataclasses.Field or (
        kind.__name__ == "FieldInfo" and kind.__module__ == "msgspec.structs"
    )


class FieldFinder:
    """Finds the declaration of the field a helper is adding an argument for. One per load: it
    keeps the syntax trees it read (a file may change between two loads)."""

    def __init__(self) -> None:
        self._found: dict[tuple[int, str], Declaration | None] = {}
        self._keep: list[object] = []  # what was looked at stays alive: its id stays its own
        self._modules: dict[int, dict[str, list[tuple[type, Declaration]]]] = {}
        self._files: dict[str, tuple[ClassFields, tuple[tuple[int, int, str], ...]]] = {}

    def declaration(self, frame: Any) -> Declaration | None:
        """The declaration of the field the innermost loop over fields is at, among `frame` and
        its callers (the registry's: argmatrix's own frames end the search); None when no loop
        over fields is running or its field's declaration is not found in source."""
        try:
            return self._declaration(frame)
        except Exception:  # a class or module of the registry that misbehaves when looked at
            return None

    def _declaration(self, frame: Any) -> Declaration | None:
        while frame is not None and not frame.f_code.co_filename.startswith(_ARGMATRIX):
            field = self._looped_field(frame)
            if field is not None:
                cls = _class_of(frame, field)
                return None if cls is None else self._declaration_of(cls, field)
            frame = frame.f_back
        return None

    def _read(self, file: str) -> tuple[ClassFields, tuple[tuple[int, int, str], ...]]:
        if file not in self._files:
            tree = _tree(file)
            self._files[file] = ({}, ()) if tree is None else (_class_fields(tree), _loops(tree))
        return self._files[file]

    def _looped_field(self, frame: Any) -> Any:
        """The field held by the variable of the innermost `for` loop of `frame` whose body is
        running, if it holds one."""
        held = {name: value for name, value in frame.f_locals.items() if is_field(value)}
        if not held:
            return None
        running = [
            (start, target)
            for start, end, target in self._read(frame.f_code.co_filename)[1]
            if target in held and start <= frame.f_lineno <= end
        ]
        return held[max(running)[1]] if running else None

    def _declaration_of(self, cls: type, field: Any) -> Declaration | None:
        if not isinstance(field.name, str):  # a Field a helper made up
            return None
        key = (id(cls), field.name)
        if key not in self._found:
            self._keep.append(cls)
            self._found[key] = self._in_lineage(cls, field.name) or self._in_namespace(cls, field)
        return self._found[key]

    def _in_lineage(self, cls: type, name: str) -> Declaration | None:
        """The annotation of `name` in the body of `cls` or of the nearest base declaring it."""
        for owner in getattr(cls, "__mro__", (cls,)):
            found = self._declared_by(owner, name)
            if found is not None:
                return found
        return None

    def _in_namespace(self, cls: type, field: Any) -> Declaration | None:
        """A class assembled from namespace classes (`defstruct`, `make_dataclass`) has no body
        of its own: the field is declared by a class of its module that declares a field of
        that name, and, if several do, of that annotation."""
        found = self._declarers(_module_of(cls)).get(field.name, [])
        if len(found) > 1:
            found = [(o, d) for o, d in found if _same_hint(o, field)]
        return found[0][1] if len(found) == 1 else None

    def _declarers(self, module: Any) -> dict[str, list[tuple[type, Declaration]]]:
        """The classes of a module's namespace declaring each field name, worked out once."""
        if module is None:
            return {}
        if id(module) not in self._modules:
            self._keep.append(module)
            values = {id(v): v for v in list(vars(module).values()) if isinstance(v, type)}
            found: dict[str, list[tuple[type, Declaration]]] = {}
            for owner in values.values():
                for name in self._declared_names(owner):
                    declared = self._declared_by(owner, name)
                    if declared is not None:
                        found.setdefault(name, []).append((owner, declared))
            self._modules[id(module)] = found
        return self._modules[id(module)]

    def _declared_names(self, owner: type) -> list[str]:
        file = getattr(_module_of(owner), "__file__", None)
        qualname = getattr(owner, "__qualname__", None)
        if not (isinstance(file, str) and isinstance(qualname, str)):
            return []
        entry = self._read(file)[0].get(qualname)
        return list(entry[1]) if entry is not None else []

    def _declared_by(self, owner: type, name: str) -> Declaration | None:
        file = getattr(_module_of(owner), "__file__", None)
        qualname = getattr(owner, "__qualname__", None)
        if not (isinstance(file, str) and isinstance(qualname, str) and isinstance(name, str)):
            return None
        entry = self._read(file)[0].get(qualname)
        if entry is None or name not in entry[1]:
            return None
        return Declaration(file, entry[0], entry[1][name], entry[2])


def _module_of(cls: type) -> Any:
    name = getattr(cls, "__module__", None)
    return sys.modules.get(name) if isinstance(name, str) else None


def _class_of(frame: Any, field: Any) -> type | None:
    """The class among the locals of `frame` and its callers that has `field`."""
    while frame is not None and not frame.f_code.co_filename.startswith(_ARGMATRIX):
        for value in list(frame.f_locals.values()):
            cls = value if isinstance(value, type) else type(value)
            if _has_field(cls, field):
                return cls
        frame = frame.f_back
    return None


def _has_field(cls: type, field: Any) -> bool:
    try:
        if type(field) is dataclasses.Field:
            declared = getattr(cls, "__dataclass_fields__", None)
            return isinstance(declared, dict) and declared.get(field.name) is field
        names = getattr(cls, "__struct_fields__", None)  # a Struct's, set by its metaclass
        return isinstance(names, tuple) and field.name in names
    except Exception:  # a class whose attributes misbehave has no fields we can know
        return False


def _same_hint(owner: type, field: Any) -> bool:
    try:
        hints = typing.get_type_hints(owner, include_extras=True)
        return bool(hints.get(field.name) == field.type)
    except Exception:  # the registry's own annotations failing: not this class
        return False


def _class_fields(tree: ast.Module) -> ClassFields:
    """The annotated names in the body of each class of a module, by qualified name (as
    Python spells it: `build.<locals>.Settings` for a class made inside a function)."""
    found: ClassFields = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                names = {
                    s.target.id: s.lineno
                    for s in child.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                }
                found.setdefault(prefix + child.name, (child.lineno, names, child.name))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.stmt):
                visit(child, prefix)

    visit(tree, "")
    return found


def _loops(tree: ast.Module) -> tuple[tuple[int, int, str], ...]:
    """(first line of the body, last line of the body, variable) of every `for` loop of a module
    whose variable is a plain name."""
    return tuple(
        (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno, node.target.id)
        for node in ast.walk(tree)
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name)
    )


def _tree(file: str) -> ast.Module | None:
    try:
        with tokenize.open(file) as stream:
            return ast.parse(stream.read(), file)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
