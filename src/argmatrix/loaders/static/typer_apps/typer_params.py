"""The parameters Typer makes of a function's signature (`typer.utils.get_params_from_function`
and `typer.main.get_click_param`), read from the values static reading computes of each
parameter's annotation and default: `Annotated[T, typer.Option(...)]` (through a type alias, a
quoted annotation, an `Annotated` inside another), a `typer.Option(...)` default (one written in
the signature, or an object of the module used as the default), a plain default (an option),
none (an argument); an enum is its values as choices, `list[X]` repeatable, a bool a
`--x/--no-x` pair, `min`/`max` a range, `rich_help_panel` the section, `default_factory` a
default computed when the command runs. What Typer refuses when the app is built is refused."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import BOOL, MISSING, STRING, ParamFacts, TypeFacts
from argmatrix.loaders.static.click_commands.click_params import model_name, option_decls
from argmatrix.loaders.static.click_commands.framework_values import FrameworkCall, framework_of
from argmatrix.loaders.static.declared_fields.declared import enum_members
from argmatrix.loaders.static.declared_fields.typeforms import TypeForm
from argmatrix.loaders.static.python.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    EnumMember,
    ExternalRef,
    resolve,
    settle,
    short_source,
)
from argmatrix.model.registry import SourceLine, Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.click_commands.clicks import ClickReader
    from argmatrix.loaders.static.python.context import ModuleContext

TYPER = "typer"
Function = ast.FunctionDef | ast.AsyncFunctionDef
_NUMBERS = {"int": ("IntRange", "integer range"), "float": ("FloatRange", "float range")}
_SIMPLE = {
    "str": STRING,
    "int": TypeFacts("Int", "integer"),
    "float": TypeFacts("Float", "float"),
    "bool": BOOL,
}
_EXTERNAL = {
    "pathlib.Path": TypeFacts("Path", "path"),
    "pathlib.PurePath": TypeFacts("Path", "path"),
    "datetime.datetime": TypeFacts("DateTime", "datetime"),
    "uuid.UUID": TypeFacts("UUID", "uuid"),
}
_FILES = ("FileText", "FileTextWrite", "FileBinaryRead", "FileBinaryWrite")
_CONTEXTS = ("typer.Context", "click.Context", "click.core.Context", "typer.models.Context")
_QUOTED_LIMIT = 4096  # characters of a quoted annotation static reading parses
# Keywords whose value decides what the parameter is (see click_params.DECIDING).
_DECIDING = ("hidden", "count", "is_flag", "is_eager", "expose_value", "case_sensitive")


class Declared:
    """One parameter of the signature as Typer sees it: its kind (`Option`, `Argument`), the
    option names given, the settings of its `typer.Option(...)` (evaluated), its default
    (`...`: none), its annotation (without `Annotated`), where it is written."""

    def __init__(
        self,
        kind: str,
        decls: list[Any],
        info: FrameworkCall | None,
        default: Any,
        annotation: Any,
        where: tuple[str, int],
    ) -> None:
        self.kind = kind
        self.decls = decls
        self.info = info
        self.settings = {k: settle(resolve(v)) for k, v in (info.kwargs if info else {}).items()}
        self.default = default
        self.annotation = annotation
        self.where = where

    def source(self, key: str) -> str:
        """The source text of a setting (of the default: the `typer.Option(...)`'s first
        argument, or what follows `=`)."""
        if self.info is None:
            return self.default.source if type(self.default) is Unevaluated else key
        if key == "default" and self.info.args and self.kind and "default" not in self.info.kwargs:
            return self.info.argument_source(0)
        return self.info.keyword_source(key)


class TyperParams:
    """Reads the parameters of the functions of a read's Typer apps."""

    def __init__(self, clicks: ClickReader) -> None:
        self.clicks = clicks
        self.loader = clicks.loader

    def info(self, value: Any) -> FrameworkCall | None:
        """A `typer.Option(...)`/`typer.Argument(...)` static reading recorded."""
        value = resolve(value)
        if (
            type(value) is FrameworkCall
            and type(value.callee) is ExternalRef
            and framework_of(value.callee.dotted) == TYPER
            and value.name in ("Option", "Argument")
        ):
            return value
        return None

    def is_run_function(self, module: ModuleContext, node: Function) -> bool:
        """Whether a function's parameters are declared with `typer.Option`/`typer.Argument`."""
        for argument, default_node in arguments(node):
            default = self._value(module, default_node, argument.lineno)
            if self.info(default) is not None:
                return True
            _, metadata = self._annotation(module, argument)
            if any(self.info(m) is not None for m in metadata):
                return True
        return False

    def params(self, module: ModuleContext, node: Function) -> tuple[ParamFacts, ...]:
        found = []
        for argument, default_node in arguments(node):
            self.loader.budget.step()
            declared = self._declared(module, argument, default_node)
            if declared is None:
                continue
            found.append(self._param(argument.arg, declared))
        return tuple(found)

    # -------------------------------------------------------------- what a parameter declares

    def _value(self, module: ModuleContext, node: ast.expr | None, line: int) -> Any:
        if node is None:
            return None
        return resolve(self.clicks.interpreter(module, line).try_eval(node))

    def _annotation(self, module: ModuleContext, argument: ast.arg) -> tuple[Any, list[Any]]:
        """The annotation's value without `Annotated` (nested ones flattened, as Python does),
        and the metadata of `Annotated`; a quoted annotation is read as the expression it
        holds (Typer evaluates it, `inspect.signature(eval_str=True)`)."""
        node = argument.annotation
        if node is None:
            return None, []
        if isinstance(node, ast.Constant) and type(node.value) is str:
            node = self._quoted(module, node)
        value = self._value(module, node, argument.lineno)
        metadata: list[Any] = []
        while type(value) is TypeForm and getattr(value.origin, "dotted", "") == "typing.Annotated":
            inner, *more = value.args
            metadata = [*more, *metadata]
            value = resolve(inner)
        return value, metadata

    def _quoted(self, module: ModuleContext, node: ast.Constant) -> ast.expr:
        text = str(node.value)
        if len(text) > _QUOTED_LIMIT:
            return node
        self.loader.budget.work(len(text))
        try:
            parsed = ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return node
        for child in ast.walk(parsed):  # located at the string, so it is quoted whole
            self.loader.budget.visit(1)
            ast.copy_location(child, node)
        return parsed

    def _declared(
        self, module: ModuleContext, argument: ast.arg, default_node: ast.expr | None
    ) -> Declared | None:
        where = (str(module.path), argument.lineno)
        annotation, metadata = self._annotation(module, argument)
        if self._is_context(annotation):
            return None
        default = self._value(module, default_node, argument.lineno)
        if default_node is None:
            default = Ellipsis
        infos = [i for i in (self.info(m) for m in metadata) if i is not None]
        if len(infos) > 1:
            raise _refused(
                where, argument.arg, "more than one typer.Option or Argument in Annotated"
            )
        in_default = self.info(default)
        if infos:
            info = infos[0]
            if in_default is not None:
                raise _refused(
                    where, argument.arg, "typer.Option or Argument both in Annotated and as default"
                )
            decls = list(info.args)
            if info.name == "Argument" and (decls or "default" in info.kwargs):
                raise _refused(
                    where, argument.arg, "a default given to typer.Argument in Annotated"
                )
            if "default" in info.kwargs:
                raise _refused(where, argument.arg, "a default given to typer.Option in Annotated")
            return Declared(info.name, decls, info, default, annotation, where)
        if in_default is not None:
            positional = list(in_default.args)
            value = positional[0] if positional else in_default.kwargs.get("default", Ellipsis)
            return Declared(in_default.name, positional[1:], in_default, value, annotation, where)
        if default is Ellipsis or (default_node is not None and _is_ellipsis(default_node)):
            return Declared("Argument", [], None, Ellipsis, annotation, where)
        return Declared("Option", [], None, default, annotation, where)

    def _is_context(self, annotation: Any) -> bool:
        return type(annotation) is ExternalRef and annotation.dotted in _CONTEXTS

    # -------------------------------------------------------------- the Click parameter

    def _param(self, name: str, declared: Declared) -> ParamFacts:
        where = declared.where
        label = _label(name, declared)
        for key in _DECIDING:
            value = declared.settings.get(key)
            if type(value) not in (bool, int, str, type(None)):
                self.clicks.params.undecided(where, label, key, declared.source(key), value)
        factory = declared.settings.get("default_factory")
        default = declared.default
        required = default is Ellipsis and factory is None
        if factory is not None:
            if default is not Ellipsis:
                raise _refused(where, name, "both a default and a default_factory")
            default = self.clicks.params.computed(resolve(factory), label, where)
        elif required:
            default = MISSING
        else:
            default = self._default(default, declared.source("default"), label, where)
        if declared.kind == "Argument" and not required and default is MISSING:
            default = None
        shape = self._shape(declared, default)
        if any(type(resolve(d)) is not str for d in declared.decls):
            raise ArgmatrixError.at(
                f"cannot read the option names of `{name}` statically",
                file=where[0],
                line=where[1],
                fix="spell the names out, or load the registry live",
            )
        decls = [resolve(d) for d in declared.decls]
        if declared.kind == "Option":
            return self._option(name, decls, declared, shape, required, default)
        return self._argument(name, declared, shape, required, default)

    def _default(self, value: Any, source: str, label: str, where: tuple[str, int]) -> Any:
        value = resolve(value)
        if type(value) is EnumMember:
            return value.value  # Typer shows an enum default as its value
        if value is None:
            return None
        if type(value) in (list, tuple) and any(type(resolve(v)) is EnumMember for v in value):
            value = type(value)(_member_value(resolve(v)) for v in value)
        return self.clicks.params.shown(value, source, label, "default", where)

    def _shape(self, declared: Declared, default: Any) -> tuple[TypeFacts, bool, int, bool]:
        """The Click type of the annotation, whether it is a list, the tuple arity (1: none),
        and whether it is a bool."""
        settings = declared.settings
        value = declared.annotation
        if value is None:
            kind = type(default).__name__ if default not in (None, MISSING) else "str"
            facts = _SIMPLE.get(kind, STRING)
            return self._ranged(facts, kind, settings), False, 1, kind == "bool"
        value = _without_none(value)
        if type(value) is TypeForm and type(value.origin) is BuiltinRef:
            if value.origin.name == "list" and value.args:
                return self._one(declared, value.args[0]), True, 1, False
            if value.origin.name == "tuple":
                items = tuple(self._one(declared, a) for a in value.args)
                tuple_type = TypeFacts(
                    "Tuple", "<" + " ".join(i.name for i in items) + ">", items=items
                )
                return tuple_type, False, len(items), False
        facts = self._one(declared, value)
        return facts, False, 1, facts == BOOL

    def _one(self, declared: Declared, value: Any) -> TypeFacts:
        value = resolve(value)
        settings = declared.settings
        if type(value) is BuiltinRef and value.name in _SIMPLE:
            return self._ranged(_SIMPLE[value.name], value.name, settings)
        if type(value) is ClassRef:
            try:
                members = enum_members(value, self.loader.budget)
            except CannotEvaluate:
                return TypeFacts(value.node.name, value.node.name)
            return TypeFacts(
                "Choice",
                "choice",
                choices=tuple(_member_value(m) for m in members),
                case_sensitive=settings.get("case_sensitive") is not False,
            )
        if type(value) is TypeForm and getattr(value.origin, "dotted", "") == "typing.Literal":
            return TypeFacts(
                "Choice",
                "choice",
                choices=tuple(value.args),
                case_sensitive=settings.get("case_sensitive") is not False,
            )
        if type(value) is ExternalRef:
            if value.dotted in _EXTERNAL:
                return _EXTERNAL[value.dotted]
            if framework_of(value.dotted) == TYPER and value.short in _FILES:
                return TypeFacts("File", "filename")
            return TypeFacts(value.short, value.short)
        text = short_source(value.source) if type(value) is Unevaluated else "a type"
        self.clicks.params.report(
            declared.where, f"the type of a parameter kept as source text: `{text}`"
        )
        return TypeFacts(text, text)

    def _ranged(self, facts: TypeFacts, kind: str, settings: dict[str, Any]) -> TypeFacts:
        low, high = settings.get("min"), settings.get("max")
        if kind in _NUMBERS and (low is not None or high is not None) and not settings.get("count"):
            name, label = _NUMBERS[kind]
            return TypeFacts(name, label, min=low, max=high)
        return facts

    def _option(
        self,
        name: str,
        decls: list[str],
        declared: Declared,
        shape: tuple[TypeFacts, bool, int, bool],
        required: bool,
        default: Any,
    ) -> ParamFacts:
        settings, where = declared.settings, declared.where
        type_, is_list, arity, is_bool = shape
        is_flag = is_bool and settings.get("is_flag") is not False
        flag_name = name.replace("_", "-")
        if not decls:
            decls = [f"--{flag_name}/--no-{flag_name}" if is_flag else f"--{flag_name}"]
        _, opts, secondary = option_decls([name, *decls])
        label = opts[0] if opts else name
        return ParamFacts(
            origin=SourceLine(*where),
            kind="option",
            name=name,
            opts=tuple(opts),
            secondary_opts=tuple(secondary),
            type=type_,
            required=required,
            nargs=arity,
            multiple=is_list,
            default=default,
            envvar=self._text(declared, "envvar", label),
            help=self._text(declared, "help", label),
            hidden=settings.get("hidden") is True,
            is_flag=is_flag,
            count=settings.get("count") is True,
            show_default=settings.get("show_default", True),
            metavar=_text(settings.get("metavar")),
            allow_from_autoenv=settings.get("allow_from_autoenv", True) is not False,
            panel=_text(settings.get("rich_help_panel")),
        )

    def _argument(
        self,
        name: str,
        declared: Declared,
        shape: tuple[TypeFacts, bool, int, bool],
        required: bool,
        default: Any,
    ) -> ParamFacts:
        settings = declared.settings
        type_, is_list, arity, _ = shape
        return ParamFacts(
            origin=SourceLine(*declared.where),
            kind="argument",
            name=name,
            opts=(name,),
            type=type_,
            required=required,
            nargs=-1 if is_list else arity,
            default=default,
            envvar=self._text(declared, "envvar", name),
            help=self._text(declared, "help", name),
            hidden=settings.get("hidden") is True,
            show_default=settings.get("show_default", True),
            metavar=_text(settings.get("metavar")),
            panel=_text(settings.get("rich_help_panel")),
        )

    def _text(self, declared: Declared, key: str, label: str) -> Any:
        value = declared.settings.get(key)
        source = declared.source(key)
        if key == "envvar":
            return self.clicks.params.envvar(value, source, label, declared.where)
        return self.clicks.params.help(value, source, label, declared.where)


def arguments(node: Function) -> list[tuple[ast.arg, ast.expr | None]]:
    """A function's parameters with their defaults (None: it has none)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    return pairs


def _label(name: str, declared: Declared) -> str:
    """How the model will name the parameter (`Argument.name`), for what is said of it."""
    if declared.kind != "Option":
        return name
    given = [d for d in (resolve(d) for d in declared.decls) if type(d) is str]
    if not given:
        return f"--{name.replace('_', '-')}"
    _, opts, secondary = option_decls([name, *given])
    return model_name([*opts, *secondary], name)


def _refused(where: tuple[str, int], name: str, what: str) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"Typer refuses the parameter `{name}`: {what}; building the app fails there",
        file=where[0],
        line=where[1],
        fix="declare the parameter as Typer accepts it",
    )


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _text(value: Any) -> str | None:
    return value if type(value) is str else None


def _without_none(value: Any) -> Any:
    """`Optional[X]`, `X | None`: X."""
    if type(value) is TypeForm and getattr(value.origin, "dotted", "") in (
        "typing.Union",
        "types.UnionType",
    ):
        others = [a for a in value.args if getattr(a, "dotted", "") != "types.NoneType"]
        if len(others) == 1:
            return others[0]
    return value


def _member_value(member: Any) -> Any:
    return member.value if type(member) is EnumMember else member
