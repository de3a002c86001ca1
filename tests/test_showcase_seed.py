"""The showcase's Ascend manifest, resolved against sglang 0.5.7, says what the Ascend support
page says: tests/fixtures/handwritten/ascend_copied.txt holds every row of that page's facts
(statuses, defaults, options), which the manifest was written from."""

from __future__ import annotations

from typing import Any

import pytest

from argmatrix.config import load_config
from argmatrix.model.registry import python_value
from argmatrix.model.values import value_text
from argmatrix.project import project_from_config
from helpers import REPO
from support_page_text import PageRow, copied_page_rows

# The page's rows for flags sglang 0.5.7 does not have (a misspelling and a removed flag); every
# other row names a real argument.
NOT_IN_THE_REGISTRY = {"--oltp-traces-endpoint", "--disable-tokenizer-batch-encode"}

VALUE_DESCRIPTIONS = ("Type:", "bool flag", "List[", "Optional[")


@pytest.fixture(scope="module")
def export() -> dict[str, Any]:
    config = load_config(REPO / "argmatrix.yaml", REPO)
    return project_from_config(config).export()


def _known_rows(export: dict[str, Any]) -> list[tuple[PageRow, dict[str, Any], dict[str, Any]]]:
    arguments = {flag: a for a in export["registry"]["arguments"] for flag in a["flags"]}
    platform = export["platforms"]["ascend"]["arguments"]
    rows = []
    for row in copied_page_rows():
        argument = next((arguments[f] for f in row.flags if f in arguments), None)
        if argument is not None:
            rows.append((row, argument, platform[argument["flags"][0]]))
    return rows


def _expected_status(row: PageRow) -> tuple[str, list[str], str | None]:
    label = row.supported.lower()
    if label == "a2, a3":
        return "supported", ["A2", "A3"], None
    if label == "special for gpu":
        return "not-applicable", [], "Special for GPU"
    if label == "other params":
        return "unsupported", [], None
    return label, (["A2", "A3"] if label == "experimental" else []), None


def test_the_page_covers_most_of_the_registry(export: dict[str, Any]) -> None:
    rows = copied_page_rows()
    known = _known_rows(export)
    assert {flag for row in rows for flag in row.flags} >= NOT_IN_THE_REGISTRY
    assert len(known) == len(rows) - len(NOT_IN_THE_REGISTRY), "all other rows name a real flag"
    assert len(export["registry"]["arguments"]) == 313
    assert len(known) >= 0.9 * 313, "the page covers most of the registry"


def test_every_status_agrees_with_the_page(export: dict[str, Any]) -> None:
    mismatches = []
    for row, argument, resolved in _known_rows(export):
        status, variants, reason = _expected_status(row)
        got = (resolved["status"], resolved["variants"])
        if got != (status, variants) or (reason and resolved["reason"] != reason):
            mismatches.append((argument["flags"][0], row.supported, got, resolved["reason"]))
        if status == "unsupported":
            assert resolved["reason"], f"{argument['flags'][0]} is unsupported without a reason"
    assert mismatches == []


def _page_options(row: PageRow) -> list[str] | None:
    if row.options.startswith(VALUE_DESCRIPTIONS) or row.options in ("", "N/A"):
        return None
    return [part.strip() for part in row.options.split(",") if part.strip()]


def test_options_agree_wherever_the_page_names_real_choices(export: dict[str, Any]) -> None:
    checked = 0
    for row, argument, resolved in _known_rows(export):
        options = _page_options(row)
        choices = argument["choices"]
        if options is None or not isinstance(choices, list):
            continue
        if not set(options) <= {str(c) for c in choices}:
            continue  # the page names values the registry does not accept: nothing to agree with
        effective = resolved["options"] if resolved["options"] is not None else choices
        assert [str(o) for o in effective] == options, argument["flags"][0]
        checked += 1
    assert checked >= 40


def _same_default(page: str, ours: str) -> bool:
    if page == ours:
        return True
    if page in ("None", "``") and ours == "":
        return True  # the page writes an empty string as None or as empty backticks
    try:
        return float(page) == float(ours)
    except ValueError:
        return False


def test_defaults_agree_with_the_page(export: dict[str, Any]) -> None:
    differ = {}
    for row, argument, resolved in _known_rows(export):
        ours = value_text(python_value(resolved["default"]))
        if not _same_default(row.default, ours):
            differ[argument["flags"][0]] = (row.default, ours)
    # Two rows of the page contradict the registry itself (sglang 0.5.7 declares
    # `--pp-async-batch-depth` with default 0 and `--enable-lora` with default None); the
    # manifest does not copy a page's mistakes into platform defaults.
    assert differ == {"--pp-async-batch-depth": ("None", "0"), "--enable-lora": ("False", "None")}


def test_the_ascend_page_override_is_applied(export: dict[str, Any]) -> None:
    resolved = export["platforms"]["ascend"]["arguments"]["--page-size"]
    registry = next(a for a in export["registry"]["arguments"] if a["dest"] == "page_size")
    assert (resolved["default"], registry["default"]) == (128, None)
