"""Cells for engines that build a document tree instead of reading page text (Sphinx's docutils
nodes): plain text, nothing escaped, with each value that is shown as code marked.

This is not a page format (no templates, no in-place regions, not in `FORMATS`): it gives the
page model (`render/rows.py`, `Cells`) the same cells every format writes (`shared.CellWriter`:
"required", the choices, "(computed)", a platform's status), so an engine adapter builds its
nodes from them without a parser in between. A value shown as code is between `CODE_START` and
`CODE_END`, two control characters that no text of a cell can hold (`shared.folded` drops them);
`spans` splits a cell back into its text and code parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from argmatrix.render.formats.shared import (
    CODE,
    LINK,
    TEXT,
    CellWriter,
    ProseWriter,
    anchor,
    folded,
)

CODE_START = "\x0e"
CODE_END = "\x0f"
LINK_START = "\x10"
LINK_END = "\x11"
_SPANS = re.compile(
    f"{CODE_START}([^{CODE_END}]*){CODE_END}|{LINK_START}([^{LINK_END}]*){LINK_END}"
)


def cell(value: Any) -> str:
    """The text on one line, invisible characters dropped."""
    return folded(str(value)).strip()


def code(value: Any) -> str:
    """A value shown as code (an empty or blank text in quotes, so it can be seen)."""
    text = folded(str(value))
    if not text.strip():
        text = '""' if text == "" else f'"{text}"'
    return f"{CODE_START}{text}{CODE_END}"


def link(address: str) -> str:
    """A web address shown as a link to itself."""
    return f"{LINK_START}{address}{LINK_END}"


def spans(text: str) -> list[tuple[str, str]]:
    """The parts of a cell in order: (text, kind), kind `text`, `code` or `link`; empty texts
    left out."""
    parts: list[tuple[str, str]] = []
    position = 0
    for match in _SPANS.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], TEXT))
        code_text, address = match.groups()
        parts.append((code_text, CODE) if code_text is not None else (address, LINK))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], TEXT))
    return parts


def _flags(scope: str, anchor_id: str, names: tuple[str, ...]) -> str:
    return ", ".join(code(name) for name in names)


def code_block(value: Any, language: str = "") -> str:
    return code(value)


_CELLS = CellWriter(cell=cell, code=code, flags=_flags)
flags_cell = _CELLS.flags_cell
default_cell = _CELLS.default_cell
type_options_cell = _CELLS.type_options_cell
status_cell = _CELLS.status_cell
prose = ProseWriter(cell=cell, code=code, link=link).prose

# A second line in a cell: a line break in the text (the directive gives an environment variable
# a column of its own, so no cell of its tables has one).
LINE_BREAK = "\n"

FILTERS: dict[str, Callable[..., str]] = {
    "cell": cell,
    "prose": prose,
    "code": code,
    "anchor": anchor,
    "code_block": code_block,
}
