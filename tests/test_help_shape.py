"""Help text with its shape (issue 29, item 7): a Click help's paragraphs, its lists and the lines
Click keeps as written (`\\b`) are kept on every page, in every format; Typer's markup (Rich's
tags, Markdown) is read as the words it marks up, never printed; `--version` shows no default
anywhere. The fixtures: tests/fixtures/registries/help_shape_cli.py and typer_markup_cli.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.markup import MARKDOWN, RICH, plain_help
from argmatrix.render.formats.shared import ITEMS, LINES, PARAGRAPH, help_blocks
from helpers import REGISTRIES, html_inline, load, run_cli_in_process, tables

MODE_HELP = "How the weights are loaded."


def test_the_blocks_of_a_help_are_its_paragraphs_items_and_kept_lines() -> None:
    registry = load("help_shape_cli:serve", mode="static")
    helps = {a.flags[0]: a.help for a in registry.arguments}
    assert help_blocks(str(helps["--mode"])) == [
        (PARAGRAPH, (MODE_HELP,)),
        (
            ITEMS,
            (
                "auto: pick from the files found",
                "eager: load everything at start-up, before the first request",
                "lazy: load on first use",
            ),
        ),
        (PARAGRAPH, ("Pick lazy on small machines.",)),
    ]
    assert help_blocks(str(helps["--layout"])) == [
        (PARAGRAPH, ("The tensor layout.",)),
        (LINES, ("row    rows first", "column columns first")),
    ]
    # Items right after a paragraph's first line, numbered ones too (their numbers kept).
    assert help_blocks(str(helps["--steps"])) == [
        (PARAGRAPH, ("Warm-up steps:",)),
        (ITEMS, ("1. compile", "2. capture graphs", "3. serve a dummy request")),
    ]
    assert help_blocks(registry.description)[-1] == (
        LINES,
        ("Examples:", "  shapeserver serve --mode lazy", "  shapeserver serve --port 9000"),
    )


@pytest.mark.parametrize("marker", ["1.", "-", "*", "2)"])
def test_a_list_marker_with_no_words_after_it_is_text(marker: str) -> None:
    """A line that is only a list marker is no empty list item: a reader sees the marker (a
    help "1. " on a line of its own once rendered as an empty cell)."""
    assert help_blocks(f"\n{marker} ") == [(PARAGRAPH, (marker,))]
    numbered = f"{marker} " if marker[0].isdigit() else ""
    assert help_blocks(f"Steps:\n{marker} \n{marker} load") == [
        (PARAGRAPH, (f"Steps: {marker}",)),
        (ITEMS, (f"{numbered}load",)),
    ]


def test_both_readings_give_the_same_help() -> None:
    static = load("help_shape_cli:serve", mode="static")
    live = load("help_shape_cli:serve", mode="live")
    assert [a.help for a in static.arguments] == [a.help for a in live.arguments]
    assert static.description == live.description


@pytest.mark.parametrize(
    ("marked", "markup", "text"),
    [
        ("The [bold]address[/bold], [blue]1.2.3.4[/blue].", RICH, "The address, 1.2.3.4."),
        ("[bold red on white]Loud[/] text", RICH, "Loud text"),
        ("A tag, written \\[like-this].", RICH, "A tag, written [like-this]."),
        ("Two \\\\[bold]bold[/bold]", RICH, "Two \\bold"),
        # Rich reads any `[word...]` as a tag, `[default: 8000]` too (Typer shows it so); `[1]`
        # is no tag.
        ("[default: 8000] is text? [1] too", RICH, " is text? [1] too"),
        ("**Bold** and *it* with `code`.", MARKDOWN, "Bold and it with `code`."),
        ("See [the guide](https://e.org/g).", MARKDOWN, "See the guide (https://e.org/g)."),
        ("One.\n\nTwo:\n\n- a\n- b", MARKDOWN, "One.\n\nTwo:\n\n- a\n- b"),
        ("```\nx  = 1\n```", MARKDOWN, "\b\nx  = 1"),
        ("[bold]kept[/bold] as written", None, "[bold]kept[/bold] as written"),
    ],
)
def test_typer_markup_is_read_as_its_words(marked: str, markup: str | None, text: str) -> None:
    assert plain_help(marked, markup) == text


RICH_HELPS = {
    "--host": "The address to bind, 127.0.0.1 by default.",
    "--tag": "A tag, written [like-this] (escaped: not markup).",
}
MARKDOWN_HELP = (
    "Where the site goes: any folder.\n\n- `site` by default\n"
    "- see the guide (https://example.org/guide)"
)


def test_a_typer_apps_help_reaches_the_model_without_its_markup() -> None:
    rich = load("typer_markup_cli:app", mode="static")
    assert rich.description == "Run the Server until it is stopped."
    assert {a.flags[0]: a.help for a in rich.arguments} == RICH_HELPS
    markdown = load("typer_markup_cli:docs", mode="static")
    assert markdown.description == "Build the documentation."
    assert [a.help for a in markdown.arguments] == [MARKDOWN_HELP]


@pytest.mark.live_env  # Typer 0.29.2 in .cache (make typer-libs)
def test_live_reading_of_typer_markup_says_the_same() -> None:
    from test_typer_registry import TYPERS, export

    folder = TYPERS["0.29.2"]
    if not (folder / ".installed").is_file():
        pytest.fail(f"Typer is not installed in {folder} (fix: run `make typer-libs`)")
    rich = export("typer_markup_cli:app", folder, static=False)
    assert rich["description"] == "Run the Server until it is stopped."
    assert {a["flags"][0]: a["help"] for a in rich["arguments"]} == RICH_HELPS
    markdown = export("typer_markup_cli:docs", folder, static=False)
    assert markdown["description"] == "Build the documentation."
    assert [a["help"] for a in markdown["arguments"]] == [MARKDOWN_HELP]


# ------------------------------------------------------------------ on the pages

CONFIG = """\
registry: {{target: 'help_shape_cli:serve', mode: static, search_path: [{registries}]}}
docs_dir: docs
pages:
  - {{template: server_arguments.md.j2, output: html.md, options: {{html: true}}}}
  - {{template: server_arguments.md.j2, output: plain.md}}
  - {{template: server_arguments.md.j2, output: compact.md, options: {{html: true, layout: compact}}}}
  - {{template: server_arguments.myst.j2, output: myst.md, format: myst}}
  - {{template: server_arguments.mdx.j2, output: page.mdx}}
  - {{template: cli_reference.md.j2, output: cli.md, options: {{prog: shapeserver}}}}
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shape")
    (root / ".git").mkdir()
    (root / "argmatrix.yaml").write_text(CONFIG.format(registries=REGISTRIES), encoding="utf-8")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return root / "docs"


def _rows(page: Path) -> dict[str, list[str]]:
    found = tables(page.read_text(encoding="utf-8"))
    return {
        row[0].split()[0].rstrip(",").removeprefix("{argmatrix-option}"): row
        for table in found
        for row in table.rows
    }


@pytest.mark.parametrize(("page", "line"), [("html.md", "\n"), ("myst.md", "\n")])
def test_a_cell_keeps_the_helps_paragraphs_items_and_lines(
    pages: Path, page: str, line: str
) -> None:
    """`tables` reads a `<br>` as a line break: a blank line between blocks, a line per item
    (after a bullet) and per kept line."""
    rows = _rows(pages / page)
    assert rows["--mode"][1] == (
        f"{MODE_HELP}{line}{line}• auto: pick from the files found{line}"
        f"• eager: load everything at start-up, before the first request{line}"
        f"• lazy: load on first use{line}{line}Pick lazy on small machines."
    )
    assert (
        rows["--layout"][1]
        == f"The tensor layout.{line}{line}row rows first{line}column columns first"
    )
    assert rows["--port"][1] == "The port to listen on."


def test_a_plain_table_has_the_help_on_one_line(pages: Path) -> None:
    text = (pages / "plain.md").read_text(encoding="utf-8")
    assert html_inline(text) == []  # plain GitHub Markdown, no raw HTML
    rows = _rows(pages / "plain.md")
    assert rows["--mode"][1].startswith(f"{MODE_HELP} - auto: pick from the files found - eager")


def test_the_commands_help_is_paragraphs_and_kept_lines_on_the_page(pages: Path) -> None:
    """Paragraphs of their own; the lines Click keeps as written, a code block of them."""
    for page in ("plain.md", "html.md", "myst.md", "page.mdx", "cli.md"):
        text = (pages / page).read_text(encoding="utf-8")
        assert (
            "Start the shape server.\n\nIt loads the model, then serves requests until it is"
            " stopped.\n\n```text\nExamples:\n  shapeserver serve --mode lazy\n"
            "  shapeserver serve --port 9000\n```\n" in text
        ), page


def test_the_compact_layout_keeps_the_shape_before_the_facts(pages: Path) -> None:
    rows = _rows(pages / "compact.md")
    assert rows["--layout"][1] == (
        "The tensor layout.\n\nrow rows first\ncolumn columns first\nDefault: row · Type: str"
    )


def test_the_mdx_page_breaks_its_cells_lines_with_jsx(pages: Path) -> None:
    text = (pages / "page.mdx").read_text(encoding="utf-8")
    assert (
        "<td>How the weights are loaded.<br /><br />• auto: pick from the files found<br />" in text
    )


def test_version_has_no_default_in_any_format(pages: Path) -> None:
    for page in ("plain.md", "html.md", "myst.md", "cli.md"):
        row = _rows(pages / page)["--version"]
        assert row[2] == "", (page, row)
    text = (pages / "page.mdx").read_text(encoding="utf-8")
    version = text[text.index("<code>--version</code>") :]
    cells = version.split("</tr>")[0].split("<td>")
    assert cells[2].startswith("</td>"), cells  # the Defaults cell: empty


def test_a_typer_apps_pages_print_no_markup(tmp_path: Path) -> None:
    root = tmp_path / "typer"
    root.mkdir()
    (root / ".git").mkdir()
    shutil.copy(REGISTRIES / "typer_markup_cli.py", root / "typer_markup_cli.py")
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'typer_markup_cli:app', mode: static}\ndocs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: app.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    text = (root / "docs" / "app.md").read_text(encoding="utf-8")
    assert "[bold]" not in text and "[/blue]" not in text
    assert "Run the Server until it is stopped." in text


@pytest.mark.engine  # a Sphinx build
def test_sphinx_shows_the_shape_in_the_directives_and_the_pages_cells(tmp_path: Path) -> None:
    from test_sphinx_build import read_page, sphinx_build

    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "argmatrix.yaml").write_text(
        CONFIG.format(registries=REGISTRIES).split("pages:")[0]
        + "pages:\n  - {template: server_arguments.myst.j2, output: ref.md, format: myst}\n",
        encoding="utf-8",
    )
    (root / "docs" / "conf.py").write_text(
        'extensions = ["myst_parser", "argmatrix.sphinx"]\nargmatrix_config = "../argmatrix.yaml"\n',
        encoding="utf-8",
    )
    (root / "docs" / "index.md").write_text(
        "# Shape\n\n```{toctree}\nref\n```\n\n```{argmatrix}\n:section: General\n:no-index:\n```\n",
        encoding="utf-8",
    )
    result = sphinx_build(root / "docs", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    directive = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    # The directive's cell: a paragraph per block line, a bullet before each item.
    assert (
        "<p>How the weights are loaded.</p>\n<p>• auto: pick from the files found</p>" in directive
    )
    page = read_page(tmp_path / "out" / "ref.html")
    mode = next(row for t in page.tables for row in t.rows if row.cells[0].startswith("--mode"))
    # (the reader joins the cell's text: the <br> between the lines has none)
    assert "How the weights are loaded.• auto: pick from the files found• eager" in mode.cells[1]
    text = (tmp_path / "out" / "ref.html").read_text(encoding="utf-8")
    assert "How the weights are loaded.<br><br>• auto" in text  # the cell's line breaks
    # The kept lines: a block of text, as written.
    assert "<pre><span></span>Examples:\n  shapeserver serve --mode lazy\n" in text


# ------------------------------------------------------------------ option groups


@pytest.mark.parametrize(
    ("target", "sections"),
    [
        (
            "option_groups_cli:serve",  # click-option-group
            {
                "--host": "Server configuration",
                "--port": "Server configuration",
                "--query": "Input",
                "--file": "Input",
                "--debug": "General",
            },
        ),
        (
            "option_groups_cli:tool",  # cloup: its title without the colon a help writes
            {
                "--verbose": "Global options",
                "--color": "Global options",
                "--cache-dir": "Cache",
                "--loose": "General",
            },
        ),
    ],
)
def test_option_groups_are_sections(target: str, sections: dict[str, str]) -> None:
    registry = load(target, mode="live")
    # every option once (click-option-group's stand-in for a group's title is no argument)
    assert {a.flags[0]: a.section for a in registry.arguments} == sections
    assert registry.sections == tuple(dict.fromkeys(sections.values()))


def test_static_reading_says_it_does_not_follow_option_groups() -> None:
    """Not followed statically: a located error naming the decorator, never a registry without
    the grouped options."""
    with pytest.raises(ArgmatrixError) as raised:
        load("option_groups_cli:serve", mode="static")
    message = str(raised.value)
    assert "optgroup.option" in message and "registry.mode: live" in message
