"""A warm `check` replays the outcome of an earlier run while nothing that run looked at has
changed (`_runtime/outcome.py`), and runs again, finding what a run without any cache finds,
as soon as anything has.

Each run is a fresh interpreter started the way the `argmatrix` command starts (`cli.main.run`),
so what is replayed is exactly what a user's next run would print.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from helpers import append_to, copy_project, replace_in
from test_python_versions import pythons  # noqa: F401  (a fixture: the other Pythons)

# The command as the console script runs it, then (after the run, unobserved) whether the run
# was a replay: a replay imports neither argparse nor argmatrix's configuration reader.
_COMMAND = """
import json, sys
from argmatrix.cli.main import run
code = run()
print(json.dumps(["argparse" in sys.modules, "argmatrix.config" in sys.modules]), file=sys.stderr)
sys.exit(code)
"""


# Longer than the slack by which a file's time stamp may lag the clock (ownfiles.FINE_SLACK_NS).
SETTLE_SECONDS = 0.06


class Outcome(NamedTuple):
    code: int
    stdout: str
    stderr: str
    replayed: bool


def _run(
    root: Path,
    cache: Path | None,
    *argv: str,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
    settle: bool = True,
) -> Outcome:
    """The command run in `root`; with a cache folder, after the files written just before it
    have settled (a run records nothing a file changed shortly before: see `_still_as_read`)."""
    if cache is not None and settle:
        time.sleep(SETTLE_SECONDS)
    environment = {**os.environ, **(env or {})}
    environment.pop("ARGMATRIX_NO_CACHE", None)
    if cache is None:
        environment["ARGMATRIX_NO_CACHE"] = "1"
    else:
        environment["ARGMATRIX_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [python, "-c", _COMMAND, *argv],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    *stderr, marker = done.stderr.splitlines(keepends=True)
    imported_parser, imported_config = json.loads(marker)
    return Outcome(
        done.returncode, done.stdout, "".join(stderr), not (imported_parser or imported_config)
    )


def _relative(outcome: Outcome, root: Path) -> tuple[int, str, str]:
    """The outcome with the project's folder named alike (diffs name pages by full path)."""
    code, stdout, stderr, _ = outcome
    return code, stdout.replace(str(root), "<root>"), stderr.replace(str(root), "<root>")


def _records(cache: Path) -> list[Path]:
    return sorted(cache.glob("outcome-*"))


def _generated_project(folder: Path) -> Path:
    """The fixture project, with a page of the project's own template, generated."""
    root = copy_project(folder)
    append_to(
        root / "argmatrix.yaml",
        "  - {template: guide_reference.md.j2, output: reference/guide_reference.md}\n",
    )
    assert _run(root, None, "generate").code == 0
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _generated_project(tmp_path)


def test_an_unchanged_project_is_replayed_with_the_same_output(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = _run(project, cache, "check")
    assert (first.code, first.replayed) == (0, False)
    again = _run(project, cache, "check")
    assert again.replayed
    assert again[:3] == first[:3]
    with_format = _run(project, cache, "check", "--format", "json")
    assert not with_format.replayed  # another command line: its own outcome


@pytest.mark.slow
def test_drift_is_replayed_too_and_ends_when_the_page_is_mended(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    page = project / "docs/reference/npu.md"
    good = page.read_bytes()
    page.write_bytes(good.replace(b"|", b"| ", 1))
    drift = _run(project, cache, "check")
    assert drift.code == 1
    replayed = _run(project, cache, "check")
    assert replayed.replayed and replayed[:3] == drift[:3]
    page.write_bytes(good)
    mended = _run(project, cache, "check")
    assert (mended.code, mended.replayed) == (0, False)


def _edit_manifest_same_size(root: Path) -> None:
    manifest = root / "capabilities/npu.yaml"
    text = manifest.read_text(encoding="utf-8")
    swapped = text.replace("Only 128 is tuned", "Only 256 is tuned", 1)  # same size
    assert swapped != text
    manifest.write_text(swapped, encoding="utf-8")


def _add_argument(root: Path) -> None:
    replace_in(
        root / "tinyserver.py",
        "parser.add_argument(",
        'parser.add_argument("--brand-new-flag", type=int, default=1, help="New.")\n'
        "        parser.add_argument(",
    )


def _prose_naming_a_missing_flag(root: Path) -> None:
    append_to(root / "docs/guide/tuning.md", "\nLaunch with `--no-such-flag-at-all`.\n")


def _new_prose_page(root: Path) -> None:
    (root / "docs/guide/new.md").write_text("Use `--no-such-flag-either`.\n", encoding="utf-8")


def _page_removed(root: Path) -> None:
    (root / "docs/reference/npu_variants.md").unlink()


def _manifest_behind_a_link_retargeted(root: Path) -> None:
    real = root / "capabilities/npu.yaml"
    other = root / "capabilities/other.yaml"
    other.write_text(
        real.read_text(encoding="utf-8").replace("supported", "planned", 1), encoding="utf-8"
    )
    real.rename(root / "capabilities/npu-real.yaml")
    real.symlink_to("other.yaml")


def _project_template_added(root: Path) -> None:
    source = root / "templates/guide_reference.md.j2"
    (root / "templates/platform_support.md.j2").write_text(
        source.read_text(encoding="utf-8"), encoding="utf-8"
    )


def _page_replaced_by_a_link_to_its_copy(root: Path) -> None:
    """The same bytes are read through the link: only examining the path tells."""
    page = root / "docs/reference/npu.md"
    copy = root / "capabilities/npu-copy.md"
    copy.write_bytes(page.read_bytes())
    page.unlink()
    page.symlink_to(copy)


def _project_template_replaced_by_a_link_outside(root: Path) -> None:
    """The same bytes, read through a link that leaves the templates folder: only the kind of
    the folder's entry tells."""
    template = root / "templates/guide_reference.md.j2"
    outside = root.parent / "elsewhere"
    outside.mkdir()
    template.rename(outside / template.name)
    template.symlink_to(outside / template.name)


def _package_of_the_registrys_name_beside_it(root: Path) -> None:
    """Python imports a package before a module file of the same name: the registry is then
    read from it (a file that was looked for and missing, and is there now)."""
    package = root / "tinyserver"
    package.mkdir()
    source = (root / "tinyserver.py").read_text(encoding="utf-8")
    (package / "__init__.py").write_text(
        source.replace('"--page-size"', '"--page-size", "--block-size"', 1), encoding="utf-8"
    )


def _journal_of_a_killed_run(root: Path) -> None:
    (root / ".argmatrix.journal").write_text("not a journal\n", encoding="utf-8")


CHANGES: dict[str, Callable[[Path], None]] = {
    "manifest edited, same size": _edit_manifest_same_size,
    "argument added to the registry": _add_argument,
    "prose names a missing flag": _prose_naming_a_missing_flag,
    "new prose page": _new_prose_page,
    "page removed": _page_removed,
    "manifest link retargeted": _manifest_behind_a_link_retargeted,
    "project template added": _project_template_added,
    "page replaced by a link to its copy": _page_replaced_by_a_link_to_its_copy,
    "project template replaced by a link outside": _project_template_replaced_by_a_link_outside,
    "package of the registry's name beside it": _package_of_the_registrys_name_beside_it,
    "journal left by a killed run": _journal_of_a_killed_run,
}


# The edit loop keeps one kind of change (an input's content changed, its size not); the rest of
# the matrix, three fresh interpreters a change, runs in `make test`.
_IN_THE_FAST_LOOP = {"manifest edited, same size"}


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(name, id=name, marks=() if name in _IN_THE_FAST_LOOP else pytest.mark.slow)
        for name in CHANGES
    ],
)
def test_after_any_change_check_finds_what_a_run_without_cache_finds(
    project: Path, tmp_path: Path, change: str
) -> None:
    cache = tmp_path / "cache"
    before = _run(project, cache, "check")
    assert _run(project, cache, "check").replayed
    twin = _generated_project(tmp_path / "twin")  # checked with the cache, never replayed
    _run(twin, cache, "check", env={"ARGMATRIX_TEST_RUN": "1"})
    for root in (project, twin):
        CHANGES[change](root)
    after = _run(project, cache, "check")
    cached_only = _run(twin, cache, "check", env={"ARGMATRIX_TEST_RUN": "2"})
    reference = _generated_project(tmp_path / "reference")  # a run may mend what it finds
    CHANGES[change](reference)
    uncached = _run(reference, None, "check")
    assert not after.replayed
    assert _relative(after, project) == _relative(uncached, reference)
    assert _relative(cached_only, twin) == _relative(uncached, reference)
    assert after[:3] != before[:3], "the change must change what check finds"


@pytest.mark.pythons
@pytest.mark.parametrize("change", ["page replaced by a link to its copy", "new prose page"])
def test_every_python_notices_a_change_examined_or_listed(
    tmp_path: Path,
    pythons: list[str],  # noqa: F811
    change: str,
) -> None:
    """Python 3.10's pathlib keeps its own `os.stat`; 3.12 and 3.13 list folders for globs
    their own way: on each, a change only an examination or a listing shows ends the replay."""
    for python in pythons:
        folder = tmp_path / Path(python).parent.parent.name
        project = _generated_project(folder / "a")
        cache = folder / "cache"
        _run(project, cache, "check", python=python)
        assert _run(project, cache, "check", python=python).replayed, python
        CHANGES[change](project)
        after = _run(project, cache, "check", python=python)
        reference = _generated_project(folder / "b")
        CHANGES[change](reference)
        uncached = _run(reference, None, "check", python=python)
        assert not after.replayed, python
        assert _relative(after, project) == _relative(uncached, reference), python


@pytest.mark.slow
def test_the_environment_is_part_of_the_key(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check")
    assert not _run(project, cache, "check", env={"ARGMATRIX_SOMETHING": "else"}).replayed
    assert _run(project, cache, "check").replayed


@pytest.mark.slow
def test_fix_a_failing_run_and_live_mode_are_never_recorded(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check", "--fix")
    assert _records(cache) == []
    bad = _run(project, cache, "check", "--manifest", "missing.yaml")
    assert bad.code == 2
    assert _records(cache) == []
    live = ("--registry", "tinyserver:ServerArgs.add_cli_args")
    assert _run(project, cache, "check", *live).code == 0
    assert _records(cache) == []
    assert not _run(project, cache, "check", *live).replayed


def test_a_record_not_signed_with_the_folders_key_is_ignored(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _run(project, cache, "check")
    (record,) = _records(cache)
    data = bytearray(record.read_bytes())
    data[-1] ^= 1
    record.write_bytes(bytes(data))
    again = _run(project, cache, "check")
    assert not again.replayed
    assert again[:3] == first[:3]


@pytest.mark.slow
def test_a_record_in_a_folder_others_may_write_is_not_used(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check")
    cache.chmod(0o777)
    try:
        assert not _run(project, cache, "check").replayed
    finally:
        cache.chmod(0o700)


@pytest.mark.slow
def test_a_run_that_read_a_file_changed_just_before_it_is_not_recorded(
    project: Path, tmp_path: Path
) -> None:
    """An edit undone within the run, or made within the time stamps' granularity, cannot be
    told from no edit: a file that changed shortly before the run leaves nothing to replay."""
    cache = tmp_path / "cache"
    manifest = project / "capabilities/npu.yaml"
    # The same bytes with a time stamp the run cannot see as settled before it started, whatever
    # the machine's speed (a real write "just before" lands within the slack only on a quick
    # start, which a busy machine does not give).
    _stamp(manifest, time.time() + _LATER_SECONDS)
    assert _run(project, cache, "check", settle=False).code == 0
    assert _records(cache) == []
    _stamp(manifest, time.time() - _LATER_SECONDS)
    _run(project, cache, "check")
    assert _run(project, cache, "check").replayed


# Far more than a run of `check` takes, however busy the machine.
_LATER_SECONDS = 600.0


def _stamp(path: Path, seconds: float) -> None:
    """The file rewritten with its own bytes and its modification time set to `seconds`."""
    path.write_bytes(path.read_bytes())
    os.utime(path, (seconds, seconds))


def test_a_lock_held_or_left_means_a_full_run(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check")
    (project / ".argmatrix.lock").write_text("", encoding="utf-8")
    assert not _run(project, cache, "check").replayed  # it waits for a writer, as a run does
    assert _run(project, cache, "check").replayed  # that run found the lock free and removed it


def test_what_a_shell_sets_for_each_command_is_not_part_of_the_key(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check", env={"OLDPWD": "/one", "_": "/bin/one", "SHLVL": "1"})
    assert _run(project, cache, "check", env={"OLDPWD": "/two", "_": "/two", "SHLVL": "2"}).replayed


@pytest.mark.slow
def test_a_record_is_not_taken_for_another_command_lines(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _run(project, cache, "check")
    (text_record,) = _records(cache)
    as_json = _run(project, cache, "check", "--format", "json")
    (json_record,) = [r for r in _records(cache) if r != text_record]
    json_record.write_bytes(text_record.read_bytes())  # signed, but for another key
    again = _run(project, cache, "check", "--format", "json")
    assert not again.replayed
    assert again[:3] == as_json[:3]


@pytest.mark.slow
def test_a_project_inside_the_cache_folder_is_never_replayed(tmp_path: Path) -> None:
    """The cache's own files are not observed: a project among them would be, in part."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    project = _generated_project(cache / "inside")
    _run(project, cache, "check")
    assert not _run(project, cache, "check").replayed
    assert _records(cache) == []
