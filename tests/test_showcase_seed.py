"""The showcase's Ascend manifest, resolved against sglang 0.5.7, says what seed 002 says."""

from __future__ import annotations

from typing import Any

import pytest

from argmatrix.config import load_config
from argmatrix.model.registry import python_value
from argmatrix.model.values import value_text
from argmatrix.project import project_from_config
from helpers import REPO
from seed_pages import SeedRow, seed_002_rows

VALUE_DESCRIPTIONS = ("Type:", "bool flag", "List[", "Optional[")


@pytest.fixture(scope="module")
def export() -> dict[str, Any]:
    config = load_config(REPO / "argmatrix.yaml", REPO)
    return project_from_config(config).export()


def _known_rows(export: dict[str, Any]) -> list[tuple[SeedRow, dict[str, Any], dict[str, Any]]]:
    arguments = {flag: a for a in export["registry"]["arguments"] for flag in a["flags"]}
    platform = export["platforms"]["ascend"]["arguments"]
    rows = []
    for row in seed_002_rows():
        argument = next((arguments[f] for f in row.flags if f in arguments), None)
        if argument is not None:
            rows.append((row, argument, platform[argument["flags"][0]]))
    return rows


def _expected_status(row: SeedRow) -> tuple[str, list[str], str | None]:
    label = row.supported.lower()
    if label == "a2, a3":
        return "supported", ["A2", "A3"], None
    if label == "special for gpu":
        return "not-applicable", [], "Special for GPU"
    if label == "other params":
        return "unsupported", [], None
    return label, (["A2", "A3"] if label == "experimental" else []), None


def test_the_seed_covers_most_of_the_registry(export: dict[str, Any]) -> None:
    known = _known_rows(export)
    assert len(known) >= 285, "seed 002 rows that name a real sglang 0.5.7 flag"
    assert len(export["registry"]["arguments"]) == 313


def test_every_status_agrees_with_seed_002(export: dict[str, Any]) -> None:
    mismatches = []
    for row, argument, resolved in _known_rows(export):
        status, variants, reason = _expected_status(row)
        got = (resolved["status"], resolved["variants"])
        if got != (status, variants) or (reason and resolved["reason"] != reason):
            mismatches.append((argument["flags"][0], row.supported, got, resolved["reason"]))
        if status == "unsupported":
            assert resolved["reason"], f"{argument['flags'][0]} is unsupported without a reason"
    assert mismatches == []


def _seed_options(row: SeedRow) -> list[str] | None:
    if row.options.startswith(VALUE_DESCRIPTIONS) or row.options in ("", "N/A"):
        return None
    return [part.strip() for part in row.options.split(",") if part.strip()]


def test_options_agree_wherever_the_seed_names_real_choices(export: dict[str, Any]) -> None:
    checked = 0
    for row, argument, resolved in _known_rows(export):
        options = _seed_options(row)
        choices = argument["choices"]
        if options is None or not isinstance(choices, list):
            continue
        if not set(options) <= {str(c) for c in choices}:
            continue  # the page names values the registry does not accept: nothing to agree with
        effective = resolved["options"] if resolved["options"] is not None else choices
        assert [str(o) for o in effective] == options, argument["flags"][0]
        checked += 1
    assert checked >= 40


def _same_default(seed: str, ours: str) -> bool:
    if seed == ours:
        return True
    if seed in ("None", "``") and ours == "":
        return True  # the page writes an empty string as None or as empty backticks
    try:
        return float(seed) == float(ours)
    except ValueError:
        return False


def test_defaults_agree_with_seed_002(export: dict[str, Any]) -> None:
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
