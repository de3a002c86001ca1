"""The coverage check (`checks.coverage`) of a hand-maintained page about a program with
subcommands (issue 30: one spelling for a subcommand's flag everywhere): a subcommand's argument
with no row is an `undocumented-flag` named `serve --port`, for each subcommand the page
documents; `allow_undocumented` takes that spelling, and a bare flag two subcommands share is a
located error naming both; `check --fix` removes stale entries written either way.

The registry is tests/fixtures/audit/subcommands/sub_server.py: `serve` and `bench` share
`--port`; `--requests` is bench's alone."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import FIXTURES, line_of, run_cli_in_process

SUBCOMMANDS = FIXTURES / "audit" / "subcommands"

PAGE = """\
# llmserve

| Argument | Default |
| --- | --- |
| `--log-level` | `info` |

## serve

| Argument | Default |
| --- | --- |
| `--model` | required |
| `--revision` | `main` |
| `--host` | `127.0.0.1` |
| `--port` | `8000` |

## bench

| Argument | Default |
| --- | --- |
| `--url` | `http://localhost` |
"""

CONFIG = """\
registry: {target: 'sub_server:build_parser', mode: static}
docs_dir: docs
checks:
  prose: []
  coverage:
    - page: cli.md
"""


def project(tmp_path: Path, page: str = PAGE, allow: str = "") -> Path:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    shutil.copy(SUBCOMMANDS / "sub_server.py", root)
    (root / "docs" / "cli.md").write_text(page, encoding="utf-8")
    (root / "argmatrix.yaml").write_text(
        CONFIG + (f"      allow_undocumented: [{allow}]\n" if allow else ""), encoding="utf-8"
    )
    return root


def lines(root: Path) -> list[str]:
    result = run_cli_in_process("check", cwd=root)
    assert result.code in (0, 1), result.err
    return result.out.splitlines()


def test_a_subcommand_argument_without_a_row_is_named_in_its_spelling(tmp_path: Path) -> None:
    root = project(tmp_path)
    page = root / "docs" / "cli.md"
    assert lines(root) == [
        f"docs/cli.md:{line_of(page, '--url')}: error[undocumented-flag]: bench --requests has"
        " no row on the page (add a row for it after the row of bench --url, or list it under"
        " allow_undocumented at argmatrix.yaml:6)",
        "argmatrix check: 1 error(s), 0 warning(s)",
    ]


def test_a_subcommand_the_page_does_not_document_is_not_covered(tmp_path: Path) -> None:
    """A page about the top level and `serve`: `bench` has no row, none of its flags is
    missing (its --port is serve's too, so the --port row does not make it documented)."""
    page = PAGE.partition("## bench")[0]
    assert lines(project(tmp_path, page)) == ["argmatrix check: everything agrees"]


def test_the_allowlist_takes_the_subcommand_spelling(tmp_path: Path) -> None:
    assert lines(project(tmp_path, allow="bench --requests")) == [
        "argmatrix check: everything agrees"
    ]


def test_a_bare_flag_one_subcommand_has_names_it(tmp_path: Path) -> None:
    assert lines(project(tmp_path, allow="--requests")) == ["argmatrix check: everything agrees"]


def test_a_bare_flag_two_subcommands_share_is_a_located_error(tmp_path: Path) -> None:
    root = project(tmp_path, allow="--port, bench --requests")
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 2 and result.out == ""
    assert result.err == (
        "argmatrix: error: argmatrix.yaml:7: checks: coverage: allow_undocumented:"
        " '--port' is an argument of several subcommands ('serve --port', 'bench --port') (fix:"
        " name the subcommand: write 'serve --port' or another of them)\n"
    )


def test_stale_entries_in_either_spelling_and_fix_removes_them(tmp_path: Path) -> None:
    root = project(tmp_path, allow="serve --prot, --requests, bench --requests, serve --port")
    assert lines(root) == [
        "argmatrix.yaml:7: error[stale-allowlist-entry]: serve --prot is allow-listed for cli.md,"
        " but the registry has no such flag (did you mean serve --port? Otherwise remove it from"
        " allow_undocumented ('argmatrix check --fix' does))",
        "argmatrix.yaml:7: error[stale-allowlist-entry]: bench --requests is allow-listed twice"
        " for cli.md (as --requests) (remove it from allow_undocumented ('argmatrix check --fix'"
        " does))",
        "argmatrix.yaml:7: error[stale-allowlist-entry]: serve --port is allow-listed as"
        " undocumented, but cli.md:14 has a row for it (remove it from allow_undocumented"
        " ('argmatrix check --fix' does))",
        "argmatrix check: 3 error(s), 0 warning(s)",
    ]
    fixed = run_cli_in_process("check", "--fix", cwd=root)
    assert fixed.code == 0, fixed.out + fixed.err
    config = (root / "argmatrix.yaml").read_text(encoding="utf-8")
    assert config == CONFIG + "      allow_undocumented: [--requests]\n"


def test_a_subcommand_spelling_that_is_not_a_flag_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, allow="'--port serve'")
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 2
    assert "'--port serve' in 'allow_undocumented' is not a flag" in result.err
