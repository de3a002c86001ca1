"""Static reading of Click commands: `@click.command`/`@click.group` and the decorators under them
(Click's `option`, `argument`, `version_option`, ..., and the project's own, run by the
interpreter), `@group.command()`, `group.add_command(...)`, `params=[...]`, options added after
the command is made. Nothing is imported or run but by the interpreter, within the read's budget;
each parameter is the call static reading recorded of it, read with Click's rules by
`click_params`, giving the same `CommandFacts` live reading takes from the command object. A
value only running would tell is kept as source text and said; what decides what the command is
and cannot be computed stops the read at its line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import CommandFacts, ParamFacts
from argmatrix.loaders.static import framework_calls
from argmatrix.loaders.static.branches import Undecided, run_at_import
from argmatrix.loaders.static.classes import ancestors
from argmatrix.loaders.static.click_params import ClickRules, ParamReader
from argmatrix.loaders.static.declared import docstring
from argmatrix.loaders.static.framework_calls import DIRECT_DECORATORS, framework_base
from argmatrix.loaders.static.framework_values import (
    PARAMETER_DECORATORS,
    PLAIN_DECORATORS,
    Decorated,
    FrameworkCall,
    framework_of,
)
from argmatrix.loaders.static.scripts import is_main_test
from argmatrix.loaders.static.values import (
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    describe,
    resolve,
    settle,
    short_source,
    truth,
)
from argmatrix.model.registry import Unevaluated

if TYPE_CHECKING:
    from collections.abc import Callable

    from argmatrix.loaders.static.context import ModuleContext, ReadContext
    from argmatrix.loaders.static.evaluator import Evaluator

CLICK = "click"
_COMMAND_DECORATORS = ("command", "group")
_STRIPPED_SUFFIXES = ("command", "cmd", "group", "grp")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class Found:
    """A Click command declared in the source: the decorated function (or the constructor
    call), how it is made, and where."""

    module: ModuleContext
    kind: str  # "command" | "group"
    call: ast.Call | None  # the decorator's or the constructor's call (None: `@click.command`)
    function: ast.FunctionDef | ast.AsyncFunctionDef | None
    binding: str  # the name it is bound to in its module
    decorator_index: int = 0
    line: int = 0
    registered: list[tuple[str | None, Found, ast.Call | None]] = field(default_factory=list)
    # Parameters added to the command once it is made (`serve = click.option(...)(serve)`,
    # `serve.params.append(click.Option(...))`), in order.
    later: list[FrameworkCall] = field(default_factory=list)
    # The function whose `__name__` and `__doc__` the command takes, if its decorators put
    # another in place of its own (a wrapper without `functools.wraps`).
    named_by: FunctionRef | None = None


class ClickReader:
    """Reads the Click commands of a read (`loader`): each module's commands found once."""

    def __init__(
        self,
        loader: ReadContext,
        evaluator: Callable[[ModuleContext, int], Evaluator],
        rules: ClickRules | None = None,
    ) -> None:
        self.loader = loader
        self.evaluator = evaluator  # an interpreter of a module's top level as of a line
        self.params = ParamReader(loader, rules or ClickRules())
        self.scanned: dict[str, dict[str, Found]] = {}
        self.statements: dict[str, list[ast.stmt | Undecided]] = {}

    # -------------------------------------------------------------- finding commands

    def interpreter(self, module: ModuleContext, line: int) -> Evaluator:
        return self.evaluator(module, line)

    def click_name(self, module: ModuleContext, node: ast.expr) -> str | None:
        """`option` for `click.option` (or `option` imported from click), else None."""
        try:
            value = resolve(self.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return None
        if type(value) is ExternalRef and value.dotted.split(".", 1)[0] == CLICK:
            return value.short
        return None

    def command_at(self, module: ModuleContext, name: str) -> Found | None:
        """The Click command a module-level name is, if it is one."""
        return self.commands_of(module).get(name)

    def commands_of(self, module: ModuleContext) -> dict[str, Found]:
        """Every Click command a module declares at its top level, by the name it is bound
        to, with the subcommands registered on its groups in source order."""
        if module.name in self.scanned:
            return self.scanned[module.name]
        found: dict[str, Found] = {}
        self.scanned[module.name] = found
        followed: set[int] = set()
        statements = self.top_level(module)
        for statement in statements:
            module.loader.budget.step()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._declared(module, statement, found)
                followed.add(id(statement))
            elif as_assign(statement) is not None:
                if self._assigned(module, as_assign(statement), found):  # type: ignore[arg-type]
                    followed.add(id(statement))
            elif (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and (
                    self._add_command(module, statement.value, found)
                    or self._added_param(module, statement.value, found)
                )
            ):
                followed.add(id(statement))
        groups = {name for name, command in found.items() if command.kind == "group"}
        report_unfollowed(module, statements, followed, groups, _REGISTERING, "subcommands")
        report_unfollowed(module, statements, followed, set(found), _PARAMS, "parameters")
        return found

    def top_level(self, module: ModuleContext) -> list[ast.stmt | Undecided]:
        """The module's top-level statements that run when it is imported (`branches`): a
        command declared under `if typer_available:` or in a `try:` is found there."""
        found = self.statements.get(module.name)
        if found is None:
            module.parse()
            assert module.tree is not None

            def decide(test: ast.expr) -> bool:
                return truth(self.interpreter(module, test.lineno).known(test))

            found = run_at_import(module.tree.body, decide, (CannotEvaluate,))
            self.statements[module.name] = found
        return found

    def definition(
        self, module: ModuleContext, name: str
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
        """The function or class a module-level name is bound to by a `def` or `class` that
        runs at import (the last one), if it is; a name an undecided `if` may bind stops the
        read at that `if`."""
        node = None
        for statement in self.top_level(module):
            if isinstance(statement, Undecided):
                if name in statement.names:
                    raise undecided(module, statement, name)
            elif isinstance(statement, DEFINITIONS) and statement.name == name:
                node = statement
        return node

    def _declared(
        self,
        module: ModuleContext,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        found: dict[str, Found],
    ) -> None:
        for index, decorator in enumerate(node.decorator_list):
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            call = decorator if isinstance(decorator, ast.Call) else None
            name = self.click_name(module, func)
            if name in _COMMAND_DECORATORS:
                found[node.name] = Found(module, name, call, node, node.name, index, node.lineno)
                return
            group = self._group_method(module, func, found)
            if group is not None:
                command = Found(module, func.attr, call, node, node.name, index, node.lineno)  # type: ignore[attr-defined]
                found[node.name] = command
                group.registered.append((_given_name(call), command, None))
                return

    def _group_method(
        self, module: ModuleContext, func: ast.expr, found: dict[str, Found]
    ) -> Found | None:
        """The group of `@cli.command(...)` / `@cli.group(...)`, if `cli` is one."""
        if not (isinstance(func, ast.Attribute) and func.attr in _COMMAND_DECORATORS):
            return None
        if not isinstance(func.value, ast.Name):
            return None
        group = found.get(func.value.id)
        if group is None:
            group = self._imported_command(module, func.value.id)
        return group if group is not None and group.kind == "group" else None

    def _imported_command(self, module: ModuleContext, name: str) -> Found | None:
        """A command another module of the package declares, imported here by name."""
        imported = module.imports.get(name)
        if imported is None or imported[1] is None:
            return None
        source = module.loader.module(imported[0])
        if source is None or source.is_stub or source is module:
            return None
        return self.commands_of(source).get(imported[1])

    def _assigned(self, module: ModuleContext, node: ast.Assign, found: dict[str, Found]) -> bool:
        """`cli = click.Group(...)`, `serve = click.Command(...)`, `serve =
        click.option(...)(serve)` (whether it is followed)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return False
        value = node.value
        if not isinstance(value, ast.Call):
            return False
        if node.targets[0].id in found:
            return self._option_applied(module, node, found[node.targets[0].id])
        name = self.click_name(module, value.func)
        kinds = {"Group": "group", "Command": "command"}
        if name in kinds:
            target = node.targets[0].id
            found[target] = Found(module, kinds[name], value, None, target, 0, node.lineno)
            for command in self._constructed_commands(module, value, found):
                found[target].registered.append((None, command, None))
        return False

    def _option_applied(self, module: ModuleContext, node: ast.Assign, command: Found) -> bool:
        """`serve = click.option(...)(serve)`: the option appended to the command's parameters
        (as Click's decorator does to a command). Another value bound to the command's name
        is not followed, and said."""
        value = node.value
        assert isinstance(value, ast.Call)
        same = (
            len(value.args) == 1
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id == command.binding
            and not value.keywords
        )
        decorator: Any = None
        if same:
            try:
                decorator = resolve(self.interpreter(module, node.lineno).eval(value.func))
            except CannotEvaluate:
                decorator = None
        if (
            type(decorator) is FrameworkCall
            and type(decorator.callee) is ExternalRef
            and decorator.name in PARAMETER_DECORATORS
        ):
            command.later.append(decorator)
            return True
        module.loader.report(
            str(module.path),
            node.lineno,
            f"`{short_source(module.segment(node))}` rebinds the Click command"
            f" {command.binding!r} to what static reading does not follow: the parameters it"
            " may add are missing",
            stops=True,
        )
        return True

    def _added_param(self, module: ModuleContext, call: ast.Call, found: dict[str, Found]) -> bool:
        """`serve.params.append(click.Option([...]))`, `serve.params.extend([...])`."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in ("append", "extend")
            and isinstance(func.value, ast.Attribute)
            and func.value.attr == "params"
            and isinstance(func.value.value, ast.Name)
            and func.value.value.id in found
            and len(call.args) == 1
            and not call.keywords
        ):
            return False
        command = found[func.value.value.id]
        value = resolve(self.interpreter(module, call.lineno).try_eval(call.args[0]))
        added = (
            [resolve(v) for v in value]
            if func.attr == "extend" and type(value) in (list, tuple)
            else [value]
        )
        if all(type(v) is FrameworkCall and v.name in ("Option", "Argument") for v in added):
            command.later += added
            return True
        module.loader.report(
            str(module.path),
            call.lineno,
            f"`{short_source(module.segment(call))}` adds parameters static reading cannot read"
            " to the command: they are missing",
            stops=True,
        )
        return True

    def _constructed_commands(
        self, module: ModuleContext, call: ast.Call, found: dict[str, Found]
    ) -> Iterator[Found]:
        for keyword in call.keywords:
            if keyword.arg == "commands" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                for element in keyword.value.elts:
                    command = self.command_of(module, element, found)
                    if command is not None:
                        yield command

    def command_of(
        self, module: ModuleContext, node: ast.expr, found: dict[str, Found]
    ) -> Found | None:
        """The command a name of the source refers to: `serve`, `commands.serve`."""
        if isinstance(node, ast.Name):
            return found.get(node.id) or self._imported_command(module, node.id)
        if isinstance(node, ast.Attribute):
            source = imported_module(module, node.value)
            if source is not None:
                return self.commands_of(source).get(node.attr)
        return None

    def _add_command(self, module: ModuleContext, call: ast.Call, found: dict[str, Found]) -> bool:
        """`cli.add_command(serve)`, `cli.add_command(serve, name="run")`: whether it is one."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "add_command"
            and isinstance(func.value, ast.Name)
        ):
            return False
        group = found.get(func.value.id) or self._imported_command(module, func.value.id)
        if group is None or group.kind != "group" or not call.args:
            return False
        command = self.command_of(module, call.args[0], found)
        if command is None:
            module.loader.report(
                str(module.path),
                call.lineno,
                f"`{short_source(module.segment(call))}` adds a command static reading cannot"
                " find in the source: the subcommand it adds is missing",
                stops=True,
            )
            return True
        given = call.args[1] if len(call.args) > 1 else _keyword(call, "name")
        name = self._text(module, given) if given is not None else None
        group.registered.append((name, command, call))
        return True

    def _text(self, module: ModuleContext, node: ast.expr) -> str | None:
        """The name a command is registered under; one static reading cannot compute stops
        the read there (the command's own name would be a guess)."""
        try:
            value = resolve(self.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate as exc:
            reason = exc.reason
        else:
            if type(value) is str or value is None:
                return value
            reason = f"{describe(value)} is not a name"
        module.loader.report(
            str(module.path),
            node.lineno,
            f"the name a command is registered under cannot be computed statically:"
            f" `{short_source(module.segment(node))}` ({reason})",
            stops=True,
        )
        return None

    # -------------------------------------------------------------- facts of a command

    def facts(
        self,
        command: Found,
        name: str | None = None,
        above: tuple[int, ...] = (),
        defaults: Any = None,
    ) -> CommandFacts:
        """`defaults`: the `default_map` the group above passes down to this command."""
        module = command.module
        module.loader.budget.calls(len(above))
        settings = self._settings(command)
        params = self._params(command, settings.pop("params", None))
        context = settings.get("context_settings")
        if type(context) is dict and "default_map" in context:
            defaults = context["default_map"]
        params = self._mapped_defaults(command, params, defaults)
        if command.kind == "group":
            self._runtime_listing(command, settings.get("cls"))
        help_ = settings.get("help")
        if help_ is None and command.function is not None:
            help_ = docstring(command.named_by.node if command.named_by else command.function)
        own = settings.get("name")
        subcommands: dict[str, CommandFacts] = {}
        for given, sub, call in command.registered:
            if id(sub) in (*above, id(command)):
                raise ArgmatrixError.at(
                    f"the Click group {command.binding!r} adds {sub.binding!r}, a group it is"
                    " in: the group contains itself",
                    file=str(module.path),
                    line=call.lineno if call is not None else command.line,
                    fix="remove the add_command that adds a group to itself or to a group"
                    " inside it",
                )
            sub_facts = self.facts(sub, None, (*above, id(command)))
            key = given or sub_facts.name
            if type(defaults) is dict and key in defaults:  # Click: the parent map's entry
                sub_facts = self.facts(sub, None, (*above, id(command)), defaults[key])
            subcommands[key] = sub_facts  # a later one of a name wins
        prefix = context.get("auto_envvar_prefix") if type(context) is dict else None
        if type(prefix) is Unevaluated:
            self._said(
                command,
                f"the command's auto_envvar_prefix kept as source text: `{prefix.source}`: the environment variables it gives the options are not shown",
            )
        return CommandFacts(
            name=name or (own if type(own) is str else self._default_name(command)),
            help=_string(help_),
            short_help=_string(settings.get("short_help")),
            params=params,
            is_group=command.kind == "group",
            subcommands=tuple(subcommands.items()),
            auto_envvar_prefix=prefix if type(prefix) is str else None,
            hidden=settings.get("hidden") is True,
            deprecated=bool(settings.get("deprecated")) is True,
            **_usage_settings(settings),
        )

    def _mapped_defaults(
        self, command: Found, params: tuple[ParamFacts, ...], defaults: Any
    ) -> tuple[ParamFacts, ...]:
        """The defaults a `default_map` gives (Click looks each parameter up by its name
        there before its own default): as Click runs the command and shows its help."""
        if defaults is None:
            return params
        if type(defaults) is not dict:
            self._said(
                command,
                f"the command {command.binding!r}: its default_map cannot be read statically"
                f" ({describe(defaults)}): the defaults it gives are not known",
                stops=True,
            )
            return params
        mapped = []
        for param in params:
            if param.name in defaults:
                value = defaults[param.name]
                if type(value) is Unevaluated:
                    self._said(
                        command,
                        f"{param.opts[0] if param.opts else param.name}: default kept as source"
                        f" text: `{short_source(value.source)}` (from the default_map)",
                    )
                param = replace(param, default=value)
            mapped.append(param)
        return tuple(mapped)

    def _runtime_listing(self, command: Found, cls: Any) -> None:
        """A group class of the project's that lists or selects its commands itself (a lazy
        group: `list_commands`, `get_command`, `resolve_command`) decides them when it runs:
        static reading stops at the group, never giving the commands it registered as all."""
        cls = resolve(cls)
        if type(cls) is not ClassRef:
            return
        for owner in (cls, *ancestors(cls)):
            if type(owner) is not ClassRef:
                continue
            methods = {
                node.name
                for node in owner.node.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            found = sorted(methods & {"list_commands", "get_command", "resolve_command"})
            if found:
                self._said(
                    command,
                    f"the group {command.binding!r} is made by `{cls.node.name}`, whose"
                    f" `{'`, `'.join(found)}` decide its commands when it runs (a lazy group):"
                    " the commands it lists are not known statically",
                    stops=True,
                )
                return

    def _said(self, command: Found, message: str, stops: bool = False) -> None:
        line = command.call.lineno if command.call is not None else command.line
        self.loader.report(str(command.module.path), line, message, stops)

    def _default_name(self, command: Found) -> str:
        """Click's name for a decorated function: `run_server_command` -> `run-server` (the
        suffix is stripped from Click 8.2)."""
        if command.function is None:
            return command.binding
        function = command.named_by.node if command.named_by else command.function
        name = function.name.lower().replace("_", "-")
        left, sep, suffix = name.rpartition("-")
        strips = self.params.rules.strips_suffixes
        return left if strips and sep and suffix in _STRIPPED_SUFFIXES else name

    def _settings(self, command: Found) -> dict[str, Any]:
        """The command decorator's (or constructor's) arguments: `name` first if positional.
        One that decides what the command is and static reading cannot compute stops the read
        at the decorator; a text is kept as source and said."""
        call = command.call
        if call is None:
            return {}
        module = command.module
        it = self.interpreter(module, call.lineno)
        settings: dict[str, Any] = {}
        if call.args:
            settings["name"] = it.try_eval(call.args[0])
        for keyword in call.keywords:
            if keyword.arg == "params":
                settings["params"] = keyword.value
            elif keyword.arg == "commands":
                continue
            elif keyword.arg is not None:
                settings[keyword.arg] = settle(resolve(it.try_eval(keyword.value)))
            else:
                self._said(
                    command,
                    f"`**{short_source(module.segment(keyword.value))}` of the command's settings is not followed statically: what it sets is not known",
                    stops=True,
                )
        label = f"the command {command.binding!r}"
        for key in ("name", "hidden", "deprecated", "cls", "invoke_without_command", "chain"):
            if type(settings.get(key)) is Unevaluated:
                self._said(
                    command,
                    f"{label}: `{key}=` cannot be computed statically: `{short_source(settings[key].source)}` ({settings[key].reason})",
                    stops=True,
                )
        for key in ("help", "short_help"):
            if type(settings.get(key)) is Unevaluated:
                self._said(
                    command,
                    f"{label}: {key} kept as source text: `{short_source(settings[key].source)}` ({settings[key].reason})",
                )
        return settings

    def _params(self, command: Found, explicit: ast.expr | None) -> tuple[ParamFacts, ...]:
        """`params=[...]` first, then the decorators under the command's, as Click collects
        them (each applied in turn, bottom up, to the function: a decorator of the project's
        own runs in the interpreter; `__click_params__` reversed), then those above it
        (applied to the command: appended)."""
        module = command.module
        calls: list[FrameworkCall] = []
        if explicit is not None:
            calls += self._explicit_params(module, explicit)
        if command.function is not None:
            decorators = command.function.decorator_list
            below = decorators[command.decorator_index + 1 :]
            decorated = Decorated([], None)
            for decorator in reversed(below):
                decorated = self._applied(module, decorator, decorated)
            calls += reversed(decorated.params)
            command.named_by = decorated.function  # what the command is named after
            for decorator in reversed(decorators[: command.decorator_index]):
                calls += self._above(module, decorator)
        calls += command.later
        return tuple(self.params.param(self._made(c)) for c in calls)

    def _explicit_params(self, module: ModuleContext, node: ast.expr) -> list[FrameworkCall]:
        value = resolve(self.interpreter(module, node.lineno).try_eval(node))
        if type(value) in (list, tuple) and all(type(resolve(v)) is FrameworkCall for v in value):
            return [resolve(v) for v in value]
        module.loader.report(
            str(module.path),
            node.lineno,
            f"the command's `params=` is not followed statically: `{short_source(module.segment(node))}`"
            " is not a list of Click parameters static reading can read: they are missing",
            stops=True,
        )
        return []

    def _applied(
        self, module: ModuleContext, decorator: ast.expr, decorated: Decorated
    ) -> Decorated:
        """A decorator under the command's, applied to the function as it stands."""
        it = self.interpreter(module, decorator.lineno)
        try:
            value = resolve(it.eval(decorator))
            if type(value) is FunctionRef:
                if value.node.decorator_list:
                    raise CannotEvaluate(f"`{value.node.name}` is itself decorated")
                result = resolve(it.compute(value, [decorated], {}))
            else:
                result = resolve(it.call_value(value, [decorated]))
        except CannotEvaluate as exc:
            self._unfollowed(module, decorator, exc.reason)
            return decorated
        if type(result) is Decorated:
            return result
        if type(result) is FunctionRef:  # a wrapper without `functools.wraps`: Click loses
            return Decorated([], result)  # the parameters applied below it
        self._unfollowed(module, decorator, f"it gives {describe(result)}, not a function")
        return decorated

    def _above(self, module: ModuleContext, decorator: ast.expr) -> list[FrameworkCall]:
        """A decorator above the command's, applied to the command: Click's adds its
        parameter at the end; one of the project's own is not followed there."""
        try:
            value = resolve(self.interpreter(module, decorator.lineno).eval(decorator))
        except CannotEvaluate as exc:
            self._unfollowed(module, decorator, exc.reason)
            return []
        if (
            type(value) is ExternalRef
            and framework_of(value.dotted) == CLICK
            and value.short in PLAIN_DECORATORS | DIRECT_DECORATORS
        ):
            return []
        if type(value) is FrameworkCall and type(value.callee) is ExternalRef:
            if value.name in PARAMETER_DECORATORS:
                return [value]
            if value.name in PLAIN_DECORATORS:
                return []
        self._unfollowed(module, decorator, "it is applied to the command, not to its function")
        return []

    def _unfollowed(self, module: ModuleContext, decorator: ast.expr, reason: str) -> None:
        module.loader.report(
            str(module.path),
            decorator.lineno,
            f"the decorator `{short_source(module.segment(decorator))}` is not one static"
            f" reading follows ({reason}): the parameters it may add are missing",
            stops=True,
        )

    def _made(self, call: FrameworkCall) -> FrameworkCall:
        """The parameter a call makes with its `cls=` (a class of the source deriving from
        Click's `Option` or `Argument`, its `__init__` followed): read as the call that class
        makes of Click's, with what it sets after."""
        given = resolve(call.kwargs.get("cls"))
        if given is None:
            return call
        where = (str(call.module.path), call.node.lineno)
        if (
            type(given) is ExternalRef
            and framework_of(given.dotted) == CLICK
            and given.short in ("Option", "Argument")
        ):
            return _without(call, "cls")
        if type(given) is not ClassRef or framework_base(given) is None:
            self.loader.report(
                *where,
                f"the parameter class `{short_source(call.keyword_source('cls'))}` (cls=) is not read from source: what it makes of the parameter is not known",
                True,
            )
            return _without(call, "cls")
        decls = [a for a in call.args]
        attrs = {k: v for k, v in call.kwargs.items() if k != "cls"}
        it = self.interpreter(call.module, call.node.lineno)
        try:
            made = framework_calls.construct(it, given, [decls], attrs, call.node)
        except CannotEvaluate as exc:
            self.loader.report(
                *where,
                f"the parameter class `{given.node.name}` (cls=) cannot be followed statically ({exc.reason}): what it makes of the parameter is not known",
                True,
            )
            return _without(call, "cls")
        if made.init is None:
            return _without(call, "cls")
        args, kwargs = made.init
        base = framework_base(given)
        assert base is not None
        kind = "option" if base.short == "Option" else "argument"
        first = resolve(args[0]) if args else kwargs.get("param_decls", [])
        names = list(first) if type(first) in (list, tuple) else []
        effective = dict(kwargs)
        effective.pop("param_decls", None)
        for key, value in made.attrs.items():
            if key in _OVERRIDABLE:
                effective[key] = value
        result = FrameworkCall(
            ExternalRef(f"click.{kind}"), names, effective, call.module, call.node
        )
        return result


_REGISTERING = frozenset({"command", "group", "add_command"})
_PARAMS = frozenset({"params"})
_NOT_REGISTERING = (ast.Import, ast.ImportFrom, ast.ClassDef)


def as_assign(statement: ast.stmt | Undecided) -> ast.Assign | None:
    """`x = v`, or `x: T = v` as if it were that (`app: Typer = typer.Typer()`)."""
    if isinstance(statement, ast.Assign):
        return statement
    if (
        isinstance(statement, ast.AnnAssign)
        and statement.value is not None
        and isinstance(statement.target, ast.Name)
    ):
        target = ast.Name(statement.target.id, ast.Store())
        return ast.copy_location(ast.Assign([target], statement.value), statement)
    return None


def imported_module(module: ModuleContext, node: ast.expr) -> ModuleContext | None:
    """The module of the package a name of `module` stands for (`import pkg.jobs as jobs`,
    `from pkg import jobs`), read from source; None if it is none."""
    if not isinstance(node, ast.Name):
        return None
    imported = module.imports.get(node.id)
    if imported is None:
        return None
    name = imported[0] if imported[1] is None else f"{imported[0]}.{imported[1]}"
    loader = module.loader
    source = loader.module(name) if loader.in_package(name) else None
    return None if source is None or source.is_stub else source


def report_unfollowed(
    module: ModuleContext,
    statements: list[ast.stmt | Undecided],
    followed: set[int],
    names: set[str],
    methods: frozenset[str],
    what: str,
) -> None:
    """A top-level statement static reading did not follow that registers on one of `names`
    (`cli.command()(f)`, a loop of `app.add_typer(...)`, a decorated function under an `if`
    it cannot decide): what it adds is missing, said at its line (which stops the read)."""
    if not names:
        return
    for entry in statements:
        statement = entry.statement if isinstance(entry, Undecided) else entry
        if id(statement) in followed or isinstance(statement, _NOT_REGISTERING):
            continue
        if isinstance(statement, ast.If) and is_main_test(statement.test):
            continue
        because = (
            f" (a condition static reading cannot decide: {entry.reason})"
            if isinstance(entry, Undecided)
            else ""
        )
        for node in ast.walk(statement):
            module.loader.budget.visit(1)
            if (
                isinstance(node, ast.Attribute)
                and node.attr in methods
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                module.loader.report(
                    str(module.path),
                    statement.lineno,
                    f"`{short_source(module.segment(node))}` registers {what} in a statement"
                    f" static reading does not follow{because}: the {what} it adds are missing",
                    stops=True,
                )
                break


def undecided(module: ModuleContext, statement: Undecided, name: str) -> ArgmatrixError:
    """The stop at an `if`/`try` that may bind `name`, when static reading cannot tell which of
    its alternatives runs."""
    test = statement.statement
    kind = f"if {short_source(module.segment(test.test))}:" if isinstance(test, ast.If) else "try:"
    return ArgmatrixError.at(
        f"static reading stopped: `{name}` is bound in more than one alternative of `{kind}`,"
        f" and static reading cannot decide which runs ({statement.reason})",
        file=str(module.path),
        line=statement.line,
        fix="define it once, outside the condition, or load the registry live"
        " (registry.mode: live)",
    )


def _keyword(call: ast.Call | None, name: str) -> ast.expr | None:
    if call is None:
        return None
    return next((k.value for k in call.keywords if k.arg == name), None)


def _given_name(call: ast.Call | None) -> str | None:
    """The name a `@group.command("name")` gives, when it is a literal."""
    if call is None:
        return None
    node = call.args[0] if call.args else _keyword(call, "name")
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return node.value
    return None


def _usage_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """What a command's decorator says of its usage and epilog, as `CommandFacts` keeps it:
    a setting that is not plain data is left to Click's own (its default)."""
    found: dict[str, Any] = {"epilog": _string(settings.get("epilog"))}
    options = settings.get("options_metavar", "[OPTIONS]")
    if options is None or type(options) is str:
        found["options_metavar"] = options
    subcommand = settings.get("subcommand_metavar")
    if type(subcommand) is str:
        found["subcommand_metavar"] = subcommand
    found["chain"] = settings.get("chain") is True
    found["invoke_without_command"] = settings.get("invoke_without_command") is True
    return found


def _string(value: Any) -> str | Unevaluated | None:
    return value if type(value) in (str, Unevaluated) else None


def _without(call: FrameworkCall, key: str) -> FrameworkCall:
    kwargs = {k: v for k, v in call.kwargs.items() if k != key}
    return FrameworkCall(call.callee, call.args, kwargs, call.module, call.node)


# What a parameter class's `__init__` may set on the parameter after Click's, which Click's
# parameter then holds (live reading reads these attributes).
_OVERRIDABLE = frozenset(
    {"help", "hidden", "required", "default", "envvar", "show_default", "metavar", "type"}
)
