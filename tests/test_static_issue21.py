"""Idioms static reading once read wrong with exit 0 and nothing said (issue 21). Each fixture
in tests/fixtures/registries/issue21/ is imported live in the test, and static reading gives
the same registry, or says what it could not follow, or stops at the statement."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from argmatrix.errors import ArgmatrixError
from helpers import REGISTRIES, line_of, load

FIXTURE = REGISTRIES / "issue21"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture package; the next static read must not find it."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "issue21"]:
        del sys.modules[name]


def stop_of(target: str) -> str:
    with pytest.raises(ArgmatrixError) as caught:
        load(target, "static")
    (problem,) = caught.value.problems
    assert problem.message.startswith("static reading stopped:")
    return f"{problem.file}:{problem.line}: {problem.message}"


def flags_live(target: str) -> list[str]:
    return [a.flags[0] for a in load(target, "live").arguments]


# ------------------------------------------------------------------ 6: exec, eval, compile


@pytest.mark.parametrize(
    ("target", "statement", "missed"),
    [
        ("issue21.runs_text:build_parser", "exec(", "--from-text"),
        ("issue21.runs_text:build_from_class", "eval(compile(", "--compiled"),
    ],
)
def test_code_given_as_text_stops_the_read_at_its_statement(
    target: str, statement: str, missed: str
) -> None:
    assert missed in flags_live(target)  # Python runs the text: it adds an argument
    where = stop_of(target)
    line = line_of(FIXTURE / "runs_text.py", statement)
    assert where.startswith(f"{FIXTURE / 'runs_text.py'}:{line}: ")
    assert "runs code given as text" in where
