"""Static reading attacked as a hostile pull request would: each test is a hole that was found
in the sandbox, kept as a regression test.

Every registry is read through the real command line with the canary file and environment
variable of the sandbox harness in helpers.py, and keeps its invariants: nothing changes on disk
or in this process, no canary reaches any output, no Python repr, one located line on stderr
when the read is refused, and every read ends in under 5 s (with exit 0 and a correct registry,
or exit 2).
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from helpers import (
    FILE_SECRET,
    Link,
    bench_synth,
    read_hostile,
    read_hostile_tree,
    refused,
    run_cli_in_process,
    stopped,
    unevaluated,
)

# Every test here reads with the canary secret in the environment.
pytestmark = [
    pytest.mark.usefixtures("static_canary_environment"),
    pytest.mark.hostile,  # a hostile-input suite: slow by design, left out of make test-fast
]


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
    outcome = read_hostile_tree(
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
    outcome = read_hostile_tree(
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
    outcome = read_hostile_tree(
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
    outcome = read_hostile_tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/env.py": Link("/proc/self/environ")},
        "pkg.env:build",
    )
    refused(outcome, "pkg/env.py", "a link that leads out of the folder")


def test_a_link_to_another_module_of_the_package_is_followed(tmp_path: Path) -> None:
    outcome = read_hostile_tree(
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
    outcome = read_hostile_tree(tmp_path, files, "a.b.c.d.registry:build")
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--token")["default"] == {"unevaluated": "......settings.TOKEN"}


@pytest.mark.parametrize("target", ["../x:build", "x/../x:build", "..:build", "/etc/passwd:b"])
def test_a_target_that_is_not_a_module_name_reads_no_file(tmp_path: Path, target: str) -> None:
    (tmp_path / "x.py").write_text(f"TOKEN = {FILE_SECRET!r}\n")
    (tmp_path / "x").mkdir()
    result = run_cli_in_process("export", "--registry", target, "--static", cwd=tmp_path)
    assert result.code == 2 and "cannot find the source of module" in result.err
    assert FILE_SECRET not in result.err + result.out


def test_module_names_that_are_not_python_names_are_never_looked_for(tmp_path: Path) -> None:
    from argmatrix.loaders.static.python.module_files import find_module_file

    (tmp_path / "x").mkdir()
    (tmp_path / "x.py").write_text("")
    assert find_module_file("x", [str(tmp_path)]) == tmp_path / "x.py"
    for name in ("x/../x", "..", "x..x", "", "x.", " x"):
        assert find_module_file(name, [str(tmp_path)]) is None, name


# Keep the harness honest: the cases above would pass vacuously if the secret never reached
# anything. Without the link, the same registry publishes the file's value.
def test_the_same_registry_without_a_link_shows_the_value(tmp_path: Path) -> None:
    outcome = read_hostile_tree(
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
# (or hours) with a step or two counted per pass of a loop. Now each stops within budget (the
# steps, or the processor-time backstop: both stop it within the 5 s every read is held to).

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
    stopped(read_hostile(tmp_path, source), "budget exceeded")


def test_a_comprehension_in_a_loop_of_a_function_of_many_names(tmp_path: Path) -> None:
    # Every comprehension copied the function's scope.
    names = "".join(f"v{i} = {i}\n" for i in range(10_000))
    stopped(
        read_hostile(tmp_path, builder(names + "while True:\n    [0 for _ in ()]")),
        "budget exceeded",
    )


def test_an_undecided_condition_in_a_loop_of_a_function_of_many_names(tmp_path: Path) -> None:
    # Both branches are read: the scope was copied and compared name by name.
    names = "".join(f"v{i} = {i}\n" for i in range(10_000))
    body = names + "while True:\n    if os.sep:\n        pass"
    stopped(read_hostile(tmp_path, builder(body)), "budget exceeded")


def test_ninety_nested_conditions_at_the_top_of_a_module(tmp_path: Path) -> None:
    # Found: the names a top-level statement binds were collected by walking every statement
    # nested in it once for each block around it (2**90 walks); the read never ended.
    nested = "".join("    " * i + "if True:\n" for i in range(90)) + "    " * 90 + "X = 1\n"
    source = nested + "import argparse\n\ndef build():\n    p = argparse.ArgumentParser()\n"
    source += "    p.add_argument('--x', default=X)\n    return p\n"
    assert read_hostile(tmp_path, source).argument("--x")["default"] == 1


def test_a_large_failing_statement_in_a_loop(tmp_path: Path) -> None:
    # Whether it calls the parser was found by walking it again at every pass.
    items = ", ".join(["1"] * 50_000)
    body = f"while True:\n    value = os.getcwd() + [{items}]"
    stopped(read_hostile(tmp_path, builder(body)), "budget exceeded")


def test_a_large_helper_called_in_a_loop(tmp_path: Path) -> None:
    # Whether the helper builds a parser was found by walking it again at every call.
    helper = "\n\ndef helper(x):\n" + "".join(f"    v{i} = x\n" for i in range(20_000))
    stopped(
        read_hostile(tmp_path, builder("while True:\n    helper(1)", before=helper)),
        "budget exceeded",
    )


def test_a_large_closure_handed_on_in_a_loop(tmp_path: Path) -> None:
    # Whether a local function reaches the parser is found by walking it: at every call it is
    # handed to code static reading does not follow, within the budget.
    closure = "def more():\n" + "".join(f"    v{i} = parser\n" for i in range(20_000))
    body = closure + "while True:\n    os.register_at_fork(after_in_child=more)"
    stopped(read_hostile(tmp_path, builder(body)), "budget exceeded")


def test_a_large_module_refused_before_it_is_parsed(tmp_path: Path) -> None:
    # 1.3 million statements: Python's parser alone took 25 s, and it cannot be interrupted.
    line = stopped(read_hostile(tmp_path, "x = 1\n" * 1_300_000 + builder("pass")), "step budget")
    assert "parsing this module would take about" in line


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("x = " + "1+" * 2_000_000 + "1\n", id="a sum of 2 million terms"),
        pytest.param("x = f'" + "{a}" * 80_000 + "'\n", id="an f-string of 80,000 fields"),
        pytest.param("x = (" + "lambda: 0, " * 300_000 + ")\n", id="300,000 lambdas"),
        pytest.param("x = (" + "a[1], " * 600_000 + ")\n", id="600,000 subscripts"),
        pytest.param("x\n" * 1_000_000, id="a million lines"),
    ],
)
def test_a_module_too_costly_to_parse(tmp_path: Path, source: str) -> None:
    stopped(read_hostile(tmp_path, source + builder("pass")), "parsing this module would take")


def test_a_large_string_literal_costs_nothing_to_parse(tmp_path: Path) -> None:
    prose = "the quick (brown) fox, jumps: over the lazy dog; " * 40_000  # 2 MB
    outcome = read_hostile(tmp_path, builder(f"parser.add_argument('--a', help={prose!r})"))
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
    outcome = read_hostile_tree(
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
    outcome = read_hostile_tree(
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
    stopped(read_hostile(tmp_path, builder(body)), "budget")


def test_a_format_string_of_many_fields_counts_each_field(tmp_path: Path) -> None:
    body = """
    template = "{}" * 300_000
    values = [1] * 300_000
    while True:
        text = template.format(*values)
    """
    stopped(read_hostile(tmp_path, builder(body)), "budget")


# ------------------------------------------------------------------ values that repeat values
# `a = ["x" * 1000] * 1000; b = [a] * 1000` builds 2,000 items that hold a billion characters:
# every operation that goes through a value in depth (text, comparison, hash, sort, export)
# took minutes or gigabytes. Each now weighs the value first, counting every repetition.

NESTED = """
    a = ["x" * 1000] * 1000
    b = [a] * 1000
    c = [b] * 1000
"""
NESTED_TUPLES = """
    a = tuple(range(1000))
    b = (a,) * 1000
    c = (b,) * 1000
"""


@pytest.mark.parametrize(
    "use",
    [
        pytest.param('parser.add_argument("--a", default=c)', id="exported as a default"),
        pytest.param('parser.add_argument("--a", choices=c)', id="choices argparse writes"),
        pytest.param('parser.add_argument("--a", help=str(c))', id="str()"),
        pytest.param('parser.add_argument("--a", help=f"{c}")', id="an f-string"),
        pytest.param('parser.add_argument("--a", help="%s" % (c,))', id="%-format"),
        pytest.param('parser.add_argument("--a", help="{}".format(c))', id="str.format"),
        pytest.param("d = [[list(a)] * 1000] * 1000\nsame = c == d", id="a comparison"),
        pytest.param("found = [list(a)] in b", id="membership"),
        pytest.param("ordered = sorted([c, [[list(a)] * 1000] * 1000])", id="a sort"),
        pytest.param("largest = max(c, [[list(a)] * 1000] * 1000)", id="max"),
        pytest.param("where = c.index([[list(a)] * 1000] * 1000)", id="list.index"),
        pytest.param("helper(c)", id="a call that settles its arguments"),
    ],
)
def test_a_value_that_repeats_a_large_value(tmp_path: Path, use: str) -> None:
    before = "\n\ndef helper(value):\n    return argparse.ArgumentParser()\n"
    outcome = read_hostile(tmp_path, builder(textwrap.dedent(NESTED) + use, before=before))
    stopped(outcome, "size budget")


@pytest.mark.parametrize(
    "use",
    [
        pytest.param("members = {c}", id="a set"),
        pytest.param("members = set([c])", id="set()"),
        pytest.param("table = {c: 1}", id="a dict key"),
        pytest.param("table = dict([(c, 1)])", id="dict()"),
        pytest.param("table = dict.fromkeys([c])", id="dict.fromkeys"),
        pytest.param("table = {}\ntable[c] = 1", id="an item assigned"),
        pytest.param("found = {1: 2}.get(c)", id="dict.get"),
        pytest.param("found = c in {1: 2}", id="membership in a dict"),
    ],
)
def test_a_hash_of_a_tuple_that_repeats_a_large_tuple(tmp_path: Path, use: str) -> None:
    stopped(read_hostile(tmp_path, builder(textwrap.dedent(NESTED_TUPLES) + use)), "size budget")


def test_a_value_grown_after_it_was_repeated(tmp_path: Path) -> None:
    # The repetition was small when it was made; the list inside it grows afterwards.
    body = """
    a = []
    b = [a] * 1000
    c = [b] * 1000
    for _ in range(2000):
        a.append(1)
    parser.add_argument("--a", default=c)
    """
    stopped(read_hostile(tmp_path, builder(body)), "size budget")


def test_a_percent_format_that_repeats_one_large_value(tmp_path: Path) -> None:
    body = """
    text = "x" * 900_000
    parser.add_argument("--a", help="%(t)s" * 1000 % {"t": text})
    """
    stopped(read_hostile(tmp_path, builder(body)), "size budget")


def test_large_values_used_once_are_fine(tmp_path: Path) -> None:
    body = """
    names = ["name-%d" % i for i in range(5_000)]
    table = {(i, str(i)): i for i in range(5_000)}
    ordered = sorted(names, key=lambda n: n[::-1])
    parser.add_argument("--a", choices=names, default=names[0])
    parser.add_argument("--b", default=len(table), help=f"{names[:3]}")
    """
    outcome = read_hostile(tmp_path, builder(body + "parser.add_argument('--last', default=1)"))
    assert outcome.export.code == 0, outcome.export.err
    assert len(outcome.argument("--a")["choices"]) == 5_000
    assert outcome.argument("--b")["help"] == "['name-0', 'name-1', 'name-2']"


def test_the_sections_of_a_helper_in_a_large_module_need_no_second_parse(tmp_path: Path) -> None:
    # A helper of a module read one statement at a time: the comment reader parsed the whole
    # module (900 KB of statements: seconds) after the read, outside its budget.
    helpers = (
        "def add(parser):\n    # Tuning\n    parser.add_argument('--x', default=1)\n"
        + "x\n" * 450_000
    )
    registry = (
        "import argparse\nfrom .helpers import add\n\n\ndef build():\n"
        "    parser = argparse.ArgumentParser(prog='hostile')\n    add(parser)\n"
        "    parser.add_argument('--last', default=1)\n    return parser\n"
    )
    outcome = read_hostile_tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/registry.py": registry, "pkg/helpers.py": helpers},
        "pkg.registry:build",
    )
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--x")["section"] == "Tuning"


# ------------------------------------------------------------------ argparse's own work
# The replay hands plain values to argparse, which does work of its own with them.


@pytest.mark.parametrize(
    ("body", "which"),
    [
        pytest.param('parser.add_argument("--a", nargs=10**8)', "size budget", id="nargs=10**8"),
        pytest.param(
            'parser.add_argument("--a", default="x" * 900_000, help="%(default)s" * 50_000)',
            "size budget",
            id="a help repeating a large default",
        ),
        pytest.param(
            'parser.add_argument("--a", help="%(help)s" * 100_000)',
            "size budget",
            id="a help repeating itself",
        ),
        pytest.param(
            """
            base = argparse.ArgumentParser(add_help=False, conflict_handler="resolve")
            for i in range(2_000):
                base.add_argument("--o" + str(i))
            child = argparse.ArgumentParser(parents=[base] * 3_000, conflict_handler="resolve")
            """,
            "budget exceeded",
            id="3,000 copies of a parent",
        ),
        pytest.param(
            "rows = list(zip(*[list(range(20_000))] * 100))",
            "size budget",
            id="zip of 100 columns",
        ),
    ],
)
def test_work_argparse_or_the_model_does_with_plain_values(
    tmp_path: Path, body: str, which: str
) -> None:
    stopped(read_hostile(tmp_path, builder(textwrap.dedent(body))), which)


def test_fifty_thousand_aliases_of_a_subcommand(tmp_path: Path) -> None:
    # The model gathered the aliases one tuple copy at a time: 28 s for 100,000. 50,000 keep a
    # quadratic cost visible (7 s) and a linear read well inside the processor-time backstop
    # under coverage tracing, which slows every step about threefold.
    body = """
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", aliases=["r%d" % i for i in range(50_000)])
    """
    outcome = read_hostile(tmp_path, builder(body), generate=False)
    assert outcome.export.code == 0, outcome.export.err
    (run,) = outcome.registry["subcommands"]
    assert run["name"] == "run" and len(run["aliases"]) == 50_000


def test_bytes_percent_formatting_is_kept_as_source_text(tmp_path: Path) -> None:
    body = """
    parser.add_argument("--a", default=b"%999999999s" % (b"a",))
    parser.add_argument("--last", default=1)
    """
    outcome = read_hostile(tmp_path, builder(body))
    assert outcome.export.code == 0, outcome.export.err
    assert "999999999s" in unevaluated(outcome, "--a", "default")


def test_an_action_that_cannot_be_computed_is_reported(tmp_path: Path) -> None:
    body = """
    parser.add_argument("--a", action=argparse.FileType("w"))
    parser.add_argument("--last", default=1)
    """
    outcome = read_hostile(tmp_path, builder(body))
    assert outcome.export.code == 0, outcome.export.err
    assert any("--a: action kept as source text" in w for w in outcome.warnings())


# ------------------------------------------------------------------ the budget itself


@pytest.mark.parametrize("helpers", [5, 6, 7, 8])
def test_a_loop_deep_in_helpers_stops_in_time(tmp_path: Path, helpers: int) -> None:
    # CPython allocates and frees a chunk of its frame stack each time a recursion crosses a
    # chunk's end: at some depths a loop ran four times slower per step than elsewhere. The
    # processor-time backstop stops what the step count underrates.
    chain = "".join(f"def h{i}(p):\n    h{i + 1}(p)\n\n\n" for i in range(helpers))
    chain += f"def h{helpers}(p):\n    while True:\n        y = -(-(-(1)))\n"
    stopped(read_hostile(tmp_path, builder("h0(parser)", before="\n\n" + chain)), "budget exceeded")


def test_the_time_backstop_counts_the_reading_threads_processor_time() -> None:
    # A loaded machine (or a host's other threads) must not stop a legitimate read.
    from argmatrix.loaders.static.python.budget import Budget, BudgetExceeded, Limits

    budget = Budget(Limits(seconds=0.2))  # wider while traced (coverage): budget.seconds
    time.sleep(budget.seconds * 2)  # waiting is not working
    budget.check_time()
    deadline = time.thread_time() + budget.seconds + 0.3
    while time.thread_time() < deadline:
        pass
    with pytest.raises(BudgetExceeded, match=r"the time budget exceeded .* of processor time"):
        budget.check_time()


def _steps_of(target: str, base_dir: Path | None, search_path: list[str] | None) -> int:
    from argmatrix.loaders.static import loader as static_loader
    from argmatrix.loaders.static import reader as static
    from argmatrix.loaders.static.python import budget as static_budget

    budgets: list[static_budget.Budget] = []

    class Counted(static_budget.Budget):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            budgets.append(self)

    original = static.Budget, static_loader.Budget
    static.Budget = static_loader.Budget = Counted  # type: ignore[misc]
    try:
        static.load_static(target, base_dir, search_path)
    finally:
        static.Budget, static_loader.Budget = original  # type: ignore[misc]
    return budgets[0].steps


def test_real_and_large_registries_stay_far_below_the_step_budget(tmp_path: Path) -> None:
    from argmatrix.loaders.static.python.budget import DEFAULT_LIMITS

    (tmp_path / "synthetic.py").write_text(bench_synth().registry_source(10_000))
    synthetic = _steps_of("synthetic:add_cli_args", tmp_path, [])
    sglang = _steps_of("sglang.srt.server_args:ServerArgs.add_cli_args", None, None)
    assert sglang < 0.2 * DEFAULT_LIMITS.steps
    assert synthetic < 0.65 * DEFAULT_LIMITS.steps


def test_many_large_modules_that_need_no_parsing(tmp_path: Path) -> None:
    # 7 MB of comment each: nothing to parse, but each is read, held and scanned.
    files: dict[str, str | Link] = {"pkg/__init__.py": ""}
    comment = "#" + "x" * (7 * 1024 * 1024) + "\nX = 1\n"
    for index in range(8):
        files[f"pkg/m{index}.py"] = comment
    imports = "".join(f"from .m{index} import X as x{index}\n" for index in range(8))
    outcome = read_hostile_tree(
        tmp_path, {**files, "pkg/registry.py": builder(imports)}, "pkg.registry:build"
    )
    refused(outcome, "pkg/m", "the step budget exceeded")


def test_a_form_feed_does_not_shift_the_comment_sections() -> None:
    # Python counts lines at \r and \n only; str.splitlines also splits at \f, \x1c, \u2028...
    from argmatrix.loaders.sections import section_of

    source = "def build(p):\n    x = '\f'  # \f\u2028\n    # Tuning\n    p.add_argument('--a')\n"
    assert section_of(source, 4, 1) == "Tuning"


# ------------------------------------------------------------------ nothing dropped in silence


def test_a_parser_class_that_adds_arguments_itself_is_reported(tmp_path: Path) -> None:
    # `--common` was missing from the parser and the subcommand without a word. The parser
    # made in the source is now an object whose `__init__` is followed; the subcommand's,
    # which argparse makes from `parser_class=`, is not, and that is said.
    top = """
class CommonParser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument("--common", default=1)
"""
    body = """
    parser = CommonParser(prog="hostile")
    commands = parser.add_subparsers(parser_class=CommonParser)
    commands.add_parser("run")
    """
    outcome = read_hostile(tmp_path, builder(body, before=top))
    # the subcommand's parser lacks what `__init__` adds: the read stops there, never a part
    line = refused(outcome, "hostile_registry.py:", "`CommonParser` adds to every parser it makes")
    assert "static reading stopped" in line


def test_a_package_without_init_is_not_joined_with_folders_elsewhere(tmp_path: Path) -> None:
    # Python joins every folder named `shared` on the path into one namespace package: a pull
    # request's `shared/` (no __init__.py) reached `shared/secret.py` of another folder on the
    # search path (a `registry.search_path` of argmatrix.yaml, or an installed package).
    from argmatrix.loaders.static.reader import load_static

    elsewhere = tmp_path / "elsewhere" / "shared"
    elsewhere.mkdir(parents=True)
    (elsewhere / "secret.py").write_text(f"TOKEN = {FILE_SECRET!r}\n")
    project = tmp_path / "project" / "shared"
    project.mkdir(parents=True)
    (project / "registry.py").write_text(PACKAGE_BUILDER.replace(".settings", ".secret"))
    parser = load_static(
        "shared.registry:build", tmp_path / "project", [str(tmp_path / "elsewhere")]
    ).parser
    (token,) = [a for a in parser._actions if a.option_strings == ["--token"]]
    assert str(token.default) == "shared.secret.TOKEN"  # a name, never the value


# ------------------------------------------------------------------ memory


def _peak_memory_of_a_read(tmp_path: Path, source: str) -> tuple[int, str]:
    """Peak resident memory (MB) of a process that reads `source` statically, and its stderr
    (the high-water mark of its own memory: getrusage's counts the forking parent's too)."""
    import subprocess
    import sys

    (tmp_path / "memory_registry.py").write_text(source)
    script = (
        "import contextlib, io\n"
        "from argmatrix.cli.main import main\n"
        "err = io.StringIO()\n"
        "with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['export', '--registry', 'memory_registry:build', '--static'])\n"
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
        "print(int(peak.split()[1]) // 1024)\n"
        "print(err.getvalue(), end='')\n"
    )
    env = {**os.environ, "ARGMATRIX_NO_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    peak, _, err = done.stdout.partition("\n")
    return int(peak), err


def test_lists_of_new_strings_kept_count_toward_the_total_size(tmp_path: Path) -> None:
    # Each split made 300,000 new strings and counted 28,000 steps: 325 MB within the budget.
    body = """
    text = "ab " * 300_000
    kept = []
    while True:
        kept.append(text.split())
    """
    peak, err = _peak_memory_of_a_read(tmp_path, builder(body).replace("{canary!r}", "''"))
    assert "the total size budget exceeded" in err, err
    assert peak < 200, f"{peak} MB"


def test_a_traced_read_has_a_wider_time_backstop_and_the_same_steps() -> None:
    # Coverage (make test) or a debugger makes every step slower: a registry that reads within
    # the backstop untraced must not be stopped by it when traced. Steps do not change.
    from argmatrix.loaders.static.python.budget import TRACED_SLOWDOWN, Budget, Limits

    tracer = sys.gettrace()
    try:
        sys.settrace(None)
        untraced = Budget(Limits(seconds=2.0, steps=100))
        sys.settrace(lambda *_: None)
        traced = Budget(Limits(seconds=2.0, steps=100))
    finally:
        sys.settrace(tracer)
    monitored = sys.version_info >= (3, 12) and any(
        sys.monitoring.get_tool(tool) is not None for tool in range(6)
    )
    assert untraced.seconds == (2.0 * TRACED_SLOWDOWN if monitored else 2.0)
    assert traced.seconds == 2.0 * TRACED_SLOWDOWN
    assert traced.limits.steps == untraced.limits.steps == 100
