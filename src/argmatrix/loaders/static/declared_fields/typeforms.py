"""The names of `typing`, `dataclasses`, `msgspec` and `pydantic` that static reading models
(`Modeled`), and the typing forms built from them (`TypeForm`: `Annotated[int, Opt()]`,
`Optional[X]`, `Literal[...]`, `list[X]`, `X | None`), as `get_origin`/`get_args` see them. The
bottom of the model of declarative registries: values only, nothing read from source."""

from __future__ import annotations

from typing import Any

from argmatrix.loaders.static.python.context import Site
from argmatrix.loaders.static.python.values import (
    BaseRef,
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    describe,
)
from argmatrix.model.registry import Unevaluated

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
        "typing.Final",
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
TYPE_MODULES = ("typing.", "types.", "collections.abc.")


class Modeled(BaseRef):
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


class TypeForm(BaseRef):
    """A subscripted type: `origin[args]` (`Annotated[int, Opt()]`, `list[str]`, a union)."""

    __slots__ = ("args", "origin")
    _compared = ("origin", "args")

    def __init__(self, origin: Any, args: tuple[Any, ...]) -> None:
        self.origin = origin
        self.args = args


class FieldInfo(BaseRef):
    """One field, as `dataclasses.fields()` or `msgspec.structs.fields()` describe it."""

    __slots__ = ("default", "default_factory", "name", "site", "type")
    _compared = ("name", "type", "default", "default_factory")

    def __init__(self, name: str, kind: Any, default: Any, factory: Any, site: Site | None) -> None:
        self.name = name
        self.type = kind
        self.default = default
        self.default_factory = factory
        self.site = site


class Record(BaseRef):
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
    args = tuple(type_value(a) for a in args)
    if type(base) is Modeled:
        name = base.dotted
        if name == "typing.Optional":
            return TypeForm(Modeled("typing.Union"), (args[0], NONE_TYPE))
        if name == "typing.Annotated":
            inner = args[0]
            if type(inner) is TypeForm and inner.origin == base:
                # `Annotated[Annotated[T, x], y]` is `Annotated[T, x, y]`, as typing flattens it
                args = (*inner.args, *args[1:])
            return TypeForm(base, args)
        if name in ("typing.Union", "typing.Literal", "typing.ClassVar", "typing.Final"):
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
    return TypeForm(Modeled("types.UnionType"), (type_value(left), type_value(right)))


def is_type(value: Any) -> bool:
    return (
        value is None
        or type(value) in (BuiltinRef, TypeForm, ClassRef, Record)
        or (type(value) is Modeled and value.dotted.startswith(TYPE_MODULES))
    )


def type_value(value: Any) -> Any:
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


def strip_annotated(hint: Any) -> Any:
    if type(hint) is TypeForm and hint.origin == Modeled("typing.Annotated"):
        return hint.args[0]
    return hint
