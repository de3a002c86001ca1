"""A cache of what is slow to read and rarely changes: statically read registries, manifests.

An entry is valid while every file it was read from has the same content (by hash: a time stamp
can miss an edit made within its granularity), so a cached result is always what reading the
files again would give. A result is cached only when none of its files changed while it was
being computed (see `ownfiles.settled`). Off with ARGMATRIX_NO_CACHE=1; the folder is
ARGMATRIX_CACHE_DIR, else $XDG_CACHE_HOME/argmatrix, else ~/.cache/argmatrix.

Entries are pickles, and unpickling runs code: an entry is trusted only if no one else could
have written it. The folder must be the user's own and writable by no one else (it is created
with mode 0700), an entry must be a regular file of the user's (never a symbolic link), and each
entry carries a keyed hash of its bytes under a secret kept in the folder (mode 0600), checked
before anything is unpickled. A folder that fails these checks, or cannot be written, is not
used: one warning line, never an error. An entry is keyed on argmatrix's code, the Python
version and the module search path as well as its inputs.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import os
import pickle
import stat
import sys
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from argmatrix import __version__
from argmatrix._runtime import outcome, ownfiles
from argmatrix.errors import printable

T = TypeVar("T")
Stamp = tuple[str, str | None]  # a file and its content hash; None: the file must not exist

_NOCTTY = getattr(os, "O_NOCTTY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_MAGIC = b"argmatrix-cache 2\n"
_MAC_SIZE = ownfiles.SECRET_SIZE
_LARGEST_STAMPED = 64 * 1024 * 1024  # beyond this a file is stamped by size and time only


def cache_dir() -> Path | None:
    folder = ownfiles.cache_dir()
    return Path(folder) if folder is not None else None


# ------------------------------------------------------------------ whose folder, whose files

_warned = False


def _warn(message: str, fix: str) -> None:
    """One line on stderr, once per run: a cache problem never stops the work."""
    global _warned
    outcome.not_replayable()  # the warning is about this run's cache, not the project
    if not _warned:
        _warned = True
        print(printable(f"argmatrix: warning: {message}; not used (fix: {fix})"), file=sys.stderr)


def usable_cache_dir() -> Path | None:
    """The cache folder, created private if missing; None (after one warning) when it is not
    the user's own, others may write to it, or it cannot be written."""
    folder = cache_dir()
    if folder is None:
        return None
    return folder if _usable_folder(folder, "cache folder") else None


def _usable_folder(folder: Path, what: str) -> bool:
    shown = str(folder)
    own_folder = "set ARGMATRIX_CACHE_DIR to a folder of your own, or ARGMATRIX_NO_CACHE=1"
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.stat(folder)
        except (OSError, ValueError) as exc:
            _warn(f"{what} {shown} cannot be created ({ownfiles.reason(exc)})", own_folder)
            return False
    except (OSError, ValueError) as exc:
        _warn(f"{what} {shown} cannot be read ({ownfiles.reason(exc)})", own_folder)
        return False
    if not stat.S_ISDIR(info.st_mode):
        _warn(f"{what} {shown} is not a folder", own_folder)
        return False
    problem = ownfiles.foreign(info)
    if problem == "is writable by others":
        _warn(f"{what} {shown} {problem}", f"chmod 700 {shown}")
        return False
    if problem:
        _warn(f"{what} {shown} {problem}", own_folder)
        return False
    if not os.access(folder, os.W_OK | os.X_OK):
        _warn(f"{what} {shown} cannot be written", f"chmod 700 {shown}, or {own_folder}")
        return False
    return True


_secrets: dict[str, bytes | None] = {}


def _secret(folder: Path) -> bytes | None:
    """The key entries of this folder are signed with: made once, readable by the user alone,
    so another user cannot forge an entry even where they could write one."""
    name = str(folder)
    if name not in _secrets:
        _secrets[name] = _read_secret(folder) or _make_secret(folder)
    return _secrets[name]


def _read_secret(folder: Path) -> bytes | None:
    return ownfiles.read_secret(str(folder), _warn)


def _make_secret(folder: Path) -> bytes | None:
    path = folder / ownfiles.SECRET_NAME
    key = os.urandom(_MAC_SIZE)  # what `secrets.token_bytes` gives
    temporary = None
    try:
        handle, temporary = _private_temporary(folder)
        with os.fdopen(handle, "wb") as stream:
            stream.write(key)
        try:
            os.link(temporary, path)  # never replaces a key another process made meanwhile
        except FileExistsError:
            return _read_secret(folder)
        except OSError:  # a file system without hard links
            os.replace(temporary, path)
    except OSError:
        return None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return key


def _signature(key: bytes, payload: bytes | memoryview) -> bytes:
    # HMAC-SHA-256 in one call: OpenSSL's SHA-256 runs on the processor's SHA instructions,
    # several times faster than blake2b here (a 20 MB entry of pages in about 15 ms).
    return hmac.digest(key, payload, "sha256")


def _signed(key: bytes, payload: bytes) -> bytes:
    return _MAGIC + _signature(key, payload) + payload


def _verified(key: bytes, data: bytes) -> memoryview | None:
    """The payload of a signed entry (without copying it), or None if it was not signed with
    `key`."""
    start = len(_MAGIC) + _MAC_SIZE
    if not data.startswith(_MAGIC) or len(data) < start:
        return None
    payload = memoryview(data)[start:]
    signature = data[len(_MAGIC) : start]
    return payload if hmac.compare_digest(signature, _signature(key, payload)) else None


def _read_own_file(path: Path) -> bytes | None:
    return ownfiles.read_own_file(str(path), _warn)


# ------------------------------------------------------------------ stamps of input files


def stamp(path: str | Path) -> Stamp:
    return _stamp_and_change(path)[0]


def _stamp_and_change(path: str | Path) -> tuple[Stamp, tuple[int, bool]]:
    """The file's stamp, and when it (or, if missing, its folder) last changed: the later of
    its modification and status-change times, and whether they count whole seconds only."""
    name = str(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a folder, FIFO or device is never opened
            return (name, f"special:{stat.S_IFMT(info.st_mode)}"), ownfiles.change(info)
        descriptor = os.open(path, os.O_RDONLY | ownfiles.NONBLOCK | _NOCTTY)
    except (OSError, ValueError):
        return (name, None), _folder_change(Path(path).parent)
    try:
        info = os.fstat(descriptor)
        change = ownfiles.change(info)
        if not stat.S_ISREG(info.st_mode):  # replaced since the look above
            return (name, f"special:{stat.S_IFMT(info.st_mode)}"), change
        if info.st_size > _LARGEST_STAMPED:  # no reader takes it: it fails before the cache
            return (name, f"large:{info.st_size}:{info.st_mtime_ns}"), change
        digest = hashlib.blake2b(digest_size=16)
        while chunk := os.read(descriptor, 1 << 20):
            digest.update(chunk)
        return (name, digest.hexdigest()), change
    except OSError:
        return (name, None), (time.time_ns(), False)
    finally:
        os.close(descriptor)


def _folder_change(folder: Path) -> tuple[int, bool]:
    """When a file last appeared in or vanished from the nearest existing folder above."""
    for candidate in (folder, *folder.parents):
        with contextlib.suppress(OSError, ValueError):
            return ownfiles.change(os.stat(candidate))
    return time.time_ns(), False


# What this process's readers read: a file's stamp as of the reading (and when that was), so
# that a digest of a result's inputs describes the content it was computed from.
_read_stamps: dict[str, tuple[Stamp, int]] = {}
_run_started_ns = time.time_ns()


def note_read(path: str | Path, content: str | bytes) -> None:
    """Record the content a reader got from `path` (text as UTF-8)."""
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    name = str(path)
    _read_stamps[name] = ((name, hashlib.blake2b(data, digest_size=16).hexdigest()), time.time_ns())


def begin_run() -> None:
    """A long-lived process (a documentation server) starts another build: files changed
    before now count as settled again."""
    global _run_started_ns
    _run_started_ns = time.time_ns()


# ------------------------------------------------------------------ keys and entries


@lru_cache(maxsize=1)
def code_version() -> str:
    """argmatrix's own code, as of now: an entry written by other code is never reused."""
    return modules_digest(Path(__file__).resolve().parents[1])  # the whole argmatrix package


def modules_digest(package: Path) -> str:
    """Every module of a package at any depth, by name, time stamp and size (the bundled
    templates are part of the pages' own digest). Every run asks: listed with `os.scandir`,
    which gives each entry's status without a call of its own."""
    parts = [__version__]
    for relative, status in sorted(_modules(str(package), "")):
        parts.append(f"{relative}:{status.st_mtime_ns}:{status.st_size}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _modules(folder: str, prefix: str) -> list[tuple[str, os.stat_result]]:
    """The `.py` files below `folder`, each by its path relative to the package, and status."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir():
                found += _modules(entry.path, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".py"):
                found.append((prefix + entry.name, entry.stat()))
    return found


def _environment() -> tuple[Any, ...]:
    """What else decides a result: the Python that runs (argparse's help text differs between
    versions) and where modules are found (another package of the same name earlier on it)."""
    return (sys.version, sys.implementation.cache_tag, tuple(sys.path))


def _entry_path(kind: str, key: Iterable[Any]) -> Path | None:
    folder = usable_cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(
        repr((code_version(), _environment(), kind, *key)).encode()
    ).hexdigest()[:32]
    return folder / f"{kind}-{digest}.pickle"


_recent: dict[Path, tuple[list[Stamp], Any]] = {}


MISSING: Any = object()


def lookup(kind: str, key: Iterable[Any]) -> Any:
    """The cached value for `key` if every file it was read from is unchanged, else MISSING."""
    found = _lookup(kind, tuple(key))
    return found[0] if found is not MISSING else MISSING


def _lookup(kind: str, key: tuple[Any, ...]) -> Any:
    """The cached value and the files it was read from, else MISSING."""
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
    now_ns = time.time_ns()
    for found in stamps:
        _read_stamps[found[0]] = (found, now_ns)
    return value, [s[0] for s in stamps]


def cached(kind: str, key: Iterable[Any], compute: Callable[[], tuple[T, Iterable[str]]]) -> T:
    """`compute()` returns the value and the files it looked at; reuse the value while they are
    unchanged (a file it looked for and did not find must still be missing).

    The files are stamped after the computation: the value is stored only if none of them
    changed while it ran (by its time stamps, and by content where the reader recorded what it
    read), so an edit made during a read is never taken for the content that was read."""
    return cached_with_inputs(kind, key, compute)[0]


def cached_with_inputs(
    kind: str, key: Iterable[Any], compute: Callable[[], tuple[T, Iterable[str]]]
) -> tuple[T, list[str]]:
    """`cached`, and the files the value was read from: those `compute` named, or those of the
    entry reused. They are returned, never kept here: whoever asked passes them on."""
    key = tuple(key)
    found = _lookup(kind, key)
    if found is not MISSING:
        return found  # type: ignore[no-any-return]
    path = _entry_path(kind, key)
    started_ns = time.time_ns()
    value, files = compute()
    files = list(files)
    if path is not None:
        stamps = _stamps_if_settled(sorted(set(files)), started_ns)
        _recent.pop(path, None)
        if stamps is not None:
            _write(path, (stamps, value))
            _evict(path.parent, kind)
    return value, files


def _stamps_if_settled(files: list[str], since_ns: int) -> list[Stamp] | None:
    stamps = []
    settled = True
    for file in files:
        found, change = _stamp_and_change(file)
        read, read_ns = _read_stamps.get(file, (found, 0))
        if not ownfiles.settled(change, since_ns) or (read_ns >= since_ns and read != found):
            settled = False
            _read_stamps.pop(file, None)  # what was read is not known for sure
        stamps.append(found)
    if not settled:
        return None
    now_ns = time.time_ns()
    _read_stamps.update((found[0], (found, now_ns)) for found in stamps)
    return stamps


KEEP_PER_KIND = 256
KEEP_BYTES = 512 * 1024 * 1024


def _evict(folder: Path, kind: str) -> None:
    """Drop the least recently used entries beyond a count per kind and a total size."""
    with contextlib.suppress(OSError):
        _drop_abandoned_writes(folder)
        entries = sorted(folder.glob("*.pickle"), key=lambda p: p.lstat().st_mtime_ns, reverse=True)
        of_kind = 0
        total = 0
        for entry in entries:
            size = entry.lstat().st_size
            total += size
            of_kind += entry.name.startswith(f"{kind}-")
            if total > KEEP_BYTES or (
                entry.name.startswith(f"{kind}-") and of_kind > KEEP_PER_KIND
            ):
                entry.unlink()


def _drop_abandoned_writes(folder: Path) -> None:
    """Temporary files of writes that never finished (a process killed mid-write), once they
    are old enough that no running process can still be writing them."""
    stale = time.time() - 3600
    for leftover in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.lstat().st_mtime < stale:
                leftover.unlink()


_UNSETTLED = "unsettled:"


def memo(kind: str, digest: str, compute: Callable[[], T]) -> T:
    """`compute()` for a key that fingerprints every input itself (no files to watch)."""
    if digest.startswith(_UNSETTLED):
        return compute()  # an input changed during this run: nothing to reuse, nothing to keep
    return cached(kind, (digest,), lambda: (compute(), ()))


def fingerprint(parts: Iterable[Any], files: Iterable[str]) -> str:
    """A digest of some values and of the content of some files (those files only).

    A file is taken as this process read it (`note_read`, or a cache entry it was read for),
    else as it is now; one that changed during this run and was not recorded when read gives a
    digest `memo` neither reuses nor stores (the result may come from its older content)."""
    digest = hashlib.blake2b(repr((code_version(), *parts)).encode(), digest_size=20)
    settled = True
    for file in sorted(set(files)):
        read = _read_stamps.get(file)
        if read is not None:
            found = read[0]
        else:
            found, change = _stamp_and_change(file)
            settled = settled and ownfiles.settled(change, _run_started_ns)
        digest.update(repr(found).encode())
    return digest.hexdigest() if settled else _UNSETTLED + digest.hexdigest()


def _read(path: Path) -> tuple[list[Stamp], Any] | None:
    folder = path.parent
    key = _secret(folder)
    if key is None:
        return None
    data = _read_own_file(path)
    payload = _verified(key, data) if data is not None else None
    if payload is None:
        return None
    try:
        value = pickle.loads(payload)
    except (
        pickle.PickleError,
        EOFError,
        AttributeError,
        ImportError,
        ValueError,
        TypeError,
        IndexError,
        KeyError,
    ):
        return None
    return value if isinstance(value, tuple) and len(value) == 2 else None


def _write(path: Path, data: Any) -> None:
    key = _secret(path.parent)
    if key is None:
        return
    with contextlib.suppress(
        OSError, pickle.PickleError, TypeError, AttributeError, RecursionError
    ):
        signed = _signed(key, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        _write_private(path, signed)


def _private_temporary(folder: Path) -> tuple[int, str]:
    """A new file of mode 0600 in `folder`, named `.NAME.tmp` (what `_drop_abandoned_writes`
    removes once abandoned), opened for writing: `tempfile.mkstemp`'s guarantees, without
    importing `tempfile` and `random` on a cold run."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
    while True:
        name = os.path.join(folder, f".{os.getpid()}-{os.urandom(8).hex()}.tmp")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:  # 64 random bits taken: try others
            continue


def _write_private(path: Path, data: bytes) -> None:
    """Write next to `path` (mode 0600) and rename: a reader sees the whole entry or none."""
    handle, temporary = _private_temporary(path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


# ------------------------------------------------------------------ Jinja's compiled templates


def jinja_bytecode_cache() -> Any:
    """Jinja's cache of compiled templates, in a private subfolder, signed like every entry;
    None when the cache is off or its folder is not usable."""
    folder = usable_cache_dir()
    if folder is None:
        return None
    target = folder / "jinja"
    key = _secret(folder)
    if key is None or not _usable_folder(target, "cache folder"):
        return None
    return _signed_bytecode_cache(str(target), key)


def _signed_bytecode_cache(directory: str, key: bytes) -> Any:
    import jinja2

    class SignedBytecodeCache(jinja2.FileSystemBytecodeCache):
        """Jinja's own file cache, but what it loads is checked as cache entries are (the
        user's own regular file, signed), and a failed write is skipped, never raised."""

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            data = _read_own_file(Path(self._get_cache_filename(bucket)))
            payload = _verified(key, data) if data is not None else None
            if payload is not None:
                bucket.load_bytecode(io.BytesIO(payload))

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            stream = io.BytesIO()
            bucket.write_bytecode(stream)
            with contextlib.suppress(OSError):
                _write_private(
                    Path(self._get_cache_filename(bucket)), _signed(key, stream.getvalue())
                )

    return SignedBytecodeCache(directory)
