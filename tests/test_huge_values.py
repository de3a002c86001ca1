"""Integers of more digits than Python writes in decimal (4,300 by default), and strings that
are not text, in a registry or a snapshot: a located error or a faithful text, never a
traceback."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.model.registry import Argument, Opaque, Registry, json_value
from helpers import line_of, one_error_line, run_cli_in_process

HUGE = 10**5000 + 7  # 5,001 digits
REGISTRY = (
    "import argparse\n\n\n"
    "def build():\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--big', type=int, default=10**5000 + 7)\n"
    "    p.add_argument('--port', type=int, default=8000)\n"
    "    return p\n"
)


@pytest.fixture
def hugereg(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "hugereg.py").write_text(REGISTRY)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("hugereg", None)


def test_an_integer_too_long_for_decimal_is_kept_as_exact_hex_text() -> None:
    assert json_value(HUGE) == {"python": hex(HUGE)}
    assert json_value(-HUGE) == {"python": hex(-HUGE)}
    assert int(json_value(HUGE)["python"], 16) == HUGE  # nothing made up: the same number
    assert json_value(10**4000) == 10**4000  # what Python can write stays a number
    assert json_value([1, HUGE]) == [1, {"python": hex(HUGE)}]


def test_a_registry_with_such_an_integer_exports_snapshots_and_reads_back(hugereg: Path) -> None:
    exported = run_cli_in_process("export", "--registry", "hugereg:build", cwd=hugereg)
    assert exported.code == 0, exported.err
    big = next(a for a in json.loads(exported.out)["registry"]["arguments"] if a["dest"] == "big")
    assert big["default"] == {"python": hex(HUGE)}

    written = run_cli_in_process(
        "snapshot", "--registry", "hugereg:build", "-o", "snap.json", cwd=hugereg
    )
    assert written.code == 0, written.err
    again = run_cli_in_process("export", "--registry", "snap.json", cwd=hugereg)
    assert again.code == 0, again.err
    assert json.loads(again.out)["registry"] == json.loads(exported.out)["registry"]


def test_snapshot_text_of_a_model_holding_such_an_integer() -> None:
    registry = Registry(
        source="s",
        sections=("General",),
        arguments=(Argument(flags=("--big",), dest="big", default=HUGE),),
    )
    data = json.loads(snapshot_text(registry))
    assert data["registry"]["arguments"][0]["default"] == {"python": hex(HUGE)}
    assert str(Opaque(hex(HUGE))).startswith("0x")


def _snapshot_with(tmp_path: Path, help_json: str) -> tuple[Path, int]:
    """A valid snapshot whose one argument's help is `help_json` (raw JSON text); the line."""
    registry = Registry(
        source="s",
        sections=("General",),
        arguments=(Argument(flags=("--x",), dest="x", help="PLACEHOLDER"),),
    )
    text = snapshot_text(registry).replace('"PLACEHOLDER"', help_json)
    path = tmp_path / "snap.json"
    path.write_text(text, encoding="utf-8")
    return path, line_of(path, '"help"')


def _one_line(tmp_path: Path) -> str:
    return one_error_line(run_cli_in_process("export", "--registry", "snap.json", cwd=tmp_path))


def test_a_snapshot_holding_a_number_python_cannot_read_is_a_located_error(tmp_path: Path) -> None:
    _, line = _snapshot_with(tmp_path, "1" + "0" * 5000)
    message = _one_line(tmp_path)
    assert re.search(
        rf"snap\.json:{line}: snapshot holds an integer of more than \d+ digits", message
    ), message
    assert "(fix: " in message and len(message) < 300


@pytest.mark.parametrize("escape", ["\\ud800", "x\\udfff", "\\udbff\\u0041"])
def test_a_snapshot_holding_half_a_surrogate_pair_is_a_located_error(
    tmp_path: Path, escape: str
) -> None:
    _, line = _snapshot_with(tmp_path, f'"{escape} help"')
    message = _one_line(tmp_path)
    assert f"snap.json:{line}: snapshot holds half of a surrogate pair" in message


def test_a_whole_surrogate_pair_in_a_snapshot_is_text(tmp_path: Path) -> None:
    _snapshot_with(tmp_path, '"\\ud83d\\ude00 help"')
    result = run_cli_in_process("export", "--registry", "snap.json", cwd=tmp_path)
    assert result.code == 0, result.err
    assert json.loads(result.out)["registry"]["arguments"][0]["help"] == "\U0001f600 help"
