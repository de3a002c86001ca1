"""Issue 23, point 6: the coverage check of a hand-maintained page (`checks.coverage`) compares
each row's default, options and type with the registry, as `argmatrix audit` does, so `check`
alone can replace a project's own test; each comparison is switched by the page's `compare:`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from argmatrix.schema import FINDINGS_SCHEMA
from helpers import FIXTURES, line_of, one_error_line, replace_in, run_cli_in_process

HAND = FIXTURES / "mintlify" / "hand-maintained"
MD_PAGE = Path("docs/reference/server_arguments.md")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "hand"
    shutil.copytree(HAND, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def findings(root: Path) -> list[dict[str, Any]]:
    result = run_cli_in_process("check", "--format", "json", cwd=root)
    assert result.code in (0, 1), result.err
    items: list[dict[str, Any]] = json.loads(result.out)
    jsonschema.validate(items, FINDINGS_SCHEMA)
    return items


def _wrong_values(root: Path) -> dict[str, int]:
    """A wrong default, a wrong option list and a wrong type on the Markdown page."""
    page = root / MD_PAGE
    replace_in(page, "| `--tensor-parallel-size` | How many GPUs one replica spans (also `--tp-size`). | `1` |",
               "| `--tensor-parallel-size` | How many GPUs one replica spans (also `--tp-size`). | `2` |")  # fmt: skip
    replace_in(page, "| `auto` | `auto`, `float16`, `bfloat16` |", "| `auto` | `auto`, `float8` |")
    replace_in(page, "| `30000` | Type: int |", "| `30000` | Type: str |")
    return {
        "wrong-default": line_of(page, "`--tensor-parallel-size`"),
        "wrong-options": line_of(page, "`--dtype`"),
        "wrong-type": line_of(page, "`--port`"),
    }


def test_the_fixture_page_agrees_so_check_passes(root: Path) -> None:
    assert findings(root) == []


def test_check_finds_a_wrong_default_options_and_type_at_their_rows(root: Path) -> None:
    lines = _wrong_values(root)
    found = findings(root)
    assert {(f["kind"], f["file"], f["line"]) for f in found} >= {
        (kind, str(MD_PAGE), line) for kind, line in lines.items()
    }
    default = next(f for f in found if f["kind"] == "wrong-default")
    assert (
        default["flag"] == "--tp-size"
    )  # the registry's name of the argument and default["severity"] == "error"
    assert default["message"].endswith("the page says the default is '2', the registry says '1'")
    # the same words as `argmatrix audit` of the page
    audit = json.loads(run_cli_in_process("audit", str(MD_PAGE), "--format", "json", cwd=root).out)[
        "findings"
    ]
    assert {f["message"] for f in audit if f["kind"].startswith("wrong-")} == {
        f["message"] for f in found if f["kind"].startswith("wrong-")
    }
    text = run_cli_in_process("check", cwd=root)
    assert text.code == 1
    assert f"{MD_PAGE}:{lines['wrong-default']}: error[wrong-default]: --tp-size" in text.out


@pytest.mark.parametrize("switched_off", ["defaults", "options", "types"])
def test_each_comparison_is_switched_by_compare(root: Path, switched_off: str) -> None:
    _wrong_values(root)
    replace_in(
        root / "argmatrix.yaml",
        "    - page: reference/server_arguments.md\n",
        f"    - page: reference/server_arguments.md\n      compare: {{{switched_off}: false}}\n",
    )
    kinds = {f["kind"] for f in findings(root)}
    expected = {"wrong-default", "wrong-options", "wrong-type"}
    off = {"defaults": "wrong-default", "options": "wrong-options", "types": "wrong-type"}
    assert kinds == expected - {off[switched_off]}


def test_severity_applies_to_the_comparisons(root: Path) -> None:
    _wrong_values(root)
    config = root / "argmatrix.yaml"
    replace_in(
        config, "checks:\n", "checks:\n  severity: {wrong-default: warning, wrong-type: off}\n"
    )
    found = findings(root)
    assert {(f["kind"], f["severity"]) for f in found} == {
        ("wrong-default", "warning"),
        ("wrong-options", "error"),
    }


def test_a_bad_compare_setting_is_one_located_error(root: Path) -> None:
    config = root / "argmatrix.yaml"
    replace_in(
        config,
        "    - page: reference/server_arguments.md\n",
        "    - page: reference/server_arguments.md\n      compare: {defaults: maybe}\n",
    )
    result = run_cli_in_process("check", cwd=root)
    one_error_line(
        result,
        f"argmatrix.yaml:{line_of(config, 'compare:')}:",
        "compare: 'defaults' must be true or false",
    )
