"""MDX pages: a page's format in argmatrix.yaml, and whatever a help string, a section title, a
manifest text or a page title holds, the bundled MDX pages compile with the real MDX compiler,
keep every table's shape and show the text as text (no expression, module statement or element
of its own)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from argmatrix.config import PageSpec, load_config
from argmatrix.manifests.resolve import resolve_platform
from argmatrix.model.platform import Capability, Platform
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.values import value_text
from argmatrix.render.environment import environment
from argmatrix.render.formats import mdx as mdx_format
from argmatrix.render.views import page_context
from argmatrix.schema import CONFIG_SCHEMA
from helpers import copy_project, one_error_line, replace_in, run_cli_in_process
from test_mdx_compiler import (
    MdxCompiler,
    code_in,
    compiled,
    compiler_fixture,
    elements,
    frontmatter,
    jsx_tables,
    node_types,
    ours,
    text,
    walk,
)
from test_table_property import TRICKY, _registry, as_read, without_markers

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


# Texts with the characters that break tables, plus what MDX reads as code or markup.
MDX_TRICKY = st.one_of(
    TRICKY,
    st.sampled_from(
        [
            "import x from 'y'",
            "export const a = 1",
            "{/* argmatrix:end */}",
            "{/*",
            "*/}",
            "<Note>",
            "</td>",
            "<>",
            "{}",
            "{",
            "}",
            "https://example.invalid/a_b*c*",
            "www.example.invalid",
            "someone@example.invalid",
            "~~gone~~",
            "$x$",
            "- ",
            "> ",
            "---",
            "***",
            "=",
            "&amp;",
            "&#123;",
            "\\{",
            "[^1]",
            "<!-- argmatrix:end -->",
        ]
    ),
)
HELP = st.lists(st.one_of(MDX_TRICKY, st.text(max_size=20)), max_size=12).map("".join)
_WHITESPACE = re.compile(r"\s+")


def shown(value: str) -> str:
    """What a reader should see of a text: control characters and bidirectional overrides
    dropped, a lone surrogate as U+FFFD, white space folded."""
    kept = "".join(
        c for c in value if c in "\t\n\r" or unicodedata.category(c) != "Cc" or c.isprintable()
    )
    kept = re.sub("[\ud800-\udfff]", "\ufffd", re.sub("[\u202a-\u202e\u2066-\u2069]", "", kept))
    return _WHITESPACE.sub(" ", kept).strip()


def folded(value: str) -> str:
    return _WHITESPACE.sub(" ", value).strip()


OUR_NODES = {"root", "yaml", "heading", "paragraph", "text", "mdxJsxFlowElement"}
OUR_NODES |= {"mdxJsxTextElement", "link"}  # link: what GFM makes of a bare address, see below


# A text's own list items (a line starting `-`, `*`, `+` or `1.`, then words): a description
# written with its shape is a Markdown list there (test_help_shape.py).
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+\S", re.MULTILINE)


def assert_plain(tree: dict[str, Any], *shaped: str) -> None:
    """No code, no element of the text's own, and a link only where GFM finds a bare web or
    mail address (its text the address as written). `shaped`: texts written with their
    shape, whose list items may be a list."""
    assert code_in(tree) == []
    items = any(_LIST_ITEM.search(text) for text in shaped)
    ours_here = OUR_NODES | ({"list", "listItem"} if items else set())
    assert node_types(tree) <= ours_here, node_types(tree) - ours_here
    for name, attributes in elements(tree):
        assert ours(name, attributes), (name, attributes)
    for node in walk(tree):
        if node["type"] == "link":
            assert re.match(r"(https?|mailto):", node["url"]), node["url"]
            assert text(node).replace("\\", "") in node["url"].replace("\\", "")


def render(template: str, **context: Any) -> str:
    return str(environment(None, output_format="mdx").get_template(template).render(**context))


# ------------------------------------------------------------------ the configuration


def test_a_page_is_mdx_by_its_output_unless_its_format_says(tmp_path: Path) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        "pages:\n"
        "  - {template: a.md.j2, output: a.md}\n"
        "  - {template: b.mdx.j2, output: b.mdx}\n"
        "  - {template: c.mdx.j2, output: c.md, format: mdx}\n"
        "  - {template: d.md.j2, output: d.mdx, format: markdown}\n"
    )
    config = load_config(tmp_path / "argmatrix.yaml", tmp_path)
    assert [page.output_format for page in config.pages] == ["markdown", "mdx", "mdx", "markdown"]
    assert PageSpec("x.mdx.j2", "guide/x.MDX").output_format == "mdx"


@pytest.mark.parametrize("value", ["rst", "[mdx]", "3"])
def test_an_unknown_format_is_one_located_error(tmp_path: Path, value: str) -> None:
    project = copy_project(tmp_path)
    replace_in(
        project / "argmatrix.yaml",
        "{template: server_arguments.md.j2, output: reference/server_arguments.md}",
        "{template: server_arguments.md.j2, output: reference/server_arguments.md,\n"
        f"     format: {value}}}",
    )
    line = one_error_line(run_cli_in_process("generate", cwd=project), "page: unknown format")
    assert "argmatrix.yaml:8:" in line
    assert "(fix: use one of: markdown, mdx, myst" in line


def test_the_configuration_schema_lists_the_formats() -> None:
    page = {"template": "server_arguments.mdx.j2", "output": "a.mdx", "format": "mdx"}
    jsonschema.validate({"pages": [page]}, CONFIG_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"pages": [{**page, "format": "rst"}]}, CONFIG_SCHEMA)


def test_markdown_filters_and_mdx_filters_render_the_same_template_differently(
    mdx: MdxCompiler,
) -> None:
    """An environment writes one format: the same template text, Markdown or MDX escaping."""
    source = "{{ value | cell }} {{ value | code }}"
    value = "a {b} <c>"
    markdown_env = environment(None)
    mdx_env = environment(None, output_format="mdx")
    assert markdown_env.from_string(source).render(value=value) == ("a \\{b} &lt;c&gt; `a {b} <c>`")
    page = mdx_env.from_string(source).render(value=value)
    assert page == "a \\{b\\} &lt;c&gt; <code>a \\{b\\} &lt;c&gt;</code>"
    assert text(compiled(mdx, page)) == "a {b} <c> a {b} <c>"


# ------------------------------------------------------------------ one text at a time


@pytest.mark.parametrize(
    "value",
    [
        "import os",
        "export default 1",
        "# not a heading #",
        "- not a list",
        "1. not a list",
        "2) nor this",
        "> not a quote",
        "=",
        "---",
        "*** ___",
        "{/* argmatrix:end */}",
        "{props.secret}",
        "<Component prop={1} />",
        "<!-- a comment -->",
        "`code` **bold** _it_ [link](https://example.invalid) ![img](x.png)",
        "a | b ~~c~~ $d$ [^1]",
        "\\ \\\\ \\{",
        "&amp; &#123; &lt;",
        "see https://example.invalid/x_{y}_z and www.example.invalid/*a* or a@b.invalid",
    ],
)
def test_a_text_is_plain_text_in_a_paragraph_a_heading_a_cell_and_code(
    mdx: MdxCompiler, value: str
) -> None:
    cell, code = mdx_format.cell(value), mdx_format.code(value)
    page = f'{cell}\n\n## {cell}\n\n<table className="argmatrix-table">\n  <tbody>\n    <tr>\n      <td>{cell}</td>\n'
    page += f"      <td>{code}</td>\n    </tr>\n  </tbody>\n</table>\n"
    tree = compiled(mdx, page)
    assert_plain(tree)
    paragraph, heading, _ = tree["children"]
    assert (paragraph["type"], heading["type"]) == ("paragraph", "heading")
    assert text(paragraph) == text(heading) == value
    assert jsx_tables(tree)[0].rows == [[value, value]]


@pytest.mark.parametrize(
    "value",
    [
        "prog [options]",
        "run ```x``` now",
        "{/* argmatrix:end */} --x",
        "{{ 7*7 }}",
        "<!-- y",
        "prog [-h] [--a A]\n     [--b B]",  # a usage on its lines, indented
        "prog {{ x }}\n     [--b B]\n     <c>",  # the same in a <pre> element
    ],
)
def test_a_code_block_shows_its_text_exactly(mdx: MdxCompiler, value: str) -> None:
    tree = compiled(mdx, "Before.\n\n" + mdx_format.code_block(value, "console") + "\n\nAfter.\n")
    assert code_in(tree) == []
    block = tree["children"][1]
    if block["type"] == "code":
        assert (block["value"], block["lang"]) == (value, "console")
    else:  # a <pre> element, for what a fence would keep as written
        assert block["name"] == "pre" and text(block) == value
        assert "{/*" not in mdx_format.code_block(value, "console")


@pytest.mark.parametrize(
    ("flags", "value", "attributes"),
    [
        (("--dtype",), "{auto,auto-round,a_b}", ""),
        (("-n", "--served-model-name"), "NAME [NAME ...]", ""),
        (("--x",), "{a,,b} <c> & {{ d }}", ""),
        (
            ("--remote-instance-weight-loader-start-seed-via-transfer-engine",),
            "",
            ' data-am-flag="65"',
        ),
        (("-s", "--" + "s" * 28), "S", ""),  # 30 characters fit any column at the running size
        (("-s", "--" + "s" * 29), "S", ' data-am-flag="35"'),
    ],
)
def test_an_argument_cell_keeps_sglangs_flags_and_its_value_forms_text(
    mdx: MdxCompiler, flags: tuple[str, ...], value: str, attributes: str
) -> None:
    """Each flag a bare <code> (SGLang's coverage test reads `<code>--flag</code>`); the value
    form after them reads as written, in pieces that break only after a comma or at a space; a
    long flag's length on its <td>, for argmatrix-mintlify.css."""
    argument = Argument(flags=flags, dest="x")
    cell = mdx_format.flags_cell(argument, "", value)
    for flag in flags:
        assert f"<code>{flag}</code>" in cell
    written = mdx_format.flag_attributes(cell)
    assert written == attributes
    page = f"<table>\n  <tbody>\n    <tr>\n      <td{written}>{cell}</td>\n    </tr>\n"
    tree = compiled(mdx, page + "  </tbody>\n</table>\n")
    assert code_in(tree) == []
    shown = "\n".join(flags) + (f" {folded(value)}" if value else "")
    assert jsx_tables(tree)[0].rows == [[shown]]
    pieces = re.findall(r'<span className="am-piece">(.*?)</span>', cell)
    assert all(" " not in piece and "," not in piece[:-1] for piece in pieces), pieces


@pytest.mark.parametrize(
    "title", ['Say "hi"', "a: b # c", "{x} <y> \\z", "\ufffe\uffff end", "line\nbreak", ""]
)
def test_a_frontmatter_title_reads_as_the_text(mdx: MdxCompiler, title: str) -> None:
    for written in (title, mdx_format.cell(title)):  # raw, or already escaped by `cell`
        page = f"---\ntitle: {mdx_format.frontmatter_value(written)}\n---\n\nText.\n"
        assert yaml.safe_load(frontmatter(compiled(mdx, page)) or "") == {"title": folded(title)}


# ------------------------------------------------------------------ whole pages, any text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(help_text=HELP, choice=HELP, title=HELP, section=HELP.filter(lambda t: t.strip() != ""))
@example(help_text="import x", choice="{/* argmatrix:end */}", title="export y", section="#")
@example(help_text="https://example.invalid/_x_{", choice="<b>", title="a@b.invalid", section="{")
@example(help_text="- |\n", choice="", title="", section="|")  # a list item (CI found it)
def test_server_page_keeps_its_shape_and_shows_every_text(
    mdx: MdxCompiler, help_text: str, choice: str, title: str, section: str
) -> None:
    """A help text, a default, a choice, a section title (a heading), a page title (the
    frontmatter) and the registry's description (a paragraph): the page compiles, every row
    has its four cells, and each text shows as written."""
    base = _registry(help_text, choice)
    registry = Registry(
        source=base.source,
        sections=(section,),
        description=help_text,
        arguments=tuple(replace(a, section=section) for a in base.arguments),
    )
    spec = PageSpec("server_arguments.mdx.j2", "x.mdx", title=title or None)
    context = page_context(spec, registry, {}, "argmatrix.yaml")
    # the usage is a code block of its own (test_a_code_block_shows_its_text_exactly)
    context["server"] = replace(context["server"], usage="")
    tree = compiled(mdx, render("server_arguments.mdx.j2", **context))
    assert_plain(tree, help_text)  # the description: the program's, written with its shape
    (table,) = jsx_tables(tree)
    assert table.header == ["Argument", "Description", "Defaults", "Options"]
    assert [len(row) for row in table.rows] == [4, 4]
    alpha, beta = table.rows
    assert alpha[0] == "--alpha ALPHA"  # the flag, then the value form
    # the choices are the value form, in braces as argparse writes them
    assert folded(beta[0]) == "--beta -b " + shown("{" + choice + ",x}")
    # prose; with its shape kept where it has line breaks (an item's marker a bullet, or a list's)
    said, written = folded(alpha[1]), shown(as_read(help_text))
    if "\n" in help_text or "\r" in help_text:
        said, written = without_markers(said), without_markers(written)
    assert said.replace(" ", "") == written.replace(" ", "")
    # A default or a choice is a value: its control characters are shown as escapes (`\\n`).
    default = shown(value_text(help_text))
    assert folded(alpha[2]) == default or (default == "" and alpha[2] in ('""', '" "'))
    assert folded(beta[3]).startswith(shown(value_text(choice)) or '"')
    assert yaml.safe_load(frontmatter(tree) or "") == {"title": shown(title) or "Server Arguments"}
    headings = [text(node) for node in tree["children"] if node["type"] == "heading"]
    assert [folded(h) for h in headings] == [shown(section)]
    if shown(help_text):  # the description, its items a list where it has line breaks
        described = folded(text(tree["children"][1]))
        if "\n" in help_text or "\r" in help_text:
            assert without_markers(described) == without_markers(shown(help_text))
        else:
            assert described == shown(help_text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    note=HELP,
    reason=HELP.filter(lambda r: shown(r) != ""),
    variant=HELP.filter(lambda v: shown(v) not in ("", "V2")),
    title=HELP,
    layout=st.sampled_from(["status", "variants"]),
)
def test_support_page_keeps_its_shape_with_any_manifest_text(
    mdx: MdxCompiler, note: str, reason: str, variant: str, title: str, layout: str
) -> None:
    """A manifest's note, reasons, variants and platform title: the tables keep one cell per
    column in every row, and the texts show as written."""
    registry = _registry("help", "y")
    platform = Platform(
        name="p",
        title=title or "P",
        variants=(variant, "V2"),
        default="unverified",
        sections={},
        arguments={
            "--alpha": Capability("supported", variants=(variant,), note=note),
            "--beta": Capability("unsupported", reason=reason),
        },
    )
    resolved = resolve_platform(platform, registry)
    spec = PageSpec("platform_support.mdx.j2", "p.mdx", platform="p", options={"layout": layout})
    context = page_context(spec, registry, {"p": resolved}, "argmatrix.yaml")
    tree = compiled(mdx, render("platform_support.mdx.j2", **context))
    assert_plain(tree)
    found = jsx_tables(tree)
    for table in found:
        assert all(len(row) == len(table.header) for row in table.rows), table
    cells = [folded(cell) for table in found for row in table.rows for cell in row]
    headers = [folded(cell) for table in found for cell in table.header]
    headings = [folded(text(n)) for n in tree["children"] if n["type"] == "heading"]
    # Notes and reasons in cells are prose: their code spans read as code (spaces aside).
    unspaced = [cell.replace(" ", "") for cell in cells]
    if shown(note):
        assert shown(as_read(note)).replace(" ", "") in unspaced
    if layout == "variants":
        assert found[0].header[:4] == ["Argument", "Description", "Defaults", "Options"]
        assert shown(variant) in headers
        assert shown(as_read(reason)).replace(" ", "") in unspaced
    else:
        assert found[0].header[:4] == ["Argument", "Defaults", "Options", "Server supported"]
        # the variants beside the status, in its cell; grouped by reason
        assert f"\u2713 Supported ({shown(variant)})" in cells, cells
        assert shown(reason) in headings
    by_variant = " by variant" if layout == "variants" else ""
    expected_title = folded(f"Support Features on {shown(title or 'P')}{by_variant}")
    assert yaml.safe_load(frontmatter(tree) or "") == {"title": expected_title}
