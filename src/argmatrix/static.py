"""Static loading: build the registry's parser from its source, importing nothing of it.

The target function's body is interpreted over its AST. Every `add_argument` call is evaluated
(literals, constants of this and sibling modules, dataclass field defaults, f-strings, a few pure
builtins) and replayed against a real `argparse.ArgumentParser`, so the model comes out of the same
converter as in live mode. Custom types and actions become named placeholders; a value that cannot
be computed is kept as its source text (`Unevaluated`), never invented.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import builtins
import importlib.machinery
import operator
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .comments import CallSite, remember_tree
from .errors import ArgmatrixError, split_target
from .introspect import ARGPARSE_KEYWORDS
from .model import Opaque, Unevaluated

MAX_CALL_DEPTH = 20
MAX_LOOP_ITEMS = 10_000


class CannotEvaluate(Exception):
    """The expression depends on something only running the code would tell."""


# ------------------------------------------------------------------ values the interpreter knows


@dataclass(frozen=True)
class ModuleRef:
    name: str


@dataclass(frozen=True)
class ExternalRef:
    """A name from a module whose source is not read (outside the package, or not found)."""

    dotted: str

    @property
    def short(self) -> str:
        return self.dotted.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class ClassRef:
    module: SourceModule
    node: ast.ClassDef


@dataclass(frozen=True)
class FunctionRef:
    module: SourceModule
    node: ast.FunctionDef | ast.AsyncFunctionDef
    owner: ClassRef | None = None


@dataclass(frozen=True)
class SuperRef:
    """`super()` inside a method of `owner`: attribute lookups start at its bases."""

    owner: ClassRef


@dataclass(frozen=True)
class EnumMember:
    """`Level.LOW` of an Enum class read from source: its name and its value."""

    owner: str
    name: str
    value: Any

    def __str__(self) -> str:
        return f"{self.owner}.{self.name}"

    __format__ = None  # type: ignore[assignment]  # formatting needs the real class


_SAFE_BUILTINS: dict[str, Callable[..., Any]] = {
    name: getattr(builtins, name)
    for name in ("list", "tuple", "set", "frozenset", "sorted", "dict", "str", "int", "float",
                 "bool", "len", "min", "max", "range", "repr", "abs", "round", "reversed",
                 "enumerate", "zip", "any", "all", "sum")
}
_BUILTIN_VALUES = {"None": None, "True": True, "False": False, **_SAFE_BUILTINS}
_BUILTIN_TYPES = {name: getattr(builtins, name) for name in ("bytes", "complex", "object", "type")}

# Methods of plain values that compute without side effects.
_PURE_METHODS = frozenset(
    {"keys", "values", "items", "get", "join", "format", "upper", "lower", "strip", "lstrip",
     "rstrip", "replace", "split", "rsplit", "startswith", "endswith", "title", "capitalize",
     "copy", "index", "count", "casefold", "removeprefix", "removesuffix", "splitlines",
     "union", "intersection", "difference"}
)
# Methods that change a list or dict the builder made itself (`names.append("--x")`).
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop",
                               "remove"})
_MATERIALISE = (type({}.keys()), type({}.values()), type({}.items()), map, filter, zip,
                enumerate, reversed)

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


# ------------------------------------------------------------------ locating and reading modules


def find_module_file(
    name: str, search_path: Sequence[str], missing: list[str] | None = None
) -> Path | None:
    """The source file of a dotted module, found on the path without importing any package.

    Where it is not found, the files that would have been it are added to `missing`.
    """
    locations: list[str] | None = list(search_path)
    parts = name.split(".")
    for index, part in enumerate(parts):
        spec = importlib.machinery.PathFinder.find_spec(part, locations)
        if spec is None:
            if missing is not None and index > 0:  # inside a package: where it would appear
                for location in locations or ():
                    missing += [f"{location}/{part}.py", f"{location}/{part}/__init__.py"]
            return None
        if index == len(parts) - 1:
            if spec.origin and spec.origin.endswith(".py"):
                return Path(spec.origin)
            return None
        locations = list(spec.submodule_search_locations or [])
        if not locations:
            return None
    return None


class SourceModule:
    """One parsed module: its top-level names, read lazily and never executed.

    A module other than the target's is parsed only as far as it is used: a name bound once,
    at the top level, by `def`, `class` or an assignment is read by parsing that statement alone
    (sglang's registry needs 4 names of a 120 KB utility module). Any other case parses the whole
    module, and the answer is the same either way, with one exception: a syntax error elsewhere
    in such a module goes unnoticed (the target's own module is always parsed whole).
    """

    def __init__(self, name: str, path: Path, text: str, loader: StaticLoader,
                 lazy: bool = False) -> None:
        self.name = name
        self.path = path
        self.text = text
        self.loader = loader
        self.tree: ast.Module | None = None
        self.assignments: dict[str, ast.expr] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}
        self.definitions: dict[str, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._values: dict[str, Any] = {}
        self._evaluating: set[str] = set()
        self._outline: StatementOutline | None = None
        if not lazy:
            self.parse()

    def parse(self) -> None:
        """Parse and index the whole module (once)."""
        if self.tree is not None:
            return
        self.tree = self._parse(self.text, 1)
        remember_tree(self.text, self.tree)
        self.assignments.clear()
        self.imports.clear()
        self.definitions.clear()
        self._index(self.tree.body)

    def _parse(self, text: str, first_line: int) -> ast.Module:
        try:
            tree = ast.parse(text, filename=str(self.path))
        except SyntaxError as exc:
            raise ArgmatrixError.at(
                f"cannot read the registry statically: syntax error: {exc.msg}",
                file=str(self.path),
                line=(exc.lineno or 1) + first_line - 1,
                fix="fix the syntax error, or point the target at a module that parses",
            ) from None
        if first_line > 1:
            ast.increment_lineno(tree, first_line - 1)
        return tree

    def _read_alone(self, name: str) -> bool:
        """Index `name` from its one binding statement, parsed alone; False: parse it all."""
        if self._outline is None:
            self._outline = StatementOutline(self.text)
        span = self._outline.lone_binding(name)
        if span is None:
            return False
        start, end = span
        first_line = self.text.count("\n", 0, start) + 1
        try:
            tree = self._parse(self.text[start:end], first_line)
        except ArgmatrixError:
            return False  # the cut was wrong (or the module is broken): let the full parse tell
        if not tree.body:
            return False
        first, rest = tree.body[0], tree.body[1:]
        if any(not isinstance(node, ast.Expr) for node in rest):
            return False  # more than the one statement: a cut through something bigger
        value = _assigned_value(first, name)
        if isinstance(first, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and (
            first.name == name
        ):
            self.definitions[name] = first
        elif value is not None:
            self.assignments[name] = value
        else:
            return False
        return True

    def __hash__(self) -> int:
        return hash(self.name)

    def _index(self, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self.definitions[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assignments[target.id] = node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                if isinstance(node.target, ast.Name):
                    self.assignments[node.target.id] = node.value
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = (alias.name, None)
                    else:
                        top = alias.name.split(".", 1)[0]
                        self.imports[top] = (top, None)
            elif isinstance(node, ast.ImportFrom):
                base = self.absolute(node.module, node.level)
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = (base, alias.name)
            elif isinstance(node, ast.If):
                # `if TYPE_CHECKING:` / try-imports: index both branches, first binding wins.
                self._index(node.body)
                self._index(node.orelse)
            elif isinstance(node, ast.Try):
                self._index(node.body)

    def absolute(self, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        package = self.name.split(".")
        if self.path.name != "__init__.py":
            package = package[:-1]
        base = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*base, module] if module else base)

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ast.unparse(node)

    def global_value(self, name: str) -> Any:
        """The value of a module-level name, evaluated once."""
        if name in self._values:
            return self._values[name]
        if name in self._evaluating:
            raise CannotEvaluate(name)
        self._evaluating.add(name)
        try:
            value = self._global_value(name)
        finally:
            self._evaluating.discard(name)
        self._values[name] = value
        return value

    def _global_value(self, name: str) -> Any:
        known = name in self.definitions or name in self.assignments
        if self.tree is None and not known and not self._read_alone(name):
            self.parse()
        if name in self.definitions:
            node = self.definitions[name]
            if isinstance(node, ast.ClassDef):
                return ClassRef(self, node)
            return FunctionRef(self, node)
        if name in self.assignments:
            return Interpreter(self, {}).eval(self.assignments[name])
        if name in self.imports:
            module, attr = self.imports[name]
            return self.loader.imported(module, attr)
        if name in _BUILTIN_VALUES:
            return _BUILTIN_VALUES[name]
        if name in _BUILTIN_TYPES:
            return ExternalRef(name)
        raise CannotEvaluate(name)


# A string or a comment, so a line start or a name inside one is not taken for code.
_STRING_OR_COMMENT = re.compile(
    r"#[^\n]*"
    r"|(?P<prefix>[rRbBuUfF]{0,2})(?:"
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*')",
    re.S,
)
# In code: brackets, line ends, and a backslash that continues the line.
_LAYOUT = re.compile(r"[()\[\]{}\n]|\\\n")
_STATEMENT_CHAR = re.compile(r"[A-Za-z_@]")
_DEFINES = re.compile(r"(?:async[ \t]+)?def[ \t]+|class[ \t]+")
# After a name: `= v`, `: T = v`, also `(X) = v` and a backslash-continued `X \<newline>= v`.
_ASSIGNS = re.compile(r"(?:[ \t)\]]|\\\n)*(?::[^=\n]*)?=(?!=)")
_BINDS_BEFORE = re.compile(r"\b(?:import|as|def|class|global|nonlocal|for)[ \t]+$")


class StatementOutline:
    """Where a module's top-level statements start, found without parsing it: lines outside
    strings and brackets, not continuing the line before, that begin at column 0 with a name or
    a decorator.

    Where that reading could be fooled it gives up (`reliable` is False) and the caller parses
    the whole module: code (not strings or comments) that is not ASCII, since Python folds
    look-alike letters of identifiers together; a quote left outside any string, or an f-string
    whose braces do not pair, both signs of a string this outline does not understand (such as
    Python 3.12's quotes nested in f-strings). A statement cut out that fails to parse, or
    parses into more than one binding, also sends the caller to the whole module.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.reliable = True
        matches = list(_STRING_OR_COMMENT.finditer(text))
        self.masked = [m.span() for m in matches]
        self._mask_starts = [start for start, _ in self.masked]
        if any("f" in (m.group("prefix") or "").lower() and not _braces_pair(m.group())
               for m in matches):
            self.reliable = False
        self.starts = self._statement_starts()
        self._start_set = set(self.starts)

    def _statement_starts(self) -> list[int]:
        text = self.text
        starts = [0] if _STATEMENT_CHAR.match(text) and not self._masked(0) else []
        depth = 0
        position = 0
        for mask_start, mask_end in [*self.masked, (len(text), len(text))]:
            code = text[position:mask_start]
            if not code.isascii() or '"' in code or "'" in code:
                self.reliable = False
            for mark in _LAYOUT.finditer(text, position, mask_start):
                char = mark.group()
                if char in "([{":
                    depth += 1
                elif char in ")]}":
                    depth = max(0, depth - 1)
                elif char == "\n" and depth == 0 and _STATEMENT_CHAR.match(text, mark.end()):
                    starts.append(mark.end())
            position = mask_end
        return [start for start in starts if not self._masked(start)]

    def _masked(self, position: int) -> bool:
        index = bisect.bisect_right(self._mask_starts, position) - 1
        return index >= 0 and self.masked[index][0] <= position < self.masked[index][1]

    def lone_binding(self, name: str) -> tuple[int, int] | None:
        """The span of the one top-level statement binding `name`, if exactly one does and no
        other place could (an indented binding, an import, a keyword argument...)."""
        if not self.reliable:
            return None
        text = self.text
        found: list[int] = []
        for position in _occurrences(text, name):
            if self._masked(position):
                continue
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", position)
            line_end = len(text) if line_end < 0 else line_end
            before = text[line_start:position]
            assigned = _ASSIGNS.match(text, position + len(name)) is not None
            if line_start in self._start_set and (
                (before == "" and assigned) or _DEFINES.fullmatch(before)
            ):
                found.append(line_start)
            elif (assigned or not before.strip() or _BINDS_BEFORE.search(before)
                  or "import" in text[line_start:line_end]):
                return None  # might bind it somewhere else: parse it all
        if len(found) != 1:
            return None
        index = self.starts.index(found[0])
        first = index
        while first > 0 and text.startswith("@", self.starts[first - 1]):
            first -= 1  # the decorators belong to the definition
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(text)
        return self.starts[first], end


def _braces_pair(literal: str) -> bool:
    """Whether an f-string's replacement fields open and close in pairs: `{{` and `}}` outside
    a field are literal braces, inside one (a nested format spec) they open and close."""
    if "{" not in literal and "}" not in literal:
        return True
    depth = 0
    index = 0
    while index < len(literal):
        char = literal[index]
        if char in "{}" and depth == 0 and literal.startswith(char * 2, index):
            index += 2  # an escaped brace
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return False
            depth -= 1
        index += 1
    return depth == 0


def _assigned_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value a statement assigns to `name`, if it is an assignment to it."""
    if isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == name for target in statement.targets
    ):
        return statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and (
        statement.target.id == name
    ):
        return statement.value
    return None


def _occurrences(text: str, name: str) -> Iterator[int]:
    """Where `name` appears as a whole name, not an attribute (`x.name`): str.find, being far
    faster than a regular expression with look-behind on a large module."""
    position = text.find(name)
    while position >= 0:
        before = text[position - 1] if position else " "
        after_index = position + len(name)
        after = text[after_index] if after_index < len(text) else " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            yield position
        position = text.find(name, position + 1)


class StaticLoader:
    """Reads modules on demand from the search path: the target's package is read, never run."""

    def __init__(self, search_path: Sequence[str], package: str) -> None:
        self.search_path = list(search_path)
        self.package = package
        self.modules: dict[str, SourceModule | None] = {}
        self.missing: list[str] = []  # files looked for and not found
        self.reading_target = False  # the target's own module is parsed whole

    def module(self, name: str) -> SourceModule | None:
        if name not in self.modules:
            self.modules[name] = self._read(name)
        return self.modules[name]

    def _read(self, name: str) -> SourceModule | None:
        path = find_module_file(name, self.search_path, self.missing)
        if path is None:
            return None
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ArgmatrixError.at(f"cannot read {path}: {exc}", file=str(path)) from None
        return SourceModule(name, path, text, self, lazy=not self.reading_target)

    def in_package(self, name: str) -> bool:
        return name == self.package or name.startswith(self.package + ".")

    def imported(self, module: str, attr: str | None) -> Any:
        if module == "argparse":
            return getattr(argparse, attr) if attr else argparse
        if attr is None:
            return ModuleRef(module) if self.in_package(module) else ExternalRef(module)
        if not self.in_package(module):
            return ExternalRef(f"{module}.{attr}")
        source = self.module(module)
        if source is None:
            submodule = self.module(f"{module}.{attr}")
            if submodule is not None:
                return ModuleRef(f"{module}.{attr}")
            return ExternalRef(f"{module}.{attr}")
        try:
            return source.global_value(attr)
        except CannotEvaluate:
            if self.module(f"{module}.{attr}") is not None:
                return ModuleRef(f"{module}.{attr}")
            return ExternalRef(f"{module}.{attr}")

    def module_attribute(self, ref: ModuleRef, attr: str) -> Any:
        return self.imported(ref.name, attr)


# ------------------------------------------------------------------ placeholders for argparse


def quick_parser(recording: Recording, **kwargs: Any) -> argparse.ArgumentParser:
    """A parser for replaying calls. argparse makes a help formatter (and asks for the
    terminal size) on every add_argument to check metavars; one formatter serves them all."""
    kwargs.setdefault("prog", recording.prog)
    parser = argparse.ArgumentParser(**kwargs)
    formatter = parser._get_formatter()
    parser._get_formatter = lambda: formatter  # type: ignore[method-assign]
    recording.keep.append(parser)
    return parser


def named_callable(name: str) -> Callable[[Any], Any]:
    """A stand-in for a custom `type=` callable: argparse only needs something callable."""

    def convert(value: Any) -> Any:
        return value

    convert.__name__ = convert.__qualname__ = name
    return convert


_placeholder_actions: dict[tuple[str, type], type] = {}


def placeholder_action(name: str, base: type = argparse.Action) -> type:
    key = (name, base)
    if key not in _placeholder_actions:
        _placeholder_actions[key] = type(name, (base,), {})
    return _placeholder_actions[key]


# ------------------------------------------------------------------ the interpreter


@dataclass
class Recording:
    sites: dict[int, CallSite] = field(default_factory=dict)
    keep: list[Any] = field(default_factory=list)
    prog: str = "prog"  # what a parser made without `prog` is called (as in live loading)


_PARSER_METHODS = frozenset(
    {"add_argument", "add_argument_group", "add_mutually_exclusive_group", "add_subparsers",
     "add_parser", "set_defaults"}
)
_ARGPARSE_CONTAINERS = (argparse._ActionsContainer, argparse._SubParsersAction)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter:
    """Evaluates expressions and runs a builder function's statements over its AST."""

    def __init__(
        self,
        module: SourceModule,
        scope: dict[str, Any],
        recording: Recording | None = None,
        function_start: int = 0,
        depth: int = 0,
        owner: ClassRef | None = None,
    ) -> None:
        self.module = module
        self.scope = scope
        self.recording = recording or Recording()
        self.function_start = function_start
        self.depth = depth
        self.owner = owner
        self.alternatives = 0  # inside the second branch of an `if` static reading cannot decide

    # -------------------------------------------------------------- statements

    def run(self, body: list[ast.stmt]) -> Any:
        try:
            self.exec_block(body)
        except _Return as result:
            return result.value
        return None

    def exec_block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.exec(statement)

    def exec(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Expr):
            self.try_eval(node.value)
        elif isinstance(node, ast.Assign):
            value = self.try_eval(node.value)
            for target in node.targets:
                self.bind(target, value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            if isinstance(node, ast.AugAssign):
                value = self.try_eval(ast.BinOp(node.target, node.op, node.value))
            else:
                value = self.try_eval(node.value)
            self.bind(node.target, value)
        elif isinstance(node, ast.Return):
            raise _Return(self.try_eval(node.value) if node.value else None)
        elif isinstance(node, ast.If):
            self.exec_if(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.exec_for(node)
        elif isinstance(node, ast.While):
            self.exec_while(node)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self.exec_block(node.body)
        elif isinstance(node, ast.Try):
            self.exec_block(node.body)
            self.exec_block(node.orelse)
            self.exec_block(node.finalbody)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.scope[node.name] = FunctionRef(self.module, node, self.owner)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.exec_import(node)
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue

    def exec_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """An import inside the builder binds names as a module-level one would."""
        loader = self.module.loader
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name if alias.asname else alias.name.split(".", 1)[0]
                self.scope[alias.asname or top] = loader.imported(top, None)
            return
        base = self.module.absolute(node.module, node.level)
        for alias in node.names:
            if alias.name != "*":
                self.scope[alias.asname or alias.name] = loader.imported(base, alias.name)

    def exec_if(self, node: ast.If) -> None:
        try:
            test = self.known(node.test)
        except CannotEvaluate:
            # Unknown condition: both branches may add arguments; read both, in source order.
            # Where both add the same flag (a platform-dependent default), the first one stands.
            self.exec_block(node.body)
            self.alternatives += 1
            try:
                self.exec_block(node.orelse)
            finally:
                self.alternatives -= 1
            return
        self.exec_block(node.body if test else node.orelse)

    def exec_for(self, node: ast.For | ast.AsyncFor) -> None:
        try:
            items = list(settle(self.eval(node.iter)))[:MAX_LOOP_ITEMS]
        except (CannotEvaluate, TypeError):
            self.bind(node.target, Unevaluated(self.module.segment(node.target)))
            self.loop_body(node.body)
            return
        for item in items:
            self.bind(node.target, item)
            if not self.loop_body(node.body):
                break
        else:
            self.exec_block(node.orelse)

    def exec_while(self, node: ast.While) -> None:
        for _ in range(MAX_LOOP_ITEMS):
            try:
                if not self.known(node.test):
                    self.exec_block(node.orelse)
                    return
            except CannotEvaluate:
                self.loop_body(node.body)  # unknown condition: read the body once
                return
            if not self.loop_body(node.body):
                return

    def loop_body(self, body: list[ast.stmt]) -> bool:
        """Run one pass of a loop body; False when it breaks out of the loop."""
        try:
            self.exec_block(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, ast.Subscript):  # kw["default"] = 5
            try:
                container, key = self.eval(target.value), self.eval(target.slice)
            except CannotEvaluate:
                return
            if isinstance(container, (dict, list)):
                container[key] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value) if isinstance(value, (list, tuple)) else None
            for index, element in enumerate(target.elts):
                if values is not None and index < len(values):
                    self.bind(element, values[index])
                else:
                    self.bind(element, Unevaluated(self.module.segment(element)))

    # -------------------------------------------------------------- expressions

    def try_eval(self, node: ast.expr) -> Any:
        try:
            return self.eval(node)
        except CannotEvaluate:
            return Unevaluated(self.module.segment(node))

    def eval(self, node: ast.expr) -> Any:
        method = getattr(self, f"eval_{type(node).__name__}", None)
        if method is None:
            raise CannotEvaluate(type(node).__name__)
        try:
            return method(node)
        except CannotEvaluate:
            raise
        except ArgmatrixError:
            raise
        except Exception as exc:  # an operation on values failed: only running would tell
            raise CannotEvaluate(str(exc)) from None

    def eval_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name) -> Any:
        if node.id in self.scope:
            value = self.scope[node.id]
            if isinstance(value, Unevaluated):
                raise CannotEvaluate(node.id)
            return value
        return self.module.global_value(node.id)

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        return self.attribute(base, node.attr)

    def attribute(self, base: Any, attr: str) -> Any:
        if isinstance(base, ModuleRef):
            return self.module.loader.module_attribute(base, attr)
        if isinstance(base, ExternalRef):
            return ExternalRef(f"{base.dotted}.{attr}")
        if isinstance(base, ClassRef):
            return class_attribute(base, attr)
        if isinstance(base, SuperRef):
            for ancestor in ancestors(base.owner):
                if isinstance(ancestor, ClassRef):
                    try:
                        return class_attribute(ancestor, attr)
                    except CannotEvaluate:
                        continue
            raise CannotEvaluate(attr)
        if isinstance(base, EnumMember) and attr in ("name", "value"):
            return getattr(base, attr)
        if base is argparse or isinstance(base, _ARGPARSE_CONTAINERS):
            if isinstance(base, _ARGPARSE_CONTAINERS) and attr not in _PARSER_METHODS:
                raise CannotEvaluate(attr)
            return getattr(base, attr)
        if attr in _PURE_METHODS and hasattr(base, attr):
            if attr != "keys":
                base = settle(base)
            return getattr(base, attr)
        if attr in _MUTATING_METHODS and isinstance(base, (list, dict)):
            return getattr(settle(base), attr)
        raise CannotEvaluate(attr)

    def eval_List(self, node: ast.List) -> list[Any]:
        return self.elements(node.elts)

    def eval_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.elements(node.elts))

    def eval_Set(self, node: ast.Set) -> set[Any]:
        return set(self.elements(node.elts))

    def elements(self, nodes: list[ast.expr]) -> list[Any]:
        result: list[Any] = []
        for element in nodes:
            if isinstance(element, ast.Starred):
                result.extend(self.eval(element.value))
            else:
                result.append(self.eval(element))
        return result

    def eval_Dict(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                result.update(self.eval(value))
            elif isinstance(value, ast.Constant):
                result[self.eval(key)] = value.value
            else:
                # Values may be classes from other modules (a registry of detectors) when only
                # the keys are wanted: read them only if something asks for a value.
                result[self.eval(key)] = Deferred(self, value)
        return result

    def eval_BinOp(self, node: ast.BinOp) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise CannotEvaluate("operator")
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(left, _REFS) or isinstance(right, _REFS):
            raise CannotEvaluate("operation on a value only running would tell")
        return op(left, right)

    def known(self, node: ast.expr) -> Any:
        """A value whose truth or comparison static reading may decide: not a reference to
        something outside the code read (`sys.platform`, an imported class)."""
        value = self.eval(node)
        if isinstance(value, _REFS):
            raise CannotEvaluate("depends on the running program")
        return value

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return _UNARY[type(node.op)](self.known(node.operand))

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.known(operand)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def eval_Lambda(self, node: ast.Lambda) -> Callable[[Any], Any]:
        return named_callable("<lambda>")  # the name Python gives it, as live loading sees

    def eval_Compare(self, node: ast.Compare) -> bool:
        left = self.known(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.known(comparator)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def eval_IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if self.known(node.test) else self.eval(node.orelse)

    def eval_Subscript(self, node: ast.Subscript) -> Any:
        return settle(self.eval(node.value)[self.eval(node.slice)])

    def eval_Slice(self, node: ast.Slice) -> slice:
        part = [self.eval(n) if n is not None else None for n in (node.lower, node.upper, node.step)]
        return slice(*part)

    def eval_JoinedStr(self, node: ast.JoinedStr) -> str:
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            assert isinstance(value, ast.FormattedValue)
            item = settle(self.eval(value.value))
            if contains_unevaluated(item) or isinstance(item, (ClassRef, FunctionRef, ExternalRef)):
                raise CannotEvaluate("f-string part")
            if value.conversion == ord("r"):
                item = repr(item)
            elif value.conversion == ord("a"):
                item = ascii(item)
            elif value.conversion == ord("s"):
                item = str(item)
            spec = self.eval(value.format_spec) if value.format_spec else ""
            parts.append(format(item, spec))
        return "".join(parts)

    def eval_ListComp(self, node: ast.ListComp) -> list[Any]:
        return list(self.comprehension(node.elt, node.generators))

    def eval_SetComp(self, node: ast.SetComp) -> set[Any]:
        return set(self.comprehension(node.elt, node.generators))

    def eval_GeneratorExp(self, node: ast.GeneratorExp) -> list[Any]:
        return list(self.comprehension(node.elt, node.generators))

    def comprehension(self, element: ast.expr, generators: list[ast.comprehension]) -> Iterator[Any]:
        inner = Interpreter(self.module, dict(self.scope), self.recording, self.function_start,
                            self.depth, self.owner)

        def walk(index: int) -> Iterator[Any]:
            if index == len(generators):
                yield inner.eval(element)
                return
            generator = generators[index]
            for item in list(inner.eval(generator.iter))[:MAX_LOOP_ITEMS]:
                inner.bind(generator.target, item)
                if all(inner.eval(cond) for cond in generator.ifs):
                    yield from walk(index + 1)

        return walk(0)

    def eval_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            if self.owner is None:
                raise CannotEvaluate("super() outside a class")
            return SuperRef(self.owner)
        function = self.eval(node.func)
        if callable(function) and getattr(function, "__self__", None) is not None and (
            isinstance(function.__self__, _ARGPARSE_CONTAINERS)
        ):
            return self.parser_call(function, node)
        if function in (argparse.ArgumentParser,) or (
            isinstance(function, ClassRef) and is_parser_class(function)
        ):
            return self.new_parser(node)
        if isinstance(function, FunctionRef):
            return self.call_function(function, node)
        args, kwargs = self.call_arguments(node)
        name = getattr(function, "__name__", "")
        if function in _SAFE_BUILTINS.values() or name in _PURE_METHODS or (
            name in _MUTATING_METHODS and isinstance(getattr(function, "__self__", None),
                                                     (list, dict))
        ):
            result = function(*args, **kwargs)
            return list(result) if isinstance(result, _MATERIALISE) else result
        raise CannotEvaluate("call")

    def call_arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        args = self.elements(node.args)
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                kwargs.update(self.eval(keyword.value))
            else:
                kwargs[keyword.arg] = self.eval(keyword.value)
        return [settle(a) for a in args], {k: settle(v) for k, v in kwargs.items()}

    def new_parser(self, node: ast.Call) -> argparse.ArgumentParser:
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg in ("prog", "description", "epilog", "add_help", "prefix_chars",
                               "allow_abbrev", "usage", "argument_default",
                               "conflict_handler", "parents"):
                value = settle(self.try_eval(keyword.value))
                kwargs[keyword.arg] = value if not contains_unevaluated(value) else None
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if "parents" in kwargs and not all(isinstance(p, argparse.ArgumentParser)
                                           for p in kwargs["parents"]):
            raise self.unreadable(node, "parents=")
        return quick_parser(self.recording, **kwargs)

    def lenient_arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        """Positional and keyword arguments, `*xs` and `**kw` spread; what cannot be computed
        is kept as its source text."""
        args: list[Any] = []
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                spread = settle(self.try_eval(argument.value))
                if isinstance(spread, Unevaluated) or not isinstance(spread, (list, tuple)):
                    raise self.unreadable(node, f"*{self.module.segment(argument.value)}")
                args.extend(spread)
            else:
                args.append(self.try_eval(argument))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is not None:
                kwargs[keyword.arg] = self.try_eval(keyword.value)
                continue
            spread = settle(self.try_eval(keyword.value))
            if not isinstance(spread, dict):
                raise self.unreadable(node, f"**{self.module.segment(keyword.value)}")
            kwargs.update(spread)
        return [settle(a) for a in args], {k: settle(v) for k, v in kwargs.items()}

    def unreadable(self, node: ast.Call, what: str) -> ArgmatrixError:
        return ArgmatrixError.at(
            f"cannot read {what} statically", file=str(self.module.path), line=node.lineno,
            fix="spell the arguments out, or load the registry live",
        )

    def parser_call(self, method: Callable[..., Any], node: ast.Call) -> Any:
        """Replay a call on a parser, group or subparsers object against real argparse."""
        name = method.__name__
        args, kwargs = self.lenient_arguments(node)
        if name == "add_argument":
            return self.add_argument(method, node, args, kwargs)
        kwargs = {k: (None if isinstance(v, Unevaluated) else v) for k, v in kwargs.items()}
        if name == "add_subparsers":
            kwargs.pop("parser_class", None)
            kwargs.pop("action", None)
        try:
            result = method(*[None if isinstance(a, Unevaluated) else a for a in args], **kwargs)
        except (TypeError, ValueError, argparse.ArgumentError) as exc:
            raise self.argparse_error(node, exc) from None
        self.recording.keep.append(result)
        return result

    def add_argument(
        self, method: Callable[..., Any], node: ast.Call, args: list[Any], kwargs: dict[str, Any]
    ) -> argparse.Action:
        flags = [a for a in args if isinstance(a, str)]
        if len(flags) != len(args):
            raise ArgmatrixError.at(
                "cannot read an argument's name statically",
                file=str(self.module.path),
                line=node.lineno,
                fix="use literal flag strings or constants, or load the registry live",
            )
        extra = tuple((k, v) for k, v in kwargs.items() if k not in ARGPARSE_KEYWORDS)
        known = {k: v for k, v in kwargs.items() if k in ARGPARSE_KEYWORDS}
        known = self.argparse_ready(known, node)
        if sys.version_info < (3, 13):
            deprecated = known.pop("deprecated", None)
        else:
            deprecated = None
        # argparse iterates choices while checking the call; computed ones are set afterwards.
        unreadable_choices = known.pop("choices") if contains_unevaluated(
            known.get("choices")) else None
        try:
            action = method(*flags, **known)
        except argparse.ArgumentError as exc:
            if self.alternatives and "conflicting option" in str(exc):
                return None  # type: ignore[return-value]  # the other branch's one stands
            raise self.argparse_error(node, exc) from None
        except (TypeError, ValueError) as exc:
            raise self.argparse_error(node, exc) from None
        if deprecated is not None:
            action.deprecated = deprecated
        if unreadable_choices is not None:
            action.choices = unreadable_choices
        self.recording.keep.append(action)
        self.recording.sites[id(action)] = CallSite(
            str(self.module.path), node.lineno, self.function_start, extra
        )
        return action

    def argparse_ready(self, kwargs: dict[str, Any], node: ast.Call) -> dict[str, Any]:
        """Swap what static reading cannot run for stand-ins argparse accepts."""
        for key in ("default", "const", "choices"):
            if key in kwargs:
                kwargs[key] = final_value(kwargs[key])
        type_ = kwargs.get("type")
        if type_ is not None and not (callable(type_) and not isinstance(type_, _REFS)):
            kwargs["type"] = named_callable(callable_name(type_))
        action = kwargs.get("action")
        if action is not None and not isinstance(action, str) and not (
            isinstance(action, type) and issubclass(action, argparse.Action)
        ):
            kwargs["action"] = action_placeholder(action)
            if isinstance(action, ClassRef) and "nargs" not in kwargs:
                default_nargs = init_default(action, "nargs")
                if default_nargs is not None:
                    kwargs["nargs"] = default_nargs  # as the class's own __init__ would
        if isinstance(kwargs.get("nargs"), Unevaluated):
            kwargs["nargs"] = "*"
        return kwargs

    def argparse_error(self, node: ast.Call, exc: Exception) -> ArgmatrixError:
        return ArgmatrixError.at(
            f"argparse rejects this call as static reading replays it: {exc}",
            file=str(self.module.path),
            line=node.lineno,
            fix="if the registry works when imported, read it live (registry.mode: live)",
        )

    def call_function(self, function: FunctionRef, node: ast.Call) -> Any:
        """Follow a helper that adds arguments: `add_model_args(parser)`, `cls._more(parser)`."""
        if self.depth >= MAX_CALL_DEPTH:
            raise CannotEvaluate("recursion")
        receiver = [function.owner] if _skips_first(function) else []
        args, kwargs = self.lenient_arguments(node)
        involves_parser = any(isinstance(v, _ARGPARSE_CONTAINERS)
                              for v in [*args, *kwargs.values()])
        if not involves_parser and not returns_parser(function.node):
            raise CannotEvaluate("call")
        return run_function(function, [*receiver, *args], kwargs, self.recording, self.depth + 1)


_REFS = (ClassRef, FunctionRef, ExternalRef, ModuleRef, SuperRef)


class Deferred:
    """A dict value not read yet: evaluated (once) when something asks for it."""

    __slots__ = ("interpreter", "node")

    def __init__(self, interpreter: Interpreter, node: ast.expr) -> None:
        self.interpreter = interpreter
        self.node = node

    def resolve(self) -> Any:
        return self.interpreter.try_eval(self.node)


def settle(value: Any) -> Any:
    """`value` with every Deferred inside it evaluated (dicts are settled in place)."""
    if isinstance(value, Deferred):
        return settle(value.resolve())
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (Deferred, dict, list)):
                value[key] = settle(item)
    elif isinstance(value, list):
        value[:] = [settle(v) for v in value]
    return value


def contains_unevaluated(value: Any) -> bool:
    value = settle(value)
    if isinstance(value, Unevaluated):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(contains_unevaluated(v) for v in value)
    if isinstance(value, dict):
        return any(contains_unevaluated(v) for v in value.values())
    return False


def callable_name(value: Any) -> str:
    if isinstance(value, ClassRef):
        return value.node.name
    if isinstance(value, FunctionRef):
        return value.node.name
    if isinstance(value, ExternalRef):
        return value.short
    if isinstance(value, Unevaluated):
        return value.source
    return getattr(value, "__name__", type(value).__name__)


def action_placeholder(value: Any) -> type:
    """A placeholder Action class named like the real one, derived from its argparse base."""
    if isinstance(value, ClassRef):
        return placeholder_action(value.node.name, argparse_base(value))
    return placeholder_action(callable_name(value))


def ancestors(cls: ClassRef, depth: int = 0) -> Iterator[Any]:
    """The base classes of a class read from source, depth first; unreadable ones skipped."""
    for base_node in cls.node.bases:
        try:
            base = Interpreter(cls.module, {}).eval(base_node)
        except CannotEvaluate:
            continue
        yield base
        if isinstance(base, ClassRef) and depth < MAX_CALL_DEPTH:
            yield from ancestors(base, depth + 1)


def init_default(cls: ClassRef, parameter: str) -> Any:
    """The literal default of a parameter of the class's (or an ancestor's) __init__."""
    for owner in [cls, *(a for a in ancestors(cls) if isinstance(a, ClassRef))]:
        init = _class_members(owner.node).get("__init__")
        if not isinstance(init, ast.FunctionDef):
            continue
        arguments = init.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = dict(zip([a.arg for a in positional[-len(arguments.defaults):]],
                            arguments.defaults, strict=True)) if arguments.defaults else {}
        defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                                  strict=True) if d is not None})
        node = defaults.get(parameter)
        return node.value if isinstance(node, ast.Constant) else None
    return None


def argparse_base(cls: ClassRef) -> type:
    for base in ancestors(cls):
        if isinstance(base, type) and issubclass(base, argparse.Action):
            return base
    return argparse.Action


def is_enum_class(cls: ClassRef) -> bool:
    return any(isinstance(base, ExternalRef) and base.dotted.startswith("enum.")
               for base in ancestors(cls))


def final_value(value: Any) -> Any:
    """What the model keeps of a computed value: Enum members as `Class.MEMBER`; a reference to
    something only running would give (`sys.maxsize`) as its name, marked unevaluated."""
    value = settle(value)
    if isinstance(value, EnumMember):
        return Opaque(str(value))
    if isinstance(value, _REFS):
        return Unevaluated(callable_name(value) if not isinstance(value, ExternalRef)
                           else value.dotted)
    if isinstance(value, list):
        return [final_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(final_value(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return type(value)(final_value(v) for v in value)
    if isinstance(value, dict):
        return {k: final_value(v) for k, v in value.items()}
    return value


def is_parser_class(cls: ClassRef) -> bool:
    return any(isinstance(base, type) and issubclass(base, argparse.ArgumentParser)
               for base in ancestors(cls))


def class_attribute(cls: ClassRef, attr: str, depth: int = 0) -> Any:
    """A class-level value: a dataclass field default, a constant, a nested class or method."""
    node = _class_members(cls.node).get(attr)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return FunctionRef(cls.module, node, cls)
    if isinstance(node, ast.ClassDef):
        return ClassRef(cls.module, node)
    if node is not None:
        return _class_value(cls, attr, node)
    for base_node in cls.node.bases:
        try:
            base = Interpreter(cls.module, {}).eval(base_node)
        except CannotEvaluate:
            continue
        if isinstance(base, ClassRef) and depth < MAX_CALL_DEPTH:
            return class_attribute(base, attr, depth + 1)
    raise CannotEvaluate(attr)


_class_values: dict[tuple[int, str], Any] = {}


def _class_value(cls: ClassRef, attr: str, value: ast.expr) -> Any:
    """Evaluated once per class and name: a registry refers to ServerArgs.x hundreds of times."""
    key = (id(cls.node), attr)
    if key not in _class_values:
        if is_enum_class(cls):
            member = Interpreter(cls.module, {}, owner=cls).try_eval(value)
            _class_values[key] = (cls.node, EnumMember(cls.node.name, attr, member))
        else:
            try:
                result = Interpreter(cls.module, {}, owner=cls).eval(field_default(value))
            except CannotEvaluate as exc:
                result = exc
            _class_values[key] = (cls.node, result)
    node, result = _class_values[key]
    if node is not cls.node:  # an id reused by another tree: evaluate afresh
        del _class_values[key]
        return _class_value(cls, attr, value)
    if isinstance(result, CannotEvaluate):
        raise result
    return result


def _class_members(node: ast.ClassDef) -> dict[str, Any]:
    """Name -> the method, nested class or assigned value of a class body (first wins)."""
    members = _members_by_class.get(id(node))
    if members is not None and members[0] is node:
        return members[1]
    found: dict[str, Any] = {}
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(child.name, child)
        elif isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
            if child.value is not None:
                found.setdefault(child.target.id, child.value)
        elif isinstance(child, ast.Assign):
            for target in child.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, child.value)
    _members_by_class[id(node)] = (node, found)
    return found


_members_by_class: dict[int, tuple[ast.ClassDef, dict[str, Any]]] = {}


def field_default(value: ast.expr) -> ast.expr:
    """`field(default=X)` means X; `field(default_factory=...)` has no class-level value."""
    if isinstance(value, ast.Call):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(
            value.func, "id", "")
        if name == "field":
            for keyword in value.keywords:
                if keyword.arg == "default":
                    return keyword.value
            raise CannotEvaluate("field without default")
    return value


def returns_parser(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Heuristic: a helper worth following builds or returns a parser."""
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and child.attr in _PARSER_METHODS | {"ArgumentParser"}:
            return True
    return False


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    return [*node.args.posonlyargs, *node.args.args]


def _skips_first(function: FunctionRef) -> bool:
    """Plain and class methods take self/cls first; static methods and functions do not."""
    if function.owner is None:
        return False
    names = {getattr(d, "id", getattr(d, "attr", "")) for d in function.node.decorator_list}
    return "staticmethod" not in names


def run_function(
    function: FunctionRef,
    args: list[Any],
    kwargs: dict[str, Any],
    recording: Recording,
    depth: int = 0,
) -> Any:
    node = function.node
    scope: dict[str, Any] = {}
    params = _parameters(node)
    defaults = node.args.defaults
    first_default = len(params) - len(defaults)
    interpreter = Interpreter(function.module, scope, recording, _function_start(node), depth,
                              function.owner)
    for index, param in enumerate(params):
        if index < len(args):
            scope[param.arg] = args[index]
        elif param.arg in kwargs:
            scope[param.arg] = kwargs[param.arg]
        elif index >= first_default:
            scope[param.arg] = interpreter.try_eval(defaults[index - first_default])
        else:
            scope[param.arg] = Unevaluated(param.arg)
    return interpreter.run(node.body)


def _function_start(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


# ------------------------------------------------------------------ entry point


def load_static(
    target: str, base_dir: Path | None = None, search_path: Sequence[str] | None = None
) -> tuple[argparse.ArgumentParser, dict[int, CallSite], Callable[[str], str | None]]:
    """Build the target's parser from source; return it, its call sites and a source reader."""
    module_name, attr = split_target(target)
    path = [str(base_dir or Path.cwd()), *(search_path if search_path is not None else sys.path)]
    loader = StaticLoader(path, module_name.split(".", 1)[0])
    loader.reading_target = True  # its syntax errors are reported, as importing it would
    module = loader.module(module_name)
    loader.reading_target = False
    if module is None:
        raise ArgmatrixError.at(
            f"cannot find the source of module {module_name!r} on sys.path",
            fix="install the package (pip install --no-deps is enough) or fix the target",
        )
    function = _find_function(module, attr)
    recording = Recording(prog=module_name.rsplit(".", 1)[-1])
    skip = _skips_first(function)
    params = _parameters(function.node)[1 if skip else 0:]
    required = len(params) - len(function.node.args.defaults)
    receiver: list[Any] = []
    if skip:
        receiver = [function.owner]
    given: argparse.ArgumentParser | None = None
    if required >= 1:
        given = quick_parser(recording, add_help=False)
        result = run_function(function, [*receiver, given], {}, recording)
    else:
        result = run_function(function, receiver, {}, recording)
    parser = result if isinstance(result, argparse.ArgumentParser) else given
    if parser is None:
        raise ArgmatrixError.at(
            f"{target} does not build an argparse.ArgumentParser that static reading can follow",
            file=str(module.path),
            line=function.node.lineno,
            fix="name a function that returns an ArgumentParser or fills one it is given,"
            " or load the registry live",
        )
    return parser, recording.sites, _SourceReader(loader)


def files_read(read_source: Callable[[str], str | None]) -> list[str]:
    """The source files a static read looked at (for the cache's validity check)."""
    loader = getattr(read_source, "loader", None)
    if loader is None:
        return []
    return [*(str(m.path) for m in loader.modules.values() if m is not None), *loader.missing]


class _SourceReader:
    def __init__(self, loader: StaticLoader) -> None:
        self.loader = loader

    def __call__(self, file: str) -> str | None:
        return _source_text(self.loader, file)


def _source_text(loader: StaticLoader, file: str) -> str | None:
    for module in loader.modules.values():
        if module is not None and str(module.path) == file:
            return module.text
    return None


def _find_function(module: SourceModule, attr: str) -> FunctionRef:
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
                fix="name a function that returns an ArgumentParser or fills one it is given",
            )
        if isinstance(node, ast.ClassDef) and index < len(parts) - 1:
            owner = ClassRef(module, node)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ArgmatrixError.at(
            f"{module.name}:{attr} is not a function",
            file=str(module.path),
            line=getattr(node, "lineno", None),
            fix="name a function that returns an ArgumentParser or fills one it is given",
        )
    return FunctionRef(module, node, owner)


def _member(node: Any, name: str) -> Any:
    if not isinstance(node, ast.ClassDef):
        return None
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            child.name == name
        ):
            return child
    return None
