"""The one reader of hand-written page tables (`argmatrix.pagetables`), shared by the coverage
check and by `audit`/`import`: both see the same rows on the same lines, each reads a cell as it
needs it, and markdown-it is loaded only when a page's tables are read."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from argmatrix.adoption.handwritten import parse_page
from argmatrix.pagetables import read_tables
from helpers import FIXTURES

PAGE = """\
# Server

## Networking

[docs]: https://example.com/docs

| Argument | Description | Default |
| --- | --- | --- |
| `--port` | The **port**, see [the docs][docs]. | `30000` |
| `--host` | A stray pipe | splits this cell | `127.0.0.1` |
| `--short` | one cell too few |
"""


def test_audit_and_the_coverage_check_see_the_same_rows_on_the_same_lines() -> None:
    coverage = read_tables(PAGE, "p.md", "markdown")
    audited = parse_page(PAGE, "p.md")
    assert [row.line for table in coverage for row in table.body] == [9, 10, 11]
    assert [row.line for row in audited.rows] == [9, 10, 11]
    misshapen = [row.line for table in coverage for row in table.body if row.width != table.width]
    assert misshapen == [row.line for row in audited.rows if row.broken] == [10, 11]
    assert [table.line for table in coverage] == [table.line for table in audited.tables] == [7]


def test_each_reader_reads_a_cell_as_it_needs_it() -> None:
    """The coverage check reads a cell as written (linear on any text); audit reads it as a
    person does, the page's link references resolved, and realigns a cell a stray pipe split."""
    (table,) = read_tables(PAGE, "p.md", "markdown")
    assert [cell.text for cell in table.body[0].cells] == [
        "--port",
        "The **port**, see [the docs][docs].",
        "30000",
    ]
    port, host, short = parse_page(PAGE, "p.md").rows
    assert [cell.text for cell in port.cells] == ["--port", "The port, see the docs.", "30000"]
    assert port.cells[0].codes == ("--port",) and port.flags == ("--port",)
    assert [cell.text for cell in host.cells] == [
        "--host",
        "A stray pipe | splits this cell",
        "127.0.0.1",
    ]
    assert [cell.text for cell in short.cells] == ["--short", "one cell too few", ""]
    assert parse_page(PAGE, "p.md").page.sections == (("Networking", 3),)


def _modules_after_check(project: Path) -> set[str]:
    """The modules `argmatrix check` imported, run in a process of its own in `project`."""
    code = (
        "import sys\n"
        "from argmatrix.cli.main import main\n"
        "assert main(['check']) == 0\n"
        "print(' '.join(sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


def test_markdown_it_is_imported_only_to_read_a_page_kept_by_hand(tmp_path: Path) -> None:
    plain = shutil.copytree(FIXTURES / "project", tmp_path / "plain")
    hand = shutil.copytree(FIXTURES / "mintlify" / "hand-maintained", tmp_path / "hand")
    assert "markdown_it" not in _modules_after_check(plain)  # no checks.coverage
    assert "markdown_it" in _modules_after_check(hand)


def test_argmatrix_sets_up_markdown_it_in_one_place() -> None:
    source = Path(__file__).parents[1] / "src" / "argmatrix"
    setups = [
        path.relative_to(source).as_posix()
        for path in sorted(source.rglob("*.py"))
        if "MarkdownIt(" in path.read_text(encoding="utf-8")
    ]
    # Pages are read by the one set-up of pagetables/parser.py; the other reads a Typer help
    # written in Markdown (`rich_markup_mode="markdown"`) into the model's words, no page.
    assert setups == ["loaders/markup.py", "pagetables/parser.py"]
