"""The one exception type a user can cause, how it is shown, and how user files are read."""

from __future__ import annotations

import re
from dataclasses import dataclass

# ------------------------------------------------------------------ text for a terminal or CI log

# What a terminal or a CI log must never receive from an input: C0 and C1 control characters
# (ESC starts terminal sequences, a newline starts a new log line, 0x9b is an 8-bit CSI), DEL,
# the bidirectional overrides and isolates that make a line read differently from what it holds
# (U+061C, U+200E/F, U+202A-E, U+2066-9), the line and paragraph separators, and lone surrogates
# (which cannot even be encoded for output). Tab is kept: it moves the cursor, nothing else.
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
# A GitHub Actions runner reads `::command::` at the start of a line (leading blanks skipped)
# and the older `##[command]` anywhere in it.
_WORKFLOW_COMMAND = re.compile(r"^(\s*):(?=:)|##\[")


_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _defuse(match: re.Match[str]) -> str:
    return f"{match.group(1)}\\x3a" if match.group(1) is not None else "##\\x5b"


def printable(text: str) -> str:
    """`text` made safe to write as (part of) one line of a terminal or CI log.

    Every character above is shown as a visible escape (`\\n`, `\\x1b`, `\\u202e`), so nothing can
    move the cursor, colour the log, hide or reorder text, or start a line of its own; and a
    GitHub workflow command (`::add-mask::`, `##[set-output]`) is defused by writing its first
    colon or bracket as an escape. Text that needs none of this (nearly all) is returned as is.
    """
    if text.isprintable() and "::" not in text and "##[" not in text:
        return text
    text = _UNPRINTABLE.sub(_escape, text)
    return _WORKFLOW_COMMAND.sub(_defuse, text)


# What json.dumps(ensure_ascii=False) leaves raw but a terminal or log must not get: DEL, the
# C1 controls, bidirectional controls, line separators, lone surrogates; and the `##[` of a
# GitHub workflow command. Written as \uXXXX escapes, the JSON holds the very same strings.
_RAW = "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_RAW_IN_JSON = re.compile(_RAW + "|(?<=##)\\[")
_RAW_IN_TEXT = re.compile(_RAW)  # a character class alone: searched many times faster


def json_for_log(text: str) -> str:
    """JSON text (from json.dumps) that prints safely: the same value, with the characters
    above written as escapes."""
    if "##[" not in text and (
        "\x7f" not in text if text.isascii() else _RAW_IN_TEXT.search(text) is None
    ):
        return text  # nearly always: a whole export is searched in well under a millisecond
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_control(text: str) -> bool:
    """Whether `text` holds a character `printable` would escape (a NUL, a newline, ESC, ...)."""
    return _UNPRINTABLE.search(text) is not None


# ------------------------------------------------------------------ errors


@dataclass
class Problem:
    """One thing wrong with the input: where it is, what it is, and how to fix it."""

    message: str
    file: str | None = None
    line: int | None = None
    fix: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        text = f"{where}{self.message}"
        if self.fix:
            text += f" (fix: {self.fix})"
        # A parser's reason may span lines: one line, with any other control shown escaped.
        return printable(text.replace("\r\n", " ").replace("\n", " "))


class ArgmatrixError(Exception):
    """Bad input or usage. The CLI prints one line per problem and exits 2."""

    def __init__(self, *problems: Problem) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = list(problems)

    def __reduce__(self) -> tuple[type[ArgmatrixError], tuple[Problem, ...]]:
        return (type(self), tuple(self.problems))  # pickled whole, e.g. from a forked worker

    @classmethod
    def at(
        cls, message: str, file: str | None = None, line: int | None = None, fix: str | None = None
    ) -> ArgmatrixError:
        return cls(Problem(message, file, line, fix))
