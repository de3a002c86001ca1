"""pydantic's own view of a model of the source: `Model.model_fields`, each a `ModelField` with
its annotation (without `Annotated`), default (`PydanticUndefined` when required), factory and
what `Field(...)` says, attribute docstrings under `use_attribute_docstrings`, and the field
methods a helper calls (`is_required()`, `get_default()`)."""

from __future__ import annotations

import ast
import itertools
from typing import TYPE_CHECKING, Any

from argmatrix.loaders.static.classes import (
    class_attribute,
)
from argmatrix.loaders.static.records import (
    MODEL_FIELD_SAYS,
    FieldInfo,
    ModelFieldSpec,
    declared_fields,
    field_lineage,
    lineage,
    record_kind,
)
from argmatrix.loaders.static.typeforms import UNDEFINED, Modeled, TypeForm
from argmatrix.loaders.static.values import (
    CannotEvaluate,
    ClassRef,
    _Ref,
    resolve,
)

if TYPE_CHECKING:
    from argmatrix.loaders.static.interpreter import Interpreter


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
    for info, hint in declared_fields(it, cls):
        it.budget.visit(4)
        annotation = hint
        metadata: list[Any] = []
        specs: list[Any] = []
        if type(hint) is TypeForm and hint.origin == Modeled("typing.Annotated"):
            annotation = hint.args[0]
            for item in hint.args[1:]:
                (specs if type(resolve(item)) is ModelFieldSpec else metadata).append(item)
        says: dict[str, Any] = dict.fromkeys(MODEL_FIELD_SAYS)
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
    for owner in field_lineage(cls, 0):
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
    for owner in reversed(field_lineage(cls, 0)):
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
    for owner in lineage(cls):
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


def model_field_attribute(it: Interpreter, field: ModelField, attr: str) -> Any:
    if attr in ("annotation", "default", "default_factory"):
        return getattr(field, attr)
    if attr in MODEL_FIELD_SAYS:
        return dict(field.says)[attr]
    if attr == "metadata":
        if field.constrained:
            raise CannotEvaluate("a field's constraints are objects static reading does not build")
        return list(field.metadata)
    if attr in ("is_required", "get_default"):
        return Modeled(f"pydantic.FieldInfo.{attr}", field)
    raise CannotEvaluate(f"a pydantic field's `{attr}` is not known statically")


def model_field_call(it: Interpreter, function: Modeled, args: list[Any], kwargs: Any) -> Any:
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
