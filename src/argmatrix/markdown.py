"""Text for Markdown table cells: whatever a help string holds, the table stays intact.

Help text and manifest notes come from many hands. In a cell they are plain text: no raw HTML,
no code spans, links or emphasis of their own, no line breaks, no characters that split a row.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .model import Unevaluated

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Characters that would start Markdown inline syntax (or split a table row) anywhere in a cell.
_ALWAYS = set("\\`*|")
# Bidirectional overrides and isolates can reorder what follows them, across cell borders.
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_WHITESPACE = re.compile(r"\s+")
_ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _printable(text: str) -> str:
    kept = []
    for char in text:
        if char in _BIDI_CONTROLS:
            continue
        category = unicodedata.category(char)
        if category == "Cc" and char not in "\t\n\r":
            continue
        kept.append(char)
    return "".join(kept)


def cell(value: Any) -> str:
    """Plain text, escaped for a Markdown table cell."""
    text = _WHITESPACE.sub(" ", _printable(str(value))).strip()
    out: list[str] = []
    for index, char in enumerate(text):
        if char in _HTML:
            out.append(_HTML[char])
        elif char in _ALWAYS:
            out.append("\\" + char)
        elif char == "]" and text[index + 1:index + 2] in ("(", "[", ":"):
            out.append("\\]")  # no link can form: `[text](url)` loses its `](`
        elif char == "_" and not _inside_word(text, index):
            out.append("\\_")
        else:
            out.append(char)
    return "".join(out)


def _inside_word(text: str, index: int) -> bool:
    before = text[index - 1] if index > 0 else " "
    after = text[index + 1] if index + 1 < len(text) else " "
    return before.isalnum() and after.isalnum()


def code(value: Any) -> str:
    """An inline code span for a value; plain escaped text where a code span would be unsafe."""
    text = _WHITESPACE.sub(" ", _printable(str(value)))
    if not text.strip():
        return '`""`' if text == "" else f'`"{text}"`'
    if "`" in text or "|" in text or "\\" in text:
        return cell(text)
    return f"`{text}`"  # Markdown escapes what is inside a code span itself


def anchor(name: str) -> str:
    """A stable HTML id for a flag: `--page-size` stays `--page-size`."""
    cleaned = _ANCHOR_UNSAFE.sub("-", _printable(name)).strip("-") if not name.startswith(
        "--") else "--" + _ANCHOR_UNSAFE.sub("-", name[2:]).strip("-")
    return cleaned or "argument"


def value_text(value: Any) -> str:
    """How a default or choice reads in a table: strings bare, other values as Python writes them."""
    if isinstance(value, Unevaluated):
        return value.source
    if isinstance(value, str):
        return value
    return repr(value)
