"""The one reader of the tables of hand-written pages: Markdown pipe tables, MyST
`{list-table}` directives and HTML or JSX `<table>` elements (MDX), as rows of cells with their
lines, for the coverage check (`checks.coverage`) and for `audit` and `import` (`adoption`).

`model` holds what a page is read into (`Cell`, `TableRow`, `PageTable`, `Page`); `read` the two
ways to read one (`read_tables`, `read_markdown_page`); `pipe`, `list_tables` and `html_tables`
one syntax each; `cells` how a cell's source is read; `outline` the title, sections and captions;
`parser` the one markdown-it set-up, made when a page is first read. Nothing here knows the
registry or argmatrix.yaml.
"""

from __future__ import annotations

from argmatrix.pagetables.cells import markup_cell
from argmatrix.pagetables.html_tables import Syntax
from argmatrix.pagetables.model import EMPTY, FLAG_TOKEN, Cell, Page, PageTable, TableRow
from argmatrix.pagetables.outline import Outline
from argmatrix.pagetables.read import normalized, read_markdown_page, read_tables

__all__ = [
    "EMPTY",
    "FLAG_TOKEN",
    "Cell",
    "Outline",
    "Page",
    "PageTable",
    "Syntax",
    "TableRow",
    "markup_cell",
    "normalized",
    "read_markdown_page",
    "read_tables",
]
