"""Section names from `# Comment` lines, the way SGLang marks the blocks of its registry.

Both the live and the static loader know the file and line of every `add_argument` call; the
section of a call is the last stand-alone comment between the start of the function that made the
call and the call itself. An argument a generic helper makes of a declared field is placed by both
at the field's declaration instead (`CallSite.fallback` set: static/declared_fields/declared.py follows the field
through the helper's loop, live/declared_fields.py finds it in the helper's running frames), and
`site_section` names its section the same way in both modes.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Sequence
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
    # A field declared in a class, added by a generic helper: the class's name is its section
    # when no comment block above the field names one.
    fallback: str | None = None


_COMPOUND_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_LINE_END = re.compile(r"\r\n?|\n")
_RULE = re.compile(r"^[-=*~#_ ]{3,}|[-=*~#_ ]{3,}$")  # the rules around a title
_RULE_BEFORE = re.compile(r"[-=*~#_]{3,}")
_RULE_AFTER = re.compile(r"[-=*~#_]{3,}$")
_known_trees: dict[str, ast.Module] = {}
_KNOWN_TREES = 16  # the trees of the last read or so; a long-lived process keeps no more


def remember_tree(source: str, tree: ast.Module) -> None:
    """Let a caller that has already parsed `source` spare us parsing it again."""
    _known_trees.pop(source, None)
    _known_trees[source] = tree
    while len(_known_trees) > _KNOWN_TREES:
        del _known_trees[next(iter(_known_trees))]


def _mark_statements(body: Sequence[ast.AST], covered: bytearray, hashes: list[int]) -> None:
    """Mark the lines statements cover. Only the lines with a `#` (`hashes`, in order) are
    looked at afterwards: a compound statement none of whose lines has one is passed over."""
    for node in body:
        kind = type(node)
        names = _BODIES_OF.get(kind)
        if names is None:
            names = _BODIES_OF[kind] = tuple(n for n in _COMPOUND_BODIES if n in kind._fields)
        start: int = getattr(node, "lineno", 0)
        end: int = getattr(node, "end_lineno", None) or start
        if not names:
            covered[start : end + 1] = b"\x01" * (end + 1 - start)
            continue
        if start and bisect.bisect_left(hashes, start) == bisect.bisect_right(hashes, end):
            continue
        bodies = [getattr(node, name) for name in names]
        first_body: int | None = min(
            (child[0].lineno for child in bodies if child and hasattr(child[0], "lineno")),
            default=None,
        )
        header_end = (first_body - 1) if first_body else start
        if start and header_end >= start:  # `if (a and\n # note\n b):` is no section title
            covered[start:header_end] = b"\x01" * (header_end - start)
        for child in bodies:
            _mark_statements(child, covered, hashes)


# The fields of each kind of node that hold statements (the syntax tree's nodes of one kind
# all have the same fields), found once per kind rather than asked of every node.
_BODIES_OF: dict[type, tuple[str, ...]] = {}


def comment_markers(source: str) -> tuple[tuple[int, str], ...]:
    """(line, title) of every block of stand-alone comment lines between statements.

    A comment line inside a statement (a call spread over lines, a string) is not a marker; a
    block of consecutive comment lines counts once, titled by its first line. The syntax tree
    is the one a reader remembered (static reading: as far as it parsed the module, the
    functions whose calls are looked up); else the source is parsed (live reading).
    """
    return _markers(source, _known_trees.get(source))[0]


Markers = tuple[tuple[tuple[int, str], ...], list[int], frozenset[int]]


@lru_cache(maxsize=_KNOWN_TREES)
def _markers(source: str, tree: ast.Module | None) -> Markers:
    """The markers of `comment_markers`, and their lines (for a bisection)."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return (), [], frozenset()
    with_hash = list(_lines_with_hash(source))
    covered = bytearray(_line_count(source) + 2)
    _mark_statements(tree.body, covered, [number for number, _ in with_hash])
    markers: list[tuple[int, str]] = []
    framed: set[int] = set()  # the markers of blocks framed by rules: `# ---- Title ----`
    previous_comment = -2
    pending = ruled = False
    for number, text in with_hash:
        stripped = text.lstrip()
        if covered[number] or not stripped.startswith("#"):
            continue
        block_start = number != previous_comment + 1
        previous_comment = number
        if block_start:  # a block opened by a pragma has no title
            pending = not stripped.lower().startswith(_NOT_TITLES)
        if not pending:
            continue
        text = stripped.lstrip("#").strip()
        title = _RULE.sub("", text)
        if block_start:  # framed: opened by a rule, or a title between two rules
            ruled = not title or bool(_RULE_BEFORE.match(text) and _RULE_AFTER.search(text))
        if title:  # `# ---- Title ----`, or a block that opens with a rule: its first words
            markers.append((number, title))
            if ruled:
                framed.add(number)
            pending = False
    return tuple(markers), [line for line, _ in markers], frozenset(framed)


def _line_count(source: str) -> int:
    """The lines of `source` as the syntax tree counts them (`\r\n`, `\r` and `\n` end one;
    not str.splitlines's form feeds, U+2028...)."""
    if "\r" in source:
        return len(_LINE_END.split(source))
    return source.count("\n") + 1


def _lines_with_hash(source: str) -> Iterator[tuple[int, str]]:
    """(number, text) of each line holding a `#`, in order: only such a line may be a comment
    line. Found with str.find, the other lines are never cut out."""
    if "\r" in source:
        lines = _LINE_END.split(source)
        yield from ((n, t) for n, t in enumerate(lines, start=1) if "#" in t)
        return
    number, counted = 1, 0
    found = source.find("#")
    while found >= 0:
        number += source.count("\n", counted, found)
        start = source.rfind("\n", 0, found) + 1
        end = source.find("\n", found)
        end = len(source) if end < 0 else end
        yield number, source[start:end]
        counted = found
        found = source.find("#", end)


def section_of(
    source: str, call_line: int, function_start: int, argument_lines: Sequence[int] = ()
) -> str | None:
    """The title of the comment block governing `call_line`, or None when there is none.

    With `argument_lines` (the sorted lines of the calls that add arguments in this source),
    a comment titles a section only when it heads arguments: framed by rules (`# --- Title
    ---`), or followed by a call adding one in the statement right after it or before the
    next blank line. A comment on other code (vLLM's `# For 'vllm bench *': use CPU ...`
    above an `if` that picks a platform, before its parser is built) is a note, and the calls
    after it keep the title of the block before it, if any."""
    markers, lines, framed = _markers(source, _known_trees.get(source))
    index = bisect.bisect_left(lines, call_line) - 1
    while index >= 0 and markers[index][0] >= function_start:
        line, title = markers[index]
        if not argument_lines or line in framed:
            return title
        if _titles_arguments(source, line, argument_lines):
            return title
        index -= 1
    return None


def _titles_arguments(source: str, line: int, argument_lines: Sequence[int]) -> bool:
    """Whether an argument's call follows the comment on `line` in the statement right after
    it, or before the first blank line after it (the comment's paragraph of code)."""
    starts, ends = _statement_spans(source, _known_trees.get(source))
    index = bisect.bisect_right(starts, line)
    if index == len(starts):
        return False
    blanks = _blank_lines(source)
    blank = bisect.bisect_right(blanks, line)
    last = max(ends[index], blanks[blank] if blank < len(blanks) else ends[index])
    first = bisect.bisect_right(argument_lines, line)
    return first < len(argument_lines) and argument_lines[first] <= last


@lru_cache(maxsize=_KNOWN_TREES)
def _blank_lines(source: str) -> list[int]:
    """The numbers of the lines holding nothing but spaces, in order."""
    return [
        number for number, text in enumerate(_LINE_END.split(source), start=1) if not text.strip()
    ]


@lru_cache(maxsize=_KNOWN_TREES)
def _statement_spans(source: str, tree: ast.Module | None) -> tuple[list[int], list[int]]:
    """The first and last line of every statement, ordered by first line (of statements that
    start on one line, the outermost first)."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return [], []
    spans: list[tuple[int, int]] = []
    pending: list[Sequence[ast.AST]] = [tree.body]
    while pending:
        for node in pending.pop():
            start: int = getattr(node, "lineno", 0)
            spans.append((start, -(getattr(node, "end_lineno", None) or start)))
            names = _BODIES_OF.get(type(node))
            if names is None:
                kind = type(node)
                names = _BODIES_OF[kind] = tuple(n for n in _COMPOUND_BODIES if n in kind._fields)
            pending.extend(getattr(node, name) for name in names)
    spans.sort()
    return [start for start, _ in spans], [-end for _, end in spans]


def site_section(source: str, site: CallSite, argument_lines: Sequence[int] = ()) -> str | None:
    """The section of a call site. A field declared in a class and added by a generic helper
    (`site.fallback` names the class) is sectioned by the block framed by rules above it in
    its class (`# ---- Title ----`), else by its class: a plain comment between fields is a
    note on the field, not a title. `argument_lines`: see `section_of`."""
    if site.fallback is None:
        return section_of(source, site.line, site.function_start, argument_lines)
    markers, lines, framed = _markers(source, _known_trees.get(source))
    index = bisect.bisect_left(lines, site.line) - 1
    while index >= 0 and markers[index][0] >= site.function_start:
        if markers[index][0] in framed:
            return markers[index][1]
        index -= 1
    return site.fallback
