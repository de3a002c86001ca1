"""The cache never hands back what reading the inputs again would not give, and never trusts
what someone else could have written: a stale or foreign entry is recomputed, a folder others
may write to (or that cannot be written) is left alone with one warning line."""

from __future__ import annotations

import os
import pickle
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from argmatrix._runtime import cache
from helpers import HANG_SECONDS, copy_project, run_cli_in_process

SETTLE = 0.1  # seconds: a file last changed this long before a read is settled (50 ms slack)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder of this test's own, and a fresh allowance of one warning."""
    target = tmp_path / "cache"
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(target))
    monkeypatch.setattr(cache, "_warned", False)
    return target


def _settle() -> None:
    """Let the files just written be older than the next read (by their time stamps)."""
    time.sleep(SETTLE)


class Counting:
    """A compute function for `cached` that reads `path`, counting its calls."""

    def __init__(self, path: Path, during: Callable[[], None] | None = None) -> None:
        self.path = path
        self.during = during
        self.calls = 0

    def __call__(self) -> tuple[str, list[str]]:
        self.calls += 1
        text = self.path.read_text() if self.path.exists() else "(missing)"
        if self.during is not None:
            self.during()
        return text, [str(self.path)]


def _entries(target: Path) -> list[Path]:
    return sorted(target.glob("*.pickle"))


# ------------------------------------------------------------------ edits while reading


def test_a_settled_input_is_reused_and_an_edit_is_seen(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("first")
    _settle()
    compute = Counting(source)
    assert cache.cached("probe", ("k",), compute) == "first"
    assert cache.cached("probe", ("k",), compute) == "first"
    assert compute.calls == 1  # the second came from the cache
    source.write_text("other")
    assert cache.cached("probe", ("k",), compute) == "other"


def test_an_edit_made_during_the_read_is_never_cached_as_the_content_read(
    folder: Path, tmp_path: Path
) -> None:
    source = tmp_path / "input.txt"
    source.write_text("before")
    _settle()
    editing = Counting(source, during=lambda: source.write_text("after!"))
    assert cache.cached("probe", ("k",), editing) == "before"  # what this run read
    reading = Counting(source)
    assert cache.cached("probe", ("k",), reading) == "after!"  # not the stale result
    assert reading.calls == 1


def test_an_edit_during_the_read_that_keeps_the_old_time_stamp_is_seen(
    folder: Path, tmp_path: Path
) -> None:
    """Putting the modification time back does not hide an edit (the status-change time
    cannot be put back)."""
    source = tmp_path / "input.txt"
    source.write_text("before")
    _settle()
    modified = source.stat().st_mtime_ns

    def edit() -> None:
        source.write_text("after!")
        os.utime(source, ns=(modified, modified))

    assert cache.cached("probe", ("k",), Counting(source, during=edit)) == "before"
    assert cache.cached("probe", ("k",), Counting(source)) == "after!"


def test_a_file_removed_during_the_read_is_not_cached_as_missing(
    folder: Path, tmp_path: Path
) -> None:
    source = tmp_path / "input.txt"
    source.write_text("there")
    _settle()
    assert cache.cached("probe", ("k",), Counting(source, during=source.unlink)) == "there"
    assert cache.cached("probe", ("k",), Counting(source)) == "(missing)"


def test_a_manifest_edited_while_it_is_read_leaves_check_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case of the issue: `generate` reads the manifest while an editor saves it; the next
    `check` must say the pages are stale, not pass on pages made from the old text."""
    import argmatrix.manifests.load

    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_project(tmp_path)
    _settle()
    manifest = root / "capabilities" / "npu.yaml"
    edited = manifest.read_text().replace("Only 128 is tuned", "Only 256 is tuned")
    original = argmatrix.manifests.load.load_yaml_file

    def read_then_save(path: Path) -> object:
        data = original(path)
        if path == manifest:
            manifest.write_text(edited)
        return data

    monkeypatch.setattr(argmatrix.manifests.load, "load_yaml_file", read_then_save)
    assert run_cli_in_process("generate", cwd=root).code == 0
    monkeypatch.setattr(argmatrix.manifests.load, "load_yaml_file", original)
    assert "Only 128 is tuned" in (root / "docs" / "reference" / "npu.md").read_text()
    assert run_cli_in_process("check", cwd=root).code == 1  # the page is stale: the note changed
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert "Only 256 is tuned" in (root / "docs" / "reference" / "npu.md").read_text()
    assert run_cli_in_process("check", cwd=root).code == 0


def test_a_fingerprint_describes_the_content_that_was_read(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("as read")
    cache.note_read(source, "as read")
    as_read = cache.fingerprint(("parts",), [str(source)])
    source.write_text("edited since")
    assert cache.fingerprint(("parts",), [str(source)]) == as_read


def test_pages_of_an_input_changed_during_the_run_are_not_kept(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "input.txt"
    source.write_text("content")
    monkeypatch.setattr(cache, "_run_started_ns", time.time_ns() - 10**10)  # 10 s ago
    calls: list[int] = []
    digest = cache.fingerprint((), [str(source)])  # changed after the run began, not recorded
    for _ in range(2):
        assert cache.memo("probe", digest, lambda: calls.append(1) or "pages") == "pages"
    assert len(calls) == 2
    assert _entries(folder) == []
    _settle()
    cache.begin_run()  # the next build of a long-lived process: the file changed before it
    settled = cache.fingerprint((), [str(source)])
    for _ in range(2):
        assert cache.memo("probe", settled, lambda: calls.append(1) or "pages") == "pages"
    assert len(calls) == 3


def test_a_fingerprint_reads_only_regular_files_and_never_waits(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    endless = tmp_path / "zeros"
    endless.symlink_to("/dev/zero")
    started = time.monotonic()
    first = cache.fingerprint((), [str(fifo), str(endless)])
    assert time.monotonic() - started < HANG_SECONDS
    assert first == cache.fingerprint((), [str(fifo), str(endless)])


# ------------------------------------------------------------------ keys


def test_another_python_or_module_path_gets_its_own_entry(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def compute() -> str:
        calls.append(1)
        return "value"

    cache.memo("probe", "key", compute)
    cache.memo("probe", "key", compute)
    assert len(calls) == 1
    monkeypatch.setattr(sys, "path", ["/somewhere/else", *sys.path])
    cache.memo("probe", "key", compute)
    assert len(calls) == 2
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    cache.memo("probe", "key", compute)
    assert len(calls) == 3


def test_the_code_version_covers_modules_in_subpackages(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub" / "deeper").mkdir(parents=True)
    (package / "top.py").write_text("A = 1\n")
    nested = package / "sub" / "deeper" / "mod.py"
    nested.write_text("B = 1\n")
    before = cache.modules_digest(package)
    nested.write_text("B = 22\n")
    assert cache.modules_digest(package) != before


# ------------------------------------------------------------------ who wrote it


def _one_warning(err: str, *fragments: str) -> None:
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1, lines
    assert lines[0].startswith("argmatrix: warning: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_a_folder_others_may_write_to_is_not_used(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir()
    folder.chmod(0o777)
    source = tmp_path / "input.txt"
    source.write_text("x")
    _settle()
    compute = Counting(source)
    for _ in range(3):
        cache.cached("probe", ("k",), compute)
    assert compute.calls == 3
    assert list(folder.iterdir()) == []
    _one_warning(
        capsys.readouterr().err,
        f"cache folder {folder} is writable by others",
        f"(fix: chmod 700 {folder})",
    )


def test_a_folder_of_another_user_is_not_used(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir(mode=0o700)
    owner = folder.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    assert cache.memo("probe", "k", lambda: 1) == 1
    assert list(folder.iterdir()) == []
    _one_warning(capsys.readouterr().err, "belongs to another user")


def test_the_folder_is_created_private(folder: Path) -> None:
    cache.memo("probe", "k", lambda: 1)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    (entry,) = _entries(folder)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "secret.key").stat().st_mode) == 0o600


class _Canary:
    """Unpickling this creates the file it names: what a forged entry could run."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def _forge(folder: Path, canary: Path) -> Path:
    """Overwrite the one entry with an unsigned pickle that runs code when loaded."""
    (entry,) = _entries(folder)
    entry.write_bytes(pickle.dumps(([], _Canary(str(canary)))))
    entry.chmod(0o600)
    return entry


def test_an_entry_not_signed_with_the_folders_key_is_never_unpickled(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    canary = tmp_path / "canary"
    assert cache.memo("probe", "k", lambda: "real") == "real"
    entry = _forge(folder, canary)
    cache._recent.clear()
    assert cache.memo("probe", "k", lambda: "recomputed") == "recomputed"
    assert not canary.exists()
    # Signed, but with another key than the folder's: still not trusted.
    forged = cache._signed(b"k" * 32, pickle.dumps(([], _Canary(str(canary)))))
    entry.write_bytes(forged)
    cache._recent.clear()
    assert cache.memo("probe", "k", lambda: "again") == "again"
    assert not canary.exists()
    assert capsys.readouterr().err == ""  # a bad signature is a cache miss, not a warning


@pytest.mark.parametrize("spoil", ["group-writable", "symlink"])
def test_an_entry_others_could_have_written_is_ignored_with_one_warning(
    folder: Path, tmp_path: Path, spoil: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cache.memo("probe", "k", lambda: "real")
    (entry,) = _entries(folder)
    if spoil == "group-writable":
        entry.chmod(0o666)
    else:
        elsewhere = tmp_path / "elsewhere.pickle"
        elsewhere.write_bytes(entry.read_bytes())
        elsewhere.chmod(0o600)
        entry.unlink()
        entry.symlink_to(elsewhere)
    for _ in range(2):
        cache._recent.clear()
        assert cache.lookup("probe", ("k",)) is cache.MISSING
    _one_warning(capsys.readouterr().err, f"cache entry {entry}")


def test_a_key_others_can_read_disables_the_cache(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir(mode=0o700)
    key = folder / "secret.key"
    key.write_bytes(b"s" * 32)
    key.chmod(0o644)
    calls: list[int] = []
    for _ in range(2):
        cache.memo("probe", "k", lambda: calls.append(1) or 1)
    assert len(calls) == 2
    _one_warning(capsys.readouterr().err, f"cache key {key} is not private")


# ------------------------------------------------------------------ a folder that cannot be used


@pytest.mark.parametrize("place", ["a file in its place", "under a file", "read-only"])
def test_a_cache_folder_that_cannot_be_used_is_one_warning_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str
) -> None:
    root = copy_project(tmp_path)
    blocker = tmp_path / "blocker"
    if place == "a file in its place":
        blocker.write_text("not a folder")
        target = blocker
    elif place == "under a file":
        blocker.write_text("not a folder")
        target = blocker / "cache"
    else:
        target = tmp_path / "readonly"
        target.mkdir(mode=0o500)
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(target))
    monkeypatch.setattr(cache, "_warned", False)
    assert run_cli_in_process("generate", cwd=root).code == 0
    monkeypatch.setattr(cache, "_warned", False)
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    warnings = [line for line in result.err.splitlines() if "warning: cache" in line]
    if place == "read-only" and os.access(target, os.W_OK):
        assert warnings == []  # the superuser writes anyway: nothing to warn about
    else:
        assert len(warnings) == 1, result.err
        assert str(target) in warnings[0] and "(fix: " in warnings[0]


def test_jinjas_cache_of_compiled_templates_skips_a_failed_write(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jinja2

    bytecode = cache.jinja_bytecode_cache()
    assert bytecode is not None

    real_open = os.open
    compiled = str(folder / "jinja")

    def read_only(path: str, flags: int, *args: int, **kwargs: int) -> int:
        """The folder refuses new files, whoever asks (the superuser included)."""
        if str(path).startswith(compiled) and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"t": "{{ 6 * 7 }}"}), bytecode_cache=bytecode
    )
    assert env.get_template("t").render() == "42"


def test_jinjas_compiled_templates_are_signed_and_checked(folder: Path) -> None:
    import jinja2

    def render() -> str:
        env = jinja2.Environment(
            loader=jinja2.DictLoader({"t": "{{ 6 * 7 }}"}),
            bytecode_cache=cache.jinja_bytecode_cache(),
        )
        return env.get_template("t").render()

    assert render() == "42"
    (compiled,) = (folder / "jinja").iterdir()
    assert compiled.read_bytes().startswith(cache._MAGIC)
    compiled.write_bytes(compiled.read_bytes()[:-8] + b"tampered")
    assert render() == "42"  # compiled again from the source, the tampered code never loaded
    assert stat.S_IMODE((folder / "jinja").stat().st_mode) == 0o700
