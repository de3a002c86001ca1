"""The `myst` format, read back by myst-parser's own Markdown parser with every MyST syntax switched
on: whatever a text holds, a cell, a heading or a paragraph is that text and nothing else (no
role, directive, substitution, math, footnote, target, comment, raw HTML or attribute list), a
table row keeps its cells, and a flag is the option role only when the role can hold it as
written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from argmatrix.model.registry import Argument
from argmatrix.render.formats import myst
from argmatrix.render.formats.shared import folded
from helpers import copy_project, run_cli_in_process
from test_table_property import TRICKY

# Every extension that reads more of a line as markup, and the typography ones, which would
# rewrite quotes and dashes: text must still compare as written.
EXTENSIONS = {
    "amsmath",
    "smartquotes",
    "replacements",
    "attrs_inline",
    "attrs_block",
    "colon_fence",
    "deflist",
    "dollarmath",
    "fieldlist",
    "html_admonition",
    "html_image",
    "strikethrough",
    "substitution",
    "tasklist",
}
PARSER = create_md_parser(MdParserConfig(enable_extensions=EXTENSIONS), RendererHTML)
MYST_PAYLOADS = st.sampled_from(
    [
        "{eval-rst}`.. raw:: html`",
        "{ref}`x`",
        "{{ secret }}",
        "$x$",
        "$$",
        "[^1]",
        "~~gone~~",
        "(target)=",
        "% argmatrix:end",
        "%",
        ":::{note}",
        "```{warning}",
        "+++",
        ":field: value",
        "{#id .cls}",
        "\\begin{equation}",
        "- [ ] task",
        "<script>alert(1)</script>",
        "|",
        "`",
        "\\",
        "bool flag (--a / --no-a)",
        "\"auto\" isn't 'x' --- ... (c) (TM) +- ??? !!!! ,,",
    ]
)
TEXT = st.lists(st.one_of(TRICKY, MYST_PAYLOADS, st.text(max_size=8)), max_size=6).map("".join)
PLAIN = {"text", "code_inline", "softbreak"}


def inline_children(source: str) -> list[list[Token]]:
    """The inline contents of each block of `source`."""
    return [token.children or [] for token in PARSER.parse(source) if token.type == "inline"]


def shown(children: list[Token]) -> str:
    assert {child.type for child in children} <= PLAIN, [c.type for c in children]
    return "".join(child.content for child in children)


def block_types(source: str) -> list[str]:
    return [token.type for token in PARSER.parse(source) if token.nesting >= 0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT, TEXT)
@example("% argmatrix:end", "(x)=")
@example("{eval-rst}`.. raw:: html`", "{{ x }}")
@pytest.mark.slow
def test_a_cell_and_a_code_value_are_their_text_in_a_table_row(text: str, value: str) -> None:
    source = (
        f"| a | b | c |\n| --- | --- | --- |\n| {myst.cell(text)} | {myst.code(value)} | end |\n"
    )
    cells = inline_children(source)[3:]
    assert len(cells) == 3  # the row keeps its cells
    assert shown(cells[0]) == folded(text).strip()
    code_text = folded(value)
    expected = code_text if code_text.strip() else ('""' if code_text == "" else f'"{code_text}"')
    assert shown(cells[1]).strip() == expected.strip()  # a cell shows no edge spaces
    assert shown(cells[2]) == "end"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
@example("% argmatrix:end")
@example("(target)=")
@example(":::{note}")
@example("+++")
@example("1. item")
@example("# closed #")
@pytest.mark.slow
def test_a_cell_is_its_text_as_a_heading_and_as_a_paragraph(text: str) -> None:
    written = myst.cell(text)
    expected = folded(text).strip()
    if not expected:
        return
    assert block_types(f"## {written}\n") == ["heading_open", "inline"]
    assert shown(inline_children(f"## {written}\n")[0]) == expected
    assert block_types(f"{written}\n") == ["paragraph_open", "inline"]
    assert shown(inline_children(f"{written}\n")[0]) == expected


@settings(max_examples=200, deadline=None)
@given(TEXT)
@example("% argmatrix:end")
@example("{{ x }}")
@example("prog [-h]\n     [--x X]\n% argmatrix:end")
@example("prog [-h]\n\n     [--x X]")
def test_a_code_block_holds_its_text_and_never_a_marker_line(text: str) -> None:
    block = myst.code_block(text, "text")
    assert not any(myst.REGION.end.match(line) for line in block.splitlines())
    assert "{{" not in block and "{%" not in block
    tokens = PARSER.parse(block + "\n")
    if tokens[0].type == "fence":  # each line as written, its indentation kept
        lines = [
            " " * (len(line) - len(line.lstrip(" "))) + folded(line).strip()
            for line in text.split("\n")
            if folded(line).strip()
        ]
        assert tokens[0].content == ("".join(f"{line}\n" for line in lines) or "\n")
        assert tokens[0].info == "text"
    else:  # text a fence would carry as written: a raw <pre> block of character references
        assert [t.type for t in tokens] == ["html_block"]


def _argument(*flags: str) -> Argument:
    return Argument(flags=flags, dest="x", section="S")


@pytest.mark.parametrize(
    ("flags", "roles"),
    [
        (("--page-size",), ["--page-size"]),
        (("--max-batch", "--mb"), ["--max-batch", "--mb"]),
        (("-x",), ["-x"]),
        (("--a|b",), []),
        (("--a`b",), []),
        (("--{{x}}",), []),
        (("--a b",), []),
    ],
)
def test_a_flag_is_the_option_role_only_when_it_can_be_held(
    flags: tuple[str, ...], roles: list[str]
) -> None:
    cell = myst.flags_cell(_argument(*flags))
    row = inline_children(f"| a | b |\n| --- | --- |\n| {cell} | end |\n")[2:]
    assert len(row) == 2 and shown(row[1]) == "end"
    found = [child for child in row[0] if child.type == "myst_role"]
    assert [child.meta["name"] for child in found] == [myst.ROLE] * len(roles)
    assert [child.content for child in found] == roles
    if not roles:
        assert shown(row[0]).replace(", ", "") == "".join(flags)


def test_a_subcommands_flag_names_its_command_in_the_role() -> None:
    assert myst.flags_cell(_argument("--port"), "serve") == "{argmatrix-option}`serve --port`"


def test_in_place_regions_are_between_myst_comments(tmp_path: Path) -> None:
    """A hand-written MyST page keeps its words; the region between `% argmatrix:` comment lines
    is regenerated, and a second run changes nothing."""
    project = copy_project(tmp_path)
    page = project / "docs" / "guide" / "serving.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    words = "# Serving\n\nThe author's words, {ref}`kept`.\n\n"
    page.write_text(
        words + '% argmatrix:begin section="Serving"\n% argmatrix:end\n\nThe end.\n',
        encoding="utf-8",
    )
    config = project / "argmatrix.yaml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + "  - {template: server_arguments.myst.j2, output: guide/serving.md, inplace: true,"
        " format: myst}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    first = page.read_text(encoding="utf-8")
    assert first.startswith(words + '% argmatrix:begin section="Serving"\n\n| Argument |')
    assert "| {argmatrix-option}`--page-size` `PAGE_SIZE` |" in first
    assert first.endswith("|\n\n% argmatrix:end\n\nThe end.\n")
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.read_text(encoding="utf-8") == first
