"""HTML and JSX `<table>` elements with `<tr>`/`<th>`/`<td>` rows, as SGLang writes its MDX pages,
read with the standard library's `html.parser` (which never raises on broken markup).

Before the HTML is read, what is not markup is blanked (every newline kept, so lines still
count): fenced and indented code, the lines of pipe tables, a frontmatter block; in MDX, the
comments `{/* ... */}` and JSX expressions `{...}`, which may hold anything, `<td>` included.
Code spans become `<code>` elements with their text escaped, so a `` `<tr>` `` in prose is no row.
The reading is linear in the page's size; a page that cannot be read (an MDX expression that
never closes) is one located error.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Literal

from argmatrix.errors import ArgmatrixError
from argmatrix.pagetables.cells import backtick_runs, run_length
from argmatrix.pagetables.model import Cell, PageTable, TableRow

if TYPE_CHECKING:
    from markdown_it.token import Token

Syntax = Literal["markdown", "mdx"]

MAX_COLSPAN = 1000  # a `colspan` beyond this is read as this (the HTML standard's own bound)


def html_tables(text: str, tokens: list[Token], syntax: Syntax, file: str) -> list[PageTable]:
    """The `<table>` elements of the page (`tokens`: its markdown-it block tokens)."""
    reader = _TableReader()
    reader.feed(_markup_only(text, tokens, syntax, file))
    reader.close()
    return reader.done


# ------------------------------------------------------------------ what is markup


def _markup_only(text: str, tokens: list[Token], syntax: Syntax, file: str) -> str:
    """The page with everything that is not markup blanked, newlines kept."""
    lines = text.split("\n")
    # MDX has no indented code: an indented `<tr>` after a blank line inside a `<table>` is
    # markup there, where CommonMark would make it a code block.
    code = ("fence", "table_open") if syntax == "mdx" else ("fence", "code_block", "table_open")
    for token in tokens:
        if token.type in code and token.map:
            for number in range(token.map[0], token.map[1]):
                lines[number] = ""
    _blank_frontmatter(lines)
    return _Scanner("\n".join(lines), syntax, file).markup()


def _blank_frontmatter(lines: list[str]) -> None:
    if not lines or lines[0].strip() != "---":
        return
    for number in range(1, len(lines)):
        if lines[number].strip() in ("---", "..."):
            for blanked in range(number + 1):
                lines[blanked] = ""
            return


class _Scanner:
    """One pass over the text: code spans to `<code>`, and (MDX) comments and expressions out."""

    _SPECIAL = re.compile(r"\\[\\`{]|[`{]")

    def __init__(self, text: str, syntax: Syntax, file: str) -> None:
        self.text = text
        self.mdx = syntax == "mdx"
        self.file = file
        self.out: list[str] = []
        self.backtick_runs = backtick_runs(text)

    def markup(self) -> str:
        position = 0
        text = self.text
        while True:
            match = self._SPECIAL.search(text, position)
            if match is None:
                self.out.append(text[position:])
                return "".join(self.out)
            start = match.start()
            self.out.append(text[position:start])
            if text[start] == "\\":  # an escaped backtick or brace is text
                self.out.append(html.escape(match.group()[1:], quote=False))
                position = match.end()
            elif text[start] == "`":
                position = self._code_span(start)
            elif self.mdx:
                position = self._expression(start)
            else:
                self.out.append("{")
                position = start + 1

    def _code_span(self, start: int) -> int:
        length = run_length(self.text, start)
        end = self.backtick_runs.closing(start, length)
        if end is None:
            self.out.append(self.text[start : start + length])
            return start + length
        content = self.text[start + length : end]
        newlines = content.count("\n")
        code = html.escape(" ".join(content.split()), quote=False)
        self.out.append(f"<code>{code}</code>" + "\n" * newlines)
        return end + length

    def _expression(self, start: int) -> int:
        """Skip `{...}` (a comment `{/* */}` is one too), blanking it but its newlines."""
        end = _expression_end(self.text, start)
        if end is None:
            line = self.text.count("\n", 0, start) + 1
            raise ArgmatrixError.at(
                "an MDX expression '{' opened here is never closed",
                file=self.file,
                line=line,
                fix="close it with '}', or write '\\{' for a brace as text",
            )
        self.out.append(" " + "\n" * self.text.count("\n", start, end))
        return end


_JS_TOKEN = re.compile(r"""[{}'"`]|/\*|//""")


def _expression_end(text: str, start: int) -> int | None:
    """The end of the JSX expression at `start` (just after its closing brace): braces nest;
    a JavaScript string, template or comment may hold any brace. None when it never closes."""
    depth = 0
    position = start
    while True:
        for match in _JS_TOKEN.finditer(text, position):
            token = match.group()
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth == 0:
                    return match.end()
            else:  # a string or a comment: skip to its end, and go on reading tokens from there
                found = _string_end(text, match.end(), _CLOSERS.get(token, token))
                if found is None:
                    return None
                position = found
                break
        else:
            return None


_CLOSERS = {"/*": "*/", "//": "\n"}


def _string_end(text: str, position: int, closer: str) -> int | None:
    """Just after `closer` (a quote, or a comment's end), a backslash escaping one character."""
    escaping = closer in ("'", '"', "`")
    while True:
        end = text.find(closer, position)
        if end < 0:
            return None
        backslashes = 0
        while (
            escaping and end - backslashes - 1 >= position and text[end - backslashes - 1] == "\\"
        ):
            backslashes += 1
        if backslashes % 2 == 0:
            return end + len(closer)
        position = end + 1


# ------------------------------------------------------------------ HTML and JSX tables


@dataclass
class _OpenTable:
    line: int
    rows: list[TableRow] = field(default_factory=list)
    cells: list[Cell] | None = None  # the open row's cells
    row_line: int = 0
    in_head: bool = False
    all_th: bool = True
    cell: list[str] | None = None  # the open cell's text
    codes: list[str] = field(default_factory=list)
    code: list[str] | None = None  # the open <code>'s text
    span: int = 1


class _TableReader(HTMLParser):
    """`<table>` elements (nested ones too) as rows of cells. Missing end tags end where HTML
    would end them: a cell at the next cell or row, a row at the next row, all at `</table>` or
    at the end of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[_OpenTable] = []
        self.done: list[PageTable] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.open.append(_OpenTable(self.getpos()[0]))
        elif not self.open:
            return
        table = self.open[-1]
        if tag == "thead":
            table.in_head = True
        elif tag in ("tbody", "tfoot"):
            table.in_head = False
        elif tag == "tr":
            self._end_row(table)
            table.cells, table.row_line, table.all_th = [], self.getpos()[0], True
        elif tag in ("td", "th"):
            self._end_cell(table)
            if table.cells is None:  # a cell outside any row starts one
                table.cells, table.row_line, table.all_th = [], self.getpos()[0], True
            table.cell, table.codes, table.span = [], [], _colspan(attrs)
            table.all_th = table.all_th and tag == "th"
        elif tag == "code" and table.cell is not None:
            table.code = []
        elif tag == "br" and table.cell is not None:
            table.cell.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and self.open and self.open[-1].cell is not None:
            self.open[-1].cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if not self.open:
            return
        table = self.open[-1]
        if tag == "table":
            self._end_table()
        elif tag == "thead":
            table.in_head = False
        elif tag == "tr":
            self._end_row(table)
        elif tag in ("td", "th"):
            self._end_cell(table)
        elif tag == "code" and table.code is not None:
            table.codes.append("".join(table.code))
            table.code = None

    def handle_data(self, data: str) -> None:
        if not self.open:
            return
        table = self.open[-1]
        if table.cell is not None:
            table.cell.append(data)
        if table.code is not None:
            table.code.append(data)

    def close(self) -> None:
        super().close()
        while self.open:
            self._end_table()

    def _end_cell(self, table: _OpenTable) -> None:
        if table.cell is None or table.cells is None:
            return
        if table.code is not None:
            table.codes.append("".join(table.code))
            table.code = None
        text = " ".join("".join(table.cell).split())
        table.cells.append(Cell(text, tuple(c.strip() for c in table.codes), span=table.span))
        table.cell = None

    def _end_row(self, table: _OpenTable) -> None:
        self._end_cell(table)
        if table.cells is not None:
            header = table.in_head or (table.all_th and bool(table.cells))
            table.rows.append(TableRow(table.row_line, tuple(table.cells), header))
        table.cells = None

    def _end_table(self) -> None:
        table = self.open.pop()
        self._end_row(table)
        self.done.append(PageTable(table.line, tuple(table.rows)))


def _colspan(attrs: list[tuple[str, str | None]]) -> int:
    for name, value in attrs:
        if name == "colspan" and value is not None and value.strip().isdigit():
            return max(1, min(int(value.strip()), MAX_COLSPAN))
    return 1
