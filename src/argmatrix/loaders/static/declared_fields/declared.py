"""Arguments declared as class fields: a static model of `typing`, `dataclasses` and `msgspec`
over classes read from source, never imported.

A registry may declare its options as annotated fields (`port: Annotated[int, Opt(...)] = 80`)
of dataclasses or msgspec Structs and let one generic helper turn each field into an
`add_argument` call (sglang 0.5.14 and later). The helper runs as any function of the source
does; what it asks of `typing` (`get_type_hints`, `get_origin`, `get_args`, `Annotated`,
`Optional`, `Union`, `Literal`, `X | None`, `list[X]`), of `dataclasses` (`fields`, `field`,
`is_dataclass`, `MISSING`) and of `msgspec` (`Struct`, `field`, `defstruct`, `structs.fields`,
`NODEFAULT`) is answered here, from the syntax tree of the classes, with the values of
`values`. Annotations are evaluated in their module, as `get_type_hints` does with
`from __future__ import annotations`. Each field remembers where it is declared, so the
argument a loop makes of it gets the section of its declaration (`Site`).
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from argmatrix.loaders.static.declared_fields.pydantic_models import (
    MODEL_ATTRIBUTES,
    ModelField,
    model_attribute,
    model_field_attribute,
    model_field_call,
)
from argmatrix.loaders.static.declared_fields.records import (
    ABSENT,
    FIELDLESS_BASES,
    FieldSpec,
    Instance,
    ModelFieldSpec,
    class_annotations,
    defstruct,
    field_default,
    field_spec,
    instance,
    is_record_class,
    lineage,
    record_fields,
    record_kind,
    type_hints,
)
from argmatrix.loaders.static.declared_fields.typeforms import (
    BUILTIN_NAMES,
    NONE_TYPE,
    FieldInfo,
    Modeled,
    Record,
    TypeForm,
    args_of,
    external,
    origin_of,
    subscript,
    union,
)
from argmatrix.loaders.static.python import classes, statements
from argmatrix.loaders.static.python import values as values_module
from argmatrix.loaders.static.python.builtins import BUILTIN_TYPES
from argmatrix.loaders.static.python.classes import (
    MEMBER_NODE,
    Member,
    ancestors,
    class_attribute,
    direct_bases,
    enum_kind,
)
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.syntax import class_members
from argmatrix.loaders.static.python.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    Deferred,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    describe,
    is_plain,
    resolve,
)
from argmatrix.model.registry import Unevaluated

# What the rest of static reading uses of this model, by the name `declared.X`.
__all__ = [
    "BUILTIN_NAMES",
    "MODEL_ATTRIBUTES",
    "VALUES",
    "FieldInfo",
    "Modeled",
    "attribute",
    "call",
    "callable_value",
    "class_annotations",
    "docstring",
    "enum_members",
    "external",
    "instance",
    "is_record_class",
    "model_attribute",
    "next_allowed",
    "spelled",
    "subscript",
    "union",
]

VALUES = (Modeled, TypeForm, FieldSpec, FieldInfo, Record, Instance, ModelFieldSpec, ModelField)


# ------------------------------------------------------------------ attributes and calls


def attribute(it: Evaluator, base: Any, attr: str) -> Any:
    kind = type(base)
    if kind is ModelField:
        return model_field_attribute(it, base, attr)
    if kind is FieldInfo and attr in ("name", "type", "default", "default_factory"):
        return getattr(base, attr)
    if kind is Instance:
        for name, value in base.values:
            if name == attr:
                return value
        return class_attribute(base.cls, attr)
    if kind is Record:
        if attr == "__name__":
            return base.name
        if attr in base.namespace:
            return resolve(base.namespace[attr])
        raise CannotEvaluate(f"`{base.name}.{attr}` is not found in the source read")
    if kind is TypeForm and attr in ("__metadata__", "__origin__", "__args__"):
        annotated = base.origin == Modeled("typing.Annotated")
        if attr == "__metadata__" and annotated:
            return base.args[1:]
        if attr == "__origin__":
            return base.args[0] if annotated else base.origin
        if attr == "__args__" and not annotated:
            return base.args
    if kind is Modeled and base.dotted.startswith("typing.") and attr == "__name__":
        return base.dotted[7:]
    raise CannotEvaluate(f"{describe(base)} has no attribute `{attr}` static reading follows")


def next_allowed(function: Modeled, node: ast.Call) -> bool:
    """`next(x for x in ...)` only: a generator expression evaluates to a list here, and `next`
    of a real list raises."""
    return function.dotted != "next" or bool(
        node.args and isinstance(node.args[0], ast.GeneratorExp)
    )


def call(it: Evaluator, function: Modeled, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """A call of a modelled name."""
    it.budget.visit(4)
    args = [resolve(a) for a in args]
    name = function.dotted
    if function.bound is not None:
        return model_field_call(it, function, args, kwargs)
    if name == "pydantic.Field":
        return field_spec(args, kwargs)
    if name == "pydantic.ConfigDict":
        if args:
            raise CannotEvaluate("`pydantic.ConfigDict` is called with positional arguments")
        return dict(kwargs)
    if name == "typing.get_type_hints":
        extras = kwargs.get("include_extras", False)
        return type_hints(it, args[0], extras is True)
    if name == "typing.get_origin":
        return origin_of(args[0])
    if name == "typing.get_args":
        return args_of(args[0])
    if name in ("dataclasses.fields", "msgspec.structs.fields"):
        return record_fields(it, args[0])
    if name == "dataclasses.is_dataclass":
        return record_kind(it, args[0]) == "dataclass"
    if name in ("dataclasses.field", "msgspec.field"):
        if args:
            raise CannotEvaluate(f"`{name}` is called with positional arguments")
        return FieldSpec(kwargs.get("default", ABSENT), kwargs.get("default_factory", ABSENT))
    if name == "msgspec.defstruct":
        return defstruct(it, args, kwargs, "struct")
    if name == "dataclasses.make_dataclass":
        return defstruct(it, args, kwargs, "dataclass")
    if name == "isinstance":
        return _isinstance(it, args[0], args[1])
    if name == "issubclass":
        return _issubclass(it, args[0], args[1])
    if name == "type" and len(args) == 1:
        return _type_of(args[0])
    if name == "vars" and len(args) == 1:
        return _vars(it, args[0])
    if name == "next" and len(args) in (1, 2) and type(args[0]) is list:
        # the caller made sure it is a generator expression's items (see `next_allowed`)
        if args[0]:
            return args[0][0]
        if len(args) == 2:
            return args[1]
        raise CannotEvaluate("`next` of nothing raises StopIteration")
    if name == "hasattr" and len(args) == 2:
        return _hasattr(args[0], args[1])
    raise CannotEvaluate(f"`{name}(...)` is not evaluated statically")


_PLAIN_NAMES = {str: "str", int: "int", float: "float", bool: "bool", list: "list"}
_PLAIN_NAMES.update({dict: "dict", tuple: "tuple", set: "set", bytes: "bytes"})


def _type_of(value: Any) -> Any:
    if value is None:
        return NONE_TYPE
    if type(value) in _PLAIN_NAMES:
        return BuiltinRef(_PLAIN_NAMES[type(value)])
    if type(value) is Instance:
        return value.cls
    raise CannotEvaluate(f"the type of {describe(value)} is not known statically")


def _isinstance(it: Evaluator, value: Any, kinds: Any) -> bool:
    for kind in kinds if type(kinds) is tuple else (kinds,):
        kind = resolve(kind)
        if kind == Modeled("type"):
            if type(value) in (ClassRef, Record) or _builtin_type(value) is not None:
                return True
            if type(value) in (FunctionRef, LambdaRef):  # a converter function is no class
                continue
            if type(value) in _PLAIN_NAMES or value is None or type(value) is Instance:
                continue
        elif type(kind) is BuiltinRef and type(value) is Instance:
            if any(type(b) is not ClassRef for b in _bases_beyond_records(value.cls)):
                raise CannotEvaluate(f"`{value.cls.node.name}` derives from a class not read")
            continue  # a record class of the source, deriving from no builtin
        elif type(kind) is BuiltinRef and type(value) in _PLAIN_NAMES:
            if _PLAIN_NAMES[type(value)] == kind.name or (
                kind.name == "int" and type(value) is bool
            ):
                return True
            continue
        elif type(kind) is ClassRef and type(value) is Instance:
            if _issubclass(it, value.cls, kind):
                return True
            continue
        elif type(kind) is ClassRef and (type(value) in _PLAIN_NAMES or value is None):
            continue
        raise CannotEvaluate(f"`isinstance` of {describe(value)} is not known statically")
    return False


def _bases_beyond_records(cls: ClassRef) -> list[Any]:
    """The bases of a record class other than the markers of its kind (`msgspec.Struct`)."""
    return [b for b in ancestors(cls) if b not in FIELDLESS_BASES]


def _builtin_type(value: Any) -> type | None:
    """The builtin type a value names (`int`, `str`, `bool`...), if it names one."""
    if type(value) is BuiltinRef:
        return BUILTIN_TYPES.get(value.name)
    return None


def _issubclass(it: Evaluator, cls: Any, base: Any) -> bool:
    base = resolve(base)
    if type(base) is tuple:
        return any(_issubclass(it, cls, b) for b in base)
    builtin, builtin_base = _builtin_type(cls), _builtin_type(base)
    if builtin is not None and builtin_base is not None:
        return issubclass(builtin, builtin_base)
    if builtin is not None and type(base) is ClassRef:
        return False  # a class of the source is never a base of a builtin
    if type(cls) is ClassRef and builtin_base is not None:
        if any(type(b) is not ClassRef for b in ancestors(cls)):
            raise CannotEvaluate(f"`{cls.node.name}` derives from a class not read")
        return False
    if base == Modeled("msgspec.Struct"):
        return record_kind(it, cls) == "struct"
    if type(cls) is ClassRef and type(base) is ClassRef:
        return base == cls or base in lineage(cls)
    raise CannotEvaluate(f"`issubclass` of {describe(cls)} is not known statically")


def _hasattr(value: Any, name: Any) -> bool:
    if type(value) is ExternalRef and value.dotted == "types" and name == "UnionType":
        return True
    raise CannotEvaluate(f"whether {describe(value)} has `{name}` is not known statically")


def _vars(it: Evaluator, cls: Any) -> dict[str, Any]:
    if type(cls) is not ClassRef:
        raise CannotEvaluate(f"`vars` of {describe(cls)} is not known statically")
    members = class_members(cls.node)[0]
    it.budget.visit(len(members))
    return {name: Deferred(Member(cls, name), MEMBER_NODE) for name in members}


# ------------------------------------------------------------------ Enum classes


_FLAG_BASES = ("enum.Flag", "enum.IntFlag", "Flag", "IntFlag")
_PLAIN_ENUMS = (ExternalRef("enum.Enum"), ExternalRef("Enum"), ExternalRef("object"))
# The mixins whose data type converts each value (`int(value)`), and that type.
_DATA_TYPES: dict[Any, type] = {
    ExternalRef("enum.IntEnum"): int,
    ExternalRef("enum.StrEnum"): str,
    BuiltinRef("int"): int,
    BuiltinRef("str"): str,
    BuiltinRef("float"): float,
}
# Methods that make or look up members in a way only running them tells.
_MEMBER_MAKERS = frozenset({"__new__", "__init__", "_missing_", "_generate_next_value_"})
_DESCRIPTORS = frozenset({"property", "staticmethod", "classmethod", "setter", "getter", "deleter"})


def enum_members(cls: ClassRef, budget: Any) -> list[Any]:
    """`list(Color)` of an Enum class read from source: its members in the order written, an
    alias (a later name with an earlier member's value) left out as Python leaves it out, and
    the names Python never makes members (`__dunder__`, `_sunder_`, methods, names listed in
    `_ignore_`, an annotation without a value) left out too. Whatever only running the class
    would tell (a member whose value is not known, an `auto()`, a Flag, a statement other than
    a plain assignment or a method, a nested class or a private `__name`, whose meaning changed
    between Python versions, a `__new__` or `_missing_`, a mixin that converts values of
    another type) makes the members unknown, never fewer or more."""
    kind = enum_kind(cls)
    name = cls.node.name
    if kind is None:
        raise CannotEvaluate(f"cannot iterate over `{name}` without running the code")
    if any(type(b) is ExternalRef and b.dotted in _FLAG_BASES for b in ancestors(cls)):
        raise CannotEvaluate(f"the members of the Flag `{name}` are not listed statically")
    data_type = _enum_data_type(cls, 0)
    unique = _enum_decorators(cls)
    ignored = _ignored_names(cls)
    counted = _counted_from_one(cls, kind)
    members: list[Any] = []
    seen: list[Any] = []
    bound: dict[str, bool] = {}  # name -> whether it is bound by an assignment
    for child in cls.node.body:
        budget.visit(2)
        for target, assigned in _enum_bindings(cls, child):
            if target in bound and (assigned or bound[target]):
                raise CannotEvaluate(f"`{name}.{target}` is bound twice in the class body")
            bound[target] = assigned
            if not assigned or target in ignored or not _member_name(cls, target):
                continue
            member = class_attribute(cls, target)
            if counted and type(member) is EnumMember:  # `auto()` of a plain Enum: 1, 2, ...
                member = EnumMember(member.owner, member.name, len(members) + 1, member.plain)
            if type(member) is not EnumMember or type(member.value) is Unevaluated:
                raise CannotEvaluate(f"the value of `{name}.{target}` is not known statically")
            value = resolve(member.value)
            if type(value) is ExternalRef or not is_plain(value):
                raise CannotEvaluate(f"the value of `{name}.{target}` is not known statically")
            if type(value) in (list, dict, set):
                # unhashable: Python 3.11+ finds aliases by hash first, 3.10 by equality only
                raise CannotEvaluate(
                    f"`{name}.{target}` is unhashable, and whether another member is its alias"
                    " depends on the Python version"
                )
            if data_type is not None and type(value) is not data_type:
                raise CannotEvaluate(
                    f"`{name}.{target}` is converted to `{data_type.__name__}` when the class is"
                    " made, which may make it an alias"
                )
            if value in seen:
                if unique:
                    raise CannotEvaluate(f"`{name}` is `unique` and `{target}` is an alias")
                continue  # an alias
            seen.append(value)
            members.append(member)
    budget.work(len(members))
    return members


def _counted_from_one(cls: ClassRef, kind: str) -> bool:
    """Whether every member of an Enum is `auto()`, with Python's own numbering: a class
    derived from `enum.Enum` alone, no class of the source between (one could define
    `_generate_next_value_`), and no `_generate_next_value_` of its own (refused as a member
    maker): its members are 1, 2, 3, ... in order, on every Python this reads for."""
    if kind != "plain" or any(type(b) is ClassRef for b in ancestors(cls)):
        return False
    values = [
        child.value
        for child in cls.node.body
        if isinstance(child, (ast.Assign, ast.AnnAssign)) and child.value is not None
    ]
    if not values:
        return False
    for value in values:
        if not (isinstance(value, ast.Call) and not value.args and not value.keywords):
            return False
        try:
            called = resolve(cls.module.evaluate(value.func, value.lineno))
        except CannotEvaluate:
            return False
        if not (type(called) is ExternalRef and called.dotted == "enum.auto"):
            return False
    return True


def _enum_data_type(cls: ClassRef, depth: int) -> type | None:
    """The data type an Enum's mixin converts each value to (None: values are kept as
    written), from its bases; a base static reading does not model makes it unknown."""
    if depth > cls.module.loader.budget.limits.call_depth:
        raise CannotEvaluate(f"the bases of `{cls.node.name}` are nested too deep")
    if cls.node.keywords:
        raise CannotEvaluate(f"`{cls.node.name}` is made with class keywords")
    found: set[type] = set()
    for base in direct_bases(cls):
        if type(base) is ClassRef:
            _plain_enum_base(base)
            inherited = _enum_data_type(base, depth + 1)
            found.update([inherited] if inherited is not None else [])
        elif base in _DATA_TYPES:
            found.add(_DATA_TYPES[base])
        elif base not in _PLAIN_ENUMS:
            raise CannotEvaluate(
                f"`{cls.node.name}` derives from {describe(base)}, whose making of members"
                " static reading does not model"
            )
    if len(found) > 1:
        raise CannotEvaluate(f"`{cls.node.name}` has more than one data type")
    return found.pop() if found else None


def _plain_enum_base(base: ClassRef) -> None:
    """A base class of the source adds no members and no method that makes them: its body
    holds methods only, and no decorator changes it."""
    if base.node.decorator_list:
        raise CannotEvaluate(f"the base `{base.node.name}` is decorated")
    for child in base.node.body:
        if any(assigned for _, assigned in _enum_bindings(base, child)):
            raise CannotEvaluate(f"the base `{base.node.name}` binds values in its body")


def _enum_decorators(cls: ClassRef) -> bool:
    """Whether the class is decorated with `enum.unique` (the one decorator followed)."""
    for decorator in cls.node.decorator_list:
        if resolve(cls.module.evaluate(decorator, cls.node.lineno)) != ExternalRef("enum.unique"):
            raise CannotEvaluate(f"`{cls.node.name}` is decorated with what only running tells")
    return bool(cls.node.decorator_list)


def _enum_bindings(cls: ClassRef, child: ast.stmt) -> list[tuple[str, bool]]:
    """The names a statement of an Enum's body binds, each with whether an assignment binds
    it (a member, if its name is one); a statement only running would tell is refused."""
    name = cls.node.name
    if isinstance(child, ast.Pass) or (
        isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant)
    ):
        return []
    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if child.name in _MEMBER_MAKERS or _is_sunder(child.name):
            raise CannotEvaluate(f"`{name}` defines `{child.name}`, which only running tells")
        for decorator in child.decorator_list:
            word = decorator.attr if isinstance(decorator, ast.Attribute) else None
            word = decorator.id if isinstance(decorator, ast.Name) else word
            if word not in _DESCRIPTORS:
                raise CannotEvaluate(f"the method `{name}.{child.name}` is decorated")
        return [(child.name, False)]
    if isinstance(child, ast.ClassDef):
        raise CannotEvaluate(
            f"`{name}` nests the class `{child.name}`, a member or not by Python version"
        )
    if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
        return [(child.target.id, True)] if child.value is not None else []
    if isinstance(child, ast.Assign) and all(isinstance(t, ast.Name) for t in child.targets):
        return [(t.id, True) for t in child.targets if isinstance(t, ast.Name)]
    raise CannotEvaluate(
        f"line {child.lineno} of `{name}` is not a plain assignment or a method: only running"
        " it would tell the members"
    )


def _is_sunder(name: str) -> bool:
    return len(name) > 2 and name[0] == name[-1] == "_" and name[1] != "_" and name[-2] != "_"


def _member_name(cls: ClassRef, name: str) -> bool:
    """Whether an assigned name is a member: not a `__dunder__` or a `_sunder_`. A private
    name (`__x`, `_Cls__x`) is a member before Python 3.11 and not after: it is refused."""
    dunder = len(name) > 4 and name[:2] == name[-2:] == "__" and name[2] != "_" and name[-3] != "_"
    if dunder and name not in _MEMBER_MAKERS:
        return False
    if _is_sunder(name) and name != "_ignore_":
        raise CannotEvaluate(f"`{cls.node.name}.{name}` is a setting only running would apply")
    if name.startswith("_") and "__" in name and not dunder:
        raise CannotEvaluate(f"`{cls.node.name}.{name}` is a member or not by Python version")
    if dunder:
        raise CannotEvaluate(f"`{cls.node.name}` assigns `{name}`, which only running tells")
    return name != "_ignore_"


def _ignored_names(cls: ClassRef) -> frozenset[str]:
    """The names `_ignore_` lists (a list or tuple of strings, or one string of names), which
    Python removes from the class; it must come before any of them, as Python requires."""
    found: frozenset[str] = frozenset()
    bound: set[str] = set()
    for child in cls.node.body:
        targets = child.targets if isinstance(child, ast.Assign) else []
        if isinstance(child, ast.AnnAssign) and child.value is not None:
            targets = [child.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if "_ignore_" not in names or not isinstance(child, (ast.Assign, ast.AnnAssign)):
            bound.update(names)
            continue
        value = child.value
        items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
        if found or not all(isinstance(i, ast.Constant) and type(i.value) is str for i in items):
            raise CannotEvaluate(f"`{cls.node.name}._ignore_` is not a list of names")
        words = [w for i in items for w in str(getattr(i, "value", "")).replace(",", " ").split()]
        if not isinstance(value, (ast.List, ast.Tuple)):
            found = frozenset(words)
        else:
            found = frozenset(str(getattr(i, "value", "")) for i in items)
        if found & bound:
            raise CannotEvaluate(f"`{cls.node.name}._ignore_` lists a name bound before it")
    return found


values_module.class_items = enum_members
statements.DECLARED_ITEMS.add(FieldInfo)
classes.class_value_expression = field_default


def docstring(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """`__doc__` as the running Python has it: as written before 3.13, whose compiler strips
    the first line's leading blanks and the common indentation of the others."""
    text = ast.get_docstring(node, clean=False)
    if text is None or sys.version_info < (3, 13):
        return text
    lines = text.expandtabs().split("\n")
    margins = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(margins, default=0)
    return "\n".join([lines[0].lstrip(), *(line[margin:] for line in lines[1:])])


def spelled(value: Any) -> str:
    """How a value of this model reads as source (`Optional[int]`, `dataclasses.MISSING`): the
    name the model keeps of it, never the interpreter's own representation."""
    kind = type(value)
    if kind is Modeled:
        return value.dotted  # type: ignore[no-any-return]
    if kind is TypeForm:
        inner = ", ".join(spelled(a) for a in value.args)
        return f"{spelled(value.origin)}[{inner}]"
    if kind is Record:
        return value.name  # type: ignore[no-any-return]
    if kind is Instance:
        return f"{value.cls.node.name}(...)"
    if kind is FieldInfo:
        return f"<field {value.name}>"
    if kind is FieldSpec:
        return "field(...)"
    if kind in (ClassRef, FunctionRef):
        return value.node.name  # type: ignore[no-any-return]
    if kind in (BuiltinRef,):
        return value.name  # type: ignore[no-any-return]
    if kind is ExternalRef:
        return value.dotted  # type: ignore[no-any-return]
    return repr(value) if value is None or kind in (str, int, float, bool) else kind.__name__


def callable_value(value: Any) -> bool:
    return type(value) in (FunctionRef, LambdaRef, BuiltinRef)
