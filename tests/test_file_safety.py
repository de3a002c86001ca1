"""Files a pull request controls: where pages go, what `check` reads, and writing all or none.

A page output is resolved (symbolic links included) and must stay inside docs_dir, inside the
project; it is never an input; no two outputs are one file. `check` never reads through a link
out of the project, never waits on a FIFO or a device. Writing is all or none under Ctrl-C,
SIGTERM, kill -9 at any step, and two runs at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix._runtime import writer
from helpers import (
    HANG_SECONDS,
    Run,
    append_to,
    copy_project,
    files_under,
    line_of,
    one_error_line,
    replace_in,
    run_cli_in_process,
    run_cli_in_subprocess,
    signals_as_a_shell_starts_them,
)

# A hostile-input suite: slow by design, left out of make test-fast.
pytestmark = pytest.mark.hostile

CONFIG = "argmatrix.yaml"
PAGES = ("reference/server_arguments.md", "reference/npu.md", "reference/npu_variants.md")
SECRET = "CANARY-7f3a-do-not-print"


# ------------------------------------------------------------------ helpers


def _set_docs_dir(root: Path, value: str) -> None:
    config = root / CONFIG
    config.write_text(config.read_text().replace("docs_dir: docs", f"docs_dir: {value}"))


def _outside(tmp_path: Path) -> Path:
    """A folder next to the project, with a secret in it."""
    folder = tmp_path / "outside"
    folder.mkdir(exist_ok=True)
    (folder / "secret.txt").write_text(f"TOKEN={SECRET}\n--{SECRET.lower()}\n")
    return folder


# ------------------------------------------------------------------ outputs


@pytest.mark.parametrize(
    ("output", "mode_line", "says"),
    [
        ("argmatrix.yaml", None, "(the configuration argmatrix.yaml)"),
        ("capabilities/npu.yaml", None, "(the manifest capabilities/npu.yaml)"),
        ("tinyserver.py", None, "(the registry source tinyserver.py)"),
        ("tinyserver.py", "  mode: live\n", "(the registry source tinyserver.py)"),
        ("templates/guide_reference.md.j2", None, "templates folder templates/"),
    ],
    ids=["configuration", "manifest", "static registry", "live registry", "template"],
)
def test_an_output_that_is_an_input_is_a_located_error(
    tmp_path: Path, output: str, mode_line: str | None, says: str
) -> None:
    root = copy_project(tmp_path)
    _set_docs_dir(root, ".")
    config = root / CONFIG
    text = config.read_text().replace("output: reference/", "output: docs/reference/")
    if mode_line:
        text = text.replace("  mode: static\n", mode_line)
    config.write_text(text + f"  - {{template: server_arguments.md.j2, output: {output}}}\n")
    before = files_under(root)
    for command in (["generate"], ["check"], ["check", "--fix"]):
        # A live registry is imported: in a process of its own, as `argmatrix` runs it (this
        # process may hold another test's module of the same name).
        result = _run(root, *command) if mode_line else run_cli_in_process(*command, cwd=root)
        line = one_error_line(result, f"page output '{output}' is also an input")
        assert says in line
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'output: ' + output)}:" in line
        assert files_under(root) == before


def test_a_snapshot_is_an_input(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    assert run_cli_in_process("snapshot", "-o", "docs/snap.json", cwd=root).code == 0
    config = root / CONFIG
    config.write_text(
        config.read_text().replace(
            "  target: tinyserver:ServerArgs.add_cli_args\n  mode: static\n",
            "  target: docs/snap.json\n",
        )
        + "  - {template: server_arguments.md.j2, output: snap.json}\n"
    )
    before = files_under(root)
    line = one_error_line(
        run_cli_in_process("generate", cwd=root), "page output 'snap.json' is also an input"
    )
    assert "(the snapshot docs/snap.json)" in line
    assert files_under(root) == before


def test_two_spellings_of_one_output_are_two_pages_writing_one_file(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    append_to(root / CONFIG, "  - {template: server_arguments.md.j2, output: reference/./npu.md}\n")
    for command in ("generate", "check"):
        line = one_error_line(
            run_cli_in_process(command, cwd=root), "two pages write 'reference/./npu.md'"
        )
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'reference/./npu.md')}:" in line


def test_two_outputs_that_a_symbolic_link_makes_one_file_are_a_located_error(
    tmp_path: Path,
) -> None:
    root = copy_project(tmp_path)
    (root / "docs" / "reference").mkdir(exist_ok=True)
    (root / "docs" / "alias").symlink_to("reference", target_is_directory=True)
    append_to(root / CONFIG, "  - {template: server_arguments.md.j2, output: alias/npu.md}\n")
    for command in ("generate", "check"):
        line = one_error_line(run_cli_in_process(command, cwd=root), "are one file")
        assert "'reference/npu.md' and 'alias/npu.md'" in line
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'alias/npu.md')}:" in line
    assert not (root / "docs" / "reference" / "npu.md").exists()


def test_a_symbolic_link_inside_docs_dir_is_followed(tmp_path: Path) -> None:
    """A link that stays inside docs_dir is an ordinary folder: the page goes where it leads."""
    root = copy_project(tmp_path)
    (root / "docs" / "real").mkdir()
    (root / "docs" / "reference").symlink_to("real", target_is_directory=True)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result
    assert sorted(p.name for p in (root / "docs" / "real").iterdir()) == sorted(
        Path(p).name for p in PAGES
    )
    assert run_cli_in_process("check", cwd=root).code == 0


@pytest.mark.parametrize("command", [["generate"], ["check"], ["check", "--fix"]])
def test_a_folder_linked_out_of_docs_dir_is_never_written_through(
    tmp_path: Path, command: list[str]
) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    (root / "docs" / "reference").symlink_to(outside, target_is_directory=True)
    before = files_under(outside)
    result = run_cli_in_process(*command, cwd=root)
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == len(PAGES)  # every page, one line each
    for page, line in zip(PAGES, lines, strict=True):
        assert "outside docs_dir (a symbolic link leads there)" in line
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'output: ' + page)}:" in line
    assert files_under(outside) == before


@pytest.mark.parametrize("command", [["generate"], ["check"], ["check", "--fix"]])
def test_a_page_linked_out_of_the_project_is_neither_read_nor_written(
    tmp_path: Path, command: list[str]
) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    (root / "docs" / "reference").mkdir()
    (root / "docs" / "reference" / "npu.md").symlink_to(outside / "secret.txt")
    before = files_under(outside)
    result = run_cli_in_process(*command, cwd=root)
    line = one_error_line(result, "page output 'reference/npu.md' resolves to")
    assert f"argmatrix.yaml:{line_of(root / CONFIG, 'output: reference/npu.md')}:" in line
    assert SECRET not in result.out + result.err
    assert SECRET.lower() not in result.out + result.err
    assert files_under(outside) == before
    assert not (root / "docs" / "reference" / "server_arguments.md").exists()  # none written


def test_a_page_linked_to_the_environment_is_not_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = Path("/proc/self/environ")
    assert environ.exists()  # the CI's Linux: the very file the issue names
    monkeypatch.setenv("ARGMATRIX_TEST_CANARY", SECRET)
    root = copy_project(tmp_path)
    (root / "docs" / "reference").mkdir()
    (root / "docs" / "reference" / "npu.md").symlink_to(environ)
    for form in ("text", "json", "github"):
        result = run_cli_in_process("check", "--format", form, cwd=root)
        one_error_line(result, "outside docs_dir")
        assert SECRET not in result.out + result.err


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("/srv/www/docs", "'docs_dir' '/srv/www/docs' is outside the project"),
        ("../site", "'docs_dir' '../site' is outside the project"),
    ],
)
def test_docs_dir_outside_the_project_is_a_located_error(
    tmp_path: Path, value: str, says: str
) -> None:
    root = copy_project(tmp_path)
    _set_docs_dir(root, value)
    for command in ("generate", "check"):
        line = one_error_line(run_cli_in_process(command, cwd=root), says)
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'docs_dir:')}:" in line
    assert not (tmp_path / "site").exists()


def test_docs_dir_linked_out_of_the_project_is_a_located_error(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    (root / "web").symlink_to(outside, target_is_directory=True)
    _set_docs_dir(root, "web")
    before = files_under(outside)
    for command in ("generate", "check"):
        line = one_error_line(
            run_cli_in_process(command, cwd=root), "leads outside the project through a"
        )
        assert f"argmatrix.yaml:{line_of(root / CONFIG, 'docs_dir:')}:" in line
    assert files_under(outside) == before


@pytest.mark.parametrize("key", ["templates_dir", "manifests", "snapshot"])
def test_files_the_configuration_reads_stay_inside_the_project(tmp_path: Path, key: str) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    (outside / "npu.yaml").write_text(f"platform: npu\ntitle: {SECRET}\n")
    config = root / CONFIG
    if key == "templates_dir":
        append_to(config, f"templates_dir: {outside}\n")
        says, at = f"'templates_dir' '{outside}' is outside the project", "templates_dir:"
    elif key == "manifests":
        (root / "capabilities" / "npu.yaml").unlink()
        (root / "capabilities" / "npu.yaml").symlink_to(outside / "npu.yaml")
        says, at = "manifests: 'capabilities/npu.yaml' is outside the project", "manifests:"
    else:
        assert run_cli_in_process("snapshot", "-o", str(outside / "snap.json"), cwd=root).code == 0
        replace_in(config, "tinyserver:ServerArgs.add_cli_args", "../outside/snap.json")
        replace_in(config, "  mode: static\n", "")
        says, at = "registry: snapshot '../outside/snap.json' is outside the project", "target:"
    result = run_cli_in_process("check", cwd=root)
    line = one_error_line(result, says)
    assert f"argmatrix.yaml:{line_of(root / CONFIG, at)}:" in line
    assert SECRET not in result.out + result.err


def test_a_control_character_in_the_registry_target_is_a_located_error(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    replace_in(root / CONFIG, "target: tinyserver:", 'target: "tiny\\0server:')
    replace_in(root / CONFIG, "add_cli_args\n", 'add_cli_args"\n')
    line = one_error_line(
        run_cli_in_process("check", cwd=root), "contains a NUL or control character"
    )
    assert f"argmatrix.yaml:{line_of(root / CONFIG, 'target:')}:" in line


@pytest.mark.parametrize("bad", ["a\\0b.md", "a\\nb.md", "a\\e[31mb.md"])
def test_a_control_character_in_an_output_is_a_located_error(tmp_path: Path, bad: str) -> None:
    root = copy_project(tmp_path)
    append_to(root / CONFIG, f'  - {{template: server_arguments.md.j2, output: "{bad}"}}\n')
    for command in ("generate", "check"):
        line = one_error_line(
            run_cli_in_process(command, cwd=root), "contains a NUL or control character"
        )
        assert f"argmatrix.yaml:{line_of(root / CONFIG, bad)}:" in line
        assert "\x1b" not in line and "\x00" not in line


# ------------------------------------------------------------------ what check reads


def test_prose_linked_out_of_the_project_is_refused_unread(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    (root / "docs" / "guide" / "leak.md").symlink_to(outside / "secret.txt")
    assert run_cli_in_process("generate", cwd=root).code == 0
    for form in ("text", "json", "github"):
        result = run_cli_in_process("check", "--format", form, cwd=root)
        line = one_error_line(result, "a symbolic link to")
        assert "leak.md" in line
        assert SECRET.lower() not in result.out + result.err


def test_prose_linked_inside_the_project_is_read(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    (root / "NOTES.md").write_text("Use --no-such-flag here.\n")
    (root / "docs" / "guide" / "notes.md").symlink_to(root / "NOTES.md")
    assert run_cli_in_process("generate", cwd=root).code == 0
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1
    assert "--no-such-flag is not an argument" in result.out


def _run(root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60) -> Run:
    """`argmatrix ARGS` in a process of its own, with this project's own cache (and `env`)."""
    return run_cli_in_subprocess(*args, cwd=root, env=_environment(root, env), timeout=timeout)


def _environment(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARGMATRIX_")}
    env["ARGMATRIX_CACHE_DIR"] = str(root.parent / "cache")
    env.update(extra or {})
    return env


@pytest.mark.parametrize("where", ["page", "prose"])
def test_a_fifo_among_the_pages_is_refused_without_waiting(tmp_path: Path, where: str) -> None:
    root = copy_project(tmp_path)
    assert run_cli_in_process("generate", cwd=root).code == 0
    fifo = root / "docs" / ("reference/npu.md" if where == "page" else "guide/pipe.md")
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    result = _run(root, "check", timeout=HANG_SECONDS)
    assert result.code == 2, result
    assert result.err.count("\n") == 1
    assert "it is a FIFO, not a regular file" in result.err


def test_a_manifest_that_never_ends_is_a_located_error(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    result = _run(root, "check", "--manifest", "/dev/zero", timeout=HANG_SECONDS)
    assert result.code == 2, result
    assert result.err == (
        "argmatrix: error: /dev/zero: cannot read file: it is a device, not a regular file"
        " (fix: point at a regular file)\n"
    )


def test_a_manifest_that_is_a_fifo_is_a_located_error(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    manifest = root / "capabilities" / "npu.yaml"
    manifest.unlink()
    os.mkfifo(manifest)
    result = _run(root, "generate", timeout=HANG_SECONDS)
    assert result.code == 2, result
    assert "npu.yaml: cannot read file: it is a FIFO" in result.err
    assert result.err.count("\n") == 1


def test_a_manifest_larger_than_the_cap_is_a_located_error(tmp_path: Path) -> None:
    from argmatrix._runtime.files import MAX_INPUT_BYTES

    root = copy_project(tmp_path)
    manifest = root / "capabilities" / "npu.yaml"
    with manifest.open("a") as stream:
        stream.write("#" * (MAX_INPUT_BYTES - manifest.stat().st_size + 1))
    line = one_error_line(run_cli_in_process("check", cwd=root), "file is larger than 16 MiB")
    assert "npu.yaml" in line


# ------------------------------------------------------------------ writing: all or none


def _new_inputs(root: Path) -> None:
    """Change the registry and the manifest so that every page changes."""
    registry = root / "tinyserver.py"
    registry.write_text(registry.read_text().replace('help="HTTP port."', 'help="Port to serve."'))
    replace_in(root / "capabilities" / "npu.yaml", "title: Example NPU", "title: Newer NPU")


def _pages(root: Path) -> tuple[bytes, ...]:
    return tuple((root / "docs" / page).read_bytes() for page in PAGES)


def _leftovers(root: Path) -> list[str]:
    """Temporary files, journals or locks of ours anywhere in the project."""
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*") if ".argmatrix" in p.name)


@pytest.fixture
def old_and_new(tmp_path: Path) -> Iterator[tuple[Path, tuple[bytes, ...], tuple[bytes, ...]]]:
    """A project whose pages are generated from the old inputs, its inputs now new; with the
    pages of both."""
    scratch = copy_project(tmp_path / "scratch")
    _new_inputs(scratch)
    assert _run(scratch, "generate").code == 0
    new = _pages(scratch)
    root = copy_project(tmp_path)
    assert _run(root, "generate").code == 0
    old = _pages(root)
    assert all(a != b for a, b in zip(old, new, strict=True))  # every page changes
    _new_inputs(root)
    yield root, old, new


@pytest.mark.parametrize("step", writer.steps(len(PAGES)))
def test_kill_9_at_any_step_leaves_pages_all_old_or_all_new(
    old_and_new: tuple[Path, tuple[bytes, ...], tuple[bytes, ...]], step: str
) -> None:
    root, old, new = old_and_new
    killed = _run(root, "generate", env={"ARGMATRIX_TEST_KILL_AT": step})
    assert killed.code == -signal.SIGKILL, killed
    # The next run repairs first: `check` finishes or discards what the killed run left...
    checked = _run(root, "check")
    assert _pages(root) in (old, new), step
    assert checked.code == (0 if _pages(root) == new else 1), checked
    assert _leftovers(root) == []
    assert "Traceback" not in checked.err
    # ...and `generate` then succeeds as usual.
    again = _run(root, "generate")
    assert again.code == 0, again
    assert _pages(root) == new
    assert _leftovers(root) == []


def test_the_repair_says_what_it_did(
    old_and_new: tuple[Path, tuple[bytes, ...], tuple[bytes, ...]],
) -> None:
    root, old, new = old_and_new
    _run(root, "generate", env={"ARGMATRIX_TEST_KILL_AT": "moved:0"})
    repaired = _run(root, "generate")
    assert repaired.code == 0
    assert (
        "argmatrix: completed a write that was interrupted: moved the last 2 of 3 file(s) into"
        " place (.argmatrix.journal)\n" in repaired.err
    )
    for page, text in zip(PAGES, old, strict=True):  # stale again: generate writes them all
        (root / "docs" / page).write_bytes(text)
    _run(root, "generate", env={"ARGMATRIX_TEST_KILL_AT": "staged:1"})
    cleaned = _run(root, "generate")
    assert "argmatrix: removed 2 temporary file(s) left by an interrupted run\n" in cleaned.err
    assert _pages(root) == new and _leftovers(root) == []


@pytest.mark.parametrize(
    ("step", "signal_name", "code"),
    [
        ("staged:1", "SIGINT", 130),
        ("moved:0", "SIGINT", 130),
        ("staged:2", "SIGTERM", 128 + signal.SIGTERM),
        ("journal:0", "SIGTERM", 128 + signal.SIGTERM),
    ],
)
def test_ctrl_c_or_sigterm_while_writing_leaves_no_half_and_no_temporary_file(
    old_and_new: tuple[Path, tuple[bytes, ...], tuple[bytes, ...]],
    step: str,
    signal_name: str,
    code: int,
) -> None:
    root, old, new = old_and_new
    result = _run(root, "generate", env={"ARGMATRIX_TEST_KILL_AT": f"{step}:{signal_name}"})
    assert result.code == code, result
    assert "Traceback" not in result.err
    # Before the journal, an interruption undoes; once moving, the moves finish first.
    assert _pages(root) == (old if step.startswith("staged") else new)
    assert _leftovers(root) == []


def test_sigterm_from_outside_while_writing_removes_the_temporary_files(
    old_and_new: tuple[Path, tuple[bytes, ...], tuple[bytes, ...]],
) -> None:
    root, old, _ = old_and_new
    process = subprocess.Popen(
        [sys.executable, "-m", "argmatrix", "generate"],
        preexec_fn=signals_as_a_shell_starts_them,
        cwd=root,
        env=_environment(root, {"ARGMATRIX_TEST_STEP_DELAY": "0.5"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + HANG_SECONDS
    while not list((root / "docs" / "reference").glob(".*.tmp")):  # staging has begun
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=HANG_SECONDS)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert _pages(root) == old
    assert _leftovers(root) == []


def test_two_runs_at_once_end_with_the_pages_of_one_of_them(tmp_path: Path) -> None:
    """Two configurations of one project write the same pages from different inputs. Each
    run pauses at every step, so without the lock their moves would interleave."""
    root = copy_project(tmp_path)
    other = root / "other.yaml"
    other.write_text(
        (root / CONFIG)
        .read_text()
        .replace("tinyserver:", "tinyserver_b:")
        .replace("capabilities/npu.yaml", "capabilities/npu_b.yaml")
    )
    (root / "tinyserver_b.py").write_text((root / "tinyserver.py").read_text())
    (root / "capabilities" / "npu_b.yaml").write_text((root / "capabilities/npu.yaml").read_text())
    _new_inputs_of(root, "tinyserver_b.py", "capabilities/npu_b.yaml")
    results = {}
    for name, args in (("a", ["generate"]), ("b", ["generate", "--config", "other.yaml"])):
        assert _run(root, *args).code == 0
        results[name] = _pages(root)
    assert all(a != b for a, b in zip(results["a"], results["b"], strict=True))
    env = {"ARGMATRIX_TEST_STEP_DELAY": "0.15"}
    for _ in range(3):
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "argmatrix", *args],
                preexec_fn=signals_as_a_shell_starts_them,
                cwd=root,
                env=_environment(root, env),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for args in (["generate"], ["generate", "--config", "other.yaml"])
        ]
        for run in runs:
            _, err = run.communicate(timeout=60)
            assert run.returncode == 0, err
            assert "Traceback" not in err
        assert _pages(root) in (results["a"], results["b"])
        assert _leftovers(root) == []


def _new_inputs_of(root: Path, registry: str, manifest: str) -> None:
    replace_in(root / registry, 'help="HTTP port."', 'help="Port to serve."')
    replace_in(root / manifest, "title: Example NPU", "title: Newer NPU")


def test_a_run_that_cannot_get_the_lock_in_time_says_so_in_one_line(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    lock = root / writer.LOCK_NAME
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.write(descriptor, b"4242\n")
        result = _run(root, "generate", env={"ARGMATRIX_LOCK_TIMEOUT": "0.3"})
    finally:
        os.close(descriptor)
    assert result.code == 2
    assert result.err == (
        "argmatrix: error: .argmatrix.lock: another argmatrix run (pid 4242) is writing these pages and"
        " did not finish within 0.3 s (fix: wait for it to finish, or stop it; the lock goes"
        " with the process)\n"
    )
    assert not (root / "docs" / "reference").exists()


def test_a_lock_file_left_behind_blocks_no_one(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    (root / writer.LOCK_NAME).write_text("99999999\n")  # its process is long gone
    result = _run(root, "generate", env={"ARGMATRIX_LOCK_TIMEOUT": "0"})
    assert result.code == 0, result
    assert _leftovers(root) == []


def test_temporary_files_of_a_running_writer_are_left_alone(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    folder = root / "docs" / "reference"
    folder.mkdir()
    dead = folder / ".npu.md.argmatrix-99999999-abcd1234.tmp"
    alive = folder / f".npu.md.argmatrix-{os.getpid()}-abcd1234.tmp"  # this test runs
    dead.write_text("half\n")
    alive.write_text("half\n")
    result = _run(root, "generate")
    assert result.code == 0
    assert "removed 1 temporary file(s)" in result.err
    assert not dead.exists() and alive.exists()


@pytest.mark.parametrize(
    "moves",
    [
        [["docs/reference/.npu.md.argmatrix-99999999-abc.tmp", "../outside/secret.txt"]],
        [["../outside/secret.txt", "docs/reference/npu.md"]],
        [["docs/reference/.x.md.argmatrix-99999999-abc.tmp", "docs/reference/npu.md"]],
        [["docs/reference/.npu.md.argmatrix-99999999-abc.tmp", "docs/reference/npu.md"], "junk"],
        "not a list",
    ],
    ids=["target outside", "source outside", "name of another page", "junk entry", "junk"],
)
def test_a_journal_from_a_pull_request_moves_nothing(tmp_path: Path, moves: object) -> None:
    root = copy_project(tmp_path)
    outside = _outside(tmp_path)
    assert _run(root, "generate").code == 0
    planted = root / "docs" / "reference" / ".npu.md.argmatrix-99999999-abc.tmp"
    planted.write_text(f"{SECRET}\n")
    (root / ".argmatrix.journal").write_text(
        json.dumps({"format": "argmatrix-journal", "version": 1, "moves": moves})
    )
    before_outside, pages = files_under(outside), _pages(root)
    result = _run(root, "check")
    assert result.code == 0, result
    assert (
        "argmatrix: removed .argmatrix.journal: not a journal argmatrix wrote; nothing of it was"
        " done\n" in result.err
    )
    assert files_under(outside) == before_outside
    assert _pages(root) == pages
    assert _leftovers(root) == []  # the planted file, of a process that is gone, is removed


def test_a_page_is_read_back_byte_for_byte(tmp_path: Path) -> None:
    from argmatrix._runtime.files import read_page
    from argmatrix.errors import ArgmatrixError

    page = tmp_path / "p.md"
    page.write_bytes(b"a\r\nb\n")
    assert read_page(page) == "a\r\nb\n"  # line endings as they are
    assert read_page(tmp_path / "none.md") is None
    page.write_bytes(b"caf\xe9\n")
    assert read_page(page) is None  # surely stale
    with pytest.raises(ArgmatrixError, match=r"p\.md: the page is not UTF-8 text"):
        read_page(page, strict=True)  # an in-place page: its prose cannot be kept


@pytest.mark.parametrize("failing_move", [0, 1])
def test_a_move_that_fails_is_finished_by_the_next_run_or_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing_move: int
) -> None:
    """A disk error on the first move undoes everything; on a later one, the journal stays
    and the next write finishes the moves first."""
    from argmatrix.errors import ArgmatrixError

    docs = tmp_path / "docs"
    targets = [docs / f"p{i}.md" for i in range(3)]
    writer.write_all([(t, "old\n") for t in targets], state_dir=tmp_path, inside=docs)
    replace, calls = os.replace, []

    def flaky(source: str, target: str) -> None:
        calls.append(target)
        pages = [c for c in calls if str(c).endswith(".md")]  # not the journal's own move
        if str(target).endswith(".md") and len(pages) == failing_move + 1:
            raise OSError(5, "Input/output error", str(target))
        replace(source, target)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(ArgmatrixError, match="cannot write: Input/output error") as raised:
        writer.write_all([(t, "new\n") for t in targets], state_dir=tmp_path, inside=docs)
    monkeypatch.setattr(os, "replace", replace)
    texts = [t.read_text() for t in targets]
    if failing_move == 0:
        assert texts == ["old\n"] * 3
        assert _leftovers(tmp_path) == []
    else:
        assert "the next run moves the others" in str(raised.value)
        assert texts == ["new\n", "old\n", "old\n"]
        writer.write_all([(docs / "other.md", "x\n")], state_dir=tmp_path, inside=docs)
        assert [t.read_text() for t in targets] == ["new\n"] * 3
        assert _leftovers(tmp_path) == []


def test_the_project_is_the_repository_the_configuration_is_in(tmp_path: Path) -> None:
    """argmatrix.yaml in a subfolder of a git repository may name folders of the repository
    ('..'), as argmatrix's own docs/reference/argmatrix.yaml does; never one outside it."""
    repository = tmp_path / "repository"
    (repository / ".git").mkdir(parents=True)
    root = copy_project(repository)
    config = root / CONFIG
    config.write_text(config.read_text().replace("docs_dir: docs", "docs_dir: ../site"))
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert sorted(
        p.relative_to(repository / "site").as_posix() for p in (repository / "site").rglob("*.md")
    ) == sorted(PAGES)
    config.write_text(config.read_text().replace("docs_dir: ../site", "docs_dir: ../../site"))
    line = one_error_line(
        run_cli_in_process("generate", cwd=root), "'docs_dir' '../../site' is outside the"
    )
    assert f"({repository})" in line
    assert not (tmp_path / "site").exists()


def test_an_inplace_page_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    """An in-place page is read to keep its prose: a FIFO there must not hang `generate`."""
    root = copy_project(tmp_path)
    append_to(
        root / CONFIG,
        "  - {template: server_arguments.md.j2, output: guide/args.md, inplace: true}\n",
    )
    fifo = root / "docs" / "guide" / "args.md"
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    started = time.monotonic()
    result = run_cli_in_process("generate", cwd=root)
    assert time.monotonic() - started < HANG_SECONDS
    assert result.code == 2, result.err
    assert "guide/args.md" in result.err and "FIFO" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_the_plugin_and_check_agree_on_a_page_with_crlf_line_endings(tmp_path: Path) -> None:
    """A committed page with CRLF line endings is out of date to `check` and to the MkDocs
    plugin alike (both compare the bytes)."""
    from argmatrix.integrations.mkdocs import _read

    root = copy_project(tmp_path)
    assert run_cli_in_process("generate", cwd=root).code == 0
    page = root / "docs" / PAGES[0]
    text = page.read_text(encoding="utf-8")
    assert _read(page) == text
    page.write_bytes(text.replace("\n", "\r\n").encode())
    assert _read(page) != text
    assert run_cli_in_process("check", cwd=root).code == 1
