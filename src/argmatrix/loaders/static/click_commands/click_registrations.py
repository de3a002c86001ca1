"""Where a Click group's subcommands and parameters are registered outside its own declaration,
found in a module's statements for `click_scan.ClickScanner` (`Found`: a command found, with
what was registered on it): `group.command()`, `group.add_command(...)`, `params` and
`commands` changed after the command is made, a group handed to a function of the package that
registers on it (followed, a few calls deep), and what static reading says where it cannot follow
one: the read stops at that line."""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.click_commands.framework_values import FrameworkCall
from argmatrix.loaders.static.python.branches import Undecided
from argmatrix.loaders.static.python.scripts import is_main_test
from argmatrix.loaders.static.python.values import (
    FunctionRef,
    short_source,
)

if TYPE_CHECKING:
    from argmatrix.loaders.static.python.context import ModuleContext
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argmatrix.loaders.static.python.context import ModuleContext


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


REGISTERING = frozenset({"command", "group", "add_command"})
# The methods whose call, as a statement of a module's top level, declares something there as
# a definition would (`cli.add_command(...)`, `app.add_typer(...)`, `app.callback()(f)`,
# `cli.params.append(...)`): an `if` or `try` holding one is an alternative that declares
# (`branches.Rules.registering`). Typer's app is read by the same scan.
DECLARING_METHODS = frozenset(
    {"command", "group", "add_command", "add_typer", "callback", "params"}
)


_COMMANDS = frozenset({"commands"})  # a group's own table of subcommands


PARAMS = frozenset({"params"})


_CHANGING = REGISTERING | _COMMANDS | PARAMS


_NOT_REGISTERING = (ast.Import, ast.ImportFrom, ast.ClassDef)


HELPER_DEPTH = 4  # functions handed a group, one calling another


# Text of a module that may register commands on a group imported from another module.
_REGISTERING_TEXT = (".command(", ".group(", "add_command(", "add_typer(", ".callback(")


def may_register(text: str) -> bool:
    return any(word in text for word in _REGISTERING_TEXT)


def imported_names(module: ModuleContext, statement: ast.stmt) -> list[str]:
    """The modules an import statement may import (`from pkg import commands`: the module
    `pkg.commands` if there is one, else `pkg`)."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if not isinstance(statement, ast.ImportFrom):
        return []
    base = module.absolute(statement.module, statement.level)
    names = [f"{base}.{alias.name}" for alias in statement.names if alias.name != "*"]
    return [*names, base]


def groups_handed(call: ast.Call, found: Collection[str]) -> list[str]:
    """The names of commands among `found` a call is given (as arguments, by name)."""
    given = [*call.args, *(k.value for k in call.keywords)]
    return [a.id for a in given if isinstance(a, ast.Name) and a.id in found]


def bound_groups(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    call: ast.Call,
    handed: list[str],
    found: dict[str, Found],
) -> dict[str, Found] | None:
    """The helper's parameters bound to the commands it is given (None: a `*args`, `**kw`
    or a spread static reading does not match to its parameters)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    params = [*node.args.posonlyargs, *node.args.args]
    bound: dict[str, Found] = {}
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id in found:
            if index >= len(params):
                return None
            bound[params[index].arg] = found[argument.id]
    names = {p.arg for p in [*params, *node.args.kwonlyargs]}
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id in found:
            if keyword.arg not in names:
                return None
            bound[str(keyword.arg)] = found[keyword.value.id]
    return bound if len(bound) == len(handed) else None


def report_handed(
    module: ModuleContext,
    statements: list[ast.stmt | Undecided],
    followed: set[int],
    names: set[str],
    what: str = "a Click command or group",
) -> None:
    """A statement static reading did not follow that hands a command or group to other
    code (`pm.hook.register_commands(cli=cli)`, a plugin loader): what that code adds to it
    is missing, said at its line (which stops the read). Click's and Typer's own functions
    (`typer.main.get_command(app)`) only look at it."""
    if not names:
        return
    for entry in statements:
        statement = entry.statement if isinstance(entry, Undecided) else entry
        if id(statement) in followed or isinstance(statement, _NOT_REGISTERING):
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(statement, ast.If) and is_main_test(statement.test):
            continue
        for node in ast.walk(statement):
            module.loader.budget.visit(1)
            if (
                isinstance(node, ast.Call)
                and groups_handed(node, names)
                and not frameworks_own(module, node.func)
            ):
                module.loader.report(
                    str(module.path),
                    statement.lineno,
                    f"`{short_source(module.segment(node))}` hands {what} to code static"
                    " reading does not follow: the subcommands or parameters it may add are"
                    " missing",
                    stops=True,
                )
                break


def report_changed(
    module: ModuleContext,
    statements: list[ast.stmt | Undecided],
    followed: set[int],
    names: set[str],
    kind: str = "Click command",
    tables: frozenset[str] = frozenset({"commands"}),
) -> None:
    """A top-level statement static reading did not follow that changes a command or app once
    it is made (`serve.hidden = True`, `del cli.short_help`, `app.info.help = ...`, its table
    of subcommands, `tables`), or calls a function of the module whose body registers on or
    changes one (`def add_tools(): @cli.command() ...` then `add_tools()`): what the command
    is then is not known, said at its line (which stops the read)."""
    if not names:
        return
    functions = _registering_functions(module, names, tables | _CHANGING)
    for entry in statements:
        statement = entry.statement if isinstance(entry, Undecided) else entry
        if id(statement) in followed or isinstance(statement, _NOT_REGISTERING):
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(statement, ast.If) and is_main_test(statement.test):
            continue
        for node in ast.walk(statement):
            module.loader.budget.visit(1)
            what = _change(node, names, functions, kind, tables)
            if what is not None:
                module.loader.report(
                    str(module.path),
                    statement.lineno,
                    f"`{short_source(module.segment(node))}` {what}: what the command is then"
                    " is not known",
                    stops=True,
                )
                break


def _change(
    node: ast.AST,
    names: set[str],
    functions: dict[str, tuple[str, int]],
    kind: str,
    tables: frozenset[str],
) -> str | None:
    """What a node of an unfollowed statement does to one of the commands `names`, if it
    changes one: sets or deletes something of it, changes its table of subcommands, or calls
    a function registering on it."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in names
        and node.attr in tables
    ):
        return (
            f"changes the subcommands of the {kind} {node.value.id!r} in a way static"
            " reading does not follow"
        )
    root = _stored_root(node)
    if root in names:
        return f"changes the {kind} {root!r} in a statement static reading does not follow"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        command, defined = functions.get(node.func.id, (None, 0))
        if command is not None and defined < node.lineno:  # a name of the def, not before it
            return (
                f"runs `{node.func.id}`, a function registering on or changing the {kind}"
                f" {command!r} that static reading does not follow"
            )
    return None


def _stored_root(node: ast.AST) -> str | None:
    """The name at the root of an attribute or item being set or deleted (`app` of
    `app.info.help = ...`), if `node` is one."""
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    if not isinstance(node.ctx, (ast.Store, ast.Del)):
        return None
    value: ast.expr = node.value
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _registering_functions(
    module: ModuleContext, names: set[str], changing: frozenset[str]
) -> dict[str, tuple[str, int]]:
    """The module's top-level functions, but decorated ones (a command's body runs when the
    command runs), whose body registers on or changes one of the commands `names` (a
    module-level name, not one of its own): function -> the command and the line of its
    `def` (the last one)."""
    assert module.tree is not None
    found: dict[str, tuple[str, int]] = {}
    for statement in module.tree.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        found.pop(statement.name, None)  # a later def of the name replaces an earlier one
        if statement.decorator_list or statement.name in names:
            continue
        own = {a.arg for a in ast.walk(statement.args) if isinstance(a, ast.arg)}
        for node in ast.walk(statement):
            module.loader.budget.visit(1)
            root = _stored_root(node)
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in names
                and node.attr in changing
            ):
                root = node.value.id
            if root in names and root not in own:
                found[statement.name] = (root, statement.lineno)
                break
    return found


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


def keyword_of(call: ast.Call | None, name: str) -> ast.expr | None:
    if call is None:
        return None
    return next((k.value for k in call.keywords if k.arg == name), None)


def given_name(call: ast.Call | None) -> str | None:
    """The name a `@group.command("name")` gives, when it is a literal."""
    if call is None:
        return None
    node = call.args[0] if call.args else keyword_of(call, "name")
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return node.value
    return None


_FRAMEWORKS = ("click", "typer")


def frameworks_own(module: ModuleContext, func: ast.expr) -> bool:
    """Whether a callee is a function of Click or Typer (`typer.main.get_command`, or
    `get_command` imported from `typer.main`): the name it starts from is imported from one."""
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name):
        return False
    imported = module.imports.get(func.id)
    return imported is not None and imported[0].split(".", 1)[0] in _FRAMEWORKS
