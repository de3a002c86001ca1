"""Read a hand-written argument page into rows, whatever layout it was written in.

Two layouts are understood:

* Markdown tables, one per section (`## Section` then `| Argument | ... |`). Columns are told
  apart by their header: argument, description, default, options, a single support-status
  column, a note, a reason, a replacement, and one support-mark column per hardware variant
  (`A2 Supported`, or any unknown header whose cells are all marks such as `√`/`×`).
* Text copied from a rendered site: one table cell per paragraph, headings ending in `#` (the
  header-link character), the column headers repeated before every table, long flags wrapped
  across lines.

Markdown tables are read by `argmatrix.pagetables` (`read_markdown_page`, the reader the coverage
check shares); here a table gets its columns' roles and each row the flags it names, its cells
aligned to the columns. Nothing here knows the registry; `audit` and `importer` compare the rows
with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from argmatrix._runtime.files import read_user_file
from argmatrix.errors import ArgmatrixError
from argmatrix.pagetables import (
    EMPTY,
    FLAG_TOKEN,
    Cell,
    Outline,
    Page,
    PageTable,
    TableRow,
    markup_cell,
    normalized,
    read_markdown_page,
)

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
    # argmatrix's own symbols (model.platform.STATUS_ICONS), so a page it wrote reads back
    **dict.fromkeys(("planned", "◷"), PLANNED),
    **dict.fromkeys(("◐",), EXPERIMENTAL),
    **dict.fromkeys(("?", "", "unverified", "unknown", "not classified", "○"), UNKNOWN),
}


def mark_of(text: str) -> str | None:
    """A per-variant support cell as yes/no/planned/experimental/unknown; None if not a mark."""
    key = " ".join(text.lower().split())
    if key in _MARKS:
        return _MARKS[key]
    if "experimental" in key and len(key) <= 40:
        return EXPERIMENTAL
    return None


# ------------------------------------------------------------------ a page read as arguments


@dataclass(frozen=True)
class ArgumentTable:
    """A table of the page whose header names an argument column, with what each column holds."""

    table: PageTable
    columns: tuple[Column, ...]

    @property
    def line(self) -> int:
        return self.table.line

    @property
    def section(self) -> str:
        return self.table.section

    @property
    def caption(self) -> str:
        """The sub-heading or the paragraph just before the table, if any."""
        return self.table.caption

    def has(self, role: str) -> bool:
        return any(c.role == role for c in self.columns)

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(c.variant for c in self.columns if c.role == VARIANT and c.variant)

    @property
    def states_support(self) -> bool:
        return self.has(STATUS) or self.has(VARIANT)


@dataclass(frozen=True)
class ArgumentRow:
    """A row naming flags: the row as read, and its cells aligned to its table's columns."""

    row: TableRow
    table: ArgumentTable
    flags: tuple[str, ...]
    cells: tuple[Cell, ...]  # one per column of the table
    broken: str | None = None  # why the row does not fit its table

    @property
    def line(self) -> int:
        return self.row.line

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
class ArgumentPage:
    """A hand-written page as read, in the layout it was written in, with its argument tables
    and their rows."""

    page: Page
    layout: str  # "markdown" or "text"
    tables: tuple[ArgumentTable, ...]
    rows: tuple[ArgumentRow, ...]

    @property
    def file(self) -> str:
        return self.page.file

    @property
    def title(self) -> str:
        return self.page.title

    @property
    def variants(self) -> tuple[str, ...]:
        """Variant names of the per-variant columns, in the order they first appear."""
        return tuple(dict.fromkeys(v for table in self.tables for v in table.variants))

    @property
    def states_support(self) -> bool:
        return any(table.states_support for table in self.tables)

    def section_line(self, title: str) -> int | None:
        wanted = section_key(title)
        return next(
            (line for name, line in self.page.sections if section_key(name) == wanted), None
        )


def section_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


# ------------------------------------------------------------------ reading a file


def read_page(path: Path) -> ArgumentPage:
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


def parse_page(text: str, file: str) -> ArgumentPage:
    """Markdown tables when the page has any, else the one-cell-per-paragraph text layout."""
    text = normalized(text)
    page = parse_markdown(text, file)
    if page.rows or page.tables:
        return page
    return parse_text_layout(text, file)


# ------------------------------------------------------------------ Markdown layout


def parse_markdown(text: str, file: str) -> ArgumentPage:
    page = read_markdown_page(text, file)
    tables: list[ArgumentTable] = []
    rows: list[ArgumentRow] = []
    for table in page.tables:
        argument_table = _argument_table(table)
        if argument_table is not None:
            tables.append(argument_table)
            rows.extend(_markdown_rows(argument_table))
    return ArgumentPage(page, "markdown", tuple(tables), tuple(rows))


def _argument_table(table: PageTable) -> ArgumentTable | None:
    header, body = table.rows[0], table.rows[1:]
    columns = [column_of(cell.text) for cell in _parsed(header, table.columns)]
    if not any(c.role == ARGUMENT for c in columns):
        return None
    columns = _settle_other_columns(columns, [_parsed(row, table.columns) for row in body])
    return ArgumentTable(table, tuple(columns))


def _parsed(row: TableRow, width: int) -> list[Cell]:
    """The row's cells as markdown-it gives them: as many as the table has columns, those
    written beyond dropped, the missing ones empty."""
    cells = list(row.cells[:width])
    return cells + [EMPTY] * (width - len(cells))


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


def _markdown_rows(table: ArgumentTable) -> list[ArgumentRow]:
    rows = (_markdown_row(table, row) for row in table.table.body)
    return [row for row in rows if row is not None]


def _markdown_row(table: ArgumentTable, row: TableRow) -> ArgumentRow | None:
    width = len(table.columns)
    cells = _parsed(row, width)
    written = row.written
    broken = None
    if written and len(written) != width:
        broken = f"the row has {len(written)} cells but its header has {width}" + (
            ": an unescaped '|' splits a cell" if len(written) > width else ""
        )
        if len(written) > width:
            cells = _realigned(table, written)
    flags = cells[_position(table, ARGUMENT)].flags()
    if not flags:
        return None
    return ArgumentRow(row, table, flags, tuple(cells), broken)


def _position(table: ArgumentTable, role: str) -> int:
    return next(i for i, c in enumerate(table.columns) if c.role == role)


def _realigned(table: ArgumentTable, written: tuple[str, ...]) -> list[Cell]:
    """Cells of a row split by a stray `|`: the extra pieces go back into the free-text cell.

    The description is where a stray pipe almost always sits, so its neighbours (the flag before
    it, the default, options and marks after it) keep their places.
    """
    width = len(table.columns)
    extra = len(written) - width
    roles = [c.role for c in table.columns]
    merge = roles.index(DESCRIPTION) if DESCRIPTION in roles else max(width - 2, 0)
    pieces = [
        *written[:merge],
        " | ".join(written[merge : merge + extra + 1]),
        *written[merge + extra + 1 :],
    ]
    return [markup_cell(piece, {}) for piece in pieces]  # read alone: no link references


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


@dataclass
class _TextTable:
    """A table of the text layout while it is read: its header, then its rows and their flags."""

    line: int
    section: str
    caption: str
    columns: tuple[Column, ...]
    rows: list[tuple[TableRow, tuple[str, ...]]] = field(default_factory=list)

    def table(self) -> PageTable:
        header = TableRow(self.line, tuple(Cell(c.title) for c in self.columns), header=True)
        rows = (header, *(row for row, _ in self.rows))
        return PageTable(self.line, rows, self.section, self.caption)


def parse_text_layout(text: str, file: str) -> ArgumentPage:
    paragraphs = _paragraphs(text)
    outline = Outline()
    found: list[_TextTable] = []
    table: _TextTable | None = None
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
            table = _TextTable(paragraph.line, outline.section, outline.caption, tuple(columns))
            found.append(table)
            index += len(columns)
        elif table is not None and flags is not None:
            row, index = _text_row(paragraphs, index, len(table.columns), flags)
            table.rows.append((row, flags))
        else:  # prose: it ends a table, and may explain the next one
            outline.caption, table, index = paragraph.text, None, index + 1
    return _text_page(outline.page(file, [t.table() for t in found]), found)


def _text_row(
    paragraphs: list[_Paragraph], index: int, width: int, flags: tuple[str, ...]
) -> tuple[TableRow, int]:
    """A row: the flag paragraph and the cells after it, stopping early at the next row."""
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
    return TableRow(start.line, tuple(cells)), index


def _text_page(page: Page, found: list[_TextTable]) -> ArgumentPage:
    """The page of the text layout: each table with its columns, each row with its flags and
    its cells, the missing ones empty."""
    tables: list[ArgumentTable] = []
    rows: list[ArgumentRow] = []
    for read, text_table in zip(page.tables, found, strict=True):
        table = ArgumentTable(read, text_table.columns)
        tables.append(table)
        width = len(table.columns)
        for row, flags in text_table.rows:
            broken = None
            cells = row.cells
            if len(cells) < width:
                broken = f"the row has {len(cells)} cells but its header has {width}"
                cells += (EMPTY,) * (width - len(cells))
            rows.append(ArgumentRow(row, table, flags, cells, broken))
    return ArgumentPage(page, "text", tuple(tables), tuple(rows))


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
