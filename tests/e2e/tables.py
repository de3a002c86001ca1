"""The tables of a built HTML page, read with the standard library's HTML parser: each table a
list of rows, each row a list of cells, each cell its text and the ids of the anchors in it."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import NamedTuple


class Cell(NamedTuple):
    text: str
    ids: tuple[str, ...]


Table = list[list[Cell]]


# Elements inside a cell that part its text as whitespace does.
_BREAKS = {"br", "p", "li"}


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.elements: list[list[str]] = []  # per table: the elements opened inside its cells
        self._depth = 0
        self._row: list[Cell] | None = None
        self._text: list[str] | None = None
        self._ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
            self.tables.append([])
            self.elements.append([])
        elif self._depth and tag == "tr":
            self._row = []
        elif self._depth and tag in ("td", "th"):
            self._text, self._ids = [], []
        elif self._text is not None:
            self.elements[-1].append(tag)
            if tag in _BREAKS:  # a reader sees a line or a paragraph break: a space in the text
                self._text.append(" ")
            self._ids.extend(value or "" for name, value in attrs if name == "id")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None
        elif tag in ("td", "th") and self._text is not None and self._row is not None:
            self._row.append(Cell(" ".join("".join(self._text).split()), tuple(self._ids)))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def tables_of(html: str) -> list[Table]:
    """Every table of the page, in order."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return parser.tables


def argument_tables(html: str) -> list[Table]:
    """The tables argmatrix wrote (a theme may add tables of its own): first header 'Argument'."""
    return [t for t in tables_of(html) if t and t[0] and t[0][0].text == "Argument"]


def cell_elements(html: str) -> list[str]:
    """The elements inside the cells of argmatrix's tables, in order (`code`, `a`, `br`...)."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return [
        tag
        for table, tags in zip(parser.tables, parser.elements, strict=True)
        if table and table[0] and table[0][0].text == "Argument"
        for tag in tags
    ]
