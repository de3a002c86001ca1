"""Text for Markdown table cells: whatever a help string holds, the table stays intact.

Help text and manifest notes come from many hands. In a cell they are plain text: no raw HTML,
no code spans, links or emphasis of their own, no line breaks, no characters that split a row.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .model import Opaque, Unevaluated, json_value, python_value

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Control characters (C0, DEL, C1 but tab and line breaks), and bidirectional overrides and
# isolates, which can reorder what follows them across cell borders: dropped.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE = re.compile(r"\s+")
# What would start Markdown inline syntax or split a row: HTML, escapes, code, emphasis, pipes,
# a `](` or `][` that would close a link, and an underscore at the edge of a word.
_SPECIAL = re.compile(r"[&<>\\`*|]|\](?=[(\[:])|(?<![^\W_])_|_(?![^\W_])")
_ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _printable(text: str) -> str:
    return _INVISIBLE.sub("", text)


def _folded(text: str) -> str:
    """Invisible characters dropped, every run of white space one space."""
    if text.isprintable():  # fast path: no control or format characters, only plain spaces
        return text if "  " not in text else _WHITESPACE.sub(" ", text)
    return _WHITESPACE.sub(" ", _printable(text))


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return _HTML.get(char) or "\\" + char


@lru_cache(maxsize=65536)
def _cell_text(text: str) -> str:
    return _SPECIAL.sub(_escape, _folded(text).strip())


def cell(value: Any) -> str:
    """Plain text, escaped for a Markdown table cell."""
    return _cell_text(str(value))


def code(value: Any) -> str:
    """An inline code span for a value; plain escaped text where a code span would be unsafe."""
    return _code_text(str(value))


@lru_cache(maxsize=65536)
def _code_text(value: str) -> str:
    text = _folded(value)
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
    """How a default or choice reads in a table: strings bare, other values as Python writes them.

    Values pass through their JSON form first, so a live registry and its snapshot (where a
    tuple comes back as a list) render the same.
    """
    if isinstance(value, (Unevaluated, Opaque)):
        return str(value)
    if isinstance(value, str):
        return value
    return repr(python_value(json_value(value)))
