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
from argmatrix.loaders.clicks import CommandFacts, ParamFacts
from argmatrix.loaders.markup import MARKUP_MODES, RICH
from argmatrix.loaders.static.click_commands.clicks import (
    ClickReader,
    as_assign,
    imported_module,
    report_changed,
    report_handed,
    report_unfollowed,
)
from argmatrix.loaders.static.declared_fields.declared import docstring
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ExternalRef,
    FunctionRef,
    resolve,
    short_source,
)
from argmatrix.loaders.static.typer_apps.typer_params import TyperParams

if TYPE_CHECKING:
    from argmatrix.loaders.static.python.context import ModuleContext, ReadContext

TYPER = "typer"
Function = ast.FunctionDef | ast.AsyncFunctionDef
_REGISTERING = frozenset({"command", "callback", "add_typer"})
# What a Typer app keeps its commands, sub-apps and callback in.
_TABLES = frozenset({"registered_commands", "registered_groups", "registered_callback"})
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
        self.parameters = TyperParams(clicks)
        self._merges: bool | None = None
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
                and (
                    self._add_typer(module, statement.value)
                    or self._applied(module, statement.value)
                )
            ):
                followed.add(id(statement))
        report_unfollowed(module, statements, followed, set(apps), _REGISTERING, "commands")
        report_changed(module, statements, followed, set(apps), "Typer app", _TABLES)
        report_handed(module, statements, followed, set(apps), "a Typer app")
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

    def _applied(self, module: ModuleContext, call: ast.Call) -> bool:
        """`app.command()(serve)`, `app.callback()(main)`: a function (of this module, or
        imported) registered as the decorator would register it."""
        registering = call.func
        if not (isinstance(registering, ast.Call) and len(call.args) == 1 and not call.keywords):
            return False
        for method in ("command", "callback"):
            app = self._owner(module, registering.func, method)
            if app is None:
                continue
            value = resolve(self.clicks.interpreter(module, call.lineno).try_eval(call.args[0]))
            if type(value) is not FunctionRef:
                return False  # said as a registration static reading does not follow
            registered = Registered(value.module, value.node, registering)
            if method == "command":
                app.commands.append(registered)
            else:
                app.callback = registered
            return True
        return False

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
        function it registers: only that one read (what is said of the app's other commands
        is not said of it)."""
        for app in self.apps_of(module).values():
            found = self._made_of(app, node, None, target)
            if found is not None:
                return found
        return None

    def _made_of(
        self,
        app: App,
        node: Function,
        added: tuple[ModuleContext, ast.Call] | None,
        target: str,
    ) -> CommandFacts | None:
        if app.callback is not None and app.callback.function is node:
            return self.facts(app, target) if added is None else self._group(app, added)
        for command in app.commands:
            if command.function is node:
                if added is None and not self._grouped(app):
                    return self.facts(app, target)  # an app of one command is that command
                return self._command(command)
        for module, call, sub in app.groups:
            if sub is None or type(self._group_setting(module, call, sub, "name")) is not str:
                continue
            found = self._made_of(sub, node, (module, call), target)
            if found is not None:
                return found
        return None

    # -------------------------------------------------------------- get_command

    def merges_unnamed(self) -> bool:
        """Whether the Typer beside the target merges the commands of a sub-app added without
        a name into its parent (newer releases do; Typer 0.9 leaves the sub-app out), told by
        its source (read, never imported); the newest where none is found."""
        if self._merges is None:
            main = self.loader.module("typer.main")
            self._merges = main is None or "sub_group.commands.items()" in main.text
        return self._merges

    def _grouped(self, app: App) -> bool:
        """`get_command`'s test: a callback, sub-apps or more than one command make a group."""
        typer_callback = self._setting(app.module, app.call, "callback")
        grouped = app.callback is not None or typer_callback is not None or bool(app.groups)
        return grouped or len(app.commands) > 1

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
        if self._grouped(app):
            return self._group(app, None)
        if len(app.commands) == 1:
            facts = self._command(app.commands[0])
            context = self._setting(app.module, app.call, "context_settings")
            if facts.auto_envvar_prefix is None:
                where = (str(app.module.path), app.call.lineno)
                prefix = self.clicks.params.envvar_prefix(context, where, f"the app {target}")
                if prefix is not None:
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
            elif self.merges_unnamed():  # Typer 0.1x and later; 0.9 leaves such a sub-app out
                commands.extend(group.subcommands)
        callback = self._solved(app, added, "callback")
        params: tuple[ParamFacts, ...] = ()
        if isinstance(callback, tuple):
            params = self.params(*callback)
        name = self._solved(app, added, "name")
        where = (str(app.module.path), app.call.lineno)
        label = f"the app {app.binding!r}"
        if name is not None and type(name) is not str:
            self.clicks.params.undecided(where, label, "name", "name", name)
        context = self._solved(app, added, "context_settings")
        prefix = self.clicks.params.envvar_prefix(context, where, label)
        return CommandFacts(
            name=name if type(name) is str else "",
            help=self._group_help(app, added),
            short_help=_text(self._solved(app, added, "short_help")),
            params=params,
            is_group=True,
            subcommands=tuple(commands),
            auto_envvar_prefix=prefix,
            hidden=self.clicks.params.decided(
                self._solved(app, added, "hidden"), where, label, "hidden"
            ),
            deprecated=self.clicks.params.decided(
                self._solved(app, added, "deprecated"), where, label, "deprecated"
            ),
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
        if node is None:
            return None
        value = resolve(self.clicks.interpreter(module, node.lineno).try_eval(node))
        if type(value) is FunctionRef:  # of this module, or imported from another
            return (value.module, value.node)
        if value is not None:
            self.loader.report(
                str(module.path),
                node.lineno,
                f"the callback `{short_source(module.segment(node))}` is not a function static"
                " reading finds: the group's own parameters are missing",
                stops=True,
            )
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
            if name is not None:  # a name only running tells: never the function's in its place
                where = (str(command.module.path), given.lineno)
                label = f"the command {command.function.name!r}"
                self.clicks.params.undecided(
                    where, label, "name", command.module.segment(given), name
                )
        return command.function.name.lower().replace("_", "-")

    def _command(self, command: Registered) -> CommandFacts:
        help_ = self._setting(command.module, command.call, "help")
        if type(help_) is str:
            help_ = inspect.cleandoc(help_)
        elif help_ is None:
            text = docstring(command.function)
            help_ = inspect.cleandoc(text) if text else None
        where = (str(command.module.path), command.function.lineno)
        label = f"the command {command.function.name!r}"
        context = self._setting(command.module, command.call, "context_settings")
        setting = self._setting
        return CommandFacts(
            name=self._command_name(command),
            help=_text(help_),
            short_help=_text(setting(command.module, command.call, "short_help")),
            params=self.params(command.module, command.function),
            auto_envvar_prefix=self.clicks.params.envvar_prefix(context, where, label),
            hidden=self.clicks.params.decided(
                setting(command.module, command.call, "hidden"), where, label, "hidden"
            ),
            deprecated=self.clicks.params.decided(
                setting(command.module, command.call, "deprecated"), where, label, "deprecated"
            ),
        )

    # -------------------------------------------------------------- typer.run

    def is_run_function(self, module: ModuleContext, node: Function) -> bool:
        """Whether a function's parameters are declared with `typer.Option`/`typer.Argument`."""
        return self.parameters.is_run_function(module, node)

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
        return self.parameters.params(module, node)


def _keyword(call: ast.Call | None, name: str) -> ast.expr | None:
    if call is None:
        return None
    return next((k.value for k in call.keywords if k.arg == name), None)


def _has(call: ast.Call | None, key: str) -> bool:
    return _keyword(call, key) is not None


def _text(value: Any) -> str | None:
    return value if type(value) is str else None


def _with_prefix(facts: CommandFacts, prefix: str) -> CommandFacts:
    return replace(facts, auto_envvar_prefix=prefix)


def _with_markup(facts: CommandFacts, markup: str | None) -> CommandFacts:
    """The command and every subcommand marked up as the app's mode says (Typer gives the
    app's mode to every command it makes of it)."""
    subcommands = tuple((name, _with_markup(sub, markup)) for name, sub in facts.subcommands)
    return replace(facts, markup=markup, subcommands=subcommands)
