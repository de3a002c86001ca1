"""The two ways a page's tables are read: every table of a page kept by hand, cells as written
(`read_tables`, the coverage check), or a Markdown page's outline and pipe tables, cells as
markdown-it reads them (`read_markdown_page`, `audit` and `import`)."""

from __future__ import annotations

from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.pagetables.cells import markup_cell, source_cell
from argmatrix.pagetables.html_tables import Syntax, html_tables
from argmatrix.pagetables.list_tables import list_tables
from argmatrix.pagetables.model import Cell, Page, PageTable
from argmatrix.pagetables.outline import Outline
from argmatrix.pagetables.parser import blocks
from argmatrix.pagetables.pipe import line_of, pipe_table

# Reading costs a few microseconds a tag (html.parser) and tens a pipe-table row (markdown-it):
# these bound a page to about a second of each. SGLang's page has about 5,000 tags.
MAX_TAGS = 150_000
MAX_PIPE_LINES = 20_000


def normalized(text: str) -> str:
    """The text with every line ending a newline, as markdown-it reads it."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_tables(text: str, file: str, syntax: Syntax) -> list[PageTable]:
    """Every table of a page kept by hand, in the order of their first lines: Markdown pipe
    tables, MyST `{list-table}` directives, HTML or JSX `<table>` elements. Each cell is read as
    written (`source_cell`); a page with more markup than a person keeps is one located error."""
    text = normalized(text)
    _refuse_too_much_markup(text, file)
    tokens = blocks(text)
    lines = text.split("\n")
    markdown = [
        pipe_table(tokens, i, lines, source_cell)
        for i, token in enumerate(tokens)
        if token.type == "table_open"
    ]
    markup = html_tables(text, tokens, syntax, file)
    tables = [*markdown, *list_tables(tokens, lines), *markup]
    return sorted(tables, key=lambda table: table.line)


def _refuse_too_much_markup(text: str, file: str) -> None:
    tags = text.count("<")
    pipe_lines = sum(1 for line in text.split("\n") if "|" in line)
    if tags > MAX_TAGS or pipe_lines > MAX_PIPE_LINES:
        what = f"{tags} '<'" if tags > MAX_TAGS else f"{pipe_lines} lines with a '|'"
        limit = MAX_TAGS if tags > MAX_TAGS else MAX_PIPE_LINES
        raise ArgmatrixError.at(
            f"the page has {what} (more than {limit}): too much markup for a page kept by hand",
            file=file,
            line=1,
            fix="split the page, or leave it out of checks.coverage",
        )


def read_markdown_page(text: str, file: str) -> Page:
    """A Markdown page's title, sections and pipe tables, each table with its section and
    caption (`Outline`); headings, captions and cells read as markdown-it reads them."""
    text = normalized(text)
    env: dict[str, Any] = {}
    tokens = blocks(text, env)
    lines = text.split("\n")

    def read(source: str) -> Cell:
        return markup_cell(source, env)

    outline = Outline()
    tables: list[PageTable] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = read(tokens[index + 1].content).text
            outline.heading(heading, line_of(token), int(token.tag[1:]))
        elif token.type == "paragraph_open" and token.level == 0:
            outline.caption = read(tokens[index + 1].content).text
        elif token.type == "table_open":
            table = pipe_table(tokens, index, lines, read, outline.section, outline.caption)
            tables.append(table)
            outline.caption = ""
    return outline.page(file, tables)
