"""Rules the suite keeps about itself: no test depends on the machine's speed.

A bound on work is processor time (`time.process_time`, `helpers.processor_seconds`); the clock
is only read to bound a wait, by `HANG_SECONDS`, which a busy machine never reaches and a hang
always does."""

from __future__ import annotations

import ast

import pytest

from helpers import REPO

CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}


def _reads_the_clock(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in CLOCKS
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "time"
        for call in ast.walk(node)
    )


def _bounds(tree: ast.AST) -> list[tuple[int, str]]:
    """Each comparison of a clock reading with a bound other than HANG_SECONDS."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and _reads_the_clock(node):
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if "HANG_SECONDS" not in names and "deadline" not in names:
                found.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.Assign) and _reads_the_clock(node.value):
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
            names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            if "deadline" in targets and "HANG_SECONDS" not in names:
                found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.slow
def test_no_test_bounds_the_clock_by_anything_but_a_hang() -> None:
    offending = [
        f"{path.relative_to(REPO)}:{line}: {text}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        if "fixtures" not in path.parts
        for line, text in _bounds(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offending == []


def test_the_rule_finds_a_wall_clock_bound() -> None:
    bad = "import time\nstart = time.monotonic()\nassert time.monotonic() - start < 2\n"
    good = "import time\nstart = time.monotonic()\nassert time.monotonic() - start < HANG_SECONDS\n"
    assert [line for line, _ in _bounds(ast.parse(bad))] == [3]
    assert _bounds(ast.parse(good)) == []
