"""pydantic's own view of a model of the source: `Model.model_fields`, each a `ModelField` with
its annotation (without `Annotated`), default (`PydanticUndefined` when required), factory and
what `Field(...)` says, attribute docstrings under `use_attribute_docstrings`, and the field
methods a helper calls (`is_required()`, `get_default()`)."""

from __future__ import annotations

import ast
import inspect
import itertools
from typing import Any

from argmatrix.loaders.static.declared_fields.records import (
    ABSENT,
    MODEL_FIELD_SAYS,
    FieldSpec,
    ModelFieldSpec,
    declared_fields,
    field_lineage,
    is_final,
    record_kind,
)
from argmatrix.loaders.static.declared_fields.typeforms import (
    UNDEFINED,
    FieldInfo,
    Modeled,
    TypeForm,
)
from argmatrix.loaders.static.python.classes import (
    class_attribute,
    direct_bases,
)
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.values import (
    BaseRef,
    CannotEvaluate,
    ClassRef,
    is_plain,
    resolve,
)


class ModelField(BaseRef):
    """One field of a pydantic model, as `Model.model_fields[name]` describes it. `unknown`: the
    attributes static reading cannot know (set by a generator of the config), with the reason."""

    __slots__ = (
        "annotation",
        "constrained",
        "default",
        "default_factory",
        "metadata",
        "says",
        "unknown",
    )
    _compared = ("annotation", "default", "default_factory", "says", "metadata", "unknown")

    def __init__(
        self,
        annotation: Any,
        default: Any,
        default_factory: Any,
        says: dict[str, Any],
        metadata: list[Any],
        constrained: bool,
        unknown: dict[str, str] | None = None,
    ) -> None:
        self.annotation = annotation
        self.default = default
        self.default_factory = default_factory
        self.says = tuple(sorted(says.items()))
        self.metadata = metadata
        self.constrained = constrained
        self.unknown = tuple(sorted((unknown or {}).items()))


# ------------------------------------------------------------------ pydantic models

MODEL_ATTRIBUTES = frozenset({"model_fields", "__fields__"})

# Config keys that change a field's `FieldInfo` by running a function static reading does not
# run: the attribute each sets (pydantic's `update_field_from_config`).
GENERATORS = {"alias_generator": "alias", "field_title_generator": "title"}


def model_attribute(it: Evaluator, cls: ClassRef, attr: str) -> Any:
    """`Model.model_fields` of a pydantic model of the source; of any other class, the class
    attribute of that name."""
    if record_kind(it, cls) != "pydantic":
        return class_attribute(cls, attr)
    return dict(model_fields(it, cls))


def model_config(it: Evaluator, cls: ClassRef, depth: int = 0) -> dict[str, Any]:
    """The config of a pydantic model as pydantic merges it (`ConfigWrapper.for_model`): each
    base model's, in the order of the bases, then the class's `model_config`, then its class
    keywords (`class M(BaseModel, use_attribute_docstrings=True)`), later keys winning. A
    config static reading cannot read makes it unknown (`CannotEvaluate`), never empty."""
    cache: dict[Any, Any] = it.loader.declarations
    key = ("config", id(cls.node))
    found = cache.get(key)
    if found is not None and found[0] is cls.node:
        return found[1]  # type: ignore[no-any-return]
    name = cls.node.name
    if depth > it.budget.limits.call_depth:
        raise CannotEvaluate(f"the bases of `{name}` are nested too deep")
    config: dict[str, Any] = {}
    for base in direct_bases(cls):
        if type(base) is not ClassRef:
            continue  # `BaseModel` or `object` (record_kind refused any other)
        if record_kind(it, base) == "pydantic":
            config.update(model_config(it, base, depth + 1))
        elif "model_config" in base.module.loader.members(base.node)[0]:
            raise CannotEvaluate(f"the `model_config` of the mixin `{base.node.name}` is not read")
    members = cls.module.loader.members(cls.node)[0]
    if "Config" in members:
        raise CannotEvaluate(f"`{name}.Config` (pydantic's older config class) is not read")
    if "model_config" in members:
        own = resolve(class_attribute(cls, "model_config"))
        if type(own) is not dict:
            raise CannotEvaluate(f"`{name}.model_config` is not known statically")
        config.update(own)
    for keyword in cls.node.keywords:
        if keyword.arg is None:
            raise CannotEvaluate(f"the class keywords `**...` of `{name}` are not known statically")
        config[keyword.arg] = cls.module.evaluate(keyword.value, cls.node.lineno)
    cache[key] = (cls.node, config)
    return config


def _config_flag(config: dict[str, Any], key: str, name: str) -> bool:
    value = resolve(config.get(key))
    if not is_plain(value):
        raise CannotEvaluate(f"`{key}` of `{name}`'s config is not known statically")
    return bool(value)


def model_fields(it: Evaluator, cls: ClassRef) -> dict[str, ModelField]:
    """The fields of a pydantic model, bases first, as pydantic describes them: the annotation
    without `Annotated` or `Final` (its other metadata in `metadata`), the default
    (`PydanticUndefined` when required) or factory (else None), and what `Field(...)` says: the
    `Field`s of `Annotated` in order then the one assigned, later ones winning (pydantic's
    `FieldInfo._construct`). A field declared in a class whose config says
    `use_attribute_docstrings` has the string right after it as its description unless a
    `Field` gives one; an inherited field keeps what its declaring class gave it."""
    cache: dict[Any, Any] = it.loader.declarations
    key = ("model", id(cls.node))
    found = cache.get(key)
    if found is not None and found[0] is cls.node:
        return found[1]  # type: ignore[no-any-return]
    owners = field_lineage(cls, 0)
    unknown: dict[str, str] = {}
    documented: dict[int, dict[str, str]] = {}
    for owner in owners:
        if record_kind(it, owner) != "pydantic":
            continue
        _refuse_unannotated(owner)
        config = model_config(it, owner)
        for name, attr in GENERATORS.items():
            if resolve(config.get(name)) is not None:
                unknown[attr] = (
                    f"`{name}` of `{owner.node.name}`'s config makes a field's `{attr}`, which"
                    " only running it would give"
                )
        if _config_flag(config, "use_attribute_docstrings", owner.node.name):
            documented[id(owner.node)] = _attribute_docstrings(owner)
    result: dict[str, ModelField] = {}
    for info, hint in declared_fields(it, cls):
        it.budget.visit(4)
        declaring = _declaring(owners, info)
        annotation = _without_final(hint)
        metadata: list[Any] = []
        specs: list[Any] = []
        if type(hint) is TypeForm and hint.origin == Modeled("typing.Annotated"):
            annotation = _without_final(hint.args[0])
            for item in hint.args[1:]:
                (specs if type(resolve(item)) is ModelFieldSpec else metadata).append(item)
        assigned = _assigned(declaring, info)
        if type(assigned) is FieldSpec:  # `dataclasses.field(...)`, which pydantic reads too
            assigned = ModelFieldSpec(
                UNDEFINED if assigned.default is ABSENT else assigned.default,
                UNDEFINED if assigned.factory is ABSENT else assigned.factory,
                (),
                False,
            )
        if type(assigned) is ModelFieldSpec:
            specs.append(assigned)  # the assigned `Field(...)` comes last, and wins
        merged, constrained, own_unknown = _merged(specs, info.name)
        if assigned is not _NOTHING and type(assigned) is not ModelFieldSpec:
            if assigned is Ellipsis and ("default" in merged or "default_factory" in merged):
                raise CannotEvaluate(f"`{info.name} = ...` with a default in its `Annotated`")
            if assigned is not Ellipsis:
                merged["default"] = assigned  # a plain value assigned is the default
        if "default" in merged and "default_factory" in merged:
            raise CannotEvaluate(
                f"the field `{info.name}` is given a default and a factory (pydantic raises)"
            )
        says: dict[str, Any] = dict.fromkeys(MODEL_FIELD_SAYS)
        says.update((k, v) for k, v in merged.items() if k in MODEL_FIELD_SAYS)
        docstrings = documented.get(id(declaring.node), {}) if declaring is not None else {}
        if says["description"] is None and info.name in docstrings:
            says["description"] = docstrings[info.name]
        field_unknown = {**unknown, **own_unknown}
        if merged.get("field_title_generator") is not None:
            field_unknown["title"] = "its `field_title_generator` makes it when it runs"
        if says["title"] is not None:
            field_unknown.pop("title", None)  # a title given is kept: generators make none
        result[info.name] = ModelField(
            annotation,
            merged.get("default", UNDEFINED),
            merged.get("default_factory"),
            says,
            metadata,
            constrained,
            field_unknown,
        )
    cache[key] = (cls.node, result)
    return result


def _without_final(hint: Any) -> Any:
    """pydantic's annotation of a `Final` field: `Final[T]` is T, a bare `Final` is `Any`."""
    if not is_final(hint):
        return hint
    return hint.args[0] if type(hint) is TypeForm else Modeled("typing.Any")


def _merged(specs: list[Any], name: str) -> tuple[dict[str, Any], bool, dict[str, str]]:
    """What `Field`s say together: each one's explicit keywords over the earlier ones', the
    dicts of `json_schema_extra` merged (pydantic's `FieldInfo._construct`)."""
    merged: dict[str, Any] = {}
    constrained = False
    unknown: dict[str, str] = {}
    for spec in specs:
        spec = resolve(spec)
        constrained = constrained or spec.constrained
        for key, value in spec.says:
            earlier = merged.get(key)
            if key == "json_schema_extra" and value is not None and earlier is not None:
                if type(resolve(earlier)) is dict and type(resolve(value)) is dict:
                    value = {**resolve(earlier), **resolve(value)}
                else:
                    unknown[key] = f"the `json_schema_extra`s of `{name}` are composed at run time"
            merged[key] = value
        if spec.default != UNDEFINED:
            merged["default"] = spec.default
        if spec.factory != UNDEFINED:
            merged["default_factory"] = spec.factory
    return merged, constrained, unknown


def _declaring(owners: list[ClassRef], info: FieldInfo) -> ClassRef | None:
    """The class of the source that declares a field."""
    if info.site is None:
        return None
    for owner in owners:
        if (
            owner.node.name == info.site.cls
            and str(owner.module.path) == info.site.file
            and owner.node.lineno == info.site.start
        ):
            return owner
    return None


_NOTHING: Any = object()  # a field is assigned nothing


def _assigned(owner: ClassRef | None, info: FieldInfo) -> Any:
    """What a field is assigned (a `Field(...)` or a plain value), read again where it is
    declared; `_NOTHING` when it is only annotated."""
    if owner is None or info.site is None:
        return _NOTHING
    for child in owner.node.body:
        if (
            isinstance(child, ast.AnnAssign)
            and child.lineno == info.site.line
            and child.value is not None
        ):
            return resolve(owner.module.evaluate(child.value, child.lineno, owner))
    return _NOTHING


def _attribute_docstrings(owner: ClassRef) -> dict[str, str]:
    """A string statement right after an annotated field of this class's own body (pydantic
    reads the source of the class alone), cleaned as pydantic cleans it."""
    found: dict[str, str] = {}
    for child, following in itertools.pairwise(owner.node.body):
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
    """`inspect.cleandoc`, which pydantic applies to an attribute's docstring (a pure function
    of the text written in the source)."""
    return inspect.cleandoc(text)


def model_field_attribute(it: Evaluator, field: ModelField, attr: str) -> Any:
    unknown = dict(field.unknown)
    if attr in unknown:
        raise CannotEvaluate(f"a pydantic field's `{attr}`: {unknown[attr]}")
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


def model_field_call(it: Evaluator, function: Modeled, args: list[Any], kwargs: Any) -> Any:
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


def _refuse_unannotated(owner: ClassRef) -> None:
    """pydantic refuses a public name assigned in a model's body without an annotation (it
    cannot tell a field from a class variable): building the class raises. A value static
    reading does not see as data (a function, a descriptor) may be one pydantic ignores: not
    followed either. Either way the fields are not known statically."""
    for child in owner.node.body:
        if not isinstance(child, ast.Assign):
            continue
        for target in child.targets:
            if (
                isinstance(target, ast.Name)
                and not target.id.startswith("_")
                and target.id != "model_config"
            ):
                raise CannotEvaluate(
                    f"`{owner.node.name}.{target.id}` is assigned without an annotation, which"
                    " pydantic refuses (or ignores, for some kinds of value)"
                )
