"""Static reading of Typer apps: `typer.Typer(...)`, `@app.command()`, `@app.callback()`,
`app.add_typer(...)` and functions written for `typer.run`, read as `typer.main.get_command`
builds the Click command of an app. Each parameter of a command's signature becomes the Click
parameter Typer makes of it: `Annotated[T, typer.Option(...)]` or a `typer.Option(...)`
default, a plain default (an option), none (an argument); an enum is its values as choices,
`list[X]` repeatable, a bool a `--x/--no-x` pair, `min`/`max` a range, `rich_help_panel` the
section. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import BOOL, MISSING, STRING, CommandFacts, ParamFacts, TypeFacts
from argmatrix.loaders.markup import MARKUP_MODES, RICH
from argmatrix.loaders.static.click_params import option_decls
from argmatrix.loaders.static.clicks import (
    ClickReader,
    as_assign,
    imported_module,
    report_unfollowed,
)
from argmatrix.loaders.static.declared import docstring, enum_members
from argmatrix.loaders.static.typeforms import TypeForm
from argmatrix.loaders.static.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    EnumMember,
    ExternalRef,
    resolve,
    short_source,
)
from argmatrix.model.registry import SourceLine, Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.context import ModuleContext, ReadContext

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
_REGISTERING = frozenset({"command", "callback", "add_typer"})
_CONTEXTS = ("typer.Context", "click.Context", "click.core.Context", "typer.models.Context")
# What a later setting falls back on, key by key (`solve_typer_info_defaults`).
_INFO_KEYS = ("name", "context_settings", "hidden", "deprecated", "short_help", "callback")


@dataclass
class Registered:
    """A function an app registers (`@app.command(...)`, `@app.callback(...)`)."""

    module: ModuleContext
    function: Function
    call: ast.Call | None


@dataclass
class App:
    """A `typer.Typer(...)` of the source and what the module registers on it, in order."""

    module: ModuleContext
    call: ast.Call
    binding: str
    commands: list[Registered] = field(default_factory=list)
    callback: Registered | None = None
    groups: list[tuple[ModuleContext, ast.Call, App | None]] = field(default_factory=list)


class TyperReader:
    """Reads the Typer apps of a read: each module's apps found once."""

    def __init__(self, loader: ReadContext, clicks: ClickReader) -> None:
        self.loader = loader
        self.clicks = clicks
        self.scanned: dict[str, dict[str, App]] = {}

    # -------------------------------------------------------------- finding apps

    def typer_name(self, module: ModuleContext, node: ast.expr) -> str | None:
        """`Typer` for `typer.Typer` (or `Typer` imported from typer), else None."""
        try:
            value = resolve(self.clicks.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return None
        if type(value) is ExternalRef and value.dotted.split(".", 1)[0] == TYPER:
            return value.short
        return None

    def app_at(self, module: ModuleContext, name: str) -> App | None:
        found = self.apps_of(module).get(name)
        if found is not None:
            return found
        imported = module.imports.get(name)
        if imported is None or imported[1] is None:
            return None
        source = self.loader.module(imported[0])
        if source is None or source.is_stub or source is module:
            return None
        return self.apps_of(source).get(imported[1])

    def apps_of(self, module: ModuleContext) -> dict[str, App]:
        if module.name in self.scanned:
            return self.scanned[module.name]
        apps: dict[str, App] = {}
        self.scanned[module.name] = apps
        followed: set[int] = set()
        statements = self.clicks.top_level(module)
        for statement in statements:
            self.loader.budget.step()
            assigned = as_assign(statement)
            if assigned is not None:
                self._assigned(module, assigned, apps)
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._decorated(module, statement)
                followed.add(id(statement))
            elif (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and self._add_typer(module, statement.value)
            ):
                followed.add(id(statement))
        report_unfollowed(module, statements, followed, set(apps), _REGISTERING, "commands")
        return apps

    def _assigned(self, module: ModuleContext, node: ast.Assign, apps: dict[str, App]) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        value = node.value
        if isinstance(value, ast.Call) and self.typer_name(module, value.func) == "Typer":
            name = node.targets[0].id
            apps[name] = App(module, value, name)

    def _owner(self, module: ModuleContext, node: ast.expr, method: str) -> App | None:
        if not (
            isinstance(node, ast.Attribute)
            and node.attr == method
            and isinstance(node.value, ast.Name)
        ):
            return None
        return self.app_at(module, node.value.id)

    def _decorated(self, module: ModuleContext, node: Function) -> None:
        for decorator in node.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            call = decorator if isinstance(decorator, ast.Call) else None
            app = self._owner(module, func, "command")
            if app is not None:
                app.commands.append(Registered(module, node, call))
                return
            app = self._owner(module, func, "callback")
            if app is not None:
                app.callback = Registered(module, node, call)
                return

    def _add_typer(self, module: ModuleContext, call: ast.Call) -> bool:
        app = self._owner(module, call.func, "add_typer")
        if app is None:
            return False
        sub = call.args[0] if call.args else _keyword(call, "typer_instance")
        found = self.app_of(module, sub)
        if found is None:
            self.loader.report(
                str(module.path),
                call.lineno,
                f"`{short_source(module.segment(call))}` adds an app static reading cannot"
                " find in the source: the subcommands it adds are missing",
                stops=True,
            )
        app.groups.append((module, call, found))
        return True

    def app_of(self, module: ModuleContext, node: ast.expr | None) -> App | None:
        """The app a name of the source refers to: `models`, `jobs.app`."""
        if isinstance(node, ast.Name):
            return self.app_at(module, node.id)
        if isinstance(node, ast.Attribute):
            source = imported_module(module, node.value)
            if source is not None:
                return self.app_at(source, node.attr)
        return None

    def registered(self, module: ModuleContext, node: Function, target: str) -> CommandFacts | None:
        """The command (or the group, for its callback) an app of the module makes of a
        function it registers."""
        for app in self.apps_of(module).values():
            path = self._path_to(app, node, ())
            if path is None:
                continue
            facts = self.facts(app, target)
            for name in path:
                found = dict(facts.subcommands)
                if name not in found:
                    return facts  # an app of one command is that command
                facts = found[name]
            return facts
        return None

    def _path_to(self, app: App, node: Function, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if app.callback is not None and app.callback.function is node:
            return path
        for command in app.commands:
            if command.function is node:
                return (*path, self._command_name(command))
        for module, call, sub in app.groups:
            if sub is None:
                continue
            name = self._group_setting(module, call, sub, "name")
            if type(name) is not str:
                continue
            found = self._path_to(sub, node, (*path, name))
            if found is not None:
                return found
        return None

    # -------------------------------------------------------------- get_command

    def facts(self, app: App, target: str) -> CommandFacts:
        """`typer.main.get_command(app)`: a group if the app has a callback, sub-apps or more
        than one command; its one command otherwise. Its help and its commands' are marked up
        as the app's `rich_markup_mode` says."""
        return _with_markup(self._facts(app, target), self._markup(app))

    def _markup(self, app: App) -> str | None:
        """`typer.Typer(rich_markup_mode=...)`; without it, Typer's default: "rich" (the `typer`
        package installs Rich)."""
        if not _has(app.call, "rich_markup_mode"):
            return RICH
        mode = self._setting(app.module, app.call, "rich_markup_mode")
        return mode if mode in MARKUP_MODES else None

    def _facts(self, app: App, target: str) -> CommandFacts:
        typer_callback = self._setting(app.module, app.call, "callback")
        grouped = app.callback is not None or typer_callback is not None or app.groups
        if grouped or len(app.commands) > 1:
            return self._group(app, None)
        if len(app.commands) == 1:
            facts = self._command(app.commands[0])
            context = self._setting(app.module, app.call, "context_settings")
            if facts.auto_envvar_prefix is None and type(context) is dict:
                prefix = context.get("auto_envvar_prefix")
                if type(prefix) is str:
                    return _with_prefix(facts, prefix)
            return facts
        raise ArgmatrixError.at(
            f"{target} is a Typer app with no command",
            file=str(app.module.path),
            line=app.call.lineno,
            fix="register a command with @app.command(), or name the app that has them",
        )

    def _group(
        self, app: App, added: tuple[ModuleContext, ast.Call] | None, depth: int = 0
    ) -> CommandFacts:
        self.loader.budget.calls(depth)
        commands: list[tuple[str, CommandFacts]] = [
            (self._command_name(c), self._command(c)) for c in app.commands
        ]
        for module, call, sub in app.groups:
            if sub is None:
                continue
            group = self._group(sub, (module, call), depth + 1)
            if group.name:
                commands.append((group.name, group))
            else:
                commands.extend(group.subcommands)
        callback = self._solved(app, added, "callback")
        params: tuple[ParamFacts, ...] = ()
        if isinstance(callback, tuple):
            params = self.params(*callback)
        name = self._solved(app, added, "name")
        context = self._solved(app, added, "context_settings")
        prefix = context.get("auto_envvar_prefix") if type(context) is dict else None
        return CommandFacts(
            name=name if type(name) is str else "",
            help=self._group_help(app, added),
            short_help=_text(self._solved(app, added, "short_help")),
            params=params,
            is_group=True,
            subcommands=tuple(commands),
            auto_envvar_prefix=prefix if type(prefix) is str else None,
            hidden=self._solved(app, added, "hidden") is True,
            deprecated=self._solved(app, added, "deprecated") is True,
        )

    def _solved(self, app: App, added: tuple[ModuleContext, ast.Call] | None, key: str) -> Any:
        """A group setting as Typer solves it: `add_typer(...)`, else `@app.callback(...)`,
        else `typer.Typer(...)`. The callback function: `(module, function)`."""
        if added is not None and _has(added[1], key):
            return self._callback_value(added[0], added[1], key)
        if app.callback is not None and key == "callback":
            return (app.callback.module, app.callback.function)
        if app.callback is not None and _has(app.callback.call, key):
            return self._callback_value(app.callback.module, app.callback.call, key)
        if _has(app.call, key):
            return self._callback_value(app.module, app.call, key)
        return None

    def _callback_value(self, module: ModuleContext, call: ast.Call | None, key: str) -> Any:
        if key != "callback":
            return self._setting(module, call, key)
        node = _keyword(call, key)
        if isinstance(node, ast.Name) and isinstance(module.definitions.get(node.id), Function):
            return (module, module.definitions[node.id])
        return None

    def _group_setting(self, module: ModuleContext, call: ast.Call, sub: App, key: str) -> Any:
        return self._solved(sub, (module, call), key)

    def _group_help(self, app: App, added: tuple[ModuleContext, ast.Call] | None) -> str | None:
        """`solve_typer_info_help`: a `help=` given to `add_typer`, `@app.callback` or
        `typer.Typer`, in that order, else the docstring of the callback given to them."""
        places = [added, (app.callback.module, app.callback.call) if app.callback else None]
        places.append((app.module, app.call))
        for place in places:
            if place is not None and _has(place[1], "help"):
                value = self._setting(place[0], place[1], "help")
                return inspect.cleandoc(value) if type(value) is str else None
        for place in places:
            if place is None:
                continue
            if place is places[1] and app.callback is not None:
                found: Any = (app.callback.module, app.callback.function)
            else:
                found = self._callback_value(place[0], place[1], "callback")
            if isinstance(found, tuple):
                text = docstring(found[1])
                if text:
                    return inspect.cleandoc(text)
        return None

    def _setting(self, module: ModuleContext, call: ast.Call | None, key: str) -> Any:
        node = _keyword(call, key)
        if node is None:
            return None
        return resolve(self.clicks.interpreter(module, node.lineno).try_eval(node))

    def _command_name(self, command: Registered) -> str:
        call = command.call
        given = call.args[0] if call is not None and call.args else _keyword(call, "name")
        if given is not None:
            name = resolve(self.clicks.interpreter(command.module, given.lineno).try_eval(given))
            if type(name) is str:
                return name
        return command.function.name.lower().replace("_", "-")

    def _command(self, command: Registered) -> CommandFacts:
        help_ = self._setting(command.module, command.call, "help")
        if type(help_) is str:
            help_ = inspect.cleandoc(help_)
        elif help_ is None:
            text = docstring(command.function)
            help_ = inspect.cleandoc(text) if text else None
        context = self._setting(command.module, command.call, "context_settings")
        prefix = context.get("auto_envvar_prefix") if type(context) is dict else None
        return CommandFacts(
            name=self._command_name(command),
            help=_text(help_),
            short_help=_text(self._setting(command.module, command.call, "short_help")),
            params=self.params(command.module, command.function),
            auto_envvar_prefix=prefix if type(prefix) is str else None,
            hidden=self._setting(command.module, command.call, "hidden") is True,
            deprecated=self._setting(command.module, command.call, "deprecated") is True,
        )

    # -------------------------------------------------------------- typer.run

    def is_run_function(self, module: ModuleContext, node: Function) -> bool:
        """Whether a function's parameters are declared with `typer.Option`/`typer.Argument`."""
        for argument, default in _arguments(node):
            if default is not None and self._info_call(module, default) is not None:
                return True
            annotated = self._annotated(module, argument.annotation)
            if annotated is not None and annotated[1] is not None:
                return True
        return False

    def run_facts(self, module: ModuleContext, node: Function) -> CommandFacts:
        """The command `typer.run(function)` builds (a `typer.Typer()` of Typer's default
        markup: Rich's)."""
        return _with_markup(self._command(Registered(module, node, None)), RICH)

    def run_call(self, module: ModuleContext, call: ast.Call) -> CommandFacts | None:
        """`typer.run(main)`: the command it builds of `main`."""
        if self.typer_name(module, call.func) != "run" or not call.args:
            return None
        given = call.args[0]
        if isinstance(given, ast.Name):
            node = module.definitions.get(given.id)
            if isinstance(node, Function):
                return self.run_facts(module, node)
        return None

    # -------------------------------------------------------------- parameters

    def params(self, module: ModuleContext, node: Function) -> tuple[ParamFacts, ...]:
        found = []
        for argument, default in _arguments(node):
            self.loader.budget.step()
            param = self._param(module, argument, default)
            if param is not None:
                found.append(param)
        return tuple(found)

    def _info_call(
        self, module: ModuleContext, node: ast.expr | None
    ) -> tuple[str, ast.Call] | None:
        """`("Option", call)` for a `typer.Option(...)` call, likewise `Argument`."""
        if isinstance(node, ast.Call):
            name = self.typer_name(module, node.func)
            if name in ("Option", "Argument"):
                return name, node
        return None

    def _annotated(
        self, module: ModuleContext, node: ast.expr | None
    ) -> tuple[ast.expr, tuple[str, ast.Call] | None] | None:
        """`Annotated[T, typer.Option(...)]`: T and the Typer call among the metadata."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple)):
            return None
        try:
            base = resolve(self.clicks.interpreter(module, node.lineno).eval(node.value))
        except CannotEvaluate:
            return None
        if getattr(base, "dotted", None) != "typing.Annotated":
            return None
        inner, *metadata = node.slice.elts
        infos = [i for i in (self._info_call(module, m) for m in metadata) if i is not None]
        return inner, infos[0] if infos else None

    def _param(
        self, module: ModuleContext, argument: ast.arg, default_node: ast.expr | None
    ) -> ParamFacts | None:
        annotation = argument.annotation
        annotated = self._annotated(module, annotation)
        info: tuple[str, ast.Call] | None = None
        if annotated is not None:
            annotation, info = annotated
        settings: dict[str, Any] = {}
        decls: list[Any] = []
        where = (str(module.path), argument.lineno)
        it = self.clicks.interpreter(module, argument.lineno)
        if info is not None:  # Annotated: the names are the positionals, the default is `=`
            kind, call = info
            settings = self._keywords(module, call)
            decls = [it.try_eval(a) for a in call.args] if kind == "Option" else []
            default = it.try_eval(default_node) if default_node is not None else Ellipsis
        else:
            given = self._info_call(module, default_node)
            if given is not None:
                kind, call = given
                settings = self._keywords(module, call)
                positional = [it.try_eval(a) for a in call.args]
                default = positional[0] if positional else settings.pop("default", Ellipsis)
                decls = positional[1:]
            elif default_node is None or _is_ellipsis(default_node):
                kind, default = "Argument", Ellipsis
            else:
                kind, default = "Option", it.try_eval(default_node)
        if self._is_context(module, annotation):
            return None
        required = default is Ellipsis
        default = MISSING if required else self._default(resolve(default), argument.arg, where)
        if kind == "Argument" and not required and default is MISSING:
            default = None
        shape = self._shape(module, annotation, default, settings)
        if any(type(d) is not str for d in decls):
            raise ArgmatrixError.at(
                f"cannot read the option names of `{argument.arg}` statically",
                file=where[0],
                line=where[1],
                fix="spell the names out, or load the registry live",
            )
        if kind == "Option":
            return self._option(argument.arg, decls, settings, shape, required, default, where)
        return self._argument(argument.arg, settings, shape, required, default, where)

    def _keywords(self, module: ModuleContext, call: ast.Call) -> dict[str, Any]:
        it = self.clicks.interpreter(module, call.lineno)
        return {k.arg: resolve(it.try_eval(k.value)) for k in call.keywords if k.arg is not None}

    def _default(self, value: Any, label: str, where: tuple[str, int]) -> Any:
        if type(value) is EnumMember:
            return value.value  # Typer shows an enum default as its value
        if value is None:
            return None
        source = value.source if type(value) is Unevaluated else repr(value)
        label = f"--{label.replace('_', '-')}"
        return self.clicks.params.shown(value, source, label, "default", where)

    def _is_context(self, module: ModuleContext, node: ast.expr | None) -> bool:
        if node is None:
            return False
        try:
            value = resolve(self.clicks.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return False
        return type(value) is ExternalRef and value.dotted in _CONTEXTS

    def _shape(
        self, module: ModuleContext, node: ast.expr | None, default: Any, settings: dict[str, Any]
    ) -> tuple[TypeFacts, bool, int, bool]:
        """The Click type of an annotation, whether it is a list, the tuple arity (1: none),
        and whether it is a bool."""
        if node is None:
            kind = type(default).__name__ if default not in (None, MISSING) else "str"
            facts = _SIMPLE.get(kind, STRING)
            return self._ranged(facts, kind, settings), False, 1, kind == "bool"
        try:
            value = resolve(self.clicks.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return _unknown(module, node), False, 1, False
        value = _without_none(value)
        if type(value) is TypeForm and type(value.origin) is BuiltinRef:
            if value.origin.name == "list" and value.args:
                return self._one(module, node, value.args[0], settings), True, 1, False
            if value.origin.name == "tuple":
                items = tuple(self._one(module, node, a, settings) for a in value.args)
                tuple_type = TypeFacts(
                    "Tuple", "<" + " ".join(i.name for i in items) + ">", items=items
                )
                return tuple_type, False, len(items), False
        facts = self._one(module, node, value, settings)
        return facts, False, 1, facts == BOOL

    def _one(
        self, module: ModuleContext, node: ast.expr, value: Any, settings: dict[str, Any]
    ) -> TypeFacts:
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
            if value.dotted.split(".", 1)[0] == TYPER and value.short in _FILES:
                return TypeFacts("File", "filename")
            return TypeFacts(value.short, value.short)
        return _unknown(module, node)

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
        settings: dict[str, Any],
        shape: tuple[TypeFacts, bool, int, bool],
        required: bool,
        default: Any,
        where: tuple[str, int],
    ) -> ParamFacts:
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
            envvar=self._text_setting(settings, "envvar", label, where),
            help=self._text_setting(settings, "help", label, where),
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
        settings: dict[str, Any],
        shape: tuple[TypeFacts, bool, int, bool],
        required: bool,
        default: Any,
        where: tuple[str, int],
    ) -> ParamFacts:
        type_, is_list, arity, _ = shape
        return ParamFacts(
            origin=SourceLine(*where),
            kind="argument",
            name=name,
            opts=(name,),
            type=type_,
            required=required,
            nargs=-1 if is_list else arity,
            default=default,
            envvar=self._text_setting(settings, "envvar", name, where),
            help=self._text_setting(settings, "help", name, where),
            hidden=settings.get("hidden") is True,
            show_default=settings.get("show_default", True),
            metavar=_text(settings.get("metavar")),
            panel=_text(settings.get("rich_help_panel")),
        )

    def _text_setting(
        self, settings: dict[str, Any], key: str, label: str, where: tuple[str, int]
    ) -> Any:
        value = settings.get(key)
        source = value.source if type(value) is Unevaluated else repr(value)
        if key == "envvar":
            return self.clicks.params.envvar(value, source, label, where)
        return self.clicks.params.help(value, source, label, where)


def _arguments(node: Function) -> list[tuple[ast.arg, ast.expr | None]]:
    """A function's parameters with their defaults (None: it has none)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    return pairs


def _keyword(call: ast.Call | None, name: str) -> ast.expr | None:
    if call is None:
        return None
    return next((k.value for k in call.keywords if k.arg == name), None)


def _has(call: ast.Call | None, key: str) -> bool:
    return _keyword(call, key) is not None


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _text(value: Any) -> str | None:
    return value if type(value) is str else None


def _with_prefix(facts: CommandFacts, prefix: str) -> CommandFacts:
    return replace(facts, auto_envvar_prefix=prefix)


def _with_markup(facts: CommandFacts, markup: str | None) -> CommandFacts:
    """The command and every subcommand marked up as the app's mode says (Typer gives the
    app's mode to every command it makes of it)."""
    subcommands = tuple((name, _with_markup(sub, markup)) for name, sub in facts.subcommands)
    return replace(facts, markup=markup, subcommands=subcommands)


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


def _unknown(module: ModuleContext, node: ast.expr) -> TypeFacts:
    text = short_source(module.segment(node))
    return TypeFacts(text, text)
