"""The one markdown-it set-up of argmatrix, made (and markdown-it imported) when a page's tables
are first read: a `check` without `checks.coverage` never pays for it."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def markdown() -> MarkdownIt:
    """CommonMark with pipe tables, reading the block structure only (fences, tables, lists,
    HTML blocks). Inline markup is parsed on demand (`inline_tokens`), for the cells, headings
    and captions a reader takes as markdown-it reads them: on text such as a million `{` it
    costs microseconds a character, which the coverage check's page reading never pays."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


def blocks(text: str, env: MutableMapping[str, Any] | None = None) -> list[Token]:
    """The block tokens of a text; `env` receives its link reference definitions."""
    return markdown().parse(text, {} if env is None else env)


_NEWLINES = re.compile(r"\r\n?")


def inline_tokens(source: str, env: MutableMapping[str, Any]) -> list[Token]:
    """The inline tokens of a text, as markdown-it's own `inline` rule makes them (NUL read as
    U+FFFD, as markdown-it reads a page); `env`: the page's, for its link references."""
    md = markdown()
    children: list[Token] = []
    md.inline.parse(_NEWLINES.sub("\n", source).replace("\0", "\ufffd"), md, env, children)
    return children
