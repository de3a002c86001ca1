"""No input reaches a Sphinx site as markup: a real `sphinx-build -W` of the hostile project of
tests/test_hostile_pages.py (every text of the registry, the manifest and the configuration
carries raw HTML, script tags, attribute lists, fence breakers, link syntax, control characters
and Jinja delimiters), with MyST and reST syntax put in front of each text too (roles such as
`{eval-rst}`, substitutions, math, footnotes, targets, comments and in-place markers, colon
fences, table pipes, backticks), its pages generated at build time in the `myst` format, a
hand-written MyST page with an in-place region, and tables embedded by the `argmatrix` directive
from MyST and from reST.

The same project with harmless words in the same places is the baseline. The build stays clean
under `-W`; the hostile site has exactly the baseline's elements, scripts and table shapes (each
row one cell per column), no event attribute or `javascript:` URL, nothing substituted, and every
text the baseline shows is shown as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from argmatrix.model.values import value_text
from argmatrix.render.formats import myst
from argmatrix.render.formats.shared import CODE, prose_parts
from test_hostile_pages import (
    INJECTED_TAGS,
    Maker,
    Page,
    _yaml,
    harmless_text,
    hostile_text,
    read_html,
    seen_as,
    write_project,
)
from test_sphinx_build import HtmlPage, read_page, sphinx_build
from test_table_property import as_read

MYST_PAYLOADS = (
    "{eval-rst}`.. raw:: html` {raw}`<b>x</b>`",
    "{{ secret }} |a|b|",
    "$x^2$ and $$y$$ \\(z\\)",
    "[^1] ~~gone~~ *em* _em_",
    "(target)= % argmatrix:end",
    ":::{danger} boom",
    "`tick` ``two`` \\ trailing",
    "<script>alert(1)</script> {#id .cls}",
    ":field: value",
    "+++ {ref}`genindex`",
)
# The sections named in the markers and the directives keep the slot's name first.
IN_MARKERS = ("section-one", "section-two")
# Elements a MyST or reST construct would add (footnotes, definitions, math, strikethrough...).
MORE_TAGS = ("aside", "dl", "dt", "dd", "hr", "sup", "del", "s", "math", "mark", "section")
PAGES = ("server", "npu", "npu_variants", "guide", "tables", "tables_rest")

pytestmark = [pytest.mark.hostile, pytest.mark.engine]  # two Sphinx builds of a larger project


def sphinx_hostile_text(slot: str, payloads: tuple[int, ...], single_line: bool) -> str:
    hostile = hostile_text(slot, payloads, single_line)
    payload = MYST_PAYLOADS[payloads[0] % len(MYST_PAYLOADS)]
    return f"{hostile} {payload}" if slot in IN_MARKERS else f"{payload} {hostile}"


def as_sphinx_project(root: Path, make: Maker) -> dict[str, str]:
    """The hostile project, its pages in MyST and built by Sphinx: the texts by slot."""
    texts = write_project(root, make).texts
    docs = root / "docs"
    (root / "argmatrix.yaml").write_text(
        "registry: {target: hostile_cli:build_parser, mode: static}\n"
        "manifests: [capabilities/npu.yaml]\n"
        "docs_dir: docs\n"
        "pages:\n"
        "  - {template: server_arguments.myst.j2, output: server.md, format: myst,"
        f" title: {_yaml(texts['page-title'])}}}\n"
        "  - {template: platform_support.myst.j2, output: npu.md, platform: npu, format: myst}\n"
        "  - {template: platform_support.myst.j2, output: npu_variants.md, platform: npu,"
        " format: myst, options: {layout: variants}}\n"
        "  - {template: server_arguments.myst.j2, output: guide.md, inplace: true,"
        " format: myst}\n",
        encoding="utf-8",
    )
    (docs / "conf.py").write_text(
        'project = "hostile"\n'
        'extensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\n'
        "smartquotes = False  # typography, not markup: texts compare as written\n"
        'myst_enable_extensions = ["amsmath", "attrs_inline", "attrs_block", "colon_fence",'
        ' "deflist", "dollarmath", "fieldlist", "html_admonition", "html_image",'
        ' "strikethrough", "substitution", "tasklist"]\n'
        'myst_substitutions = {"secret": "SUBSTITUTED"}\n'
        'suppress_warnings = ["myst.strikethrough"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\nserver\nnpu\nnpu_variants\nguide\ntables\ntables_rest\n```\n",
        encoding="utf-8",
    )
    (docs / "guide.md").write_text(
        "# Guide\n\nHand-written words.\n\n"
        f'% argmatrix:begin section="{texts["section-one"]}"\n% argmatrix:end\n\n'
        "Closing words.\n",
        encoding="utf-8",
    )
    (docs / "tables.md").write_text(
        "# Tables\n\n"
        f"```{{argmatrix}}\n---\nsection: {_yaml(texts['section-one'])}\nno-index:\n---\n```\n\n"
        f"```{{argmatrix}}\n---\nsection: {_yaml(texts['section-two'])}\nplatform: npu\n---\n```\n",
        encoding="utf-8",
    )
    (docs / "tables_rest.rst").write_text(
        f"Tables from reST\n================\n\n.. argmatrix::\n   :section: {texts['section-two']}\n"
        "   :no-index:\n",
        encoding="utf-8",
    )
    return texts


@dataclass
class Site:
    texts: dict[str, str]
    pages: dict[str, Page]  # elements, attributes, scripts and text
    tables: dict[str, HtmlPage]
    sources: dict[str, str]


def build(root: Path, make: Maker) -> Site:
    texts = as_sphinx_project(root, make)
    result = sphinx_build(root / "docs", root / "_build")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    html = {name: root / "_build" / f"{name}.html" for name in PAGES}
    return Site(
        texts,
        {name: read_html(path) for name, path in html.items()},
        {name: read_page(path) for name, path in html.items()},
        {name: (root / "docs" / f"{name}.md").read_text(encoding="utf-8") for name in PAGES[:4]},
    )


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Site, Site]:
    return (
        build(tmp_path_factory.mktemp("harmless") / "project", harmless_text),
        build(tmp_path_factory.mktemp("hostile") / "project", sphinx_hostile_text),
    )


@pytest.mark.parametrize("name", PAGES)
def test_no_element_comes_from_the_inputs(sites: tuple[Site, Site], name: str) -> None:
    harmless, hostile = sites
    found, baseline = hostile.pages[name].tags, harmless.pages[name].tags
    tags = (*INJECTED_TAGS, *MORE_TAGS)
    assert {t: found[t] for t in tags} == {t: baseline[t] for t in tags}
    # A value code cannot hold as written is text; only the code spans of running text (helps,
    # notes, reasons: prose) may add code, each at most where its text is shown on the page.
    shown = hostile.pages[name].text
    spans = sum(
        len([k for k, _ in prose_parts(text) if k == CODE]) * max(1, shown.count(slot + " "))
        for slot, text in hostile.texts.items()
        if slot.startswith(PROSE_SLOTS)
    )
    assert found["code"] <= baseline["code"] + spans


@pytest.mark.parametrize("name", PAGES)
def test_nothing_runs(sites: tuple[Site, Site], name: str) -> None:
    harmless, hostile = sites
    page, baseline = hostile.pages[name], harmless.pages[name]
    assert page.event_attributes == [] and page.javascript_urls == []
    assert page.script_sources == baseline.script_sources  # no MathJax: no math was read
    assert len(page.inline_scripts) == len(baseline.inline_scripts)
    assert "SUBSTITUTED" not in page.text


@pytest.mark.parametrize("name", PAGES)
def test_every_table_keeps_its_shape(sites: tuple[Site, Site], name: str) -> None:
    harmless, hostile = sites
    shapes = [[len(r.cells) for r in t.rows] for t in hostile.tables[name].tables]
    assert shapes == [[len(r.cells) for r in t.rows] for t in harmless.tables[name].tables]
    assert shapes, name
    for table in hostile.tables[name].tables:
        assert all(len(row.cells) == len(table.header) for row in table.rows)


def test_every_text_the_baseline_shows_is_shown_as_written(sites: tuple[Site, Site]) -> None:
    harmless, hostile = sites
    baseline_text = " ".join(page.text for page in harmless.pages.values())
    shown_by_baseline = {
        slot for slot, value in harmless.texts.items() if seen_as(value) in baseline_text
    }
    assert {"page-title", "platform-title", "note-alpha", "reason-delta"} <= shown_by_baseline
    assert {"help-alpha", "choice-one", "section-one", "section-two"} <= shown_by_baseline
    page_text = " ".join(page.text for page in hostile.pages.values())
    # Elements are joined by spaces when the page's text is read: `{ref}<code>x</code>` reads
    # "{ref} x". White space aside, every text is there as the baseline shows it.
    unspaced = "".join(page_text.split())
    missing = [
        slot
        for slot in sorted(shown_by_baseline)
        if "".join(seen_as(as_shown(slot, hostile.texts)).split()) not in unspaced
    ]
    assert missing == []


# Running text: its code spans read as code, its web addresses as links (formats.shared.prose).
PROSE_SLOTS = ("help-", "note-", "reason-", "command-description")


def as_shown(slot: str, texts: dict[str, str]) -> str:
    """What a reader sees of a slot's text: prose without its code spans' backticks; a default
    or a choice with its control characters as escapes."""
    text = texts[slot]
    if slot.startswith(("default-", "choice-")):
        return value_text(text)
    return as_read(text) if slot.startswith(PROSE_SLOTS) else text


def test_the_embedded_tables_show_the_rows_of_the_generated_ones(
    sites: tuple[Site, Site],
) -> None:
    """The directive's nodes and the MyST text the build parsed show the same cells."""
    for site in sites:
        server = site.tables["server"].tables
        embedded = site.tables["tables"].tables[0]
        assert [r.cells for r in embedded.rows] == [r.cells for r in server[0].rows]
        assert [r.cells for r in site.tables["guide"].tables[0].rows] == [
            r.cells for r in server[0].rows
        ]
        rest = site.tables["tables_rest"].tables[0]
        assert [r.cells for r in rest.rows] == [r.cells for r in server[1].rows]


def test_the_hand_written_words_and_markers_are_kept(sites: tuple[Site, Site]) -> None:
    for site in sites:
        guide = site.sources["guide"]
        assert guide.startswith("# Guide\n\nHand-written words.\n\n% argmatrix:begin section=")
        assert guide.endswith("\n% argmatrix:end\n\nClosing words.\n")
        assert len(myst.REGION.begin.findall(guide)) == len(myst.REGION.end.findall(guide)) == 1
