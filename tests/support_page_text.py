"""Read the facts of tests/fixtures/handwritten/ascend_copied.txt (an Ascend support page in the
layout of text copied from a rendered site: one table cell per paragraph, long flags wrapped)
-- independently of argmatrix's code, so tests can hold argmatrix's output against the page."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from helpers import ASCEND_COPIED

HEADERS = ("Argument", "Defaults", "Options", "Server supported")


@dataclass(frozen=True)
class PageRow:
    flags: tuple[str, ...]
    default: str
    options: str
    supported: str  # "A2, A3", "Special for GPU", "Planned", "Experimental" or "Other Params"
    section: str


def _paragraphs(text: str) -> list[list[str]]:
    blocks, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line.strip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _flags(lines: list[str]) -> tuple[str, ...]:
    flags: list[str] = []
    for line in lines:
        if line.startswith("--") or not flags:
            flags.append(line)
        else:
            flags[-1] += line  # a long flag wrapped after a "-"
    return tuple(flags)


def _cell(lines: list[str]) -> str:
    return " ".join(lines).replace("( ", "(")


def copied_page_rows(page: Path = ASCEND_COPIED) -> list[PageRow]:
    """Every row of the page, in page order. A table's header says whether it has the support
    column; the tables without one (under "Other Params") list arguments not supported."""
    rows: list[PageRow] = []
    blocks = _paragraphs(page.read_text(encoding="utf-8"))
    section = ""
    columns = 0
    index = 0
    while index < len(blocks):
        block = blocks[index]
        first = block[0]
        if first.endswith("#"):
            section = first.rstrip("#")
            index += 1
            continue
        if first == "Argument":
            columns = 4 if index + 3 < len(blocks) and blocks[index + 3][0] == HEADERS[3] else 3
            index += columns
            continue
        if first.startswith("--") and columns:
            cells = blocks[index : index + columns]
            rows.append(
                PageRow(
                    flags=_flags(cells[0]),
                    default=_cell(cells[1]),
                    options=_cell(cells[2]),
                    supported=_cell(cells[3]) if columns == 4 else "Other Params",
                    section=section,
                )
            )
            index += columns
            continue
        index += 1
    return rows
