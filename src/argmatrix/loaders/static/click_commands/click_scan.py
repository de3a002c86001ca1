"""Finding the Click commands of a read in source: `@click.command`/`@click.group` functions,
`click.Group(...)`/`click.Command(...)` objects, subcommands registered by `@group.command()`,
`group.add_command(...)` (in the group's module, in a module it imports, in a function of the
package it hands the group to), options added once a command is made, all under the `if`s and
`try`s that run at import (`branches`). What registers on a group or command in a way static
reading does not follow stops the read at its line; what builds each command is read by
`clicks.ClickReader.facts`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from argmatrix.loaders.static.click_commands.click_params import ClickRules, ParamReader
from argmatrix.loaders.static.click_commands.click_registrations import (
    DECLARING_METHODS,
    HELPER_DEPTH,
    PARAMS,
    REGISTERING,
    Found,
    as_assign,
    bound_groups,
    given_name,
    groups_handed,
    imported_module,
    imported_names,
    keyword_of,
    may_register,
    report_changed,
    report_handed,
    report_unfollowed,
    undecided,
)
from argmatrix.loaders.static.click_commands.framework_values import (
    PARAMETER_DECORATORS,
    FrameworkCall,
)
from argmatrix.loaders.static.python.branches import Rules, Undecided, run_at_import
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ExternalRef,
    FunctionRef,
    describe,
    resolve,
    short_source,
    truth,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from argmatrix.loaders.static.python.context import ModuleContext, ReadContext
    from argmatrix.loaders.static.python.evaluator import Evaluator

CLICK = "click"
_COMMAND_DECORATORS = ("command", "group")
_STRIPPED_SUFFIXES = ("command", "cmd", "group", "grp")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class ClickScanner:
    """Finds the Click commands of a read (`loader`): each module's commands found once."""

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
        statements = self.top_level(module)
        followed = self._scan(module, statements, found, 0)
        groups = {name for name, command in found.items() if command.kind == "group"}
        report_unfollowed(module, statements, followed, groups, REGISTERING, "subcommands")
        report_unfollowed(module, statements, followed, set(found), PARAMS, "parameters")
        report_changed(module, statements, followed, set(found))
        report_handed(module, statements, followed, set(found))
        return found

    def _scan(
        self,
        module: ModuleContext,
        statements: list[ast.stmt | Undecided],
        found: dict[str, Found],
        depth: int,
    ) -> set[int]:
        """Follow the statements that declare and register commands (a module's top level,
        or the body of a function of the package handed a group); the ids of those followed."""
        followed: set[int] = set()
        for statement in statements:
            module.loader.budget.step()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._declared(module, statement, found)
                followed.add(id(statement))
            elif as_assign(statement) is not None:
                if self._assigned(module, as_assign(statement), found):  # type: ignore[arg-type]
                    followed.add(id(statement))
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                self._imports_registering(module, statement)
            elif (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and (
                    self._add_command(module, statement.value, found)
                    or self._added_param(module, statement.value, found)
                    or self._helper(module, statement.value, found, depth)
                )
            ):
                followed.add(id(statement))
        return followed

    def _imports_registering(self, module: ModuleContext, statement: ast.stmt) -> None:
        """A module of the package imported here that registers commands on a group (at the
        end of the group's module, as tools do to avoid a circular import): read when Python
        runs it, so its commands come where the import is."""
        for name in imported_names(module, statement):
            loader = module.loader
            if name in self.scanned or not loader.in_package(name):
                continue
            source = loader.module(name)
            if source is None or source.is_stub or not may_register(source.text):
                continue
            self.commands_of(source)

    def _helper(
        self, module: ModuleContext, call: ast.Call, found: dict[str, Found], depth: int
    ) -> bool:
        """`register(cli)`: a function of the package handed a group, which registers commands
        on it (`cli.add_command(...)`, `@cli.command()` in its body), followed as the module's
        own statements are, with its parameter standing for the group."""
        handed = groups_handed(call, found)
        if not handed:
            return False
        function = self._function(module, call.func)
        if function is None or depth >= HELPER_DEPTH:
            return False  # said as a statement handing a group to code not followed
        where, node = function
        bindings = bound_groups(node, call, handed, found)
        if bindings is None:
            return False
        local = {**self.commands_of(where), **bindings}
        body: list[ast.stmt | Undecided] = list(node.body)
        followed = self._scan(where, body, local, depth + 1)
        report_unfollowed(where, body, followed, set(bindings), REGISTERING, "subcommands")
        report_handed(where, body, followed, set(bindings))
        return True

    def _function(
        self, module: ModuleContext, node: ast.expr
    ) -> tuple[ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The function of the package a callee names: of this module, imported from another
        module of the package, or `module.function`."""
        try:
            value = resolve(self.interpreter(module, node.lineno).eval(node))
        except CannotEvaluate:
            return None
        if (
            type(value) is FunctionRef
            and value.owner is None
            and not value.enclosing
            and not value.module.is_stub
            and module.loader.in_package(value.module.name)
        ):
            return value.module, value.node
        return None

    def top_level(self, module: ModuleContext) -> list[ast.stmt | Undecided]:
        """The module's top-level statements that run when it is imported (`branches`): a
        command declared under `if typer_available:` or in a `try:` is found there."""
        found = self.statements.get(module.name)
        if found is None:
            module.parse()
            assert module.tree is not None

            def decide(test: ast.expr) -> bool:
                return truth(self.interpreter(module, test.lineno).known(test))

            def fails(statement: ast.stmt) -> bool:
                names = imported_names(module, statement)
                return bool(names) and all(module.loader.module_missing(n) for n in names)

            def skipped(statement: ast.stmt) -> None:
                module.loader.report(
                    str(module.path),
                    statement.lineno,
                    f"`{short_source(module.segment(statement))}` imports a module that is not"
                    " installed beside the target: its commands are read as importing it here"
                    " runs (its `except ImportError:`); where it is installed they may differ",
                )

            rules = Rules(decide, (CannotEvaluate,), fails, skipped, DECLARING_METHODS)
            found = run_at_import(module.tree.body, rules)
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
                group.registered.append((given_name(call), command, None))
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
        given = call.args[1] if len(call.args) > 1 else keyword_of(call, "name")
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
