"""Where a module's top-level statements start, found without parsing it, so that one name of
a large module can be read by parsing its one statement alone (see `SourceModule`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from itertools import accumulate

from argmatrix.loaders.static.python.ops import MUTATING

# A string or a comment, so a line start or a name inside one is not taken for code.
# The lookahead lets the engine skip ahead to a character that can open one (it cannot see
# through the optional prefix): the same matches, half the time.
_STRING_OR_COMMENT = re.compile(
    r"(?=[#'\"rRbBuUfF])(?:#[^\n]*"
    r"|(?P<prefix>[rRbBuUfF]{0,2})(?:"
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*')"
    r"|(?P<stray>['\"]))",
    re.S,
)
# In code: brackets, a backslash that continues the line, and a line end before a name or a
# decorator at column 0 (where a statement may start).
_LAYOUT = re.compile(r"[()\[\]{}]|\\\n|\n(?=[A-Za-z_@])")
_STATEMENT_CHAR = re.compile(r"[A-Za-z_@]")
_BRACE = re.compile(r"[{}]")
_LINE_START = re.compile(r"\n(?=[A-Za-z_@])")  # a line end before a statement may start
# Brackets as `(` and `)` (the code's other characters kept, so that positions stay), and the
# depth each changes by.
_AS_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()")
_DEPTH_CHANGE = [1 if c == ord("(") else -1 for c in range(256)]
_DEFINES = re.compile(r"(?:async[ \t]+)?def[ \t]+|class[ \t]+")
# After a name: `= v`, `: T = v`, also `(X) = v` and a backslash-continued `X \<newline>= v`.
_ASSIGNS = re.compile(r"(?:[ \t)\]]|\\\n)*(?::[^=\n]*)?=(?!=)")
_BINDS_BEFORE = re.compile(r"\b(?:import|as|def|class|global|nonlocal|for)[ \t]+$")
_DELETES = re.compile(r"[ \t]*del\b")
# After a name: an index, or a call of a method that changes its receiver.
_CHANGED_AFTER = re.compile(r"[ \t]*(?:\[|\.[ \t]*(?:" + "|".join(sorted(MUTATING)) + r")\b)")
# Beyond this many uses of a name, reading one statement alone is not worth the scan.
_MAX_OCCURRENCES = 200


class StatementOutline:
    """Where a module's top-level statements start, found without parsing it: lines outside
    strings and brackets, not continuing the line before, that begin at column 0 with a name or
    a decorator.

    Where that reading could be fooled it gives up (`reliable` is False) and the caller parses
    the whole module: code (not strings or comments) that is not ASCII, since Python folds
    look-alike letters of identifiers together; a quote left outside any string, or an f-string
    whose braces do not pair, both signs of a string this outline does not understand (such as
    Python 3.12's quotes nested in f-strings). A statement cut out that fails to parse, or
    parses into more than one binding, also sends the caller to the whole module.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.reliable = True
        matches: list[re.Match[str]] = []
        for match in _STRING_OR_COMMENT.finditer(text):
            if match.group("stray"):
                # A quote that opens no string this pattern understands: give up at once (going
                # on would try every later quote against the rest of the text, quadratic time).
                self.reliable = False
                break
            matches.append(match)
        self.masked = [m.span() for m in matches]
        self._mask_starts = [start for start, _ in self.masked]
        if any(
            "f" in (m.group("prefix") or "").lower() and not _braces_pair(m.group())
            for m in matches
        ):
            self.reliable = False
        self.starts = self._statement_starts() if self.reliable else []
        self._start_set = set(self.starts)

    def _statement_starts(self) -> list[int]:
        """The starts, from the module's code alone: its text with every string and comment
        blanked out. Where its brackets pair, the line starts at depth 0 are found by counting
        brackets (`_balanced_starts`), else by a walk of every bracket (`_LAYOUT`)."""
        code = self._code()
        is_ascii = code.isascii()
        if not is_ascii or '"' in code or "'" in code:
            self.reliable = False
        starts = [0] if _STATEMENT_CHAR.match(code) else []
        balanced = _balanced_starts(code) if is_ascii else None
        if balanced is not None:
            return starts + balanced
        depth = 0
        for mark in _LAYOUT.finditer(code):
            char = mark.group()
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            elif char == "\n" and depth == 0:
                starts.append(mark.end())
        return starts

    def _code(self) -> str:
        """The text with each string and comment replaced by as many spaces."""
        text = self.text
        pieces: list[str] = []
        position = 0
        for start, end in self.masked:
            pieces += (text[position:start], " " * (end - start))
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def _masked(self, position: int) -> bool:
        index = bisect.bisect_right(self._mask_starts, position) - 1
        return index >= 0 and self.masked[index][0] <= position < self.masked[index][1]

    def lone_binding(self, name: str) -> tuple[int, int] | None:
        """The span of the one top-level statement binding `name`, if exactly one does and no
        other place could (an indented binding, an import, a keyword argument...)."""
        if not self.reliable:
            return None
        text = self.text
        found: list[int] = []
        for count, position in enumerate(_occurrences(text, name)):
            if count > _MAX_OCCURRENCES or _CHANGED_AFTER.match(text, position + len(name)):
                return None  # used a lot, or indexed or changed in place: parse it all
            if self._masked(position):
                continue
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", position)
            line_end = len(text) if line_end < 0 else line_end
            before = text[line_start:position]
            assigned = _ASSIGNS.match(text, position + len(name)) is not None
            if line_start in self._start_set and (
                (before == "" and assigned) or _DEFINES.fullmatch(before)
            ):
                found.append(line_start)
            elif (
                assigned
                or not before.strip()
                or _BINDS_BEFORE.search(before)
                or "import" in text[line_start:line_end]
                or _DELETES.match(text, line_start)
            ):
                return None  # might bind it somewhere else: parse it all
        if len(found) != 1:
            return None
        index = self.starts.index(found[0])
        first = index
        while first > 0 and text.startswith("@", self.starts[first - 1]):
            first -= 1  # the decorators belong to the definition
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(text)
        return self.starts[first], end


def _balanced_starts(code: str) -> list[int] | None:
    """The line starts of `_statement_starts` after the first, found with counts rather than a
    walk of every bracket (a module's brackets outnumber its statements ten to one); None where
    a closing bracket comes before its opening one somewhere (the walk then says where the
    depth is, never below zero), which code that parses never has."""
    data = code.encode("ascii").translate(_AS_BRACKETS)
    changes = map(_DEPTH_CHANGE.__getitem__, data.translate(None, _NOT_BRACKETS))
    if min(accumulate(changes), default=0) < 0:
        return None
    found: list[int] = []
    depth = position = 0
    for line in _LINE_START.finditer(code):
        end = line.start()
        if end and code[end - 1] == "\\":
            continue  # the line goes on
        depth += data.count(b"(", position, end) - data.count(b")", position, end)
        position = end
        if depth == 0:
            found.append(end + 1)
    return found


def _braces_pair(literal: str) -> bool:
    """Whether an f-string's replacement fields open and close in pairs: `{{` and `}}` outside
    a field are literal braces, inside one (a nested format spec) they open and close. Only the
    braces are looked at (the other characters change nothing)."""
    if "{" not in literal and "}" not in literal:
        return True
    depth = 0
    escaped = -1  # the second brace of an escaped pair
    for brace in _BRACE.finditer(literal):
        index = brace.start()
        if index == escaped:
            continue
        char = brace.group()
        if depth == 0 and literal.startswith(char * 2, index):
            escaped = index + 1  # an escaped brace
            continue
        if char == "{":
            depth += 1
        elif depth == 0:
            return False
        else:
            depth -= 1
    return depth == 0


def _occurrences(text: str, name: str) -> Iterator[int]:
    """Where `name` appears as a whole name, not an attribute (`x.name`): str.find, being far
    faster than a regular expression with look-behind on a large module."""
    position = text.find(name)
    while position >= 0:
        before = text[position - 1] if position else " "
        after_index = position + len(name)
        after = text[after_index] if after_index < len(text) else " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            yield position
        position = text.find(name, position + 1)


# `alias.NAME = v` (or `alias.sub.NAME += v`) at the start of a line: the top level. Looked for
# at the text's start, then after each line end (a pattern that begins with the line end is
# found by a fast search for it; `^` is tried at every character).
_ATTRIBUTE_WRITE = (
    r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.([A-Za-z_]\w*)[ \t]*(?:[-+*/%|&^@]|//|\*\*|<<|>>)?=(?!=)"
)


_FIRST_ATTRIBUTE_WRITE = re.compile(_ATTRIBUTE_WRITE)


_TOP_ATTRIBUTE_WRITE = re.compile("\n" + _ATTRIBUTE_WRITE)


def is_word_character(char: str) -> bool:
    """What `\\w` matches in a pattern over text (a `\\b` lies between it and another)."""
    return char.isalnum() or char == "_"


def top_attribute_writes(text: str) -> Iterator[re.Match[str]]:
    """The matches of `_ATTRIBUTE_WRITE` at the start of a line, in order."""
    first = _FIRST_ATTRIBUTE_WRITE.match(text)
    if first is not None:
        yield first
    yield from _TOP_ATTRIBUTE_WRITE.finditer(text, first.end() if first is not None else 0)
