"""The tables of the page model (`layouts`, render/tables.py): each layout's columns and each row's
cells, as every format writes them out and a project's own template can (the display fixture:
environment variables on every row, a platform with two variants)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from argmatrix.config import load_config
from argmatrix.project import Project, project_from_config
from argmatrix.render.formats import FORMATS
from argmatrix.render.tables import TableLayouts
from argmatrix.render.views import Cells, server_page, support_page
from helpers import FIXTURES, append_to, run_cli_in_process, tables

DISPLAY = FIXTURES / "display"


@pytest.fixture(scope="module")
def project() -> Project:
    return project_from_config(load_config(DISPLAY / "argmatrix.yaml", DISPLAY))


def _cells(project: Project, output_format: str) -> Cells:
    config = project.config
    return Cells(FORMATS[output_format], config.display.facts(project.registry, "argmatrix.yaml"))


def test_an_environment_variable_has_a_column_after_the_registrys_own(project: Project) -> None:
    section = server_page(project.registry, _cells(project, "markdown")).sections[0]
    table = TableLayouts("<br>").server(section.rows)
    assert table.headings == (
        "Argument",
        "Description",
        "Default",
        "Type / options",
        "Environment variable",
    )
    assert [cells[4] for cells in table.cells] == [row.env for row in section.rows]
    assert all(len(cells) == len(table.columns) for cells in table.cells)


def test_without_its_column_it_is_the_last_line_of_the_description(project: Project) -> None:
    section = server_page(project.registry, _cells(project, "mdx")).sections[0]
    table = TableLayouts("<br />").server(section.rows, env_column=False)
    assert table.headings == ("Argument", "Description", "Default", "Type / options")
    for row, cells in zip(table.rows, table.cells, strict=True):
        assert cells[1] == f"{row.description}<br />Environment variable: {row.env}"


def test_a_table_without_a_description_puts_it_under_the_flags(project: Project) -> None:
    cells = _cells(project, "mdx")
    support = support_page(project.registry, project.resolved["gpu"], "status", cells=cells)
    table = TableLayouts("<br />").support(support.sections[0], support, env_column=False)
    assert table.headings[:4] == ("Argument", "Default", "Options", "Server supported")
    row, first = table.rows[0], table.cells[0]
    assert first[0] == f"{row.flags}<br />Environment variable: {row.env}"


def test_the_variants_layout_has_a_centred_column_per_variant(project: Project) -> None:
    cells = _cells(project, "markdown")
    support = support_page(project.registry, project.resolved["gpu"], "variants", cells=cells)
    layouts = TableLayouts("<br>")
    for section in support.sections:
        table = layouts.support(section, support, plain_flags=True)
        variants = [c for c in table.columns if c.key == "variant"]
        assert [c.heading for c in variants] == list(support.variants) == ["G1", "G2"]
        assert {c.align for c in table.columns} == {"", "center"}
        assert all(c.align == "center" for c in variants)
        first = table.headings.index("G1")
        for row, row_cells in zip(table.rows, table.cells, strict=True):
            assert row_cells[0] == row.plain_flags
            assert row_cells[first : first + 2] == row.marks


def test_a_deprecated_argument_without_a_replacement_says_so(tmp_path: Path) -> None:
    registry = tmp_path / "old.py"
    registry.write_text(
        "import argparse\n\n\ndef build():\n"
        "    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--new", help="The new one.")\n'
        '    parser.add_argument("--old", help="Deprecated: use --new.")\n'
        '    parser.add_argument("--gone", help="Deprecated: does nothing.")\n'
        "    return parser\n"
    )
    (tmp_path / "argmatrix.yaml").write_text(
        "registry: {target: 'old:build', mode: static}\ndocs_dir: docs\npages: []\n"
    )
    project = project_from_config(load_config(tmp_path / "argmatrix.yaml", tmp_path))
    deprecated = server_page(project.registry, _cells(project, "markdown")).deprecated
    table = TableLayouts("<br>").deprecated(deprecated, plain_flags=True)
    assert table.headings == ("Argument", "Replacement", "Description")
    assert [cells[:2] for cells in table.cells] == [
        ("`--old` `OLD`", "`--new`"),
        ("`--gone` `GONE`", "—"),
    ]


def _project_with_templates(tmp_path: Path) -> Path:
    """The display fixture project, copied, with a folder for templates of its own."""
    project = tmp_path / "project"
    shutil.copytree(DISPLAY, project, ignore=shutil.ignore_patterns("golden", "__pycache__"))
    (project / ".git").mkdir()
    (project / "templates").mkdir()
    return project


def test_a_project_template_writes_a_table_of_its_own_from_the_layouts(tmp_path: Path) -> None:
    """The example of docs/reference/template-context.md: the bundled table, unaligned."""
    project = _project_with_templates(tmp_path)
    source = (
        "{% for section in support.sections %}\n"
        "{% set table = layouts.support(section, support) %}\n"
        '| {{ table.headings | join(" | ") }} |\n'
        "|{% for column in table.columns %} --- |{% endfor +%}\n"
        "{% for cells in table.cells %}\n"
        '| {{ cells | join(" | ") }} |\n'
        "{% endfor %}\n\n"
        "{% endfor %}\n"
    )
    (project / "templates" / "own.md.j2").write_text(source, encoding="utf-8")
    append_to(
        project / "argmatrix.yaml",
        "  - {template: own.md.j2, output: own.md, platform: gpu, options: {layout: variants}}\n",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    own = tables((project / "docs" / "own.md").read_text(encoding="utf-8"))
    bundled = tables((project / "docs" / "gpu_variants.md").read_text(encoding="utf-8"))
    assert own == bundled


def test_pipe_rows_are_the_rows_a_template_loop_writes(tmp_path: Path) -> None:
    """`table.pipe_rows` (the bundled Markdown tables' body) is, line for line, what a project's
    template writes with a loop over `table.cells`: a template may use either."""
    project = _project_with_templates(tmp_path)
    looped = (
        "{% for section in support.sections %}\n"
        "{% set table = layouts.support(section, support) %}\n"
        "{% for cells in table.cells %}\n"
        '| {{ cells | join(" | ") }} |\n'
        "{% endfor %}\n"
        "{% endfor %}\n"
    )
    joined = (
        "{% for section in support.sections %}\n"
        "{% set table = layouts.support(section, support) %}\n"
        "{{ table.pipe_rows -}}\n"
        "{% endfor %}\n"
    )
    (project / "templates" / "looped.md.j2").write_text(looped, encoding="utf-8")
    (project / "templates" / "joined.md.j2").write_text(joined, encoding="utf-8")
    append_to(
        project / "argmatrix.yaml",
        "  - {template: looped.md.j2, output: looped.md, platform: gpu}\n"
        "  - {template: joined.md.j2, output: joined.md, platform: gpu}\n",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    looped_text = (project / "docs" / "looped.md").read_text(encoding="utf-8")
    assert looped_text.count("\n") > 2
    assert (project / "docs" / "joined.md").read_text(encoding="utf-8") == looped_text


def test_a_table_without_rows_has_no_pipe_rows(project: Project) -> None:
    table = TableLayouts("<br>").deprecated(())
    assert table.cells == ()
    assert table.pipe_rows == ""


def test_the_compact_layout_has_the_facts_after_the_help(project: Project) -> None:
    section = server_page(project.registry, _cells(project, "markdown")).sections[0]
    layouts = TableLayouts("<br>")
    table = layouts.server(section.rows, layout="compact")
    assert table.headings == ("Argument", "Description")
    assert table.keys == "argument details"  # what an HTML page tells the site's script
    for row, cells in zip(table.rows, table.cells, strict=True):
        help_text, facts = cells[1].split("<br>")
        assert help_text == row.description
        assert facts.endswith(f" · Environment variable: {row.env}")
    plain = layouts.server(section.rows, plain_flags=True, layout="compact")
    assert all("<br>" not in cells[1] for cells in plain.cells)  # a page without HTML
    assert [cells[0] for cells in plain.cells] == [row.plain_flags for row in section.rows]


def test_a_marker_or_directive_takes_the_compact_layout(tmp_path: Path) -> None:
    """An in-place region (and so a MkDocs directive) shows a registry section in the page's
    layout, or in the one its `layout` attribute names."""
    root = tmp_path / "display"
    shutil.copytree(DISPLAY, root, ignore=shutil.ignore_patterns("golden", "docs", "__pycache__"))
    (root / "docs").mkdir()
    (root / "docs" / "page.md").write_text(
        '# Ours\n\n<!-- argmatrix:begin section="Memory" layout="compact" -->\n'
        '<!-- argmatrix:end -->\n\n<!-- argmatrix:begin section="Memory" -->\n'
        "<!-- argmatrix:end -->\n",
        encoding="utf-8",
    )
    append_to(
        root / "argmatrix.yaml",
        "  - {template: server_arguments.md.j2, output: page.md, inplace: true}\n",
    )
    assert run_cli_in_process("generate", cwd=root).code == 0
    compact, table = tables((root / "docs" / "page.md").read_text(encoding="utf-8"))
    assert compact.header == ["Argument", "Description"]
    assert table.header[:4] == ["Argument", "Description", "Default", "Type / options"]
    (root / "docs" / "page.md").write_text(
        '<!-- argmatrix:begin section="Memory" layout="cards" -->\n<!-- argmatrix:end -->\n',
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 2 and "unknown layout 'cards'" in result.err
