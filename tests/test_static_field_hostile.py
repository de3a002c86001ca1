"""What static reading does for Click and Typer as the field writes them (issue 31), attacked as a
hostile pull request would: runners followed through functions, conditions, decorators of the
project run by the interpreter, constants of other modules. Each read keeps the sandbox's
invariants (helpers.read_hostile_tree): nothing changes on disk or in this process, no canary or
Python repr reaches an output, one located line when refused, and it ends within the budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import read_hostile, stopped

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
