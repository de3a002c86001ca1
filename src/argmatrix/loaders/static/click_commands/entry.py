"""The Click reader's entry: which command a target names (a Click command or group, a Typer app,
a function a Typer app registers, a function written for `typer.run`, or the command a function
or the `if __name__ == "__main__":` block runs), read by `clicks` and by the reader of Typer,
which reads apps on Click's facts and is handed in (`AppsOnClick`: `typer_apps.typers`, above
this package). The read (`loaders/static/reader.py`, `read_framework`) finds the target's module
with the budget and the module reader of any static read, makes the readers and hands them
here; a target that is none of these is left to the argparse reader (`target_command` gives
None).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.click_commands.clicks import ClickReader
from argmatrix.loaders.static.python.context import ModuleContext
from argmatrix.loaders.static.python.scripts import MAIN, main_blocks
from argmatrix.loaders.static.python.values import CannotEvaluate, short_source

if TYPE_CHECKING:
    from argmatrix.loaders.clicks import CommandFacts

Function = ast.FunctionDef | ast.AsyncFunctionDef

# Words of a function (or module) that uses argparse: then the argparse reader reads it.
_ARGPARSE_WORDS = ("ArgumentParser", "add_argument", "parse_args", "parse_known_args")


class AppsOnClick(Protocol):
    """What this entry asks of the reader of a framework built on Click (Typer's,
    `typer_apps.typers.TyperReader`), in the order a live read would find them."""

    def app_at(self, module: ModuleContext, name: str) -> Any:
        """The app bound to `name` in `module`, or None."""
        ...

    def facts(self, app: Any, target: str) -> CommandFacts: ...

    def registered(
        self, module: ModuleContext, node: Function, target: str
    ) -> CommandFacts | None: ...

    def is_run_function(self, module: ModuleContext, node: Function) -> bool: ...

    def run_facts(self, module: ModuleContext, node: Function) -> CommandFacts: ...

    def run_call(self, module: ModuleContext, call: ast.Call) -> CommandFacts | None: ...


def target_command(
    module: ModuleContext,
    attr: str,
    target: str,
    clicks: ClickReader,
    typers: AppsOnClick,
) -> CommandFacts | None:
    """The command `target` (`attr` of `module`, parsed whole) names, read by `clicks` and
    `typers`; None: it names none, and the target is read as argparse's."""
    runs = _Runs(clicks, typers, target)
    if attr == MAIN:
        assert module.tree is not None
        body = [statement for block in main_blocks(module.tree) for statement in block.body]
        return runs.command(module, body)
    if "." in attr:
        return None
    found = clicks.command_at(module, attr)
    if found is not None:
        return clicks.facts(found)
    app = typers.app_at(module, attr)
    if app is not None:
        return typers.facts(app, target)
    node = clicks.definition(module, attr)
    if node is None and attr in module.assignments:
        _refuse_value(module, attr, target)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    registered = typers.registered(module, node, target)
    if registered is not None:
        return registered
    _refuse_bare_options(clicks, module, node, target)
    if typers.is_run_function(module, node):
        return typers.run_facts(module, node)
    return runs.command(module, node.body, node)


def _refuse_value(module: ModuleContext, attr: str, target: str) -> None:
    """A target bound to a value that is neither a Click command nor a Typer app static
    reading finds (`app = make_app(...)`): said in those terms, at its line."""
    value = module.assignments[attr]
    if not isinstance(value, ast.Call):
        return  # a value of another kind: the argparse reader says what it is
    raise ArgmatrixError.at(
        f"static reading stopped: {target} is `{short_source(module.segment(value), 60)}`,"
        " which static reading does not read as a Click command or group or a Typer app"
        " (it reads `@click.command`, `@click.group`, `click.Group(...)`, `typer.Typer(...)`"
        " and the functions they are applied to)",
        file=str(module.path),
        line=value.lineno,
        fix="name the command object the project builds, or load the registry live"
        " (registry.mode: live)",
    )


def _refuse_bare_options(
    clicks: ClickReader,
    module: ModuleContext,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    target: str,
) -> None:
    for decorator in node.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        if clicks.click_name(module, func) in ("option", "argument"):
            raise ArgmatrixError.at(
                f"{target} has @click.option decorators but no @click.command: it is not a"
                " command yet",
                file=str(module.path),
                line=node.lineno,
                fix="name the command the decorators are applied to (the function under"
                " @click.command or @group.command)",
            )


# How deep static reading follows functions that call functions before one runs a command
# (`main()` calling `cli()` calling `app()`), and the methods by which a command is run.
_RUNNER_DEPTH = 8
_RUN_METHODS = frozenset({"main", "make_context", "invoke", "parse_args"})


class _Runs:
    """The command a function (or a script's `__main__` block) runs, followed as live reading
    follows it: `cli()`, `cli.main(...)`, `app()`, `typer.run(main)`, inside `sys.exit(...)`
    too, through functions of the package that call them, and through names imported inside
    the function (`from pkg.proxy_cli import run_server; run_server()`)."""

    def __init__(self, clicks: ClickReader, typers: AppsOnClick, target: str) -> None:
        self.clicks = clicks
        self.typers = typers
        self.target = target
        self.followed: set[tuple[str, int]] = set()
        # The first call of a name imported from a module whose source is not read.
        self.unread: tuple[ModuleContext, ast.Call, str] | None = None

    def command(
        self,
        module: ModuleContext,
        body: list[ast.stmt],
        function: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
    ) -> CommandFacts | None:
        found = self._run_by(module, body, 0)
        if found is None and self.unread is not None and not _builds_argparse(module, function):
            where, call, base = self.unread
            raise ArgmatrixError.at(
                f"static reading stopped: {self.target} runs"
                f" `{short_source(where.segment(call))}`, imported from {base}, whose source"
                " static reading does not read: the Click command, Typer app or argparse parser"
                " it may run is missing",
                file=str(where.path),
                line=call.lineno,
                fix="name the command object itself as the target (module:command), or load"
                " the registry live (registry.mode: live)",
            )
        return found

    def _run_by(
        self, module: ModuleContext, body: list[ast.stmt], depth: int
    ) -> CommandFacts | None:
        module.loader.budget.calls(depth)
        local = _local_imports(module, body)
        for call in _calls(body):
            module.loader.budget.step()
            run = self.typers.run_call(module, call)
            if run is not None:
                return run
            func = call.func
            method = isinstance(func, ast.Attribute) and func.attr in _RUN_METHODS
            callee = func.value if method and isinstance(func, ast.Attribute) else func
            place = self._locate(module, local, callee, call)
            if place is None:
                continue
            source, name = place
            found = self.clicks.command_at(source, name)
            if found is not None:
                return _with_settings(self.clicks, module, call, self.clicks.facts(found))
            app = self.typers.app_at(source, name)
            if app is not None:
                return _with_settings(self.clicks, module, call, self.typers.facts(app, name))
            node = self.clicks.definition(source, name)
            key = (source.name, id(node))
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and key not in self.followed
                and depth < _RUNNER_DEPTH
            ):
                self.followed.add(key)
                inner = self._run_by(source, node.body, depth + 1)
                if inner is not None:
                    return inner
        return None

    def _locate(
        self,
        module: ModuleContext,
        local: dict[str, tuple[str, str | None]],
        callee: ast.expr,
        call: ast.Call,
    ) -> tuple[ModuleContext, str] | None:
        """The module of the source and the module-level name a callee is (`cli`, `m.cli`,
        a name imported in the function or at the module's top level), re-exports followed."""
        loader = module.loader
        if isinstance(callee, ast.Name):
            imported = local.get(callee.id) or module.imports.get(callee.id)
            if imported is None:
                return module, callee.id
            base, attr = imported
            if attr is None:
                return None
            source = self._package_module(base)
            if source is None:
                standard = base.partition(".")[0] in sys.stdlib_module_names
                if self.unread is None and not loader.in_package(base) and not standard:
                    self.unread = (module, call, base)
                return None
            return _exported(source, attr)
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
            imported = local.get(callee.value.id) or module.imports.get(callee.value.id)
            if imported is None:
                return None
            base, attr = imported
            source = self._package_module(base if attr is None else f"{base}.{attr}")
            return None if source is None else _exported(source, callee.attr)
        return None

    def _package_module(self, name: str) -> ModuleContext | None:
        """A module of the target's package, read from source (never one of another)."""
        loader = self.clicks.loader
        source = loader.module(name) if loader.in_package(name) else None
        return None if source is None or source.is_stub else source


def _exported(module: ModuleContext, name: str, hops: int = 0) -> tuple[ModuleContext, str]:
    """Where a module-level name is defined: a name the module only imports from another
    module of the package is followed there (`from pkg.cli import app` re-exported)."""
    module.parse()
    again = module.imports.get(name)
    defined = name in module.definitions or name in module.assignments
    if again is None or again[1] is None or defined or hops >= _RUNNER_DEPTH:
        return module, name
    source = module.loader.module(again[0]) if module.loader.in_package(again[0]) else None
    if source is None or source.is_stub:
        return module, name
    return _exported(source, again[1], hops + 1)


def _local_imports(
    module: ModuleContext, body: list[ast.stmt]
) -> dict[str, tuple[str, str | None]]:
    """The names a function's own `import`s bind (`from pkg.cli import app` in its body)."""
    found: dict[str, tuple[str, str | None]] = {}
    for node in _walk_statements(body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = (alias.name, None)
                else:
                    top = alias.name.split(".", 1)[0]
                    found[top] = (top, None)
        elif isinstance(node, ast.ImportFrom):
            base = module.absolute(node.module, node.level)
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (base, alias.name)
    return found


def _walk_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    pending: list[ast.stmt] = list(reversed(body))
    while pending:
        statement = pending.pop()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield statement
        for field in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(reversed(getattr(statement, field, [])))


def _builds_argparse(
    module: ModuleContext, function: ast.FunctionDef | ast.AsyncFunctionDef | None
) -> bool:
    """Whether a function's text names argparse's parsing (then the argparse reader reads it)."""
    text = module.segment(function) if function is not None else module.text
    return any(word in text for word in _ARGPARSE_WORDS)


def _calls(body: list[ast.stmt]) -> Iterator[ast.Call]:
    """The calls of a block, in order, outside the functions and classes it defines."""
    pending: list[ast.AST] = list(reversed(body))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            yield node
        pending.extend(reversed(list(ast.iter_child_nodes(node))))


def _with_settings(
    clicks: ClickReader, module: ModuleContext, call: ast.Call, facts: CommandFacts
) -> CommandFacts:
    """What `cli(auto_envvar_prefix="X")` gives the command's context; a prefix static reading
    cannot compute is said (every environment variable it derives is missing)."""
    for keyword in call.keywords:
        if keyword.arg == "auto_envvar_prefix":
            try:
                value: Any = clicks.interpreter(module, call.lineno).eval(keyword.value)
            except CannotEvaluate as exc:
                module.loader.report(
                    str(module.path),
                    call.lineno,
                    f"the command's auto_envvar_prefix kept as source text:"
                    f" `{short_source(module.segment(keyword.value))}` ({exc.reason}): the"
                    " environment variables it gives the options are not shown",
                )
                continue
            if type(value) is str:
                return replace(facts, auto_envvar_prefix=value)
    return facts
