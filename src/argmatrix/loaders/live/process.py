"""A live read runs in a process of its own, which ends where the target would parse.

Live mode runs the project's code up to the moment its command line would be parsed, and no
further: the body of a command, its callbacks and the server it starts must never run. A stop
raised as an exception is not enough for that. The target's own bare `except:` or `except
BaseException` catches it, a `finally:` runs after it, and a parse in a thread ends that thread
only: the code after the parse would go on. So the read is done in a child process, and the stop
*ends that process* (`os._exit`) once what the read found has been handed to the parent: nothing
after the parse can run, whatever the code around it does, in whichever thread it parses.

The child is forked where that is safe (Linux, and only one thread in this process: argmatrix is
imported already, so a read costs a few milliseconds more), else started afresh from
`sys.executable` (another system, or a process with threads, such as a documentation server).
Either way the child's printing goes nowhere near the parent's output: it is kept and handed
over with the result (`Ended.printed`), and the parent shows it with --verbose.

What the child hands over is pickled data of argmatrix's model only; the parent unpickles it with
an unpickler that builds nothing else.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any, NoReturn

from argmatrix.errors import ArgmatrixError

# The function a child runs: `function(*args, end)`, which must call `end(value)` (an
# ArgmatrixError as `value`, or raised, is raised in the parent). `end` never returns: the child
# ends there.
End = Callable[[Any], NoReturn]
_HEADER = 8  # the length of the pickled message, before it
_POLL_SECONDS = 0.2  # how often the parent looks whether a silent child is still alive


@dataclass(frozen=True)
class Job:
    """What a child runs: `entry` (a function at the top level of its module: a child started
    afresh is handed it by name, in a pickle) called with `args` and the `end` of the child
    (picklable, for a child started afresh)."""

    entry: Callable[..., NoReturn]
    args: tuple[Any, ...]
    # argmatrix's own modules the child needs: imported here before a fork, so that each read
    # does not import them again in its child
    preload: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ended:
    """How a child ended: the value it ended with, and what it printed meanwhile."""

    value: Any
    printed: str


# ------------------------------------------------------------------ the parent


def run_apart(job: Job, show: Callable[[str], None] | None = None) -> Ended:
    """Run `job` in a child process and return what it ended with. An `ArgmatrixError` the
    child ended with is raised here; a child that ends without a result (killed, crashed in a
    compiled module) is one too. `show`: given what the child printed, when it printed
    anything (before an error is raised)."""
    read_end, write_end = os.pipe()
    try:
        if _can_fork():
            for name in job.preload:
                import_module(name)
            child: _Forked | _Spawned = _Forked(job, read_end, write_end)
        else:
            child = _Spawned(job, write_end)
        os.close(write_end)
        write_end = -1
        try:
            message = _receive(read_end, child)
        except BaseException:  # Ctrl-C while the registry loads: the child goes too
            child.kill()
            raise
        if message is None:
            child.kill()  # it closed the pipe and lives on: it ends here
        status = child.wait()
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    return _outcome(message, status, show)


def _can_fork() -> bool:
    """A fork copies this process as it is: safe on Linux while this is its only thread (a
    lock another thread holds would stay held in the child)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class _Forked:
    """A child forked from this process (argmatrix is imported already)."""

    def __init__(self, job: Job, read_end: int, write_end: int) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()  # what the parent has buffered is written once, by the parent
        self.status: int | None = None
        self.pid = os.fork()
        if self.pid == 0:  # the child: it never returns into the parent's code
            try:
                os.close(read_end)
                _child(job, write_end)
            finally:
                os._exit(70)

    def poll(self) -> int | None:
        return self._status(os.WNOHANG)

    def wait(self) -> int | None:
        return self._status(0)

    def _status(self, options: int) -> int | None:
        """The exit status once it has ended (a signal as its negative number)."""
        if self.status is not None:
            return self.status
        done, status = os.waitpid(self.pid, options)
        if done == 0:
            return None
        self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)


class _Spawned:
    """A child started afresh from `sys.executable`, given its job and `sys.path` on stdin."""

    def __init__(self, job: Job, write_end: int) -> None:
        package_parent = str(Path(__file__).resolve().parents[3])
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from argmatrix.loaders.live.process import started; started()"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, package_parent, str(write_end)],
            stdin=subprocess.PIPE,
            pass_fds=(write_end,),
        )
        assert self.process.stdin is not None
        with self.process.stdin:
            self.process.stdin.write(pickle.dumps((job, list(sys.path))))

    def poll(self) -> int | None:
        return self.process.poll()

    def wait(self) -> int | None:
        return self.process.wait()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()


def _receive(read_end: int, child: _Forked | _Spawned) -> bytes | None:
    """The child's message; None if it ended without one. The message is framed by its
    length, so it is taken as soon as it is whole: a process the registry's code started may
    hold the pipe open long after the child has gone."""
    data = b""
    while not _complete(data):
        ready, _, _ = select.select([read_end], [], [], _POLL_SECONDS)
        if ready:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            data += chunk
        elif child.poll() is not None:
            data += _drain(read_end)
            break
    return data[_HEADER:] if _complete(data) else None


def _complete(data: bytes) -> bool:
    return len(data) >= _HEADER and len(data) >= _HEADER + int.from_bytes(data[:_HEADER], "big")


def _drain(read_end: int) -> bytes:
    data = b""
    while select.select([read_end], [], [], 0)[0]:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def _outcome(
    message: bytes | None, status: int | None, show: Callable[[str], None] | None
) -> Ended:
    if message is None:
        raise ArgmatrixError.at(
            f"live reading ended without a result: {_how(status)}",
            fix="the registry's code (or a compiled module it loads) ended the process; run"
            " with --verbose to see what it printed, or use --static",
        )
    kind, value, printed = _ModelUnpickler(io.BytesIO(message)).load()
    if show is not None and printed:
        show(printed)
    if kind == "error":
        raise value
    if kind == "crash":  # a defect of argmatrix itself: its traceback, as in one process
        raise RuntimeError(f"live reading failed in its process:\n{value}")
    return Ended(value, printed)


def _how(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"its process was killed by {name}"
    return f"its process exited with status {status}"


# What a child hands over: argmatrix's model (loaders/live/importing.py `LiveOutcome` holds a
# `Registry`), errors, and Python's own containers. Nothing else is built.
_ALLOWED = {
    "builtins": {"set", "frozenset", "slice", "complex", "bytearray"},
    "argmatrix.errors": {"ArgmatrixError", "Problem"},
    "argmatrix.model.registry": {
        "Registry",
        "Argument",
        "Subcommand",
        "ExclusiveGroup",
        "Diagnostic",
        "Unevaluated",
        "Opaque",
        "FromEnvironment",
        "SourceLine",
    },
    "argmatrix.loaders.live.importing": {"LiveOutcome"},
}


class _ModelUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if name in _ALLOWED.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a live read may not hand over {module}.{name}")


# ------------------------------------------------------------------ the child


def started() -> None:
    """The child started afresh (`_spawn`): its job and the parent's `sys.path` on stdin."""
    write_end = int(sys.argv[2])
    job, path = pickle.loads(sys.stdin.buffer.read())
    sys.path[:] = path
    sys.argv = sys.argv[:1]
    try:
        _child(job, write_end)
    finally:
        os._exit(70)


def _child(job: Job, write_end: int) -> NoReturn:
    """Run the job with its printing kept; end the process with what it ends with."""
    printed = _Printed()
    printed.begin()
    ending = threading.Lock()

    def end(value: Any, kind: str = "value") -> NoReturn:
        ending.acquire()  # a second thread stopping at once waits here until the process ends
        if isinstance(value, ArgmatrixError):
            kind = "error"
        try:
            payload = pickle.dumps((kind, value, printed.text()), protocol=4)
        except Exception:  # a value that cannot be handed over: a defect
            payload = pickle.dumps(("crash", traceback.format_exc(), printed.text()), protocol=4)
        _write_all(write_end, len(payload).to_bytes(_HEADER, "big") + payload)
        os._exit(0)

    try:
        job.entry(*job.args, end)
    except ArgmatrixError as error:
        end(error, "error")
    except BaseException:  # the child hands every failure to the parent
        end(traceback.format_exc(), "crash")
    entry = f"{job.entry.__module__}:{job.entry.__qualname__}"
    end(ArgmatrixError.at(f"{entry} ended without a result"), "error")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class _Sink(io.TextIOBase):
    """`sys.stdout` and `sys.stderr` of the child: text kept in order. Text only, as a real
    text stream: Click probes a stream with `write(b"")` to find whether it takes bytes, and
    writes bytes to its `buffer`, which is here too."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.buffer = _BinarySink(self)

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.parts.append(text)
        return len(text)

    def writable(self) -> bool:
        return True


class _BinarySink(io.RawIOBase):
    """`sys.stdout.buffer` and `sys.stderr.buffer` of the sink: bytes kept as text."""

    def __init__(self, sink: _Sink) -> None:
        self.sink = sink

    def write(self, data: Any) -> int:
        data = bytes(data)
        self.sink.write(data.decode("utf-8", "replace"))
        return len(data)

    def writable(self) -> bool:
        return True


class _Printed:
    """What the child prints, through Python (`sys.stdout`, `sys.stderr`) and through the
    file descriptors (a compiled module prints there): kept, never written where the parent
    writes its output."""

    def __init__(self) -> None:
        self.sink = _Sink()
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 - kept until the process ends

    def begin(self) -> None:
        for fd in (1, 2):
            try:
                os.dup2(self.file.fileno(), fd)
            except OSError:
                continue
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)  # the registry's code reads no input of the parent's
        os.close(devnull)
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
        sys.stdout = sys.stderr = self.sink

    def text(self) -> str:
        self.file.seek(0)
        raw = self.file.read().decode("utf-8", "replace")
        return "".join(self.sink.parts) + raw
