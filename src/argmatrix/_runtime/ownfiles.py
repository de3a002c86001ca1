"""The cache folder, and the user's own files in it: what decides whether an entry may be trusted,
and whether a file read may have changed while it was read.

Shared by the cache (`cache.py`) and the replay of a command's outcome (`outcome.py`), which
runs before anything else is imported: this module imports `os` and `stat` alone. It never
prints: a caller that reports problems passes `complain`, which receives the problem and its
fix.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # `typing` is not imported: a replay imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    Complain: TypeAlias = Callable[[str, str], None]  # (what is wrong, the fix)

POSIX = os.name == "posix"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
SECRET_NAME = "secret.key"
SECRET_SIZE = 32


def cache_dir() -> str | None:
    """The cache folder: off with ARGMATRIX_NO_CACHE=1; ARGMATRIX_CACHE_DIR, else
    $XDG_CACHE_HOME/argmatrix, else ~/.cache/argmatrix."""
    if os.environ.get("ARGMATRIX_NO_CACHE"):
        return None
    explicit = os.environ.get("ARGMATRIX_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "argmatrix")


def foreign(info: os.stat_result) -> str | None:
    """What makes a file or folder untrustworthy: another owner, or others may write to it."""
    if not POSIX:
        return None
    if info.st_uid != os.geteuid():
        return "belongs to another user"
    if info.st_mode & 0o022:
        return "is writable by others"
    return None


def _quiet(problem: str, fix: str) -> None:
    """A caller that reports nothing: the problem is found again, and said, by one that does."""


def open_own_file(path: str, complain: Complain = _quiet) -> int | None:
    """A descriptor of `path` if it is a regular file of the user's that no one else can write;
    None if it does not exist; a symbolic link or anything else is refused (`complain`ed of)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            complain(f"cache entry {path} is a symbolic link", f"remove {path}")
        else:
            complain(f"cache entry {path} cannot be read ({reason(exc)})", f"remove {path}")
        return None
    try:
        info = os.fstat(descriptor)
        problem = "is not a regular file" if not stat.S_ISREG(info.st_mode) else foreign(info)
    except OSError:
        problem = "cannot be read"
    if problem:
        os.close(descriptor)
        complain(f"cache entry {path} {problem}", f"remove {path}")
        return None
    return descriptor


def read_own_file(path: str, complain: Complain = _quiet) -> bytes | None:
    descriptor = open_own_file(path, complain)
    if descriptor is None:
        return None
    try:
        with open(descriptor, "rb", buffering=0) as stream:  # closes the descriptor
            return stream.readall()  # sized by fstat: one allocation, no joining of chunks
    except OSError:
        return None


def read_secret(folder: str, complain: Complain = _quiet) -> bytes | None:
    """The key this folder's entries are signed with, if it is the user's alone."""
    path = os.path.join(folder, SECRET_NAME)
    descriptor = open_own_file(path, complain)
    if descriptor is None:
        return None
    try:
        private = not POSIX or os.fstat(descriptor).st_mode & 0o077 == 0
        key = os.read(descriptor, SECRET_SIZE + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if not private or len(key) != SECRET_SIZE:
        complain(f"cache key {path} is not private to you", f"remove {path}")
        return None
    return key


def reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def change(info: os.stat_result) -> tuple[int, bool]:
    """When a file last changed: the later of its modification and status-change times, and
    whether its file system keeps whole seconds only."""
    return max(info.st_mtime_ns, info.st_ctime_ns), info.st_mtime_ns % 1_000_000_000 == 0


# How much earlier than the clock a file's time stamp may read: Linux stamps files from a clock
# that lags by up to a tick (a few ms); some file systems (FAT, HFS+, older ext3) keep whole
# seconds only, or two.
FINE_SLACK_NS = 50_000_000
COARSE_SLACK_NS = 2_100_000_000


def settled(change: tuple[int, bool], since_ns: int) -> bool:
    """Whether a file last changed before `since_ns`: if not, it may have changed while it was
    being read, and what was read may be neither its old content nor its new one."""
    changed_ns, whole_seconds = change
    return changed_ns < since_ns - (COARSE_SLACK_NS if whole_seconds else FINE_SLACK_NS)
