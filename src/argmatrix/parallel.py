"""Work done in a forked process while this one goes on: the second core of a CI machine.

Only the `argmatrix` command opts in (`allow()`): it is single-threaded when it forks, so the
child inherits a consistent copy of everything already read, and nothing has to be pickled on
the way in. A host such as `mkdocs serve` runs threads, where forking is unsafe, so there (and
where `os.fork` does not exist, or ARGMATRIX_JOBS=1) the work runs inline, in the same order as
it would without this module. The result, or the exception, comes back pickled through a pipe;
should the child die or its result not pickle, the work is done again inline, so the outcome
never depends on whether it ran in parallel.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
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
    return (_allowed and hasattr(os, "fork") and os.environ.get("ARGMATRIX_JOBS") != "1"
            and (os.cpu_count() or 1) > 1 and threading.active_count() == 1)


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
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without running any cleanup of the parent
            os.close(read)
            _child(self._work, write)
        os.close(write)
        self._pid, self._pipe = pid, read

    def result(self) -> T:
        if self._pid is not None:
            self._collect()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    def cancel(self) -> None:
        """Stop a child whose result is no longer wanted (the other half failed)."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap()

    def _collect(self) -> None:
        assert self._pipe is not None
        with os.fdopen(self._pipe, "rb") as stream:
            data = stream.read()
        self._pipe = None
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

    def _reap(self) -> int:
        assert self._pid is not None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        return status


def _child(work: Callable[[], object], write: int) -> None:
    code = 0
    try:
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
