"""A cache of what is slow to read and rarely changes: statically read registries, manifests.

An entry is valid while every file it was read from has the same content (by hash: a time stamp
can miss an edit made within its granularity), so a cached result is always what reading the
files again would give. Off with
ARGMATRIX_NO_CACHE=1; the folder is ARGMATRIX_CACHE_DIR, else $XDG_CACHE_HOME/argmatrix, else
~/.cache/argmatrix. A cache that cannot be read or written is ignored, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from . import __version__

T = TypeVar("T")
Stamp = tuple[str, str | None]  # a file and its content hash; None: the file must not exist


def cache_dir() -> Path | None:
    if os.environ.get("ARGMATRIX_NO_CACHE"):
        return None
    explicit = os.environ.get("ARGMATRIX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "argmatrix"


def stamp(path: str | Path) -> Stamp:
    try:
        content = Path(path).read_bytes()
    except OSError:
        return (str(path), None)
    return (str(path), hashlib.blake2b(content, digest_size=16).hexdigest())


@lru_cache(maxsize=1)
def code_version() -> str:
    """argmatrix's own code, as of now: an entry written by other code is never reused."""
    package = Path(__file__).parent
    parts = [__version__]
    for module in sorted(package.glob("*.py")):
        status = module.stat()
        parts.append(f"{module.name}:{status.st_mtime_ns}:{status.st_size}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _entry_path(kind: str, key: Iterable[Any]) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(repr((code_version(), kind, *key)).encode()).hexdigest()[:32]
    return folder / f"{kind}-{digest}.pickle"


_files_seen: dict[tuple[Any, ...], list[str]] = {}
_recent: dict[Path, tuple[list[Stamp], Any]] = {}


def files_seen(kind: str, key: Iterable[Any]) -> list[str] | None:
    """The files an entry was read from, as this process loaded or computed it."""
    return _files_seen.get((kind, *tuple(key)))


MISSING: Any = object()


def lookup(kind: str, key: Iterable[Any]) -> Any:
    """The cached value for `key` if every file it was read from is unchanged, else MISSING."""
    key = tuple(key)
    path = _entry_path(kind, key)
    if path is None:
        return MISSING
    hit = _recent.get(path) or _read(path)
    if hit is None:
        return MISSING
    _recent.clear()  # the entry just read is often asked for again (whether to fork, then to
    _recent[path] = hit  # load): keep that one, and only that one, in memory
    stamps, value = hit
    if not all(stamp(s[0]) == s for s in stamps):
        return MISSING
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: the last to be evicted
    _files_seen[(kind, *key)] = [s[0] for s in stamps]
    return value


def remember_files(kind: str, key: Iterable[Any], files: list[str]) -> None:
    """What `files_seen` says for an entry computed in another process."""
    _files_seen[(kind, *tuple(key))] = files


def cached(kind: str, key: Iterable[Any], compute: Callable[[], tuple[T, Iterable[str]]]) -> T:
    """`compute()` returns the value and the files it looked at; reuse the value while they are
    unchanged (a file it looked for and did not find must still be missing)."""
    key = tuple(key)
    value = lookup(kind, key)
    if value is not MISSING:
        return value  # type: ignore[no-any-return]
    path = _entry_path(kind, key)
    value, files = compute()
    files = list(files)
    _files_seen[(kind, *key)] = files
    if path is not None:
        stamps = [stamp(f) for f in sorted(set(files))]
        _recent.pop(path, None)
        _write(path, (stamps, value))
        _evict(path.parent, kind)
    return value


KEEP_PER_KIND = 256
KEEP_BYTES = 512 * 1024 * 1024


def _evict(folder: Path, kind: str) -> None:
    """Drop the least recently used entries beyond a count per kind and a total size."""
    with contextlib.suppress(OSError):
        _drop_abandoned_writes(folder)
        entries = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns,
                         reverse=True)
        of_kind = 0
        total = 0
        for entry in entries:
            size = entry.stat().st_size
            total += size
            of_kind += entry.name.startswith(f"{kind}-")
            if total > KEEP_BYTES or (entry.name.startswith(f"{kind}-")
                                      and of_kind > KEEP_PER_KIND):
                entry.unlink()


def _drop_abandoned_writes(folder: Path) -> None:
    """Temporary files of writes that never finished (a process killed mid-write), once they
    are old enough that no running process can still be writing them."""
    stale = time.time() - 3600
    for leftover in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < stale:
                leftover.unlink()


def memo(kind: str, digest: str, compute: Callable[[], T]) -> T:
    """`compute()` for a key that fingerprints every input itself (no files to watch)."""
    return cached(kind, (digest,), lambda: (compute(), ()))


def fingerprint(parts: Iterable[Any], files: Iterable[str]) -> str:
    """A digest of some values and of the content of some files."""
    digest = hashlib.blake2b(repr((code_version(), *parts)).encode(), digest_size=20)
    for file in sorted(set(files)):
        digest.update(repr(stamp(file)).encode())
    return digest.hexdigest()


def _read(path: Path) -> tuple[list[Stamp], Any] | None:
    try:
        with path.open("rb") as stream:
            data = pickle.load(stream)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, ValueError,
            TypeError):
        return None
    return data if isinstance(data, tuple) and len(data) == 2 else None


def _write(path: Path, data: Any) -> None:
    with contextlib.suppress(OSError, pickle.PickleError, TypeError, AttributeError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(data, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def jinja_bytecode_cache() -> Any:
    folder = cache_dir()
    if folder is None:
        return None
    import jinja2

    target = folder / "jinja"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(target))
