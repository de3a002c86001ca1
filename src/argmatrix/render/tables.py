"""The tables of the page model, each layout described once: its columns, and each row's cells
in column order. Every format writes the same tables out: the bundled table macros
(`templates/_tables.*.j2`) loop over a table's columns and cells in their syntax, and the Sphinx
directive builds its docutils nodes from them. A format changes how a table is written, never
which columns it has or what a cell holds.

The layouts (`TableLayouts`, which templates reach as `layouts`):

- `server`: Argument, Description, Default, Type / options; Stability when the configuration
  has `stability:` (a row has a tag); Added in with a page's history. Its `compact` layout (a
  server page's `options: {layout: compact}`) has at most three columns: Argument, Description
  (the help, then a line of the argument's facts: default, type or options, environment
  variable, stability) and Added in with a page's history.
- `deprecated`: Argument, Replacement ("—" when the help names none), Description.
- `support`, status layout: Argument, Default, Options, Server supported; variants layout:
  Argument, Description, Default, Options, then one column per variant of the platform. Either
  has a Note column when a row of the section has a note.
- `not_supported`: Argument, Default, Options (one reason's arguments).
- `command`: Argument, Description, Default (empty where there is none), Type / values: a
  command's options on a command-line reference.
- `features`: Feature, then one column per platform variant of the matrix, a mark each (✅ 🟠 ❌ ❔,
  the form of vLLM's "Feature x Hardware" table).

An environment variable (`Row.env`) gets a column after the registry's own ones when a row of the
table has one; a writer that keeps a fixed set of columns (the MDX pages: SGLang's) asks for it
as a second line of the Description cell instead, or of the Argument cell in a table without one.

The cells are the page model's rows (`page_model.Row`), already escaped in the page's format: a table
writes nothing itself. Pages have 10^5 rows, so a row's cells are gathered by one
`operator.attrgetter` wherever the layout allows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from argmatrix.render.page_model import (
        FeatureMatrix,
        HistoryView,
        Row,
        SectionView,
        SupportPage,
    )


class Column(NamedTuple):
    """A column of a table: what its cells show (`key`) and its heading."""

    key: str
    # argmatrix's own words (a writer may rename or translate them, by `key`); a variant
    # column's heading is the variant's name, escaped like a cell.
    heading: str
    align: str = ""  # "center": the marks of a variant column
    # Its cells may be one of argmatrix's own labels ("required", a status, a mark), which an
    # engine may translate.
    label: bool = False


# The site's script (assets/argmatrix.js) reads a table's column keys (`Table.keys`) from an HTML
# page; on a page without HTML it knows argmatrix's own headings (KNOWN_HEADINGS there).
ARGUMENT = Column("argument", "Argument")
DESCRIPTION = Column("description", "Description")
DEFAULT = Column("default", "Default", label=True)
TYPE_OPTIONS = Column("type_options", "Type / options")
OPTIONS = Column("options", "Options")
ENVIRONMENT = Column("env", "Environment variable")
STABILITY = Column("stability", "Stability")
ADDED = Column("added", "Added in")
REPLACEMENT = Column("replacement", "Replacement")
# The compact layout's: the help, then the argument's facts on a line after it.
DETAILS = Column("details", "Description")
STATUS = Column("status", "Server supported", label=True)
# A command-line reference's: the default (empty where there is none, as on every page), the
# kind of value.
COMMAND_DEFAULT = Column("command_default", "Default", label=True)
TYPE_VALUES = Column("type_values", "Type / values")
NOTE = Column("note", "Note")


def variant_column(name: str) -> Column:
    return Column("variant", name, align="center", label=True)


FEATURE = Column("feature", "Feature")
# A feature matrix in the form vLLM's docs keep by hand ("Feature x Hardware"): a mark per
# feature and backend, ✅ full, 🟠 partial, ❌ none, ❔ unknown. Each status reads as one of them.
FEATURE_MARKS = {
    "supported": "✅",
    "experimental": "🟠",
    "planned": "❌",
    "unsupported": "❌",
    "not-applicable": "❌",
    "unverified": "❔",
    "unclassified": "❔",
}
FEATURE_LEGEND = (
    ("✅", "supported"),
    ("🟠", "partly (experimental)"),
    ("❌", "no (not supported, not applicable or planned)"),
    ("❔", "not known (unverified)"),
)


# The field of `page_model.Row` a column's cells are (the Argument column's is `plain_flags` in a
# plain table). The variant columns share `Row.marks`, one mark each; Added in is from a page's
# history, Replacement says when there is none.
_FIELDS = {
    "argument": "flags",
    "description": "description",
    "details": "description",
    "default": "default",
    "command_default": "default",
    "type_options": "options",
    "type_values": "options",
    "options": "options",
    "env": "env",
    "stability": "stability",
    "status": "status",
    "note": "note",
}
# A plain table's (no HTML: `plain_flags`): the flags without anchors, the help on one line.
_PLAIN_FIELDS = {
    "argument": "plain_flags",
    "description": "plain_description",
    "details": "plain_description",
}
NO_REPLACEMENT = "—"
ENVIRONMENT_LINE = "Environment variable: "
# The layouts of a server page's tables (a page's `options: {layout: ...}`).
SERVER_LAYOUTS = ("table", "compact")
# How the facts of a compact row are joined, and what says which is which.
FACTS_SEPARATOR = " · "
DEFAULT_LABEL = "Default: "
OPTIONS_LABEL = "Options: "
STABILITY_LABEL = "Stability: "


@dataclass(frozen=True)
class Table:
    """One table: its columns, its rows (the page model's) and each row's cells in column
    order."""

    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    cells: tuple[tuple[str, ...], ...]

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(column.heading for column in self.columns)

    @property
    def keys(self) -> str:
        """The columns' keys in order, separated by spaces (`argument description default
        type_options env`): an HTML page carries them in its first heading
        (`data-am-columns`), so the site's script tells a status column (`status`, `variant`)
        from the others by what the column is, never by its heading's words."""
        return " ".join(column.key for column in self.columns)

    @property
    def pipe_rows(self) -> str:
        """The rows as the body of a pipe table, a line each: `| cell | cell |`, each line ending
        in a newline ("" without rows). Joined here, in C, rather than a row at a time in the
        template: a template loop and filter call per row were most of a 10^4-row page's render."""
        if not self.cells:
            return ""
        return "| " + " |\n| ".join(map(" | ".join, self.cells)) + " |\n"


Cells = Callable[["Row"], tuple[str, ...]]


class TableLayouts:
    """The table layouts, for the pages of one format: `line_break` is how its cells hold a
    second line (`OutputFormat.LINE_BREAK`).

    Each layout takes `plain_flags` (the Argument cell without HTML: the flags as code, joined by
    commas, for a plain GFM table; else `Row.flags`) and `env_column` (an environment variable in
    a column of its own, when a row has one; false: a line of the Description cell, else of the
    Argument cell)."""

    def __init__(self, line_break: str) -> None:
        self.line_break = line_break

    def server(
        self,
        rows: Sequence[Row],
        plain_flags: bool = False,
        env_column: bool = True,
        history: HistoryView | None = None,
        layout: str = "table",
    ) -> Table:
        """The arguments of a section of the generic reference (or the deprecated ones, in a
        format without a table of their own); `layout` one of `SERVER_LAYOUTS`."""
        rows = tuple(rows)
        added = (ADDED,) if history is not None else ()
        if layout == "compact":
            return self._compact(rows, plain_flags, history, added)
        stability = (STABILITY,) if any(row.stability for row in rows) else ()
        columns = (ARGUMENT, DESCRIPTION, DEFAULT, TYPE_OPTIONS)
        after = (*stability, *added)
        return self._table(columns, after, rows, plain_flags, env_column, history)

    def _compact(
        self,
        rows: tuple[Row, ...],
        plain_flags: bool,
        history: HistoryView | None,
        added: tuple[Column, ...],
    ) -> Table:
        """Argument, Description with the facts on a line after the help, Added in: a table
        that fits a text column beside any flag. A page without HTML (`plain_flags`) cannot
        break a cell's line: the facts follow the help after a space."""
        columns = (ARGUMENT, DETAILS, *added)
        gather = _gatherer(columns, plain_flags, -1, self.line_break, history)
        details = _details(" " if plain_flags else self.line_break, plain_flags)
        cells = tuple(
            (first, details(row), *rest) for row in rows for first, _, *rest in (gather(row),)
        )
        return Table(columns, rows, cells)

    def deprecated(
        self, rows: Sequence[Row], plain_flags: bool = False, env_column: bool = True
    ) -> Table:
        """The deprecated arguments, with the flag that replaces each."""
        columns = (ARGUMENT, REPLACEMENT, DESCRIPTION)
        return self._table(columns, (), rows, plain_flags, env_column)

    def support(
        self,
        section: SectionView,
        support: SupportPage,
        plain_flags: bool = False,
        env_column: bool = True,
    ) -> Table:
        """A section of a support page, in the page's layout."""
        note = (NOTE,) if section.has_notes else ()
        columns: tuple[Column, ...]
        if support.layout == "variants":
            columns = (ARGUMENT, DESCRIPTION, DEFAULT, OPTIONS)
            after = (*map(variant_column, support.variants), *note)
        else:
            columns, after = (ARGUMENT, DEFAULT, OPTIONS), (STATUS, *note)
        return self._table(columns, after, section.rows, plain_flags, env_column)

    def command(
        self, rows: Sequence[Row], plain_flags: bool = False, env_column: bool = True
    ) -> Table:
        """A command's options on a command-line reference (`cli_reference` pages): Argument,
        Description, Default (empty where the argument has none), Type / values."""
        columns = (ARGUMENT, DESCRIPTION, COMMAND_DEFAULT, TYPE_VALUES)
        return self._table(columns, (), rows, plain_flags, env_column)

    def features(self, matrix: FeatureMatrix) -> Table:
        """A feature matrix (`options.features` of a platform matrix page): a feature's name and
        flag, then its mark in each column of the matrix (each variant of each platform)."""
        columns = (FEATURE, *map(variant_column, matrix.headings))
        cells = tuple(
            (label, *(FEATURE_MARKS[status] for status in statuses))
            for label, statuses in matrix.rows
        )
        return Table(columns, (), cells)

    @property
    def feature_legend(self) -> tuple[tuple[str, str], ...]:
        """What each mark of a feature matrix says: (mark, words)."""
        return FEATURE_LEGEND

    def not_supported(
        self, rows: Sequence[Row], plain_flags: bool = False, env_column: bool = True
    ) -> Table:
        """The arguments a platform does not support for one reason."""
        columns = (ARGUMENT, DEFAULT, OPTIONS)
        return self._table(columns, (), rows, plain_flags, env_column)

    def _table(
        self,
        own: tuple[Column, ...],
        after: tuple[Column, ...],
        rows: Sequence[Row],
        plain_flags: bool,
        env_column: bool,
        history: HistoryView | None = None,
    ) -> Table:
        """The registry's columns (`own`), the environment variable's, then `after`."""
        rows = tuple(rows)
        has_env = any(row.env for row in rows)
        columns = (*own, ENVIRONMENT, *after) if has_env and env_column else (*own, *after)
        env_line = -1  # the column whose cells hold an environment variable as their last line
        if has_env and not env_column:
            env_line = columns.index(DESCRIPTION) if DESCRIPTION in own else 0
        gather = _gatherer(columns, plain_flags, env_line, self.line_break, history)
        return Table(columns, rows, tuple(map(gather, rows)))


def _gatherer(
    columns: tuple[Column, ...],
    plain_flags: bool,
    env_line: int,
    line_break: str,
    history: HistoryView | None,
) -> Cells:
    """What gathers a row's cells: consecutive fields read by one `attrgetter` (a tuple, made in
    C), the other columns' cells made by a function each."""
    parts: list[Cells] = []
    fields: list[str] = []
    for index, column in enumerate(columns):
        field = _PLAIN_FIELDS.get(column.key) if plain_flags else None
        field = field or _FIELDS.get(column.key)
        if field is not None and index != env_line:
            fields.append(field)
            continue
        if fields:
            parts.append(_fields(fields))
            fields = []
        if index == env_line:
            parts.append(_with_environment(str(field), line_break))
        elif column.key == "variant":
            if columns[index - 1].key != "variant":  # the variant columns are side by side
                parts.append(_MARKS)
        elif column.key == "replacement":
            parts.append(_replacement)
        elif column.key == "added" and history is not None:
            parts.append(_added(history))
    if fields:
        parts.append(_fields(fields))
    if len(parts) == 1:
        return parts[0]
    return lambda row: sum((part(row) for part in parts), ())


def _fields(fields: list[str]) -> Cells:
    if len(fields) > 1:
        return attrgetter(*fields)
    field = attrgetter(fields[0])
    return lambda row: (field(row),)


_MARKS: Cells = attrgetter("marks")


def _details(line_break: str, plain: bool = False) -> Callable[[Row], str]:
    """A compact row's Description cell: the help (on one line in a `plain` table), then its
    facts (default, type or options, environment variable, stability) joined by
    `FACTS_SEPARATOR`."""

    def cell(row: Row) -> str:
        description = row.plain_description if plain else row.description
        argument = row.argument
        # No default is no fact: its cell is empty (`rows.py`), unless the argument is required.
        facts = [f"{DEFAULT_LABEL}{row.default}"] if row.default else []
        if row.options:
            choices = argument.choices is not None
            facts.append(f"{OPTIONS_LABEL}{row.options}" if choices else row.options)
        if row.env:
            facts.append(f"{ENVIRONMENT_LINE}{row.env}")
        if row.stability:
            facts.append(f"{STABILITY_LABEL}{row.stability}")
        shown = FACTS_SEPARATOR.join(facts)
        if not description:
            return shown
        return f"{description}{line_break}{shown}" if shown else description

    return cell


def _with_environment(field: str, line_break: str) -> Cells:
    """A cell with the row's environment variable on a line after it."""
    text = attrgetter(field)

    def cell(row: Row) -> tuple[str, ...]:
        shown = text(row)
        return (f"{shown}{line_break}{ENVIRONMENT_LINE}{row.env}" if row.env else shown,)

    return cell


def _replacement(row: Row) -> tuple[str, ...]:
    return (row.replacement or NO_REPLACEMENT,)


def _added(history: HistoryView) -> Cells:
    return lambda row: (history.added(row.argument),)


# What templates may read attributes of (views.PAGE_MODEL_TYPES lists them).
TABLE_MODEL_TYPES: tuple[type, ...] = (TableLayouts, Table, Column)
