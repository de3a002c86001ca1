"""Which of a module's top-level statements run when it is imported, as far as static reading can
tell: the statements inside an `if` whose condition it decides, or inside the one alternative of
an `if`/`try` that declares anything (a definition, an assignment, or a call of one of the
methods its reader names as registering on an object); where several alternatives declare, the
statement is `Undecided` and whatever it may bind is known to be so. Plain syntax and a `decide`
callback: nothing is evaluated here."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from argmatrix.loaders.static.python.scripts import is_main_test
from argmatrix.loaders.static.python.syntax import DEFINITION, touched_names

# A condition's truth, or an exception (`CannotEvaluate`) when only running would tell.
Decide = Callable[[ast.expr], bool]
# What declares something: definitions, assignments, and (`Rules.registering`) calls of a method
# that registers on an object.
_DECLARING = (*DEFINITION, ast.Assign, ast.AnnAssign)


@dataclass(frozen=True)
class Undecided:
    """A top-level `if` (or `try`) more than one alternative of which declares something, and
    whose condition static reading cannot decide: the names it binds are unknown."""

    statement: ast.If | ast.Try
    names: frozenset[str]
    reason: str

    @property
    def line(self) -> int:
        return self.statement.lineno


@dataclass(frozen=True)
class Rules:
    """How a module's top level is decided: `decide` tells a condition's truth (or raises one
    of `errors`), `fails` whether an import statement fails (its module is nowhere on the
    search path: the `except ImportError:` of a `try` around it runs)."""

    decide: Decide
    errors: tuple[type[Exception], ...]
    fails: Callable[[ast.stmt], bool] = lambda statement: False
    # Told of a failing import that leaves out what the `try` would otherwise declare.
    skipped: Callable[[ast.stmt], None] = lambda statement: None
    # The methods whose call, as a statement, declares something too (the reader's: a
    # statement `x.method(...)` registering on an object what a scan of the module looks for).
    registering: frozenset[str] = frozenset()


def run_at_import(body: list[ast.stmt], rules: Rules) -> list[ast.stmt | Undecided]:
    """`body` with each `if`/`try` replaced by the statements that run of it.
    `if __name__ == "__main__":` is left as it is."""
    found: list[ast.stmt | Undecided] = []
    for statement in body:
        if isinstance(statement, ast.If) and not is_main_test(statement.test):
            found += _if(statement, rules)
        elif isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
            found += _try(statement, rules)  # type: ignore[arg-type]
        else:
            found.append(statement)
    return found


def _if(statement: ast.If, rules: Rules) -> list[ast.stmt | Undecided]:
    try:
        branch = statement.body if rules.decide(statement.test) else statement.orelse
    except rules.errors as exc:
        reason = str(exc.args[0]) if exc.args else "only running would tell"
        return _one_of(statement, [statement.body, statement.orelse], rules, reason)
    return run_at_import(branch, rules)


def _try(statement: ast.Try, rules: Rules) -> list[ast.stmt | Undecided]:
    """The statements of a `try` that runs to its end (its `else` and `finally` too), unless a
    handler declares something as well: then which runs depends on an exception. An import
    of a module that is nowhere on the search path fails: what comes before it runs, then the
    handler of `ImportError`."""
    failed = failed_import(statement, rules.fails)
    if failed is not None:
        ran, index = failed
        if _declares([*statement.body[index:], *statement.orelse], rules.registering):
            rules.skipped(statement.body[index])
        return [*run_at_import(ran, rules), *run_at_import(statement.finalbody, rules)]
    done = [*statement.body, *statement.orelse]
    alternatives = [done, *(handler.body for handler in statement.handlers)]
    found = _one_of(statement, alternatives, rules, "which depends on an exception")
    return [*found, *run_at_import(statement.finalbody, rules)]


def failed_import(
    statement: ast.Try, fails: Callable[[ast.stmt], bool]
) -> tuple[list[ast.stmt], int] | None:
    """The statements a `try` runs when an import in its body fails (what comes before the
    import, then the handler of `ImportError`; not its `finally`), and where the import is;
    None if none fails or no handler catches it."""
    for index, inner in enumerate(statement.body):
        if isinstance(inner, (ast.Import, ast.ImportFrom)) and fails(inner):
            handler = next((h for h in statement.handlers if _catches_import_error(h)), None)
            if handler is None:
                return None
            return [*statement.body[:index], *handler.body], index
    return None


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    if kinds is None:
        return True
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    for name in names:
        word = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
        if word in _IMPORT_ERRORS:
            return True
    return False


def _one_of(
    statement: ast.If | ast.Try,
    alternatives: list[list[ast.stmt]],
    rules: Rules,
    reason: str,
) -> list[ast.stmt | Undecided]:
    declaring = [body for body in alternatives if _declares(body, rules.registering)]
    if len(declaring) == 1:
        return run_at_import(declaring[0], rules)
    if not declaring:
        return [statement]
    names = frozenset(name for body in declaring for s in body for name in touched_names(s))
    return [Undecided(statement, names, reason)]


def _declares(body: list[ast.stmt], registering: frozenset[str]) -> bool:
    """Whether an alternative holds a definition, an assignment or a registration (not only
    imports, `pass`, a `raise`, a warning or a docstring)."""
    for statement in body:
        if isinstance(statement, _DECLARING) or _registers(statement, registering):
            return True
        if isinstance(statement, (ast.If, ast.Try)) and _declares(
            [*statement.body, *statement.orelse], registering
        ):
            return True
    return False


def _registers(statement: ast.stmt, registering: frozenset[str]) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    for node in ast.walk(statement.value.func):
        if isinstance(node, ast.Attribute) and node.attr in registering:
            return True
    return False
