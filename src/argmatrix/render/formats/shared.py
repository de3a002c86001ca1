"""What every output format writes the same way: text made printable on one line, anchors, and
the table cells (`CellWriter`, given a format's escaping).

Also the shape of an in-place region's markers (`RegionSyntax`): each format has its own comment
syntax, and `render/inplace.py` reads them from the format module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from argmatrix.model.platform import NEEDS_REASON, STATUS_ICONS, STATUS_LABELS, Resolved
from argmatrix.model.registry import Argument, FromEnvironment
from argmatrix.model.values import value_description, value_text

# Control characters (C0, DEL, C1 but tab and line breaks), and bidirectional overrides and
# isolates, which can reorder what follows them across cell borders: dropped.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A lone surrogate cannot be written as UTF-8: shown as U+FFFD, the replacement character.
_SURROGATE = re.compile("[\ud800-\udfff]")
_WHITESPACE = re.compile(r"\s+")
_ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def printable(text: str) -> str:
    """Invisible characters dropped, lone surrogates replaced."""
    text = _INVISIBLE.sub("", text)
    return _SURROGATE.sub("\ufffd", text) if not text.isprintable() else text


def folded(text: str) -> str:
    """Invisible characters dropped, lone surrogates replaced, every run of white space one
    space."""
    if text.isprintable():  # fast path: no control or format characters, only plain spaces
        return text if "  " not in text else _WHITESPACE.sub(" ", text)
    return _WHITESPACE.sub(" ", printable(text))


def block_lines(text: str) -> list[str]:
    """A text for a code block, on its lines: each line printable, its indentation (spaces)
    kept and every other run of white space one space; blank lines dropped."""
    lines = []
    for line in str(text).split("\n"):
        body = folded(line).strip()
        if body:
            indent = len(line) - len(line.lstrip(" "))
            lines.append(" " * indent + body)
    return lines


def anchor(name: str) -> str:
    """A stable HTML id for a flag: `--page-size` stays `--page-size`."""
    cleaned = (
        _ANCHOR_UNSAFE.sub("-", printable(name)).strip("-")
        if not name.startswith("--")
        else "--" + _ANCHOR_UNSAFE.sub("-", name[2:]).strip("-")
    )
    return cleaned or "argument"


# ------------------------------------------------------------------ prose: code spans and links

# A code span as CommonMark reads one: a run of backticks, closed by the next run of the same
# length. An unbalanced backtick stays a literal character (each format escapes it).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# A web address: http(s), then only characters no format reads as markup in a link's
# destination (no quotes, brackets, braces, angle brackets, backslashes, pipes, parentheses).
_URL = re.compile(r"\bhttps?://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+")
_URL_TRAILING = ".,;:!?*"  # sentence punctuation after an address is not part of it

TEXT, CODE, LINK = "text", "code", "link"


def prose_parts(text: str) -> list[tuple[str, str]]:
    """A help text's parts in order, as (kind, text): code spans (balanced backticks, their
    content as CommonMark trims it), web addresses outside code, and the text between."""
    parts: list[tuple[str, str]] = []
    position = 0
    for match in _CODE_SPAN.finditer(text):
        parts.extend(_text_and_links(text[position : match.start()]))
        content = match.group(2)
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        parts.append((CODE, content))
        position = match.end()
    parts.extend(_text_and_links(text[position:]))
    return [(kind, part) for kind, part in parts if part]


def _text_and_links(text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    position = 0
    for match in _URL.finditer(text):
        address = match.group(0).rstrip(_URL_TRAILING)
        if len(address) <= len("https://"):
            continue
        parts.append((TEXT, text[position : match.start()]))
        parts.append((LINK, address))
        position = match.start() + len(address)
    parts.append((TEXT, text[position:]))
    return parts


class ProseWriter(NamedTuple):
    """Running text (a help, a note) in one format: code spans as code, web addresses as links,
    the rest escaped as a cell's text."""

    cell: Callable[[Any], str]
    code: Callable[[Any], str]
    link: Callable[[str], str]
    # How a literal `!` right before a link the writer makes is written: in Markdown syntax,
    # `!` + `[text](address)` is an image, which a reader's browser would load from an address
    # the help text chose. "!" where a link cannot become anything else (a document tree).
    bang: str = "!"

    def prose(self, value: Any) -> str:
        text = folded(str(value)).strip()
        if "`" not in text and "://" not in text:  # fast path: most help texts
            return self.cell(text)
        written = []
        for kind, part in prose_parts(text):
            if kind == CODE:
                written.append(self.code(part))
            elif kind == LINK:
                if written and _ends_with_bang(written[-1]):
                    written[-1] = written[-1][:-1] + self.bang
                written.append(self.link(part))
            else:
                written.append(_spaced(self.cell, part))
        return "".join(written)


def _ends_with_bang(written: str) -> bool:
    """Whether a written text ends with a `!` that is not already escaped by a backslash."""
    if not written.endswith("!"):
        return False
    backslashes = len(written[:-1]) - len(written[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def _spaced(cell: Callable[[Any], str], text: str) -> str:
    """A text between code or links: escaped, keeping the space on either side of it."""
    inner = cell(text)
    before = " " if text[:1].isspace() else ""
    after = " " if text[-1:].isspace() and inner else ""
    return f"{before}{inner}{after}"


def markdown_link(cell: Callable[[Any], str]) -> Callable[[str], str]:
    """A link in Markdown syntax (CommonMark, GFM, MDX, MyST): the address as its escaped text.
    Character references are read in a destination too, so its `&` is written `&amp;`: the link
    goes where its text says."""

    def link(address: str) -> str:
        return f"[{cell(address)}]({address.replace('&', '&amp;')})"

    return link


def markdown_prose(cell: Callable[[Any], str], code: Callable[[Any], str]) -> ProseWriter:
    """The prose writer of a Markdown-syntax format (CommonMark, GFM, MDX, MyST): links as
    `markdown_link`, and a `!` before one escaped, so no registry text opens an image."""
    return ProseWriter(cell=cell, code=code, link=markdown_link(cell), bang="\\!")


# ------------------------------------------------------------------ a help's shape

# A help text's blocks, as Click's help keeps them: a paragraph (its lines are one line), lines
# kept as written (a paragraph Click's `\b` line opens), the items of a list.
PARAGRAPH, LINES, ITEMS = "paragraph", "lines", "items"
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# A list item's marker at a line's start: a bullet (`-`, `*`, `+`, `•`) or a number (`1.`,
# `2)`), then white space and the words of the item (a marker alone is text).
_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+(?=\S)")
NO_REWRAP = "\b"  # Click: a paragraph whose first line is this is printed as written


def help_blocks(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The blocks of a help text that has line breaks: paragraphs (parted by a blank line)
    joined into one line each, a paragraph Click keeps as written (its first line `\b`) line
    by line (their indentation under the block's kept), and list items (lines starting with
    `-`, `*`, `+`, `•` or `1.`; a line starting none continues the item before it; lines
    before the first item are a paragraph of their own). Paragraphs and items folded and
    trimmed; blank blocks left out."""
    blocks: list[tuple[str, tuple[str, ...]]] = []
    for paragraph in _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [line for line in paragraph.split("\n") if line.strip()]
        if not lines:
            continue
        if lines[0].strip() == NO_REWRAP:
            if lines[1:]:
                blocks.append((LINES, _dedented(lines[1:])))
            continue
        first_item = next((n for n, line in enumerate(lines) if _ITEM.match(line)), None)
        before = lines if first_item is None else lines[:first_item]
        if before and (joined := folded(" ".join(before)).strip()):
            blocks.append((PARAGRAPH, (joined,)))
        if first_item is not None:
            blocks.append((ITEMS, _items(lines[first_item:])))
    return blocks


def _dedented(lines: list[str]) -> tuple[str, ...]:
    """Lines kept as written: printable, without the indentation they all share."""
    kept = [printable(line).rstrip().expandtabs() for line in lines]
    indent = min(len(line) - len(line.lstrip(" ")) for line in kept)
    return tuple(line[indent:] for line in kept)


def _items(lines: list[str]) -> tuple[str, ...]:
    """The items' words; a numbered item keeps its number (`1. compile`): the order is said."""
    items: list[str] = []
    for line in lines:
        start = _ITEM.match(line)
        if start is not None:
            marker = line[: start.end()].strip()
            items.append((f"{marker} " if marker[0].isdigit() else "") + line[start.end() :])
        else:
            items[-1] += " " + line
    return tuple(shown for item in items if (shown := folded(item).strip()))


# A numbered item as `_items` keeps it: its number, then its words.
_NUMBERED = re.compile(r"(\d{1,3}[.)]) (.*)", re.DOTALL)


def _item_in_cell(prose: Callable[[Any], str], item: str, bullet: str) -> str:
    """An item on a line of a table cell: after the bullet, or after its own number."""
    return prose(item) if _NUMBERED.fullmatch(item) else bullet + prose(item)


def _item_in_list(prose: Callable[[Any], str], item: str) -> str:
    """An item of a Markdown list: a bullet item (`- `), or a numbered one (`1. `)."""
    numbered = _NUMBERED.fullmatch(item)
    if numbered is None:
        return "- " + prose(item)
    return f"{numbered.group(1)} {prose(numbered.group(2))}"


def shaped(prose: Callable[[Any], str], text: str, line_break: str, bullet: str = "\u2022 ") -> str:
    """A help text with its shape in one table cell of a format: its blocks written with
    `prose`, a line (`line_break`) between a block's lines and list items (each after
    `bullet`), an empty line between blocks. One line without line breaks in the help."""
    if "\n" not in text and "\r" not in text:
        return prose(text)
    written = []
    for kind, lines in help_blocks(text):
        if kind == ITEMS:
            written.append(line_break.join(_item_in_cell(prose, item, bullet) for item in lines))
        else:
            written.append(line_break.join(prose(line) for line in lines))
    return (line_break * 2).join(written)


def shaped_paragraphs(
    prose: Callable[[Any], str], text: str, code_block: Callable[..., str]
) -> str:
    """A help text with its shape as blocks of a page (Markdown, MyST, MDX): a paragraph each,
    a list's items as a Markdown list (`- item`, `1. item`), the lines Click keeps as written as a code
    block (`code_block`: its lines and their indentation, as Click prints them)."""
    if "\n" not in text and "\r" not in text:
        return prose(text)
    written = []
    for kind, lines in help_blocks(text):
        if kind == ITEMS:
            written.append("\n".join(_item_in_list(prose, item) for item in lines))
        elif kind == LINES:
            written.append(code_block("\n".join(lines), "text"))  # words, not a language
        else:
            written.append(prose(lines[0]))
    return "\n\n".join(written)


class RegionSyntax(NamedTuple):
    """How a format marks an in-place region in a hand-written page.

    `begin` has a group `attrs` (`section="LoRA" platform="ascend"`); `padding` goes between a
    marker and the generated text, on both sides."""

    begin: re.Pattern[str]
    end: re.Pattern[str]
    begin_plain: str  # a begin marker without attributes, for error messages
    begin_example: str  # one with attributes
    end_example: str
    padding: str
    # The line that ends every page argmatrix writes whole (never an in-place page), in the
    # format's own comment syntax, shown by no reader of the format. "" for a format without.
    generated: str = ""


# What a generated page's last line says, in each format's comment syntax (`generated`).
GENERATED_TEXT = "argmatrix:generated: change the configuration or the templates, not this page"
# A generated page's last line, in any format (`generated_page`).
GENERATED_LINE = re.compile(r"(?:\[//\]: # \(|%|\{/\*)[ \t]*argmatrix:generated\b")


def generated_page(text: str) -> bool:
    """Whether argmatrix wrote this page whole: its last line is the marker of a format
    (`RegionSyntax.generated`), whichever configuration of the project wrote it. What every
    configuration's prose check knows a generated page by (`checks/prose.py`)."""
    last = text.rstrip().rpartition("\n")[2]
    return GENERATED_LINE.match(last) is not None


# Actions that print and exit: the argument stores no value, so it has no default.
NO_VALUE_ACTIONS = frozenset({"version", "help"})


class CellWriter(NamedTuple):
    """The table cells of the page model, written with one format's escaping.

    Every format writes the same cells from the same facts (the flags and their anchor, the
    default, the options, a platform's status); only how a text, a value in code and a line break
    look differ. A format module builds one and exports its methods under the names the render
    path reads (`flags_cell`, `default_cell`, `type_options_cell`, `status_cell`)."""

    cell: Callable[[Any], str]  # plain text
    code: Callable[[Any], str]  # a value, as code
    # The names of an argument as one cell, given its scope (a subcommand's arguments: the
    # subcommand, as an anchor) and its anchor id (the scope and the argument's own anchor).
    flags: Callable[[str, str, tuple[str, ...]], str]
    # A value as code in a table cell (a value form, a flag), where `code` would give text (a
    # `|` a table would split at): None where `code` writes it so already.
    table_code: Callable[[Any], str] | None = None

    def flags_cell(self, argument: Argument, scope: str = "", value: str = "") -> str:
        """The Argument cell: the names (with the anchor a format gives them), then `value`,
        the value form a user types after the flag, as code (3.13's help writes it once,
        after the last name: `-n, --requests N`)."""
        own = anchor(argument.name)
        anchor_id = f"{scope}-{own}" if scope and not own.startswith("-") else scope + own
        names = self.flags(scope, anchor_id, flag_names(argument))
        return f"{names} {(self.table_code or self.code)(value)}" if value else names

    def default_cell(self, value: Any, argument: Argument | None = None) -> str:
        if argument is not None and argument.required and value is None:
            return "required"
        if argument is not None and argument.action in NO_VALUE_ACTIONS:
            return ""  # `--version`, `--help`: nothing is stored, no default to show
        if isinstance(value, FromEnvironment):
            return self.environment_default(value)
        return self.code(value_text(value))

    def environment_default(self, value: FromEnvironment) -> str:
        """A default read from an environment variable: "`8000`, or `$PORT` when set"; one the
        program cannot start without: "`$TOKEN` (must be set)"."""
        variable = self.code("$" + value.variable)
        if value.required:
            return f"{variable} (must be set)"
        if value.otherwise is None:  # `os.environ.get("X")`: nothing without the variable
            return f"unset, or {variable}"
        return f"{self.code(value_text(value.otherwise))}, or {variable} when set"

    def type_options_cell(
        self,
        argument: Argument,
        options: Iterable[Any] | None = None,
        names: Mapping[str, str] | None = None,
    ) -> str:
        """Options: the platform's subset, else the choices, else a description of the value
        (`names`: the configuration's `types:`, converter -> display text)."""
        code = self.code
        if options is not None:
            return ", ".join(code(value_text(o)) for o in options)
        if argument.choices is not None:
            if isinstance(argument.choices, tuple):
                return ", ".join(code(value_text(c)) for c in argument.choices)
            return code(value_text(argument.choices)) + " (computed)"
        return self.cell(value_description(argument, names))

    def status_cell(self, resolved: Resolved, variants: tuple[str, ...]) -> str:
        """A status as a reader reads it without colour or script: its symbol and its word
        (`✓ Supported`), then what it depends on, in parentheses: the variants that support it
        (all of a platform's, or the few of an experimental one), or the reason it is not
        supported or not applicable (beside the status, never instead of it). The MkDocs
        plugin's script turns the symbol and word into a badge."""
        status = resolved.status
        word = f"{STATUS_ICONS[status]} {STATUS_LABELS[status]}"
        detail = ""
        some = status == "experimental" and resolved.variants != variants  # a few variants
        if variants and (status == "supported" or some):
            detail = ", ".join(resolved.variants)
        elif status in NEEDS_REASON and resolved.reason:
            detail = resolved.reason
        return f"{word} ({self.cell(detail)})" if detail else word


def flag_names(argument: Argument) -> tuple[str, ...]:
    """The names a row shows for an argument: its flags, else (a positional) its metavar or
    dest."""
    if argument.flags:
        return argument.flags
    return (argument.metavar if isinstance(argument.metavar, str) else argument.dest,)
