"""The one way argmatrix reads a user's file: a regular file, of bounded size, never a FIFO,
a device or a link leading out of the project, with problems reported as located errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from argmatrix.errors import ArgmatrixError


def within(path: str | Path, folder: str | Path) -> bool:
    """Whether `path` is `folder` or lies under it (both taken as written: resolve them first
    where symbolic links matter)."""
    path, folder = os.fspath(path), os.fspath(folder)
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # one relative, one absolute; or two Windows drives
        return False


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
    path: Path,
    what: str,
    fix: str,
    limit: int = MAX_INPUT_BYTES,
    too_large_fix: str = "point at the intended file; argmatrix reads nothing this large",
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
            f"{what} is larger than {_size(limit)}", file=where, fix=too_large_fix
        )
    return data


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit // 1024} KiB"


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


# Generated pages can be megabytes (10,000 arguments on several platforms); nothing argmatrix
# compares is this large.
PAGE_LIMIT = 64 * 1024 * 1024


def real(path: str | Path) -> str:
    return os.path.realpath(path)


# ------------------------------------------------------------------ reading back


def read_page(path: Path, strict: bool = False) -> str | None:
    """A page exactly as it is on disk (line endings kept); None when there is none. One that
    is not UTF-8 text is None too (surely not what argmatrix wrote), or with `strict` (an
    in-place page, whose prose is kept) a located error. A FIFO, a device or a folder is a
    located error, never waited on or read."""
    data = read_regular_file(
        path, "the page", "a page output must be a regular file", limit=PAGE_LIMIT
    )
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not strict:
            return None
        raise ArgmatrixError.at(
            f"the page is not UTF-8 text ({exc.reason} at byte {exc.start})",
            file=str(path),
            fix="save it as UTF-8",
        ) from None


def read_prose(path: Path, root: Path) -> str:
    """A hand-written page `check` looks through for flags: only a regular file inside the
    project. One that is a symbolic link leading out (to /etc/passwd, say) is refused before
    a byte of it is read, since its lines would end up in findings in the CI log."""
    target = real(path)
    if not within(target, real(root)):
        raise ArgmatrixError.at(
            f"a symbolic link to {target}, outside the project",
            file=str(path),
            fix="replace the link by the file itself, or leave it out of checks.prose",
        )
    data = read_regular_file(path, "the page", "leave it out of checks.prose", limit=PAGE_LIMIT)
    return "" if data is None else data.decode("utf-8", errors="replace")
