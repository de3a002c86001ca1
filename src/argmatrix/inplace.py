"""Regenerate only the parts of a hand-written page between marker comments.

    <!-- argmatrix:begin -->                      the whole page template's output
    <!-- argmatrix:begin section="LoRA" -->       one section's table
    <!-- argmatrix:begin section="LoRA" platform="ascend" -->   that section on a platform
    ...generated...
    <!-- argmatrix:end -->

Everything outside the markers is the author's and is kept byte for byte. The same fragments
serve the MkDocs directive that embeds one table in a tutorial.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from .config import PageSpec
from .errors import ArgmatrixError
from .outputs import read_page
from .render import page_context, render_template, support_page

# Greedy up to the comment's end (lazy attributes before `\s*-->` took quadratic time on a long
# run of spaces in a hand-written page: 40,000 took 3 s); the attributes keep trailing spaces.
BEGIN = re.compile(r"<!--\s*argmatrix:begin(?P<attrs>[^>]*)-->")
END = re.compile(r"<!--\s*argmatrix:end\s*-->")
ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
ATTRIBUTES = ("section", "platform", "layout")

Reader = Callable[[Path], str | None]


def read_text(path: Path) -> str | None:
    """The page exactly as written: line endings are the author's (no newline translation).
    Only a regular file is read (a FIFO or device is a located error, never waited on), and a
    page that is not UTF-8 is an error rather than prose silently replaced."""
    return read_page(path, strict=True)


def parse_attributes(text: str, where: str, line: int) -> dict[str, str]:
    attrs = dict(ATTRIBUTE.findall(text))
    leftover = ATTRIBUTE.sub("", text).strip()
    unknown = [k for k in attrs if k not in ATTRIBUTES]
    if leftover or unknown:
        raise ArgmatrixError.at(
            f"cannot read the marker attributes {text.strip()!r}", file=where, line=line,
            fix='write e.g. <!-- argmatrix:begin section="LoRA" platform="ascend" -->',
        )
    return attrs


def fragment(
    env: jinja2.Environment, context: dict[str, Any], attrs: dict[str, str], template: str,
    where: str, line: int | None,
) -> str:
    """The text for one marker (or directive): a whole template, or one section's table."""
    section = attrs.get("section")
    if section is None:
        return render_template(env, template, context, where, line).rstrip("\n")
    registry = context["registry"]
    if section not in registry.sections:
        raise ArgmatrixError.at(
            f"unknown section {section!r}", file=where, line=line,
            fix=f"use a registry section: {', '.join(registry.sections)}",
        )
    platform_name = attrs.get("platform") or (
        context["platform"].platform.name if "platform" in context else None)
    macros: Any = env.get_template("argmatrix/_tables.md.j2").module  # the template's macros
    if platform_name is None:
        views = [s for s in context["server"].sections if s.rows[0].argument.section == section]
        return str(macros.server_table(views[0].rows)).strip("\n") if views else ""
    platforms = context["platforms"]
    if platform_name not in platforms:
        raise ArgmatrixError.at(
            f"unknown platform {platform_name!r}", file=where, line=line,
            fix=f"use one of: {', '.join(sorted(platforms)) or 'no manifests loaded'}",
        )
    page = support_page(registry, platforms[platform_name], attrs.get("layout", "status"))
    views = [s for s in page.sections if s.rows[0].argument.section == section]
    return str(macros.support_table(views[0], page)).strip("\n") if views else ""


def splice(
    path: Path, env: jinja2.Environment, page: PageSpec, context: dict[str, Any],
    read: Reader | None = None,
) -> str:
    """The page at `path` with every marker region regenerated."""
    existing = (read or read_text)(path)
    where = str(path)
    if existing is None:
        raise ArgmatrixError.at(
            "an in-place page must already exist", file=where,
            fix="write the page with <!-- argmatrix:begin --> / <!-- argmatrix:end --> markers",
        )
    out: list[str] = []
    position = 0
    found = 0
    for begin in BEGIN.finditer(existing):
        if begin.start() < position:
            continue
        line = existing.count("\n", 0, begin.start()) + 1
        end = END.search(existing, begin.end())
        if end is None:
            raise ArgmatrixError.at("argmatrix:begin without argmatrix:end", file=where,
                                    line=line, fix="close the region with <!-- argmatrix:end -->")
        attrs = parse_attributes(begin.group("attrs"), where, line)
        body = fragment(env, context, attrs, page.template, where, line)
        out.append(existing[position:begin.end()])
        out.append("\n" + body + "\n")
        position = end.start()
        found += 1
    if not found:
        raise ArgmatrixError.at(
            "no <!-- argmatrix:begin --> marker in an in-place page", file=where,
            fix="add the markers where the generated tables belong",
        )
    out.append(existing[position:])
    return "".join(out)


__all__ = ["fragment", "page_context", "read_text", "splice"]
