"""The loader of one static read (`StaticLoader`): everything one read keeps, and what its parts
ask of it as a `ReadContext` (`context.py`): the budget, the modules of the registry's package
found on the search path and read from source (each once, counted in steps), the names a module
binds (a stub's too), the files read or looked for, the diagnostics said (at most
`MAX_DIAGNOSTICS`, one line each), the call sites of the arguments added, and which names of a
module another module assigns at its top level (`AttributeWrites`)."""

from __future__ import annotations

import ast
import importlib.machinery
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import read_regular_file
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.argparse_parsers.argparse_names import ArgparseRef, argparse_attribute
from argmatrix.loaders.static.argparse_parsers.recording import Recording
from argmatrix.loaders.static.declared_fields.declared import external
from argmatrix.loaders.static.interpreter import Interpreter
from argmatrix.loaders.static.python.budget import Budget
from argmatrix.loaders.static.python.classes import runs_body
from argmatrix.loaders.static.python.context import ModuleContext, Site
from argmatrix.loaders.static.python.module_files import (
    Packages,
    find_module_file,
    inside_search_folder,
)
from argmatrix.loaders.static.python.syntax import class_members
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    ModuleRef,
)
from argmatrix.loaders.static.source import SourceModule
from argmatrix.model.registry import Diagnostic

MAX_DIAGNOSTICS = 200  # per read; beyond, one line says how many more there were


_MESSAGE_LENGTH = 400  # characters of one diagnostic (a reason may quote a long value)


_LOOKUP_STEPS = 50  # looking for a module's file on the search path, in steps (about its time)


_BYTES_A_STEP = 4  # 2**4 bytes of a module read count a step


# A module whose text may call a parser method (in a class body the target's import runs).
_BUILDS = re.compile(r"\.(?:add_argument|add_subparsers|add_parser|add_argument_group)\s*\(")


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
        self.framework_calls = False  # a read of a Click command or Typer app (`reader`)
        self.recording = Recording(prog=prog)
        self.nesting = 0  # expressions being evaluated, one inside the other
        self.class_values: dict[tuple[int, str], tuple[ast.ClassDef, Any]] = {}
        # Declared fields (`declared`): per class, the type value of each field with where it
        # is declared, and the field a loop is at (its arguments get its section).
        self.declarations: dict[Any, Any] = {}
        self.type_sites: dict[int, tuple[Any, Site]] = {}
        self.declaring: Site | None = None
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


class AttributeWrites:
    """`alias.NAME = v` at the top level of the modules a read loaded, by NAME (see
    `SourceModule.attribute_assignments`), indexed as modules are loaded: a name read is
    looked up once, not against every module."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[tuple[SourceModule, str, int]]] = {}
        self.indexed: set[str] = set()

    def add(self, modules: list[SourceModule]) -> None:
        for other in modules:
            if other.name in self.indexed or other.is_stub:
                continue
            self.indexed.add(other.name)
            for path, attr, line in other.attribute_assignments():
                self.by_name.setdefault(attr, []).append((other, path, line))

    def why(self, module: str, name: str) -> str | None:
        """Why `module.name` may hold another value than its module gives it: a module the
        read has loaded assigns it at its top level (`consts.PORT = 9000`, in the target's
        module or one it imports), which Python runs when that module is imported. Modules
        the read never loaded are not looked at."""
        for other, path, line in self.by_name.get(name, ()):
            if other.name != module and other.imported_module(path) == module:
                return (
                    f"`{module}.{name}` is assigned again in {other.path.name} at line {line},"
                    " when that module is imported; static reading does not follow that"
                )
        return None
