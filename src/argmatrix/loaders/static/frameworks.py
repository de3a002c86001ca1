"""Static reading of a target built with Click or Typer: which command the target names (a
Click command or group, a Typer app, a function a Typer app registers, a function written for
`typer.run`, or the command a function or the `if __name__ == "__main__":` block runs), read
from source by `clicks` and `typers` with the budget and the module reader of any static read.
A target that is none of these is left to the argparse reader (`read_framework` gives None).
`read_framework` is the static reader of `FRAMEWORKS["click"]` (loaders/modes.py): it gives a
`StaticRead` as `reader.load_static` does, the command's facts as its parser, with the files it
read (the page cache's inputs) and what it could not follow (`stops` as data).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.budget import Limits
from argmatrix.loaders.static.context import ModuleContext
from argmatrix.loaders.static.evaluator import Evaluator
from argmatrix.loaders.static.interpreter import Interpreter
from argmatrix.loaders.static.reader import (
    StaticLoader,
    StaticRead,
    budgeted,
    finished_read,
    new_loader,
)
from argmatrix.loaders.static.scripts import MAIN, main_blocks
from argmatrix.loaders.static.source import SourceModule
from argmatrix.loaders.static.values import CannotEvaluate
from argmatrix.loaders.target import split_target

if TYPE_CHECKING:
    from argmatrix.loaders.clicks import CommandFacts
    from argmatrix.loaders.static.clicks import ClickReader
    from argmatrix.loaders.static.typers import TyperReader

# A module that names neither is not read a second time (the argparse reader reads it).
_MENTIONS = re.compile(r"\b(?:click|typer)\b")


def _mentions_a_framework(text: str) -> bool:
    """Whether `text` names click or typer as a word. str.find rules most modules out: the
    pattern alone goes over every character of a large module (3 ms of sglang's)."""
    return ("click" in text or "typer" in text) and _MENTIONS.search(text) is not None


def read_framework(
    target: str,
    base_dir: Path | None = None,
    search_path: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> StaticRead | None:
    """The Click or Typer command `target` names, read from source (as `reader.load_static`
    reads an argparse parser: the files read, what could not be followed); None if it names
    none, and the target is read as argparse's."""
    module_name, attr = split_target(target)
    loader = new_loader(target, base_dir, search_path, limits)
    with budgeted(loader, module_name):
        module = loader.module(module_name)
        if module is None or module.is_stub or not _mentions_a_framework(module.text):
            return None
        loader.target = module
        command = _target_command(loader, module, attr, target)
    if command is None:
        return None
    from argmatrix.loaders.clicks import CLICK  # imported once a module names Click or Typer

    return finished_read(loader, command, {}, CLICK)


def _target_command(
    loader: StaticLoader, module: SourceModule, attr: str, target: str
) -> CommandFacts | None:
    # The readers of Click and Typer, imported once a module names either: an argparse target
    # (most of them) never loads them.
    from argmatrix.loaders.static.clicks import ClickReader
    from argmatrix.loaders.static.typers import TyperReader

    module.parse()  # the target's module: its syntax errors are said, as importing it would
    clicks = ClickReader(loader, _top_level)
    typers = TyperReader(loader, clicks)
    if attr == MAIN:
        assert module.tree is not None
        body = [statement for block in main_blocks(module.tree) for statement in block.body]
        return _run_command(clicks, typers, module, body)
    if "." in attr:
        return None
    found = clicks.command_at(module, attr)
    if found is not None:
        return clicks.facts(found)
    app = typers.app_at(module, attr)
    if app is not None:
        return typers.facts(app, target)
    node = module.definitions.get(attr)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    registered = typers.registered(module, node, target)
    if registered is not None:
        return registered
    _refuse_bare_options(clicks, module, node, target)
    if typers.is_run_function(module, node):
        return typers.run_facts(module, node)
    return _run_command(clicks, typers, module, node.body)


def _top_level(module: ModuleContext, line: int) -> Evaluator:
    """An interpreter of `module`'s top level as of `line` (what a decorator's arguments see)."""
    return Interpreter(module, {}, as_of=line)


def _refuse_bare_options(
    clicks: ClickReader,
    module: SourceModule,
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


def _run_command(
    clicks: ClickReader, typers: TyperReader, module: SourceModule, body: list[ast.stmt]
) -> CommandFacts | None:
    """The command a block of statements runs (`cli()`, `cli.main(...)`, `app()`,
    `typer.run(main)`, inside `sys.exit(...)` too), read with the settings the call gives
    (`auto_envvar_prefix=`). None: it runs none."""
    for call in _calls(body):
        func = call.func
        method = isinstance(func, ast.Attribute) and func.attr == "main"
        callee = func.value if method and isinstance(func, ast.Attribute) else func
        if isinstance(callee, ast.Name):
            found = clicks.command_of(module, callee, clicks.commands_of(module))
            if found is not None:
                return _with_settings(clicks, module, call, clicks.facts(found))
            app = typers.app_at(module, callee.id)
            if app is not None:
                return _with_settings(clicks, module, call, typers.facts(app, callee.id))
        run = typers.run_call(module, call)
        if run is not None:
            return run
    return None


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
    clicks: ClickReader, module: SourceModule, call: ast.Call, facts: CommandFacts
) -> CommandFacts:
    """What `cli(auto_envvar_prefix="X")` gives the command's context."""
    for keyword in call.keywords:
        if keyword.arg == "auto_envvar_prefix":
            try:
                value: Any = clicks.interpreter(module, call.lineno).eval(keyword.value)
            except CannotEvaluate:
                continue
            if type(value) is str:
                return replace(facts, auto_envvar_prefix=value)
    return facts
