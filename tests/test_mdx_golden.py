"""MDX pages of the fixture project (tests/fixtures/project: our own small registry and
manifest), byte for byte. `ARGMATRIX_UPDATE_GOLDEN=1` rewrites the golden files; read the diff."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import FIXTURES, append_to, copy_project, run_cli_in_process
from helpers import GOLDEN as MARKDOWN_GOLDEN
from test_mdx_compiler import MdxCompiler, compiled, compiler_fixture, jsx_tables

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

GOLDEN = FIXTURES / "mintlify" / "golden"
PAGES = ("server_arguments.mdx", "npu.mdx")


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("golden"))
    append_to(
        project / "argmatrix.yaml",
        "  - {template: server_arguments.mdx.j2, output: reference/server_arguments.mdx}\n"
        "  - {template: platform_support.mdx.j2, output: reference/npu.mdx, platform: npu}\n",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    return project / "docs" / "reference"


@pytest.mark.parametrize("page", PAGES)
def test_page_matches_golden_file(generated: Path, page: str) -> None:
    text = (generated / page).read_text(encoding="utf-8")
    golden = GOLDEN / page
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_golden_page_compiles(mdx: MdxCompiler, page: str) -> None:
    tables = jsx_tables(compiled(mdx, (GOLDEN / page).read_text(encoding="utf-8"), page))
    assert tables and all(len(row) == len(t.header) for t in tables for row in t.rows)


def test_the_markdown_pages_beside_them_are_unchanged(generated: Path) -> None:
    """Adding MDX pages to a project changes nothing of its Markdown pages."""
    for page in ("server_arguments.md", "npu.md", "npu_variants.md"):
        text = (generated / page).read_text(encoding="utf-8")
        assert text == (MARKDOWN_GOLDEN / page).read_text(encoding="utf-8")
