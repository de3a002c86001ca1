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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import CommandFacts, ParamFacts
from argmatrix.loaders.static.click_commands import framework_calls
from argmatrix.loaders.static.click_commands.click_registrations import (
    Found,
    as_assign,
    imported_module,
    report_changed,
    report_handed,
    report_unfollowed,
    undecided,
)
from argmatrix.loaders.static.click_commands.click_scan import CLICK, ClickScanner
from argmatrix.loaders.static.click_commands.framework_calls import (
    DIRECT_DECORATORS,
    framework_base,
)
from argmatrix.loaders.static.click_commands.framework_values import (
    PARAMETER_DECORATORS,
    PLAIN_DECORATORS,
    Decorated,
    FrameworkCall,
    framework_of,
)
from argmatrix.loaders.static.declared_fields.declared import docstring
from argmatrix.loaders.static.python.classes import ancestors
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    describe,
    resolve,
    settle,
    short_source,
)
from argmatrix.model.registry import FromEnvironment, Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.python.context import ModuleContext

__all__ = [
    "ClickReader",
    "Found",
    "as_assign",
    "imported_module",
    "report_changed",
    "report_handed",
    "report_unfollowed",
    "undecided",
]

_STRIPPED_SUFFIXES = ("command", "cmd", "group", "grp")


class ClickReader(ClickScanner):
    """Reads the Click commands of a read (`loader`) into `CommandFacts`."""

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
        made_with, added = self._params(command, settings.pop("params", None))
        help_ = settings.get("help")
        if help_ is None and command.function is not None:
            help_ = docstring(command.named_by.node if command.named_by else command.function)
        if command.kind == "group":
            self._runtime_listing(command, settings.get("cls"))
        made = self._command_class(command, settings, made_with, help_)
        if made is not None:
            made_with, help_ = made
        params = tuple(self.params.param(self._made(c)) for c in [*made_with, *added])
        context = settings.get("context_settings")
        if type(context) is dict and "default_map" in context:
            defaults = context["default_map"]
        params = self._mapped_defaults(command, params, defaults)
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
        line = command.call.lineno if command.call is not None else command.line
        where = (str(module.path), line)
        prefix = self.params.envvar_prefix(context, where, f"the command {command.binding!r}")
        return CommandFacts(
            name=name or (own if type(own) is str else self._default_name(command)),
            help=_string(help_),
            short_help=_string(settings.get("short_help")),
            params=params,
            is_group=command.kind == "group",
            subcommands=tuple(subcommands.items()),
            auto_envvar_prefix=prefix if type(prefix) is str else None,
            hidden=switched(settings, "hidden"),
            deprecated=switched(settings, "deprecated"),
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
            if key not in settings:
                continue
            reason = _undecided_setting(key, settings[key])
            if reason is not None:
                self._said(
                    command,
                    f"{label}: `{key}=` cannot be computed statically:"
                    f" `{short_source(_source_of(module, call, key))}` ({reason})",
                    stops=True,
                )
        for key in ("help", "short_help", "epilog"):
            value = settings.get(key)
            if key in settings and value is not None and type(value) not in (str, Unevaluated):
                reason = _undecided_setting(key, value) or f"{describe(value)} is not a text"
                settings[key] = Unevaluated(_source_of(module, call, key), reason)
            if type(settings.get(key)) is Unevaluated:
                self._said(
                    command,
                    f"{label}: {key} kept as source text: `{short_source(settings[key].source)}` ({settings[key].reason})",
                )
        for key in ("options_metavar", "subcommand_metavar"):
            value = settings.get(key)
            if key in settings and value is not None and type(value) is not str:
                self._said(
                    command,
                    f"{label}: `{key}=` not shown, it cannot be computed statically:"
                    f" `{short_source(_source_of(module, call, key))}`; the usage shows"
                    " Click's own",
                )
        return settings

    def _params(
        self, command: Found, explicit: ast.expr | None
    ) -> tuple[list[FrameworkCall], list[FrameworkCall]]:
        """The parameters the command is made with: `params=[...]` first, then the decorators
        under the command's, as Click collects them (each applied in turn, bottom up, to the
        function: a decorator of the project's own runs in the interpreter;
        `__click_params__` reversed); and those added once it is made: the decorators above
        it, options added after (appended)."""
        module = command.module
        given: list[FrameworkCall] = []
        added: list[FrameworkCall] = []
        if explicit is not None:
            given += self._explicit_params(module, explicit)
        if command.function is not None:
            decorators = command.function.decorator_list
            below = decorators[command.decorator_index + 1 :]
            decorated = Decorated([], None)
            for decorator in reversed(below):
                decorated = self._applied(module, decorator, decorated)
            given += reversed(decorated.params)
            command.named_by = decorated.function  # what the command is named after
            for decorator in reversed(decorators[: command.decorator_index]):
                added += self._above(module, decorator)
        added += command.later
        return given, added

    def _command_class(
        self, command: Found, settings: dict[str, Any], given: list[FrameworkCall], help_: Any
    ) -> tuple[list[FrameworkCall], Any] | None:
        """A `cls=` of the project's deriving from Click's `Command` or `Group`, whose
        `__init__` the interpreter follows with what Click's decorator gives it: the
        parameters and help that reach Click's `__init__`, and the help it sets after (None:
        there is no such class, or it defines no `__init__`)."""
        cls = resolve(settings.get("cls"))
        if type(cls) is not ClassRef:
            if cls is not None and not (
                type(cls) is ExternalRef and framework_of(cls.dotted) is not None
            ):
                self._said(
                    command,
                    f"the command class `{short_source(describe(cls))}` (cls=) is not read from"
                    " source: what it makes of the command is not known",
                    stops=True,
                )
            return None
        if framework_base(cls) is None:
            return None
        kwargs = {k: v for k, v in settings.items() if k not in ("cls", "commands")}
        kwargs.update(params=list(given), help=help_)
        node = command.call or ast.Call(ast.Name(command.binding, ast.Load()), [], [])
        if command.call is None:
            ast.copy_location(node, command.function or ast.Pass(lineno=command.line, col_offset=0))
        it = self.interpreter(command.module, command.line)
        try:
            made = framework_calls.construct(it, cls, [], kwargs, node)
        except CannotEvaluate as exc:
            self._said(
                command,
                f"the command class `{cls.node.name}` (cls=) cannot be followed statically"
                f" ({exc.reason}): what it makes of the command is not known",
                stops=True,
            )
            return None
        if made.init is None:
            return None
        args, init = made.init
        params = resolve(init.get("params", args[3] if len(args) > 3 else None))
        params = resolve(made.attrs.get("params", params))
        if params is None:
            params = []
        calls = [resolve(p) for p in params] if type(params) in (list, tuple) else None
        if calls is None or any(type(c) is not FrameworkCall for c in calls):
            self._said(
                command,
                f"the command class `{cls.node.name}` (cls=) gives the command parameters static"
                " reading cannot read: they are missing",
                stops=True,
            )
            return None
        help_ = made.attrs.get("help", init.get("help", args[4] if len(args) > 4 else help_))
        return calls, settle(resolve(help_))

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
    found["chain"] = switched(settings, "chain")
    found["invoke_without_command"] = switched(settings, "invoke_without_command")
    return found


def _source_of(module: ModuleContext, call: ast.Call, key: str) -> str:
    """The source text of a command decorator's setting (`name` may be its first argument)."""
    if key == "name" and call.args:
        return module.segment(call.args[0])
    return next(module.segment(k.value) for k in call.keywords if k.arg == key)


def switched(settings: dict[str, Any], key: str) -> bool:
    """A command's switch as Click takes it: by its truth (`hidden=1` hides)."""
    value = settings.get(key)
    return type(value) in (bool, int, str) and bool(value)


# The types a deciding setting of a command may have (`deprecated=` may be a text from 8.2).
_SETTING_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str, type(None)),
    "hidden": (bool, int, type(None)),
    "deprecated": (bool, int, str, type(None)),
    "invoke_without_command": (bool, int, type(None)),
    "chain": (bool, int, type(None)),
}


def _undecided_setting(key: str, value: Any) -> str | None:
    """Why a command's setting that decides what it is cannot be taken as written (computed
    only when the program runs, or not a value of it); None where it can."""
    if type(value) is Unevaluated:
        return value.reason or "only running the program would tell"
    if type(value) is FromEnvironment:
        return f"it is read from ${value.variable} when the program runs"
    allowed = _SETTING_TYPES.get(key)
    if allowed is not None and type(value) not in allowed:
        return f"{describe(value)} is not a value of it"
    return None


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
