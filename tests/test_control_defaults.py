"""Defaults and choices with control characters (`default="</think>\n\n"`) are shown with their
escapes in every format (`</think>\n\n`), never dropped or folded into a space; and `audit` of the
page argmatrix wrote agrees with it (no wrong-default whose fix is the same text)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import REGISTRIES, flag_of, run_cli_in_process, tables
from test_mdx_compiler import MdxCompiler, compiled, compiler_fixture, jsx_tables

SOURCE = REGISTRIES / "control_defaults.py"
# What a reader sees in the Default and Type / options cells.
DEFAULTS = {
    "--think-end": "</think>\\n\\n",
    "--separator": "\\t",
    "--windows-path": "C:\\\\models\\n",  # with a control character, a backslash is doubled
    "--plain-path": "C:\\models",  # without one, the text is as it is
}
CHOICES = "\\t, ,, \\x1b|"


def write_project(root: Path) -> Path:
    root.mkdir(parents=True)
    shutil.copy(SOURCE, root / "control_defaults.py")
    (root / "argmatrix.yaml").write_text(
        "registry:\n  target: control_defaults:build_parser\n  mode: static\ndocs_dir: docs\n"
        "pages:\n"
        "  - {template: server_arguments.md.j2, output: args.md}\n"
        "  - {template: server_arguments.mdx.j2, output: args.mdx}\n"
        "  - {template: server_arguments.myst.j2, output: args.myst.md, format: myst}\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("controls") / "project")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return root


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


@pytest.mark.parametrize("page", ["args.md", "args.myst.md"])
def test_pipe_tables_show_control_characters_as_escapes(project: Path, page: str) -> None:
    rows = {
        flag_of(row[0].removeprefix("{argmatrix-option}")): row
        for table in tables((project / "docs" / page).read_text(encoding="utf-8"))
        for row in table.rows
    }
    assert {flag: rows[flag][2] for flag in DEFAULTS} == DEFAULTS
    assert rows["--separator"][3] == CHOICES


@pytest.mark.engine  # the MDX compiler (node)
def test_mdx_shows_control_characters_as_escapes(project: Path, mdx: MdxCompiler) -> None:
    source = (project / "docs" / "args.mdx").read_text(encoding="utf-8")
    rows = {flag_of(row[0]): row for t in jsx_tables(compiled(mdx, source)) for row in t.rows}
    assert {flag: rows[flag][2] for flag in DEFAULTS} == DEFAULTS
    assert rows["--separator"][3] == CHOICES


def test_audit_agrees_with_the_page_argmatrix_wrote(project: Path) -> None:
    result = run_cli_in_process("audit", "docs/args.md", "--format", "json", cwd=project)
    assert result.code == 0, result.err
    assert json.loads(result.out)["findings"] == []


def test_audit_still_finds_a_default_that_lost_its_newlines(project: Path) -> None:
    page = project / "lost.md"
    page.write_text(
        "| Argument | Description | Default |\n| --- | --- | --- |\n"
        "| `--think-end` | Where thinking ends. | `</think>` |\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("audit", "lost.md", "--format", "json", cwd=project)
    found = [f for f in json.loads(result.out)["findings"] if f["kind"] != "missing-flag"]
    assert [f["kind"] for f in found] == ["wrong-default"], found
    assert found[0]["fix"] == "write '</think>\\n\\n'"  # the text the page writers show
