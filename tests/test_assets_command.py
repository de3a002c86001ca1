"""`python -m argmatrix.integrations.assets`: the site's stylesheet and script copied for an
engine without the MkDocs plugin (Zensical), or with `--mintlify` the stylesheet of the MDX
tables alone, for a Mintlify docs repository (docs/guide/mintlify.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from argmatrix.integrations.assets import MINTLIFY_STYLESHEET, asset_bytes


def run_assets(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "argmatrix.integrations.assets", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_mintlify_gets_the_stylesheet_of_mdx_tables_alone(tmp_path: Path) -> None:
    result = run_assets("--mintlify", str(tmp_path / "docs"))
    assert result.returncode == 0, result.stderr
    assert [p.name for p in (tmp_path / "docs").iterdir()] == [MINTLIFY_STYLESHEET]
    written = (tmp_path / "docs" / MINTLIFY_STYLESHEET).read_bytes()
    assert written == asset_bytes(MINTLIFY_STYLESHEET)
    assert b"table.argmatrix-table" in written
    assert result.stdout.strip() == str(tmp_path / "docs" / MINTLIFY_STYLESHEET)


def test_without_the_option_the_sites_stylesheet_and_script(tmp_path: Path) -> None:
    assert run_assets(str(tmp_path)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["argmatrix.css", "argmatrix.js"]


@pytest.mark.parametrize("args", [(), ("--mintlify",), ("a", "b"), ("--mintlify", "--x")])
def test_a_wrong_command_line_is_one_line_and_exit_code_2(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = run_assets(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "(fix: " in result.stderr
