"""A command's outcome, replayed while nothing it looked at has changed.

Most of a warm `argmatrix check` is start-up: importing the parsers, the model and the checks
to find, again, that nothing changed. So when a run of a command that calls itself replayable
(`check` without `--fix`, its registry read from files, not run) ends, what it printed and its
exit code are kept in the cache folder together with everything it looked at, as this module
observed it while the command ran:

- every file it opened, by content (a file looked for and not found: that it is missing);
- every path it examined (`os.stat`, `os.lstat`: nothing, a folder, a file of some size, a
  symbolic link and where it points);
- every folder it listed, by the names in it (and which of them are folders).

The next run of the same command line, from the same folder, in the same environment (every
variable), on the same Python, module search path (and the time stamps of its folders, which
change when a package is installed or removed) and argmatrix code (every file of the package,
templates included) replays that outcome if every observation still holds, importing nothing
but this module. Anything else runs the command as usual, and may record it again.

Not recorded: a run that wrote anything outside the cache folder (the writers' lock file
aside), warned about the cache, ended with an error, or saw a file change while it ran. The
cache folder is not observed: what it holds is a function of the inputs (see `cache.py`).
Records are trusted as cache entries are: the user's own private folder and files, each signed
with the folder's key (`ownfiles.py`); the replay is off with ARGMATRIX_NO_CACHE=1.

Observing: opens and listings through Python's audit events (raised by the interpreter itself,
however a library reached `open` or `os.scandir`), examinations by wrapping `os.stat` and
`os.lstat`, which `os.path` and `pathlib` call (a symbolic link examined is kept with its
target).
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
from _operator import _compare_digest  # hmac's constant-time comparison, without OpenSSL

from argmatrix._runtime import ownfiles

# A replay imports this module alone: not even `typing` (a tenth of a replay) at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    Observation: TypeAlias = tuple[str, str, Any]  # (how, absolute path, what was found)
    _Real: TypeAlias = Callable[..., Any]

try:  # keyed BLAKE2 is a MAC; `_blake2` spares importing OpenSSL through hashlib
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython 3.10-3.13 has it
    from hashlib import blake2b

LOCK_NAME = ".argmatrix.lock"  # the writers' lock (`writer.hold_lock`): there only while held
_FORMAT = b"argmatrix-outcome 1\n"
_MAC_SIZE = 32
_KEEP = 64  # records kept in a cache folder, the most recently written
_LARGEST_HASHED = 64 * 1024 * 1024

_REAL_STAT = os.stat
_REAL_LSTAT = os.lstat

# ------------------------------------------------------------------ what is found at a path


def _content(path: str) -> Any:
    """A file's content hash; None: missing; otherwise what is there instead."""
    return _content_and_status(path)[0]


def _content_and_status(path: str) -> tuple[Any, os.stat_result | None]:
    """`_content`, and the status of the file it was read from (None: no file was read)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | ownfiles.NONBLOCK)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return ("error", exc.errno), None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return ("kind", stat.S_IFMT(info.st_mode)), None
        if info.st_size > _LARGEST_HASHED:
            return ("large", info.st_size, info.st_mtime_ns), None
        digest = blake2b(digest_size=16)
        while chunk := os.read(descriptor, 1 << 20):
            digest.update(chunk)
        return digest.digest(), info
    except OSError as exc:
        return ("error", exc.errno), None
    finally:
        os.close(descriptor)


def _same_file(before: os.stat_result, now: os.stat_result) -> bool:
    return (
        before.st_dev,
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
        before.st_ctime_ns,
    ) == (
        now.st_dev,
        now.st_ino,
        now.st_size,
        now.st_mtime_ns,
        now.st_ctime_ns,
    )


def _kind(info: os.stat_result, path: str) -> Any:
    """What an examination of `path` told: a folder, a file and its size, a link and where it
    points (time stamps are not compared: a folder's change as files come and go is not)."""
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return ("file", info.st_size)
    if stat.S_ISLNK(mode):
        try:
            return ("link", os.readlink(path))
        except OSError as exc:
            return ("link", exc.errno)
    return ("kind", stat.S_IFMT(mode))


def _examined(real: _Real, path: str) -> Any:
    try:
        return _kind(real(path), path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return ("error", getattr(exc, "errno", None))


def _listing(path: str) -> Any:
    try:
        with os.scandir(path) as entries:
            return sorted(  # a file turned into a link to the same bytes changes a listing too
                (entry.name, entry.is_dir(), entry.is_symlink())
                for entry in entries
                if entry.name != LOCK_NAME
            )
    except FileNotFoundError:
        return None
    except OSError as exc:
        return ("error", exc.errno)


def _found(how: str, path: str) -> Any:
    if how == "read":
        return _content(path)
    if how == "list":
        return _listing(path)
    return _examined(_REAL_STAT if how == "stat" else _REAL_LSTAT, path)


def _holds(observations: list[Observation]) -> bool:
    return all(_found(how, path) == found for how, path, found in observations)


# ------------------------------------------------------------------ the key and the record


def _package_stamp() -> list[tuple[str, int, int]]:
    """Every file of the argmatrix package (code, templates, assets) by name, size and time."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found: list[tuple[str, int, int]] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                else:
                    info = entry.stat()
                    found.append((entry.path, info.st_size, info.st_mtime_ns))
    return sorted(found)


def _search_path_stamp() -> list[tuple[str, Any]]:
    """The module search path, each folder with its time stamp (a package installed or removed
    there changes it); the working folder by name only (the writers' lock comes and goes in a
    project's folder; it is part of the key anyway)."""
    here = os.path.realpath(os.getcwd())
    stamps: list[tuple[str, Any]] = []
    for entry in sys.path:
        if not entry or os.path.realpath(entry) == here:
            stamps.append((entry, "working folder"))
            continue
        try:
            stamps.append((entry, _REAL_STAT(entry).st_mtime_ns))
        except (OSError, ValueError):
            stamps.append((entry, None))
    return stamps


def _stream_is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


# Variables a shell sets anew for each command: no command's output depends on them.
_SHELL_BOOKKEEPING = frozenset(("_", "OLDPWD", "PWD", "SHLVL"))


def _record_path(argv: list[str]) -> str | None:
    """Where the outcome of this command line, here and now, is kept; None: nowhere (no cache
    folder; not on POSIX, where `os.path` examines paths without `os.stat`; a working folder
    inside the cache folder, whose files the observation leaves out)."""
    folder = ownfiles.cache_dir()
    if folder is None or not ownfiles.POSIX:
        return None
    here = os.getcwd()
    if _inside(os.path.realpath(here), os.path.realpath(folder)):
        return None
    key = (
        argv,
        here,
        sorted((k, v) for k, v in os.environ.items() if k not in _SHELL_BOOKKEEPING),
        sys.executable,
        sys.version,
        sys.flags,
        sys.warnoptions,
        sorted(sys._xoptions.items()),
        _search_path_stamp(),
        _package_stamp(),
        _stream_is_terminal(sys.stdout),
        _stream_is_terminal(sys.stderr),
    )
    digest = blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()
    return os.path.join(folder, f"outcome-{digest}.marshal")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _signature(key: bytes, path: str, payload: bytes) -> bytes:
    """The record's signature, over its name (its key) and content: a record cannot be passed
    off as another command line's."""
    digest = blake2b(os.path.basename(path).encode(), key=key, digest_size=_MAC_SIZE)
    digest.update(payload)
    return digest.digest()


def _own_folder(folder: str) -> bool:
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and ownfiles.foreign(info) is None


# ------------------------------------------------------------------ replaying


def replayed(argv: list[str]) -> int | None:
    """Replay the outcome recorded for this command line, if it still holds: its output written
    and its exit code returned; None: run the command."""
    try:
        path = _record_path(argv)
        record = _load(path) if path is not None else None
    except (OSError, ValueError):
        return None
    if record is None:
        return None
    observations, output, code, locks = record
    if any(os.path.lexists(lock) for lock in locks):
        return None  # a writer is at work (or was killed): run, and wait for it as a run does
    if not _holds(observations):
        return None
    streams = (sys.stdout, sys.stderr)
    for which, text in output:
        streams[which].write(text)
        streams[which].flush()
    return int(code)


def _load(path: str) -> tuple[list[Observation], list[tuple[int, str]], int, list[str]] | None:
    folder = os.path.dirname(path)
    if not _own_folder(folder):
        return None
    data = ownfiles.read_own_file(path)
    key = ownfiles.read_secret(folder) if data is not None else None
    if data is None or key is None or not data.startswith(_FORMAT):
        return None
    start = len(_FORMAT) + _MAC_SIZE
    payload = data[start:]
    if not _compare_digest(data[len(_FORMAT) : start], _signature(key, path, payload)):
        return None
    try:
        record = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return record if isinstance(record, tuple) and len(record) == 4 else None


# ------------------------------------------------------------------ recording


class _Tee:
    """A standard stream that keeps what is written to it."""

    def __init__(self, stream: Any, which: int, output: list[tuple[int, str]]) -> None:
        self._stream, self._which, self._output = stream, which, output

    def write(self, text: str) -> int:
        self._output.append((self._which, text))
        written = self._stream.write(text)
        return len(text) if written is None else int(written)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Recording:
    """What a run looks at, writes and prints, from its start until `finish`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.observed: dict[tuple[str, str], Any] = {}
        self.read_status: dict[str, os.stat_result] = {}  # of each file read, when first read
        self.started_ns = time.time_ns()
        self.output: list[tuple[int, str]] = []
        self.spoiled = False
        self.replayable = False
        self._inside = False
        folder = os.path.abspath(os.path.dirname(path))
        self._cache_folders = {folder, os.path.realpath(folder)}
        self.locks: set[str] = set()
        self.streams = (sys.stdout, sys.stderr)

    # --- what the run does

    def _path(self, given: Any) -> str | None:
        if isinstance(given, int):
            return None  # a descriptor: what it was opened from was seen then
        try:
            name = os.fsdecode(os.fspath(given))
        except TypeError:
            return None
        full = os.path.abspath(name)
        if full.startswith(_PACKAGE) or self._cache_entry(full):
            return None  # argmatrix's own files are part of the key; the cache's, its inputs'
        if os.path.basename(full) == LOCK_NAME:
            self.locks.add(full)
            return None
        return full

    def _cache_entry(self, path: str) -> bool:
        """The cache folder itself, or a file of the cache in it (its entries, records, key,
        compiled templates, temporary files): anything else there is observed."""
        parent, name = os.path.split(path)
        if path in self._cache_folders:
            return True
        if parent in self._cache_folders:
            return name.endswith((".pickle", ".marshal", ".tmp")) or name in _CACHE_NAMES
        return any(path.startswith(os.path.join(f, "jinja") + os.sep) for f in self._cache_folders)

    def _note(self, how: str, given: Any, found: Callable[[str], Any]) -> None:
        path = self._path(given)
        if path is not None and (how, path) not in self.observed:
            self.observed[(how, path)] = found(path)

    def _content(self, path: str) -> Any:
        found, status = _content_and_status(path)
        if status is not None:
            self.read_status[path] = status
        return found

    def _unchanged(self, how: str, path: str, found: Any) -> bool:
        if how == "read" and path in self.read_status:
            return self._still_as_read(path)
        return bool(_found(how, path) == found)

    def _still_as_read(self, path: str) -> bool:
        """Whether a file read is as it was then: the same file, size and time stamps, last
        changed before the run began, so that an edit during the run, even one within the time
        stamps' granularity or one undone before the end, is ruled out. A file that changed
        since shortly before the run is not: the run is not recorded (the next one may be)."""
        before = self.read_status.get(path)
        if before is None:
            return False
        try:
            now = _REAL_STAT(path)
        except OSError:
            return False
        return _same_file(before, now) and ownfiles.settled(ownfiles.change(now), self.started_ns)

    def _wrote(self, given: Any) -> None:
        if self._path(given) is not None:
            self.spoiled = True

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if self._inside:
            return
        self._inside = True
        try:
            self._audited(event, args)
        finally:
            self._inside = False

    def _audited(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            given, opened_as, flags = args  # `open`'s mode; None: `os.open`, by its flags
            writes = (opened_as is not None and any(c in opened_as for c in "wax+")) or (
                opened_as is None and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC)
            )
            if writes:
                self._wrote(given)
            elif not _is_code(given):
                self._note("read", given, self._content)
        elif event in ("os.listdir", "os.scandir"):
            self._note("list", args[0] if args[0] is not None else ".", _listing)
        elif event in _WRITES:
            self._wrote(args[0])
            if event in ("os.rename", "os.link", "os.symlink"):
                self._wrote(args[1])

    def examined(self, path: Any, follow: bool) -> None:
        if self._inside:
            return
        self._inside = True
        try:
            how, real = ("stat", _REAL_STAT) if follow else ("lstat", _REAL_LSTAT)
            self._note(how, path, lambda p: _examined(real, p))
        finally:
            self._inside = False

    # --- the end

    def finish(self, code: int) -> None:
        if not self.replayable or self.spoiled or code not in (0, 1):
            return
        observations = [(how, path, found) for (how, path), found in self.observed.items()]
        if not all(self._unchanged(how, path, found) for how, path, found in observations):
            return  # something changed while the run looked at it
        output = [(which, text) for which, text in self.output if text]
        _write(self.path, marshal.dumps((observations, output, code, sorted(self.locks))))


_WRITES = frozenset(
    (
        *("os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.link", "os.symlink"),
        *("os.utime", "os.chmod", "os.chown", "os.truncate", "shutil.rmtree"),
    )
)
_CODE_SUFFIXES = (".pyc", ".so", ".pyd")
_CACHE_NAMES = frozenset((ownfiles.SECRET_NAME, "jinja"))
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _is_code(given: Any) -> bool:
    """A compiled module being imported (Python reads it through `open` too): others' modules
    are in the key by the search path's folders (argmatrix's own files are left out by
    `Recording._path`, as the key holds them)."""
    try:
        return os.fsdecode(os.fspath(given)).endswith(_CODE_SUFFIXES)
    except TypeError:
        return False


def _write(path: str, payload: bytes) -> None:
    folder = os.path.dirname(path)
    key = ownfiles.read_secret(folder) if _own_folder(folder) else None
    if key is None:
        return  # the cache makes the folder's key; a run that wrote no entry keeps no record
    temporary = os.path.join(folder, f".outcome-{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "wb") as stream:
            stream.write(_FORMAT + _signature(key, path, payload) + payload)
        os.replace(temporary, path)
    except OSError:
        try:  # noqa: SIM105 (contextlib is not imported for this)
            os.unlink(temporary)
        except OSError:
            pass
        return
    _keep_recent(folder)


def _keep_recent(folder: str) -> None:
    try:
        with os.scandir(folder) as entries:
            records = [e for e in entries if e.name.startswith("outcome-")]
        records.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for stale in records[_KEEP:]:
            os.unlink(stale.path)
    except OSError:
        pass


_active: Recording | None = None
_hooked = False


def _audit_hook(event: str, args: tuple[Any, ...]) -> None:
    if _active is not None:
        _active.audit(event, args)


class _Examiner:
    """`os.stat` or `os.lstat` as the recording sees it. An instance, not a function: Python
    3.10's pathlib keeps `os.stat` as a class attribute, and calls an instance found there
    without binding `self` (once the recording ends it only calls through)."""

    def __init__(self, real: _Real, follows: bool) -> None:
        self.real, self.follows = real, follows

    def __call__(self, path: Any, *args: Any, **kwargs: Any) -> Any:
        if _active is not None:
            _active.examined(path, self.follows and kwargs.get("follow_symlinks", True))
        return self.real(path, *args, **kwargs)


_EXAMINERS = {"stat": _Examiner(_REAL_STAT, True), "lstat": _Examiner(_REAL_LSTAT, False)}


def _examiners(install: bool) -> None:
    """Put the examiners in place of `os.stat` and `os.lstat` (and in Python 3.10's pathlib,
    which took its own reference to them when it was imported), or the real ones back."""
    targets: list[Any] = [os]
    pathlib = sys.modules.get("pathlib")
    if pathlib is not None and hasattr(pathlib, "_NormalAccessor"):
        targets.append(pathlib._NormalAccessor)
    for target in targets:
        for name, examiner in _EXAMINERS.items():
            if install:
                setattr(target, name, examiner)
            elif getattr(target, name, None) is examiner:
                setattr(target, name, examiner.real)


def start(argv: list[str]) -> Recording | None:
    """Observe the run of a command from now until `stop`; None when there is no cache."""
    global _active, _hooked
    path = _record_path(argv)
    if path is None:
        return None
    recording = Recording(path)
    if not _hooked:
        sys.addaudithook(_audit_hook)  # cannot be removed: inert once `_active` is None
        _hooked = True
    _examiners(install=True)
    sys.stdout = _Tee(sys.stdout, 0, recording.output)
    sys.stderr = _Tee(sys.stderr, 1, recording.output)
    _active = recording
    return recording


def stop(recording: Recording, code: int | None) -> None:
    """End the observation, and keep the outcome if the run may be replayed (`code` None: the
    run ended with an exception)."""
    global _active
    _active = None
    _examiners(install=False)
    sys.stdout, sys.stderr = recording.streams
    if code is not None:
        recording.finish(code)


def replayable() -> None:
    """Called by a command whose outcome depends on nothing but what it reads: it may be
    replayed."""
    if _active is not None:
        _active.replayable = True


def not_replayable() -> None:
    """Called where a run's output says something about the run itself (a cache warning)."""
    if _active is not None:
        _active.spoiled = True
