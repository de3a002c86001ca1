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
from typing import TYPE_CHECKING, Any

from argmatrix.loaders.static import values as values_module
from argmatrix.loaders.static.builtins import BUILTIN_TYPES
from argmatrix.loaders.static.classes import (
    MEMBER_NODE,
    Member,
    ancestors,
    class_attribute,
    enum_kind,
)
from argmatrix.loaders.static.pydantic_models import (
    MODEL_ATTRIBUTES,
    ModelField,
    model_attribute,
    model_field_attribute,
    model_field_call,
)
from argmatrix.loaders.static.records import (
    ABSENT,
    FIELDLESS_BASES,
    FieldInfo,
    FieldSpec,
    Instance,
    ModelFieldSpec,
    Site,
    class_annotations,
    defstruct,
    field_spec,
    instance,
    is_record_class,
    lineage,
    record_fields,
    record_kind,
    type_hints,
)
from argmatrix.loaders.static.syntax import class_members
from argmatrix.loaders.static.typeforms import (
    BUILTIN_NAMES,
    NONE_TYPE,
    Modeled,
    Record,
    TypeForm,
    args_of,
    external,
    origin_of,
    subscript,
    union,
)
from argmatrix.loaders.static.values import (
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
    "Site",
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

if TYPE_CHECKING:
    from argmatrix.loaders.static.interpreter import Interpreter

VALUES = (Modeled, TypeForm, FieldSpec, FieldInfo, Record, Instance, ModelFieldSpec, ModelField)


# ------------------------------------------------------------------ attributes and calls


def attribute(it: Interpreter, base: Any, attr: str) -> Any:
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


def call(it: Interpreter, function: Modeled, args: list[Any], kwargs: dict[str, Any]) -> Any:
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


def _isinstance(it: Interpreter, value: Any, kinds: Any) -> bool:
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


def _issubclass(it: Interpreter, cls: Any, base: Any) -> bool:
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


def _vars(it: Interpreter, cls: Any) -> dict[str, Any]:
    if type(cls) is not ClassRef:
        raise CannotEvaluate(f"`vars` of {describe(cls)} is not known statically")
    members = class_members(cls.node)[0]
    it.budget.visit(len(members))
    return {name: Deferred(Member(cls, name), MEMBER_NODE) for name in members}


# ------------------------------------------------------------------ Enum classes


_FLAG_BASES = ("enum.Flag", "enum.IntFlag", "Flag", "IntFlag")


def enum_members(cls: ClassRef, budget: Any) -> list[Any]:
    """`list(Color)` of an Enum class read from source: its members in the order written, an
    alias (a later name with an earlier member's value) left out as Python leaves it out. Any
    member whose value is not known, an `auto()`, or a Flag (whose iteration depends on the
    values' bits) makes the members unknown, never fewer."""
    kind = enum_kind(cls)
    if kind is None:
        raise CannotEvaluate(f"cannot iterate over `{cls.node.name}` without running the code")
    if any(type(b) is ExternalRef and b.dotted in _FLAG_BASES for b in ancestors(cls)):
        raise CannotEvaluate(f"the members of the Flag `{cls.node.name}` are not listed statically")
    members: list[Any] = []
    seen: list[Any] = []
    for child in cls.node.body:
        budget.visit(2)
        if isinstance(child, ast.Assign) and len(child.targets) == 1:
            target = child.targets[0]
        elif isinstance(child, ast.AnnAssign) and child.value is not None:
            target = child.target
        else:
            continue
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            continue
        member = class_attribute(cls, target.id)
        if type(member) is not EnumMember or type(member.value) is Unevaluated:
            raise CannotEvaluate(
                f"the value of `{cls.node.name}.{target.id}` is not known statically"
            )
        value = resolve(member.value)
        if type(value) is ExternalRef or not is_plain(value):
            raise CannotEvaluate(
                f"the value of `{cls.node.name}.{target.id}` is not known statically"
            )
        if value in seen:
            continue  # an alias
        seen.append(value)
        members.append(member)
    budget.work(len(members))
    return members


values_module.class_items = enum_members


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
