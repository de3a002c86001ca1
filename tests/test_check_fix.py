"""`check --fix` called as functions, without the command line: `checks.fix` writes the pages
that differ from the disk and shrinks the allowlists of checks.coverage, `checks.allowlists`
edits argmatrix.yaml's text, and `checks.run.check` fixes under the writers' lock and then checks
what it wrote. Each file written is told to the caller as it is written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from argmatrix.checks.allowlists import shrink_allowlists
from argmatrix.checks.coverage import STALE, StaleEntry
from argmatrix.checks.fix import Fix, Fixed, fix_allowlists, fix_pages
from argmatrix.checks.run import check, run_checks
from argmatrix.model.findings import Finding
from argmatrix.project import Project, SourceOptions, load_project
from helpers import FIXTURES, copy_project, replace_in, run_cli_in_process

HAND = FIXTURES / "mintlify" / "hand-maintained"
CONFIG_TEXT = """\
checks:
  coverage:
    - page: a.md
      allow_undocumented:
        - --first  # why
        - --second
    - page: b.md
      allow_undocumented: [--first, --second, --third]
"""


def _stale(page: int, entry: int) -> StaleEntry:
    return StaleEntry(page, entry, Finding(STALE, "stale"))


def test_shrink_allowlists_cuts_whole_lines_and_flow_items() -> None:
    stale = [_stale(0, 0), _stale(1, 1), _stale(1, 2)]
    assert shrink_allowlists(CONFIG_TEXT, stale, "argmatrix.yaml") == CONFIG_TEXT.replace(
        "        - --first  # why\n", ""
    ).replace("[--first, --second, --third]", "[--first]")


def test_shrink_allowlists_leaves_the_text_alone_without_stale_entries() -> None:
    assert shrink_allowlists(CONFIG_TEXT, [], "argmatrix.yaml") == CONFIG_TEXT


# ------------------------------------------------------------------ the allowlists of a project


@pytest.fixture
def hand(tmp_path: Path) -> Path:
    """The hand-maintained Mintlify project, with --debug-dump-folder renamed and given a row on
    both pages: its two allowlist entries are stale."""
    root = tmp_path / "hand"
    shutil.copytree(HAND, root, ignore=shutil.ignore_patterns("__pycache__"))
    replace_in(root / "registry/launch_args.py", '"--debug-dump-folder"', '"--debug-dump-dir"')
    replace_in(
        root / "docs/advanced_features/server_arguments.mdx",
        "<td>`--host`</td>",
        "<td>`--host`<br />`--debug-dump-dir`</td>",
    )
    replace_in(
        root / "docs/reference/server_arguments.md",
        "| `--host` |",
        "| `--host`<br>`--debug-dump-dir` |",
    )
    return root


def _project(root: Path) -> Project:
    return load_project(SourceOptions(), cwd=root)


def test_fix_allowlists_writes_argmatrix_yaml_and_names_what_it_removed(hand: Path) -> None:
    before = (hand / "argmatrix.yaml").read_text()
    fixed = fix_allowlists(_project(hand))
    assert fixed == Fixed(hand / "argmatrix.yaml", ("--debug-dump-folder",) * 2)
    assert (hand / "argmatrix.yaml").read_text() == before.replace(
        "        - --debug-dump-folder  # a developer's switch\n", ""
    ).replace("[--debug-dump-folder, --enable-nan-detection]", "[--enable-nan-detection]")
    assert fix_allowlists(_project(hand)) is None  # nothing stale is left


def test_check_with_fix_tells_each_write_and_checks_the_configuration_read_again(
    hand: Path,
) -> None:
    project = _project(hand)
    assert {f.kind for f in run_checks(project, []).findings} == {STALE}
    told: list[Fixed] = []
    report = check(project, [], Fix(wrote=told.append, options=SourceOptions(), cwd=hand))
    assert told == [Fixed(hand / "argmatrix.yaml", ("--debug-dump-folder",) * 2)]
    assert report.findings == ()


def test_check_without_fix_writes_nothing(hand: Path) -> None:
    before = (hand / "argmatrix.yaml").read_text()
    report = check(_project(hand), [])
    assert [f.kind for f in report.findings] == [STALE, STALE]
    assert report.failed
    assert (hand / "argmatrix.yaml").read_text() == before


# ------------------------------------------------------------------ generated pages


def test_fix_pages_writes_only_the_pages_that_differ(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    assert run_cli_in_process("generate", cwd=root).code == 0
    page = root / "docs" / "reference" / "npu.md"
    page.write_text("edited by hand\n", encoding="utf-8")
    project = _project(root)
    pages = project.pages()
    assert fix_pages(project.config, pages) == [page.resolve()]
    assert fix_pages(project.config, pages) == []
    assert check(project, pages).findings == ()
