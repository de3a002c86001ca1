"""Write a set of pages all or none, even when interrupted.

1. Take the lock (`.argmatrix.lock`, in the folder of argmatrix.yaml), so two runs cannot
   interleave their moves; a second run waits for the first (with a bound).
2. Repair what an earlier, killed run left: a journal is completed, temporary files are removed.
3. Write every page to a temporary file next to it (`.NAME.argmatrix-PID-XXXX.tmp`).
4. Write the journal (`.argmatrix.journal`: every temporary file and its target) and make it
   durable, move every temporary file into place, remove the journal.

Ctrl-C or SIGTERM before step 4 removes the temporary files and leaves every page as it was;
during step 4 they are held until the moves are done (a few renames), so the pages are all new.
A kill -9 during step 4 leaves the journal, and the next run (`generate` or `check`) finishes
the moves. `ARGMATRIX_TEST_KILL_AT=STEP:N[:SIGNAL]` stops the writer at a step (see `steps`),
for the tests that prove this.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from argmatrix._runtime.files import read_regular_file, within
from argmatrix._runtime.outcome import LOCK_NAME  # there only while held: a replay ignores it
from argmatrix.errors import ArgmatrixError, printable


def write_text_atomically(path: Path, text: str) -> None:
    """Write next to the target and rename, so a failure never leaves half a file."""
    write_all([(path, text)])


try:
    import fcntl
except ImportError:  # Windows: no advisory locks; runs are not serialised there
    fcntl = None  # type: ignore[assignment]

JOURNAL_NAME = ".argmatrix.journal"
JOURNAL_FORMAT = "argmatrix-journal"
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.argmatrix-(?P<pid>\d+)-[A-Za-z0-9_]+\.tmp")
LOCK_WAIT_SECONDS = 120.0  # a run writing 10,000-argument pages takes a few seconds
_NOTICE_AFTER_SECONDS = 1.0
_POLL_SECONDS = 0.05


@lru_cache(maxsize=1)
def _new_file_mode() -> int:
    """The mode a plain `open(path, "w")` would give (temporary files start at 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return _new_file_mode()


def refuse_folder(path: Path) -> None:
    if path.is_dir():
        raise ArgmatrixError.at(
            "the output is a folder, not a file",
            file=str(path),
            fix="give the page an output file name ending in .md",
        )


# ------------------------------------------------------------------ the test hook


def steps(count: int) -> list[str]:
    """Every point at which `ARGMATRIX_TEST_KILL_AT` can stop a write of `count` files."""
    journal = ["journal:0"] if count > 1 else []
    return [
        "locked:0",
        *(f"staged:{i}" for i in range(count)),
        *journal,
        *(f"moved:{i}" for i in range(count)),
        "finished:0",
    ]


def _step(name: str, number: int = 0) -> None:
    """Test hooks: `ARGMATRIX_TEST_KILL_AT=STEP:N[:SIGNAL]` sends SIGNAL (SIGKILL by default) to
    this process at that step; `ARGMATRIX_TEST_STEP_DELAY=SECONDS` pauses at every step, so
    that two runs started together overlap."""
    delay = os.environ.get("ARGMATRIX_TEST_STEP_DELAY")
    if delay:
        time.sleep(float(delay))
    wanted = os.environ.get("ARGMATRIX_TEST_KILL_AT")
    if not wanted:
        return
    step, _, how = wanted.partition(":")
    index, _, signal_name = how.partition(":")
    if step == name and index == str(number):
        os.kill(os.getpid(), getattr(signal, signal_name or "SIGKILL"))


# ------------------------------------------------------------------ writing


def write_all(
    files: Iterable[tuple[Path, str]], state_dir: Path | None = None, inside: Path | None = None
) -> list[Path]:
    """Write every (path, text); if anything fails or interrupts, no target file has changed.

    `state_dir` holds the lock and the journal (the project's folder; by default the first
    file's folder); `inside` is the folder every target must be in, which bounds what a journal
    found on disk may move (docs_dir; by default `state_dir`)."""
    written, _ = _write(list(files), state_dir, inside, keep_unchanged=False)
    return written


def write_changed(
    files: Iterable[tuple[Path, str]], state_dir: Path | None = None, inside: Path | None = None
) -> tuple[list[Path], list[Path]]:
    """`write_all`, but a file that already holds its text is left alone (its modification
    time too, so a docs engine or a build tool does not see it change): (written, unchanged),
    each in the given order. Whether a file holds its text is decided under the lock, after an
    interrupted run's moves are completed."""
    return _write(list(files), state_dir, inside, keep_unchanged=True)


def _write(
    items: list[tuple[Path, str]], state_dir: Path | None, inside: Path | None, keep_unchanged: bool
) -> tuple[list[Path], list[Path]]:
    if not items:
        return [], []
    state = state_dir or items[0][0].parent
    bound = inside or state
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(exc, state) from None
    with hold_lock(state):
        _step("locked")
        repair(state, bound, {path.parent for path, _ in items})
        unchanged = [path for path, text in items if keep_unchanged and _holds(path, text)]
        changed = [(path, text) for path, text in items if path not in unchanged]
        with _signals_as_exceptions():
            if changed:
                _write_locked(changed, state)
    return [path for path, _ in changed], unchanged


def _holds(path: Path, text: str) -> bool:
    """Whether the regular file at `path` holds exactly `text`, as `_stage` would write it."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return path.read_bytes() == text.encode("utf-8")
    except (OSError, UnicodeEncodeError):
        return False


def _write_locked(items: list[tuple[Path, str]], state: Path) -> None:
    staged: list[tuple[Path, Path]] = []
    journal: Path | None = None
    moved = 0
    try:
        for index, (path, text) in enumerate(items):
            _stage(path, text, staged)
            _step("staged", index)
        with _signals_held():
            if len(staged) > 1:
                journal = _write_journal(state, staged)
            for index, (temporary, path) in enumerate(staged):
                os.replace(temporary, path)
                moved += 1
                _step("moved", index)
            if journal is not None:
                with contextlib.suppress(OSError):  # the next run finds nothing left to move
                    journal.unlink()
            _step("finished")
    except OSError as exc:
        if moved and journal is not None:
            staged = []  # keep the rest and the journal: the next run completes the moves
            raise ArgmatrixError.at(
                f"cannot write: {exc.strerror or exc}; {moved} page(s) were moved into place and"
                " the next run moves the others",
                file=str(exc.filename or state),
                fix="make the folder writable and run again",
            ) from None
        if journal is not None:  # nothing moved: the journal goes with the temporary files
            with contextlib.suppress(OSError):
                journal.unlink()
        raise _cannot_write(exc, staged[-1][1] if staged else state) from None
    finally:
        for temporary, _ in staged[moved:]:
            with contextlib.suppress(OSError):
                temporary.unlink()


def _cannot_write(exc: OSError, where: Path) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"cannot write: {exc.strerror or exc}",
        file=str(exc.filename or where),
        fix="check that the folder exists and can be written",
    )


def _stage(path: Path, text: str, staged: list[tuple[Path, Path]]) -> None:
    import tempfile  # a run that writes nothing (a `check` that agrees) never needs it

    refuse_folder(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        prefix=f".{path.name}.argmatrix-{os.getpid()}-", suffix=".tmp", dir=path.parent
    )
    temporary = Path(name)
    staged.append((temporary, path))
    with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)
    os.chmod(temporary, _mode_for(path))


def _write_journal(state: Path, staged: list[tuple[Path, Path]]) -> Path:
    """Every move still to do, durable before the first one is done."""
    import tempfile

    journal = state / JOURNAL_NAME
    data = {
        "format": JOURNAL_FORMAT,
        "version": 1,
        "moves": [[os.path.relpath(t, state), os.path.relpath(p, state)] for t, p in staged],
    }
    handle, name = tempfile.mkstemp(
        prefix=f"{JOURNAL_NAME}.argmatrix-{os.getpid()}-", suffix=".tmp", dir=state
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(json.dumps(data))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(name, journal)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    _sync_folder(state)
    _step("journal")
    return journal


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError, AttributeError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


# ------------------------------------------------------------------ signals


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class _Terminated(SystemExit):
    """SIGTERM or SIGHUP while writing: unwinds like Ctrl-C, so temporary files are removed."""


def _terminate(signum: int, frame: object) -> None:
    raise _Terminated(128 + signum)


_CAUGHT = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _signals_as_exceptions() -> Iterator[None]:
    """For the duration of a write, SIGTERM and SIGHUP raise (as SIGINT already does), so the
    `finally` that removes temporary files runs; handlers someone else installed are kept."""
    if not _in_main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in _CAUGHT}
    for number, handler in previous.items():
        if handler is signal.SIG_DFL:
            signal.signal(number, _terminate)
    try:
        yield
    finally:
        for number, handler in previous.items():
            if handler is signal.SIG_DFL:
                signal.signal(number, handler)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait until the moves are done: then they act as usual."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, *_CAUGHT}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# ------------------------------------------------------------------ the lock


@contextlib.contextmanager
def hold_lock(state: Path, wait: float | None = None) -> Iterator[None]:
    """Exclusive use of the pages of the project in `state` by this process.

    An advisory lock (flock) on `.argmatrix.lock`: the kernel releases it when the holder
    dies, however it dies, so a lock file left behind never blocks anyone. The holder removes
    the file when done; a process that locked the file just as it was removed sees that the
    file it holds is no longer the one at the path, and tries again. Where the folder cannot be
    written (a read-only checkout that `check` only reads) there is nothing to protect."""
    path = state / LOCK_NAME
    key = os.path.realpath(path)
    if fcntl is None or key in _held:  # held already by this process (check --fix): go on
        yield
        return
    descriptor = _acquire(path, _lock_wait() if wait is None else wait)
    if descriptor is None:
        yield
        return
    _held.add(key)
    try:
        yield
    finally:
        _held.discard(key)
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(descriptor)


_held: set[str] = set()  # the locks this process holds


def _lock_wait() -> float:
    """How long to wait for another run: ARGMATRIX_LOCK_TIMEOUT seconds, or 120."""
    try:
        return max(0.0, float(os.environ.get("ARGMATRIX_LOCK_TIMEOUT") or LOCK_WAIT_SECONDS))
    except ValueError:
        return LOCK_WAIT_SECONDS


def _acquire(path: Path, wait: float) -> int | None:
    start = time.monotonic()
    deadline = start + wait
    told = False
    while True:
        descriptor = _open_lock(path)
        if descriptor is None:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            if time.monotonic() >= deadline:
                raise ArgmatrixError.at(
                    f"another argmatrix run{holder} is writing these pages and did not finish"
                    f" within {wait:g} s",
                    file=str(path),
                    fix="wait for it to finish, or stop it; the lock goes with the process",
                ) from None
            if not told and time.monotonic() - start >= _NOTICE_AFTER_SECONDS:
                print(
                    printable(
                        f"argmatrix: waiting for another argmatrix run{holder} to finish writing"
                    ),
                    file=sys.stderr,
                )
                told = True
            time.sleep(_POLL_SECONDS)
            continue
        if _still_there(descriptor, path):
            _record_holder(descriptor)
            return descriptor
        os.close(descriptor)  # removed by the previous holder as we locked it: lock the new one


def _open_lock(path: Path) -> int | None:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return None  # nothing can be written here, by us or by another run
        if exc.errno == errno.ELOOP:
            raise ArgmatrixError.at(
                "the lock file is a symbolic link",
                file=str(path),
                fix="remove it; argmatrix creates it while it writes",
            ) from None
        raise ArgmatrixError.at(
            f"cannot create the lock file: {exc.strerror or exc}",
            file=str(path),
            fix="check that the folder can be written",
        ) from None


def _still_there(descriptor: int, path: Path) -> bool:
    try:
        return os.fstat(descriptor).st_ino == os.stat(path, follow_symlinks=False).st_ino
    except OSError:
        return False


def _record_holder(descriptor: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)


def _holder(descriptor: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        return f" (pid {int(os.pread(descriptor, 32, 0).decode().strip())})"
    return ""


# ------------------------------------------------------------------ repairing a killed run


def repair(state: Path, inside: Path, folders: Iterable[Path]) -> None:
    """Finish what a killed run left (call with the lock held): the moves of a journal, then
    any temporary file of a writer that no longer runs, in `folders` and the journal's. Says on
    stderr, in one line each, what it did."""
    journal = state / JOURNAL_NAME
    folders = set(folders)
    if os.path.lexists(journal):
        folders |= _complete(journal, state, inside)
    folders.add(state)
    removed = sum(_remove_abandoned(folder) for folder in sorted(folders))
    if removed:
        print(
            f"argmatrix: removed {removed} temporary file(s) left by an interrupted run",
            file=sys.stderr,
        )


def _complete(journal: Path, state: Path, inside: Path) -> set[Path]:
    moves = _journal_moves(journal, state, inside)
    if moves is None:
        return set()
    done = 0
    try:
        with _signals_held():
            for temporary, target in moves:
                if os.path.lexists(temporary):
                    os.replace(temporary, target)
                    done += 1
            journal.unlink()
    except OSError as exc:
        raise ArgmatrixError.at(
            f"cannot complete the write a killed run left: {exc.strerror or exc}",
            file=_shown(journal),
            fix="make the folders writable, or remove the journal and run 'argmatrix generate'",
        ) from None
    _sync_folder(state)
    print(
        printable(
            f"argmatrix: completed a write that was interrupted: moved the last"
            f" {done} of {len(moves)} file(s) into place ({_shown(journal)})"
        ),
        file=sys.stderr,
    )
    return {target.parent for _, target in moves}


def _journal_moves(journal: Path, state: Path, inside: Path) -> list[tuple[Path, Path]] | None:
    """The journal's moves, each checked: a journal is a file in the repository, so one from
    a pull request could try to move anything anywhere. Only a temporary file of argmatrix's
    naming, next to a target inside `inside`, is moved; a journal with anything else is
    removed and nothing of it done (None)."""
    bound = os.path.realpath(inside)
    try:
        data = json.loads(read_regular_file(journal, "journal", "remove it") or b"")
        moves = [
            (state / temp, state / target)
            for temp, target in data["moves"]
            if data["format"] == JOURNAL_FORMAT
            and isinstance(temp, str)
            and isinstance(target, str)
        ]
        valid = len(moves) == len(data["moves"]) and all(
            _is_move(temp, target, bound) for temp, target in moves
        )
    except (ArgmatrixError, ValueError, TypeError, KeyError):
        moves, valid = [], False
    if not valid:
        with contextlib.suppress(OSError):
            journal.unlink()
        print(
            printable(
                f"argmatrix: removed {_shown(journal)}: not a journal argmatrix wrote;"
                " nothing of it was done"
            ),
            file=sys.stderr,
        )
        return None
    return [
        (temp.parent.resolve() / temp.name, Path(os.path.realpath(target)))
        for temp, target in moves
    ]


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _is_move(temporary: Path, target: Path, bound: str) -> bool:
    real_target = os.path.realpath(target)
    match = _TEMPORARY.fullmatch(temporary.name)
    if match is None or match.group("name") != os.path.basename(real_target):
        return False
    if not within(real_target, bound) or real_target == bound:
        return False
    if os.path.realpath(temporary.parent) != os.path.dirname(real_target):
        return False
    try:
        return stat.S_ISREG(os.lstat(temporary).st_mode)
    except FileNotFoundError:
        return True  # moved before the kill
    except OSError:
        return False


def _remove_abandoned(folder: Path) -> int:
    """Remove the temporary files of writers that are no longer running."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or _running(int(match.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed += 1
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process writes only after repairing
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process: not ours to judge
    return True
