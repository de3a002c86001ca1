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
import importlib.machinery
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import read_regular_file
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE, SourceReader
from argmatrix.loaders.sections import CallSite, remember_tree
from argmatrix.loaders.static.argparse_names import argparse_attribute
from argmatrix.loaders.static.budget import FIX, Budget, BudgetExceeded, Limits
from argmatrix.loaders.static.classes import is_parser_class, runs_body
from argmatrix.loaders.static.context import ModuleContext, Site, WrapperCall
from argmatrix.loaders.static.declared import external
from argmatrix.loaders.static.interpreter import Interpreter, run_function
from argmatrix.loaders.static.objects import Captured, new_object, writes_methods
from argmatrix.loaders.static.outline import StatementOutline
from argmatrix.loaders.static.recording import Recording
from argmatrix.loaders.static.replay import new_parser
from argmatrix.loaders.static.scripts import MAIN, main_function
from argmatrix.loaders.static.source import (
    AttributeWrites,
    Packages,
    SourceModule,
    find_module_file,
    inside_search_folder,
)
from argmatrix.loaders.static.syntax import class_members, parameters, skips_first
from argmatrix.loaders.static.values import (
    ArgparseRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    ModuleRef,
    ParserHandle,
    SourceObject,
    settle,
    short_source,
)
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
MAX_DIAGNOSTICS = 200  # per read; beyond, one line says how many more there were
_MESSAGE_LENGTH = 400  # characters of one diagnostic (a reason may quote a long value)
_LOOKUP_STEPS = 50  # looking for a module's file on the search path, in steps (about its time)
_BYTES_A_STEP = 4  # 2**4 bytes of a module read count a step
# Words of a module that uses argparse, and of one that uses Click or Typer.
ARGPARSE_WORDS = ("ArgumentParser", "add_argument", "parse_args", "parse_known_args")
_FRAMEWORK_NAMES = re.compile(r"\b(?:click|typer)\b")


def names_click_or_typer(text: str) -> bool:
    """Whether `text` names click or typer as a word. str.find rules most modules out: the
    pattern alone goes over every character of a large module (3 ms of sglang's)."""
    return ("click" in text or "typer" in text) and _FRAMEWORK_NAMES.search(text) is not None


# A module whose text may call a parser method (in a class body the target's import runs).
_BUILDS = re.compile(r"\.(?:add_argument|add_subparsers|add_parser|add_argument_group)\s*\(")


# ------------------------------------------------------------------ the loader of one read


class StaticLoader:
    """One read: the modules read on demand from the search path (the target's package is read,
    never run), the budget, the calls replayed, what the read could not follow, and what it
    learnt about classes (per read, so a long-lived process does not keep it)."""

    def __init__(
        self,
        search_path: Sequence[str],
        package: str,
        budget: Budget | None = None,
        prog: str = "prog",
    ) -> None:
        self.search_path = list(search_path)
        self.package = package
        self.modules: dict[str, SourceModule | None] = {}
        self.missing: list[str] = []  # files looked for and not found
        self.reading_target = False  # the target's own module is parsed whole
        self.budget = budget or Budget()
        self.framework_calls = False  # a read of a Click command or Typer app (`frameworks`)
        self.recording = Recording(prog=prog)
        self.nesting = 0  # expressions being evaluated, one inside the other
        self.class_values: dict[tuple[int, str], tuple[ast.ClassDef, Any]] = {}
        # Declared fields (`declared`): per class, the type value of each field with where it
        # is declared, and the field a loop is at (its arguments get its section).
        self.declarations: dict[Any, Any] = {}
        self.type_sites: dict[int, tuple[Any, Site]] = {}
        self.declaring: Site | None = None
        # The add_argument methods of the source being followed, outermost first (`objects`).
        self.wrapper_calls: list[WrapperCall] = []
        self.stubs: dict[str, SourceModule | None] = {}
        # Where what is said about the argument being replayed is located, if not at the call
        # being replayed (the outermost call of a wrapper's add_argument).
        self.argument_site: tuple[str, int] | None = None
        self.class_members: dict[int, tuple[ast.ClassDef, dict[str, Any], dict[str, int]]] = {}
        self._diagnostics: dict[tuple[str, int | None, str], bool] = {}  # -> whether it stops
        self._dropped = 0
        self._stops_beyond = 0  # diagnostics that stop the read, kept beyond MAX_DIAGNOSTICS
        self._keywords: dict[tuple[str, str], list[Any]] = {}
        self._walked: dict[tuple[int, Callable[[Any], bool]], tuple[ast.AST, bool]] = {}
        # Class bodies that build parsers, run once per read (`class_namespace`): per class,
        # the names its body left (None while it runs). The target's module, whose imports
        # run such bodies in the order it imports them, once the first of them is read.
        self.class_bodies: dict[int, tuple[ast.ClassDef, dict[str, Any] | None]] = {}
        self.target: SourceModule | None = None
        # The target function being run, and the first statement of its own body whose value
        # static reading could not compute (line, source, reason): where a read that finds no
        # parser stops.
        self.target_function: tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None
        self.unfollowed: tuple[int, str, str] | None = None
        self._imports_run = False
        self._imports_seen = False  # the modules the target's module imports were looked for
        self._listed: dict[Path, frozenset[str]] = {}  # a package's folder: its module names
        self._packages: Packages = {}  # the packages on the search path looked for (their folder)
        self._writes = AttributeWrites()  # `alias.NAME = v` of the modules loaded, by NAME
        self._writes_seen = 0  # how many modules it has looked at
        # set_defaults(key=value kept as source text): parser, key, file, line, message; said
        # at the end of the read if the parser has an argument of that dest (`replay`).
        self.unknown_defaults: list[tuple[Any, str, str, int | None, str]] = []

    def walked(self, node: ast.AST, test: Callable[[Any], bool]) -> bool:
        """`test(node)` (a walk of the node's subtree), once per node and read: a statement that
        fails at every pass of a loop is not walked again at every pass."""
        key = (id(node), test)
        found = self._walked.get(key)
        if found is None or found[0] is not node:
            found = (node, test(node))
            self._walked[key] = found
        return found[1]

    # -------------------------------------------------------------- what could not be followed

    def report(self, file: str, line: int | None, message: str, stops: bool = False) -> None:
        """What the read could not follow, once per place and message; `stops`: it adds to a
        parser, so the read stops (`stop_if_incomplete`), whatever the message says. Beyond
        MAX_DIAGNOSTICS only the count is kept, except for as many more that stop the read
        (the read then ends in an error, and no list of warnings is shown)."""
        if len(message) > _MESSAGE_LENGTH:
            message = message[: _MESSAGE_LENGTH - 3] + "..."
        key = (file, line, message)
        if key in self._diagnostics:
            return
        if len(self._diagnostics) >= MAX_DIAGNOSTICS:
            if not stops or self._stops_beyond >= MAX_DIAGNOSTICS:
                self._dropped += 1
                return
            self._stops_beyond += 1
        self._diagnostics[key] = stops

    def report_keyword(
        self, file: str, line: int | None, label: str, keyword: str, source: str, reason: str
    ) -> None:
        """A keyword beyond argparse's kept as source text (`bind_to=` of 300 arguments, all for
        one reason): one line for all the arguments it is said of, at the first of them."""
        group = (keyword, reason)
        found = self._keywords.get(group)
        if found is not None:
            found[1] += 1
            return
        self._keywords[group] = [(file, line, label, source), 1]
        self.report(file, line, f"\0{keyword}\0{reason}")  # a place kept for the group's line

    def _keyword_line(self, key: tuple[str, int | None, str]) -> Diagnostic:
        _, keyword, reason = key[2].split("\0", 2)
        (file, line, label, source), count = self._keywords[(keyword, reason)]
        said = f"{label} and {count - 1} other arguments" if count > 1 else label
        because = f" ({reason})" if reason else ""
        message = f"{said}: {keyword} kept as source text: `{source}`{because}"
        return Diagnostic(file, line, message, attribute=keyword)

    def report_defaults(self) -> None:
        """The defaults set_defaults was given as source text that reach an argument."""
        for parser, key, file, line, message in self.unknown_defaults:
            self.budget.visit(len(parser._actions))
            if any(action.dest == key for action in parser._actions):
                self.report(file, line, message)
        self.unknown_defaults.clear()

    def diagnostics(self) -> tuple[Diagnostic, ...]:
        found = [
            self._keyword_line(key) if key[2].startswith("\0") else Diagnostic(*key, stops)
            for key, stops in self._diagnostics.items()
        ]
        if self._dropped:
            last = found[-1]
            found.append(
                Diagnostic(
                    last.file, None, f"{self._dropped} more warnings of this read are not shown"
                )
            )
        return tuple(found)

    # -------------------------------------------------------------- modules

    def module(self, name: str) -> SourceModule | None:
        if name not in self.modules:
            self.budget.steps += _LOOKUP_STEPS  # counted at the next step (the file is not known)
            self.modules[name] = self._read(name)
        return self.modules[name]

    def _read(self, name: str, path: Path | None = None) -> SourceModule | None:
        path = path or find_module_file(name, self.search_path, self.missing, self._packages)
        if path is None:
            return self.stub(name) if self.in_package(name) else None
        self.budget.check_time()
        real = inside_search_folder(path, self.search_path)
        if real is None:
            raise ArgmatrixError.at(
                f"module {name!r} is a link that leads out of the folder it was found in, or"
                " into a hidden folder; static reading does not follow it",
                file=str(path),
                fix="replace the link with the module itself, or read the registry live"
                " (registry.mode: live)",
            )
        data = read_regular_file(
            real,
            "module source",
            "point the registry at Python source",
            limit=self.budget.limits.source_bytes,
        )
        if data is None:
            return None
        # Held in memory for the whole read, decoded, scanned: sixty modules of 7 MB of comments
        # (nothing to parse) were read until the time backstop.
        self.budget.steps += len(data) >> _BYTES_A_STEP
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArgmatrixError.at(f"cannot read {path}: {exc}", file=str(path)) from None
        return SourceModule(name, path, text, self, lazy=not self.reading_target)

    def stub(self, name: str, near: Path | None = None) -> SourceModule | None:
        """The `.pyi` stub of a compiled module: a module of the package found only as a stub
        (`rtp_llm/ops/libth.pyi`), or a top-level module whose stub lies beside the module that
        imports it (a compiled module loaded from a folder added to sys.path at run time). Its
        classes and constants are read (enum members from stubgen's `# value = <...>`
        comments); its functions are never run. Other stubs (the standard library's, a
        package's outside the registry's) are not looked at."""
        key = f"{name}@{near}"
        if key in self.stubs:
            return self.stubs[key]
        if name in self.stubs:  # found already, from beside another module
            return self.stubs[name]
        parts = name.split(".")
        candidates: list[Path] = []
        if all(part.isidentifier() for part in parts):
            if near is not None and len(parts) == 1:
                candidates.append(near / f"{name}.pyi")
            if self.in_package(name) and len(parts) > 1:
                candidates += [
                    Path(entry or ".").joinpath(*parts[:-1], f"{parts[-1]}.pyi")
                    for entry in self.search_path
                ]
        found: SourceModule | None = None
        for path in candidates:
            self.budget.steps += _LOOKUP_STEPS
            if path.is_file() and inside_search_folder(path, self.search_path) is not None:
                found = self._read(name, path)
                break
        self.stubs[key] = found
        if found is not None:
            self.stubs[name] = found
        return found

    def in_package(self, name: str) -> bool:
        return name == self.package or name.startswith(self.package + ".")

    def module_missing(self, name: str) -> bool:
        top = name.partition(".")[0]
        if not top.isidentifier() or top in sys.builtin_module_names:
            return False
        self.budget.steps += _LOOKUP_STEPS
        if importlib.machinery.PathFinder.find_spec(top, self.search_path) is not None:
            return False
        suffixes = importlib.machinery.all_suffixes()
        for location in self.search_path:
            folder = location or "."
            self.missing += [f"{folder}/{top}", *(f"{folder}/{top}{s}" for s in suffixes)]
        return True

    def assigned_elsewhere(self, module: str, name: str) -> str | None:
        """Why `module.name` may be rebound by a module the read loaded, or one the target's
        module imports (run before its builder is called), see `source.assigned_elsewhere`."""
        if not self._imports_seen and self.target is not None and self.target.tree is not None:
            self._imports_seen = True
            self._load_imported_modules(self.target)
        if len(self.modules) != self._writes_seen:
            self._writes_seen = len(self.modules)
            self._writes.add([m for m in self.modules.values() if m is not None])
        return self._writes.why(module, name)

    def _load_imported_modules(self, target: SourceModule) -> None:
        """The modules of the package the target's module imports (`import pkg.patches`,
        `from pkg import patches`): a name imported from a package is read only if the
        package's folder holds a module of that name."""
        packages: dict[str, Path | None] = {}
        for base, attr in list(target.imports.values()):
            if attr is None or not self.in_package(base):
                continue
            if base not in packages:  # where it is, not read: most are modules, not packages
                self.budget.steps += _LOOKUP_STEPS
                found = find_module_file(base, self.search_path, packages=self._packages)
                packages[base] = (
                    found if found is not None and found.name == "__init__.py" else None
                )
            folder = packages[base]
            if folder is not None and attr in self._submodules(folder.parent):
                self.module(f"{base}.{attr}")

    def _submodules(self, folder: Path) -> frozenset[str]:
        """The names of the modules and packages a package's folder holds (listed once: a
        name imported from a package is looked for as a module only if it is one)."""
        names = self._listed.get(folder)
        if names is None:
            try:
                entries = [entry.name for entry in os.scandir(folder)]
            except OSError:
                entries = []
            self.budget.work(len(entries))
            names = frozenset(name.removesuffix(".py") for name in entries)
            self._listed[folder] = names
        return names

    def imported(self, module: str, attr: str | None, near: Path | None = None) -> Any:
        """What `from module import attr` (or `import module`) binds; `near`: the folder of
        the importing module, where the stub of a compiled module may lie."""
        if module == "argparse":
            return argparse_attribute(attr) if attr else ArgparseRef("")
        if not self.in_package(module):
            stub = self.stub(module, near)
            if stub is None:
                return ExternalRef(module) if attr is None else external(f"{module}.{attr}")
            if attr is None:
                return ModuleRef(module)
            return stub_value(stub, attr, f"{module}.{attr}")
        if attr is None:
            return ModuleRef(module)
        source = self.module(module)
        if source is None:
            submodule = self.module(f"{module}.{attr}")
            if submodule is not None:
                return ModuleRef(f"{module}.{attr}")
            return external(f"{module}.{attr}")
        if source.is_stub:
            return stub_value(source, attr, f"{module}.{attr}")
        try:
            return source.global_value(attr)
        except CannotEvaluate:
            if self.module(f"{module}.{attr}") is not None:
                return ModuleRef(f"{module}.{attr}")
            return ExternalRef(f"{module}.{attr}")

    # -------------------------------------------------------------- classes

    def class_namespace(self, module: ModuleContext, node: ast.ClassDef) -> dict[str, Any]:
        """The names a class body that builds a parser leaves bound, the body run once per read
        (as importing its module would run it once): `CLI.parser` is the same parser at every
        read. The bodies the target's module runs by importing its own modules are run first,
        in that order, so that subcommands added by class bodies come in the order live reading
        gives them. The body runs as a function's statements do, within the same budget; a
        parser call it cannot follow is said, a budget spent stops the read."""
        cls = ClassRef(module, node)
        found = self.class_bodies.get(id(cls.node))
        if found is None or found[0] is not cls.node:
            self._run_imports()
            found = self.class_bodies.get(id(cls.node))
        if found is None or found[0] is not cls.node:
            self._run_body(cls)
            found = self.class_bodies[id(cls.node)]
        if found[1] is None:
            raise CannotEvaluate(f"`{cls.node.name}` is read in its own class body")
        return found[1]

    def _run_body(self, cls: ClassRef) -> None:
        key = id(cls.node)
        namespace: dict[str, Any] = {}
        self.class_bodies[key] = (cls.node, None)
        line = cls.node.lineno
        try:
            Interpreter(cls.module, namespace, line, owner=cls, as_of=line).exec_block(
                cls.node.body
            )
        except BaseException:
            del self.class_bodies[key]
            raise
        self.class_bodies[key] = (cls.node, namespace)

    def _run_imports(self) -> None:
        """What importing the target's module runs of the bodies that build parsers: those of
        the package's modules it imports, then its own, in source order (one level: a module
        it imports is looked into only if its text calls a parser method)."""
        target = self.target
        if self._imports_run or target is None or target.tree is None:
            return
        self._imports_run = True
        for statement in target.tree.body:
            if isinstance(statement, ast.ClassDef):
                self._run_if_building(ClassRef(target, statement))
                continue
            if isinstance(statement, ast.ImportFrom):
                names = [target.absolute(statement.module, statement.level)]
            elif isinstance(statement, ast.Import):
                names = [alias.name for alias in statement.names]
            else:
                continue
            for name in names:
                if name == target.name or not self.in_package(name):
                    continue
                module = self.module(name)
                if module is None or module.is_stub or not _BUILDS.search(module.text):
                    continue
                self.budget.work(len(module.text))
                module.parse()
                assert module.tree is not None
                for node in module.tree.body:
                    if isinstance(node, ast.ClassDef):
                        self._run_if_building(ClassRef(module, node))

    def _run_if_building(self, cls: ClassRef) -> None:
        if runs_body(cls):
            found = self.class_bodies.get(id(cls.node))
            if found is None or found[0] is not cls.node:
                self._run_body(cls)

    def members(self, node: ast.ClassDef) -> tuple[dict[str, Any], dict[str, int]]:
        """A class body's names (see `class_members`), worked out once per read."""
        found = self.class_members.get(id(node))
        if found is None or found[0] is not node:
            members, changed = class_members(node)
            found = (node, members, changed)
            self.class_members[id(node)] = found
        return found[1], found[2]


def stub_value(stub: SourceModule, attr: str, dotted: str) -> Any:
    """A name of a stub: a class or a constant it gives a value; anything else (`X: int`,
    `X: int = ...`) is known only to the compiled module."""
    try:
        value = stub.global_value(attr)
    except CannotEvaluate:
        return ExternalRef(dotted)
    return ExternalRef(dotted) if value is Ellipsis else value


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
            given = made.parser if isinstance(made, SourceObject) else made
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
