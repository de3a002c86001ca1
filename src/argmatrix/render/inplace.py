"""Regenerate only the parts of a hand-written page between marker comments.

    <!-- argmatrix:begin -->                      the whole page template's output
    <!-- argmatrix:begin section="LoRA" -->       one section's table
    <!-- argmatrix:begin section="LoRA" platform="ascend" -->   that section on a platform
    ...generated...
    <!-- argmatrix:end -->

An MDX page marks its regions with MDX comments instead, the same attributes inside:

    {/* argmatrix:begin section="LoRA" platform="ascend" */}
    ...generated...
    {/* argmatrix:end */}

Everything outside the markers is the author's and is kept byte for byte. The same fragments
serve the MkDocs directive that embeds one table in a tutorial.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from argmatrix._runtime.files import read_page
from argmatrix.config import PageSpec
from argmatrix.errors import ArgmatrixError
from argmatrix.model.spelling import find_section, section_spellings
from argmatrix.render.environment import render_template
from argmatrix.render.formats import FORMATS, OutputFormat
from argmatrix.render.formats import markdown as _markdown
from argmatrix.render.rows import Cells
from argmatrix.render.support_pages import support_page
from argmatrix.render.tables import SERVER_LAYOUTS
from argmatrix.render.views import page_context, sections_of

# The Markdown markers (each format's are in its module: `REGION`).
BEGIN = _markdown.REGION.begin
END = _markdown.REGION.end
ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
ATTRIBUTES = ("section", "platform", "layout")

Reader = Callable[[Path], str | None]


def read_text(path: Path) -> str | None:
    """The page exactly as written: line endings are the author's (no newline translation).
    Only a regular file is read (a FIFO or device is a located error, never waited on), and a
    page that is not UTF-8 is an error rather than prose silently replaced."""
    return read_page(path, strict=True)


def _format_of(env: jinja2.Environment) -> OutputFormat:
    """The output format `env` renders (see `environment.environment`)."""
    return FORMATS[getattr(env, "output_format", "markdown")]


def parse_attributes(
    text: str, where: str, line: int, example: str = _markdown.REGION.begin_example
) -> dict[str, str]:
    attrs = dict(ATTRIBUTE.findall(text))
    leftover = ATTRIBUTE.sub("", text).strip()
    unknown = [k for k in attrs if k not in ATTRIBUTES]
    if leftover or unknown:
        raise ArgmatrixError.at(
            f"cannot read the marker attributes {text.strip()!r}",
            file=where,
            line=line,
            fix=f"write e.g. {example}",
        )
    return attrs


def fragment(
    env: jinja2.Environment,
    context: dict[str, Any],
    attrs: dict[str, str],
    template: str,
    where: str,
    line: int | None,
) -> str:
    """The text for one marker (or directive): a whole template, or one section's table, in the
    output format `env` renders."""
    output_format = _format_of(env)
    section = attrs.get("section")
    if section is None:
        whole = render_template(env, template, context, where, line)
        return output_format.embedded(whole).rstrip("\n")
    registry = context["registry"]
    found = find_section(registry, section)
    if found is None:
        raise ArgmatrixError.at(
            f"unknown section {section!r}",
            file=where,
            line=line,
            fix=f"use a registry section: {', '.join(section_spellings(registry))}",
        )
    scope, title = found
    code = output_format.FILTERS["code"]
    platform_name = attrs.get("platform") or (
        context["platform"].platform.name if "platform" in context else None
    )
    macros: Any = env.get_template(f"argmatrix/{output_format.TABLE_MACROS}").module  # macros
    html = _html_option(macros, context)
    if platform_name is None:
        shape = _server_layout(macros, context, attrs, where, line)
        views = [
            s
            for s in sections_of(context["server"], scope.words, code)
            if s.rows[0].argument.section == title
        ]
        if not views:
            return ""
        return str(macros.server_table(views[0].rows, **html, **shape)).strip("\n")
    platforms = context["platforms"]
    if platform_name not in platforms:
        raise ArgmatrixError.at(
            f"unknown platform {platform_name!r}",
            file=where,
            line=line,
            fix=f"use one of: {', '.join(sorted(platforms)) or 'no manifests loaded'}",
        )
    layout = attrs.get("layout", "status")
    page = support_page(
        registry,
        platforms[platform_name],
        layout,
        cells=Cells(output_format, context.get("display")),
    )
    views = [s for s in sections_of(page, scope.words, code) if s.rows[0].argument.section == title]
    return str(macros.support_table(views[0], page, **html)).strip("\n") if views else ""


def _server_layout(
    macros: Any, context: dict[str, Any], attrs: dict[str, str], where: str, line: int | None
) -> dict[str, str]:
    """The layout of a registry section's table: the marker's `layout`, else the page's
    (`options.layout`), else the table; for table macros that take one."""
    options = context.get("options") or {}
    layout = attrs.get("layout") or str(options.get("layout", "table"))
    if layout not in SERVER_LAYOUTS:
        raise ArgmatrixError.at(
            f"unknown layout {layout!r}",
            file=where,
            line=line,
            fix=f"use one of: {', '.join(SERVER_LAYOUTS)} (with a platform: status, variants)",
        )
    if "layout" not in getattr(macros.server_table, "arguments", ()):
        return {}
    return {"layout": layout}


def _html_option(macros: Any, context: dict[str, Any]) -> dict[str, bool]:
    """The page's `html` option for table macros that take it (the Markdown ones: raw HTML
    only where a page asks for it; other formats have no such choice)."""
    if "html" not in getattr(macros.server_table, "arguments", ()):
        return {}
    options = context.get("options") or {}
    return {"html": bool(options.get("html", False))}


def splice(
    path: Path,
    env: jinja2.Environment,
    page: PageSpec,
    context: dict[str, Any],
    read: Reader | None = None,
) -> str:
    """The page at `path` with every marker region regenerated (the markers of the output
    format `env` renders)."""
    existing = (read or read_text)(path)
    where = str(path)
    region = _format_of(env).REGION
    if existing is None:
        raise ArgmatrixError.at(
            "an in-place page must already exist",
            file=where,
            fix=f"write the page with {region.begin_plain} / {region.end_example} markers",
        )
    out: list[str] = []
    position = 0
    found = 0
    for begin in region.begin.finditer(existing):
        if begin.start() < position:
            continue
        line = existing.count("\n", 0, begin.start()) + 1
        end = region.end.search(existing, begin.end())
        if end is None:
            raise ArgmatrixError.at(
                "argmatrix:begin without argmatrix:end",
                file=where,
                line=line,
                fix=f"close the region with {region.end_example}",
            )
        attrs = parse_attributes(begin.group("attrs"), where, line, region.begin_example)
        body = fragment(env, context, attrs, page.template, where, line)
        out.append(existing[position : begin.end()])
        out.append(region.padding + body + region.padding)
        position = end.start()
        found += 1
    if not found:
        raise ArgmatrixError.at(
            f"no {region.begin_plain} marker in an in-place page",
            file=where,
            fix="add the markers where the generated tables belong",
        )
    out.append(existing[position:])
    return "".join(out)


__all__ = ["fragment", "page_context", "read_text", "splice"]
