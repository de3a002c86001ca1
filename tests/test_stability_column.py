"""The Stability column (`stability:` in argmatrix.yaml) on the server-arguments pages of every
format: Markdown, MDX, MyST and the Sphinx directive. The column is part of the server layout
(render/tables.py), so each format writes it; without `stability:` the pages keep their columns.

The project is servecli 2.0 (tests/fixtures/registries/compat/v2), whose sections and
subcommands the tags address. Each page is compared with its golden file
(tests/golden/stability/; `ARGMATRIX_UPDATE_GOLDEN=1` rewrites them, then read the diff) and read
back with its real parser: markdown-it, the MDX compiler, Sphinx + myst-parser.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import GOLDEN, REGISTRIES, flag_of, run_cli_in_process, tables
from test_mdx_compiler import MdxCompiler, compiled, compiler_fixture, jsx_tables

SOURCE = REGISTRIES / "compat" / "v2" / "servecli.py"
STABILITY = (
    "stability:\n  sections: {Model: beta}\n"
    "  arguments: {serve --workers: prototype, --verbose: deprecated}\n"
)
PAGES = {
    "args.md": "{template: server_arguments.md.j2, output: args.md}",
    "args.mdx": "{template: server_arguments.mdx.j2, output: args.mdx}",
    "args.myst.md": "{template: server_arguments.myst.j2, output: args.myst.md, format: myst}",
}
# Each argument's tag, as every format must show it (the first flag as its Argument cell reads).
EXPECTED = {
    "--log-level": "stable",
    "--verbose": "deprecated",
    "--tensor-parallel-size": "beta",
    "--dtype": "beta",
    "--workers": "prototype",
    "--port": "stable",
    "--rounds": "stable",
}


def write_project(root: Path, stability: bool = True) -> Path:
    root.mkdir(parents=True)
    shutil.copy(SOURCE, root / "servecli.py")
    pages = "".join(f"  - {page}\n" for page in PAGES.values())
    (root / "argmatrix.yaml").write_text(
        "registry:\n  target: servecli:build_parser\n  mode: static\ndocs_dir: docs\n"
        f"pages:\n{pages}" + (STABILITY if stability else ""),
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("stability") / "project")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return root / "docs"


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


def shown_tags(rows: dict[str, str]) -> dict[str, str]:
    return {flag: rows[flag] for flag in EXPECTED if flag in rows}


def argument_tables(found: list[Any]) -> list[Any]:
    """The tables of arguments in use: the deprecated arguments' (Argument, Replacement,
    Description) have no Stability column, in pipe tables as on Sphinx pages."""
    return [t for t in found if t.header[:2] != ["Argument", "Replacement"]]


@pytest.mark.parametrize("page", list(PAGES))
def test_page_matches_golden_file(generated: Path, page: str) -> None:
    text = (generated / page).read_text(encoding="utf-8")
    golden = GOLDEN / "stability" / page
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", ["args.md", "args.myst.md"])
def test_pipe_tables_have_a_stability_column(generated: Path, page: str) -> None:
    found = argument_tables(tables((generated / page).read_text(encoding="utf-8")))
    assert found and all(t.header[-1] == "Stability" for t in found)
    # MyST's Argument cell is the role {argmatrix-option} (markdown-it reads it as text), with a
    # subcommand's name before the flag
    first = {
        _flag(row[0].split(", ")[0].removeprefix("{argmatrix-option}")): row
        for t in found
        for row in t.rows
    }
    rows = {flag: row[-1] for flag, row in first.items()}
    assert shown_tags(rows) == EXPECTED


def test_without_stability_the_pages_keep_their_columns(tmp_path: Path, generated: Path) -> None:
    root = write_project(tmp_path / "project", stability=False)
    assert run_cli_in_process("generate", cwd=root).code == 0
    for page in PAGES:
        text = (root / "docs" / page).read_text(encoding="utf-8")
        assert "Stability" not in text
        # the same page less the column (the golden pages of main stay byte-identical)
        if page != "args.mdx":
            deprecated = "| Argument | Replacement | Description |\n| --- | --- | --- |\n"
            with_column = (generated / page).read_text(encoding="utf-8")
            with_column = with_column.replace(deprecated, "DEPRECATED\n")
            assert text.replace(deprecated, "DEPRECATED\n") == with_column.replace(
                " Stability |", ""
            ).replace(" --- | --- |\n", " --- |\n").replace(" | stable |", " |").replace(
                " | beta |", " |"
            ).replace(" | prototype |", " |").replace(" | deprecated |", " |")


@pytest.mark.engine  # the MDX compiler (node)
def test_mdx_page_compiles_with_a_stability_column(generated: Path, mdx: MdxCompiler) -> None:
    found = jsx_tables(compiled(mdx, (generated / "args.mdx").read_text(encoding="utf-8")))
    assert found and all(t.header[-1] == "Stability" for t in found)
    assert all(len(row) == len(t.header) for t in found for row in t.rows)
    rows = {flag_of(row[0]): row[-1] for t in found for row in t.rows}
    assert shown_tags(rows) == EXPECTED


@pytest.mark.engine  # a Sphinx build
def test_sphinx_shows_the_column_on_myst_pages_and_in_the_directive(tmp_path: Path) -> None:
    from test_sphinx_build import read_page, sphinx_build

    root = write_project(tmp_path / "project")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(PAGES["args.md"], PAGES["args.myst.md"].replace("args.myst.md", "args.md"))
        .replace(f"  - {PAGES['args.mdx']}\n", "")
        .replace(f"  - {PAGES['args.myst.md']}\n", ""),
        encoding="utf-8",
    )
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'project = "servecli"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\nexclude_patterns = ["_build"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text(
        "# servecli\n\n```{toctree}\nargs\ntables\n```\n", encoding="utf-8"
    )
    (docs / "tables.md").write_text(
        "# Tables\n\n```{argmatrix}\n:section: Logging\n:no-index:\n```\n", encoding="utf-8"
    )
    out = tmp_path / "html"
    result = sphinx_build(docs, out)
    assert result.returncode == 0, result.stderr[-3000:]
    for name in ("args", "tables"):
        page = read_page(out / f"{name}.html")
        assert page.tables, name
        rows: dict[str, str] = {}
        for table in argument_tables(page.tables):
            assert table.header[-1] == "Stability", (name, table.header)
            rows.update({flag_of(row.cells[0]): row.cells[-1] for row in table.rows})
        expected = (
            EXPECTED if name == "args" else {"--log-level": "stable", "--verbose": "deprecated"}
        )
        assert {f: rows[f] for f in expected} == expected, name


def _flag(text: str) -> str:
    """The flag of a MyST Argument cell's text (`serve --port PORT`: a subcommand's name, the
    flag, its value form), or a positional's name."""
    words = text.split(" ")
    return next((w for w in words if w.startswith("-")), words[-1])
