"""Static reading attacked as a hostile pull request would: each test is a hole that was found
in the sandbox, kept as a regression test.

Every registry is read through the real command line with the canary file and environment
variable of `test_static_sandbox`, and keeps its invariants: nothing changes on disk or in this
process, no canary reaches any output, no Python repr, one located line on stderr when the read
is refused, and every read ends in under 5 s (with exit 0 and a correct registry, or exit 2).
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from helpers import run_cli
from test_static_sandbox import (
    CONFIG,
    FILE_SECRET,
    Outcome,
    _canary_environment,  # noqa: F401  (an autouse fixture: the canary environment variable)
    _check_outputs,
    _disk,
    _process_state,
    _same_process,
    read,
    stopped,
)


class Link:
    """A symbolic link to write in the project instead of a file."""

    def __init__(self, target: str | Path) -> None:
        self.target = str(target)


def read_tree(
    tmp_path: Path, files: dict[str, str | Link], target: str, generate: bool = True
) -> Outcome:
    """Write a project of several files (and links), read `target` statically with `export`
    (and `generate` when that succeeds), and check the sandbox's invariants."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    canary = tmp_path / "canary.txt"
    canary.write_text(FILE_SECRET)
    for name, content in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        else:
            path.write_text(content.replace("{canary!r}", repr(str(canary))))
    module_name = target.partition(":")[0]
    (project / "argmatrix.yaml").write_text(CONFIG.format(module=module_name))
    (project / "docs").mkdir()
    before, state = _disk(tmp_path), _process_state()
    start = time.monotonic()
    export = run_cli("export", "--registry", target, "--static", cwd=project)
    made = run_cli("generate", cwd=project) if generate and export.code == 0 else None
    seconds = time.monotonic() - start
    page_file = project / "docs" / "reference.md"
    outcome = Outcome(export, made, page_file.read_text() if page_file.exists() else "", seconds)
    assert _disk(tmp_path) == before, "the read changed files on disk"
    assert _same_process(state, _process_state()), "the read changed this process"
    assert canary.read_text() == FILE_SECRET
    _check_outputs(outcome)
    return outcome


def refused(outcome: Outcome, file: str, words: str) -> str:
    """The one error line of a refused read: exit 2, naming `file` and saying `words`."""
    assert outcome.export.code == 2, outcome.export.out[-500:]
    lines = outcome.export.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert file in lines[0] and words in lines[0], lines[0]
    return lines[0]


PACKAGE_BUILDER = """\
import argparse
from .settings import TOKEN


def build():
    parser = argparse.ArgumentParser(prog="hostile")
    parser.add_argument("--token", default=TOKEN)
    return parser
"""


# ------------------------------------------------------------------ files outside the project


@pytest.fixture
def secret_settings(tmp_path: Path) -> Path:
    """A Python file outside the project that assigns a secret (another checkout's settings,
    a tool's configuration): what a link in a pull request would point at."""
    outside = tmp_path / "elsewhere" / "settings.py"
    outside.parent.mkdir()
    outside.write_text(f"TOKEN = {FILE_SECRET!r}\n")
    return outside


def test_a_module_linked_to_a_file_outside_the_project_is_not_read(
    tmp_path: Path, secret_settings: Path
) -> None:
    # Found: the linked file's string constant became the argument's default, in the page.
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": PACKAGE_BUILDER,
            "pkg/settings.py": Link(secret_settings),
        },
        "pkg.registry:build",
    )
    line = refused(outcome, "pkg/settings.py", "a link that leads out of the folder")
    assert str(secret_settings.parent) not in line  # where the link points is not printed


def test_a_linked_package_folder_outside_the_project_is_not_read(
    tmp_path: Path, secret_settings: Path
) -> None:
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": PACKAGE_BUILDER.replace(".settings", ".sub.settings"),
            "pkg/sub": Link(secret_settings.parent),
        },
        "pkg.registry:build",
    )
    refused(outcome, "pkg/sub/settings.py", "a link that leads out of the folder")


def test_a_module_linked_into_a_hidden_folder_of_the_project_is_not_read(tmp_path: Path) -> None:
    # `.git/config` is inside the checkout, and may hold the CI token.
    hidden = tmp_path / "project" / ".git" / "settings.py"
    hidden.parent.mkdir(parents=True)
    hidden.write_text(f"TOKEN = {FILE_SECRET!r}\n")
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": PACKAGE_BUILDER,
            "pkg/settings.py": Link("../.git/settings.py"),
        },
        "pkg.registry:build",
    )
    refused(outcome, "pkg/settings.py", "or into a hidden folder")


def test_the_target_module_linked_to_proc_is_not_read(tmp_path: Path) -> None:
    outcome = read_tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/env.py": Link("/proc/self/environ")},
        "pkg.env:build",
    )
    refused(outcome, "pkg/env.py", "a link that leads out of the folder")


def test_a_link_to_another_module_of_the_package_is_followed(tmp_path: Path) -> None:
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": PACKAGE_BUILDER,
            "pkg/real_settings.py": "TOKEN = 'public'\n",
            "pkg/settings.py": Link("real_settings.py"),
        },
        "pkg.registry:build",
    )
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--token")["default"] == "public"


def test_a_relative_import_above_the_top_package_reads_nothing(tmp_path: Path) -> None:
    # `from ......x import y` in a.b.c.d.registry named a.b.c.x (Python refuses the import).
    deep = "a/b/c/d"
    files: dict[str, str | Link] = {f"{deep[: i + 1]}/__init__.py": "" for i in range(0, 7, 2)}
    files[f"{deep}/registry.py"] = PACKAGE_BUILDER.replace("from .settings", "from ......settings")
    files["a/b/c/settings.py"] = f"TOKEN = {FILE_SECRET!r}\n"
    outcome = read_tree(tmp_path, files, "a.b.c.d.registry:build")
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--token")["default"] == {"unevaluated": "......settings.TOKEN"}


@pytest.mark.parametrize("target", ["../x:build", "x/../x:build", "..:build", "/etc/passwd:b"])
def test_a_target_that_is_not_a_module_name_reads_no_file(tmp_path: Path, target: str) -> None:
    (tmp_path / "x.py").write_text(f"TOKEN = {FILE_SECRET!r}\n")
    (tmp_path / "x").mkdir()
    result = run_cli("export", "--registry", target, "--static", cwd=tmp_path)
    assert result.code == 2 and "cannot find the source of module" in result.err
    assert FILE_SECRET not in result.err + result.out


def test_module_names_that_are_not_python_names_are_never_looked_for(tmp_path: Path) -> None:
    from argmatrix.static_source import find_module_file

    (tmp_path / "x").mkdir()
    (tmp_path / "x.py").write_text("")
    assert find_module_file("x", [str(tmp_path)]) == tmp_path / "x.py"
    for name in ("x/../x", "..", "x..x", "", "x.", " x"):
        assert find_module_file(name, [str(tmp_path)]) is None, name


# Keep the harness honest: the cases above would pass vacuously if the secret never reached
# anything. Without the link, the same registry publishes the file's value.
def test_the_same_registry_without_a_link_shows_the_value(tmp_path: Path) -> None:
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": PACKAGE_BUILDER,
            "pkg/settings.py": "TOKEN = 'inside'\n",
        },
        "pkg.registry:build",
    )
    assert outcome.argument("--token")["default"] == "inside"


# ------------------------------------------------------------------ work that was not counted
# Each registry made the reader do work its step budget did not count: a read took minutes
# (or hours) with a step or two counted per pass of a loop. Now each stops within budget.

HEAD = "import argparse\nimport os\n\nCANARY = {canary!r}\n"


def builder(body: str, before: str = "", after: str = "") -> str:
    """A registry module whose `build()` runs `body` (indented here) and never returns."""
    return (
        HEAD
        + before
        + "\n\ndef build():\n    parser = argparse.ArgumentParser(prog='hostile')\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n    return parser\n"
        + after
    )


def test_a_failing_statement_in_a_loop_of_a_large_module(tmp_path: Path) -> None:
    # The source text of the statement was found by splitting the whole module into lines.
    comments = ("#" + "x" * 60_000 + "\n") * 100
    source = builder("while True:\n    value = os.getcwd()", after=comments)
    stopped(read(tmp_path, source), "step budget")


def test_a_comprehension_in_a_loop_of_a_function_of_many_names(tmp_path: Path) -> None:
    # Every comprehension copied the function's scope.
    names = "".join(f"v{i} = {i}\n" for i in range(10_000))
    stopped(read(tmp_path, builder(names + "while True:\n    [0 for _ in ()]")), "step budget")


def test_an_undecided_condition_in_a_loop_of_a_function_of_many_names(tmp_path: Path) -> None:
    # Both branches are read: the scope was copied and compared name by name.
    names = "".join(f"v{i} = {i}\n" for i in range(10_000))
    body = names + "while True:\n    if os.sep:\n        pass"
    stopped(read(tmp_path, builder(body)), "step budget")


def test_a_large_failing_statement_in_a_loop(tmp_path: Path) -> None:
    # Whether it calls the parser was found by walking it again at every pass.
    items = ", ".join(["1"] * 50_000)
    body = f"while True:\n    value = os.getcwd() + [{items}]"
    stopped(read(tmp_path, builder(body)), "step budget")


def test_a_large_helper_called_in_a_loop(tmp_path: Path) -> None:
    # Whether the helper builds a parser was found by walking it again at every call.
    helper = "\n\ndef helper(x):\n" + "".join(f"    v{i} = x\n" for i in range(20_000))
    stopped(read(tmp_path, builder("while True:\n    helper(1)", before=helper)), "step budget")


def test_a_large_module_refused_before_it_is_parsed(tmp_path: Path) -> None:
    # 1.3 million statements: Python's parser alone took 25 s, and it cannot be interrupted.
    line = stopped(read(tmp_path, "x = 1\n" * 1_300_000 + builder("pass")), "step budget")
    assert "parsing this module would take about" in line


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("x = " + "1+" * 2_000_000 + "1\n", id="a sum of 2 million terms"),
        pytest.param("x = f'" + "{a}" * 40_000 + "'\n", id="an f-string of 40,000 fields"),
        pytest.param("x = (" + "lambda: 0, " * 300_000 + ")\n", id="300,000 lambdas"),
        pytest.param("x = (" + "a[1], " * 600_000 + ")\n", id="600,000 subscripts"),
        pytest.param("x\n" * 1_000_000, id="a million lines"),
    ],
)
def test_a_module_too_costly_to_parse(tmp_path: Path, source: str) -> None:
    stopped(read(tmp_path, source + builder("pass")), "parsing this module would take")


def test_a_large_string_literal_costs_nothing_to_parse(tmp_path: Path) -> None:
    prose = "the quick (brown) fox, jumps: over the lazy dog; " * 100_000  # 5 MB
    outcome = read(tmp_path, builder(f"parser.add_argument('--a', help={prose!r})"))
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--a")["help"] == prose


def test_many_names_read_from_a_large_module_of_the_package(tmp_path: Path) -> None:
    # Each name was looked for by scanning the whole module's text.
    names = [f"n{i}" for i in range(3_000)]
    constants = "".join(f"{name} = {i}\n" for i, name in enumerate(names))
    comments = ("#" + "x" * 60_000 + "\n") * 50
    registry = (
        "import argparse\nfrom .constants import *\n"
        + "".join(f"from .constants import {name}\n" for name in names)
        + "\n\ndef build():\n    parser = argparse.ArgumentParser(prog='hostile')\n"
        + f"    parser.add_argument('--a', default=[{', '.join(names)}])\n"
        + "    return parser\n"
    )
    outcome = read_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": registry,
            "pkg/constants.py": constants + comments,
        },
        "pkg.registry:build",
    )
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--a")["default"] == list(range(3_000))


def test_imports_of_many_missing_modules(tmp_path: Path) -> None:
    imports = "".join(f"    from .missing{i} import x{i}\n" for i in range(100_000))
    outcome = read_tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/registry.py": builder(imports)},
        "pkg.registry:build",
        generate=False,
    )
    assert outcome.export.code in (0, 2)


def test_a_builtin_called_once_per_item_counts_each_call(tmp_path: Path) -> None:
    body = """
    items = list(range(500_000))
    while True:
        texts = list(map(str, items))
        kept = list(filter(None, items))
    """
    stopped(read(tmp_path, builder(body)), "budget")


def test_a_format_string_of_many_fields_counts_each_field(tmp_path: Path) -> None:
    body = """
    template = "{}" * 300_000
    values = [1] * 300_000
    while True:
        text = template.format(*values)
    """
    stopped(read(tmp_path, builder(body)), "budget")
