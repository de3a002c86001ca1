"""Classes of the source that declare fields: dataclasses, msgspec Structs and pydantic models.
What kind a class is (never guessed: a base or decorator not read makes it unknown), its fields in
order with their full annotations, defaults and factories and where each is declared (`Site`, for
its section), `get_type_hints`, `dataclasses.fields`, `defstruct`/`make_dataclass`, and instances
of record classes (`Opt(help=...)`). What `dataclasses.field`, `msgspec.field` and
`pydantic.Field` return is here too (`FieldSpec`, `ModelFieldSpec`)."""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.loaders.static.declared_fields.typeforms import (
    BASE_MODEL,
    UNDEFINED,
    FieldInfo,
    Modeled,
    Record,
    TypeForm,
    strip_annotated,
)
from argmatrix.loaders.static.python.classes import (
    ancestors,
    direct_bases,
    member_scope,
)
from argmatrix.loaders.static.python.context import Site
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    BaseRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    describe,
    resolve,
)


def field_default(value: ast.expr) -> ast.expr:
    """A field's class-level value (`classes.class_value_expression`): `field(default=X)` means X;
    `field(default_factory=...)` has no class-level value."""
    if isinstance(value, ast.Call):
        name = (
            value.func.attr
            if isinstance(value.func, ast.Attribute)
            else getattr(value.func, "id", "")
        )
        if name == "field":
            for keyword in value.keywords:
                if keyword.arg == "default":
                    return keyword.value
            raise CannotEvaluate("a field made by a factory has no value before it is built")
    return value


ABSENT: Any = object()  # a keyword `field(...)` was not given (its default may be None)


class FieldSpec(BaseRef):
    """What `dataclasses.field(...)` or `msgspec.field(...)` returns: a default or a factory."""

    __slots__ = ("default", "factory")
    _compared = ("default", "factory")

    def __init__(self, default: Any, factory: Any) -> None:
        self.default = default
        self.factory = factory


class ModelFieldSpec(BaseRef):
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
MODEL_FIELD_SAYS = ("description", "title", "alias", "examples", "json_schema_extra")
# What a `Field(...)` says of its field beyond that: a title made when pydantic runs.
FIELD_GENERATORS = ("field_title_generator",)
FIELD_KEYWORDS = frozenset({"default", "default_factory", *MODEL_FIELD_SAYS, *FIELD_GENERATORS})


class Instance(BaseRef):
    """An instance of a record class of the source (`Opt(help="...")`): its field values."""

    __slots__ = ("cls", "values")
    _compared = ("cls", "values")

    def __init__(self, cls: ClassRef, values: tuple[tuple[str, Any], ...]) -> None:
        self.cls = cls
        self.values = values


MISSING_OF = {
    "dataclass": "dataclasses.MISSING",
    "struct": "msgspec.NODEFAULT",
    "pydantic": "pydantic_core.PydanticUndefined",
}


# ------------------------------------------------------------------ record classes


def record_kind(it: Evaluator, cls: Any) -> str | None:
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


def is_record_class(it: Evaluator, cls: ClassRef) -> bool:
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
    for base in direct_bases(cls):
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


def lineage(cls: ClassRef) -> list[ClassRef]:
    """The class and its ancestors of the source, bases first (the order fields come in)."""
    chain = [cls, *(a for a in ancestors(cls) if type(a) is ClassRef)]
    seen: list[ClassRef] = []
    for item in reversed(chain):
        if item not in seen:
            seen.append(item)
    return seen


_NOT_FIELDS = (Modeled("dataclasses.KW_ONLY"), Modeled("dataclasses.InitVar"))
FIELDLESS_BASES = (Modeled("msgspec.Struct"), BASE_MODEL, ExternalRef("object"))


def field_lineage(cls: ClassRef, depth: int) -> list[ClassRef]:
    """The classes whose fields `cls` has, in the order Python collects them: its method
    resolution order reversed (bases first; of two bases, the first wins). A base that is not
    read (a class of another package, a name only running would tell) makes the fields unknown,
    never fewer; so does a field declared by more than one class under multiple inheritance,
    where dataclasses and pydantic collect fields differently."""
    order = list(reversed(_source_mro(cls, depth)))
    if any(len(_source_bases(c, depth)) > 1 for c in order):
        declared: dict[str, str] = {}
        for owner in order:
            for child in owner.node.body:
                if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
                    name = child.target.id
                    if name in declared and declared[name] != owner.node.name:
                        raise CannotEvaluate(
                            f"`{name}` is declared by both `{declared[name]}` and"
                            f" `{owner.node.name}`, bases of `{cls.node.name}` by multiple"
                            " inheritance: which one wins is not followed statically"
                        )
                    declared[name] = owner.node.name
    return order


def _source_bases(cls: ClassRef, depth: int) -> list[ClassRef]:
    """The bases of `cls` read from source; a marker base (`BaseModel`, `Struct`, `object`) is
    left out, any other base not read makes the fields unknown."""
    budget = cls.module.loader.budget
    if depth > budget.limits.call_depth:
        raise CannotEvaluate(f"the bases of `{cls.node.name}` are nested too deep")
    bases: list[ClassRef] = []
    for base in direct_bases(cls):
        if type(base) is ClassRef:
            bases.append(base)
        elif base not in FIELDLESS_BASES:
            raise CannotEvaluate(
                f"the fields `{cls.node.name}` inherits from {describe(base)} are not in the"
                " source read"
            )
    return bases


def _source_mro(cls: ClassRef, depth: int) -> list[ClassRef]:
    """C3 linearisation of `cls` over its bases read from source (Python's `__mro__`)."""
    bases = _source_bases(cls, depth)
    sequences = [_source_mro(base, depth + 1) for base in bases] + [list(bases)]
    result = [cls]
    while True:
        sequences = [seq for seq in sequences if seq]
        if not sequences:
            return result
        cls.module.loader.budget.visit(len(sequences))
        head = next(
            (seq[0] for seq in sequences if not any(seq[0] in other[1:] for other in sequences)),
            None,
        )
        if head is None:
            raise CannotEvaluate(f"the bases of `{cls.node.name}` have no consistent order")
        result.append(head)
        sequences = [seq[1:] if seq[0] == head else seq for seq in sequences]


def annotation_value(it: Evaluator, cls: ClassRef, node: ast.expr) -> Any:
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


def declared_fields(
    it: Evaluator, cls: ClassRef, hints: bool = False
) -> list[tuple[FieldInfo, Any]]:
    """The fields of a dataclass or Struct of the source, in the order the record kind gives
    them, each with its full annotation (`Annotated` kept); with `hints`, the annotations of
    every base as `get_type_hints` has them, fields or not, in the order of declaration.
    Worked out once per class and read."""
    cache: dict[Any, Any] = it.loader.declarations
    key = ("hints", id(cls.node)) if hints else id(cls.node)
    found = cache.get(key)
    if found is not None and found[0] is cls.node:
        return found[1]  # type: ignore[no-any-return]
    kind = record_kind(it, cls)
    lineage = field_lineage(cls, 0)
    if hints and all(
        _declares_fields(it, owner, kind) and not (kind == "struct" and _keyword_only(owner))
        for owner in lineage
    ):
        result = declared_fields(it, cls)  # every base's annotations are fields, in order
        cache[key] = (cls.node, result)
        return result
    missing = Modeled(MISSING_OF.get(kind or "dataclass", "dataclasses.MISSING"))
    fields: dict[str, tuple[FieldInfo, Any]] = {}
    keywords: set[str] = set()  # a Struct's keyword-only fields, which msgspec puts last
    for owner in lineage:
        if not hints and not _declares_fields(it, owner, kind):
            continue
        keyword_only = not hints and kind == "struct" and _keyword_only(owner)
        for child in owner.node.body:
            if not (isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name)):
                continue
            if kind == "pydantic" and child.target.id.startswith("_"):
                continue  # a private attribute of a model, not a field
            it.budget.visit(4)
            hint = annotation_value(it, owner, child.annotation)
            # pydantic finds `ClassVar` and `Final` inside `Annotated` too; dataclasses do not
            core = strip_annotated(hint) if kind == "pydantic" else hint
            if core == CLASS_VAR or (type(core) is TypeForm and core.origin == CLASS_VAR):
                continue  # `ClassVar` and `ClassVar[T]`: a class variable, not a field
            if hint in _NOT_FIELDS or (type(hint) is TypeForm and hint.origin in _NOT_FIELDS):
                continue
            default, factory = missing, missing
            if child.value is not None:
                value = resolve(owner.module.evaluate(child.value, child.lineno, owner))
                if kind == "pydantic" and is_final(core) and not _required(value):
                    continue  # pydantic 2 takes `x: Final[T] = default` for a class variable
                if type(value) is FieldSpec:
                    default, factory = spec_values(value, missing)
                elif type(value) is ModelFieldSpec:
                    default, factory = value.default, value.factory
                elif value is not Ellipsis or kind != "pydantic":
                    default = value
            site = Site(str(owner.module.path), child.lineno, owner.node.lineno, owner.node.name)
            name = child.target.id
            it.loader.type_sites[id(hint)] = (hint, site)
            fields[name] = (FieldInfo(name, hint, default, factory, site), hint)
            if keyword_only:
                keywords.add(name)
            else:
                keywords.discard(name)
    result = [
        *(f for name, f in fields.items() if name not in keywords),
        *(f for name, f in fields.items() if name in keywords),
    ]
    cache[key] = (cls.node, result)
    return result


def _declares_fields(it: Evaluator, owner: ClassRef, kind: str | None) -> bool:
    """Whether the annotations of `owner`, a class among a record's bases (or the record), are
    fields of the record: a dataclass's come from the classes `@dataclass` made (a plain class
    between two dataclasses adds none), a Struct's from the classes deriving from `Struct` (a
    plain mixin adds none); pydantic takes the annotations of every base."""
    if kind == "pydantic":
        return True
    if kind == "struct":
        return record_kind(it, owner) == "struct"
    return any(
        owner.module.evaluate(d.func if isinstance(d, ast.Call) else d, owner.node.lineno)
        == Modeled("dataclasses.dataclass")
        for d in owner.node.decorator_list
    )


def _keyword_only(owner: ClassRef) -> bool:
    """`class C(Struct, kw_only=True)`: the fields C declares are keyword-only."""
    for keyword in owner.node.keywords:
        if keyword.arg != "kw_only":
            continue
        if isinstance(keyword.value, ast.Constant) and type(keyword.value.value) is bool:
            return keyword.value.value
        raise CannotEvaluate(
            f"`{owner.node.name}`'s `kw_only=` is not a literal: the order of its fields is"
            " not known statically"
        )
    return False


CLASS_VAR = Modeled("typing.ClassVar")
FINAL = Modeled("typing.Final")


def is_final(hint: Any) -> bool:
    """`Final` or `Final[T]`, as the whole annotation."""
    return bool(hint == FINAL or (type(hint) is TypeForm and hint.origin == FINAL))


def _required(value: Any) -> bool:
    """An assigned value that leaves a pydantic field required: `...` or `Field()` without a
    default or factory."""
    if type(value) is ModelFieldSpec:
        return bool(value.default == UNDEFINED and value.factory == UNDEFINED)
    return value is Ellipsis


def field_spec(args: list[Any], kwargs: dict[str, Any]) -> ModelFieldSpec:
    """`pydantic.Field(default, *, default_factory=..., description=..., ...)`."""
    if len(args) > 1:
        raise CannotEvaluate("`pydantic.Field` is called with more than one positional argument")
    default = args[0] if args else kwargs.get("default", UNDEFINED)
    if default is Ellipsis:
        default = UNDEFINED
    factory = kwargs.get("default_factory", UNDEFINED)
    says = tuple((k, kwargs[k]) for k in (*MODEL_FIELD_SAYS, *FIELD_GENERATORS) if k in kwargs)
    constrained = any(k not in FIELD_KEYWORDS for k in kwargs)
    return ModelFieldSpec(default, factory, says, constrained)


def record_fields(it: Evaluator, cls: Any) -> tuple[FieldInfo, ...]:
    cls = resolve(cls)
    if type(cls) is Record:
        return cls.fields
    if type(cls) is ClassRef and record_kind(it, cls) is not None:
        return tuple(info for info, _ in declared_fields(it, cls))
    raise CannotEvaluate(f"{describe(cls)} is not a dataclass or Struct of the source read")


def type_hints(it: Evaluator, cls: Any, extras: bool) -> dict[str, Any]:
    cls = resolve(cls)
    if type(cls) is Record:
        pairs = [(info.name, info.type) for info in cls.fields]
    elif type(cls) is ClassRef:
        pairs = [(info.name, hint) for info, hint in declared_fields(it, cls, hints=True)]
    else:
        raise CannotEvaluate(f"the type hints of {describe(cls)} are not known statically")
    return {name: hint if extras else strip_annotated(hint) for name, hint in pairs}


def instance(it: Evaluator, cls: ClassRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`Opt(help="...")` for a record class of the source: its fields' values."""
    fields = declared_fields(it, cls)
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


def defstruct(it: Evaluator, args: list[Any], kwargs: dict[str, Any], kind: str) -> Record:
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
    missing = Modeled(MISSING_OF[kind])
    fields: list[FieldInfo] = []
    for spec in specs:
        spec = resolve(spec)
        if type(spec) is str:
            spec = (spec, Modeled("typing.Any"))
        if type(spec) not in (list, tuple) or not 2 <= len(spec) <= 3 or type(spec[0]) is not str:
            raise CannotEvaluate(f"a field of {what} is not (name, type[, default])")
        default, factory = (spec[2], missing) if len(spec) == 3 else (missing, missing)
        if type(default) is FieldSpec:
            default, factory = spec_values(default, missing)
        site = it.loader.type_sites.get(id(spec[1]), (None, None))[1]
        fields.append(FieldInfo(spec[0], spec[1], default, factory, site))
    it.budget.visit(len(fields))
    return Record(args[0], tuple(fields), namespace, kind)


def spec_values(spec: FieldSpec, missing: Modeled) -> tuple[Any, Any]:
    return (
        missing if spec.default is ABSENT else spec.default,
        missing if spec.factory is ABSENT else spec.factory,
    )


def class_annotations(it: Evaluator, cls: ClassRef) -> dict[str, Any]:
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
            result[child.target.id] = annotation_value(it, cls, child.annotation)
    return result
