"""Text for MyST pages (Sphinx with myst-parser): whatever a help string holds, it reads as plain
text, and every flag is an option of the program that `{option}` and `:option:` link to.

MyST is CommonMark with more of a line read as markup: `{name}` before a backtick is a role (a
role such as `{eval-rst}` can reach any reST), `{{ x }}` a substitution, `$...$` math, `[^x]` a
footnote reference (an unknown one fails `sphinx-build -W`), `~~` strikethrough, `{#id .class}`
an attribute list; and at the start of a line `%` is a comment, `(name)=` a target, `:::` a
colon fence, `:x:` a field, `+++` a block break. So every text from a registry or a manifest is
written with those characters backslash-escaped (CommonMark honours a backslash before any ASCII
punctuation), `<`, `>` and `&` as character references (MyST passes raw HTML through), and
nothing at its start that would begin a block.

A flag is written as the role `{argmatrix-option}` (defined by the Sphinx extension
`argmatrix.sphinx`), which registers it as an option of the program in Sphinx's standard domain
and makes it the target of `{option}` references. In-place regions are marked with MyST
comments (`% argmatrix:begin ...` / `% argmatrix:end`), which Sphinx never shows.
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

# The roles the Sphinx extension defines (argmatrix/integrations/sphinx.py): `{ROLE}`--flag``,
# `{ENVVAR_ROLE}`NAME``.
ROLE = "argmatrix-option"
ENVVAR_ROLE = "argmatrix-envvar"

_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# What MyST or Markdown would read as syntax inside a line: raw HTML and character references,
# escapes, code, emphasis, table pipes, roles, substitutions and attribute lists (`{`, `}`),
# links, images and footnotes (`[`, `]`), math (`$`), strikethrough (`~`), and an underscore at
# the edge of a word. Also what MyST's typography extensions (`smartquotes`, `replacements`)
# would rewrite: quotes, and the runs that become a dash, an ellipsis or a symbol (`--`, `...`,
# `+-`, `(c)`, `??`, `!!`, `,,`): "bool flag (--a / --no-a)" must not read "(–a / –no-a)". An
# escaped character is never rewritten (markdown-it leaves it out of the text it rewrites).
_SPECIAL = re.compile(
    r"[&<>\\`*|{}\[\]$~\"']|(?<![^\W_])_|_(?![^\W_])"
    r"|-(?=-)|\.(?=\.)|\+(?=-)|\((?=(?:c|r|tm)\))|([?!,])(?=\1)",
    re.IGNORECASE,
)
# A first character that begins a block at the start of a line: heading, list, setext line,
# comment (`%`, also an in-place marker), target (`(name)=`), colon fence, field or definition
# (`:`), block break (`+++`), directive option (`:x:`). All ASCII punctuation: a backslash
# escapes each.
_START_ESCAPED = frozenset("#-+=%(:")
_ORDERED_ITEM = re.compile(r"\d+(?=[.)](?:\s|$))")  # `1. ` or `1) `: an ordered list item
_JINJA_OPENERS = ("{{", "{%", "{#")
# A flag written inside the role as it is: no white space (a role's text is one name), nothing
# that would end the role (a backtick) or split a table row (`|`), no backslash or brace (kept as
# written inside a role, and read by a tool that reads the page as a template again).
_ROLE_SAFE = re.compile(r"[^\s`|\\{}<]+")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return _REFERENCES.get(char) or "\\" + char


def _escaped(text: str) -> str:
    return _SPECIAL.sub(_escape, text)


def _safe_edges(text: str) -> str:
    """No block starts with the text, and a heading keeps a closing `#`."""
    if text.endswith("#"):  # first: the leading escape below may add a backslash before it
        text = text[:-1] + "\\#"
    first = text[:1]
    if first in _START_ESCAPED:
        return "\\" + text
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
    """Plain text, escaped for a MyST table cell, a heading or a paragraph of its own."""
    return _cell_text(str(value))


def code(value: Any) -> str:
    """An inline code span for a value; plain escaped text where a code span would be unsafe."""
    return _code_text(str(value))


def table_code(value: Any) -> str:
    """A value as code in a table cell (a flag, a value form: `[text|json]`), also where a code
    span would split the row: a `|` escaped inside the span, which a table cell reads as `|`
    (GitHub's rule, myst-parser's too), as running text would not."""
    text = folded(str(value))
    if "|" not in text or "`" in text or "\\" in text or _verbatim_unsafe(text):
        return code(text)
    if not text.strip() or text[:1] == " " or text[-1:] == " ":
        return code(text)
    return "`" + text.replace("|", "\\|") + "`"


def _verbatim_unsafe(text: str) -> bool:
    """Text a code span or fence must not carry as written: a Jinja delimiter, or a comment
    opener that could be read as an in-place marker (the marker scanner does not know where a
    code span or fence is)."""
    if "{" in text and any(opener in text for opener in _JINJA_OPENERS):
        return True
    return "<!--" in text or "{/*" in text or text.lstrip().startswith("%")


@lru_cache(maxsize=65536)
def _code_text(value: str) -> str:
    text = folded(value)
    if not text.strip():
        return '`""`' if text == "" else f'`"{text}"`'
    if "`" in text or "|" in text or "\\" in text or _verbatim_unsafe(text):
        return cell(text)
    return f"`{text}`"  # nothing inside a code span is markup, in MyST as in CommonMark


def code_block(value: Any, language: str = "") -> str:
    """A fenced code block holding `value` exactly as written, on its lines (indentation kept,
    each line's other white space folded, blank lines dropped).

    The fence is made longer than any run of backticks in the text. Text a fence would carry as
    written but must not (a Jinja delimiter, a comment opener, a line starting with `%`, which
    the in-place marker scanner would read) becomes an HTML `<pre>` block with its characters
    as references instead."""
    lines = block_lines(str(value))
    text = "\n".join(lines)
    if any(_verbatim_unsafe(line) for line in lines):
        escaped = "".join(_PRE_ESCAPES.get(char, char) for char in text)
        language_class = f' class="language-{anchor(language)}"' if language else ""
        return f"<pre><code{language_class}>{escaped}</code></pre>"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    # A language name is one word of a fence's info string; `{...}` would make it a directive.
    info = anchor(language) if language else ""
    return f"{fence}{info}\n{text}\n{fence}"


_BACKTICKS = re.compile(r"`+")
_PRE_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "{": "&#123;",
    "}": "&#125;",
}


def option(name: str, scope: str = "") -> str:
    """A flag as an option target: the role `{argmatrix-option}`, with the subcommand's name
    first for a subcommand's flag (its program is the registry's program and the subcommand,
    as Sphinx's `program` directive names it). A flag the role cannot hold as written is shown
    as code, and is no target."""
    if not _ROLE_SAFE.fullmatch(name) or (scope and not _ROLE_SAFE.fullmatch(scope)):
        return table_code(name)
    text = f"{scope} {name}" if scope else name
    return f"{{{ROLE}}}`{text}`"


def _flags(scope: str, anchor_id: str, names: tuple[str, ...]) -> str:
    return ", ".join(option(name, scope) for name in names)


def envvar(value: Any) -> str:
    """An argument's environment variable (or several, "A, B": Click's list) as the role
    `{argmatrix-envvar}`, which makes each a target of `{envvar}` references and an entry of
    the index; a name the role cannot hold as written is shown as code."""
    names = str(value).split(", ")
    if not all(_ROLE_SAFE.fullmatch(name) for name in names):
        return code(value)
    return ", ".join(f"{{{ENVVAR_ROLE}}}`{name}`" for name in names)


_CELLS = CellWriter(cell=cell, code=code, flags=_flags, table_code=table_code)
flags_cell = _CELLS.flags_cell
default_cell = _CELLS.default_cell
type_options_cell = _CELLS.type_options_cell
status_cell = _CELLS.status_cell
prose = markdown_prose(cell, code).prose


# What a page's `format:` says. A MyST page is a .md file too: only `format: myst` makes one.
NAME = "myst"
DESCRIPTION = "Sphinx with myst-parser"
OUTPUT_SUFFIXES: tuple[str, ...] = ()

# The filters templates use to put text into a page of this format.
FILTERS: dict[str, Callable[..., str]] = {
    "cell": cell,
    "prose": prose,
    "code": code,
    "table_code": table_code,
    "anchor": anchor,
    "code_block": code_block,
    "envvar": envvar,
}

# The bundled table macros of this format: pipe tables, as in Markdown, whose first cell is
# `row.flags` (the role).
TABLE_MACROS = "_tables.myst.j2"

# A second line in a table cell (raw HTML, which myst-parser passes to Sphinx's HTML output).
LINE_BREAK = "<br>"

# In-place regions are between MyST comment lines (a `%` at the start of a line), which Sphinx
# never shows and no text of a cell can start (`%` is escaped there). Blank lines around the
# generated text keep its tables and headings blocks of their own.
REGION = RegionSyntax(
    begin=re.compile(r"^%[ \t]*argmatrix:begin(?P<attrs>[^\n]*)$", re.MULTILINE),
    end=re.compile(r"^%[ \t]*argmatrix:end[ \t\r]*$", re.MULTILINE),
    begin_plain="% argmatrix:begin",
    begin_example='% argmatrix:begin section="LoRA" platform="ascend"',
    end_example="% argmatrix:end",
    padding="\n\n",
    generated=f"% {GENERATED_TEXT}",
)


def embedded(page: str) -> str:
    """A whole rendered page as an in-place region holds it: unchanged."""
    return page
