"""The page model handed to templates: sections, rows, support cells and platform columns,
built once per render from the resolved model. Everything a template can reach is read-only.
See docs/reference/template-context.md."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from argmatrix.config import DisplayFacts, PageSpec
from argmatrix.errors import ArgmatrixError
from argmatrix.manifests.resolve import ResolvedPlatform
from argmatrix.model.findings import Finding, closest
from argmatrix.model.history import History
from argmatrix.model.platform import (
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
from argmatrix.model.usage import program_name, usage_text
from argmatrix.render.formats import FORMATS, OutputFormat
from argmatrix.render.formats.shared import anchor, shaped_paragraphs
from argmatrix.render.page_model import (
    FeatureMatrix,
    HistoryView,
    MatrixColumn,
    MatrixColumns,
    ReasonGroup,
    Row,
    SectionView,
    ServerPage,
    SubcommandView,
    SupportPage,
    SupportSubcommand,
)
from argmatrix.render.rows import (
    Cells,
    replacement_of,
    scoped_anchor,
    section_anchor,
)
from argmatrix.render.support_pages import support_page
from argmatrix.render.tables import SERVER_LAYOUTS, TABLE_MODEL_TYPES

SUPPORT_LAYOUTS = ("status", "variants")


# ------------------------------------------------------------------ views of the model


def server_page(
    registry: Registry,
    cells: Cells | None = None,
    scope: str = "",
    prog: str | None = None,
    top: str = "",
    short_usage: bool = False,
) -> ServerPage:
    """The generic reference of a registry and of its subcommands. `prog`: the program's name
    in the usages, in place of the registry's (the configuration's `prog:`, a page's
    `options.prog`); `top`: the program of the registry a subcommand belongs to; `short_usage`:
    each usage as `model/usage.py`'s `short_usage_parts` writes it (a page's `usage: short`)."""
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
            page=server_page(
                sub.registry, cells, scoped_anchor(scope, sub.name), prog, top, short_usage
            ),
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
        usage=usage_text(registry, shown_prog, short=short_usage),
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
    named = isinstance(prog, str) and prog.strip()
    short = _usage_option(page, where) == "short"
    if named or short:  # the page names the program (its usages too), or shortens them
        shown = " ".join(prog.split()) if named and isinstance(prog, str) else None
        server = server_page(registry, cells, prog=shown, short_usage=short)
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


# A page's `usage:` (server-arguments and command-line reference pages): argparse's own usage
# (`full`, also `true`, the default), `short` (`model/usage.py`'s `short_usage_parts`), or
# none (`false`).


def _usage_option(page: PageSpec, where: str) -> str:
    """A page's `usage:` as `full`, `short` or `false`."""
    value = page.options.get("usage", "full")
    if value is True or value is False:
        return "full" if value else "false"
    if value not in ("full", "short"):
        raise ArgmatrixError.at(
            f"page {page.output!r}: unknown usage {value!r}",
            file=where,
            line=page.line,
            fix="use full (argparse's own usage, the default), short (the program, what a"
            " command line must give, [options] and the positionals) or false (no usage)",
        )
    return str(value)


_STATUS_LABELS = MappingProxyType(STATUS_LABELS)
_STATUS_ICONS = MappingProxyType(STATUS_ICONS)


def read_only(value: Any) -> Any:
    """A page's `options` as templates see them: mappings and lists that cannot be changed."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(read_only(item) for item in value)
    return value


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
