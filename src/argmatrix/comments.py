"""Section names from `# Comment` lines, the way SGLang marks the blocks of its registry.

Both the live and the static loader know the file and line of every `add_argument` call; the
section of a call is the last stand-alone comment between the start of the function that made the
call and the call itself.
"""

from __future__ import annotations

import bisect
import io
import tokenize
from dataclasses import dataclass
from functools import lru_cache

# Comments that are tooling pragmas or reminders, never section titles.
_NOT_TITLES = ("#!", "# noqa", "# type:", "# todo", "# fixme", "# pylint", "# fmt:", "# pragma")


@dataclass(frozen=True)
class CallSite:
    """Where an `add_argument` call was made, and what it passed that argparse does not know."""

    file: str
    line: int
    function_start: int
    extra: tuple[tuple[str, object], ...] = ()


@lru_cache(maxsize=64)
def comment_markers(source: str) -> tuple[tuple[int, str], ...]:
    """(line, title) of every block of stand-alone comment lines outside brackets.

    A block of consecutive comment lines counts once, titled by its first line.
    """
    markers: list[tuple[int, str]] = []
    depth = 0
    last_comment_line = -2
    line_has_code: set[int] = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return ()
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(0, depth - 1)
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENDMARKER):
            line_has_code.add(tok.start[0])
        if tok.type != tokenize.COMMENT or depth or tok.start[0] in line_has_code:
            continue
        line = tok.start[0]
        text = tok.string
        if line == last_comment_line + 1:
            last_comment_line = line
            continue
        last_comment_line = line
        if text.lower().startswith(_NOT_TITLES):
            continue
        title = text.lstrip("#").strip()
        if title:
            markers.append((line, title))
    return tuple(markers)


def section_of(source: str, call_line: int, function_start: int) -> str | None:
    """The title of the comment block governing `call_line`, or None when there is none."""
    markers = comment_markers(source)
    lines = [line for line, _ in markers]
    index = bisect.bisect_left(lines, call_line) - 1
    if index < 0:
        return None
    line, title = markers[index]
    return title if line >= function_start else None
