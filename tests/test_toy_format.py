"""A new output format is one module and one thin set of templates (CONTRIBUTING.md, "A new
output format"). A toy AsciiDoc format (tests/fixtures/toy_format/), registered as the recipe
says and its templates put among the bundled ones, renders the fixture project's pages with the
tables Markdown has, in-place regions included; the configuration accepts it and `check` holds
its pages to the registry. Nothing else is told about it."""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.config import load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.render import template_files
from argmatrix.render.formats import FORMATS, OutputFormat, register
from helpers import (
    FIXTURES,
    GOLDEN,
    Table,
    append_to,
    copy_project,
    run_cli_in_process,
    tables,
)

TOY = FIXTURES / "toy_format"


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OutputFormat]:
    """The toy format, registered, with its templates among the bundled ones."""
    spec = importlib.util.spec_from_file_location("toy_asciidoc", TOY / "asciidoc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bundled = tmp_path / "bundled"
    shutil.copytree(template_files.bundled_templates(), bundled)
    shutil.copytree(TOY / "templates", bundled, dirs_exist_ok=True)
    monkeypatch.setattr(template_files, "bundled_templates", lambda: bundled)
    yield register(module)
    del FORMATS[module.NAME]


def adoc_tables(text: str) -> list[Table]:
    """Every table of a toy page, cells as the text a reader sees (references read, code marks
    taken away)."""
    found = []
    for body in re.findall(r"^\|===\n(.*?)^\|===$", text, re.MULTILINE | re.DOTALL):
        lines = [line for line in body.splitlines() if line]
        header, *rows = ([_shown(cell) for cell in line.split("|")[1:]] for line in lines)
        found.append(Table(header, rows))
    return found


def _shown(cell: str) -> str:
    return html.unescape(cell.strip().replace("`", ""))


PAGES = (
    "  - {template: server_arguments.adoc.j2, output: reference/server_arguments.adoc}\n"
    "  - {template: platform_support.adoc.j2, output: reference/npu.adoc, platform: npu}\n"
    "  - {template: platform_support.adoc.j2, output: reference/npu_variants.txt,"
    " platform: npu, format: asciidoc, options: {layout: variants}}\n"
)


@pytest.mark.parametrize(
    ("page", "markdown"),
    [
        ("server_arguments.adoc", "server_arguments.md"),
        ("npu.adoc", "npu.md"),
        ("npu_variants.txt", "npu_variants.md"),
    ],
)
def test_the_toy_format_writes_the_tables_markdown_has(
    toy: OutputFormat, tmp_path: Path, page: str, markdown: str
) -> None:
    project = copy_project(tmp_path)
    append_to(project / "argmatrix.yaml", PAGES)
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    written = adoc_tables((project / "docs" / "reference" / page).read_text(encoding="utf-8"))
    expected = tables((GOLDEN / markdown).read_text(encoding="utf-8"))
    assert [t.header for t in written] == [t.header for t in expected]
    assert [t.rows for t in written] == [t.rows for t in expected]
    assert run_cli_in_process("check", cwd=project).code == 0


def test_an_inplace_region_of_a_toy_page(toy: OutputFormat, tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    guide = project / "docs" / "guide" / "npu.adoc"
    guide.write_text(
        "= On the NPU\n\nProse.\n\n"
        '// argmatrix:begin section="Model" platform="npu"\n// argmatrix:end\n\nMore prose.\n',
        encoding="utf-8",
    )
    append_to(
        project / "argmatrix.yaml",
        "  - {template: platform_support.adoc.j2, output: guide/npu.adoc, platform: npu,"
        " inplace: true}\n",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    text = guide.read_text(encoding="utf-8")
    assert text.startswith("= On the NPU\n\nProse.\n\n// argmatrix:begin")
    assert text.endswith("// argmatrix:end\n\nMore prose.\n")
    model_on_npu = tables((GOLDEN / "npu.md").read_text(encoding="utf-8"))[0]
    assert adoc_tables(text) == [model_on_npu]


def test_the_configuration_reads_the_formats_from_their_modules(
    toy: OutputFormat, tmp_path: Path
) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        "pages:\n"
        "  - {template: a.adoc.j2, output: a.ADOC}\n"
        "  - {template: b.adoc.j2, output: b.txt, format: asciidoc}\n"
        "  - {template: c.md.j2, output: c.md}\n"
    )
    config = load_config(tmp_path / "argmatrix.yaml", tmp_path)
    assert [page.output_format for page in config.pages] == ["asciidoc", "asciidoc", "markdown"]
    (tmp_path / "argmatrix.yaml").write_text("pages:\n  - {template: a, output: a, format: rst}\n")
    with pytest.raises(ArgmatrixError) as error:
        load_config(tmp_path / "argmatrix.yaml", tmp_path)
    assert (
        "use one of: markdown, mdx, myst, asciidoc (without 'format', an .mdx output is mdx and"
        " an .adoc output is asciidoc and any other is markdown)"
    ) in str(error.value)


def test_a_format_nobody_registered_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        "pages:\n  - {template: a, output: a.adoc, format: asciidoc}\n"
    )
    with pytest.raises(ArgmatrixError, match="unknown format 'asciidoc'"):
        load_config(tmp_path / "argmatrix.yaml", tmp_path)
    config = load_config(_without_format(tmp_path), tmp_path)
    assert config.pages[0].output_format == "markdown"  # .adoc is nobody's


def _without_format(folder: Path) -> Path:
    (folder / "argmatrix.yaml").write_text("pages:\n  - {template: a, output: a.adoc}\n")
    return folder / "argmatrix.yaml"


def test_a_format_module_that_lacks_a_name_is_refused() -> None:
    half = types.ModuleType("half")
    half.NAME = "half"  # type: ignore[attr-defined]
    with pytest.raises(
        TypeError, match="format module half lacks DESCRIPTION, OUTPUT_SUFFIXES, FILTERS"
    ):
        register(half)
    assert "half" not in FORMATS
