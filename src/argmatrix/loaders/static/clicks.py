"""Static reading of Click commands: `@click.command`/`@click.group` and the `@click.option`,
`@click.argument` and `@click.version_option` stacks under them, `@group.command()`,
`group.add_command(...)`, and the parameter types (`click.Choice`, `click.IntRange`,
`click.Path`, a `ParamType` of the source, ...). Nothing is imported or run: each decorator's
arguments are evaluated by the static interpreter within the read's budget, and Click's own
rules (how `--x/--no-x` splits, which name a parameter gets, which type a default implies) are
applied to them as Click applies them, giving the same `CommandFacts` live reading takes from
the command object. A value only running would tell is kept as source text and said.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import BOOL, MISSING, STRING, CommandFacts, ParamFacts, TypeFacts
from argmatrix.loaders.static.branches import Undecided, run_at_import
from argmatrix.loaders.static.classes import class_attribute
from argmatrix.loaders.static.declared import docstring, enum_members
from argmatrix.loaders.static.scripts import is_main_test
from argmatrix.loaders.static.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    resolve,
    short_source,
    truth,
)
from argmatrix.model.registry import SourceLine, Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.context import ModuleContext, ReadContext
    from argmatrix.loaders.static.evaluator import Evaluator

CLICK = "click"
_COMMAND_DECORATORS = ("command", "group")
_IGNORED_DECORATORS = frozenset(
    {"pass_context", "pass_obj", "help_option", "make_pass_decorator", "pass_meta_key"}
)
# The option decorators Click derives from `option`: their names and settings when not given.
_OPTION_SHORTHANDS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "password_option": (("--password",), {"prompt": True}),
    "confirmation_option": (
        ("--yes",),
        {"is_flag": True, "expose_value": False, "help": "Confirm the action without prompting."},
    ),
}
_BUILTIN_TYPES = {
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


class ClickReader:
    """Reads the Click commands of a read (`loader`): each module's commands found once."""

    def __init__(
        self, loader: ReadContext, evaluator: Callable[[ModuleContext, int], Evaluator]
    ) -> None:
        self.loader = loader
        self.evaluator = evaluator  # an interpreter of a module's top level as of a line
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
            elif isinstance(statement, ast.Assign):
                self._assigned(module, statement, found)
            elif (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and self._add_command(module, statement.value, found)
            ):
                followed.add(id(statement))
        groups = {name for name, command in found.items() if command.kind == "group"}
        report_unfollowed(module, statements, followed, groups, _REGISTERING, "subcommands")
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

    def _assigned(self, module: ModuleContext, node: ast.Assign, found: dict[str, Found]) -> None:
        """`cli = click.Group(...)`, `serve = click.Command(...)`, `opt = cli.command()(f)`."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        value = node.value
        if not isinstance(value, ast.Call):
            return
        name = self.click_name(module, value.func)
        kinds = {"Group": "group", "Command": "command"}
        if name in kinds:
            target = node.targets[0].id
            found[target] = Found(module, kinds[name], value, None, target, 0, node.lineno)
            for command in self._constructed_commands(module, value, found):
                found[target].registered.append((None, command, None))

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
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            imported = module.imports.get(node.value.id)
            if imported is not None and imported[1] is None:  # `import pkg.commands as c`
                source = module.loader.module(imported[0])
            elif imported is not None:
                source = module.loader.module(f"{imported[0]}.{imported[1]}")
            else:
                source = None
            if source is not None and not source.is_stub:
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
        try:
            value = self.interpreter(module, node.lineno).eval(node)
        except CannotEvaluate:
            return None
        return value if type(value) is str else None

    # -------------------------------------------------------------- facts of a command

    def facts(
        self, command: Found, name: str | None = None, above: tuple[int, ...] = ()
    ) -> CommandFacts:
        module = command.module
        module.loader.budget.calls(len(above))
        settings = self._settings(command)
        params = self._params(command, settings.pop("params", ()))
        help_ = settings.get("help")
        if help_ is None and command.function is not None:
            help_ = docstring(command.function)
        own = settings.get("name")
        subcommands = []
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
            subcommands.append((given or sub_facts.name, sub_facts))
        context = settings.get("context_settings")
        prefix = context.get("auto_envvar_prefix") if type(context) is dict else None
        return CommandFacts(
            name=name or (own if type(own) is str else self._default_name(command)),
            help=_string(help_),
            short_help=_string(settings.get("short_help")),
            params=params,
            is_group=command.kind == "group",
            subcommands=tuple(subcommands),
            auto_envvar_prefix=prefix if type(prefix) is str else None,
            hidden=settings.get("hidden") is True,
            deprecated=bool(settings.get("deprecated")) is True,
            **_usage_settings(settings),
        )

    def _default_name(self, command: Found) -> str:
        """Click's name for a decorated function: `run_server_command` -> `run-server`."""
        if command.function is None:
            return command.binding
        name = command.function.name.lower().replace("_", "-")
        left, sep, suffix = name.rpartition("-")
        return left if sep and suffix in _STRIPPED_SUFFIXES else name

    def _settings(self, command: Found) -> dict[str, Any]:
        """The command decorator's (or constructor's) arguments: `name` first if positional."""
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
                settings[keyword.arg] = it.try_eval(keyword.value)
        return settings

    def _params(self, command: Found, explicit: Any) -> tuple[ParamFacts, ...]:
        """`params=[...]` first, then the decorators under the command's, top to bottom (as
        Click collects them), then those above it (applied to the command: bottom to top)."""
        module = command.module
        params: list[ParamFacts] = []
        if isinstance(explicit, (ast.List, ast.Tuple)):
            for element in explicit.elts:
                param = self._constructed_param(module, element)
                if param is not None:
                    params.append(param)
        if command.function is None:
            return tuple(params)
        decorators = command.function.decorator_list
        below = decorators[command.decorator_index + 1 :]
        above = list(reversed(decorators[: command.decorator_index]))
        for decorator in [*below, *above]:
            params.extend(self._decorator_params(module, decorator))
        return tuple(params)

    def _decorator_params(self, module: ModuleContext, decorator: ast.expr) -> list[ParamFacts]:
        call = self._decorator_call(module, decorator)
        func = call.func if call is not None else decorator
        name = self.click_name(module, func)
        if name in _IGNORED_DECORATORS:
            return []
        if call is not None and name in ("option", "argument", "version_option"):
            return [self.param(module, call, name)]
        if call is not None and name in _OPTION_SHORTHANDS:
            return [self.param(module, call, name)]
        module.loader.report(
            str(module.path),
            decorator.lineno,
            f"the decorator `{short_source(module.segment(decorator))}` is not one static"
            " reading follows: the parameters it may add are missing",
            stops=True,
        )
        return []

    def _decorator_call(self, module: ModuleContext, decorator: ast.expr) -> ast.Call | None:
        """The call of a decorator: written in place, or bound to a name of the module
        (`port_option = click.option(...)` then `@port_option`)."""
        if isinstance(decorator, ast.Call):
            return decorator
        if isinstance(decorator, ast.Name):
            module.parse()
            value = module.assignments.get(decorator.id)
            if isinstance(value, ast.Call) and len(module.history.get(decorator.id, ())) == 1:
                return value
        return None

    # -------------------------------------------------------------- facts of a parameter

    def _constructed_param(self, module: ModuleContext, node: ast.expr) -> ParamFacts | None:
        """`click.Option(["--x"], ...)` / `click.Argument(["x"])` in `params=[...]`."""
        if not isinstance(node, ast.Call):
            return None
        kind = self.click_name(module, node.func)
        if kind not in ("Option", "Argument"):
            return None
        decls: list[Any] = []
        if node.args:
            given = self.interpreter(module, node.lineno).try_eval(node.args[0])
            decls = list(given) if type(given) in (list, tuple) else [given]
        call = ast.Call(node.func, [], node.keywords)
        ast.copy_location(call, node)
        return self.param(module, call, kind.lower(), decls)

    def param(
        self, module: ModuleContext, call: ast.Call, kind: str, decls: list[Any] | None = None
    ) -> ParamFacts:
        it = self.interpreter(module, call.lineno)
        args = [it.try_eval(a) for a in call.args] if decls is None else decls
        attrs: dict[str, Any] = {}
        type_node: ast.expr | None = None
        for keyword in call.keywords:
            if keyword.arg is None:
                raise _unreadable(module, call, "**" + module.segment(keyword.value))
            if keyword.arg == "type":
                type_node = keyword.value
            else:
                attrs[keyword.arg] = it.try_eval(keyword.value)
        if kind == "version_option":
            args = args[1:] or ["--version"]
            attrs.setdefault("is_flag", True)
            attrs.setdefault("expose_value", False)
            attrs.setdefault("help", "Show the version and exit.")
        elif kind in _OPTION_SHORTHANDS:
            names, settings = _OPTION_SHORTHANDS[kind]
            args = args or list(names)
            for key, value in settings.items():
                attrs.setdefault(key, value)
        if any(type(a) is not str for a in args):
            raise _unreadable(module, call, "the parameter's names")
        type_ = self.type_facts(module, type_node) if type_node is not None else None
        where = (str(module.path), call.lineno)
        if kind == "argument":
            return self._argument(args, attrs, type_, where)
        return self._option(args, attrs, type_, where, version=kind == "version_option")

    def _option(
        self,
        decls: list[str],
        attrs: dict[str, Any],
        type_: TypeFacts | None,
        where: tuple[str, int],
        version: bool = False,
    ) -> ParamFacts:
        name, opts, secondary = option_decls(decls)
        label = opts[0] if opts else (secondary[0] if secondary else name or "?")
        default = self._default(attrs, label, where)
        flag_value = attrs.get("flag_value", MISSING)
        count = attrs.get("count") is True
        is_flag = attrs.get("is_flag")
        if is_flag is None:
            is_flag = flag_value is not MISSING or bool(secondary)
        if type_ is None:
            if count:
                type_ = TypeFacts("IntRange", "integer range", min=0)
            elif is_flag and (flag_value is MISSING or type(flag_value) is bool):
                type_ = BOOL
            elif is_flag:
                type_ = guessed_type(flag_value)
            else:
                type_ = guessed_type(default)
        nargs = attrs.get("nargs")
        if nargs is None:
            nargs = len(type_.items) if type_.param_type == "Tuple" else 1
        if count and default is MISSING:
            default = 0
        return ParamFacts(
            origin=SourceLine(*where),
            kind="option",
            name=name or "",
            opts=tuple(opts),
            secondary_opts=tuple(secondary),
            type=type_,
            required=attrs.get("required") is True,
            nargs=nargs if type(nargs) is int else 1,
            multiple=attrs.get("multiple") is True,
            default=default,
            envvar=self._envvar(attrs.get("envvar"), label, where),
            help=_deprecated_help(self._help(attrs.get("help"), label, where), attrs),
            hidden=attrs.get("hidden") is True,
            is_flag=bool(is_flag),
            flag_value=flag_value,
            count=count,
            show_default=attrs.get("show_default"),
            metavar=attrs.get("metavar") if type(attrs.get("metavar")) is str else None,
            allow_from_autoenv=attrs.get("allow_from_autoenv", True) is not False,
            deprecated=bool(attrs.get("deprecated")) is True,
            version=version,
        )

    def _argument(
        self,
        decls: list[str],
        attrs: dict[str, Any],
        type_: TypeFacts | None,
        where: tuple[str, int],
    ) -> ParamFacts:
        if len(decls) != 1:
            raise ArgmatrixError.at(
                f"a Click argument takes one name, this one has {len(decls)}",
                file=where[0],
                line=where[1],
                fix="give the argument one name, as Click requires",
            )
        name = decls[0].replace("-", "_").lower()
        default = self._default(attrs, name, where)
        nargs = attrs.get("nargs")
        if type_ is None:
            type_ = guessed_type(default)
        if nargs is None:
            nargs = len(type_.items) if type_.param_type == "Tuple" else 1
        nargs = nargs if type(nargs) is int else 1
        required = attrs.get("required")
        if required is None:
            required = default is MISSING and nargs > 0
        return ParamFacts(
            origin=SourceLine(*where),
            kind="argument",
            name=name,
            opts=(decls[0],),
            type=type_,
            required=required is True,
            nargs=nargs,
            multiple=attrs.get("multiple") is True,
            default=default,
            envvar=self._envvar(attrs.get("envvar"), name, where),
            help=_deprecated_help(self._help(attrs.get("help"), name, where), attrs),
            hidden=attrs.get("hidden") is True,
            metavar=attrs.get("metavar") if type(attrs.get("metavar")) is str else None,
            deprecated=bool(attrs.get("deprecated")) is True,
        )

    def _default(self, attrs: dict[str, Any], label: str, where: tuple[str, int]) -> Any:
        """The default as written; a function is computed when the command runs (its name,
        as live reading names it); a value only running would tell is its source text."""
        if "default" not in attrs:
            return MISSING
        value = resolve(attrs["default"])
        if type(value) in (FunctionRef, LambdaRef):
            name = value.node.name if type(value) is FunctionRef else "<lambda>"
            return Unevaluated(f"{name}()", "a callable default, computed when the command runs")
        if type(value) is BuiltinRef:
            return Unevaluated(
                f"{value.name}()", "a callable default, computed when the command runs"
            )
        return self._known(value, label, "default", where)

    def _known(self, value: Any, label: str, what: str, where: tuple[str, int]) -> Any:
        found = _first_unevaluated(value)
        if found is not None:
            reason = f" ({found.reason})" if found.reason else ""
            self.report(
                where,
                f"{label}: {what} kept as source text: `{short_source(found.source)}`{reason}",
            )
        return value

    def _envvar(self, value: Any, label: str, where: tuple[str, int]) -> Any:
        value = self._known(value, label, "envvar", where)
        if type(value) in (list, tuple):
            return tuple(v for v in value if type(v) is str)
        return value if type(value) in (str, Unevaluated) else None

    def _help(self, value: Any, label: str, where: tuple[str, int]) -> str | Unevaluated | None:
        value = self._known(value, label, "help", where)
        if type(value) is str:
            return inspect.cleandoc(value)
        return value if type(value) is Unevaluated else None

    def report(self, where: tuple[str, int], message: str) -> None:
        self.loader.report(where[0], where[1], message)

    # -------------------------------------------------------------- types

    def type_facts(self, module: ModuleContext, node: ast.expr, depth: int = 0) -> TypeFacts:
        """A parameter type written in the source: a builtin, a Click type or constant, a
        `ParamType` class of the source, a tuple of types; else its source text."""
        if depth > 8:
            return _unknown_type(module, node)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = tuple(self.type_facts(module, e, depth + 1) for e in node.elts)
            return TypeFacts("Tuple", "<" + " ".join(i.name for i in items) + ">", items=items)
        if isinstance(node, ast.Call):
            return self._type_call(module, node, depth)
        if isinstance(node, ast.Name):
            module.parse()
            bound = module.assignments.get(node.id)
            if bound is not None and len(module.history.get(node.id, ())) == 1:
                return self.type_facts(module, bound, depth + 1)
        try:
            value = resolve(self.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return _unknown_type(module, node)
        if type(value) is BuiltinRef and value.name in _BUILTIN_TYPES:
            return _BUILTIN_TYPES[value.name]
        if type(value) is ExternalRef and value.dotted.split(".", 1)[0] == CLICK:
            constant = _CONSTANT_TYPES.get(value.short)
            if constant is not None:
                return constant
        if type(value) is FunctionRef:
            return TypeFacts("Func", value.node.name)
        return _unknown_type(module, node)

    def _type_call(self, module: ModuleContext, node: ast.Call, depth: int) -> TypeFacts:
        it = self.interpreter(module, node.lineno)
        try:
            func = resolve(it.eval(node.func))
        except CannotEvaluate:
            return _unknown_type(module, node)
        if type(func) is ClassRef:  # a ParamType of the source: its class and its `name`
            try:
                name = class_attribute(func, "name")
            except CannotEvaluate:
                name = ""
            kind = func.node.name.partition("ParamType")[0].partition("ParameterType")[0]
            return TypeFacts(kind, name if type(name) is str else "")
        if not (type(func) is ExternalRef and func.dotted.split(".", 1)[0] == CLICK):
            return _unknown_type(module, node)
        args = [it.try_eval(a) for a in node.args]
        kwargs = {k.arg: it.try_eval(k.value) for k in node.keywords if k.arg is not None}
        kind = func.short
        if kind in ("IntRange", "FloatRange"):
            bound = dict(zip(("min", "max", "min_open", "max_open", "clamp"), args, strict=False))
            bound.update(kwargs)
            return TypeFacts(
                kind,
                "integer range" if kind == "IntRange" else "float range",
                min=bound.get("min"),
                max=bound.get("max"),
                min_open=bound.get("min_open") is True,
                max_open=bound.get("max_open") is True,
            )
        if kind == "Choice":
            choices = args[0] if args else kwargs.get("choices")
            if type(choices) is ClassRef:  # an Enum (Click 8.2 and later): its members' names
                try:
                    members = enum_members(choices, self.loader.budget)
                    choices = [m.name if type(m) is EnumMember else m for m in members]
                except CannotEvaluate as exc:
                    choices = Unevaluated(module.segment(node.args[0]), exc.reason)
            known = tuple(choices) if type(choices) in (list, tuple) else choices  # type: ignore[arg-type]
            if type(known) is Unevaluated:
                reason = f" ({known.reason})" if known.reason else ""
                self.loader.report(
                    str(module.path),
                    node.lineno,
                    f"the choices of `{short_source(module.segment(node))}` kept as source"
                    f" text{reason}",
                )
            return TypeFacts(
                "Choice",
                "choice",
                choices=known if type(known) is tuple or type(known) is Unevaluated else None,
            )
        if kind == "Path":
            bound = dict(zip(("exists", "file_okay", "dir_okay"), args, strict=False))
            bound.update(kwargs)
            file_okay, dir_okay = bound.get("file_okay", True), bound.get("dir_okay", True)
            name = (
                "file"
                if file_okay and not dir_okay
                else "directory"
                if dir_okay and not file_okay
                else "path"
            )
            return TypeFacts("Path", name)
        if kind == "File":
            return TypeFacts("File", "filename")
        if kind == "DateTime":
            return TypeFacts("DateTime", "datetime")
        if kind == "Tuple" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            return self.type_facts(module, node.args[0], depth + 1)
        return _unknown_type(module, node)


_REGISTERING = frozenset({"command", "group", "add_command"})
_NOT_REGISTERING = (ast.Import, ast.ImportFrom, ast.ClassDef)


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


def _unknown_type(module: ModuleContext, node: ast.expr) -> TypeFacts:
    text = module.segment(node)
    return TypeFacts(short_source(text), short_source(text))


def guessed_type(default: Any) -> TypeFacts:
    """The type Click gives a parameter from its default when it is given none."""
    if default is MISSING or default is None or type(default) is Unevaluated:
        return STRING
    if type(default) in (list, tuple):
        if not default:
            return STRING
        item = default[0]
        if type(item) in (list, tuple):
            items = tuple(_python_type(type(v).__name__) for v in item)
            return TypeFacts("Tuple", "<" + " ".join(i.name for i in items) + ">", items=items)
        return _python_type(type(item).__name__)
    return _python_type(type(default).__name__)


def _python_type(name: str) -> TypeFacts:
    return _BUILTIN_TYPES.get(name, STRING)


def option_decls(decls: list[str]) -> tuple[str | None, list[str], list[str]]:
    """Click's `Option._parse_decls`: the name, the options and the secondary options."""
    opts: list[str] = []
    secondary: list[str] = []
    name: str | None = None
    possible: list[tuple[str, str]] = []
    for decl in decls:
        if decl.isidentifier():
            name = decl
            continue
        split = ";" if decl[:1] == "/" else "/"
        if split in decl:
            first, second = decl.split(split, 1)
            first = first.rstrip()
            if first:
                possible.append(_split_opt(first))
                opts.append(first)
            second = second.lstrip()
            if second:
                secondary.append(second.lstrip())
        else:
            possible.append(_split_opt(decl))
            opts.append(decl)
    if name is None and possible:
        possible.sort(key=lambda x: -len(x[0]))
        name = possible[0][1].replace("-", "_").lower()
        if not name.isidentifier():
            name = None
    return name, opts, secondary


def _split_opt(opt: str) -> tuple[str, str]:
    first = opt[:1]
    if first.isalnum():
        return "", opt
    if opt[1:2] == first:
        return opt[:2], opt[2:]
    return first, opt[1:]


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


def _deprecated_help(help_: str | Unevaluated | None, attrs: dict[str, Any]) -> Any:
    """Click (8.2 and later) says a deprecated parameter is so at the end of its help."""
    deprecated = attrs.get("deprecated")
    if not (deprecated is True or (type(deprecated) is str and deprecated)):
        return help_
    label = f"(DEPRECATED: {deprecated})" if type(deprecated) is str else "(DEPRECATED)"
    if type(help_) is Unevaluated:
        return help_
    return f"{help_} {label}" if help_ else label


def _string(value: Any) -> str | Unevaluated | None:
    return value if type(value) in (str, Unevaluated) else None


def _first_unevaluated(value: Any, depth: int = 0) -> Unevaluated | None:
    if type(value) is Unevaluated:
        return value
    if depth < 4 and type(value) in (list, tuple, set, frozenset):
        for item in value:
            found = _first_unevaluated(item, depth + 1)
            if found is not None:
                return found
    if depth < 4 and type(value) is dict:
        for item in value.values():
            found = _first_unevaluated(item, depth + 1)
            if found is not None:
                return found
    return None


def _unreadable(module: ModuleContext, call: ast.Call, what: str) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"cannot read {short_source(what)} of a Click parameter statically",
        file=str(module.path),
        line=call.lineno,
        fix="spell the parameter's names and keywords out, or load the registry live",
    )
