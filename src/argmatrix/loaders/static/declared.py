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
import itertools
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
    member_scope,
)
from argmatrix.loaders.static.syntax import class_members
from argmatrix.loaders.static.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    Deferred,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    _Ref,
    describe,
    is_plain,
    resolve,
)
from argmatrix.model.registry import Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.interpreter import Interpreter

# ------------------------------------------------------------------ the names modelled

_ALIASES = {"typing_extensions": "typing"}
# pydantic's names where they are defined, and where its documentation imports them from
_DOTTED_ALIASES = {
    "pydantic.main.BaseModel": "pydantic.BaseModel",
    "pydantic.fields.Field": "pydantic.Field",
    "pydantic.config.ConfigDict": "pydantic.ConfigDict",
    "pydantic.fields.PydanticUndefined": "pydantic_core.PydanticUndefined",
}
_TYPING_ORIGINS = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set"}
MODELED = frozenset(
    {
        "typing.Annotated",
        "typing.Optional",
        "typing.Union",
        "typing.Literal",
        "typing.Any",
        "typing.ClassVar",
        "typing.Callable",
        "typing.get_type_hints",
        "typing.get_origin",
        "typing.get_args",
        "types.UnionType",
        "types.NoneType",
        "collections.abc.Callable",
        "dataclasses.dataclass",
        "dataclasses.field",
        "dataclasses.fields",
        "dataclasses.is_dataclass",
        "dataclasses.MISSING",
        "dataclasses.KW_ONLY",
        "dataclasses.InitVar",
        "msgspec.Struct",
        "msgspec.field",
        "msgspec.defstruct",
        "dataclasses.make_dataclass",
        "msgspec.NODEFAULT",
        "msgspec.structs.fields",
        "pydantic.BaseModel",
        "pydantic.Field",
        "pydantic.ConfigDict",
        "pydantic_core.PydanticUndefined",
        "isinstance",
        "issubclass",
        "hasattr",
        "vars",
        "type",
        "next",
    }
)
BUILTIN_NAMES = frozenset({"isinstance", "issubclass", "hasattr", "vars", "type", "next"})
_TYPE_MODULES = ("typing.", "types.", "collections.abc.")
_MISSING_OF = {
    "dataclass": "dataclasses.MISSING",
    "struct": "msgspec.NODEFAULT",
    "pydantic": "pydantic_core.PydanticUndefined",
}


class Modeled(_Ref):
    """A name of `typing`, `dataclasses`, `msgspec`, `pydantic` or a builtin, as this module
    models it; `bound`: the value a modelled method is read from (`field.is_required`)."""

    __slots__ = ("bound", "dotted")
    _compared = ("dotted", "bound")

    def __init__(self, dotted: str, bound: Any = None) -> None:
        self.dotted = dotted
        self.bound = bound


NONE_TYPE = Modeled("types.NoneType")
BASE_MODEL = Modeled("pydantic.BaseModel")
UNDEFINED = Modeled("pydantic_core.PydanticUndefined")


class TypeForm(_Ref):
    """A subscripted type: `origin[args]` (`Annotated[int, Opt()]`, `list[str]`, a union)."""

    __slots__ = ("args", "origin")
    _compared = ("origin", "args")

    def __init__(self, origin: Any, args: tuple[Any, ...]) -> None:
        self.origin = origin
        self.args = args


_ABSENT: Any = object()  # a keyword `field(...)` was not given (its default may be None)


class FieldSpec(_Ref):
    """What `dataclasses.field(...)` or `msgspec.field(...)` returns: a default or a factory."""

    __slots__ = ("default", "factory")
    _compared = ("default", "factory")

    def __init__(self, default: Any, factory: Any) -> None:
        self.default = default
        self.factory = factory


class ModelFieldSpec(_Ref):
    """What `pydantic.Field(...)` returns: the default or factory, and what it says of the
    field. `constrained`: it was given a constraint (`gt=0`), which pydantic keeps in the
    field's `metadata` as objects static reading does not build."""

    __slots__ = ("constrained", "default", "factory", "says")
    _compared = ("default", "factory", "says", "constrained")

    def __init__(
        self, default: Any, factory: Any, says: tuple[tuple[str, Any], ...], constrained: bool
    ) -> None:
        self.default = default
        self.factory = factory
        self.says = says
        self.constrained = constrained


# What a `FieldInfo` of pydantic tells beyond its annotation and default (None when not said).
_MODEL_FIELD_SAYS = ("description", "title", "alias", "examples", "json_schema_extra")
_FIELD_KEYWORDS = frozenset({"default", "default_factory", *_MODEL_FIELD_SAYS})


class ModelField(_Ref):
    """One field of a pydantic model, as `Model.model_fields[name]` describes it."""

    __slots__ = ("annotation", "constrained", "default", "default_factory", "metadata", "says")
    _compared = ("annotation", "default", "default_factory", "says", "metadata")

    def __init__(
        self,
        annotation: Any,
        default: Any,
        default_factory: Any,
        says: dict[str, Any],
        metadata: list[Any],
        constrained: bool,
    ) -> None:
        self.annotation = annotation
        self.default = default
        self.default_factory = default_factory
        self.says = tuple(sorted(says.items()))
        self.metadata = metadata
        self.constrained = constrained


class Site:
    """Where a field is declared: its module, line, and class (for its section)."""

    __slots__ = ("cls", "file", "line", "start")

    def __init__(self, file: str, line: int, start: int, cls: str) -> None:
        self.file = file
        self.line = line
        self.start = start
        self.cls = cls


class FieldInfo(_Ref):
    """One field, as `dataclasses.fields()` or `msgspec.structs.fields()` describe it."""

    __slots__ = ("default", "default_factory", "name", "site", "type")
    _compared = ("name", "type", "default", "default_factory")

    def __init__(self, name: str, kind: Any, default: Any, factory: Any, site: Site | None) -> None:
        self.name = name
        self.type = kind
        self.default = default
        self.default_factory = factory
        self.site = site


class Record(_Ref):
    """A class built by `msgspec.defstruct` or `dataclasses.make_dataclass`: its fields and its
    namespace; `kind` "struct" or "dataclass"."""

    __slots__ = ("fields", "kind", "name", "namespace")
    _compared = ("name",)

    def __init__(
        self, name: str, fields: tuple[FieldInfo, ...], namespace: dict[str, Any], kind: str
    ) -> None:
        self.name = name
        self.fields = fields
        self.namespace = namespace
        self.kind = kind


class Instance(_Ref):
    """An instance of a record class of the source (`Opt(help="...")`): its field values."""

    __slots__ = ("cls", "values")
    _compared = ("cls", "values")

    def __init__(self, cls: ClassRef, values: tuple[tuple[str, Any], ...]) -> None:
        self.cls = cls
        self.values = values


VALUES = (Modeled, TypeForm, FieldSpec, FieldInfo, Record, Instance, ModelFieldSpec, ModelField)


def external(dotted: str) -> Any:
    """The model of a name imported from outside the source read, else an `ExternalRef`."""
    head, _, rest = dotted.partition(".")
    dotted = f"{_ALIASES.get(head, head)}.{rest}" if rest else dotted
    dotted = _DOTTED_ALIASES.get(dotted, dotted)
    if dotted.startswith("typing.") and dotted[7:] in _TYPING_ORIGINS:
        return BuiltinRef(_TYPING_ORIGINS[dotted[7:]])
    if dotted in MODELED:
        return Modeled(dotted)
    return ExternalRef(dotted)


# ------------------------------------------------------------------ types


def subscript(base: Any, key: Any) -> Any:
    """`Annotated[...]`, `Optional[X]`, `Literal[...]`, `list[X]`: a `TypeForm`, else None."""
    args = key if type(key) is tuple else (key,)
    args = tuple(_type_value(a) for a in args)
    if type(base) is Modeled:
        name = base.dotted
        if name == "typing.Optional":
            return TypeForm(Modeled("typing.Union"), (args[0], NONE_TYPE))
        if name in ("typing.Annotated", "typing.Union", "typing.Literal", "typing.ClassVar"):
            if name == "typing.Literal":
                args = key if type(key) is tuple else (key,)
            return TypeForm(base, args)
        if name in ("typing.Callable", "collections.abc.Callable", "dataclasses.InitVar"):
            return TypeForm(base, args)
        return None
    if type(base) is BuiltinRef and base.name in ("list", "dict", "tuple", "set", "frozenset"):
        return TypeForm(base, args)
    return None


def union(left: Any, right: Any) -> Any:
    """`X | None` between types: a union, else None (not types: the operator's own meaning)."""
    known = is_type(left), is_type(right)
    if not all(k or type(v) is ExternalRef for k, v in zip(known, (left, right), strict=True)):
        return None
    if not any(known):  # two names from outside: flags as likely as types
        return None
    return TypeForm(Modeled("types.UnionType"), (_type_value(left), _type_value(right)))


def is_type(value: Any) -> bool:
    return (
        value is None
        or type(value) in (BuiltinRef, TypeForm, ClassRef, Record)
        or (type(value) is Modeled and value.dotted.startswith(_TYPE_MODULES))
    )


def _type_value(value: Any) -> Any:
    return NONE_TYPE if value is None else value


def origin_of(tp: Any) -> Any:
    if type(tp) is TypeForm:
        return tp.origin
    _not_a_form(tp)
    return None


def args_of(tp: Any) -> tuple[Any, ...]:
    if type(tp) is TypeForm:
        return tp.args
    _not_a_form(tp)
    return ()


def _not_a_form(tp: Any) -> None:
    """A name from another package may be a typing form itself (`Maybe = Optional[int]`)."""
    if type(tp) in (ExternalRef, Unevaluated):
        raise CannotEvaluate(f"whether {describe(tp)} is a typing form is not known statically")


# ------------------------------------------------------------------ record classes


def record_kind(it: Interpreter, cls: Any) -> str | None:
    """ "dataclass", "struct" or None: how a class declares its fields. None only when that is
    certain from the source: a decorator or a base class static reading does not follow (one
    of another package, a metaclass) makes it unknown (`CannotEvaluate`), never "no fields"."""
    if type(cls) is Record:
        return cls.kind
    if type(cls) is Instance:
        return record_kind(it, cls.cls)
    if type(cls) is not ClassRef:
        return None
    cache: dict[Any, Any] = it.loader.declarations
    key = ("kind", id(cls.node))
    found = cache.get(key)
    if found is None or found[0] is not cls.node:
        try:
            found = (cls.node, _kind_of(cls, 0))
        except CannotEvaluate as exc:
            found = (cls.node, exc)
        cache[key] = found
    if isinstance(found[1], CannotEvaluate):
        raise CannotEvaluate(found[1].reason)
    return found[1]


def is_record_class(it: Interpreter, cls: ClassRef) -> bool:
    """Whether calling `cls` builds a record of the source (`Opt(help=...)`): false too when
    that is unknown, and the call is then not evaluated, as any other class's."""
    try:
        return record_kind(it, cls) is not None
    except CannotEvaluate:
        return False


def _kind_of(cls: ClassRef, depth: int) -> str | None:
    budget = cls.module.loader.budget
    if depth > budget.limits.call_depth:
        raise CannotEvaluate(f"the bases of `{cls.node.name}` are nested too deep")
    name = cls.node.name
    kind = None
    for decorator in cls.node.decorator_list:
        budget.visit(4)
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        value = cls.module.evaluate(target, cls.node.lineno)
        if value != Modeled("dataclasses.dataclass"):
            raise CannotEvaluate(
                f"`{name}` is decorated with {describe(value)}, which static reading does not run"
            )
        kind = "dataclass"
    if any(keyword.arg == "metaclass" for keyword in cls.node.keywords):
        raise CannotEvaluate(f"`{name}` has a metaclass, which static reading does not run")
    for node in cls.node.bases:
        budget.visit(4)
        base = resolve(cls.module.evaluate(node, cls.node.lineno))
        if base == Modeled("msgspec.Struct"):
            return "struct"
        if base == BASE_MODEL:
            return "pydantic"
        if type(base) is ClassRef:
            inherited = _kind_of(base, depth + 1)
            if inherited in ("struct", "pydantic"):
                return inherited
            kind = kind or inherited
        elif base != ExternalRef("object"):
            raise CannotEvaluate(
                f"`{name}` derives from {describe(base)}, which is not in the source read"
            )
    return kind


def _lineage(cls: ClassRef) -> list[ClassRef]:
    """The class and its ancestors of the source, bases first (the order fields come in)."""
    chain = [cls, *(a for a in ancestors(cls) if type(a) is ClassRef)]
    seen: list[ClassRef] = []
    for item in reversed(chain):
        if item not in seen:
            seen.append(item)
    return seen


_NOT_FIELDS = (Modeled("dataclasses.KW_ONLY"), Modeled("dataclasses.InitVar"))
_FIELDLESS_BASES = (Modeled("msgspec.Struct"), BASE_MODEL, ExternalRef("object"))


def _field_lineage(cls: ClassRef, depth: int) -> list[ClassRef]:
    """The classes whose fields `cls` has, bases first; a base that is not read (a class of
    another package, a name only running would tell) makes the fields unknown, never fewer."""
    budget = cls.module.loader.budget
    if depth > budget.limits.call_depth:
        raise CannotEvaluate(f"the bases of `{cls.node.name}` are nested too deep")
    chain: list[ClassRef] = []
    for node in cls.node.bases:
        budget.visit(4)
        try:
            base = resolve(cls.module.evaluate(node, cls.node.lineno))
        except CannotEvaluate as exc:
            raise CannotEvaluate(
                f"a base class of `{cls.node.name}` is not known statically ({exc.reason})"
            ) from None
        if type(base) is ClassRef:
            chain.extend(c for c in _field_lineage(base, depth + 1) if c not in chain)
        elif base not in _FIELDLESS_BASES:
            raise CannotEvaluate(
                f"the fields `{cls.node.name}` inherits from {describe(base)} are not in the"
                " source read"
            )
    return [*chain, cls]


def _annotation(it: Interpreter, cls: ClassRef, node: ast.expr) -> Any:
    """An annotation's value in its module; a string annotation is parsed first."""
    if isinstance(node, ast.Constant) and type(node.value) is str:
        text: str = node.value
        it.budget.visit(len(text))
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise CannotEvaluate("a string annotation that does not parse") from None
        ast.copy_location(node, cls.node)
        for child in ast.walk(node):
            child.lineno = cls.node.lineno  # type: ignore[attr-defined]
            child.end_lineno = cls.node.lineno  # type: ignore[attr-defined]
    line = getattr(node, "lineno", cls.node.lineno)
    return cls.module.evaluate(node, line, cls, member_scope(cls, line, node))


def declared(it: Interpreter, cls: ClassRef) -> list[tuple[FieldInfo, Any]]:
    """The fields of a dataclass or Struct of the source, in order, each with its full
    annotation (`Annotated` kept). Worked out once per class and read."""
    cache: dict[Any, Any] = it.loader.declarations
    found = cache.get(id(cls.node))
    if found is not None and found[0] is cls.node:
        return found[1]  # type: ignore[no-any-return]
    kind = record_kind(it, cls)
    missing = Modeled(_MISSING_OF.get(kind or "dataclass", "dataclasses.MISSING"))
    fields: dict[str, tuple[FieldInfo, Any]] = {}
    for owner in _field_lineage(cls, 0):
        for child in owner.node.body:
            if not (isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name)):
                continue
            if kind == "pydantic" and child.target.id.startswith("_"):
                continue  # a private attribute of a model, not a field
            it.budget.visit(4)
            hint = _annotation(it, owner, child.annotation)
            if type(hint) is TypeForm and hint.origin == Modeled("typing.ClassVar"):
                continue
            if hint in _NOT_FIELDS or (type(hint) is TypeForm and hint.origin in _NOT_FIELDS):
                continue
            default, factory = missing, missing
            if child.value is not None:
                value = resolve(owner.module.evaluate(child.value, child.lineno, owner))
                if type(value) is FieldSpec:
                    default, factory = _spec_values(value, missing)
                elif type(value) is ModelFieldSpec:
                    default, factory = value.default, value.factory
                elif value is not Ellipsis or kind != "pydantic":
                    default = value
            site = Site(str(owner.module.path), child.lineno, owner.node.lineno, owner.node.name)
            name = child.target.id
            it.loader.type_sites[id(hint)] = (hint, site)
            fields[name] = (FieldInfo(name, hint, default, factory, site), hint)
    result = list(fields.values())
    cache[id(cls.node)] = (cls.node, result)
    return result


# ------------------------------------------------------------------ pydantic models

MODEL_ATTRIBUTES = frozenset({"model_fields", "__fields__"})


def model_attribute(it: Interpreter, cls: ClassRef, attr: str) -> Any:
    """`Model.model_fields` of a pydantic model of the source; of any other class, the class
    attribute of that name."""
    if record_kind(it, cls) != "pydantic":
        return class_attribute(cls, attr)
    return dict(model_fields(it, cls))


def model_fields(it: Interpreter, cls: ClassRef) -> dict[str, ModelField]:
    """The fields of a pydantic model, bases first, as pydantic describes them: the annotation
    without `Annotated` (its other metadata in `metadata`), the default (`PydanticUndefined`
    when required) or factory (else None), and what `Field(...)` says. With
    `model_config = ConfigDict(use_attribute_docstrings=True)`, a string right after a field
    is its description unless `Field` gives one."""
    cache: dict[Any, Any] = it.loader.declarations
    key = ("model", id(cls.node))
    found = cache.get(key)
    if found is not None and found[0] is cls.node:
        return found[1]  # type: ignore[no-any-return]
    docstrings = _attribute_docstrings(cls) if _uses_attribute_docstrings(it, cls) else {}
    result: dict[str, ModelField] = {}
    for info, hint in declared(it, cls):
        it.budget.visit(4)
        annotation = hint
        metadata: list[Any] = []
        specs: list[Any] = []
        if type(hint) is TypeForm and hint.origin == Modeled("typing.Annotated"):
            annotation = hint.args[0]
            for item in hint.args[1:]:
                (specs if type(resolve(item)) is ModelFieldSpec else metadata).append(item)
        says: dict[str, Any] = dict.fromkeys(_MODEL_FIELD_SAYS)
        default, factory = info.default, info.default_factory
        constrained = False
        for spec in specs:  # `Annotated[int, Field(...)]`: an assigned value wins
            spec = resolve(spec)
            says.update((k, v) for k, v in spec.says)
            constrained = constrained or spec.constrained
            if default == UNDEFINED and factory == UNDEFINED:
                default, factory = spec.default, spec.factory
        assigned = _assigned_spec(it, cls, info)
        if assigned is not None:
            says.update((k, v) for k, v in assigned.says)
            constrained = constrained or assigned.constrained
        if says["description"] is None and info.name in docstrings:
            says["description"] = docstrings[info.name]
        result[info.name] = ModelField(
            annotation,
            default,
            None if factory == UNDEFINED else factory,
            says,
            metadata,
            constrained,
        )
    cache[key] = (cls.node, result)
    return result


def _assigned_spec(it: Interpreter, cls: ClassRef, info: FieldInfo) -> ModelFieldSpec | None:
    """The `Field(...)` a field is assigned, if it is (read again where it is declared)."""
    if info.site is None:
        return None
    for owner in _field_lineage(cls, 0):
        if owner.node.name != info.site.cls or str(owner.module.path) != info.site.file:
            continue
        for child in owner.node.body:
            if (
                isinstance(child, ast.AnnAssign)
                and child.lineno == info.site.line
                and child.value is not None
            ):
                value = resolve(owner.module.evaluate(child.value, child.lineno, owner))
                return value if type(value) is ModelFieldSpec else None
    return None


def _uses_attribute_docstrings(it: Interpreter, cls: ClassRef) -> bool:
    """`model_config` (a `ConfigDict` or a dict) says `use_attribute_docstrings=True`; a
    config static reading cannot read makes the descriptions unknown, never absent."""
    for owner in reversed(_field_lineage(cls, 0)):
        if "model_config" not in owner.module.loader.members(owner.node)[0]:
            continue
        config = resolve(class_attribute(owner, "model_config"))
        if type(config) is not dict:
            raise CannotEvaluate(f"`{owner.node.name}.model_config` is not known statically")
        return config.get("use_attribute_docstrings") is True
    return False


def _attribute_docstrings(cls: ClassRef) -> dict[str, str]:
    """A string statement right after an annotated field, per field, in the class and its
    bases of the source (the nearest class wins), cleaned as pydantic cleans it."""
    found: dict[str, str] = {}
    for owner in _lineage(cls):
        body = owner.node.body
        for child, following in itertools.pairwise(body):
            if (
                isinstance(child, ast.AnnAssign)
                and isinstance(child.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and type(following.value.value) is str
            ):
                found[child.target.id] = _cleaned_docstring(following.value.value)
    return found


def _cleaned_docstring(text: str) -> str:
    """`inspect.cleandoc`, which pydantic applies to an attribute's docstring."""
    lines = text.expandtabs().split("\n")
    margins = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(margins, default=0)
    cleaned = [lines[0].lstrip(), *(line[margin:] for line in lines[1:])]
    while cleaned and not cleaned[-1].strip():
        cleaned.pop()
    while cleaned and not cleaned[0].strip():
        cleaned.pop(0)
    return "\n".join(line.rstrip() for line in cleaned)


def field_spec(args: list[Any], kwargs: dict[str, Any]) -> ModelFieldSpec:
    """`pydantic.Field(default, *, default_factory=..., description=..., ...)`."""
    if len(args) > 1:
        raise CannotEvaluate("`pydantic.Field` is called with more than one positional argument")
    default = args[0] if args else kwargs.get("default", UNDEFINED)
    if default is Ellipsis:
        default = UNDEFINED
    factory = kwargs.get("default_factory", UNDEFINED)
    says = tuple((k, kwargs[k]) for k in _MODEL_FIELD_SAYS if k in kwargs)
    constrained = any(k not in _FIELD_KEYWORDS for k in kwargs)
    return ModelFieldSpec(default, factory, says, constrained)


def _model_field_attribute(it: Interpreter, field: ModelField, attr: str) -> Any:
    if attr in ("annotation", "default", "default_factory"):
        return getattr(field, attr)
    if attr in _MODEL_FIELD_SAYS:
        return dict(field.says)[attr]
    if attr == "metadata":
        if field.constrained:
            raise CannotEvaluate("a field's constraints are objects static reading does not build")
        return list(field.metadata)
    if attr in ("is_required", "get_default"):
        return Modeled(f"pydantic.FieldInfo.{attr}", field)
    raise CannotEvaluate(f"a pydantic field's `{attr}` is not known statically")


def _model_field_call(it: Interpreter, function: Modeled, args: list[Any], kwargs: Any) -> Any:
    field: ModelField = function.bound
    if function.dotted.endswith(".is_required") and not args and not kwargs:
        return field.default == UNDEFINED and field.default_factory is None
    if function.dotted.endswith(".get_default") and not args:
        if field.default_factory is None:
            return field.default
        if kwargs.get("call_default_factory") is True:
            return it.call_value(field.default_factory, [])
        return None
    raise CannotEvaluate(
        f"`{function.dotted}` is called with arguments static reading does not know"
    )


def record_fields(it: Interpreter, cls: Any) -> tuple[FieldInfo, ...]:
    cls = resolve(cls)
    if type(cls) is Record:
        return cls.fields
    if type(cls) is ClassRef and record_kind(it, cls) is not None:
        return tuple(info for info, _ in declared(it, cls))
    raise CannotEvaluate(f"{describe(cls)} is not a dataclass or Struct of the source read")


def type_hints(it: Interpreter, cls: Any, extras: bool) -> dict[str, Any]:
    cls = resolve(cls)
    if type(cls) is Record:
        pairs = [(info.name, info.type) for info in cls.fields]
    elif type(cls) is ClassRef:
        pairs = [(info.name, hint) for info, hint in declared(it, cls)]
    else:
        raise CannotEvaluate(f"the type hints of {describe(cls)} are not known statically")
    return {name: hint if extras else _strip(hint) for name, hint in pairs}


def _strip(hint: Any) -> Any:
    if type(hint) is TypeForm and hint.origin == Modeled("typing.Annotated"):
        return hint.args[0]
    return hint


def instance(it: Interpreter, cls: ClassRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`Opt(help="...")` for a record class of the source: its fields' values."""
    fields = declared(it, cls)
    if len(args) > len(fields) or any(k not in {f.name for f, _ in fields} for k in kwargs):
        raise CannotEvaluate(f"`{cls.node.name}(...)` is not called with its fields")
    values: list[tuple[str, Any]] = []
    for index, (info, _) in enumerate(fields):
        if index < len(args):
            value = args[index]
        elif info.name in kwargs:
            value = kwargs[info.name]
        elif type(info.default) is not Modeled:
            value = info.default
        elif type(info.default_factory) is not Modeled:
            value = it.call_value(info.default_factory, [])
        else:
            raise CannotEvaluate(f"`{cls.node.name}(...)` is not given `{info.name}`")
        values.append((info.name, value))
    return Instance(cls, tuple(values))


def defstruct(it: Interpreter, args: list[Any], kwargs: dict[str, Any], kind: str) -> Record:
    """`msgspec.defstruct(name, fields, namespace=...)` (kind "struct") or
    `dataclasses.make_dataclass(name, fields, namespace=...)` (kind "dataclass")."""
    what = "`msgspec.defstruct`" if kind == "struct" else "`dataclasses.make_dataclass`"
    if not args or type(args[0]) is not str or len(args) > 2:
        raise CannotEvaluate(f"{what} is called with a name and its fields")
    if resolve(kwargs.get("bases")) not in (None, ()):
        raise CannotEvaluate(f"{what} is given base classes, whose fields are not followed")
    specs = resolve(args[1] if len(args) > 1 else kwargs.get("fields", []))
    namespace = resolve(kwargs.get("namespace")) or {}
    if type(specs) not in (list, tuple) or type(namespace) is not dict:
        raise CannotEvaluate(f"the fields of {what} are not known statically")
    missing = Modeled(_MISSING_OF[kind])
    fields: list[FieldInfo] = []
    for spec in specs:
        spec = resolve(spec)
        if type(spec) is str:
            spec = (spec, Modeled("typing.Any"))
        if type(spec) not in (list, tuple) or not 2 <= len(spec) <= 3 or type(spec[0]) is not str:
            raise CannotEvaluate(f"a field of {what} is not (name, type[, default])")
        default, factory = (spec[2], missing) if len(spec) == 3 else (missing, missing)
        if type(default) is FieldSpec:
            default, factory = _spec_values(default, missing)
        site = it.loader.type_sites.get(id(spec[1]), (None, None))[1]
        fields.append(FieldInfo(spec[0], spec[1], default, factory, site))
    it.budget.visit(len(fields))
    return Record(args[0], tuple(fields), namespace, kind)


def _spec_values(spec: FieldSpec, missing: Modeled) -> tuple[Any, Any]:
    return (
        missing if spec.default is _ABSENT else spec.default,
        missing if spec.factory is _ABSENT else spec.factory,
    )


# ------------------------------------------------------------------ attributes and calls


def attribute(it: Interpreter, base: Any, attr: str) -> Any:
    kind = type(base)
    if kind is ModelField:
        return _model_field_attribute(it, base, attr)
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
        return _model_field_call(it, function, args, kwargs)
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
        return FieldSpec(kwargs.get("default", _ABSENT), kwargs.get("default_factory", _ABSENT))
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
    return [b for b in ancestors(cls) if b not in _FIELDLESS_BASES]


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
        return base == cls or base in _lineage(cls)
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


def class_annotations(it: Interpreter, cls: ClassRef) -> dict[str, Any]:
    """`cls.__annotations__`: its body's annotations, or the dict the module assigns to it
    at its top level, for a read after that assignment."""
    line = cls.module.attribute_changes.get(cls.node.name, {}).get("__annotations__")
    if line is not None and (it.as_of is None or it.as_of > line):
        tree = cls.module.tree
        for statement in tree.body if tree is not None else []:
            if (
                isinstance(statement, ast.Assign)
                and statement.lineno == line
                and len(statement.targets) == 1
            ):
                value = cls.module.evaluate(statement.value, line, None, {cls.node.name: cls})
                if type(resolve(value)) is not dict:
                    break
                return resolve(value)  # type: ignore[no-any-return]
        raise CannotEvaluate(f"`{cls.node.name}.__annotations__` is changed at line {line}")
    result: dict[str, Any] = {}
    for child in cls.node.body:
        if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
            it.budget.visit(2)
            result[child.target.id] = _annotation(it, cls, child.annotation)
    return result
