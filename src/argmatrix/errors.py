"""The one exception type a user can cause, how it is shown, and how user files are read."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

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
_RAW_IN_JSON = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]|(?<=##)\\["
)


def json_for_log(text: str) -> str:
    """JSON text (from json.dumps) that prints safely: the same value, with the characters
    above written as escapes."""
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


# ------------------------------------------------------------------ reading what the user wrote

# Larger than any manifest, configuration or snapshot argmatrix has met (sglang's snapshot is
# about 200 KB), small enough that a file which never ends (/dev/zero, a FIFO, /proc) stops here.
MAX_INPUT_BYTES = 16 * 1024 * 1024


def read_user_file(path: Path, what: str, fix: str) -> str:
    """A file the user named, as text; a missing, unreadable, special or oversized one is an
    ArgmatrixError (never a hang: FIFOs and devices are refused before they are read)."""
    data = read_regular_file(path, what, fix)
    if data is None:
        raise ArgmatrixError.at(f"{what} not found", file=str(path), fix=fix)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArgmatrixError.at(
            f"cannot read {what}: {exc}", file=str(path), fix="save it as UTF-8 text"
        ) from None
    if "\r" in text:  # line endings as text mode reads them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_regular_file(
    path: Path, what: str, fix: str, limit: int = MAX_INPUT_BYTES
) -> bytes | None:
    """The bytes of a regular file, or None when there is no file at `path`.

    A folder, FIFO, socket or device is refused by its type before it is opened (opening a FIFO
    waits for a writer), and checked again on the open descriptor; at most `limit` bytes are
    read, whatever size the file claims (/proc files claim 0)."""
    where = str(path)
    try:
        _require_regular(os.stat(path).st_mode, what, where)
        descriptor = os.open(
            path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        )
    except (FileNotFoundError, NotADirectoryError):
        return None
    except ValueError:  # a NUL in the path
        raise ArgmatrixError.at(
            f"cannot read {what}: the path contains a NUL character", file=where, fix=fix
        ) from None
    except OSError as exc:
        raise ArgmatrixError.at(
            f"cannot read {what}: {exc.strerror or exc}", file=where, fix=fix
        ) from None
    try:
        _require_regular(os.fstat(descriptor).st_mode, what, where)
        data = _read_at_most(descriptor, limit + 1)
    except OSError as exc:
        raise ArgmatrixError.at(
            f"cannot read {what}: {exc.strerror or exc}", file=where, fix=fix
        ) from None
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise ArgmatrixError.at(
            f"{what} is larger than {limit // (1024 * 1024)} MiB",
            file=where,
            fix="point at the intended file; argmatrix reads nothing this large",
        )
    return data


def _require_regular(mode: int, what: str, where: str) -> None:
    if stat.S_ISREG(mode):
        return
    kind = (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise ArgmatrixError.at(
        f"cannot read {what}: it is {kind}, not a regular file",
        file=where,
        fix="point at a regular file",
    )


def _read_at_most(descriptor: int, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = os.read(descriptor, min(left, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def split_target(target: str) -> tuple[str, str]:
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ArgmatrixError.at(
            f"registry target {target!r} is not of the form module:callable",
            fix="name it like 'mypkg.server_args:ServerArgs.add_cli_args'",
        )
    return module, attr
