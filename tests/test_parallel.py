"""Work in a forked process: same results and same errors as inline, whatever happens to the child.

The `argmatrix` command allows forking; tests call `main` in-process, so these allow it
explicitly and lower the size thresholds so the fixture project takes the forked paths.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix._runtime import parallel
from argmatrix._runtime.parallel import in_background
from argmatrix.errors import ArgmatrixError, Problem
from argmatrix.render import pages as render
from helpers import add_template_page, append_to, copy_project, run_cli_in_process


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Forking allowed; yields the list of children forked so far."""
    monkeypatch.delenv("ARGMATRIX_JOBS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    children: list[int] = []
    fork = parallel.Background._fork

    def counted(self: parallel.Background[object]) -> None:
        fork(self)
        children.append(1)

    monkeypatch.setattr(parallel.Background, "_fork", counted)
    parallel.allow()
    try:
        yield children
    finally:
        parallel.allow(False)


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "PARALLEL_ROWS", 0)


def test_the_work_runs_in_another_process(forking: list[int]) -> None:
    assert in_background(os.getpid).result() != os.getpid()


def test_without_permission_or_with_one_job_it_runs_inline(
    monkeypatch: pytest.MonkeyPatch, forking: list[int]
) -> None:
    monkeypatch.setenv("ARGMATRIX_JOBS", "1")
    assert in_background(os.getpid).result() == os.getpid()
    monkeypatch.delenv("ARGMATRIX_JOBS")
    parallel.allow(False)
    assert in_background(os.getpid).result() == os.getpid()


def test_once_a_thread_runs_it_stays_inline(forking: list[int]) -> None:
    """A live registry's import may start threads; forking then could deadlock the child."""
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert in_background(os.getpid).result() == os.getpid()
    finally:
        release.set()
        thread.join()
    assert in_background(os.getpid).result() != os.getpid()


def test_an_error_in_the_child_is_raised_whole(forking: list[int]) -> None:
    def fail() -> None:
        raise ArgmatrixError(Problem("bad entry", "m.yaml", 3, "fix it"), Problem("another"))

    with pytest.raises(ArgmatrixError) as caught:
        in_background(fail).result()
    assert caught.value.problems == [
        Problem("bad entry", "m.yaml", 3, "fix it"),
        Problem("another"),
    ]


def test_a_result_that_cannot_travel_is_computed_again_here(forking: list[int]) -> None:
    parent = os.getpid()
    pid, function = in_background(lambda: (os.getpid(), lambda: None)).result()
    assert pid == parent and callable(function)


def test_a_child_that_dies_is_replaced_by_inline_work(forking: list[int]) -> None:
    parent = os.getpid()

    def work() -> str:
        if os.getpid() != parent:
            os._exit(3)
        return "done here"

    assert in_background(work).result() == "done here"


def test_when_fork_fails_the_work_runs_here(
    monkeypatch: pytest.MonkeyPatch, forking: list[int]
) -> None:
    def refuse() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    assert in_background(os.getpid).result() == os.getpid()


def test_a_cancelled_child_unwinds_and_is_reaped(tmp_path: Path, forking: list[int]) -> None:
    """cancel() stops the child with SIGTERM: its `finally` blocks run (a cache write removes
    its temporary file) and no zombie is left."""
    started, cleaned = tmp_path / "started", tmp_path / "cleaned"

    def work() -> None:
        try:
            started.write_text("")
            time.sleep(60)
        finally:
            cleaned.write_text("")

    job = in_background(work)
    pid = job._pid
    assert pid is not None
    deadline = time.monotonic() + 20
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    job.cancel()
    assert cleaned.exists()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _pages(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def test_forked_generate_writes_the_same_bytes(
    tmp_path: Path, forking: list[int], small_thresholds: None
) -> None:
    forked = copy_project(tmp_path / "forked")
    inline = copy_project(tmp_path / "inline")
    assert run_cli_in_process("generate", cwd=forked).code == 0
    assert len(forking) == 2  # the registry, and half of the pages
    parallel.allow(False)
    assert run_cli_in_process("generate", cwd=inline).code == 0
    assert _pages(forked / "docs") == _pages(inline / "docs")
    parallel.allow()
    assert run_cli_in_process("check", cwd=forked).code == 0


def _errors(root: Path) -> tuple[int, str]:
    result = run_cli_in_process("generate", cwd=root)
    return result.code, result.err


@pytest.mark.parametrize(
    "broken", ["registry", "manifest", "both", "late page", "registry and a template"]
)
def test_forked_runs_report_the_same_errors(
    tmp_path: Path, forking: list[int], small_thresholds: None, broken: str
) -> None:
    roots = []
    for name in ("forked", "inline"):
        root = copy_project(tmp_path / name)
        if broken in ("registry", "both"):
            append_to(root / "tinyserver.py", "def broken(:\n")
        if broken in ("manifest", "both"):
            manifest = root / "capabilities" / "npu.yaml"
            append_to(manifest, "  --port: works\n")
        if broken == "registry and a template":  # the registry's error comes first
            append_to(root / "tinyserver.py", "def broken(:\n")
            (root / "templates" / "latin1.md.j2").write_bytes(b"caf\xe9\n")
            config = root / "argmatrix.yaml"
            append_to(config, "  - {template: latin1.md.j2, output: latin1.md}\n")
        if broken == "late page":  # rendered by the child: the second half of the pages
            add_template_page(root, "late.md.j2", "{{ nothing.here }}\n", "late.md")
        roots.append(root)
    forked = _errors(roots[0])
    assert forking
    parallel.allow(False)
    inline = _errors(roots[1])
    assert forked[0] == inline[0] == 2
    assert forked[1].replace(str(roots[0]), "") == inline[1].replace(str(roots[1]), "")
    assert len(forked[1].splitlines()) == 1
    expected = {
        "registry": "syntax error",
        "manifest": "unknown status 'works'",
        "both": "unknown status 'works'",
        "late page": "late.md.j2",
        "registry and a template": "syntax error",
    }[broken]
    assert expected in forked[1]


def test_a_forked_read_passes_the_files_it_used_back(tmp_path: Path, forking: list[int]) -> None:
    """The registry read in a child comes back with its files, as data: the parent's pages
    depend on the same files as when it reads the registry itself."""
    from argmatrix.project import load_project

    root = copy_project(tmp_path)
    forked = load_project(cwd=root)
    assert len(forking) == 1
    assert forked.registry_files is not None
    assert str(root / "tinyserver.py") in forked.registry_files
    parallel.allow(False)
    inline = load_project(cwd=root)
    assert inline.registry_files is not None
    assert set(inline.registry_files) == set(forked.registry_files)
    assert forked.inputs() == inline.inputs()
