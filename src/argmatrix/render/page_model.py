"""The page model's types: what templates read (rows with escaped cells, sections, server and
support pages, the platform matrix's columns and features, the history facts), made by
`views.py` (`page_context`), `rows.py` and `support_pages.py`, and laid out in tables by
`tables.py`. A template reads attributes of these types only (`views.PAGE_MODEL_TYPES`). See
docs/reference/template-context.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from argmatrix.manifests.resolve import ResolvedPlatform
from argmatrix.model.history import History
from argmatrix.model.platform import (
    NEEDS_REASON,
)
from argmatrix.model.registry import (
    Argument,
)
from argmatrix.render.formats import OutputFormat


class Row(NamedTuple):
    """One table row, every cell already escaped. A NamedTuple: pages have 10^5 of them."""

    argument: Argument
    anchor: str
    flags: str
    description: str
    default: str
    options: str
    status: str = ""
    marks: tuple[str, ...] = ()
    note: str = ""
    reason: str = ""
    replacement: str = ""
    env: str = ""  # the environment variable, as code ("" when it has none)
    computed: str = ""  # a default computed at run time: the text said instead (also `default`)
    # The flags as code spans joined by ", " (no anchors, no HTML): a plain GFM table's first
    # cell. Precomputed because tables of 10^5 rows write it per row.
    plain_flags: str = ""
    stability: str = ""  # the configuration's stability tag (`stability:`), escaped, or ""
    # What a user types after the flag (`N`, `NAME [NAME ...]`), as code; "" for a switch. The
    # Argument cells (`flags`, `plain_flags`) end with it.
    value: str = ""
    # The exclusive groups the argument is in, said as a sentence ("At most one of `--a`,
    # `--b`."); the Description cell ends with it.
    exclusive: str = ""
    # The Description cell on one line (a plain GFM table cannot break one): `description`
    # keeps a help's paragraphs, lists and kept lines with the format's line break.
    plain_description: str = ""


class RowParts(NamedTuple):
    """A registry row as a support page uses it: the argument's name (its key in a platform's
    `by_argument`), the row, and its cells before and after the platform's own."""

    name: str
    row: Row
    head: tuple[Any, ...]
    tail: tuple[Any, ...]


@dataclass(frozen=True)
class SectionView:
    title: str
    anchor: str
    rows: tuple[Row, ...]
    has_notes: bool = False
    # A subcommand's section: the commands (names as written) whose section is the same, title
    # and rows, this one's included.
    shared_by: tuple[str, ...] = ()
    # Shared by several commands: the anchor of the one table that shows it (its title's, with
    # "-2", "-3"... after another shared section of the same title but other rows).
    shared_anchor: str = ""


@dataclass(frozen=True)
class ReasonGroup:
    reason: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class SubcommandView:
    name: str
    aliases: str
    help: str
    page: ServerPage


@dataclass(frozen=True)
class ServerPage:
    sections: tuple[SectionView, ...]
    deprecated: tuple[Row, ...]
    subcommands: tuple[SubcommandView, ...] = ()
    description: str = ""
    # The subcommands' sections that several commands share, each once, in command order.
    shared_sections: tuple[SectionView, ...] = ()
    # The usage synopsis as argparse or Click writes it (`model/usage.py`), on lines, NOT
    # escaped (a template writes it with `code_block`); "" when the registry's facts cannot
    # give it (a snapshot of format version 1).
    usage: str = ""
    prog: str = ""  # the program's name the usage starts with, not escaped
    epilog: tuple[str, ...] = ()  # the epilog's paragraphs, escaped as prose


@dataclass(frozen=True)
class SupportSubcommand:
    """A subcommand on a platform's page: its words (`serve`, `serve api_server`, as code) and
    its sections, every row in them (its arguments not supported too, with their reason)."""

    name: str
    sections: tuple[SectionView, ...]


@dataclass(frozen=True)
class SupportPage:
    title: str
    platform: str
    variants: tuple[str, ...]
    layout: str
    sections: tuple[SectionView, ...]
    not_supported: tuple[ReasonGroup, ...]
    description: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    subcommands: tuple[SupportSubcommand, ...] = ()


def variant_status(status: str, listed: tuple[str, ...], variant: str) -> str:
    """An argument's status on one variant: supported or experimental only on a variant the
    manifest lists for it (the rule of the matrix's columns and of the per-variant marks)."""
    if status in ("supported", "experimental") and variant not in listed:
        return "unsupported"
    return status


class HistoryView:
    """What a page shows of a history facts file (`argmatrix history`): the release each
    argument arrived in, and the arguments since removed, as cells of the page's format."""

    def __init__(self, history: History, fmt: OutputFormat) -> None:
        self._history = history
        self._cell = fmt.FILTERS["cell"]
        self._code = fmt.FILTERS["code"]
        self.releases = tuple(self._cell(r) for r in history.releases)

    def added(self, argument: Argument) -> str:
        """The release the argument arrived in ("" when the facts do not know it)."""
        release = self._history.added_in(argument)
        return self._cell(release) if release is not None else ""

    @property
    def removed(self) -> tuple[tuple[str, str, str], ...]:
        """(flags, added in, removed in) of every argument no longer in the newest release."""
        return tuple(
            (
                ", ".join(self._code(flag) for flag in (entry.flags or (entry.name,))),
                self._cell(entry.added),
                self._cell(entry.removed or ""),
            )
            for entry in self._history.removed
        )


class MatrixColumn(NamedTuple):
    """A column of the platform matrix: one variant of a platform (None: it has no variants)."""

    resolved: ResolvedPlatform
    variant: str | None

    def status_of(self, argument: Argument) -> str:
        """The argument's status in this column: supported or experimental only on a variant
        the manifest lists for it."""
        status, variants = self.resolved.by_argument[argument.name][:2]
        return status if self.variant is None else variant_status(status, variants, self.variant)

    def reason_of(self, argument: Argument) -> str:
        """The reason (and note) the manifest gives for the argument's status here, when the
        manifest says it is not supported or not applicable; "" otherwise."""
        resolved = self.resolved.of(argument)
        if resolved.status not in NEEDS_REASON:
            return ""
        return "; ".join(text for text in (resolved.reason, resolved.note) if text)


class MatrixColumns(tuple[MatrixColumn, ...]):
    """The platform matrix's columns: each variant of each platform, a platform without
    variants once."""

    def statuses(self, argument: Argument) -> tuple[str, ...]:
        """One row of the matrix: the argument's status in each column."""
        return tuple(column.status_of(argument) for column in self)

    def reasons(self, argument: Argument) -> tuple[str, ...]:
        """Why, in each column: the manifest's reason and note of an argument it says is not
        supported or not applicable there (raw text: a template escapes it), else ""."""
        return tuple(column.reason_of(argument) for column in self)


@dataclass(frozen=True)
class FeatureMatrix:
    """`options.features` of a platform matrix page: a short table of features (vLLM's "Feature
    x Hardware"), one row per feature named after the flag that turns it on. Each row's label
    (the feature's name and the flag, escaped for the page's format) and its status in each
    column of the matrix; the columns' headings (a variant, or a platform without variants)."""

    headings: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]
