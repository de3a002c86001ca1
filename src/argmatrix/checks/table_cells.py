"""The cells of a page's tables and how a cell is read, shared by the readers of each table
syntax (`tables` for pipe and HTML tables, `list_tables` for MyST list tables): a cell's text and
code spans, the rows and tables they make, markdown-it made when first needed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def markdown_blocks() -> MarkdownIt:
    """The parser, made (and markdown-it imported) when a page's tables are first read: a
    `check` without `checks.coverage` never pays for it. The block structure only (fences, pipe
    tables, HTML blocks): cells are read here, and inline parsing costs markdown-it microseconds
    a character on text such as a million `{`."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


FLAG_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9_.-]*)")


@dataclass(frozen=True)
class Cell:
    """One cell: its plain text, the text of its code spans or `<code>` elements, its width."""

    text: str
    codes: tuple[str, ...] = ()
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


@dataclass(frozen=True)
class TableRow:
    line: int
    cells: tuple[Cell, ...]
    header: bool = False  # the header of a pipe table, or a row of <th> only / in <thead>

    @property
    def width(self) -> int:
        return sum(cell.span for cell in self.cells)


@dataclass(frozen=True)
class PageTable:
    line: int
    rows: tuple[TableRow, ...]

    @property
    def width(self) -> int:
        """The table's number of columns: its header's, else its first row's."""
        header = next((row for row in self.rows if row.header), None)
        first = header or (self.rows[0] if self.rows else None)
        return first.width if first else 0

    @property
    def body(self) -> tuple[TableRow, ...]:
        return tuple(row for row in self.rows if not row.header)


_TAG = re.compile(r"<[^<>\n]*>")  # a tag within a cell (`<br>`), read as a space


def inline_cell(inline: Token) -> Cell:
    """A pipe-table cell from its source: code spans as code, tags as spaces, the rest text."""
    source = inline.content
    runs = backtick_runs(source)
    parts: list[str] = []
    codes: list[str] = []
    position = 0
    while True:
        start = source.find("`", position)
        if start < 0:
            parts.append(source[position:])
            break
        length = run_length(source, start)
        end = runs.closing(start, length)
        if end is None:
            parts.append(source[position : start + length])
            position = start + length
            continue
        code = " ".join(source[start + length : end].split())
        parts.extend((source[position:start], f" {code} "))
        codes.append(code)
        position = end + length
    text = _TAG.sub(" ", "".join(parts))
    return Cell(" ".join(text.split()), tuple(codes))


def run_length(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] == "`":
        end += 1
    return end - start


class BacktickRuns:
    """Where each run of backticks is, by length, to find a code span's closing run at once
    (a search for each opening run would be quadratic on a page of unmatched backticks)."""

    def __init__(self, runs: dict[int, list[int]]) -> None:
        self.runs = runs
        self.next: dict[int, int] = {}  # per length: the index of the next run not yet passed

    def closing(self, start: int, length: int) -> int | None:
        positions = self.runs.get(length, [])
        index = self.next.get(length, 0)
        while index < len(positions) and positions[index] <= start:
            index += 1
        self.next[length] = index
        return positions[index] if index < len(positions) else None


def backtick_runs(text: str) -> BacktickRuns:
    runs: dict[int, list[int]] = {}
    for match in re.finditer(r"`+", text):
        runs.setdefault(len(match.group()), []).append(match.start())
    return BacktickRuns(runs)
