"""Shared test helpers: run the CLI in-process, copy fixture projects, read Markdown tables."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from argmatrix.cli import main

TESTS = Path(__file__).resolve().parent
FIXTURE_PROJECT = TESTS / "fixtures" / "project"
GOLDEN = TESTS / "golden"


@dataclass
class Run:
    code: int
    out: str
    err: str


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(*argv: str, cwd: Path | None = None) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), chdir(cwd or Path.cwd()):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse usage errors
            code = int(exit_.code or 0)
    return Run(code, out.getvalue(), err.getvalue())


def copy_project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURE_PROJECT, target,
                    ignore=shutil.ignore_patterns("__pycache__", "reference"))
    return target


_markdown = MarkdownIt("commonmark").enable("table")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]  # plain text of every cell


def tables(markdown: str) -> list[Table]:
    """Every table of a Markdown text, cells as the plain text a reader sees."""
    result: list[Table] = []
    current: list[list[str]] = []
    row: list[str] = []
    tokens = _markdown.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            current = []
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and tokens[index - 1].type in ("th_open", "td_open"):
            row.append(plain_text(token))
        elif token.type == "tr_close":
            current.append(row)
        elif token.type == "table_close":
            result.append(Table(current[0], current[1:]))
    return result


def plain_text(inline) -> str:  # type: ignore[no-untyped-def]
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "html_inline" and child.content.startswith("<br"):
            parts.append("\n")
    return "".join(parts)


def html_inline(markdown: str) -> list[str]:
    """Every piece of raw HTML in the Markdown (ours: anchors and line breaks only)."""
    found = []
    for token in _markdown.parse(markdown):
        if token.type == "html_block":
            found.append(token.content)
        for child in token.children or []:
            if child.type == "html_inline":
                found.append(child.content)
    return found
