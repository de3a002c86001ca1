"""Text for Markdown pages: whatever a help string holds, it reads as plain text.

Help text, section comments and manifest notes come from many hands (a pull request from a fork
among them). Wherever a page prints them, in a table cell, a heading or a paragraph of its own,
they are plain text: no raw HTML, no code spans, links or emphasis of their own, no line breaks,
no characters that split a row, nothing the usual Markdown extensions turn into HTML (`attr_list`
`{: onclick=...}`, admonitions, fences) and no `{{`/`{%`/`{#` for a tool that reads the page as a
Jinja template again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from argmatrix.render.formats.shared import (
    GENERATED_TEXT,
    CellWriter,
    RegionSyntax,
    anchor,
    block_lines,
    folded,
    markdown_prose,
)

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# What would start Markdown inline syntax or split a row: HTML, escapes, code, emphasis, pipes,
# a `](` or `][` that would close a link, an underscore at the edge of a word, and `{`, which
# opens an attribute list (`attr_list`: `{: onclick=...}` after a cell, a heading, an element)
# and every Jinja delimiter (`{{`, `{%`, `{#`).
_SPECIAL = re.compile(r"[&<>\\`*|{]|\](?=[(\[:])|(?<![^\W_])_|_(?![^\W_])")
# A first character that starts a block when the text begins a line (a paragraph of its own):
# heading, list, admonition (`!!!`), details (`???`), tilde fence, definition, `/// block`,
# a snippet (`--8<--`); a whole text in brackets would be read as the `toc` marker `[TOC]`.
# Backslash escapes where Python-Markdown honours them, else a character reference. (A link
# definition `[x]: ` is already broken by the escaped `]:`.)
_START_BACKSLASH = frozenset("#-+!")
_START_ENTITY = frozenset("?~:/=")
_ORDERED_ITEM = re.compile(r"\d+(?=[.)](?:\s|$))")  # `1. ` or `1) `: an ordered list item
# Sequences a code span must not carry: Jinja delimiters, and what pymdownx.inlinehilite reads
# as a language prefix (`#!python`, `:::python`) and would take out of the text shown.
_JINJA_OPENERS = ("{{", "{%", "{#")
_folded = folded


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return _HTML.get(char) or "\\" + char


def _safe_edges(text: str) -> str:
    """No block starts with the text, and a heading keeps a closing `#` (Markdown would strip
    it as the heading's closing sequence)."""
    if text.endswith("#"):  # first: the leading escape below may add a backslash before it
        text = text[:-1] + "\\#"
    first = text[:1]
    if first in _START_BACKSLASH:
        text = "\\" + text
    elif first in _START_ENTITY:
        text = f"&#{ord(first)};{text[1:]}"
    elif first == "[" and text.endswith("]"):  # a paragraph of just `[TOC]`: the contents
        text = "\\" + text
    elif "0" <= first <= "9":
        item = _ORDERED_ITEM.match(text)
        if item is not None:
            text = f"{text[: item.end()]}\\{text[item.end() :]}"
    return text


# A text that ends up in a page's first heading is the page's title, and MkDocs themes print
# titles with their tags stripped and their character references decoded (Material:
# `<title>{{ page.title | striptags }}</title>`). Inside <title> (and the other elements whose
# content is text up to their own end tag) only that end tag counts: `</title><script>` would
# close it. A word joiner (invisible) between `<` and `/` keeps such an end tag text.
_TEXT_ELEMENT_END = re.compile(
    r"&lt;(?=/(?:title|textarea|script|style|xmp|iframe|noembed|noframes|noscript|plaintext))",
    re.IGNORECASE,
)
_TEXT_ELEMENT_END_IN_CODE = re.compile(
    r"</(?:title|textarea|script|style|xmp|iframe|noembed|noframes|noscript|plaintext)",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def _cell_text(text: str) -> str:
    escaped = _SPECIAL.sub(_escape, _folded(text).strip())
    if "&lt;/" in escaped:
        escaped = _TEXT_ELEMENT_END.sub("&lt;\u2060", escaped)
    return _safe_edges(escaped) if escaped else escaped


def cell(value: Any) -> str:
    """Plain text, escaped for a Markdown table cell, a heading or a paragraph of its own."""
    return _cell_text(str(value))


def code(value: Any) -> str:
    """An inline code span for a value; plain escaped text where a code span would be unsafe."""
    return _code_text(str(value))


@lru_cache(maxsize=65536)
def _code_text(value: str) -> str:
    text = _folded(value)
    if not text.strip():
        return '`""`' if text == "" else f'`"{text}"`'
    if "`" in text or "|" in text or "\\" in text or _code_span_unsafe(text):
        # as escaped text, which a cell trims: a space at either edge is kept outside it
        # (in running text, `` a` |` `` must not read "a|")
        inner = cell(text)
        before = " " if text[:1] == " " and inner else ""
        after = " " if text[-1:] == " " and inner else ""
        return f"{before}{inner}{after}"
    if text[:1] == " " or text[-1:] == " ":
        # Python-Markdown strips a code span's edge spaces (CommonMark one from each side, only
        # when both have one): the space is kept outside it, so `* ` then `|` reads "* |".
        before = " " if text[:1] == " " else ""
        after = " " if text[-1:] == " " else ""
        return f"{before}`{text.strip(' ')}`{after}"
    return f"`{text}`"  # Markdown escapes what is inside a code span itself


def table_code(value: Any) -> str:
    """A value as code in a table cell (a flag, a value form: `[text|json]`), also where a code
    span cannot hold it: text with a `|`, which GitHub splits the row at inside a code span and
    Python-Markdown shows escaped inside one, is a `<code>` element holding the escaped text
    (read alike by both, in a table and out of one)."""
    text = _folded(str(value))
    if "|" not in text or "`" in text or "\\" in text or _code_span_unsafe(text):
        return code(text)
    if text[:1] == " " or text[-1:] == " ":  # a cell would trim the spaces: kept as text
        return code(text)
    return f"<code>{cell(text)}</code>"


def _code_span_unsafe(text: str) -> bool:
    if _keeps_markup_verbatim(text):
        return True
    if "</" in text and _TEXT_ELEMENT_END_IN_CODE.search(text):
        return True
    return text.lstrip().startswith(("#!", ":::"))


def _keeps_markup_verbatim(text: str) -> bool:
    """Text a code span or fence must not carry as written: a Jinja delimiter, or an HTML
    comment opener, which could be read as an in-place marker (`<!-- argmatrix:end -->` in a
    flag would end the region early on the next run, and each run would copy the rest of the
    table after it into the author's prose) or as a MkDocs directive. Neither tool knows where
    a code span or fence is."""
    if "{" in text and any(opener in text for opener in _JINJA_OPENERS):
        return True
    return "<!--" in text


def code_block(value: Any, language: str = "") -> str:
    """A fenced code block holding `value` exactly as written, on its lines (indentation kept,
    each line's other white space folded, blank lines dropped).

    Nothing can be escaped inside a fence, so the fence is made longer than any run of
    backticks in the text (which then cannot close it). Text with a Jinja delimiter or an HTML
    comment opener, which a fence would keep verbatim, becomes an HTML `<pre>` block whose
    characters are references.
    """
    lines = block_lines(str(value))
    text = "\n".join(lines)
    if _keeps_markup_verbatim(text):
        escaped = "".join(_PRE_ESCAPES.get(char, char) for char in text)
        language_class = f' class="language-{anchor(language)}"' if language else ""
        return f"<pre><code{language_class}>{escaped}</code></pre>"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


_BACKTICKS = re.compile(r"`+")
_PRE_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "{": "&#123;", "}": "&#125;"}


def _flags(scope: str, anchor_id: str, names: tuple[str, ...]) -> str:
    names_text = "<br>".join(table_code(name) for name in names)
    return f'<a id="{anchor_id}"></a>{names_text}{permalink(anchor_id)}'


def permalink(anchor_id: str) -> str:
    """A visible link to a flag's row, after its names, as Material links a heading (its class
    `headerlink`): an empty link whose `¶` the site's stylesheet draws (argmatrix.css), shown
    while the row is hovered or the link has the focus; no text, so nothing reading the page's
    tables (or a search index) finds a `¶` in the flag's cell."""
    return f'<a class="headerlink am-permalink" href="#{anchor_id}" title="Permanent link"></a>'


_CELLS = CellWriter(cell=cell, code=code, flags=_flags, table_code=table_code)
flags_cell = _CELLS.flags_cell
default_cell = _CELLS.default_cell
type_options_cell = _CELLS.type_options_cell
status_cell = _CELLS.status_cell
prose = markdown_prose(cell, code).prose


# What a page's `format:` says; without one, every output no other format claims is Markdown
# (`formats.DEFAULT_FORMAT`).
NAME = "markdown"
DESCRIPTION = "MkDocs, Zensical and any CommonMark site"
OUTPUT_SUFFIXES: tuple[str, ...] = ()

# The filters templates use to put text into a page of this format.
FILTERS: dict[str, Callable[..., str]] = {
    "cell": cell,
    "prose": prose,
    "code": code,
    "table_code": table_code,
    "anchor": anchor,
    "permalink": lambda name: permalink(anchor(name)),
    "code_block": code_block,
}


# The bundled table macros of this format (`server_table`, `support_table`, ...): an in-place
# region or the MkDocs directive that shows one section renders it with them.
TABLE_MACROS = "_tables.md.j2"

# A second line in a table cell (raw HTML, which MkDocs and Zensical render).
LINE_BREAK = "<br>"

# In-place regions are between HTML comments, which no Markdown site shows. Greedy up to the
# comment's end (lazy attributes before `\s*-->` took quadratic time on a long run of spaces in a
# hand-written page: 40,000 took 3 s); the attributes keep trailing spaces.
REGION = RegionSyntax(
    begin=re.compile(r"<!--\s*argmatrix:begin(?P<attrs>[^>]*)-->"),
    end=re.compile(r"<!--\s*argmatrix:end\s*-->"),
    begin_plain="<!-- argmatrix:begin -->",
    begin_example='<!-- argmatrix:begin section="LoRA" platform="ascend" -->',
    end_example="<!-- argmatrix:end -->",
    padding="\n",
    # A link reference definition: no HTML (a plain page has none), shown by no reader.
    generated=f"[//]: # ({GENERATED_TEXT})",
)


def embedded(page: str) -> str:
    """A whole rendered page as an in-place region holds it: unchanged."""
    return page
