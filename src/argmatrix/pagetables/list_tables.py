"""MyST's `{list-table}` directive, read as myst-parser builds it: a list of rows, each a list of
cells, in a backtick or tilde fence (wherever markdown-it finds one, inside a directive whose
content is MyST too) or a colon fence outside code; `:header-rows:` (an option line or in a `---`
block) says how many rows are the header, and a directive myst-parser refuses is no table."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from argmatrix.pagetables.cells import source_cell
from argmatrix.pagetables.model import Cell, PageTable, TableRow
from argmatrix.pagetables.parser import blocks

if TYPE_CHECKING:
    from markdown_it.token import Token


_LIST_TABLE = "{list-table}"
_COLON_OPENING = re.compile(r"^( {0,3})(:{3,})\s*\{list-table\}")
_OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")
_HEADER_ROWS = re.compile(r"^\s*(\d{1,4})\s*$")


def list_tables(
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
            inner = blocks("\n".join(body))
            tables += list_tables(inner, body, start, depth + 1)
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
    tokens = blocks("\n".join(content[body_start:]))
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
    parts = [source_cell(inline.content) for inline in inlines]
    text = " ".join(part.text for part in parts if part.text)
    return Cell(text, tuple(code for part in parts for code in part.codes))
