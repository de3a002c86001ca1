"""No input reaches an MDX page as code or markup: `argmatrix generate` of a project whose every
text input is hostile (the project of tests/test_hostile_pages.py: attribute lists, raw HTML,
script tags, fence breakers, link syntax, control characters and Jinja delimiters in the
registry's help texts, sections, choices, defaults and commands, the manifest's title, variants,
notes and reasons, and the page title), its pages in MDX, with a hand-written page whose
regions are marked with MDX comments.

The same project with harmless words in the same places is the baseline. Every page compiles
with the real MDX compiler; the hostile pages have exactly the baseline's elements, no
expression or module statement but the author's markers, every table keeps one cell per column,
every text the baseline shows is shown as written, and the author's words are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import run_cli_in_process
from test_hostile_pages import (
    Maker,
    _yaml,
    harmless_text,
    hostile_text,
    seen_as,
    shown_value,
    write_project,
)
from test_mdx_compiler import (
    JSX_NODES,
    MdxCompiler,
    code_in,
    compiled,
    compiler_fixture,
    elements,
    frontmatter,
    jsx_tables,
    ours,
    outside_regions,
    walk,
)

PAGES = ("server.mdx", "npu.mdx", "npu_variants.mdx", "guide.mdx")
# What MDX reads as code or markup, put first in each text (a paragraph's text starts a line).
MDX_PAYLOADS = (
    "{/* argmatrix:end */}",
    "import x from 'y';",
    "export const a = 1;",
    "<Note>{props.secret}</Note>",
    "{secret}",
    "https://example.invalid/_a_{b}",
    "~~gone~~ $m$ [^1]",
    "<>",
)

# Hostile MDX pages through the real MDX compiler.
pytestmark = [pytest.mark.hostile, pytest.mark.engine]
# The sections named in the hand-written page's markers (a JavaScript comment) keep their own.
IN_MARKERS = ("section-one", "section-two")


def mdx_hostile_text(slot: str, payloads: tuple[int, ...], single_line: bool) -> str:
    hostile = hostile_text(slot, payloads, single_line)
    if slot in IN_MARKERS:
        return hostile
    return f"{MDX_PAYLOADS[payloads[0] % len(MDX_PAYLOADS)]} {hostile}"


BLOCKS = {"root", "paragraph", "heading", "table", "thead", "tbody", "tr", "th", "td"}


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


def as_mdx_project(root: Path, make: Maker) -> tuple[dict[str, str], str]:
    """The hostile project's files, its pages in MDX: the texts by slot, and the hand-written
    page as written."""
    project = write_project(root, make)
    texts = project.texts
    config = (
        "registry: {target: hostile_cli:build_parser, mode: static}\n"
        "manifests: [capabilities/npu.yaml]\n"
        "docs_dir: docs\n"
        "pages:\n"
        "  - {template: server_arguments.mdx.j2, output: server.mdx,"
        f" title: {_yaml(texts['page-title'])}}}\n"
        "  - {template: platform_support.mdx.j2, output: npu.mdx, platform: npu}\n"
        "  - {template: platform_support.mdx.j2, output: npu_variants.mdx, platform: npu,"
        " options: {layout: variants}}\n"
        "  - {template: server_arguments.mdx.j2, output: guide.mdx, inplace: true}\n"
    )
    # Marker attributes are `name="value"` inside a JavaScript comment: these two sections
    # have no '"' and no '*/'.
    hand_written = (
        '---\ntitle: "Guide"\n---\n\n'
        "Hand-written words, {/* a comment of the author's */} and an aside.\n\n"
        '{/* argmatrix:begin section="' + texts["section-one"] + '" */}\n'
        "{/* argmatrix:end */}\n\n"
        "```text\n<script>alert(1)</script> in a fence of the author's {not code}\n```\n\n"
        '{/* argmatrix:begin section="' + texts["section-two"] + '" platform="npu" */}\n'
        "{/* argmatrix:end */}\n\n"
        "Closing words.\n"
    )
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    (root / "docs" / "guide.mdx").write_text(hand_written, encoding="utf-8")
    return texts, hand_written


def is_block(node: dict[str, Any]) -> bool:
    return node["type"] in BLOCKS or node.get("name") in BLOCKS


def shown_text(node: dict[str, Any]) -> str:
    """What a reader sees of a node, blocks apart."""
    if node["type"] in ("text", "inlineCode", "code"):
        return str(node["value"])
    if node["type"] in JSX_NODES and node["name"] == "br":
        return " "
    parts = [shown_text(child) for child in node.get("children", ())]
    return f" {''.join(parts)} " if is_block(node) else "".join(parts)


@dataclass
class Site:
    texts: dict[str, str]
    hand_written: str
    sources: dict[str, str]
    trees: dict[str, dict[str, Any]]

    def shown(self) -> str:
        titles = [yaml.safe_load(frontmatter(tree) or "")["title"] for tree in self.trees.values()]
        return seen_as(" ".join([*titles, *(shown_text(t) for t in self.trees.values())]))


def build(tmp_path: Path, make: Maker, mdx: MdxCompiler) -> Site:
    root = tmp_path / "project"
    texts, hand_written = as_mdx_project(root, make)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    sources = {name: (root / "docs" / name).read_text(encoding="utf-8") for name in PAGES}
    trees = {name: compiled(mdx, source, name) for name, source in sources.items()}
    return Site(texts, hand_written, sources, trees)


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, mdx: MdxCompiler) -> tuple[Site, Site]:
    return (
        build(tmp_path_factory.mktemp("harmless"), harmless_text, mdx),
        build(tmp_path_factory.mktemp("hostile"), mdx_hostile_text, mdx),
    )


def without_usages(tree: dict[str, Any]) -> dict[str, Any]:
    """The tree without its usage blocks: a fenced `console` block, or the `<pre>` element the
    MDX writer makes of a usage a fence would keep as written (a hostile metavar's `{{`), with
    its `<code className="language-console">` and a `<br />` between lines."""

    def usage(node: dict[str, Any]) -> bool:
        if node["type"] == "code":
            return node.get("lang") == "console"
        return node["type"] in JSX_NODES and node["name"] == "pre"

    def pruned(node: dict[str, Any]) -> dict[str, Any]:
        children = [pruned(c) for c in node.get("children", ()) if not usage(c)]
        return {**node, "children": children} if "children" in node else node

    return pruned(tree)


@pytest.mark.parametrize("name", PAGES)
def test_hostile_pages_have_exactly_the_baselines_elements(
    sites: tuple[Site, Site], name: str
) -> None:
    harmless, hostile = sites
    # A value form's pieces (<span>, and <wbr /> after a comma) are as many as its text has.
    pieces = {"span", "wbr"}
    names = [e for e, _ in elements(without_usages(hostile.trees[name])) if e not in pieces]
    expected = [e for e, _ in elements(without_usages(harmless.trees[name])) if e not in pieces]
    assert Counter(names) == Counter(expected)
    found = elements(without_usages(hostile.trees[name]))
    assert all(ours(element, attributes) for element, attributes in found)


@pytest.mark.parametrize("name", PAGES)
def test_hostile_pages_hold_no_code_and_no_markup(sites: tuple[Site, Site], name: str) -> None:
    harmless, hostile = sites
    authors = ["/* a comment of the author's */"] if name == "guide.mdx" else []
    assert code_in(hostile.trees[name]) == code_in(harmless.trees[name]) == authors
    types = {node["type"] for node in walk(hostile.trees[name])}
    assert types <= {node["type"] for node in walk(harmless.trees[name])} | {"link"}, types
    for node in walk(hostile.trees[name]):
        if node["type"] == "link":  # what GFM makes of a bare web address: the address, shown
            assert node["url"].startswith("https://example.invalid/"), node["url"]
            assert [child["type"] for child in node["children"]] == ["text"]
            assert node["url"].startswith(node["children"][0]["value"])


@pytest.mark.parametrize("name", PAGES)
def test_every_table_keeps_one_cell_per_column(sites: tuple[Site, Site], name: str) -> None:
    harmless, hostile = sites
    shapes = [[len(row) for row in table.rows] for table in jsx_tables(hostile.trees[name])]
    assert shapes == [[len(r) for r in t.rows] for t in jsx_tables(harmless.trees[name])]
    for table in jsx_tables(hostile.trees[name]):
        assert all(len(row) == len(table.header) for row in table.rows)


def test_every_text_the_baseline_shows_is_shown_as_written(sites: tuple[Site, Site]) -> None:
    harmless, hostile = sites
    shown_by_baseline = {
        slot for slot, value in harmless.texts.items() if seen_as(value) in harmless.shown()
    }
    # The page title, the platform's texts, help texts, choices, sections, commands: all shown.
    assert {"page-title", "platform-title", "note-alpha", "reason-delta"} <= shown_by_baseline
    assert {"help-alpha", "choice-one", "section-one", "command-one"} <= shown_by_baseline
    page_text = hostile.shown()
    missing = [
        slot
        for slot in sorted(shown_by_baseline)
        if (shown_value if slot.startswith(("default-", "choice-")) else seen_as)(
            hostile.texts[slot]
        )
        not in page_text
    ]
    assert missing == []


def test_the_authors_words_and_markers_are_kept(sites: tuple[Site, Site]) -> None:
    for site in sites:
        assert outside_regions(site.sources["guide.mdx"]) == outside_regions(site.hand_written)
        assert len(jsx_tables(site.trees["guide.mdx"])) == 2


def test_a_second_generate_changes_nothing(tmp_path: Path) -> None:
    """A hostile text holding `{/* argmatrix:end */}` cannot end a region early: the next run
    finds the same regions and writes the same page."""
    root = tmp_path / "project"
    as_mdx_project(root, mdx_hostile_text)
    assert run_cli_in_process("generate", cwd=root).code == 0
    first = {name: (root / "docs" / name).read_bytes() for name in PAGES}
    # --beta's default holds `{/* argmatrix:end */}`: escaped, inside the first region.
    region = first["guide.mdx"].decode().split("argmatrix:begin", 1)[1]
    assert "argmatrix:end \\*/\\}" in region.split("{/* argmatrix:end */}")[0]
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert {name: (root / "docs" / name).read_bytes() for name in PAGES} == first
    assert run_cli_in_process("check", cwd=root).code == 0
