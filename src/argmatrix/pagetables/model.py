"""What the reader gives of a page: cells, rows, tables and the page itself, whatever the
syntax the tables were written in."""

from __future__ import annotations

import re
from dataclasses import dataclass

FLAG_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9_.-]*)")


@dataclass(frozen=True)
class Cell:
    """One cell: its plain text, the text of its code spans (or `<code>` elements), its raw
    inline HTML (when read as markdown-it reads it) and how many columns it spans."""

    text: str
    codes: tuple[str, ...] = ()
    html: tuple[str, ...] = ()
    span: int = 1

    def flags(self) -> tuple[str, ...]:
        """The flags the cell names: those in its code when it has code that starts with `-`,
        else every flag-like word of its text (`--model-path, --model`)."""
        sources = [c for c in self.codes if c.strip().startswith("-")] or [self.text]
        found = (flag.rstrip(".") for source in sources for flag in FLAG_TOKEN.findall(source))
        return tuple(dict.fromkeys(found))

    def code_flags(self) -> tuple[str, ...]:
        """The long flags written as code in the cell (`--x` in a description)."""
        found = (c.strip().rstrip(".") for c in self.codes)
        return tuple(dict.fromkeys(c for c in found if FLAG_TOKEN.fullmatch(c) and "--" in c))


EMPTY = Cell("")


@dataclass(frozen=True)
class TableRow:
    """A row with its line and its cells as written: a pipe-table row has as many cells as its
    source line separates (markdown-it would drop those beyond the header's count, and pad a
    short row with empty ones)."""

    line: int
    cells: tuple[Cell, ...]
    header: bool = False  # the header of a pipe table, or a row of <th> only / in <thead>
    written: tuple[str, ...] = ()  # a pipe-table row: the source of each cell, split at `|`

    @property
    def width(self) -> int:
        return sum(cell.span for cell in self.cells)


@dataclass(frozen=True)
class PageTable:
    """A table of the page, from its first line. `section` and `caption` are where it stands on
    the page (the heading it is under, the sub-heading or paragraph just before it), when the
    reader follows the page's outline."""

    line: int
    rows: tuple[TableRow, ...]
    section: str = ""
    caption: str = ""
    columns: int = 0  # a pipe table: the columns its delimiter row sets (markdown-it's cells)

    @property
    def width(self) -> int:
        """The table's number of columns: its header's, else its first row's."""
        header = next((row for row in self.rows if row.header), None)
        first = header or (self.rows[0] if self.rows else None)
        return first.width if first else 0

    @property
    def body(self) -> tuple[TableRow, ...]:
        return tuple(row for row in self.rows if not row.header)


@dataclass(frozen=True)
class Page:
    """A page's outline (its title, its section headings and their lines) and its tables;
    `headings`: every heading as (text, line, level), in page order."""

    file: str
    title: str
    sections: tuple[tuple[str, int], ...]
    tables: tuple[PageTable, ...]
    headings: tuple[tuple[str, int, int], ...] = ()
