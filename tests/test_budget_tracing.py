"""The processor-time backstop of static reading grows under a tracer (coverage, a debugger),
which slows every step about threefold; the step budget, the real bound, does not."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from argmatrix.loaders.static.budget import TRACED_SLOWDOWN, Limits, processor_seconds


@pytest.fixture
def untraced() -> Iterator[None]:
    before = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(before)


def _tracer(frame: FrameType, event: str, arg: Any) -> None:
    return None


def test_the_backstop_is_the_limit_when_nothing_traces(untraced: None) -> None:
    assert processor_seconds(Limits(seconds=4.0)) == 4.0


def test_the_backstop_grows_under_a_tracer(untraced: None) -> None:
    sys.settrace(_tracer)
    try:
        seconds = processor_seconds(Limits(seconds=4.0))
    finally:
        sys.settrace(None)
    assert seconds == 4.0 * TRACED_SLOWDOWN


def test_a_read_under_a_tracer_gets_the_longer_backstop(untraced: None) -> None:
    from argmatrix.loaders.static.budget import Budget

    assert Budget(Limits(seconds=4.0)).seconds == 4.0
    sys.settrace(_tracer)
    try:
        traced_budget = Budget(Limits(seconds=4.0))
    finally:
        sys.settrace(None)
    assert traced_budget.seconds == 4.0 * TRACED_SLOWDOWN
