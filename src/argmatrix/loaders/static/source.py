"""Modules of the registry's package, read from source and never executed.

A module is parsed (whole, or one statement at a time: see `StatementOutline`) and its top-level
names evaluated on demand by the interpreter. What a module's own top level does to a name is
followed in source order: a second assignment, `X += [...]`, `X.append(...)`, `X[k] = v`, a loop
filling it. Where the order of those statements cannot be followed (a condition static reading
cannot decide, a loop that also changes other names, a function of the module called at import
that fills the name, a read of a name that the module changes only later), the name's value is
`CannotEvaluate` with the reason, never the un-changed value.
"""

from __future__ import annotations

import ast
import contextlib
import re
from pathlib import Path
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.sections import remember_tree
from argmatrix.loaders.static.declared_fields import declared
from argmatrix.loaders.static.interpreter import Interpreter
from argmatrix.loaders.static.python.budget import FIX, BudgetExceeded, parse_cost
from argmatrix.loaders.static.python.builtins import BUILTINS
from argmatrix.loaders.static.python.context import ReadContext, StarImport
from argmatrix.loaders.static.python.outline import (
    StatementOutline,
    is_word_character,
    top_attribute_writes,
)
from argmatrix.loaders.static.python.star_imports import (
    NOT_BOUND,
    after_own,
    before_own,
    lookup,
    star_imports,
)
from argmatrix.loaders.static.python.syntax import (
    COMPOUND,
    DEFINITION,
    aliases,
    assigned_value,
    filled_by_calls,
    filled_elsewhere,
    inner_statements,
    loop_names,
    namespace_writes,
    touched_names,
)
from argmatrix.loaders.static.python.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
)
from argmatrix.model.registry import Unevaluated

BUILTIN_CONSTANTS: dict[str, Any] = {"None": None, "True": True, "False": False}
# Builtins static reading knows are there but does not run: their calls stay source text.
OPAQUE_BUILTINS = frozenset({"bytes", "complex", "object", "type"})


_NEWLINE = re.compile(r"\r\n?|\n")  # the line ends of the syntax tree's line numbers
_PADDED_LINES = 8  # a statement read alone is parsed after at most 8 line ends a character
# Text that may be a star import (`from m import *`, `import` a whole word): such a module is
# parsed whole. The word's start is checked apart (`_may_star_import`): a pattern that begins
# with the literal is found by a fast search for it, one with `\b` first is tried at every
# character (2 ms of a 120 KB module).
_STAR_IMPORT = re.compile(r"import[ \t\\\r\n]*\*")
# What may write a module's namespace directly (then parsed whole to see which names).
_NAMESPACE_WRITE = re.compile(r"(?:globals|vars)\(\)\s*(?:\[|\.\s*update\b)|sys\.modules\[__name__")


def _occurrences(text: str, anchor: str) -> list[int]:
    """Where `anchor` occurs in `text` (str.find: far faster than a pattern over the text)."""
    found: list[int] = []
    start = text.find(anchor)
    while start >= 0:
        found.append(start)
        start = text.find(anchor, start + 1)
    return found


# An indented line changing NAME in place or declaring it global (NAME stands for the name).
_CHANGED_IN_FUNCTION = (
    r"^[ \t]+(?:global\b[^\n]*\bNAME\b"
    r"|NAME[ \t]*(?:\.[ \t]*(?:append|extend|insert|add|update|setdefault)[ \t]*\(|\[))"
)


class SourceModule:
    """One parsed module: its top-level names, read lazily and never executed.

    A module other than the target's is parsed only as far as it is used: a name bound once,
    at the top level, by `def`, `class` or an assignment is read by parsing that statement alone
    (sglang's registry needs 4 names of a 120 KB utility module). Any other case parses the whole
    module, and the answer is the same either way, with one exception: a syntax error elsewhere
    in such a module goes unnoticed (the target's own module is always parsed whole).
    """

    def __init__(
        self, name: str, path: Path, text: str, loader: ReadContext, lazy: bool = False
    ) -> None:
        self.name = name
        self.path = path
        self.is_stub = path.suffix == ".pyi"  # a compiled module's stub: nothing of it runs
        self.text = text
        self.loader = loader
        self.tree: ast.Module | None = None
        self.assignments: dict[str, ast.expr] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}
        self.definitions: dict[str, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef] = {}
        # Whole parse: every top-level statement that binds or changes a name, in source order.
        self.history: dict[str, list[ast.stmt]] = {}
        # `Class.attr = v` at the top level: class name -> attribute -> line.
        self.attribute_changes: dict[str, dict[str, int]] = {}
        # `from module import *` at the top level (under a condition too), in source order.
        self.star_imports: list[StarImport] = []
        self._has_star: bool | None = None  # whether the text may hold one (then parsed whole)
        self._values: dict[str, Any] = {}
        self._evaluating: set[str] = set()
        self._outline: StatementOutline | None = None
        self._filled: dict[str, str] | None = None
        self._registered: dict[str, str] | None = None  # see `filled_elsewhere`
        self._dynamic: dict[str, int] | None = None  # see `_rebound`
        self._assigned: list[tuple[str, str, int]] | None = None  # `attribute_assignments`
        self._line_starts: list[int] | None = None
        self._ascii: bool | None = None
        self._wide_lines: dict[int, bytes | None] = {}  # line -> its UTF-8, if not ASCII
        self._alone: list[ast.stmt] = []  # statements parsed alone, if not parsed whole
        self._partial: ast.Module | None = None  # those statements as a module
        self._whole_cost = 0  # what parsing it whole would cost, once it is outlined
        self._scanned = 0  # what looking for names in its text has cost
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
        self.history.clear()
        self._index(self.tree.body)
        self.star_imports = star_imports(self, self.tree.body)

    def _parse(self, text: str, first_line: int) -> ast.Module:
        budget = self.loader.budget
        try:
            budget.parse(
                parse_cost(text, budget),
                "parsing this module"
                if first_line == 1
                else "parsing one statement of this module",
            )
        except BudgetExceeded as exc:
            raise ArgmatrixError.at(
                exc.message, file=str(self.path), line=first_line, fix=FIX
            ) from None
        # A statement read alone is parsed after as many line ends as come before it, so that
        # its nodes carry their lines in the module: shifting them after is a walk of every node
        # (a microsecond each), a blank line costs the parser a hundredth of that. Only so many
        # though: deep in a large module its lines are shifted (the parse is budgeted by the
        # statement's own size).
        shift = first_line - 1
        padded = "\n" * shift + text if 0 < shift <= _PADDED_LINES * len(text) else text
        try:
            tree = ast.parse(padded, filename=str(self.path))
        except SyntaxError as exc:
            raise ArgmatrixError.at(
                f"cannot read the registry statically: syntax error: {exc.msg}",
                file=str(self.path),
                line=exc.lineno if padded is not text and exc.lineno else (exc.lineno or 1) + shift,
                fix="fix the syntax error, or point the target at a module that parses",
            ) from None
        except (ValueError, RecursionError, MemoryError) as exc:
            reason = "it is nested too deeply" if not isinstance(exc, ValueError) else str(exc)
            raise ArgmatrixError.at(
                f"cannot read the registry statically: Python cannot parse it ({reason})",
                file=str(self.path),
                line=first_line,
                fix="point the target at a module Python can import",
            ) from None
        if shift and padded is text:
            ast.increment_lineno(tree, shift)
        return tree

    def _read_alone(self, name: str) -> bool:
        """Index `name` from its one binding statement, parsed alone; False: parse it all.
        Each try scans the module's text: once the scans have cost what parsing the whole
        module would, it is parsed whole instead."""
        budget = self.loader.budget
        if self._outline is None:
            self._whole_cost = parse_cost(self.text, budget)
            # Its pattern goes over every character too (a megabyte of letters: 0.1 s).
            outline = max(self._whole_cost // 3, len(self.text) >> 3)
            self._charge(outline, "outlining this module")
            self._outline = StatementOutline(self.text)
        self._scanned += 1 + (len(self.text) >> 5)
        if self._scanned > self._whole_cost:
            return False
        budget.work(len(self.text))
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
        value = assigned_value(first, name)
        if isinstance(first, DEFINITION) and first.name == name:
            self.definitions[name] = first
        elif value is not None:
            self.assignments[name] = value
        else:
            return False
        self._alone.append(first)
        return True

    def known_tree(self) -> ast.Module:
        """The module's syntax tree as far as it was parsed: the statements read alone, if it
        was not parsed whole (the comment sections of a helper need no more)."""
        if self.tree is not None:
            return self.tree
        if self._partial is None or len(self._partial.body) != len(self._alone):
            body = sorted(self._alone, key=lambda node: node.lineno)
            self._partial = ast.Module(body=body, type_ignores=[])
        return self._partial

    def _charge(self, cost: int, what: str) -> None:
        """Work on the module's text counted before it is done (outlining a module goes once
        over its brackets, lines and strings: about a third of what parsing it takes)."""
        try:
            self.loader.budget.parse(cost, what)
        except BudgetExceeded as exc:
            raise ArgmatrixError.at(exc.message, file=str(self.path), line=1, fix=FIX) from None

    def __hash__(self) -> int:
        return hash(self.name)

    def _index(self, body: list[ast.stmt]) -> None:
        for node in body:
            for name in touched_names(node):
                self.history.setdefault(name, []).append(node)
            if isinstance(node, DEFINITION):
                self.definitions[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assignments[target.id] = node.value
                    else:
                        self._note_attribute_change(target)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                if isinstance(node.target, ast.Name):
                    self.assignments[node.target.id] = node.value
            elif isinstance(node, ast.AugAssign):
                self._note_attribute_change(node.target)
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

    def _note_attribute_change(self, target: ast.expr) -> None:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            changes = self.attribute_changes.setdefault(target.value.id, {})
            changes.setdefault(target.attr, target.lineno)

    def absolute(self, module: str | None, level: int) -> str:
        """The absolute name of a relative import; one that climbs above the top package
        (which Python refuses) stays as written, a name no module of the package has."""
        if level == 0:
            return module or ""
        package = self.name.split(".")
        if self.path.name != "__init__.py":
            package = package[:-1]
        if level > len(package):
            return "." * level + (module or "")
        base = package[: len(package) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def segment(self, node: ast.AST) -> str:
        """The source text of a node (`ast.get_source_segment` splits the whole module into
        lines at every call: on a large module, a failing statement in a loop took seconds)."""
        self.loader.budget.visit(3)  # what failed before it: an exception caught
        text = self._segment(node)
        if text is None:
            try:
                text = ast.unparse(node)
            except RecursionError:
                text = "..."
        self.loader.budget.work(len(text))
        return text

    def _segment(self, node: ast.AST) -> str | None:
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return None
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        starts = self._line_starts
        if not 1 <= first <= last <= len(starts):
            return None
        begin = starts[first - 1] + self._characters(first, start)
        return self.text[begin : starts[last - 1] + self._characters(last, end)]

    def _characters(self, line: int, offset: int) -> int:
        """Characters in the first `offset` bytes (UTF-8, as the syntax tree counts) of a line."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if self._ascii:
            return offset
        starts = self._line_starts
        assert starts is not None
        if line not in self._wide_lines:
            end = starts[line] if line < len(starts) else len(self.text)
            text = self.text[starts[line - 1] : end]
            self._wide_lines[line] = None if text.isascii() else text.encode()
        encoded = self._wide_lines[line]
        if encoded is None:
            return offset
        return len(encoded[:offset].decode("utf-8", "replace"))

    def global_value(self, name: str, as_of: int | None = None) -> Any:
        """The value of a module-level name, evaluated once. `as_of`: the line of a top-level
        statement reading it, which must not come before the module changes it again."""
        if name in self._values:
            value = self._values[name]
        elif name in self._evaluating:
            raise CannotEvaluate(f"`{name}` refers to itself")
        else:
            self._evaluating.add(name)
            try:
                value = self._global_value(name)
                if type(value) in (list, dict, set) and not value:
                    self._check_registered(name)
            except CannotEvaluate as exc:
                value = exc
            finally:
                self._evaluating.discard(name)
            self._values[name] = value
        if as_of is not None and name in self.history:  # known once the module is parsed
            self._check_order(name, as_of)
        if isinstance(value, CannotEvaluate):
            raise CannotEvaluate(value.reason)
        return value

    def _check_order(self, name: str, as_of: int) -> None:
        statements = self.history[name]
        if len(statements) > 1 and statements[0].lineno < as_of < statements[-1].lineno:
            later = next(s.lineno for s in statements if s.lineno > as_of)
            raise CannotEvaluate(
                f"`{name}` is read at line {as_of} and changed again at line {later}"
            )

    def _global_value(self, name: str) -> Any:
        rebound = self._rebound(name) or self.loader.assigned_elsewhere(self.name, name)
        if rebound is not None:
            raise CannotEvaluate(rebound)
        if self.tree is None and self._may_star_import():
            self.parse()  # a star import may bind any name: no name is read alone
        if self.tree is None:
            known = name in self.definitions or name in self.assignments
            if not known and not self._read_alone(name):
                self.parse()
        if self.tree is None:  # read alone: one definition or assignment
            if name in self.definitions:
                return self._definition(self.definitions[name])
            return self._evaluate(self.assignments[name])
        statements = self.history.get(name)
        if statements is None:
            builtin = name in BUILTIN_CONSTANTS or name in BUILTINS or name in OPAQUE_BUILTINS
            stars = self.star_imports
            value = lookup(self, name, stars, builtin=builtin) if stars else NOT_BOUND
            return self._builtin(name) if value is NOT_BOUND else value
        if self.star_imports:
            value = after_own(self, name, statements)
            if value is not NOT_BOUND:
                return value
        if name in self.filled_at_import():
            raise CannotEvaluate(self.filled_at_import()[name])
        if len(statements) == 1:
            statement = statements[0]
            if isinstance(statement, DEFINITION):
                return self._definition(statement)
            value = assigned_value(statement, name)
            if value is not None and not self.star_imports:
                return self._evaluate(value)
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                return self._imported(statement, name)
        return self._replay(name, statements)

    def _rebound(self, name: str) -> str | None:
        """Why `name` may hold another value than its module's statements give it: the module
        binds names through its namespace (`globals()["X"] = ...`, `vars().update(...)`,
        `setattr(sys.modules[__name__], "X", ...)`), which static reading does not follow."""
        if self._dynamic is None:
            self._dynamic = {}
            text = self.text
            if "globals()" in text or "vars()" in text or "sys.modules[__name__" in text:
                starts = [
                    start
                    for anchor in ("globals()", "vars()", "sys.modules[__name__")
                    for start in _occurrences(text, anchor)
                    if _NAMESPACE_WRITE.match(text, start)
                ]
                if starts:
                    starts += _occurrences(text, "setattr(")
                    self.parse()
                    assert self.tree is not None
                    lines = {text.count("\n", 0, start) + 1 for start in starts}
                    self.loader.budget.visit(len(lines))
                    self._dynamic = namespace_writes(self.tree, lines)
        line = self._dynamic.get(name, self._dynamic.get("*"))
        if line is None:
            return None
        return (
            f"`{name}` may be bound again through the module's namespace at line {line}"
            " (`globals()`, `sys.modules`), which static reading does not follow"
        )

    def attribute_assignments(self) -> list[tuple[str, str, int]]:
        """`alias.NAME = v` at the top level of this module, as (alias path, name, line): a
        name of another module this one rebinds when it is imported (`consts.PORT = 9000`)."""
        if self._assigned is None:
            self.loader.budget.work(len(self.text))
            found: list[tuple[str, str, int]] = []
            line, counted = 1, 0
            for match in top_attribute_writes(self.text):
                line += self.text.count("\n", counted, match.start(1))
                counted = match.start(1)
                found.append((match.group(1), match.group(2), line))
            self._assigned = found
        return self._assigned

    def imported_module(self, path: str) -> str | None:
        """The module `alias` or `alias.sub` names in this module (`from pkg import consts`,
        `import pkg.consts`), if an import binds its first part."""
        first, _, rest = path.partition(".")
        self.parse()
        found = self.imports.get(first)
        if found is None:
            return None
        module, attr = found
        name = module if attr is None else f"{module}.{attr}"
        return f"{name}.{rest}" if rest else name

    def _check_registered(self, name: str) -> None:
        """An empty list, dict or set that only registrations fill, from other modules when
        they are imported (`filled_elsewhere`), is not known: never shown empty."""
        if not self._may_be_registered(name):
            return
        self.parse()
        if self._registered is None:
            assert self.tree is not None
            self._registered = filled_elsewhere(self.tree, self.definitions, self.history)
        if name in self._registered:
            raise CannotEvaluate(self._registered[name])

    def _may_be_registered(self, name: str) -> bool:
        """Whether an indented line of the text changes `name` in place (`NAMES.append(`,
        `REGISTRY[key] =`) or declares it `global`: then the module is parsed whole to see
        whether a function its module never calls fills it (`filled_elsewhere`)."""
        if not name.isidentifier():
            return False
        self.loader.budget.work(len(self.text))
        pattern = _CHANGED_IN_FUNCTION.replace("NAME", re.escape(name))
        return re.search(pattern, self.text, re.MULTILINE) is not None

    def _may_star_import(self) -> bool:
        if self._has_star is None:
            text = self.text
            self._has_star = any(
                not (start and is_word_character(text[start - 1]))
                for start in (match.start() for match in _STAR_IMPORT.finditer(text))
            )
        return self._has_star

    def _definition(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> Any:
        return ClassRef(self, node) if isinstance(node, ast.ClassDef) else FunctionRef(self, node)

    def _evaluate(self, node: ast.expr) -> Any:
        return self.evaluate(node, node.lineno)

    def evaluate(
        self,
        node: ast.expr,
        line: int,
        owner: ClassRef | None = None,
        scope: dict[str, Any] | None = None,
    ) -> Any:
        """The value of an expression of this module, as of `line` (a class body's value, a
        base class, a default), for `owner`'s members when it is inside a class; `scope`: the
        names of the class body it is in."""
        return Interpreter(self, scope if scope is not None else {}, owner=owner, as_of=line).eval(
            node
        )

    def _builtin(self, name: str) -> Any:
        if name in BUILTIN_CONSTANTS:
            return BUILTIN_CONSTANTS[name]
        if name in BUILTINS:
            return BuiltinRef(name)
        if name in declared.BUILTIN_NAMES:
            return declared.Modeled(name)
        if name in OPAQUE_BUILTINS:
            return ExternalRef(name)
        raise CannotEvaluate(f"`{name}` is not defined where static reading looks")

    def _imported(self, statement: ast.Import | ast.ImportFrom, name: str) -> Any:
        loader = self.loader
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname == name:
                    return loader.imported(alias.name, None, self.path.parent)
                if not alias.asname and alias.name.split(".", 1)[0] == name:
                    return loader.imported(name, None, self.path.parent)
        else:
            base = self.absolute(statement.module, statement.level)
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    return loader.imported(base, alias.name, self.path.parent)
        raise CannotEvaluate(f"`{name}` is not imported here")

    # -------------------------------------------------------------- following a name's history

    def _replay(self, name: str, statements: list[ast.stmt]) -> Any:
        """The value of `name` after the module's top level, statement by statement."""
        scope: dict[str, Any] = {}
        if self.star_imports:
            # what the statements start from, if they read it; unknown: they say so
            with contextlib.suppress(CannotEvaluate):
                value = before_own(self, name, statements)
                if value is not NOT_BOUND:
                    scope[name] = value
        for index, statement in enumerate(statements):
            self._replay_one(statement, name, scope, later=index < len(statements) - 1)
        if name not in scope:
            raise CannotEvaluate(f"`{name}` is deleted at the top of its module")
        value = scope[name]
        if type(value) is Unevaluated:
            raise CannotEvaluate(value.reason or f"`{name}` cannot be computed statically")
        return value

    def _replay_one(
        self, statement: ast.stmt, name: str, scope: dict[str, Any], later: bool
    ) -> None:
        if isinstance(statement, DEFINITION):
            scope[name] = self._definition(statement)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            scope[name] = self._imported(statement, name)
        elif isinstance(statement, COMPOUND):
            self._replay_compound(statement, name, scope)
        else:
            if later and aliases(statement, name):
                raise CannotEvaluate(
                    f"`{name}` is another name for a value and is changed after line"
                    f" {statement.lineno}; static reading does not follow shared values"
                )
            self._strict(scope, statement.lineno).exec(statement)

    def _replay_compound(self, statement: ast.stmt, name: str, scope: dict[str, Any]) -> None:
        statements = list(inner_statements(statement))
        self.loader.budget.visit(len(statements))
        inner = [s for s in statements if name in touched_names(s)]
        if inner and all(isinstance(s, (ast.Import, ast.ImportFrom, *DEFINITION)) for s in inner):
            if name not in scope:  # `try: import x` / `if TYPE_CHECKING:`: the first one
                self._replay_one(inner[0], name, scope, later=False)
            return
        if isinstance(statement, ast.If):
            try:
                test = self._strict(scope, statement.lineno).known(statement.test)
            except CannotEvaluate:
                raise CannotEvaluate(
                    f"`{name}` is set under a condition static reading cannot decide (line"
                    f" {statement.lineno})"
                ) from None
            for branch in statement.body if test else statement.orelse:
                if name in touched_names(branch):
                    self._replay_one(branch, name, scope, later=False)
            return
        if isinstance(statement, ast.Try):
            for part in [*statement.body, *statement.orelse, *statement.finalbody]:
                if name in touched_names(part):
                    self._replay_one(part, name, scope, later=False)
            return
        others = touched_names(statement) - {name} - loop_names(statement)
        if others:
            raise CannotEvaluate(
                f"`{name}` is changed at line {statement.lineno} together with"
                f" {', '.join(sorted(others))}; static reading does not follow that"
            )
        self._strict(scope, statement.lineno).exec(statement)

    def _strict(self, scope: dict[str, Any], line: int) -> Any:
        return Interpreter(self, scope, as_of=line, strict=True)

    def filled_at_import(self) -> dict[str, str]:
        """Names a function of this module changes when the module itself calls it at import
        (a decorator registering classes): name -> the reason its value cannot be known."""
        if self._filled is None:
            self._filled = {}
            if self.tree is not None:
                self._filled = filled_by_calls(self.tree, self.definitions, self.history)
        return self._filled
