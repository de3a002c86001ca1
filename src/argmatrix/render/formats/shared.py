"""What every output format writes the same way: text made printable on one line, and anchors.

Also the shape of an in-place region's markers (`RegionSyntax`): each format has its own comment
syntax, and `render/inplace.py` reads them from the format module.
"""

from __future__ import annotations

import re
from typing import NamedTuple

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


def anchor(name: str) -> str:
    """A stable HTML id for a flag: `--page-size` stays `--page-size`."""
    cleaned = (
        _ANCHOR_UNSAFE.sub("-", printable(name)).strip("-")
        if not name.startswith("--")
        else "--" + _ANCHOR_UNSAFE.sub("-", name[2:]).strip("-")
    )
    return cleaned or "argument"


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
