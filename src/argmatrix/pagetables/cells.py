"""A cell's text and code, read from its source in one of two ways.

* `source_cell`: as written: code spans are code, tags are spaces, every other character is
  text. Linear in the cell's size whatever it holds; the coverage check reads cells so.
* `markup_cell`: as markdown-it reads the cell's inline markup: emphasis, links, escapes and
  entities come out as their text, `<br>` as a line break, raw HTML is kept apart. `audit` and
  `import` read cells so, to compare what a person reads with the registry.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from argmatrix.pagetables.model import Cell
from argmatrix.pagetables.parser import inline_tokens

if TYPE_CHECKING:
    from markdown_it.token import Token

_TAG = re.compile(r"<[^<>\n]*>")  # a tag within a cell (`<br>`), read as a space


def source_cell(source: str) -> Cell:
    """A cell from its source: code spans as code, tags as spaces, the rest text."""
    runs = backtick_runs(source)
    parts: list[str] = []
    codes: list[str] = []
    position = 0
    while True:
        start = source.find("`", position)
        if start < 0:
            parts.append(source[position:])
            break
        length = run_length(source, start)
        end = runs.closing(start, length)
        if end is None:
            parts.append(source[position : start + length])
            position = start + length
            continue
        code = " ".join(source[start + length : end].split())
        parts.extend((source[position:start], f" {code} "))
        codes.append(code)
        position = end + length
    text = _TAG.sub(" ", "".join(parts))
    return Cell(" ".join(text.split()), tuple(codes))


def markup_cell(source: str, env: MutableMapping[str, Any]) -> Cell:
    """A cell as markdown-it reads its inline markup (`env`: the page's, for its link
    references): code spans kept as text, `<br>` as a line break, other raw HTML apart."""
    return _plain(inline_tokens(source, env))


def _plain(children: list[Token]) -> Cell:
    parts: list[str] = []
    codes: list[str] = []
    html: list[str] = []
    for child in children:
        if child.type in ("text", "text_special"):
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(child.content)
            codes.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n" if child.type == "hardbreak" else " ")
        elif child.type == "html_inline":
            html.append(child.content)
            if child.content.lower().startswith("<br"):
                parts.append("\n")
    text = "\n".join(" ".join(line.split()) for line in "".join(parts).split("\n")).strip()
    return Cell(text, tuple(codes), tuple(html))


def run_length(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] == "`":
        end += 1
    return end - start


class BacktickRuns:
    """Where each run of backticks is, by length, to find a code span's closing run at once
    (a search for each opening run would be quadratic on a page of unmatched backticks)."""

    def __init__(self, runs: dict[int, list[int]]) -> None:
        self.runs = runs
        self.next: dict[int, int] = {}  # per length: the index of the next run not yet passed

    def closing(self, start: int, length: int) -> int | None:
        positions = self.runs.get(length, [])
        index = self.next.get(length, 0)
        while index < len(positions) and positions[index] <= start:
            index += 1
        self.next[length] = index
        return positions[index] if index < len(positions) else None


def backtick_runs(text: str) -> BacktickRuns:
    runs: dict[int, list[int]] = {}
    for match in re.finditer(r"`+", text):
        runs.setdefault(len(match.group()), []).append(match.start())
    return BacktickRuns(runs)
