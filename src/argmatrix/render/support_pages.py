"""A platform's support page of the page model: the registry's rows with the platform's cells
put in (status, per-variant marks, note, reason), by section and by subcommand, the arguments
not supported grouped by reason. Built 10^5 rows at a time on a large project: the cells of
each distinct `Resolved` are made once."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any, NamedTuple

from argmatrix.manifests.resolve import ResolvedPlatform
from argmatrix.model.platform import (
    STATUS_ICONS,
    Resolved,
)
from argmatrix.model.registry import (
    Registry,
)
from argmatrix.model.spelling import scopes
from argmatrix.render.formats import OutputFormat
from argmatrix.render.formats.shared import anchor
from argmatrix.render.page_model import (
    ReasonGroup,
    Row,
    SectionView,
    SupportPage,
    SupportSubcommand,
    variant_status,
)
from argmatrix.render.rows import (
    Cells,
    section_anchor,
)

_new_row = functools.partial(tuple.__new__, Row)  # `Row._make` without its check, made in C


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


def default_support_title(platform_title: str, layout: str) -> str:
    """A support page's title when its page gives none. The variants layout says so, so a
    platform's two pages (by status and by variant) do not share one title in a site's
    navigation."""
    suffix = " by variant" if layout == "variants" else ""
    return f"Support Features on {platform_title}{suffix}"
