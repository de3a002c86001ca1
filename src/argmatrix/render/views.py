"""The page model handed to templates: sections, rows, support cells and platform columns,
built once per render from the resolved model. Everything a template can reach is read-only.
See docs/reference/template-context.md."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from argmatrix.config import DisplayFacts, PageSpec
from argmatrix.errors import ArgmatrixError
from argmatrix.manifests.resolve import ResolvedPlatform
from argmatrix.model.findings import Finding, closest
from argmatrix.model.history import History
from argmatrix.model.platform import (
    NEEDS_REASON,
    STATUS_ICONS,
    STATUS_LABELS,
    Capability,
    Platform,
    Resolved,
)
from argmatrix.model.registry import (
    Argument,
    Diagnostic,
    ExclusiveGroup,
    FromEnvironment,
    Opaque,
    Registry,
    Subcommand,
    Unevaluated,
)
from argmatrix.model.spelling import scopes
from argmatrix.model.usage import exclusive_peers, program_name, usage_text, value_form
from argmatrix.render.formats import FORMATS, OutputFormat
from argmatrix.render.formats.shared import anchor, flag_names, shaped_paragraphs
from argmatrix.render.formats.shared import shaped as shaped_cell
from argmatrix.render.tables import SERVER_LAYOUTS, TABLE_MODEL_TYPES

SUPPORT_LAYOUTS = ("status", "variants")
_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


# ------------------------------------------------------------------ views of the model


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


# Where a platform's cells (status, marks, note, reason) go in a `Row`, and where the registry's
# cells after them start (`replacement`: "" in a support page's row).
_PLATFORM = Row._fields.index("status")
_REPLACEMENT = Row._fields.index("replacement")
_new_row = functools.partial(tuple.__new__, Row)  # `Row._make` without its check, made in C


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


def replacement_of(argument: Argument, registry: Registry) -> str:
    """A deprecated argument's replacement: the first other flag its help names."""
    text = argument.help if isinstance(argument.help, str) else ""
    known = registry.by_flag()
    for flag in _FLAG_IN_TEXT.findall(text):
        target = known.get(flag)
        if target is not None and target is not argument:
            return str(flag)
    return ""


class Cells:
    """The registry's own cells of each argument, escaped once per render however many pages
    and platforms show them, in one output format (Markdown unless told)."""

    def __init__(
        self, output_format: OutputFormat | None = None, display: DisplayFacts | None = None
    ) -> None:
        self.format: OutputFormat = output_format or FORMATS["markdown"]
        self.display = display  # the configuration's env vars, `types:`, computed defaults
        self._rows: dict[int, tuple[Argument, Row]] = {}
        self._values: dict[int, str] = {}  # each row's value form, as text (`unscoped`)
        self._sections: dict[int, tuple[Registry, dict[str, list[Argument]]]] = {}
        self._section_rows: dict[int, tuple[Registry, dict[str, list[Row]]]] = {}
        self._support_parts: dict[int, tuple[Registry, dict[str, list[RowParts]]]] = {}

    def sections(self, registry: Registry) -> dict[str, list[Argument]]:
        cached = self._sections.get(id(registry))
        if cached is None or cached[0] is not registry:
            titles = self.display.display.section_title() if self.display is not None else None
            cached = self._sections[id(registry)] = (registry, by_section(registry, titles))
        return cached[1]

    def section_rows(self, registry: Registry, scope: str = "") -> dict[str, list[Row]]:
        """The rows of `sections`; `scope` prefixes their anchors (a subcommand's)."""
        cached = self._section_rows.get(id(registry))
        if cached is None or cached[0] is not registry:
            rows = {
                title: [self.row(a, scope, registry) for a in arguments]
                for title, arguments in self.sections(registry).items()
            }
            cached = self._section_rows[id(registry)] = (registry, rows)
        return cached[1]

    def support_parts(self, registry: Registry, words: str = "") -> dict[str, list[RowParts]]:
        """The rows of `section_rows` cut where a platform's cells go, once per render for every
        platform's page (`support_page`); `words`: a subcommand's (`serve `), which its
        arguments' spellings (a platform's keys) start with."""
        cached = self._support_parts.get(id(registry))
        if cached is None or cached[0] is not registry:
            scope = "".join(anchor(word) for word in words.split())  # as `server_page` makes it
            parts = {
                title: [
                    RowParts(words + row.argument.name, row, row[:_PLATFORM], row[_REPLACEMENT:])
                    for row in rows
                ]
                for title, rows in self.section_rows(registry, scope).items()
            }
            cached = self._support_parts[id(registry)] = (registry, parts)
        return cached[1]

    def unscoped(self, row: Row, scope: str = "") -> Row:
        """A subcommand's row as the top command's: its anchor without the subcommand's (with
        `scope`, under that one instead: `bench` for a row the commands of `vllm bench` share)."""
        argument = row.argument
        value = self._values.get(id(argument), "")
        return row._replace(
            anchor=scoped_anchor(scope, argument.name),
            flags=self.format.flags_cell(argument, scope, value),
        )

    def row(self, argument: Argument, scope: str = "", registry: Registry | None = None) -> Row:
        """`scope` prefixes the anchor: a subcommand's `--port` is `serve--port`, its positional
        `model` `serve-model`. `registry`: the argument's own, which says how its value is
        written and which arguments exclude it (without it, neither is said)."""
        cached = self._rows.get(id(argument))
        if cached is not None and cached[0] is argument:
            return cached[1]
        fmt, display = self.format, self.display
        value = _value_form(argument, registry)
        if value:
            self._values[id(argument)] = value
        exclusive = _exclusive_note(fmt, registry, argument) if registry is not None else ""
        configured = display.help_of(argument) if display else None
        description = _description(fmt, argument, configured, shaped=True)
        plain_description = (
            _description(fmt, argument, configured) if _has_shape(argument) else description
        )
        variable = display.variable_of(argument) if display else ""
        computed = display.computed_of(argument) if display else None
        computed_cell = fmt.FILTERS["cell"](computed) if computed else ""
        tag = display.stability_of(argument) if display else ""
        choices_text = display.choices_of(argument) if display else None
        options = (
            fmt.FILTERS["cell"](choices_text)
            if choices_text
            else fmt.type_options_cell(argument, None, display.types if display else None)
        )
        code = fmt.FILTERS["code"]
        value_cell = code(value) if value else ""
        plain = ", ".join(map(code, flag_names(argument)))
        row = Row(
            argument=argument,
            anchor=scoped_anchor(scope, argument.name),
            flags=fmt.flags_cell(argument, scope, value),
            description=_with_note(description, exclusive),
            plain_description=_with_note(plain_description, exclusive),
            default=computed_cell or fmt.default_cell(argument.default, argument),
            options=options,
            env=fmt.FILTERS.get("envvar", code)(variable) if variable else "",
            computed=computed_cell,
            stability=fmt.FILTERS["cell"](tag) if tag else "",
            plain_flags=f"{plain} {value_cell}" if value_cell else plain,
            value=value_cell,
            exclusive=exclusive,
        )
        self._rows[id(argument)] = (argument, row)
        return row


def scoped_anchor(scope: str, name: str) -> str:
    """An argument's anchor: its name's, after its subcommand's (`serve--port`; a positional's
    with a hyphen between, `serve-model`)."""
    own = anchor(name)
    if scope and not own.startswith("-"):
        return f"{scope}-{own}"
    return scope + own


def _value_form(argument: Argument, registry: Registry | None) -> str:
    """The value form the Argument cell ends with: "" without the registry (its framework
    says how it is written), for a switch, and for a positional that its name already says
    (`model`: no more than the name)."""
    if registry is None:
        return ""
    form = value_form(argument, registry.framework)
    if argument.positional and form == flag_names(argument)[0]:
        return ""
    return form


# How a page says an exclusive group of the argument's: "At most one of `--a`, `--b`."
EXCLUSIVE_TEXT = "At most one of {}."
REQUIRED_EXCLUSIVE_TEXT = "Exactly one of {} is required."


def _exclusive_note(fmt: OutputFormat, registry: Registry, argument: Argument) -> str:
    """The sentences saying which arguments exclude this one (its exclusive groups with more
    than one visible argument), escaped in the page's format."""
    if not registry.exclusive_groups:
        return ""
    cell, code = fmt.FILTERS["cell"], fmt.FILTERS["code"]
    said = []
    for group, names in exclusive_peers(registry, argument):
        if len(names) < 2:
            continue
        text = REQUIRED_EXCLUSIVE_TEXT if group.required else EXCLUSIVE_TEXT
        before, _, after = text.partition("{}")
        listed = ", ".join(code(name) for name in names)
        said.append(f"{cell(before)} {listed}{_spaced_tail(cell(after))}")
    return " ".join(said)


def _spaced_tail(text: str) -> str:
    """The words after a list of code spans: a space before a word, none before a full stop."""
    return text if not text or text[0] in ".,;" else f" {text}"


# What a help text computed when the server starts reads as, before its source (a code span):
# never the source as if it were the project's prose (`computed:` in argmatrix.yaml gives words).
COMPUTED_HELP = "Computed when the server starts:"


def _description(
    fmt: OutputFormat, argument: Argument, configured: str | None, shaped: bool = False
) -> str:
    """The Description cell: the configuration's text for a help computed at run time, a marker
    and the source as code for one without, else the help as prose; `shaped`: with its
    paragraphs, lists and kept lines (the format's line break between them)."""
    if configured:
        return fmt.FILTERS["prose"](configured)
    if isinstance(argument.help, Unevaluated):
        return f"{fmt.FILTERS['cell'](COMPUTED_HELP)} {fmt.FILTERS['code'](argument.help.source)}"
    if shaped:
        return shaped_cell(fmt.FILTERS["prose"], argument.help, fmt.LINE_BREAK)
    return fmt.FILTERS["prose"](argument.help)


def _has_shape(argument: Argument) -> bool:
    """Whether a help has lines whose shape a cell keeps (else its one line is the same)."""
    return isinstance(argument.help, str) and ("\n" in argument.help or "\r" in argument.help)


def _with_note(description: str, note: str) -> str:
    return f"{description} {note}" if description and note else (description or note)


def by_section(
    registry: Registry, titles: Mapping[str, str] | None = None
) -> dict[str, list[Argument]]:
    """Visible arguments per section, in registry order; with `titles` (`section_titles:`),
    the sections it names first, in its order and under its titles (sections given one title
    are one: the first one's arguments, then the next one's), then the others as they were."""
    sections = _by_registry_section(registry)
    if not titles:
        return sections
    shown: dict[str, list[Argument]] = {title: [] for title in titles.values()}
    for title, arguments in sections.items():
        shown.setdefault(titles.get(title, title), []).extend(arguments)
    return shown


def _by_registry_section(registry: Registry) -> dict[str, list[Argument]]:
    sections: dict[str, list[Argument]] = {title: [] for title in registry.sections}
    for argument in registry.arguments:
        if not argument.hidden:
            sections.setdefault(argument.section, []).append(argument)
    return sections


def section_anchor(title: str) -> str:
    return anchor(title.lower().replace(" ", "-"))


def server_page(
    registry: Registry,
    cells: Cells | None = None,
    scope: str = "",
    prog: str | None = None,
    top: str = "",
) -> ServerPage:
    """The generic reference of a registry and of its subcommands. `prog`: the program's name
    in the usages, in place of the registry's (the configuration's `prog:`, a page's
    `options.prog`); `top`: the program of the registry a subcommand belongs to."""
    cells = cells or Cells()
    if prog is None and cells.display is not None:
        prog = cells.display.display.prog or None
    fmt = cells.format
    cell, code, prose = fmt.FILTERS["cell"], fmt.FILTERS["code"], fmt.FILTERS["prose"]
    sections = []
    for title, arguments in cells.sections(registry).items():
        rows = tuple(cells.row(a, scope, registry) for a in arguments if not a.deprecated)
        if rows:
            sections.append(SectionView(cell(title), section_anchor(title), rows))
    deprecated = tuple(
        cells.row(a, scope, registry)._replace(replacement=code(replacement) if replacement else "")
        for a in registry.arguments
        if a.deprecated and not a.hidden
        for replacement in (replacement_of(a, registry),)
    )
    top = top or registry.prog
    shown_subcommands = tuple(s for s in registry.subcommands if not s.hidden)  # as options
    subcommands = tuple(
        SubcommandView(
            name=code(sub.name),
            aliases=", ".join(code(a) for a in sub.aliases),
            help=shaped_paragraphs(prose, sub.help, fmt.FILTERS["code_block"]),
            page=server_page(sub.registry, cells, scoped_anchor(scope, sub.name), prog, top),
        )
        for sub in shown_subcommands
    )
    subcommands, shared = _shared_sections(shown_subcommands, subcommands, cells, scope)
    shown_prog = program_name(registry, prog, top if registry.prog != top else "")
    return ServerPage(
        tuple(sections),
        deprecated,
        subcommands,
        shaped_paragraphs(cell, registry.description, fmt.FILTERS["code_block"]),
        shared,
        usage=usage_text(registry, shown_prog),
        prog=shown_prog,
        epilog=tuple(prose(p) for p in paragraphs(registry.epilog)),
    )


def paragraphs(text: str) -> list[str]:
    """A text's paragraphs (parted by blank lines), each on one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _section_key(section: SectionView) -> tuple[Any, ...]:
    """What makes two commands' sections the same: the title and every row as shown."""
    return (
        section.title,
        tuple(
            (row.argument.flags, row.description, row.default, row.options) for row in section.rows
        ),
    )


def _shared_sections(
    subs: Sequence[Subcommand], views: tuple[SubcommandView, ...], cells: Cells, scope: str = ""
) -> tuple[tuple[SubcommandView, ...], tuple[SectionView, ...]]:
    """Each subcommand section told which commands have the same one; the shared ones, once,
    their rows anchored as the command's whose subcommands share them (`#--config` for the
    program's: no one command's; `#bench--model` for those of `vllm bench`'s), and each given
    an anchor of its own (`shared_anchor`; a second one of the same title gets "-2", its rows
    anchored under it)."""
    if not views:
        return views, ()
    commands: dict[tuple[Any, ...], list[str]] = {}
    for sub, view in zip(subs, views, strict=True):
        for section in view.page.sections:
            commands.setdefault(_section_key(section), []).append(sub.name)
    marked: list[SubcommandView] = []
    shared: dict[tuple[Any, ...], SectionView] = {}
    anchors: Counter[str] = Counter()  # shared sections per anchor so far
    for view in views:
        sections = []
        for section in view.page.sections:
            key = _section_key(section)
            section = dataclasses.replace(section, shared_by=tuple(commands[key]))
            if len(section.shared_by) > 1:
                if key not in shared:
                    base = anchor(section.title).lower()
                    anchors[base] += 1
                    unique = base if anchors[base] == 1 else f"{base}-{anchors[base]}"
                    rows_scope = scope if unique == base else scoped_anchor(scope, unique)
                    rows = tuple(cells.unscoped(row, rows_scope) for row in section.rows)
                    shared[key] = dataclasses.replace(section, rows=rows, shared_anchor=unique)
                section = dataclasses.replace(section, shared_anchor=shared[key].shared_anchor)
            sections.append(section)
        marked.append(
            dataclasses.replace(view, page=dataclasses.replace(view.page, sections=tuple(sections)))
        )
    return tuple(marked), tuple(shared.values())


def variant_status(status: str, listed: tuple[str, ...], variant: str) -> str:
    """An argument's status on one variant: supported or experimental only on a variant the
    manifest lists for it (the rule of the matrix's columns and of the per-variant marks)."""
    if status in ("supported", "experimental") and variant not in listed:
        return "unsupported"
    return status


def variant_marks(resolved: Resolved, variants: tuple[str, ...]) -> tuple[str, ...]:
    """One mark per variant: the symbol of its status, as the matrix and the legend show it."""
    return tuple(
        STATUS_ICONS[variant_status(resolved.status, resolved.variants, variant)]
        for variant in variants
    )


# What a page says of an entry marked `review: needed` (imported; no person has checked it).
NOT_REVIEWED = "Not reviewed: imported, to be checked"


class _PlatformCells(NamedTuple):
    """What one `Resolved` (shared by every argument it applies to) adds to a support page's
    rows: made once per page for each, not once per row."""

    cells: tuple[str, tuple[str, ...], str, str]  # status, per-variant marks, note, reason
    # The registry's own default and options stand (no override, no computed default): a
    # row is then its registry row with these cells put in.
    plain: bool
    group: str | None  # the reason group of an argument listed under "Not supported", or None


def _platform_cells(
    resolved: Resolved, variants: tuple[str, ...], layout: str, fmt: OutputFormat
) -> _PlatformCells:
    """The cells a platform adds to a row: status, per-variant marks, note, reason; and where
    the row goes."""
    notes = [resolved.note] if resolved.note else []
    if layout == "variants" and resolved.reason:
        notes.insert(0, resolved.reason)  # no status column to carry the reason
    if resolved.review:
        notes.append(NOT_REVIEWED)
    prose = fmt.FILTERS["prose"]
    cells = (
        fmt.status_cell(resolved, variants),
        variant_marks(resolved, variants),
        prose("; ".join(notes)) if notes else "",
        prose(resolved.reason) if resolved.reason else "",
    )
    return _PlatformCells(cells, not any(_plainness(resolved)), _reason_group(resolved, layout))


def _alike(resolved: Resolved) -> tuple[Any, ...]:
    """What a support page's row takes from a `Resolved`: two that agree on it share cells."""
    status, variants, note, reason = (
        resolved.status,
        resolved.variants,
        resolved.note,
        resolved.reason,
    )
    return (status, variants, note, reason, resolved.review, *_plainness(resolved))


def _plainness(resolved: Resolved) -> tuple[bool, bool, bool]:
    """What changes the registry's own cells of a row: a default or options of the platform's."""
    return resolved.default_overridden, resolved.options is not None, bool(resolved.computed)


def _reason_group(resolved: Resolved, layout: str) -> str | None:
    """The reason an unsupported argument is listed under (status layout), else None."""
    if layout == "variants" or resolved.status != "unsupported":
        return None
    reason = resolved.reason or ""
    if resolved.review:
        reason = f"{reason} ({NOT_REVIEWED.lower()})" if reason else NOT_REVIEWED
    return reason


def _support_row(
    base: Row, resolved: Resolved, platform_cells: tuple[Any, ...], fmt: OutputFormat
) -> Row:
    """The registry's cells of `base` with a platform's default or options in place of its own
    (the platform overrides the default, computes it, or narrows the options), then the
    platform's cells."""
    argument = base.argument
    # The platform's computed default, else its own value, else the registry's (either kind).
    computed = fmt.FILTERS["cell"](resolved.computed) if resolved.computed else ""
    if computed:
        default = computed
    elif resolved.default_overridden:
        default = fmt.default_cell(resolved.default, argument)
    else:
        default, computed = base.default, base.computed
    return Row._make(
        (
            argument,
            base.anchor,
            base.flags,
            base.description,
            default,
            base.options
            if resolved.options is None
            else fmt.type_options_cell(argument, resolved.options),
            *platform_cells,
            "",
            base.env,
            computed,
            base.plain_flags,
            base.stability,
            base.value,
            base.exclusive,
            base.plain_description,
        )
    )


def support_page(
    registry: Registry,
    platform: ResolvedPlatform,
    layout: str = "status",
    title: str | None = None,
    cells: Cells | None = None,
) -> SupportPage:
    """A platform's support page. Built 10^5 rows at a time on a large project, so a row costs
    little: arguments share a few `Resolved` (one per distinct entry), whose cells are made
    once each (`_PlatformCells`), and a row whose registry cells stand is its registry row's
    parts with those cells put in. A subcommand's arguments follow in sections of their own
    (those not supported among them, with their reason)."""
    cells = cells or Cells()
    rows = _SupportRows(platform, layout, cells)
    sections = rows.sections(registry, "")
    subcommands = tuple(
        SupportSubcommand(cells.format.FILTERS["code"](scope.words.strip()), found)
        for scope in scopes(registry)
        if scope.words
        for found in (rows.sections(scope.registry, scope.words),)
        if found
    )
    cell = cells.format.FILTERS["cell"]
    return SupportPage(
        title=cell(title or default_support_title(platform.platform.title, layout)),
        platform=platform.platform.name,
        variants=tuple(cell(v) for v in platform.platform.variants),
        layout=layout,
        sections=sections,
        not_supported=tuple(
            ReasonGroup(cell(reason), tuple(rows)) for reason, rows in rows.groups.items()
        ),
        description=platform.platform.description,
        counts=rows.counts(),
        subcommands=subcommands,
    )


class _SupportRows:
    """The rows of one platform's page, the cells of each distinct `Resolved` made once."""

    def __init__(self, platform: ResolvedPlatform, layout: str, cells: Cells) -> None:
        self.platform, self.layout, self.cells = platform, layout, cells
        self.groups: dict[str, list[Row]] = {}  # the top level's not supported, by reason
        self.tally: Counter[int] = Counter()
        self.made: dict[int, tuple[Resolved, _PlatformCells]] = {}  # by id: few distinct ones
        self.alike: dict[tuple[Any, ...], _PlatformCells] = {}  # distinct ones saying the same

    def sections(self, registry: Registry, words: str) -> tuple[SectionView, ...]:
        """The sections of the registry (a subcommand's: `words`) on the platform's page."""
        fmt = self.cells.format
        cell = fmt.FILTERS["cell"]
        by_argument = self.platform.by_argument
        variants = self.platform.platform.variants
        sections = []
        for section, parts in self.cells.support_parts(registry, words).items():
            found = [by_argument[part.name] for part in parts]
            self.tally.update(map(id, found))
            rows = []
            for part, resolved in zip(parts, found, strict=True):
                known = self.made.get(id(resolved))
                if known is None:
                    key = _alike(resolved)
                    extra = self.alike.get(key)
                    if extra is None:
                        extra = self.alike[key] = _platform_cells(
                            resolved, variants, self.layout, fmt
                        )
                    known = self.made[id(resolved)] = (resolved, extra)
                extra = known[1]
                if extra.plain:
                    row = _new_row(part.head + extra.cells + part.tail)
                else:
                    row = _support_row(part.row, resolved, extra.cells, fmt)
                if extra.group is None or words:
                    rows.append(row)
                else:
                    self.groups.setdefault(extra.group, []).append(row)
            if rows:
                anchor_of = section_anchor(section)
                if words:
                    anchor_of = "".join(anchor(w) for w in words.split()) + "-" + anchor_of
                sections.append(
                    SectionView(cell(section), anchor_of, tuple(rows), any(r.note for r in rows))
                )
        return tuple(sections)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for identity, count in self.tally.items():
            status = self.made[identity][0].status
            counts[status] = counts.get(status, 0) + count
        return dict(sorted(counts.items()))


def sections_of(page: ServerPage | SupportPage, words: str, code: Any) -> tuple[SectionView, ...]:
    """The sections of the top level (`words` ""), or of the subcommand `words` lead to (`serve
    `), on a reference or a platform's page; `code`: the format's code filter (a subcommand's
    name is written with it)."""
    if not words:
        return page.sections
    if isinstance(page, SupportPage):
        name = code(words.strip())
        return next((sub.sections for sub in page.subcommands if sub.name == name), ())
    server: ServerPage | None = page
    for word in words.split():
        assert server is not None
        sub = next((s for s in server.subcommands if s.name == code(word)), None)
        server = sub.page if sub is not None else None
        if server is None:
            return ()
    return server.sections if server is not None else ()


def default_support_title(platform_title: str, layout: str) -> str:
    """A support page's title when its page gives none. The variants layout says so, so a
    platform's two pages (by status and by variant) do not share one title in a site's
    navigation."""
    suffix = " by variant" if layout == "variants" else ""
    return f"Support Features on {platform_title}{suffix}"


def page_context(
    page: PageSpec,
    registry: Registry,
    platforms: dict[str, ResolvedPlatform],
    where: str,
    server: ServerPage | None = None,
    cells: Cells | None = None,
    history: History | None = None,
    display: DisplayFacts | None = None,
) -> dict[str, Any]:
    """What a page's template can use (docs/reference/template-context.md), its texts escaped
    for the page's format (`cells` must be of that format; without them, `display` says how
    arguments read)."""
    cells = cells or Cells(FORMATS[page.output_format], display)
    cell = cells.format.FILTERS["cell"]
    prog = page.options.get("prog")
    if isinstance(prog, str) and prog.strip():  # the page names the program: its usages too
        server = server_page(registry, cells, prog=" ".join(prog.split()))
    columns = matrix_columns(platforms)
    context: dict[str, Any] = {
        "display": cells.display,
        "history": HistoryView(history, cells.format) if history is not None else None,
        "registry": registry,
        "server": server or server_page(registry, cells),
        "title": cell(page.title) if page.title else page.title,
        "options": read_only(page.options),
        "platforms": MappingProxyType(platforms),
        "matrix_columns": columns,
        "feature_matrix": feature_matrix(page, registry, columns, where, cells.format),
        "status_labels": _STATUS_LABELS,
        "status_icons": _STATUS_ICONS,
    }
    if page.platform is None and "layout" in page.options:
        layout = page.options["layout"]
        if layout not in SERVER_LAYOUTS:
            raise ArgmatrixError.at(
                f"page {page.output!r}: unknown layout {layout!r}",
                file=where,
                line=page.line,
                fix=f"use one of: {', '.join(SERVER_LAYOUTS)} (a page without a platform)",
            )
    if page.platform is not None:
        if page.platform not in platforms:
            known = ", ".join(sorted(platforms)) or "none loaded"
            raise ArgmatrixError.at(
                f"page {page.output!r} names unknown platform {page.platform!r}",
                file=where,
                line=page.line,
                fix=f"use a platform of the loaded manifests ({known})",
            )
        layout = str(page.options.get("layout", "status"))
        if layout not in SUPPORT_LAYOUTS:
            raise ArgmatrixError.at(
                f"page {page.output!r}: unknown layout {layout!r}",
                file=where,
                line=page.line,
                fix=f"use one of: {', '.join(SUPPORT_LAYOUTS)}",
            )
        context["support"] = support_page(
            registry, platforms[page.platform], layout, page.title, cells
        )
        context["platform"] = platforms[page.platform]
    return context


_STATUS_LABELS = MappingProxyType(STATUS_LABELS)
_STATUS_ICONS = MappingProxyType(STATUS_ICONS)


def read_only(value: Any) -> Any:
    """A page's `options` as templates see them: mappings and lists that cannot be changed."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(read_only(item) for item in value)
    return value


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


def feature_matrix(
    page: PageSpec, registry: Registry, columns: MatrixColumns, where: str, fmt: OutputFormat
) -> FeatureMatrix | None:
    """The page's feature matrix, or None when its options name no `features`. A flag that is
    not the registry's is an error at the page's line."""
    features = page.options.get("features")
    if features is None:
        return None
    if not isinstance(features, Mapping) or not all(
        isinstance(flag, str) and isinstance(name, str) and name.strip()
        for flag, name in features.items()
    ):
        raise ArgmatrixError.at(
            f"page {page.output!r}: 'features' must map flags to the names of the features",
            file=where,
            line=page.line,
            fix="write it like 'features: {--enable-lora: LoRA adapters}'",
        )
    index = registry.by_flag()
    cell, code = fmt.FILTERS["cell"], fmt.FILTERS["code"]
    rows = []
    for flag, name in features.items():
        if flag not in index:
            near = closest(flag, list(index))
            raise ArgmatrixError.at(
                f"page {page.output!r}: feature {name!r} names {flag!r}, which is not an"
                " argument of the registry",
                file=where,
                line=page.line,
                fix=f"did you mean {near!r}?" if near else "name one of the registry's flags",
            )
        rows.append((f"{cell(name)} ({code(flag)})", columns.statuses(index[flag])))
    headings = tuple(
        cell(column.variant if column.variant is not None else column.resolved.platform.title)
        for column in columns
    )
    return FeatureMatrix(headings, tuple(rows))


def matrix_columns(platforms: Mapping[str, ResolvedPlatform]) -> MatrixColumns:
    return MatrixColumns(
        MatrixColumn(resolved, variant)
        for resolved in platforms.values()
        for variant in (resolved.platform.variants or (None,))
    )


# What templates may read attributes of, besides plain data and Jinja's own helpers.
PAGE_MODEL_TYPES: tuple[type, ...] = (
    Registry,
    Argument,
    Subcommand,
    Platform,
    Capability,
    Resolved,
    Opaque,
    Unevaluated,
    FromEnvironment,
    Diagnostic,
    ResolvedPlatform,
    Finding,
    Row,
    SectionView,
    ReasonGroup,
    SubcommandView,
    ServerPage,
    SupportPage,
    SupportSubcommand,
    ExclusiveGroup,
    MatrixColumn,
    FeatureMatrix,
    HistoryView,
    DisplayFacts,
    *TABLE_MODEL_TYPES,
)
