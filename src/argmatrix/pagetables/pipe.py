"""Markdown pipe tables, from markdown-it's block tokens: each row with its line and its cells as
its source line writes them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from argmatrix.pagetables.model import EMPTY, Cell, PageTable, TableRow

if TYPE_CHECKING:
    from markdown_it.token import Token


def line_of(token: Token) -> int:
    """The page's line (from 1) where a block token starts."""
    return token.map[0] + 1 if token.map else 1


def pipe_table(
    tokens: list[Token],
    start: int,
    lines: list[str],
    read_cell: Callable[[str], Cell],
    section: str = "",
    caption: str = "",
) -> PageTable:
    """The table whose `table_open` is `tokens[start]`; `read_cell` reads a cell's source."""
    rows: list[TableRow] = []
    sources: list[str] = []
    columns = 0
    row_token = tokens[start]
    index = start + 1
    while index < len(tokens) and tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "tr_open":
            sources, row_token = [], token
        elif token.type == "inline":
            sources.append(token.content)
        elif token.type == "tr_close":
            columns = columns or len(sources)
            rows.append(_row(row_token, sources, lines, read_cell, header=not rows))
        index += 1
    return PageTable(line_of(tokens[start]), tuple(rows), section, caption, columns)


def _row(
    token: Token,
    sources: list[str],
    lines: list[str],
    read_cell: Callable[[str], Cell],
    header: bool,
) -> TableRow:
    cells = [read_cell(source) for source in sources]
    written = written_cells(lines, token)
    if len(written) > len(cells):  # markdown-it drops the cells beyond the header's count
        cells += [EMPTY] * (len(written) - len(cells))
    elif 0 < len(written) < len(cells):  # and pads a short row with empty ones
        cells = cells[: len(written)]
    return TableRow(line_of(token), tuple(cells), header, tuple(written))


def written_cells(lines: list[str], row: Token) -> list[str]:
    """The row's cells as written in its source line: split at every unescaped `|`, without the
    optional outer ones. (A quoted table's `>` marks are not part of the row.)"""
    if not row.map:
        return []
    source = re.sub(r"^(\s*>)+", "", lines[row.map[0]]).strip()
    source = source[1:] if source.startswith("|") else source
    if source.endswith("|") and not source.endswith("\\|"):
        source = source[:-1]
    return [part.strip() for part in re.split(r"(?<!\\)\|", source)]
