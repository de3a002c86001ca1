"""What static reading does for Click and Typer as the field writes them (issue 31), attacked as a
hostile pull request would: runners followed through functions, conditions, decorators of the
project run by the interpreter, constants of other modules. Each read keeps the sandbox's
invariants (helpers.read_hostile_tree): nothing changes on disk or in this process, no canary or
Python repr reaches an output, one located line when refused, and it ends within the budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import read_hostile, stopped, unevaluated

pytestmark = [pytest.mark.usefixtures("static_canary_environment"), pytest.mark.hostile]

CLICK_HEAD = "import click\n\n@click.command()\n@click.option('--port', type=int)\ndef serve(port):\n    pass\n\n"


def test_functions_that_call_each_other_in_a_circle(tmp_path: Path) -> None:
    """Each function is followed once for the command it may run; the argparse reader, which
    reads the target next, stops at its call depth budget."""
    source = CLICK_HEAD + "def build():\n    a()\n\ndef a():\n    b()\n\ndef b():\n    a()\n"
    stopped(read_hostile(tmp_path, source), "static reading stopped: the call depth budget")


def test_a_long_chain_of_functions_before_the_command(tmp_path: Path) -> None:
    """Followed a few calls deep: a chain of thousands is not walked to its end."""
    chain = "".join(f"def f{i}():\n    f{i + 1}()\n\n" for i in range(5000))
    source = CLICK_HEAD + chain + "def f5000():\n    serve()\n\ndef build():\n    f0()\n"
    stopped(read_hostile(tmp_path, source), "static reading stopped: the call depth budget")


def test_many_calls_in_a_runner(tmp_path: Path) -> None:
    calls = "".join(f"    helper{i % 50}()\n" for i in range(20000))
    helpers = "".join(f"def helper{i}():\n    pass\n\n" for i in range(50))
    source = CLICK_HEAD + helpers + "def build():\n" + calls + "    serve()\n"
    outcome = read_hostile(tmp_path, source)
    assert outcome.export.code in (0, 2)


def test_nested_conditions_around_a_command(tmp_path: Path) -> None:
    """Ninety nested `if`s: each statement is looked at once (a walk that saw a statement once
    per subset of the blocks around it never ended)."""
    nested = "".join("    " * i + "if True:\n" for i in range(90))
    body = "    " * 90 + "build = serve\n"
    source = CLICK_HEAD + nested + body
    outcome = read_hostile(tmp_path, source)
    assert outcome.export.code in (0, 2)


# ------------------------------------------------------------------ decorators of the project


def command_with(decorator: str, helpers: str = "") -> str:
    """A command `build` under `decorator` (a decorator of the project's own, defined in
    `helpers`)."""
    return (
        "import click, functools, os\n\n" + helpers + "\n\n@click.command()\n"
        f"@{decorator}\n@click.option('--port', type=int)\ndef build(port, **kw):\n    pass\n"
    )


@pytest.mark.parametrize(
    ("helpers", "decorator", "said"),
    [
        # An endless loop meets the step budget or the processor-time one first, as the interpreter
        # is fast (coverage tracing slows it threefold): either stops it.
        ("def forever(f):\n    while True:\n        pass\n", "forever", "budget exceeded"),
        ("def again(f):\n    return again(f)\n", "again", "the call depth budget"),
        (
            "def many(f):\n    for i in range(10**6):\n"
            "        f = click.option(f'--o{i}')(f)\n    return f\n",
            "many",
            "budget",
        ),
        (
            "def text(f):\n    exec('f = click.option(\"--x\")(f)')\n    return f\n",
            "text",
            "runs code given as text",
        ),
        ("def odd(f):\n    return 'not a function'\n", "odd", "not one static reading follows"),
    ],
)
def test_a_hostile_decorator_of_the_project_stops_the_read(
    tmp_path: Path, helpers: str, decorator: str, said: str
) -> None:
    stopped(read_hostile(tmp_path, command_with(decorator, helpers)), said)


def test_a_decorator_reading_a_file_keeps_its_source(tmp_path: Path) -> None:
    helpers = (
        "def env(f):\n    return click.option('--token', default=open({canary!r}).read())(f)\n"
    )
    outcome = read_hostile(tmp_path, command_with("env", helpers))
    assert outcome.export.code == 0, outcome.export.err
    assert "open(" in unevaluated(outcome, "--token", "default")


def test_a_decorator_reading_the_environment_gives_the_variable_never_its_value(
    tmp_path: Path,
) -> None:
    helpers = "def env(f):\n    return click.option('--token', default=os.environ['ARGMATRIX_CANARY'])(f)\n"
    outcome = read_hostile(tmp_path, command_with("env", helpers))
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--token")["default"] == {
        "environment": {"variable": "ARGMATRIX_CANARY", "required": True}
    }


@pytest.mark.parametrize(
    "init",
    [
        "    def __init__(self, *a, **k):\n        while True:\n            pass\n",
        "    def __init__(self, *a, **k):\n        super().__init__([str(i) for i in range(10**7)])\n",
        "    def __init__(self, *a, **k):\n        self.__init__(*a, **k)\n",
    ],
)
def test_a_hostile_subclass_of_a_click_type_stops_the_read(tmp_path: Path, init: str) -> None:
    source = (
        "import click\n\nclass Bad(click.Choice):\n" + init + "\n\n@click.command()\n"
        "@click.option('--x', type=Bad(['a']))\ndef build(x):\n    pass\n"
    )
    stopped(read_hostile(tmp_path, source), "static reading stopped")


@pytest.mark.parametrize(
    "init",
    [
        "    def __init__(self, *a, **k):\n        while True:\n            pass\n",
        "    def __init__(self, *a, **k):\n"
        "        k['params'] = [click.Option([f'--o{i}']) for i in range(10**6)]\n"
        "        super().__init__(*a, **k)\n",
    ],
)
def test_a_hostile_command_class_stops_the_read(tmp_path: Path, init: str) -> None:
    source = (
        "import click\n\nclass Bad(click.Command):\n" + init + "\n\n@click.command(cls=Bad)\n"
        "@click.option('--x')\ndef build(x):\n    pass\n"
    )
    stopped(read_hostile(tmp_path, source), "static reading stopped")


def test_helpers_registering_on_each_other_end(tmp_path: Path) -> None:
    """A function handed the group hands it on to another, in a circle: followed a few calls
    deep, then the call is said as one static reading does not follow."""
    source = (
        "import click\n\n@click.group()\ndef build():\n    pass\n\n"
        "def a(group):\n    b(group)\n\ndef b(group):\n    a(group)\n\na(build)\n"
    )
    stopped(read_hostile(tmp_path, source), "hands a Click command or group")


def test_a_module_importing_many_modules_that_register(tmp_path: Path) -> None:
    from helpers import read_hostile_tree

    files: dict[str, str] = {"pkg/__init__.py": ""}
    imports = "".join(f"from pkg import m{i}  # noqa\n" for i in range(300))
    files["pkg/cli.py"] = "import click\n\n@click.group()\ndef build():\n    pass\n\n" + imports
    for i in range(300):
        files[f"pkg/m{i}.py"] = (
            f"from pkg.cli import build\n\n@build.command()\ndef c{i}():\n    pass\n"
        )
    outcome = read_hostile_tree(tmp_path, files, "pkg.cli:build", generate=False)
    assert outcome.export.code in (0, 2)


def test_many_functions_changing_the_command_run_at_import(tmp_path: Path) -> None:
    """Thousands of functions of the module changing the command, each run at import: every
    function body is walked once, and the read stops at the first call."""
    functions = "".join(f"def f{i}():\n    serve.help = 'x{i}'\n\n" for i in range(3000))
    calls = "".join(f"f{i}()\n" for i in range(3000))
    source = CLICK_HEAD + functions + calls + "\ndef build():\n    serve()\n"
    stopped(
        read_hostile(tmp_path, source),
        "static reading stopped: `f0()` runs `f0`, a function registering on or changing the"
        " Click command 'serve'",
    )
