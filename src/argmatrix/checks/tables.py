"""The tables of a hand-maintained page, as rows of cells with their lines, whatever the syntax.

Three syntaxes are read, all in one page: Markdown pipe tables (markdown-it, the parser the rest
of argmatrix uses), MyST's `{list-table}` directive (a list of rows, each a list of cells, in a
backtick, tilde or colon fence; `:header-rows:` says how many rows are the header), and HTML or
JSX `<table>` elements with `<tr>`/`<th>`/`<td>` rows, as SGLang writes its MDX pages (the
standard library's `html.parser`, which never raises on broken markup).

Before the HTML is read, what is not markup is blanked (every newline kept, so lines still
count): fenced and indented code, the lines of pipe tables, a frontmatter block; in MDX, the
comments `{/* ... */}` and JSX expressions `{...}`, which may hold anything, `<td>` included.
Code spans become `<code>` elements with their text escaped, so a `` `<tr>` `` in prose is no row.

Nothing here knows the registry: `coverage` compares the rows with it. The reading is linear in
the page's size; a page that cannot be read (an MDX expression that never closes) is one located
error.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Literal

from argmatrix.errors import ArgmatrixError

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

Syntax = Literal["markdown", "mdx"]


@cache
def _markdown() -> MarkdownIt:
    """The parser, made (and markdown-it imported) when a page's tables are first read: a
    `check` without `checks.coverage` never pays for it. The block structure only (fences, pipe
    tables, HTML blocks): cells are read here, and inline parsing costs markdown-it microseconds
    a character on text such as a million `{`."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


FLAG_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9_.-]*)")
MAX_COLSPAN = 1000  # a `colspan` beyond this is read as this (the HTML standard's own bound)
# Reading costs a few microseconds a tag (html.parser) and tens a pipe-table row (markdown-it):
# these bound a page to about a second of each. SGLang's page has about 5,000 tags.
MAX_TAGS = 150_000
MAX_PIPE_LINES = 20_000


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


def read_tables(text: str, file: str, syntax: Syntax) -> list[PageTable]:
    """Every table of the page, in the order of their first lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    _refuse_too_much_markup(text, file)
    tokens = _markdown().parse(text)
    lines = text.split("\n")
    markdown = [
        _pipe_table(tokens, i, lines) for i, t in enumerate(tokens) if t.type == "table_open"
    ]
    markup = _markup_only(text, tokens, syntax, file)
    tables = [*markdown, *_list_tables(tokens, lines), *_html_tables(markup)]
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


# ------------------------------------------------------------------ Markdown pipe tables


def _pipe_table(tokens: list[Token], start: int, lines: list[str]) -> PageTable:
    rows: list[TableRow] = []
    cells: list[Cell] = []
    index = start + 1
    while index < len(tokens) and tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(_inline_cell(token))
        elif token.type == "tr_close":
            row_token = _row_open(tokens, index)
            line = _line(row_token)
            raw = _raw_cell_count(lines, row_token)
            if raw > len(cells):  # markdown-it drops the cells beyond the header's count
                cells += [Cell("")] * (raw - len(cells))
            elif 0 < raw < len(cells):  # and pads a short row with empty ones
                cells = cells[:raw]
            rows.append(TableRow(line, tuple(cells), header=not rows))
        index += 1
    return PageTable(_line(tokens[start]), tuple(rows))


def _row_open(tokens: list[Token], close: int) -> Token:
    index = close
    while tokens[index].type != "tr_open":
        index -= 1
    return tokens[index]


def _line(token: Token) -> int:
    return token.map[0] + 1 if token.map else 1


def _raw_cell_count(lines: list[str], row: Token) -> int:
    """How many cells the row's source line really has: pipes that are not escaped, without the
    optional outer ones. (A quoted table's `>` marks are not part of the row.)"""
    if not row.map:
        return 0
    source = re.sub(r"^(\s*>)+", "", lines[row.map[0]]).strip()
    source = source[1:] if source.startswith("|") else source
    if source.endswith("|") and not source.endswith("\\|"):
        source = source[:-1]
    return len(re.findall(r"(?<!\\)\|", source)) + 1


_TAG = re.compile(r"<[^<>\n]*>")  # a tag within a cell (`<br>`), read as a space


def _inline_cell(inline: Token) -> Cell:
    """A pipe-table cell from its source: code spans as code, tags as spaces, the rest text."""
    source = inline.content
    runs = _backtick_runs(source)
    parts: list[str] = []
    codes: list[str] = []
    position = 0
    while True:
        start = source.find("`", position)
        if start < 0:
            parts.append(source[position:])
            break
        length = _run_length(source, start)
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


# ------------------------------------------------------------------ MyST list tables

_LIST_TABLE = "{list-table}"
_COLON_OPENING = re.compile(r"^( {0,3})(:{3,})\s*\{list-table\}")
_OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")
_HEADER_ROWS = re.compile(r"^\s*(\d{1,4})\s*$")


def _list_tables(
    tokens: list[Token], lines: list[str], offset: int = 0, depth: int = 0
) -> list[PageTable]:
    """Every `{list-table}` directive of a MyST page that myst-parser builds a table from: in a
    backtick or tilde fence (as markdown-it finds fences, in lists and quotes too, and inside a
    directive whose content is MyST, such as a note; never inside code), or in a colon fence
    outside code. `offset`: the page's line (from 0) of `lines[0]`."""
    tables = []
    for token in tokens:
        if token.type != "fence" or not token.map:
            continue
        info, fence_line = token.info.strip(), offset + token.map[0]
        directive = _DIRECTIVE.match(info)
        if info.startswith(_LIST_TABLE):
            table = _list_table(token.content.split("\n"), fence_line + 2, fence_line + 1)
            if table is not None:
                tables.append(table)
        elif directive and directive.group(1) not in _LITERAL_DIRECTIVES and depth < 8:
            content = token.content.split("\n")
            body = content[_directive_options(content)[1] :]
            start = fence_line + 1 + len(content) - len(body)
            inner = _markdown().parse("\n".join(body))
            tables += _list_tables(inner, body, start, depth + 1)
    tables += _colon_list_tables(tokens, lines, offset)
    return tables


# Directives whose content is not MyST (code, math, another markup): no table in them.
_DIRECTIVE = re.compile(r"^\{([\w:.-]+)\}")
_LITERAL_DIRECTIVES = frozenset(
    {
        "code",
        "code-block",
        "code-cell",
        "sourcecode",
        "literalinclude",
        "include",
        "math",
        "raw",
        "eval-rst",
        "csv-table",
        "mermaid",
        "graphviz",
        "argmatrix",
    }
)


def _colon_list_tables(tokens: list[Token], lines: list[str], offset: int) -> list[PageTable]:
    code = _code_lines(tokens)
    tables = []
    index = 0
    while index < len(lines):
        opening = None if index in code else _COLON_OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = len(opening.group(1)), opening.group(2)
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        content = [
            line[indent:] if line[:indent].isspace() else line for line in lines[index + 1 : end]
        ]
        table = _list_table(content, offset + index + 2, offset + index + 1)
        if table is not None:
            tables.append(table)
        index = end + 1
    return tables


def _code_lines(tokens: list[Token]) -> set[int]:
    """The lines (0-based) of fenced and indented code blocks."""
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def _closes(line: str, fence: str) -> bool:
    """A closing fence: at most three spaces in, the fence's character only, as long or longer."""
    stripped = line.strip()
    indent = len(line) - len(line.lstrip(" "))
    return indent <= 3 and len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _list_table(content: list[str], first_line: int, line: int) -> PageTable | None:
    """A list table's rows, None if myst-parser builds no table from it: its options (`:key:
    value` lines, or a `---` YAML block) first, then one list whose items are the rows, each a
    list whose items are the cells. `first_line`: the page's line of the content's first line."""
    options, body_start = _directive_options(content)
    header = _HEADER_ROWS.match(options.get("header-rows", "0"))
    header_rows = int(header.group(1)) if header else 0
    tokens = _markdown().parse("\n".join(content[body_start:]))
    if not _one_list(tokens):
        return None
    first_line += body_start
    rows: list[TableRow] = []
    depth = 0
    cells: list[Cell] = []
    row_line = first_line
    cell_parts: list[Token] = []
    for token in tokens:
        if token.type == "bullet_list_open":
            depth += 1
        elif token.type == "bullet_list_close":
            depth -= 1
        elif token.type == "list_item_open" and depth == 1:
            cells, row_line = [], first_line + (token.map[0] if token.map else 0)
        elif token.type == "list_item_open" and depth == 2:
            cell_parts = []
        elif token.type == "inline" and depth >= 2:
            cell_parts.append(token)
        elif token.type == "list_item_close" and depth == 2:
            cells.append(_joined_cell(cell_parts))
        elif token.type == "list_item_close" and depth == 1:
            rows.append(TableRow(row_line, tuple(cells), header=len(rows) < header_rows))
    return PageTable(line, tuple(rows))


def _directive_options(content: list[str]) -> tuple[dict[str, str], int]:
    """A directive's options and the index of its body's first line."""
    options: dict[str, str] = {}
    if content and content[0].strip() == "---":
        end = next((i for i in range(1, len(content)) if content[i].strip() == "---"), None)
        if end is not None:
            for text in content[1:end]:
                key, _, value = text.partition(":")
                options[key.strip()] = value.strip()
            return options, end + 1
    index = 0
    while index < len(content):
        match = _OPTION.match(content[index])
        if match is None:
            break
        options[match.group(1)] = match.group(2)
        index += 1
    return options, index


def _one_list(tokens: list[Token]) -> bool:
    """Whether the body is one bullet list of items that each hold one bullet list (myst-parser
    refuses anything else: no table is built)."""
    top = [t for t in tokens if t.level == 0]
    if not top or top[0].type != "bullet_list_open" or top[-1].type != "bullet_list_close":
        return False
    if any(t.type not in ("bullet_list_open", "bullet_list_close") for t in top):
        return False
    if sum(1 for t in top if t.type == "bullet_list_open") != 1:
        return False
    items = [t for t in tokens if t.type == "list_item_open" and t.level == 1]
    inner = [t for t in tokens if t.level == 2 and t.nesting != 0]
    lists_in_items = [t for t in inner if t.type == "bullet_list_open"]
    return len(items) == len(lists_in_items) and all(
        t.type in ("bullet_list_open", "bullet_list_close") for t in inner
    )


def _joined_cell(inlines: list[Token]) -> Cell:
    """A cell of paragraphs (or nested lists): their text and code, in order."""
    parts = [_inline_cell(inline) for inline in inlines]
    text = " ".join(part.text for part in parts if part.text)
    return Cell(text, tuple(code for part in parts for code in part.codes))


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
        self.backtick_runs = _backtick_runs(text)

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
        length = _run_length(self.text, start)
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


def _run_length(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] == "`":
        end += 1
    return end - start


class _BacktickRuns:
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


def _backtick_runs(text: str) -> _BacktickRuns:
    runs: dict[int, list[int]] = {}
    for match in re.finditer(r"`+", text):
        runs.setdefault(len(match.group()), []).append(match.start())
    return _BacktickRuns(runs)


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


def _html_tables(markup: str) -> list[PageTable]:
    reader = _TableReader()
    reader.feed(markup)
    reader.close()
    return reader.done


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
        table.cells.append(Cell(text, tuple(c.strip() for c in table.codes), table.span))
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
