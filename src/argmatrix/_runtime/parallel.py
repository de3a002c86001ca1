"""Work done in a forked process while this one goes on: the second core of a CI machine.

Only the `argmatrix` command opts in (`allow()`): it is single-threaded when it forks, so the
child inherits a consistent copy of everything already read, and nothing has to be pickled on
the way in. A host such as `mkdocs serve` runs threads, where forking is unsafe, so there (and
where `os.fork` does not exist, or ARGMATRIX_JOBS=1) the work runs inline, in the same order as
it would without this module. The result, or the exception, comes back pickled through a pipe;
should the child die or its result not pickle, the work is done again inline, so the outcome
never depends on whether it ran in parallel.

The child never outlives the parent: Ctrl-C or SIGTERM in the parent stops the child (SIGTERM,
then SIGKILL if it has not ended within a second) and reaps it; and should the parent die
without a word (kill -9), the kernel kills the child too (Linux; elsewhere the child notices
that its parent is gone within a tenth of a second).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_allowed = False


def allow(allowed: bool = True) -> None:
    """Let `in_background` fork: call only from a process that has started no threads."""
    global _allowed
    _allowed = allowed


def can_fork() -> bool:
    """Allowed, possible, useful, and still safe: a live registry's import may have started
    threads since `allow()`."""
    return (
        _allowed
        and hasattr(os, "fork")
        and os.environ.get("ARGMATRIX_JOBS") != "1"
        and (os.cpu_count() or 1) > 1
        and threading.active_count() == 1
    )


class Background(Generic[T]):
    """Work started earlier; `result()` returns its value or raises its exception."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._value: T | None = None
        self._error: BaseException | None = None
        self._pid: int | None = None
        self._pipe: int | None = None
        if can_fork():
            self._fork()
        else:
            self._run_inline()

    def _run_inline(self) -> None:
        try:
            self._value = self._work()
        except Exception as error:  # kept for result(), as a forked child would
            self._error = error

    def _fork(self) -> None:
        try:
            read, write = os.pipe()
        except OSError:  # out of file descriptors: do the work here
            self._run_inline()
            return
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:  # out of processes or memory: do the work here
            os.close(read)
            os.close(write)
            self._run_inline()
            return
        if pid == 0:  # the child: compute, send, leave without running any cleanup of the parent
            os.close(read)
            _die_with_parent(parent)
            _child(self._work, write)
        os.close(write)
        self._pid, self._pipe = pid, read
        _children_started()

    def result(self) -> T:
        if self._pid is not None:
            self._collect()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    def cancel(self) -> None:
        """Stop a child whose result is no longer wanted (the other half failed, or this
        process was interrupted). SIGTERM, so it unwinds and removes any cache file it was
        writing; SIGKILL if it is still there a second later (stuck in a long C call)."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGTERM)
            self._reap(grace=STOP_GRACE_SECONDS)

    def _collect(self) -> None:
        pipe, self._pipe = self._pipe, None
        assert pipe is not None
        try:
            with os.fdopen(pipe, "rb") as stream:
                data = stream.read()
        except BaseException:  # Ctrl-C or SIGTERM while waiting: the child goes too
            self.cancel()
            raise
        status = self._reap()
        try:
            ok, payload = pickle.loads(data) if status == 0 and data else (None, None)
        except Exception:
            ok, payload = None, None
        if ok is None:
            self._run_inline()
        elif ok:
            self._value = payload
        else:
            self._error = payload

    def _reap(self, grace: float | None = None) -> int:
        """Wait for the child; with `grace`, for that long at most, then kill it."""
        pid, self._pid = self._pid, None
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                os.close(pipe)
        if pid is None:
            return -1
        try:
            if grace is not None:
                status = _wait_at_most(pid, grace)
                if status is not None:
                    return status
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return _wait(pid)
        finally:
            _children_ended()


STOP_GRACE_SECONDS = 1.0


def _wait(pid: int) -> int:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except InterruptedError:
            continue
        except ChildProcessError:
            return -1


def _wait_at_most(pid: int, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return -1
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


# ------------------------------------------------------------------ signals, parent side

_outstanding = 0
_previous_handler: object = None


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM while a child runs: unwind (the `except` around the child cancels it)."""
    raise SystemExit(128 + signum)


def _children_started() -> None:
    """SIGTERM's default would end this process on the spot and orphan the child; while a
    child runs it raises instead (unless someone else installed a handler)."""
    global _outstanding, _previous_handler
    _outstanding += 1
    if _outstanding == 1 and threading.current_thread() is threading.main_thread():
        _previous_handler = signal.getsignal(signal.SIGTERM)
        if _previous_handler is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminated)


def _children_ended() -> None:
    global _outstanding
    _outstanding = max(0, _outstanding - 1)
    if (
        _outstanding == 0
        and _previous_handler is signal.SIG_DFL
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is _terminated
    ):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# ------------------------------------------------------------------ the child


def _die_with_parent(parent: int) -> None:
    """Make sure the child ends when the parent does, however the parent ends."""
    if sys.platform.startswith("linux") and _kill_on_parent_death():
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)
        return
    watcher = threading.Thread(target=_watch_parent, args=(parent,), daemon=True)
    watcher.start()


def _kill_on_parent_death() -> bool:
    """prctl(PR_SET_PDEATHSIG, SIGKILL): the kernel kills this process when its parent dies."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.1)
    os._exit(1)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(1)


def _child(work: Callable[[], object], write: int) -> None:
    code = 0
    try:
        signal.signal(signal.SIGTERM, _stop)  # cancel(): unwind, so `finally` blocks run
        try:
            outcome: tuple[bool | None, object] = (True, work())
        except Exception as error:
            outcome = (False, error)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            data = pickle.dumps((None, None))  # the parent does the work itself
        with os.fdopen(write, "wb") as stream:
            stream.write(data)
    except BaseException:
        code = 1
    finally:
        os._exit(code)  # no atexit handlers, no flushing of buffers the parent also holds


def in_background(work: Callable[[], T]) -> Background[T]:
    return Background(work)
