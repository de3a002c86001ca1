"""Hostile hand-maintained pages under the coverage check: broken markup, huge rows, braces,
backticks and comments that never end, text made to look like rows. Every one gives findings or
one located error (exit 2), never a traceback, and within a time bound; and any mix of the
pieces, read as MDX or as Markdown, gives rows whose lines are lines of the page."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argmatrix.errors import ArgmatrixError
from argmatrix.pagetables import read_tables
from helpers import FIXTURES, Run, run_cli_in_process, time_limit

# A hostile-input suite: slow by design, left out of make test-fast.
pytestmark = pytest.mark.hostile

HAND = FIXTURES / "mintlify" / "hand-maintained"
MDX_PAGE = Path("docs/advanced_features/server_arguments.mdx")
MD_PAGE = Path("docs/reference/server_arguments.md")

ROW = "<tr><td>`--port`</td><td>d</td><td>x</td><td>y</td></tr>\n"
HOSTILE = {
    "unterminated tags": "<table><tr><td>`--port`<td>d<td>x<td>y<tr><td>`--host`",
    "a tag that never closes": "<table><tr><td>`--port`</td><td",
    "a huge row": "<table><tr>" + "<td>`--port`</td>" * 15_000 + "</tr></table>",
    "many rows": "<table>\n" + ROW * 5_000 + "</table>\n",
    "nested tables": "<table><tr><td><table><tr><td>`--port`</td></tr></table></td></tr></table>",
    "a huge colspan": '<table><tr><td colspan="999999999999999999999">`--port`</td></tr></table>',
    "unmatched backticks": "".join("`" * n + " x " for n in range(1, 400)) * 50,
    "an HTML comment that never ends": "<table><tr><td>`--port`</td></tr></table>\n<!--"
    + "x" * 200_000,
    "control characters in a flag": "<table><tr><td>`--po\x1b[31mrt`</td></tr></table>",
    "a row in a code span": "Rows are `<tr><td><code>--ghost</code></td></tr>` elements.",
    "a pipe table of braces": "| Argument | A |\n| - | - |\n| `--port` | {{{ |\n| `--x{` | } |\n",
    "a pipe row far too wide": "| Argument |\n| - |\n| `--port` " + "| x " * 300_000 + "|\n",
}
MDX_ONLY = {
    "a brace that never closes": "<table><tr><td>`--port`</td><td>{oops</td></tr></table>",
    "a comment that never closes": "{/* <table><tr><td>`--port`</td></tr></table>",
    "a string that never closes": "<table><tr><td>{'--port</td></tr></table>}",
    "braces a million deep": "{" * 1_000_000,
    "a million braces closed": "{" * 1_000_000 + "}" * 1_000_000,
    "a row inside an expression": "{'<table><tr><td><code>--ghost</code></td></tr></table>'}",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "hand"
    shutil.copytree(HAND, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def checked(project: Path, page: Path, text: str) -> tuple[Run, float]:
    """`check` with `text` added to one of the pages (the other as the fixture has it)."""
    for name in (MDX_PAGE, MD_PAGE):
        original = (HAND / name).read_text()
        (project / name).write_text(original + "\n" + text + "\n" if name == page else original)
    start = time.process_time()
    result = run_cli_in_process("check", cwd=project)
    return result, time.process_time() - start


def assert_reported(result: Run, seconds: float) -> None:
    """Findings (exit 1 or 0) or one located error (exit 2); nothing raw, within the bound."""
    assert "Traceback" not in result.err
    assert seconds < time_limit(), f"took {seconds:.1f} s"
    if result.code == 2:
        lines = result.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("argmatrix: error: "), lines
        assert "server_arguments.md" in lines[0] and ":" in lines[0].split("error: ")[1]
    else:
        assert result.code in (0, 1), result.err
        assert result.out.endswith(("everything agrees\n", "warning(s)\n"))
    for line in result.out.splitlines():
        assert line.isprintable(), line


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("page", [MDX_PAGE, MD_PAGE], ids=["mdx", "md"])
def test_a_hostile_page_gives_findings_or_one_located_error(
    project: Path, page: Path, name: str
) -> None:
    assert_reported(*checked(project, page, HOSTILE[name]))


@pytest.mark.parametrize("name", sorted(MDX_ONLY))
def test_hostile_mdx_gives_findings_or_one_located_error(project: Path, name: str) -> None:
    result, seconds = checked(project, MDX_PAGE, MDX_ONLY[name])
    assert_reported(result, seconds)
    assert "--ghost" not in result.out


def test_what_is_no_row_makes_no_finding(project: Path) -> None:
    """A row in a code span, a comment or a string is not read: it would be an unregistered
    --ghost. A flag ends at a control character, which never reaches the output."""
    for text in (HOSTILE["a row in a code span"], MDX_ONLY["a row inside an expression"]):
        result, _ = checked(project, MDX_PAGE, text)
        assert result.code == 0, result.out
    result, _ = checked(project, MDX_PAGE, HOSTILE["control characters in a flag"])
    assert result.code == 1 and "row names --po," in result.out and "\x1b" not in result.out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("<td>" * 150_001, "'<' (more than 150000): too much markup for a page kept by hand"),
        ("|\n" * 20_001, "lines with a '|' (more than 20000): too much markup"),
        ("x" * (2 * 1024 * 1024), "the page is larger than 2 MiB"),
    ],
)
def test_a_page_too_large_to_be_kept_by_hand_is_refused_before_it_is_read(
    project: Path, text: str, says: str
) -> None:
    result, seconds = checked(project, MD_PAGE, text)
    assert_reported(result, seconds)
    assert says in result.err and "server_arguments.md" in result.err


FRAGMENTS = st.sampled_from(
    [
        "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<thead>", "</thead>",
        "<code>", "</code>", "`", "``", "--port", "--ghost", "{", "}", "{/*", "*/}", "'", '"',
        "\n", "\n\n", "    ", "|", "| - |", "\\", "<!--", "-->", "<br />", "```\n", "---\n",
        "<td colspan='2'>", "<", ">", "x",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=60), st.sampled_from(["mdx", "markdown"]))
def test_any_mix_of_markup_is_rows_on_lines_of_the_page_or_one_located_error(
    pieces: list[str], syntax: str
) -> None:
    text = "".join(pieces)
    try:
        tables = read_tables(text, "page.mdx", syntax)  # type: ignore[arg-type]
    except ArgmatrixError as error:
        (problem,) = error.problems
        assert problem.file == "page.mdx" and problem.line is not None
        assert 1 <= problem.line <= text.count("\n") + 1
        return
    last = text.count("\n") + 1
    for table in tables:
        assert 1 <= table.line <= last
        for row in table.rows:
            assert 1 <= row.line <= last and row.width == sum(c.span for c in row.cells)
