"""Registry text cannot forge an in-place marker or a MkDocs directive.

The in-place splicer and the MkDocs plugin find `<!-- argmatrix:... -->` comments by pattern over
the page's text; neither knows where a code span or a fence is. A flag, alias or prog printed
verbatim in a code span or fence could therefore end a region early: each run then copied the
rest of the table after it into the author's prose, and the page never converged.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argmatrix.integrations.mkdocs import DIRECTIVE
from argmatrix.render.formats.markdown import code, code_block
from argmatrix.render.inplace import BEGIN, END, parse_attributes
from helpers import append_to, copy_project, run_cli_in_process

MARKERS = (
    "<!--argmatrix:end-->",
    "<!-- argmatrix:end -->",
    '<!-- argmatrix:begin section="Serving" -->',
    '<!-- argmatrix section="Serving" -->',
)

PAGE = """# Guide

Author's introduction.

<!-- argmatrix:begin section="Serving" -->
<!-- argmatrix:end -->

Author's closing words.
"""


def test_a_flag_holding_an_end_marker_does_not_end_the_region(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    source = project / "tinyserver.py"
    text = source.read_text()
    port = 'parser.add_argument("--port", '
    assert port in text
    source.write_text(text.replace(port, port + '"--x<!--argmatrix:end-->", ', 1))
    config = project / "argmatrix.yaml"
    append_to(
        config, "  - {template: server_arguments.md.j2, output: guide/serving.md, inplace: true}\n"
    )
    page = project / "docs" / "guide" / "serving.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(PAGE)

    assert run_cli_in_process("generate", cwd=project).code == 0
    first = page.read_text()
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.read_text() == first  # the page converges
    assert len(END.findall(first)) == 1  # the region's own marker, no other
    assert first.endswith("<!-- argmatrix:end -->\n\nAuthor's closing words.\n")
    assert "--x" in first  # the flag is still shown
    assert "stale-page" not in run_cli_in_process("check", cwd=project).out


@given(st.sampled_from(MARKERS), st.text(max_size=20), st.text(max_size=20))
def test_code_spans_and_fences_never_carry_a_comment_opener(
    marker: str, before: str, after: str
) -> None:
    text = before + marker + after
    assert "<!--" not in code(text)
    assert "<!--" not in code_block(text, "console")


@pytest.mark.parametrize("pattern", ["begin", "directive"])
def test_a_long_unfinished_marker_is_read_in_linear_time(pattern: str) -> None:
    """A hand-written page comes with the pull request: 200,000 spaces in an unclosed marker
    took minutes (a lazy group before `\\s*-->`)."""
    spaces = " " * 200_000
    started = time.process_time()
    if pattern == "begin":
        assert BEGIN.search("<!-- argmatrix:begin" + spaces + "x") is None
    else:
        assert DIRECTIVE.match("<!-- argmatrix " + spaces + "x") is None
    assert time.process_time() - started < 1


def test_markers_with_spaces_are_still_read() -> None:
    begin = BEGIN.search('<!--argmatrix:begin   section="A"   -->')
    assert begin is not None and parse_attributes(begin["attrs"], "p", 1) == {"section": "A"}
    directive = DIRECTIVE.match('  <!-- argmatrix section="A" platform="b"-->  ')
    assert directive is not None and directive["indent"] == "  "
    assert parse_attributes(directive["attrs"], "p", 1) == {"section": "A", "platform": "b"}
