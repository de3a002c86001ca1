"""Read a hand-written argument page into rows, whatever layout it was written in.

Two layouts are understood:

* Markdown tables, one per section (`## Section` then `| Argument | ... |`). Columns are told
  apart by their header: argument, description, default, options, a single support-status
  column, a note, a reason, a replacement, and one support-mark column per hardware variant
  (`A2 Supported`, or any unknown header whose cells are all marks such as `√`/`×`).
* Text copied from a rendered site: one table cell per paragraph, headings ending in `#` (the
  header-link character), the column headers repeated before every table, long flags wrapped
  across lines.

Nothing here knows the registry; `audit` and `importer` compare the rows with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from argmatrix._runtime.files import read_user_file
from argmatrix.errors import ArgmatrixError

# ------------------------------------------------------------------ columns

ARGUMENT, DESCRIPTION, DEFAULT, OPTIONS = "argument", "description", "default", "options"
STATUS, NOTE, REASON, REPLACEMENT = "status", "note", "reason", "replacement"
VARIANT, OTHER = "variant", "other"

_HEADER_ROLES: dict[str, str] = {
    **dict.fromkeys(
        (
            "argument",
            "arguments",
            "argument name",
            "flag",
            "flags",
            "parameter",
            "parameters",
            "param",
            "params",
            "name",
        ),
        ARGUMENT,
    ),
    **dict.fromkeys(("description", "descriptions", "help", "meaning"), DESCRIPTION),
    **dict.fromkeys(("default", "defaults", "default value"), DEFAULT),
    **dict.fromkeys(
        ("options", "option", "choices", "type", "values", "type/options", "allowed values"),
        OPTIONS,
    ),
    **dict.fromkeys(("server supported", "supported", "status", "support"), STATUS),
    **dict.fromkeys(("note", "notes", "remark", "remarks"), NOTE),
    **dict.fromkeys(("reason", "reasons"), REASON),
    **dict.fromkeys(("replacement", "replaced by", "use instead"), REPLACEMENT),
}
_VARIANT_HEADER = re.compile(r"^(?P<variant>.+?)\s+supported$", re.IGNORECASE)


@dataclass(frozen=True)
class Column:
    role: str
    title: str
    variant: str | None = None


def column_of(title: str) -> Column:
    """What a header cell announces. Unknown headers stay OTHER until their cells are seen."""
    key = " ".join(title.lower().split())
    if key in _HEADER_ROLES:
        return Column(_HEADER_ROLES[key], title)
    match = _VARIANT_HEADER.match(title.strip())
    if match:
        return Column(VARIANT, title, match.group("variant").strip())
    return Column(OTHER, title)


# ------------------------------------------------------------------ support marks

YES, NO, PLANNED, EXPERIMENTAL, UNKNOWN = "yes", "no", "planned", "experimental", "unknown"
_MARKS: dict[str, str] = {
    **dict.fromkeys(("√", "✓", "✔", "☑", "yes", "y", "supported", "true"), YES),
    **dict.fromkeys(
        ("×", "✗", "✘", "❌", "x", "no", "n", "not supported", "unsupported", "false"), NO
    ),
    **dict.fromkeys(("planned",), PLANNED),
    **dict.fromkeys(("?", "", "unverified", "unknown", "not classified"), UNKNOWN),
}


def mark_of(text: str) -> str | None:
    """A per-variant support cell as yes/no/planned/experimental/unknown; None if not a mark."""
    key = " ".join(text.lower().split())
    if key in _MARKS:
        return _MARKS[key]
    if "experimental" in key and len(key) <= 40:
        return EXPERIMENTAL
    return None


# ------------------------------------------------------------------ the model of a page


@dataclass(frozen=True)
class Cell:
    """One table cell: plain text (markup removed), its code spans and its raw inline HTML."""

    text: str
    codes: tuple[str, ...] = ()
    html: tuple[str, ...] = ()


EMPTY = Cell("")


@dataclass(frozen=True)
class Table:
    line: int
    section: str
    caption: str  # the sub-heading or the paragraph just before the table, if any
    columns: tuple[Column, ...]

    def has(self, role: str) -> bool:
        return any(c.role == role for c in self.columns)

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(c.variant for c in self.columns if c.role == VARIANT and c.variant)

    @property
    def states_support(self) -> bool:
        return self.has(STATUS) or self.has(VARIANT)


@dataclass(frozen=True)
class Row:
    flags: tuple[str, ...]
    line: int
    table: Table
    cells: tuple[Cell, ...]  # one per column of the table
    broken: str | None = None  # why the row does not fit its table

    def cell(self, role: str) -> Cell | None:
        """The first cell of a role, or None when the table has no such column."""
        for column, cell in zip(self.table.columns, self.cells, strict=False):
            if column.role == role:
                return cell
        return None

    def marks(self) -> tuple[tuple[str, str], ...]:
        """(variant, cell text) for every variant column."""
        return tuple(
            (column.variant or column.title, cell.text)
            for column, cell in zip(self.table.columns, self.cells, strict=False)
            if column.role == VARIANT
        )


@dataclass(frozen=True)
class Page:
    file: str
    layout: str  # "markdown" or "text"
    title: str
    sections: tuple[tuple[str, int], ...]  # section headings and their lines
    tables: tuple[Table, ...]
    rows: tuple[Row, ...]

    @property
    def variants(self) -> tuple[str, ...]:
        """Variant names of the per-variant columns, in the order they first appear."""
        return tuple(dict.fromkeys(v for table in self.tables for v in table.variants))

    @property
    def states_support(self) -> bool:
        return any(table.states_support for table in self.tables)

    def section_line(self, title: str) -> int | None:
        wanted = _section_key(title)
        return next((line for name, line in self.sections if _section_key(name) == wanted), None)


def _section_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


# ------------------------------------------------------------------ reading a file


def read_page(path: Path) -> Page:
    """Read a hand-written page; ArgmatrixError (exit 2) when it holds no argument table."""
    text = read_user_file(path, "page", "check the path of the Markdown page")
    page = parse_page(text, str(path))
    if not page.rows:
        raise ArgmatrixError.at(
            "no argument table found",
            file=str(path),
            line=1,
            fix="the page needs tables with an 'Argument' column (Markdown tables, or text"
            " copied from a rendered page with one cell per paragraph)",
        )
    return page


def parse_page(text: str, file: str) -> Page:
    """Markdown tables when the page has any, else the one-cell-per-paragraph text layout."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    page = parse_markdown(text, file)
    if page.rows or page.tables:
        return page
    return parse_text_layout(text, file)


# ------------------------------------------------------------------ Markdown layout

_MD = MarkdownIt("commonmark").enable("table")
FLAG_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9_.-]*)")


@dataclass
class _Outline:
    """Where a reader is on the page: its title, the current section, the text before a table."""

    title: str = ""
    section: str = ""
    caption: str = ""  # the sub-heading or paragraph just read; a table takes it as caption
    sections: list[tuple[str, int]] = field(default_factory=list)

    def heading(self, text: str, line: int, level: int) -> None:
        if level == 1 and not self.title:
            self.title = text
        elif level <= 2 or not self.section:
            self.section, self.caption = text, ""
            self.sections.append((text, line))
        else:
            self.caption = text

    def page(self, file: str, layout: str, tables: list[Table], rows: list[Row]) -> Page:
        return Page(file, layout, self.title, tuple(self.sections), tuple(tables), tuple(rows))


def parse_markdown(text: str, file: str) -> Page:
    tokens = _MD.parse(text)
    lines = text.split("\n")
    outline = _Outline()
    tables: list[Table] = []
    rows: list[Row] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open":
            outline.heading(plain_cell(tokens[index + 1]).text, _line(token), int(token.tag[1:]))
        elif token.type == "paragraph_open" and token.level == 0:
            outline.caption = plain_cell(tokens[index + 1]).text
        elif token.type == "table_open":
            end = _closing(tokens, index, "table_close")
            table, table_rows = _read_table(tokens[index : end + 1], lines, outline)
            if table is not None:
                tables.append(table)
                rows.extend(table_rows)
            outline.caption = ""
            index = end
        index += 1
    return outline.page(file, "markdown", tables, rows)


def _line(token: Token) -> int:
    return token.map[0] + 1 if token.map else 0


def _closing(tokens: list[Token], start: int, kind: str) -> int:
    for index in range(start, len(tokens)):
        if tokens[index].type == kind:
            return index
    return len(tokens) - 1


def _table_rows(tokens: list[Token]) -> Iterator[tuple[Token, list[Token]]]:
    """Each `tr_open` token with the inline tokens of its cells."""
    current: Token | None = None
    cells: list[Token] = []
    for token in tokens:
        if token.type == "tr_open":
            current, cells = token, []
        elif token.type == "inline" and current is not None:
            cells.append(token)
        elif token.type == "tr_close" and current is not None:
            yield current, cells
            current = None


def _read_table(
    tokens: list[Token], lines: list[str], outline: _Outline
) -> tuple[Table | None, list[Row]]:
    all_rows = list(_table_rows(tokens))
    if not all_rows:
        return None, []
    header_row, header_cells = all_rows[0]
    columns = [column_of(plain_cell(c).text) for c in header_cells]
    if not any(c.role == ARGUMENT for c in columns):
        return None, []
    body = [
        (_line(tr), [plain_cell(c) for c in cells], _raw_cells(lines, tr))
        for tr, cells in all_rows[1:]
    ]
    columns = _settle_other_columns(columns, [cells for _, cells, _ in body])
    table = Table(_line(header_row), outline.section, outline.caption, tuple(columns))
    rows = []
    for line, cells, raw in body:
        row = _markdown_row(table, line, cells, raw)
        if row is not None:
            rows.append(row)
    return table, rows


def _settle_other_columns(columns: list[Column], body: list[list[Cell]]) -> list[Column]:
    """An unknown column whose cells are all support marks is a variant column."""
    settled = []
    for position, column in enumerate(columns):
        if column.role == OTHER:
            texts = [cells[position].text for cells in body if position < len(cells)]
            marks = [mark_of(t) for t in texts]
            if marks and None not in marks and any(m != UNKNOWN for m in marks):
                column = Column(VARIANT, column.title, column.title.strip())
        settled.append(column)
    return settled


def _raw_cells(lines: list[str], tr: Token) -> list[str]:
    """The row's cells as written in the source line, split at every unescaped `|`.

    markdown-it silently drops cells beyond the header's count and pads missing ones, so a
    stray `|` would go unnoticed; the source line shows how many cells were really written.
    """
    if not tr.map:
        return []
    source = re.sub(r"^(\s*>)+", "", lines[tr.map[0]]).strip()
    if source.startswith("|"):
        source = source[1:]
    if source.endswith("|") and not source.endswith("\\|"):
        source = source[:-1]
    return [part.strip() for part in re.split(r"(?<!\\)\|", source)]


def _markdown_row(table: Table, line: int, cells: list[Cell], raw: list[str]) -> Row | None:
    width = len(table.columns)
    broken = None
    if raw and len(raw) != width:
        broken = f"the row has {len(raw)} cells but its header has {width}" + (
            ": an unescaped '|' splits a cell" if len(raw) > width else ""
        )
        if len(raw) > width:
            cells = _realigned(table, raw)
    flags = _flags_of(cells[_position(table, ARGUMENT)])
    if not flags:
        return None
    return Row(flags, line, table, tuple(cells), broken)


def _position(table: Table, role: str) -> int:
    return next(i for i, c in enumerate(table.columns) if c.role == role)


def _realigned(table: Table, raw: list[str]) -> list[Cell]:
    """Cells of a row split by a stray `|`: the extra pieces go back into the free-text cell.

    The description is where a stray pipe almost always sits, so its neighbours (the flag before
    it, the default, options and marks after it) keep their places.
    """
    width = len(table.columns)
    extra = len(raw) - width
    roles = [c.role for c in table.columns]
    merge = roles.index(DESCRIPTION) if DESCRIPTION in roles else max(width - 2, 0)
    pieces = [*raw[:merge], " | ".join(raw[merge : merge + extra + 1]), *raw[merge + extra + 1 :]]
    return [plain_cell_of_source(piece) for piece in pieces]


def plain_cell_of_source(source: str) -> Cell:
    tokens = _MD.parseInline(source)
    return plain_cell(tokens[0]) if tokens else EMPTY


def plain_cell(inline: Token) -> Cell:
    """Plain text of an inline token: code spans kept as text, `<br>` as a line break."""
    parts: list[str] = []
    codes: list[str] = []
    html: list[str] = []
    for child in inline.children or ():
        if child.type in ("text", "text_special"):
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(child.content)
            codes.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n" if child.type == "hardbreak" else " ")
        elif child.type == "html_inline":
            html.append(child.content)
            if child.content.lower().startswith("<br"):
                parts.append("\n")
    text = "\n".join(" ".join(line.split()) for line in "".join(parts).split("\n")).strip()
    return Cell(text, tuple(codes), tuple(html))


def _flags_of(cell: Cell) -> tuple[str, ...]:
    sources = [c for c in cell.codes if c.strip().startswith("-")] or [cell.text]
    flags: list[str] = []
    for source in sources:
        flags.extend(FLAG_TOKEN.findall(source))
    return tuple(dict.fromkeys(f.rstrip(".") for f in flags))


# ------------------------------------------------------------------ text layout


@dataclass(frozen=True)
class _Paragraph:
    line: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


_HEADING_MARKS = ("#", "¶")
_FLAG_LINE = re.compile(r"^(--[A-Za-z0-9][\w.-]*|-[A-Za-z])-?$")
_FLAG_PIECE = re.compile(r"^-?[\w.]+[\w.-]*$")


def _paragraphs(text: str) -> list[_Paragraph]:
    paragraphs: list[_Paragraph] = []
    start, current = 0, list[str]()
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            paragraphs.append(_Paragraph(start, tuple(current)))
            current = []
    if current:
        paragraphs.append(_Paragraph(start, tuple(current)))
    return paragraphs


def _heading(paragraph: _Paragraph) -> str | None:
    if len(paragraph.lines) != 1:
        return None
    text = paragraph.lines[0]
    if text.endswith(_HEADING_MARKS) and len(text) > 1:
        return text[:-1].strip()
    return None


def wrapped_flags(lines: tuple[str, ...]) -> tuple[str, ...] | None:
    """The flags of a paragraph like `--model-loader-` / `extra-config` / `--alias`, or None.

    A line ending in `-`, or a line starting with a single `-` and a word (`-schedule`),
    continues the flag before it; a line starting with `--` (or a short `-x`) is an alias.
    """
    if not lines or not _FLAG_LINE.match(lines[0]):
        return None
    flags: list[str] = []
    for line in lines:
        continues = bool(flags) and (
            flags[-1].endswith("-")
            or (line.startswith("-") and not line.startswith("--") and len(line) > 2)
        )
        if continues and _FLAG_PIECE.match(line):
            flags[-1] += line
        elif line.startswith("-") and _FLAG_PIECE.match(line.lstrip("-") or "?"):
            flags.append(line)
        else:
            return None
    return tuple(flags) if all(FLAG_TOKEN.fullmatch(f) for f in flags) else None


def _header_columns(paragraphs: list[_Paragraph], index: int) -> list[Column] | None:
    """The columns of a header starting at `index` (`Argument`, `Defaults`, ...), or None."""
    first = column_of(paragraphs[index].text)
    if first.role != ARGUMENT or len(paragraphs[index].lines) != 1:
        return None
    columns = [first]
    for paragraph in paragraphs[index + 1 :]:
        column = column_of(paragraph.text)
        if column.role in (OTHER, ARGUMENT) or len(paragraph.lines) != 1:
            break
        columns.append(column)
    return columns if len(columns) > 1 else None


def parse_text_layout(text: str, file: str) -> Page:
    paragraphs = _paragraphs(text)
    outline = _Outline()
    tables: list[Table] = []
    rows: list[Row] = []
    table: Table | None = None
    index = 0
    while index < len(paragraphs):
        paragraph = paragraphs[index]
        heading = _heading(paragraph)
        columns = _header_columns(paragraphs, index) if heading is None else None
        flags = wrapped_flags(paragraph.lines) if table is not None else None
        if heading is not None:
            outline.heading(heading, paragraph.line, 2 if outline.title else 1)
            table, index = None, index + 1
        elif columns is not None:
            table = Table(paragraph.line, outline.section, outline.caption, tuple(columns))
            tables.append(table)
            index += len(columns)
        elif table is not None and flags is not None:
            row, index = _text_row(paragraphs, index, table, flags)
            rows.append(row)
        else:  # prose: it ends a table, and may explain the next one
            outline.caption, table, index = paragraph.text, None, index + 1
    return outline.page(file, "text", tables, rows)


def _text_row(
    paragraphs: list[_Paragraph], index: int, table: Table, flags: tuple[str, ...]
) -> tuple[Row, int]:
    """A row: the flag paragraph and the cells after it, stopping early at the next row."""
    width = len(table.columns)
    start = paragraphs[index]
    cells = [Cell(" ".join(flags))]
    index += 1
    while len(cells) < width and index < len(paragraphs):
        paragraph = paragraphs[index]
        if (
            _heading(paragraph) is not None
            or wrapped_flags(paragraph.lines) is not None
            or _header_columns(paragraphs, index) is not None
        ):
            break
        cells.append(Cell(paragraph.text))
        index += 1
    broken = None
    if len(cells) < width:
        broken = f"the row has {len(cells)} cells but its header has {width}"
        cells += [EMPTY] * (width - len(cells))
    return Row(flags, start.line, table, tuple(cells), broken), index


# ------------------------------------------------------------------ reading cells


@dataclass(frozen=True)
class TypeHint:
    """What an options cell says about the value: `Type: int`, `List[str]`, `bool flag`."""

    base: str | None  # str, int, float, bool, json; None when the page names something else
    many: bool
    text: str


_HINT_PREFIX = re.compile(r"^(type|types)\s*:\s*", re.IGNORECASE)
_WRAPPER = re.compile(r"^(optional|list|tuple|sequence)\[(.*)\]$", re.IGNORECASE)
_BASES = {
    "str": "str",
    "string": "str",
    "text": "str",
    "path": "str",
    "int": "int",
    "integer": "int",
    "float": "float",
    "number": "float",
    "bool": "bool",
    "boolean": "bool",
    "json": "json",
    "dict": "json",
    "json objects": "json",
    "json object": "json",
}


def type_hint(cell: Cell) -> TypeHint | None:
    """The value type an options cell states, or None when the cell lists values instead."""
    text = " ".join(cell.text.split())
    lowered = text.lower()
    if lowered.startswith(("bool flag", "flag (")) or lowered in ("flag", "switch"):
        return TypeHint("bool", False, text)
    if lowered.startswith("count ("):
        return TypeHint(None, False, text)
    has_prefix = bool(_HINT_PREFIX.match(text))
    body = _HINT_PREFIX.sub("", text).split(" / ")[0].strip().strip("'\"`").strip()
    body = re.sub(r"\s*\(.*\)$", "", body)
    many = False
    while True:
        match = _WRAPPER.match(body)
        if not match:
            break
        many = many or match.group(1).lower() != "optional"
        body = match.group(2).strip()
    key = body.lower()
    if key.endswith(" list"):
        many, key = True, key[: -len(" list")].strip()
    if key in _BASES:
        return TypeHint(_BASES[key], many, text)
    if has_prefix:
        return TypeHint(None, many, text)
    return None


_NO_VALUES = {"", "n/a", "na", "-", "—", "none"}


def option_values(cell: Cell) -> tuple[str, ...]:
    """The values an options cell lists (`auto`, `slow` or 'auto', 'slow'); () for a type hint."""
    if type_hint(cell) is not None or cell.text.strip().lower() in _NO_VALUES:
        return ()
    if cell.codes:
        return tuple(dict.fromkeys(c.strip() for c in cell.codes if c.strip()))
    text = cell.text.strip()
    if len(text) >= 2 and (text[0], text[-1]) in (("[", "]"), ("(", ")"), ("{", "}")):
        text = text[1:-1]
    values = (v.strip().strip(_QUOTES).strip() for v in re.split(r"[,\n]", text))
    return tuple(dict.fromkeys(v for v in values if v))


_QUOTES = "'\"“”‘’`"
