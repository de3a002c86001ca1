"""Text for MDX pages (Mintlify, and any site built on `@mdx-js/mdx`): whatever a help string
holds, it reads as plain text.

MDX reads more of a page as code than Markdown does. `{` opens a JavaScript expression and `<` a
JSX tag (a `<` that starts no tag is a compile error); a line that starts with `import` or
`export` is an ES module statement; there is no raw HTML and no HTML comment. Text inside a JSX
element is still Markdown: emphasis, code, links. So every text from a registry or a manifest is
written with `{`, `}` and the Markdown markers backslash-escaped, `<`, `>` and `&` as character
references, and nothing at its start that would begin a block or a module statement.

Tables are JSX `<table>` elements, one `<td>` per column on a line of its own (what SGLang's own
coverage test parses), and flags are `<code>` elements. Whole pages start with YAML frontmatter
(Mintlify's `title:`), written by `frontmatter_value`. A bare `https://` address in a help text
stays what GFM (Mintlify's Markdown) makes of it: a link whose text is the address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from argmatrix.model.registry import Argument
from argmatrix.render.formats.shared import (
    GENERATED_TEXT,
    CellWriter,
    RegionSyntax,
    anchor,
    block_lines,
    folded,
    markdown_prose,
)

_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Everything MDX or Markdown would read as syntax inside a line: JSX and character references
# (`<`, `>`, `&`), expressions (`{`, `}`), escapes, code, emphasis, links and images, GFM's
# strikethrough and table pipes, math (`$`), an underscore at the edge of a word, and what
# starts a GFM autolink literal (`://`, `www.`, `@`). An autolink literal would take the
# escapes after it as part of its address, shown with their backslashes; escaped, the address
# is still made a link by GFM after the escapes are read, and shows exactly its text.
_SPECIAL = re.compile(r"[&<>{}\\`*\[\]|~$@]|(?<![^\W_])_|_(?![^\W_])|:(?=//)|(?<=[Ww]{3})\.")
# A first character that begins a block at the start of a line: heading, list, thematic break.
_START_ESCAPED = frozenset("#-+=")
_ORDERED_ITEM = re.compile(r"\d+(?=[.)](?:\s|$))")  # `1. ` or `1) `: an ordered list item
# A paragraph starting with one of these words is an ES module statement in MDX.
_MODULE_WORDS = ("import", "export")
# What a fenced code block must not hold as written: a region marker of either format (the
# marker scanner does not know where a fence is) or a Jinja delimiter (for a tool that reads the
# page as a template again).
_VERBATIM_UNSAFE = ("{/*", "*/}", "<!--", "{{", "{%", "{#")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return _REFERENCES.get(char) or "\\" + char


def _escaped(text: str) -> str:
    return _SPECIAL.sub(_escape, text)


def _safe_edges(text: str) -> str:
    """No block or module statement starts with the text, and a heading keeps a closing `#`."""
    if text.endswith("#"):  # first: the leading escape below may add a backslash before it
        text = text[:-1] + "\\#"
    first = text[:1]
    if first in _START_ESCAPED:
        return "\\" + text
    if text.startswith(_MODULE_WORDS):
        return f"&#{ord(first)};{text[1:]}"
    if "0" <= first <= "9":
        item = _ORDERED_ITEM.match(text)
        if item is not None:
            return f"{text[: item.end()]}\\{text[item.end() :]}"
    return text


@lru_cache(maxsize=65536)
def _cell_text(text: str) -> str:
    escaped = _escaped(folded(text).strip())
    return _safe_edges(escaped) if escaped else escaped


def cell(value: Any) -> str:
    """Plain text, escaped for a table cell, a heading or a paragraph of its own."""
    return _cell_text(str(value))


def code(value: Any) -> str:
    """A value in a `<code>` element, its text escaped (MDX reads Markdown inside elements too)."""
    return _code_text(str(value))


@lru_cache(maxsize=65536)
def _code_text(value: str) -> str:
    text = folded(value)
    if not text.strip():
        text = '""' if text == "" else f'"{text}"'
    return f"<code>{_escaped(text)}</code>"


def code_block(value: Any, language: str = "") -> str:
    """A fenced code block holding `value` exactly as written, on its lines (indentation kept,
    each line's other white space folded, blank lines dropped).

    Nothing can be escaped inside a fence, so the fence is made longer than any run of
    backticks in the text. Text holding a region marker or a Jinja delimiter, which a fence would
    keep as written, becomes a `<pre>` element with its text escaped instead, on one line of
    the page (its line breaks are `<br />` elements: MDX would read lines inside an element as
    Markdown, and an expression is code)."""
    lines = block_lines(str(value))
    text = "\n".join(lines)
    if any(unsafe in text for unsafe in _VERBATIM_UNSAFE):
        language_class = f' className="language-{anchor(language)}"' if language else ""
        inner = "<br />".join(_escaped(line) for line in lines)
        return f"<pre><code{language_class}>{inner}</code></pre>"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


_BACKTICKS = re.compile(r"`+")

# What `cell` and `code` write, read back: a backslash escape or a character reference.
_WRITTEN = re.compile(r"\\([!-/:-@\[-`{-~])|&(amp|lt|gt);|&#([0-9]+);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">"}


@lru_cache(maxsize=1)
def _not_yaml_printable() -> re.Pattern[str]:
    """Characters a YAML document may not hold as they are (YAML 1.2, c-printable). Compiled on
    first use: the class of ranges takes milliseconds to compile, paid by every run otherwise."""
    return re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _read_back(match: re.Match[str]) -> str:
    escaped, named, number = match.groups()
    if escaped is not None:
        return str(escaped)
    if named is not None:
        return _NAMED[named]
    return chr(int(number))


def frontmatter_value(value: Any) -> str:
    """A YAML double-quoted string for the page's frontmatter (`title: ...`), showing the same
    text as `value` shows on the page. Frontmatter is not MDX and Mintlify prints it as written,
    so a text already escaped by `cell` is read back first."""
    text = _WRITTEN.sub(_read_back, folded(str(value)).strip())
    quoted = json.dumps(text, ensure_ascii=False)
    return _not_yaml_printable().sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def _flags(scope: str, anchor_id: str, names: tuple[str, ...]) -> str:
    return f'<a id="{anchor_id}"></a>' + "<br />".join(code(name) for name in names)


_CELLS = CellWriter(cell=cell, code=code, flags=_flags)


def flags_cell(argument: Argument, scope: str = "", value: str = "") -> str:
    """The Argument cell: the flags, each a bare `<code>` (what SGLang's coverage test reads:
    `<code>--flag</code>`, never an attribute), then the value form in a `<code>` marked
    `am-value`, its pieces (`{auto,` `float16,` `bfloat16}`; `NAME` `[NAME` `...]`) each in a
    `<span className="am-piece">`, a line-break opportunity (`<wbr />`) after each comma: the
    Mintlify stylesheet lets it wrap between its pieces, never inside one (`auto-round`)."""
    names = _CELLS.flags_cell(argument, scope)
    return f"{names} {_value_code(value)}" if value else names


_PIECE = re.compile(r"[^ ,]+,?|,")


def _value_code(value: str) -> str:
    words = []
    for word in folded(value).split(" "):
        pieces = [f'<span className="am-piece">{_escaped(p)}</span>' for p in _PIECE.findall(word)]
        words.append("<wbr />".join(pieces))
    return f'<code className="am-value">{" ".join(words)}</code>'


# A flag of more characters than this may not fit a phone's column at the running size: its
# Argument cell says how long it is (`flag_attributes`), for the Mintlify stylesheet to make it
# smaller as far as the column needs, on one line.
LONG_FLAG = 30
_FLAG_CODE = re.compile(r"(?:</a>|<br />)<code>([^<]*)</code>")


def flag_attributes(cell_text: str) -> str:
    """The attributes of an Argument cell's `<td>`: ` data-am-flag="N"` when its longest flag
    is longer than LONG_FLAG characters, N its length rounded up to a multiple of 5 (the
    stylesheet has a rule for each), else nothing. A `<td>` with attributes is still a
    `<td[^>]*>` for a coverage test."""
    longest = max(
        (len(_WRITTEN.sub(_read_back, flag)) for flag in _FLAG_CODE.findall(cell_text)),
        default=0,
    )
    if longest <= LONG_FLAG:
        return ""
    return f' data-am-flag="{-(-longest // 5) * 5}"'


default_cell = _CELLS.default_cell
type_options_cell = _CELLS.type_options_cell
status_cell = _CELLS.status_cell
prose = markdown_prose(cell, code).prose


# What a page's `format:` says; an output ending in .mdx is MDX without one.
NAME = "mdx"
DESCRIPTION = "Mintlify and other MDX sites"
OUTPUT_SUFFIXES = (".mdx",)

# The filters templates use to put text into a page of this format.
FILTERS: dict[str, Callable[..., str]] = {
    "cell": cell,
    "prose": prose,
    "code": code,
    "anchor": anchor,
    "code_block": code_block,
    "frontmatter_value": frontmatter_value,
    "flag_attributes": flag_attributes,
}

# The bundled table macros of this format (see `markdown.TABLE_MACROS`).
TABLE_MACROS = "_tables.mdx.j2"

# A second line in a table cell: a JSX element (MDX has no raw HTML).
LINE_BREAK = "<br />"

# In-place regions are between MDX comments (`{/* ... */}`: an expression holding only a
# comment, which renders nothing). Blank lines around the generated text keep its tables and
# headings blocks of their own whatever the author wrote next to the markers.
REGION = RegionSyntax(
    begin=re.compile(r"\{/\*\s*argmatrix:begin(?P<attrs>[^*]*(?:\*(?!/\})[^*]*)*)\*/\}"),
    end=re.compile(r"\{/\*\s*argmatrix:end\s*\*/\}"),
    begin_plain="{/* argmatrix:begin */}",
    begin_example='{/* argmatrix:begin section="LoRA" platform="ascend" */}',
    end_example="{/* argmatrix:end */}",
    padding="\n\n",
    generated=f"{{/* {GENERATED_TEXT} */}}",
)

_FRONTMATTER = re.compile(r"---\n.*?\n---(?:\n|$)", re.DOTALL)


def embedded(page: str) -> str:
    """A whole rendered page as an in-place region holds it: without its frontmatter, which is
    frontmatter only at the top of a file (the page it goes in has its own)."""
    frontmatter = _FRONTMATTER.match(page)
    return page[frontmatter.end() :].lstrip("\n") if frontmatter else page
