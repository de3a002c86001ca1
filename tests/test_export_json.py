"""`argmatrix export` and `snapshot` write JSON with an encoder of their own (`json_text`, faster
than `json.dumps` with an indent): its text is `json.dumps(indent=2, ensure_ascii=False)`'s, byte
for byte, for every value."""

from __future__ import annotations

import json
import math
import re
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from argmatrix.errors import json_for_log
from argmatrix.loaders.snapshot import json_text


def _dumped(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_TEXT = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('"\\\x00\x1f\u2028é✓'))
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_TEXT, inner, max_size=4)
    ),
    max_leaves=30,
)


@given(_VALUES)
@pytest.mark.slow
def test_every_json_value_is_written_as_json_writes_it(value: Any) -> None:
    assert json_text(value) == _dumped(value)


def test_what_json_writes_by_its_own_rules_is_left_to_it() -> None:
    class Text(str):
        pass

    for value in (
        {1: "a", None: "b", 2.5: "c", False: "d"},  # keys json turns into text
        {"a": Text("b")},
        OrderedDict(a=[1, 2]),
        [math.nan, -math.inf, 1e300, -0.0],
    ):
        assert json_text(value) == _dumped(value)


def test_a_value_json_cannot_write_fails_as_in_json() -> None:
    for value in ({"a": {1, 2}}, [object()]):
        try:
            _dumped(value)
        except TypeError as expected:
            message = str(expected)
        try:
            json_text(value)
        except TypeError as found:
            assert str(found) == message
        else:
            raise AssertionError("written")


_RAW_FOR_A_LOG = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


@given(st.text(alphabet=st.sampled_from("a#[\x7f\x85\u061c\u2028\u2069é\ud800")) | st.text())
@example("plain ascii ##[set-output]")
@example("ascii with a DEL \x7f")
def test_exported_text_prints_safely_and_reads_back(text: str) -> None:
    """What export prints (`json_for_log`): no raw character a log must not get, no workflow
    command, and the same value read back; all-ASCII text is searched the fast way."""
    shown = json_for_log(json.dumps({"help": text}, ensure_ascii=False))
    assert _RAW_FOR_A_LOG.search(shown) is None
    assert "##[" not in shown
    assert json.loads(shown) == {"help": text}
