"""Static reading from the inside: comprehensions give what Python gives, the budget stops one
that would not end, and what a read learns goes away with it (a long-lived process such as
`mkdocs serve` reads the registry again at every change)."""

from __future__ import annotations

import argparse
import ast
import functools
import gc
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.python.budget import Limits
from argmatrix.loaders.static.reader import (
    StaticLoader,
    load_static,
    read_target,
    stop_if_incomplete,
)
from argmatrix.loaders.static.source import SourceModule

MODULE = "comprehension_cli"

# Module-level names the comprehensions go over: a list, pairs, a dict, a string.
PRELUDE = """\
import argparse

MODES = ["fast", "x", "slow", "x"]
PAIRS = [("a", 1), ("b", 2), ("c", 3)]
TABLE = {"gpu": 2, "cpu": 1, "tpu": 4}
WORD = "static"
"""

# One `default=` each; what Python itself gives for it is what the read must give.
COMPREHENSIONS = {
    "a list with a condition": '[m for m in MODES if m != "x"]',
    "a dict from pairs": "{k: v for k, v in PAIRS}",
    "a set": "{len(m) for m in MODES}",
    "a dict over a dict's items": "{v: k for k, v in TABLE.items() if v > 1}",
    "two for and two if clauses": '[(i, c) for i in range(4) if i % 2 for c in WORD if c > "m"]',
    "a later clause over an earlier one": "[c for m in MODES if m != 'x' for c in m if c in 'ae']",
    "a comprehension inside a comprehension": "[[i * j for j in range(i)] for i in range(4)]",
    "a comprehension as a dict's values": "{m: [i for i in range(len(m))] for m in MODES[:2]}",
    "over a string": "[c.upper() for c in WORD if c != 's']",
    "over a dict": "[k for k in TABLE if TABLE[k] > 1]",
    "a conditional expression as the element": "['on' if v > 1 else 'off' for v in TABLE.values()]",
    "a generator summed": "sum(v * 2 for v in TABLE.values() if v > 1)",
    "a generator sorted, with a key": "sorted((m for m in MODES), key=lambda m: (len(m), m))",
    "a generator made a tuple": "tuple(p[0] for p in PAIRS)",
    "a generator of pairs made a dict": "dict((c, i) for i, c in enumerate(WORD))",
    "unpacking enumerate": "[f'{i}:{m}' for i, m in enumerate(MODES)]",
    "over zip": "[a * b for a, b in zip(range(5), range(2, 7))]",
    "any and all": "(any(m == 'x' for m in MODES), all(len(m) > 3 for m in MODES))",
}

# Comprehensions that refer to names of the functions they are in.
BUILDER = """

def add_prefixed(parser, prefix):
    parser.add_argument("--prefixed", choices=[prefix + m for m in MODES if m != "x"])


def build():
    parser = argparse.ArgumentParser()
    scale = 10
    skip = "slow"
    i = "the builder's own i"
    parser.add_argument("--scaled", default=[i * scale for i in range(3)])
    parser.add_argument("--outer-i", default=i)
    pick = lambda prefix: [prefix + m for m in MODES if m != skip]
    parser.add_argument("--picked", choices=pick("--"))
    parser.add_argument("--joined", help=", ".join(str(n * scale) for n in range(3)))

    def add_more(inner):
        inner.add_argument("--closure", default={m: scale for m in MODES if m != skip})

    add_more(parser)
    add_prefixed(parser, "no-")
ARGUMENTS    return parser
"""


def registry_source() -> str:
    arguments = "".join(
        f"    parser.add_argument('--c{index}', default={expression})\n"
        for index, expression in enumerate(COMPREHENSIONS.values())
    )
    return PRELUDE + BUILDER.replace("ARGUMENTS", arguments)


def arguments_of(parser: argparse.ArgumentParser) -> dict[str, tuple[Any, Any, Any]]:
    return {a.dest: (a.default, a.choices, a.help) for a in parser._actions if a.dest != "help"}


def read(folder: Path, source: str, limits: Limits | None = None) -> argparse.ArgumentParser:
    (folder / f"{MODULE}.py").write_text(source, encoding="utf-8")
    return load_static(f"{MODULE}:build", folder, [], limits).parser


def run_in_python(folder: Path, source: str) -> argparse.ArgumentParser:
    """What Python itself builds from the same source (written by this test: safe to run)."""
    namespace: dict[str, Any] = {"__name__": MODULE}
    exec(compile(source, str(folder / f"{MODULE}.py"), "exec"), namespace)
    parser: argparse.ArgumentParser = namespace["build"]()
    return parser


def test_comprehensions_give_what_python_gives(tmp_path: Path) -> None:
    source = registry_source()
    read_statically = arguments_of(read(tmp_path, source))
    by_python = arguments_of(run_in_python(tmp_path, source))
    assert read_statically.keys() == by_python.keys()
    names = dict(zip((f"c{i}" for i in range(len(COMPREHENSIONS))), COMPREHENSIONS, strict=True))
    for dest, expected in by_python.items():
        assert read_statically[dest] == expected, names.get(dest, dest)


def test_comprehensions_see_the_names_of_the_functions_they_are_in(tmp_path: Path) -> None:
    found = arguments_of(read(tmp_path, registry_source()))
    assert found["scaled"][0] == [0, 10, 20]
    assert found["outer_i"][0] == "the builder's own i"  # the comprehension's `i` stays inside
    assert found["picked"][1] == ["--fast", "--x", "--x"]  # a lambda's comprehension, `skip`
    assert found["closure"][0] == {"fast": 10, "x": 10}  # a nested function's, `scale`
    assert found["prefixed"][1] == ["no-fast", "no-slow"]  # a helper's parameter
    assert found["joined"][2] == "0, 10, 20"


def source_with_default(expression: str) -> str:
    return (
        "import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
        f"    parser.add_argument('--huge', default={expression})\n    return parser\n"
    )


SMALL = Limits(steps=200_000, value_size=100_000)
ROOMY = Limits(steps=2_000_000, value_size=100_000)
FRUGAL = Limits(steps=2_000_000, value_size=100_000, total_size=300_000)


@pytest.mark.hostile  # a budget stopping a runaway read: slow by design
@pytest.mark.parametrize(
    ("expression", "limits", "budget"),
    [
        pytest.param(
            "[a * b for a in range(10**5) for b in range(10**5)]", SMALL, "step", id="endless"
        ),
        pytest.param("[0 for a in range(999) for b in range(999)]", SMALL, "size", id="a list"),
        pytest.param(
            "{(a, b): 0 for a in range(999) for b in range(999)}", ROOMY, "size", id="a dict"
        ),
        # A generator is built as a list: one that Python would only sum is as large as that.
        pytest.param("sum(a for a in range(10**5) for b in 'xy')", ROOMY, "size", id="a generator"),
        pytest.param(
            "[[b for b in range(999)] for a in range(10**4)]", FRUGAL, "total size", id="nested"
        ),
    ],
)
def test_the_budget_stops_a_comprehension_where_it_is(
    tmp_path: Path, expression: str, limits: Limits, budget: str
) -> None:
    with pytest.raises(ArgmatrixError) as caught:
        read(tmp_path, source_with_default(expression), limits)
    problem = caught.value.problems[0]
    assert problem.message.startswith(f"static reading stopped: the {budget} budget exceeded")
    assert problem.file == str(tmp_path / f"{MODULE}.py")
    assert problem.line == 6  # the line of the comprehension
    assert problem.fix and "registry.mode: live" in problem.fix


@pytest.mark.hostile  # a budget stopping a runaway read: slow by design
def test_the_default_budget_stops_a_comprehension_of_a_trillion_items(tmp_path: Path) -> None:
    expression = "[a * b for a in range(10**6) for b in range(10**6)]"
    with pytest.raises(ArgmatrixError) as caught:
        read(tmp_path, source_with_default(expression))
    assert "budget exceeded" in caught.value.problems[0].message
    assert caught.value.problems[0].line == 6


# ------------------------------------------------------------------ what one read keeps

# A registry that fills every cache of a read: class values (`Defaults.port`), a class's
# members (the action's `nargs`), stand-in action classes, and the walks that tell whether a
# statement calls the parser or a helper builds one.
PER_READ = """\
import argparse
import os


class Defaults:
    port = 8000
    modes = ["fast", "x", "slow"]


class Pick(argparse.Action):
    def __init__(self, option_strings, dest, nargs=2, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)


class Plain(argparse.Action):
    pass


def describe(value):
    return str(value)


def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=Defaults.port)
    parser.add_argument("--mode", choices=[m for m in Defaults.modes if m != "x"])
    parser.add_argument("--pick", action=Pick)
    parser.add_argument("--plain", action=Plain)
    note = describe(Defaults.port)
    where = os.getcwd()
    return parser
"""
READS = 50


def module_state() -> dict[str, int]:
    """The size of every container kept at module or class level by the loaders, and of every
    `functools` cache there: what a long-lived process would accumulate read after read."""
    sizes: dict[str, int] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("argmatrix.loaders"):
            continue
        holders: list[tuple[str, Mapping[str, Any]]] = [(name, vars(module))]
        holders += [
            (f"{name}.{key}", vars(value))
            for key, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == name
        ]
        for prefix, namespace in holders:
            for key, value in list(namespace.items()):
                if isinstance(value, (dict, list, set)):
                    sizes[f"{prefix}.{key}"] = len(value)
                elif isinstance(value, functools._lru_cache_wrapper):
                    sizes[f"{prefix}.{key}"] = value.cache_info().currsize
    return sizes


def live(kind: type | tuple[type, ...]) -> int:
    gc.collect()
    return sum(1 for item in gc.get_objects() if isinstance(item, kind))


def read_once(folder: Path) -> None:
    assert load_static(f"{MODULE}:build", folder, []).parser.get_default("port") == 8000


def test_a_read_fills_caches_of_its_own(tmp_path: Path) -> None:
    (tmp_path / f"{MODULE}.py").write_text(PER_READ, encoding="utf-8")
    loader = StaticLoader([str(tmp_path)], MODULE, prog=MODULE)
    read_target(loader, f"{MODULE}:build")
    assert loader.class_values and loader.class_members  # `Defaults.port`, Pick's __init__
    assert loader._walked  # does `describe(...)` build a parser, does `os.getcwd()` call one
    assert loader.recording.placeholders  # the stand-in for `Plain` (Pick's __init__ is run)


@pytest.mark.slow
def test_repeated_reads_keep_nothing_at_module_level(tmp_path: Path) -> None:
    (tmp_path / f"{MODULE}.py").write_text(PER_READ, encoding="utf-8")
    for _ in range(3):  # what the first reads set up once (imports, compiled patterns)
        read_once(tmp_path)
    state, nodes, loaders = module_state(), live(ast.AST), live((StaticLoader, SourceModule))
    for _ in range(READS):
        read_once(tmp_path)
    assert live((StaticLoader, SourceModule)) == loaders  # each read's went away with it
    grown = {k: (state.get(k, 0), v) for k, v in module_state().items() if v != state.get(k, 0)}
    assert grown == {}
    # A cache keyed by a node keeps the node, and its module's tree, alive: one read's trees
    # are kept for the comment sections (bounded), never one per read.
    assert live(ast.AST) == nodes


# A helper handed the parser, named so long that what is said of it is cut to the length of one
# diagnostic: its wording no longer ends as it would.
LONG_HELPER = "add_" + "x" * 420
HANDED_AWAY = f"""\
import argparse


def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="h")
    {LONG_HELPER}(parser)
    return parser
"""


def test_whether_a_read_stops_is_said_by_the_reader_not_read_from_the_wording(
    tmp_path: Path,
) -> None:
    (tmp_path / f"{MODULE}.py").write_text(HANDED_AWAY, encoding="utf-8")
    read = load_static(f"{MODULE}:build", tmp_path, [])
    (missed,) = read.stops
    assert missed.line == 7 and missed.message.endswith("...")  # cut short, still a stop
    with pytest.raises(ArgmatrixError) as caught:
        stop_if_incomplete(read)
    assert caught.value.problems[0].line == 7
    reworded = replace(read, diagnostics=(replace(missed, stops=False),))
    stop_if_incomplete(reworded)  # the same words, not a stop: the read goes on


def test_a_long_tuple_weighs_the_same_every_time_and_one_holding_a_list_as_it_is() -> None:
    """A tuple of no containers is walked once per read (a registry may pass its fields
    around a thousand times); one holding a list is walked again, for the list may grow."""
    from argmatrix.loaders.static.python.budget import Budget, BudgetExceeded
    from argmatrix.loaders.static.python.values import weigh

    budget = Budget(Limits(value_size=1_000))
    flat = tuple(f"field{i}" for i in range(100))
    growing: list[int] = []
    holder = (growing, *range(99))
    with budget.active():
        first = weigh(flat)
        steps = budget.steps
        assert (weigh(flat), budget.steps) == (first, 2 * steps)  # counted as if walked again
        assert weigh(holder) == 102
        growing.extend(range(2_000))
        with pytest.raises(BudgetExceeded):
            weigh(holder)
