"""The read: one static read of a target, which joins the evaluator (`python/`) and the framework
readers and holds no framework's rules. It makes the read's loader (`StaticLoader`: the budget,
the modules read, what could not be followed), finds the target's module, and hands it to the
reader of its framework: `read_framework` to the Click reader's entry (`click_commands.entry`,
with Typer's reader handed in), once the module names Click or Typer; `load_static` to the
argparse reader's entry (`argparse_parsers.entry`), with the read's interpreter class, whose hooks
reach every reader. Either gives back a `StaticRead`: the parser (argparse's, or a Click
command's facts), where each argument was added, the files read or looked for and the
diagnostics, as data; what would leave part of the registry out stops the read
(`stop_if_incomplete`, `stopped_for_missing`).

Nothing of the registry is imported or run: its source is interpreted within the read's budget
(steps, call depth, nesting, value sizes, processor time), and what only running it would tell is
kept as source text or said as a diagnostic, never invented.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE, SourceReader
from argmatrix.loaders.sections import CallSite, remember_tree
from argmatrix.loaders.static.argparse_parsers.entry import build_parser
from argmatrix.loaders.static.interpreter import Interpreter
from argmatrix.loaders.static.loader import StaticLoader
from argmatrix.loaders.static.python.budget import FIX, Budget, BudgetExceeded, Limits
from argmatrix.loaders.static.python.context import ModuleContext
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.module_files import find_module_file
from argmatrix.loaders.static.python.outline import StatementOutline
from argmatrix.loaders.static.python.scripts import MAIN
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    FunctionRef,
    settle,
)
from argmatrix.loaders.static.source import SourceModule
from argmatrix.loaders.target import split_target
from argmatrix.model.registry import Diagnostic

if TYPE_CHECKING:
    from argmatrix.loaders.clicks import CommandFacts

__all__ = [
    "CannotEvaluate",
    "ClassRef",
    "FunctionRef",
    "Interpreter",
    "SourceModule",
    "StatementOutline",
    "StaticLoader",
    "StaticRead",
    "find_module_file",
    "finished_read",
    "load_static",
    "read_framework",
    "read_target",
    "settle",
    "stop_if_incomplete",
    "stopped_for_missing",
]


@dataclass(frozen=True)
class StaticRead:
    """What one static read gives back, as data: the parser it built by replaying the target's
    calls, where each argument was added (`sites`), the files it read or looked for and did not
    find (what the registry depends on: the cache's inputs), and what it could not follow.
    `source_text`: a module's text by its file, for the comment reader (`loaders.sections`)."""

    parser: Any  # the framework's: an `argparse.ArgumentParser`; Click's `CommandFacts`
    sites: dict[int, CallSite]
    files: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    source_text: SourceReader
    framework: str = ARGPARSE  # what built the parser (`FRAMEWORKS` in loaders/modes.py)

    @property
    def stops(self) -> tuple[Diagnostic, ...]:
        """The diagnostics that make the parser part of the registry (`Diagnostic.stops`)."""
        return tuple(d for d in self.diagnostics if d.stops)


def load_static(
    target: str,
    base_dir: Path | None = None,
    search_path: Sequence[str] | None = None,
    limits: Limits | None = None,
    parser_class: str | None = None,
) -> StaticRead:
    """Build the target's parser from source, in a read of its own (`read_target`).
    `parser_class` (module:Class): the project's parser class a filler is handed, read from
    source as the target is."""
    return read_target(new_loader(target, base_dir, search_path, limits), target, parser_class)


def new_loader(
    target: str,
    base_dir: Path | None,
    search_path: Sequence[str] | None,
    limits: Limits | None,
) -> StaticLoader:
    """A loader for `target`'s package, searching `base_dir` first, then `search_path`."""
    module_name, _ = split_target(target)
    path = [str(base_dir or Path.cwd()), *(search_path if search_path is not None else sys.path)]
    return StaticLoader(
        path,
        module_name.split(".", 1)[0],
        Budget(limits) if limits else None,
        prog=module_name.rsplit(".", 1)[-1],
    )


@contextlib.contextmanager
def budgeted(loader: StaticLoader, module_name: str) -> Iterator[None]:
    """The block runs within `loader`'s budget; a budget passed outside any expression (while
    reading the target's module) stops at that module, one located line."""
    try:
        with loader.budget.active():
            yield
    except BudgetExceeded as exc:
        raise ArgmatrixError.at(
            exc.message, file=_module_file(loader, module_name), line=1, fix=FIX
        ) from None
    except RecursionError:
        raise ArgmatrixError.at(
            "static reading stopped: the nesting budget exceeded (Python's own stack)",
            file=_module_file(loader, module_name),
            fix=FIX,
        ) from None


def read_target(loader: StaticLoader, target: str, parser_class: str | None = None) -> StaticRead:
    """Build the target's parser from source with `loader`, within its budget."""
    module_name, attr = split_target(target)
    with budgeted(loader, module_name):
        parser = _build(loader, target, module_name, attr, parser_class)
        loader.report_defaults()
    return finished_read(loader, parser, loader.recording.sites)


def finished_read(
    loader: StaticLoader, parser: Any, sites: dict[int, CallSite], framework: str = ARGPARSE
) -> StaticRead:
    """What `loader` read, with the parser it gives (`framework`'s) as data."""
    return StaticRead(
        parser,
        sites,
        _files_read(loader),
        loader.diagnostics(),
        _source_text(loader.modules),
        framework,
    )


def _files_read(loader: StaticLoader) -> tuple[str, ...]:
    """The source files the read looked at, and those it looked for and did not find: a file
    that appears there later may change what the read gives."""
    read = [*loader.modules.values(), *loader.stubs.values()]
    paths = dict.fromkeys(str(m.path) for m in read if m is not None)
    return (*paths, *loader.missing)


def _source_text(modules: dict[str, SourceModule | None]) -> SourceReader:
    def text_of(file: str) -> str | None:
        """The text of a module read, its syntax tree handed to the comment reader with it: a
        module read one statement at a time is never parsed whole outside the budget."""
        for module in modules.values():
            if module is not None and str(module.path) == file:
                remember_tree(module.text, module.known_tree())
                return module.text
        return None

    return text_of


def _module_file(loader: StaticLoader, name: str) -> str | None:
    module = loader.modules.get(name)
    if module is not None:
        return str(module.path)
    found = find_module_file(name, loader.search_path)  # stopped while it was being read
    return str(found) if found is not None else None


def script_module(loader: StaticLoader, module_name: str, attr: str) -> str:
    """The module `python -m module_name` runs for `module:__main__`: a package's
    `__main__.py`, else the module itself."""
    if attr != MAIN:
        return module_name
    module = loader.module(module_name)
    if module is not None and module.path.name == "__init__.py":
        main = f"{module_name}.{MAIN}"
        if loader.module(main) is not None:
            return main
    return module_name


def _build(
    loader: StaticLoader, target: str, module_name: str, attr: str, parser_class: str | None
) -> argparse.ArgumentParser:
    loader.reading_target = True  # its syntax errors are reported, as importing it would
    module_name = script_module(loader, module_name, attr)
    module = loader.module(module_name)
    loader.reading_target = False
    loader.target = module
    if module is None:
        raise ArgmatrixError.at(
            f"cannot find the source of module {module_name!r} on sys.path",
            fix="install the package (pip install --no-deps is enough) or fix the target",
        )
    return build_parser(loader, module, target, attr, parser_class, Interpreter)


def stop_if_incomplete(read: StaticRead) -> None:
    """A read that could not follow a statement adding to a parser (a call handed the parser
    that static reading does not run, an object it cannot follow, a `match`) holds part of the
    registry: stop at the first such statement, never return the part as if it were whole."""
    missed = read.stops
    if missed:
        first = missed[0]
        more = f" (and {len(missed) - 1} more)" if len(missed) > 1 else ""
        raise ArgmatrixError.at(
            f"static reading stopped: {first.message}{more}",
            file=first.file,
            line=first.line,
            fix="declare the arguments in source static reading can follow, or load the"
            " registry live (registry.mode: live)",
        )


def stopped_for_missing(error: ArgmatrixError, read: StaticRead) -> ArgmatrixError:
    """The error to give when the parser static reading built has no subcommand (or no
    argument) the configuration asks for: if the read could not follow a statement that adds
    to a parser, that statement, located, is why (never "it has no subcommands" when static
    reading only missed them); else the error as it is."""
    missed = read.stops
    if not missed:
        return error
    first = missed[0]
    return ArgmatrixError.at(
        f"static reading stopped: {error.problems[0].message}, and static reading could not"
        f" follow what may add it: {first.message}",
        file=first.file,
        line=first.line,
        fix="declare the parser in source static reading can follow, or load the registry"
        " live (registry.mode: live)",
    )


# ------------------------------------------------------------------ Click and Typer

# A module that names neither is not read a second time (the argparse reader reads it).
_MENTIONS = re.compile(r"\b(?:click|typer)\b")


_ARGPARSE_WORDS = ("ArgumentParser", "add_argument", "parse_args", "parse_known_args")


def _mentions_a_framework(text: str) -> bool:
    """Whether `text` names click or typer as a word, or names nothing of argparse (a function
    that runs a command of another module of the package: `main()` calling `cli()`). str.find
    rules most modules out: the pattern alone goes over every character of a large module (3 ms
    of sglang's)."""
    if ("click" in text or "typer" in text) and _MENTIONS.search(text) is not None:
        return True
    return not any(word in text for word in _ARGPARSE_WORDS)


def read_framework(
    target: str,
    base_dir: Path | None = None,
    search_path: Sequence[str] | None = None,
    limits: Limits | None = None,
) -> StaticRead | None:
    """The Click or Typer command `target` names, read from source (as `load_static` reads an
    argparse parser: the files read, what could not be followed); None if it names none, and
    the target is read as argparse's. The static reader of `FRAMEWORKS["click"]`
    (loaders/modes.py); the Click reader's entry says which command it is
    (`click_commands.entry`)."""
    module_name, attr = split_target(target)
    loader = new_loader(target, base_dir, search_path, limits)
    with budgeted(loader, module_name):
        module = loader.module(script_module(loader, module_name, attr))
        if module is None or module.is_stub or not _mentions_a_framework(module.text):
            return None
        loader.target = module
        loader.framework_calls = True
        command = _target_command(module, attr, target)
    if command is None:
        return None
    from argmatrix.loaders.clicks import CLICK  # imported once a module names Click or Typer

    return finished_read(loader, command, {}, CLICK)


def _target_command(module: SourceModule, attr: str, target: str) -> CommandFacts | None:
    # The readers of Click and Typer, imported once a module names either: an argparse target
    # (most of them) never loads them.
    from argmatrix.loaders.static.click_commands.click_params import installed_rules
    from argmatrix.loaders.static.click_commands.clicks import ClickReader
    from argmatrix.loaders.static.click_commands.entry import target_command
    from argmatrix.loaders.static.typer_apps.typers import TyperReader

    module.parse()  # the target's module: its syntax errors are said, as importing it would
    clicks = ClickReader(module.loader, _top_level, installed_rules(module.loader))
    return target_command(module, attr, target, clicks, TyperReader(module.loader, clicks))


def _top_level(module: ModuleContext, line: int) -> Evaluator:
    """An interpreter of `module`'s top level as of `line` (what a decorator's arguments see)."""
    return Interpreter(module, {}, as_of=line)
