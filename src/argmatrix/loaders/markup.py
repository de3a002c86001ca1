"""A Typer help text as a reader reads it: Typer writes its help with Rich (`rich_markup_mode`,
"rich" by default wherever Rich is installed) or as Markdown ("markdown"), so a help may hold
`[bold]Server[/bold]` or `**Server**`. The model keeps the words and their shape (paragraphs,
list items, lines kept as written, code spans in backticks, the text every format writes its
own way), never the markup: a page would print it raw.
"""

from __future__ import annotations

import re
from typing import Any

RICH, MARKDOWN = "rich", "markdown"
MARKUP_MODES = (RICH, MARKDOWN)

# A Rich markup tag, as Rich reads one (`rich.markup.RE_TAGS`): `[` and a lower-case letter, `#`,
# `/` or `@`, up to the next `]`, after any backslashes. An odd number of backslashes escapes
# the tag: half of them (rounded down) and the tag's text are what a reader sees.
_RICH_TAG = re.compile(r"(\\*)\[([a-z#/@][^\[]*?)\]")


def plain_help(text: str, markup: str | None) -> str:
    """`text` without the markup of `markup` (None: as it is)."""
    if markup == RICH:
        return _without_rich_tags(text)
    if markup == MARKDOWN:
        return _markdown_as_text(text)
    return text


def _without_rich_tags(text: str) -> str:
    if "[" not in text:
        return text

    def tag(match: re.Match[str]) -> str:
        kept, escaped = divmod(len(match.group(1)), 2)
        return "\\" * kept + (f"[{match.group(2)}]" if escaped else "")

    return _RICH_TAG.sub(tag, text)


# ------------------------------------------------------------------ Markdown, read by markdown-it


def _markdown_as_text(text: str) -> str:
    """The blocks of a Markdown help, each as the model keeps a help's shape: paragraphs parted
    by a blank line, list items as `- item` lines, a code block as lines kept as written (after
    Click's `\\b`); inline, the words without emphasis, code spans kept in backticks, a link as
    its text and its address."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    blocks: list[str] = []
    items: list[str] = []
    depth = 0  # inside a list
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
            if depth == 0 and items:
                blocks.append("\n".join(f"- {item}" for item in items))
                items = []
        elif token.type == "inline":
            shown = _inline(token.children or [])
            if shown:
                (items if depth else blocks).append(shown)
        elif token.type in ("fence", "code_block"):
            lines = [line for line in token.content.splitlines() if line.strip()]
            if lines:
                blocks.append("\n".join(["\b", *lines]))
    return "\n\n".join(blocks)


def _inline(children: list[Any]) -> str:
    parts: list[str] = []
    links: list[str] = []  # the addresses of the links open, said after their text
    for child in children:
        kind = child.type
        if kind in ("text", "html_inline"):
            parts.append(child.content)
        elif kind == "code_inline":
            fence = "``" if "`" in child.content else "`"
            parts.append(f"{fence}{child.content}{fence}")
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind == "image":
            parts.append(child.content)
        elif kind == "link_open":
            links.append(str(child.attrs.get("href", "")))
            parts.append("\x00")  # where the link's text starts
        elif kind == "link_close" and links:
            address = links.pop()
            start = len(parts) - 1 - parts[::-1].index("\x00")
            label = "".join(parts[start + 1 :])
            parts[start:] = [label if label == address else f"{label} ({address})"]
    return " ".join("".join(parts).split())
