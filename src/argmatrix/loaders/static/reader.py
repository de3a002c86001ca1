"""Static loading: build the registry's parser from its source, importing nothing of it.

The target function's body is interpreted over its AST, on a value model of its own (see
`values`): plain data, references to what the source names, and handles on the parsers it
builds. No attribute chain reaches an object of argmatrix's process, argparse included;
`str.format` and f-strings format plain data only. Every `add_argument` call is replayed on a
real `argparse.ArgumentParser` with plain data (see `replay`), so the model comes out of the
same converter as in live mode. Custom types and actions become named stand-ins; a value
that cannot be computed is kept as its source text (`Unevaluated`), never invented.

Each read has a budget (`budget`): steps, call depth, nesting, value sizes, processor time.
What the reader could not follow (an argument it could not replay, a branch it could not
decide, a value kept as source text) is collected as `Diagnostic`s, never dropped in silence;
one that stops the read says so itself (`Diagnostic.stops`). A read gives back a `StaticRead`:
the parser, the files read and the diagnostics, as data.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE, SourceReader
from argmatrix.loaders.sections import CallSite, remember_tree
from argmatrix.loaders.static.argparse_parsers.argparse_names import is_parser_class
from argmatrix.loaders.static.argparse_parsers.handles import ParserHandle, parser_of
from argmatrix.loaders.static.argparse_parsers.objects import Captured, new_object, writes_methods
from argmatrix.loaders.static.argparse_parsers.replay import new_parser
from argmatrix.loaders.static.interpreter import Interpreter, run_function
from argmatrix.loaders.static.loader import StaticLoader
from argmatrix.loaders.static.python.budget import FIX, Budget, BudgetExceeded, Limits
from argmatrix.loaders.static.python.module_files import find_module_file
from argmatrix.loaders.static.python.outline import StatementOutline
from argmatrix.loaders.static.python.scripts import MAIN, main_function
from argmatrix.loaders.static.python.syntax import parameters, skips_first
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    FunctionRef,
    SourceObject,
    settle,
    short_source,
)
from argmatrix.loaders.static.source import SourceModule
from argmatrix.loaders.target import split_target
from argmatrix.model.registry import Diagnostic

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
    "read_target",
    "settle",
    "stop_if_incomplete",
    "stopped_for_missing",
]

TARGET_FIX = (
    "name a function that returns an ArgumentParser or fills one it is given, a Click command"
    " or group, a Typer app, or module:__main__"
)
# Words of a module that uses argparse, and of one that uses Click or Typer.
ARGPARSE_WORDS = ("ArgumentParser", "add_argument", "parse_args", "parse_known_args")
_FRAMEWORK_NAMES = re.compile(r"\b(?:click|typer)\b")


def names_click_or_typer(text: str) -> bool:
    """Whether `text` names click or typer as a word. str.find rules most modules out: the
    pattern alone goes over every character of a large module (3 ms of sglang's)."""
    return ("click" in text or "typer" in text) and _FRAMEWORK_NAMES.search(text) is not None


# ------------------------------------------------------------------ entry point


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
    function = _find_function(module, attr)
    skip = skips_first(function)
    params = parameters(function.node)[1 if skip else 0 :]
    required = len(params) - len(function.node.args.defaults)
    receiver: list[Any] = [function.owner] if skip else []
    if parser_class is not None and required < 1:
        raise ArgmatrixError.at(
            f"parser_class is set, but {target} is given no parser (it takes no parameter for one)",
            file=str(module.path),
            line=function.node.lineno,
            fix="remove parser_class, or name the function that fills a parser it is given",
        )
    given: ParserHandle | None = None
    loader.target_function = (str(module.path), function.node)
    try:
        if required >= 1:
            made = _given_parser(loader, parser_class)
            given = parser_of(made) if isinstance(made, SourceObject) else made
            result = run_function(function, [*receiver, made], {})
        else:
            result = run_function(function, receiver, {})
    except Captured as captured:  # it parses its command line: that parser is the registry
        result = captured.handle
    if isinstance(result, SourceObject):  # the project's own parser class
        result = result.parser
    handle = result if isinstance(result, ParserHandle) else given
    if handle is None or not isinstance(handle.target, argparse.ArgumentParser):
        nor = (
            ", nor run a Click command or a Typer app," if names_click_or_typer(module.text) else ""
        )
        line, where = function.node.lineno, ""
        if loader.unfollowed is not None:  # the line it could not follow
            line, source, reason = loader.unfollowed
            where = (
                f": the first statement it does not follow is `{short_source(source)}` ({reason})"
            )
        raise ArgmatrixError.at(
            f"{target} does not build an argparse.ArgumentParser{nor} that static reading can"
            f" follow{where}",
            file=str(module.path),
            line=line,
            fix="name a function that returns an ArgumentParser or fills one it is given,"
            " or load the registry live",
        )
    return handle.target


def _given_parser(loader: StaticLoader, parser_class: str | None) -> ParserHandle | SourceObject:
    """What a filler is handed: argparse's parser, or the project's class made as live mode
    makes it (`Class(add_help=False)`), its methods run as written (see `objects`)."""
    if parser_class is None:
        return loader.recording.parser(add_help=False)
    module_name, name = split_target(parser_class)
    module = loader.module(module_name)
    cls: Any = None
    if module is not None:
        try:
            cls = module.global_value(name)
        except CannotEvaluate:
            cls = None
    if not isinstance(cls, ClassRef) or not is_parser_class(cls):
        raise ArgmatrixError.at(
            f"parser_class {parser_class!r} is not a subclass of argparse.ArgumentParser"
            " in the source static reading finds",
            file=str(module.path) if module is not None else None,
            line=cls.node.lineno if isinstance(cls, (ClassRef, FunctionRef)) else None,
            fix="name the class the project's own command line builds its parser with",
        )
    call = ast.Call(ast.Name(name, ast.Load()), [], [ast.keyword("add_help", ast.Constant(False))])
    ast.copy_location(call, cls.node)
    ast.fix_missing_locations(call)
    it = Interpreter(module, {}, cls.node.lineno)  # type: ignore[arg-type]
    if writes_methods(cls):
        return new_object(it, cls, call, [], {"add_help": False})
    return new_parser(it, call, cls)


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


def _find_function(module: SourceModule, attr: str) -> FunctionRef:
    if attr == MAIN:  # the module run as a script (issue 22)
        return _main_function(module)
    if attr in module.assignments and attr not in module.definitions:  # a value (issue 22)
        raise ArgmatrixError.at(
            f"{module.name}:{attr} is a value assigned at line"
            f" {module.assignments[attr].lineno}, not a function static reading can run",
            file=str(module.path),
            line=module.assignments[attr].lineno,
            fix=TARGET_FIX,
        )
    parts = attr.split(".")
    owner: ClassRef | None = None
    definitions = module.definitions
    node: Any = None
    for index, part in enumerate(parts):
        node = definitions.get(part) if index == 0 else _member(node, part)
        if node is None:
            raise ArgmatrixError.at(
                f"module {module.name!r} has no function {attr!r}",
                file=str(module.path),
                fix=TARGET_FIX,
            )
        if isinstance(node, ast.ClassDef) and index < len(parts) - 1:
            owner = ClassRef(module, node)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ArgmatrixError.at(
            f"{module.name}:{attr} is not a function (it is a class)",
            file=str(module.path),
            line=getattr(node, "lineno", None),
            fix=TARGET_FIX,
        )
    return FunctionRef(module, node, owner)


def _main_function(module: SourceModule) -> FunctionRef:
    module.parse()
    assert module.tree is not None
    function = main_function(module.tree)
    if function is None:
        raise ArgmatrixError.at(
            f'module {module.name!r} has no `if __name__ == "__main__":` block to read',
            file=str(module.path),
            fix="name the function that builds the parser (module:function), or the Click"
            " command or Typer app (module:name)",
        )
    return FunctionRef(module, function)


def _member(node: Any, name: str) -> Any:
    if not isinstance(node, ast.ClassDef):
        return None
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            child.name == name
        ):
            return child
    return None
