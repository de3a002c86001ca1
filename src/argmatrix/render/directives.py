"""Directives in hand-written Markdown, expanded at build time: the path every engine shares.

A directive is an HTML comment on a line of its own, outside code (fenced or indented):

    <!-- argmatrix section="LoRA" -->                      the generic reference table
    <!-- argmatrix section="LoRA" platform="ascend" -->    that section on a platform
    <!-- argmatrix schema="manifest" -->                   the keys of a JSON Schema
    <!-- argmatrix page="reference/ascend.md" -->          a configured page, whole (alone in
                                                           an otherwise empty page)

The MkDocs plugin (`integrations/mkdocs.py`) and the Python-Markdown extension
(`integrations/markdown.py`, what runs under Zensical) both expand them through `Directives`;
neither renders on its own. Errors are `ArgmatrixError`s naming the page and line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import jinja2

from argmatrix.config import Config, PageSpec
from argmatrix.errors import ArgmatrixError
from argmatrix.manifests.resolve import ResolvedPlatform
from argmatrix.model.registry import Registry
from argmatrix.render.environment import environment
from argmatrix.render.formats.markdown import cell, code
from argmatrix.render.inplace import ATTRIBUTE, fragment, parse_attributes
from argmatrix.render.pages import render_project
from argmatrix.render.views import page_context

DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)<!--\s*argmatrix\s(?P<attrs>[^>]*)-->[ \t]*$")
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
PLACEHOLDERS = {"sections": "<section>", "arguments": "<flag>"}
TABLE_EXAMPLE = '<!-- argmatrix section="LoRA" platform="ascend" -->'
PAGE_EXAMPLE = '<!-- argmatrix page="reference/ascend.md" -->'

Table = Callable[[dict[str, str], int], str]


def read_directive(text: str, where: str, line: int) -> tuple[str, dict[str, str]] | None:
    """The indent and attributes of a directive line; None when `text` is not one."""
    match = DIRECTIVE.match(text)
    if match is None:
        return None
    raw = match["attrs"]
    attrs = dict(ATTRIBUTE.findall(raw))
    if ATTRIBUTE.sub("", raw).strip():
        raise ArgmatrixError.at(
            f"cannot read the directive attributes {raw.strip()!r}",
            file=where,
            line=line,
            fix='write name="value" pairs',
        )
    return match["indent"], attrs


def outside_fences(lines: list[str], offset: int = 0) -> list[tuple[int, int, str]]:
    """(index, line number, text) of each line outside code blocks: fenced (any fence) and
    indented (an example of a directive in a hand-written page is code, never expanded)."""
    found: list[tuple[int, int, str]] = []
    fence: str | None = None
    code = _IndentedCode()
    for index, text in enumerate(lines):
        opening = FENCE.match(text)
        if fence is not None:
            if (
                opening
                and opening["fence"][0] == fence[0]
                and len(opening["fence"]) >= len(fence)
                and not text.strip()[len(opening["fence"]) :].strip()
            ):
                fence = None
            continue
        if code.holds(text):
            continue
        if opening:
            fence = opening["fence"]
            continue
        found.append((index, index + offset + 1, text))
    return found


# What opens a block whose content is indented: a list item (its content starts after the
# marker) or an admonition, details or block of Python-Markdown's extensions (four spaces).
_LIST_ITEM = re.compile(r"^(?P<marker>[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)\S")
_INDENTED_BLOCK = re.compile(r"^[ \t]*(?:!!!|\?\?\?\+?|///)")


def _indent(text: str) -> int:
    """A line's indentation in columns, a tab to the next multiple of four (CommonMark)."""
    width = 0
    for char in text:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


class _IndentedCode:
    """Which lines are an indented code block, line by line: after a blank line (or at the
    start), a line indented four columns past the content of the block it is in; it goes on
    through blank lines while the lines stay indented so. A list item's content starts after its
    marker, an admonition's four columns in, so a directive indented inside one is not code."""

    def __init__(self) -> None:
        self.base = 0  # where the content of the enclosing list item or admonition starts
        self.after_blank = True
        self.in_code = False

    def holds(self, text: str) -> bool:
        if not text.strip():
            self.after_blank = True
            return self.in_code
        indent = _indent(text)
        if (self.in_code or self.after_blank) and indent >= self.base + 4:
            self.in_code = True
            self.after_blank = False
            return True
        if self.after_blank and indent < self.base:
            self.base = 0  # the list item or admonition ended
        self.in_code = self.after_blank = False
        item = _LIST_ITEM.match(text)
        if item:
            self.base = len(item["marker"].expandtabs(4))
        elif _INDENTED_BLOCK.match(text):
            self.base = indent + 4
        return False


def expand_directives(markdown: str, table: Table, where: str = "<page>", offset: int = 0) -> str:
    """Replace each directive line (outside fenced code) with `table(attributes, line number)`,
    indented as the directive was, with a blank line on each side.

    `offset` is the number of source lines before `markdown` (front matter an engine removed).
    """
    lines = markdown.split("\n")
    replaced: dict[int, list[str]] = {}
    for index, number, text in outside_fences(lines, offset):
        directive = read_directive(text, where, number)
        if directive is None:
            continue
        indent, attrs = directive
        body = table(attrs, number)
        replaced[index] = ["", *(indent + row if row else row for row in body.split("\n")), ""]
    if not replaced:
        return markdown
    out: list[str] = []
    for index, text in enumerate(lines):
        out.extend(replaced.get(index, (text,)))
    return "\n".join(out)


def page_directive(markdown: str, where: str, offset: int = 0) -> tuple[str, int] | None:
    """The output named by a whole-page directive and its line, when the page holds one.

    Such a page holds nothing else but blank lines: a page directive among prose is an error
    (a table directive embeds one table in prose)."""
    lines = markdown.split("\n")
    named: tuple[str, int] | None = None
    for _index, number, text in outside_fences(lines, offset):
        directive = read_directive(text, where, number)
        if directive is not None and "page" in directive[1]:
            attrs = directive[1]
            if set(attrs) != {"page"}:
                raise ArgmatrixError.at(
                    "a page directive takes only 'page'",
                    file=where,
                    line=number,
                    fix=f"write {PAGE_EXAMPLE}",
                )
            named = (attrs["page"], number)
            break
    if named is None:
        return None
    others = [n for n, text in enumerate(lines, offset + 1) if text.strip() and n != named[1]]
    if others:
        raise ArgmatrixError.at(
            "a page directive must be alone in its page",
            file=where,
            line=others[0],
            fix=f"move this text out of the page, or embed single tables with {TABLE_EXAMPLE}",
        )
    return named


class Directives:
    """The directives of one argmatrix project: its tables, its pages and JSON Schema tables.

    What a table needs (the page model, the template environment) is built on first use and
    kept: a site has many directives and one registry. `html` lets the tables carry the HTML
    the MkDocs/Zensical site uses (anchors per argument, aliases on lines of their own); without
    it they are plain GitHub-flavoured Markdown."""

    def __init__(
        self,
        config: Config,
        registry: Registry,
        platforms: dict[str, ResolvedPlatform],
        schemas: Mapping[str, dict[str, Any]] | None = None,
        html: bool = False,
    ) -> None:
        self.config = config
        self.registry = registry
        self.platforms = platforms
        self.schemas = schemas or {}
        self.html = html
        self._context: dict[str, Any] | None = None
        self._env: jinja2.Environment | None = None
        self._pages: dict[str, str] = {}

    def expand(self, markdown: str, where: str, offset: int = 0) -> str:
        """`markdown` with its table directives expanded, or the page a page directive names."""
        if "argmatrix" not in markdown:
            return markdown
        whole = page_directive(markdown, where, offset)
        if whole is not None:
            return self.page(whole[0], where, whole[1])
        return expand_directives(markdown, lambda a, n: self.table(a, where, n), where, offset)

    def table(self, attrs: dict[str, str], where: str, line: int) -> str:
        """One directive's table: a section (on a platform), or a JSON Schema's keys."""
        if "schema" in attrs:
            return self.schema(attrs, where, line)
        if "page" in attrs:
            raise ArgmatrixError.at(
                "a page directive must be alone in its page",
                file=where,
                line=line,
                fix=f"embed single tables with {TABLE_EXAMPLE}",
            )
        parse_attributes(" ".join(f'{k}="{v}"' for k, v in attrs.items()), where, line)
        if "section" not in attrs:
            raise ArgmatrixError.at(
                "an argmatrix directive needs a section (or a schema)",
                file=where,
                line=line,
                fix=f"write e.g. {TABLE_EXAMPLE}",
            )
        if self._context is None or self._env is None:
            spec = PageSpec(
                template="server_arguments.md.j2",
                output=where,
                options={"html": True} if self.html else {},
            )
            config_file = str(self.config.file)
            display = self.config.display.facts(self.registry, config_file)
            self._context = page_context(
                spec, self.registry, self.platforms, config_file, display=display
            )
            self._env = environment(self.config.templates_dir)
        return fragment(self._env, self._context, attrs, "server_arguments.md.j2", where, line)

    def page(self, output: str, where: str, line: int) -> str:
        """The configured page whose output is `output`, rendered (once per project)."""
        spec = next((p for p in self.config.pages if p.output == output), None)
        if spec is None or spec.output_format != "markdown":
            known = [p.output for p in self.config.pages if p.output_format == "markdown"]
            raise ArgmatrixError.at(
                f"no Markdown page {output!r} in {self.config.file or 'argmatrix.yaml'}",
                file=where,
                line=line,
                fix=f"name one of: {', '.join(known)}"
                if known
                else "add the page under 'pages' in argmatrix.yaml",
            )
        if output not in self._pages:
            rendered = render_project(self.config, self.registry, self.platforms, only=output)
            self._pages[output] = rendered[0].text
        return self._pages[output]

    def schema(self, attrs: dict[str, str], where: str, line: int) -> str:
        name = attrs["schema"]
        extra = sorted(set(attrs) - {"schema"})
        if name not in self.schemas or extra:
            raise ArgmatrixError.at(
                f"unknown schema {name!r}"
                if name not in self.schemas
                else f"a schema directive takes no {', '.join(extra)}",
                file=where,
                line=line,
                fix=f'write <!-- argmatrix schema="NAME" --> with NAME one of:'
                f" {', '.join(self.schemas)}",
            )
        return schema_table(self.schemas[name])


# ------------------------------------------------------------------ JSON Schema tables


def schema_table(schema: dict[str, Any]) -> str:
    """A Markdown table of every key a JSON Schema allows, with its type and meaning."""
    rows: list[tuple[str, dict[str, Any], bool]] = []
    _schema_rows(schema, "", False, rows)
    lines = ["| Key | Type | Required | Meaning |", "| --- | --- | --- | --- |"]
    for path, node, required in rows:
        lines.append(
            f"| {code(path)} | {_schema_type(node)} | {'yes' if required else ''} |"
            f" {_schema_meaning(node)} |"
        )
    return "\n".join(lines)


def _schema_rows(
    node: dict[str, Any], path: str, required: bool, rows: list[tuple[str, dict[str, Any], bool]]
) -> None:
    if path:
        rows.append((path, node, required))
    branch = next((b for b in node.get("oneOf", ()) if b.get("type") == "object"), node)
    needed = set(branch.get("required", ()))
    for key, sub in branch.get("properties", {}).items():
        _schema_rows(sub, f"{path}.{key}" if path else key, key in needed, rows)
    items = branch.get("items")
    if branch.get("type") == "array" and isinstance(items, dict) and "properties" in items:
        _schema_rows(items, f"{path}[]", False, rows)
    extra = branch.get("additionalProperties")
    if isinstance(extra, dict) and (extra.get("oneOf") or extra.get("properties")):
        name = PLACEHOLDERS.get(path.rsplit(".", 1)[-1], "<name>")
        _schema_rows(extra, f"{path}.{name}", False, rows)


def _schema_type(node: dict[str, Any]) -> str:
    shorthand = _shorthand(node)
    if shorthand is not None:
        return f"a {code(shorthand)} value, or mapping"
    if "oneOf" in node:
        return " or ".join(_schema_type(branch) for branch in node["oneOf"])
    if "enum" in node:
        return "one of " + ", ".join(code(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        return f"list of {_schema_type(items)}" if isinstance(items, dict) else "list"
    if kind == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "enum" in extra:
            return "mapping to " + _schema_type(extra)
        return "mapping"
    if isinstance(kind, list):
        return " or ".join(cell(k) for k in kind)
    return cell(kind) if kind else "any value"


def _shorthand(node: dict[str, Any]) -> str | None:
    """The key of the object branch that a oneOf's scalar branch stands for (`status`)."""
    branches = node.get("oneOf", ())
    objects = [b for b in branches if b.get("type") == "object"]
    scalars = [b for b in branches if b.get("type") != "object"]
    if len(objects) != 1 or len(scalars) != 1:
        return None
    return next(
        (key for key, sub in objects[0].get("properties", {}).items() if sub == scalars[0]), None
    )


def _schema_meaning(node: dict[str, Any]) -> str:
    parts = [cell(node["description"])] if node.get("description") else []
    shorthand = _shorthand(node)
    if shorthand is not None:
        parts.append(f"Write the {code(shorthand)} alone, or a mapping with the keys below.")
    if node.get("pattern"):
        parts.append(f"Matches {code(node['pattern'])}.")
    if node.get("uniqueItems"):
        parts.append("No repeats.")
    return " ".join(parts)


__all__ = [
    "DIRECTIVE",
    "Directives",
    "expand_directives",
    "page_directive",
    "read_directive",
    "schema_table",
]
