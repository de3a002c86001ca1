"""The parameter type of a Click option or argument, from the value static reading computed for its
`type=` (Click's rules of `click.types.convert_type`): a builtin, one of Click's constants or
types (`click.Choice([...])`, `click.IntRange(1, 65535)`, `click.Path(...)`), a class of the
source deriving from one of them (read as what it derives from, with what its `__init__` hands
that class), a `ParamType` of the source (its class and `name`), a function (Click calls it), a
tuple of types. A value static reading cannot compute is kept as source text and said."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import BOOL, STRING, TypeFacts
from argmatrix.loaders.static.click_commands.framework_calls import framework_base
from argmatrix.loaders.static.click_commands.framework_values import FrameworkCall, framework_of
from argmatrix.loaders.static.declared_fields.declared import enum_members
from argmatrix.loaders.static.python.budget import Budget
from argmatrix.loaders.static.python.classes import class_attribute
from argmatrix.loaders.static.python.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    describe,
    resolve,
    short_source,
)
from argmatrix.model.registry import Unevaluated

CLICK = "click"
BUILTIN_TYPES = {
    "str": STRING,
    "int": TypeFacts("Int", "integer"),
    "float": TypeFacts("Float", "float"),
    "bool": BOOL,
}
_CONSTANT_TYPES = {
    "STRING": STRING,
    "INT": TypeFacts("Int", "integer"),
    "FLOAT": TypeFacts("Float", "float"),
    "BOOL": BOOL,
    "UUID": TypeFacts("UUID", "uuid"),
    "UNPROCESSED": TypeFacts("Unprocessed", "text"),
}
# Click's types made by a call, read from what the call gives them.
TYPE_CLASSES = frozenset(
    {"Choice", "IntRange", "FloatRange", "Path", "File", "DateTime", "Tuple", "UUIDParameterType"}
)
Say = Callable[[str], None]  # a warning about the parameter, at its line


class TypeReader:
    """Reads a `type=` value for one parameter: `label` names it in what is said, `where` is
    its line, `say` says a warning there, `member` shows an Enum member as Click does."""

    def __init__(
        self,
        budget: Budget,
        label: str,
        where: tuple[str, int],
        say: Say,
        member: Callable[[EnumMember], Any],
    ) -> None:
        self.budget = budget
        self.label = label
        self.where = where
        self.say = say
        self.member = member
        # A composite type of the source's (`CompositeParamType`): the values it takes, which
        # are the parameter's nargs when none is given.
        self.arity: int | None = None

    def facts(self, value: Any, source: str, depth: int = 0) -> TypeFacts:
        value = resolve(value)
        kind = type(value)
        if depth > 8 or kind is Unevaluated:
            return self.kept(value, source)
        if kind in (list, tuple):
            items = tuple(self.facts(v, source, depth + 1) for v in value)
            return TypeFacts("Tuple", "<" + " ".join(i.name for i in items) + ">", items=items)
        if kind is BuiltinRef and value.name in BUILTIN_TYPES:
            return BUILTIN_TYPES[value.name]
        if kind is ExternalRef:
            return self._external(value, source)
        if kind is FunctionRef:
            return TypeFacts("Func", value.node.name)
        if kind is LambdaRef:
            return TypeFacts("Func", "<lambda>")
        if kind is ClassRef:
            if framework_base(value) is not None:
                raise self.refused(f"an uninstantiated parameter type ({value.node.name})")
            return TypeFacts("Func", value.node.name)  # Click calls the class on the value
        if kind is FrameworkCall:
            return self._made(value, source, depth)
        return self.kept(Unevaluated(source, f"{describe(value)} is not a parameter type"), source)

    def kept(self, value: Any, source: str) -> TypeFacts:
        """A type only running would tell: its source text, said."""
        reason = value.reason if type(value) is Unevaluated and value.reason else ""
        text = short_source(source)
        self.say(
            f"{self.label}: type kept as source text: `{text}`" + (f" ({reason})" if reason else "")
        )
        return TypeFacts(text, text)

    def refused(self, what: str) -> ArgmatrixError:
        return ArgmatrixError.at(
            f"Click refuses the type of {self.label}: {what}",
            file=self.where[0],
            line=self.where[1],
            fix="give `type=` an instance of the parameter type (`click.Path()`), as Click"
            " requires",
        )

    def _external(self, value: ExternalRef, source: str) -> TypeFacts:
        if framework_of(value.dotted) is None:  # `pathlib.Path`, `uuid.UUID`: Click calls it
            return TypeFacts("Func", value.short)
        constant = _CONSTANT_TYPES.get(value.short)
        if constant is not None:
            return constant
        if value.short in TYPE_CLASSES or value.short.endswith("ParamType"):
            raise self.refused(f"an uninstantiated parameter type ({value.dotted})")
        return self.kept(
            Unevaluated(source, f"`{value.dotted}` is not a type static reading knows"), source
        )

    def _made(self, call: FrameworkCall, source: str, depth: int) -> TypeFacts:
        """`click.Choice([...])`, or an object of a class of the source deriving from one of
        Click's types (read as that type) or from `ParamType` (its class and `name`)."""
        if type(call.callee) is ExternalRef:
            name, args, kwargs = call.name, call.args, call.kwargs
            if framework_of(call.callee.dotted) != CLICK:
                return self.kept(
                    Unevaluated(source, f"`{call.callee.dotted}(...)` is not a Click type"), source
                )
        else:
            assert isinstance(call.callee, ClassRef)
            base = framework_base(call.callee)
            assert base is not None
            name = base.short
            args, kwargs = call.init if call.init is not None else (call.args, call.kwargs)
            if name not in TYPE_CLASSES:
                return self._own_type(call)
        facts = self._click_type(name, args, kwargs, source, depth)
        if facts is None:
            return self.kept(
                Unevaluated(source, f"`{call.name}(...)` is not a type static reading knows"),
                source,
            )
        return facts

    def _own_type(self, call: FrameworkCall) -> TypeFacts:
        cls = call.callee
        assert type(cls) is ClassRef
        name = call.attrs.get("name")
        if name is None:
            try:
                name = class_attribute(cls, "name")
            except CannotEvaluate:
                name = ""
        kind = cls.node.name.partition("ParamType")[0].partition("ParameterType")[0]
        base = framework_base(cls)
        if base is not None and base.short == "CompositeParamType":
            try:
                arity = call.attrs.get("arity", class_attribute(cls, "arity"))
            except CannotEvaluate as exc:
                raise self.refused_arity(exc.reason) from None
            if type(arity) is not int:
                raise self.refused_arity(f"{describe(arity)} is not a number")
            self.arity = arity
        return TypeFacts(kind, name if type(name) is str else "")

    def refused_arity(self, reason: str) -> ArgmatrixError:
        return ArgmatrixError.at(
            f"static reading stopped: {self.label}: the number of values its type"
            f" `{short_source(self.label)}` takes (`arity`) is not known statically ({reason})",
            file=self.where[0],
            line=self.where[1],
            fix="give the option `nargs=`, or load the registry live (registry.mode: live)",
        )

    def _click_type(
        self, name: str, args: list[Any], kwargs: dict[str, Any], source: str, depth: int
    ) -> TypeFacts | None:
        def given(*names: str) -> dict[str, Any]:
            bound = dict(zip(names, args, strict=False))
            bound.update(kwargs)
            return {k: resolve(v) for k, v in bound.items()}

        if name in ("IntRange", "FloatRange"):
            bound = given("min", "max", "min_open", "max_open", "clamp")
            for key in ("min", "max"):
                if type(bound.get(key)) not in (int, float, type(None)):
                    bound[key] = self._bound(bound.get(key), key, source)
            return TypeFacts(
                name,
                "integer range" if name == "IntRange" else "float range",
                min=bound.get("min"),
                max=bound.get("max"),
                min_open=bound.get("min_open") is True,
                max_open=bound.get("max_open") is True,
            )
        if name == "Choice":
            bound = given("choices", "case_sensitive")
            return TypeFacts(
                "Choice",
                "choice",
                choices=self._choices(bound.get("choices"), source),
                case_sensitive=self._case_sensitive(bound.get("case_sensitive", True), source),
            )
        if name == "Path":
            bound = given("exists", "file_okay", "dir_okay")
            file_okay, dir_okay = bound.get("file_okay", True), bound.get("dir_okay", True)
            kind = (
                "file"
                if file_okay and not dir_okay
                else "directory"
                if dir_okay and not file_okay
                else "path"
            )
            return TypeFacts("Path", kind)
        if name == "File":
            return TypeFacts("File", "filename")
        if name == "DateTime":
            return TypeFacts("DateTime", "datetime")
        if name == "UUIDParameterType":
            return TypeFacts("UUID", "uuid")
        if name == "Tuple":
            types = given("types").get("types")
            if type(types) in (list, tuple):
                return self.facts(tuple(types), source, depth + 1)  # type: ignore[arg-type]
        return None

    def _case_sensitive(self, value: Any, source: str) -> bool:
        """A Choice's `case_sensitive`: what the command line accepts depends on it, so one
        static reading cannot compute stops the read (never Click's default in its place)."""
        if type(value) is bool:
            return value
        reason = value.reason if type(value) is Unevaluated else f"{describe(value)}"
        raise ArgmatrixError.at(
            f"static reading stopped: {self.label}: the choice's `case_sensitive=` cannot be"
            f" computed statically (`{short_source(source)}`: {reason})",
            file=self.where[0],
            line=self.where[1],
            fix="spell it out, or load the registry live (registry.mode: live)",
        )

    def _bound(self, value: Any, key: str, source: str) -> Any:
        reason = (
            value.reason if type(value) is Unevaluated else f"{describe(value)} is not a number"
        )
        self.say(
            f"{self.label}: the range's {key} kept as source text: `{short_source(source)}` ({reason})"
        )
        return Unevaluated(short_source(source), reason)

    def _choices(self, choices: Any, source: str) -> tuple[Any, ...] | Unevaluated:
        """The choices as the command line takes them: an Enum's members (a class, or a list
        of members) as Click names them."""
        if type(choices) is ClassRef:
            try:
                choices = enum_members(choices, self.budget)
            except CannotEvaluate as exc:
                return self._choices_kept(Unevaluated(source, exc.reason), source)
        if type(choices) not in (list, tuple, set, frozenset):
            reason = (
                choices.reason
                if type(choices) is Unevaluated
                else f"{describe(choices)} is not a list"
            )
            return self._choices_kept(Unevaluated(source, reason), source)
        shown: list[Any] = []
        for choice in choices:
            choice = resolve(choice)
            if type(choice) is EnumMember:
                shown.append(self.member(choice))
            elif type(choice) in (str, int, float, bool):
                shown.append(choice)
            else:
                reason = (
                    choice.reason
                    if type(choice) is Unevaluated
                    else f"{describe(choice)} is a choice only running would show"
                )
                return self._choices_kept(Unevaluated(source, reason), source)
        return tuple(shown)

    def _choices_kept(self, value: Unevaluated, source: str) -> Unevaluated:
        reason = f" ({value.reason})" if value.reason else ""
        self.say(f"{self.label}: choices kept as source text: `{short_source(source)}`{reason}")
        return Unevaluated(source, value.reason)
