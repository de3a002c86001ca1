"""The package stays in rooms a newcomer can find (issue 33): no module of `src/argmatrix` is
longer than 650 lines, and no module imports itself through others. The import graph is read
from the source: every import counts, those under `if TYPE_CHECKING:` and inside functions too
(an annotation-only circle is still two modules that cannot be read apart), and so does a string
that names a module of argmatrix, or a name in one (`"argmatrix.loaders.x:function"`, imported
later by `import_module`): a module named that way is imported all the same."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from helpers import REPO

PACKAGE = REPO / "src" / "argmatrix"
MOST_LINES = 650
# A string naming a module of argmatrix, or a name in one, as `import_module` is given it.
NAMED = re.compile(r"(?P<module>argmatrix(?:\.\w+)+)(?::(?P<name>[\w.]+))?")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def named_in_strings(tree: ast.AST) -> Iterator[tuple[str, str | None]]:
    """(module, name or None) of every string constant that is a module's dotted name, or
    `module:name`, of argmatrix's."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is str:
            found = NAMED.fullmatch(node.value)
            if found is not None:
                yield found["module"], found["name"]


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The argmatrix modules `name` imports: `from a.b import c` is the module `a.b.c` where
    there is one, else `a.b`; a relative import is resolved from the module's package; a string
    naming a module (or a name in one) imports that module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    yield from (module for module, _ in named_in_strings(tree) if module in known)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in known:
                    yield child
                elif base in known:
                    yield base


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {other for other in imported(name, path, known) if other != name}
        for name, path in known.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_is_longer_than_650_lines() -> None:
    long = {
        str(path.relative_to(REPO)): lines
        for path in modules().values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert long == {}, f"split these along their seams (at most {MOST_LINES} lines each)"


def test_no_module_imports_itself_through_others() -> None:
    assert circles(import_graph()) == []


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(package: str) -> list[tuple[str, str, str]]:
    """(importer, module, name) of every `from module import _name` inside `package` whose
    module is another of argmatrix's, and of every string naming one (`"module:_name"`): a
    module's private names are its own."""
    found = []
    for name, path in modules().items():
        if not (name == package or name.startswith(package + ".")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            (name, module, attr)
            for module, attr in named_in_strings(tree)
            if attr is not None and module != name and private(attr.split(".")[0])
        ]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("argmatrix"):
                found += [
                    (name, node.module or "", alias.name)
                    for alias in node.names
                    if private(alias.name)
                ]
    return found


def test_no_loader_imports_another_modules_private_names() -> None:
    """A reader of a framework (live or static) uses what the evaluator, the value model or a
    converter offer by their public names, so each can change its own private ones."""
    assert private_imports("argmatrix.loaders") == []


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """A circle made only of annotation imports, function-level imports or relative imports is
    found: the check reads every import of the source."""
    graph = {
        "p.a": {"p.b"},  # under TYPE_CHECKING in p/a.py
        "p.b": {"p.c"},  # inside a function of p/b.py
        "p.c": {"p.a"},  # `from . import a` in p/c.py
        "p.d": {"p.a"},
    }
    assert circles(graph) == [["p.a", "p.b", "p.c"]]
    known = {name: tmp_path / f"{name.split('.')[1]}.py" for name in ("p.a", "p.b", "p.c")}
    known["p"] = tmp_path / "__init__.py"
    known["p"].write_text("")
    known["p.a"].write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import thing\n"
    )
    known["p.b"].write_text("def f():\n    import p.c\n")
    known["p.c"].write_text("from . import a\n")
    found = {name: set(imported(name, path, known)) for name, path in known.items()}
    assert found == {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p": set()}


def test_a_module_named_in_a_string_is_an_import(tmp_path: Path) -> None:
    """`import_module("argmatrix.x.y")` or a "module:function" a loader imports later is an
    import of that module: a circle made through one is found, and so is a private name."""
    known = {
        name: tmp_path / f"{name.rpartition('.')[2]}.py"
        for name in ("argmatrix.p.load", "argmatrix.p.modes")
    }
    known["argmatrix.p.load"].write_text("from argmatrix.p.modes import TABLE\n")
    known["argmatrix.p.modes"].write_text(
        "from importlib import import_module\n"
        'TABLE = {"live": "argmatrix.p.load:_load_live"}\n'
        'OTHER = import_module("argmatrix.p.load")\n'
        '"""A docstring that speaks of argmatrix.p.load in a sentence is no import."""\n'
    )
    graph = {name: set(imported(name, path, known)) for name, path in known.items()}
    assert graph == {
        "argmatrix.p.load": {"argmatrix.p.modes"},
        "argmatrix.p.modes": {"argmatrix.p.load"},
    }
    assert circles(graph) == [["argmatrix.p.load", "argmatrix.p.modes"]]
    tree = ast.parse(known["argmatrix.p.modes"].read_text())
    assert [attr for _, attr in named_in_strings(tree)] == ["_load_live", None]
