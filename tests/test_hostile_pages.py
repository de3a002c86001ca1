"""No input reaches the site as HTML: a real `mkdocs build --strict` of a project whose every text
input is hostile.

A pull request from a fork controls the registry's source (help texts, `# section` comments,
metavars, choices, defaults, subcommands, prog), the manifests (title, variants, notes, reasons,
options), argmatrix.yaml (page titles and options) and hand-written pages. The project below puts
attribute lists, raw HTML, script tags, fence breakers, link syntax, control characters and
Jinja delimiters in every one of them, generates its pages with `argmatrix generate`, and builds
the site with Material, `attr_list`, `md_in_html`, `admonition`, superfences and a permalinked
`toc`. The same project with harmless words in the same places is the baseline: the hostile
site must have exactly its elements (no img, div, svg, script... of ours), no `on*` attribute,
no `javascript:` URL, and show every hostile text as text.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from argmatrix.model.values import value_text
from e2e.site import Build, build_site
from helpers import REGISTRIES, load, run_cli_in_process, tables

PAYLOADS = (
    '{: onclick="alert(1)" }',
    "{#x .y onmouseover=z}",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<div markdown="1">',
    "``` <b>fenced</b>",
    "]( javascript:alert(1))",
    "[x](javascript:alert(1))",
    "ctrl\x1b[31m\x07\u202eend",
    "{% raw %}{{ 7*7 }}",
    '!!! danger "boom"',
    # and an image, were the link the writer makes of an address left after the `!`
    "<svg onload=alert(1)>!https://example.invalid/pixel.png",
    "<iframe src=javascript:alert(1)></iframe>",
    '# heading {: onclick="alert(1)" }',
    "</title><script>alert(1)</script>",
)
HIGHLIGHT = "div.highlight"
# Tags an attacker would inject; the baseline (harmless) site has them only where the theme does.
INJECTED_TAGS = (
    "img",
    "div",
    "iframe",
    "svg",
    "script",
    "style",
    "object",
    "embed",
    "form",
    "input",
    "details",
    "b",
    "h1",
    "h2",
    "h3",
    "h4",
    "a",
    "table",
    "tr",
    "td",
    "th",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "p",
    "em",
    "strong",
)


Maker = Callable[[str, tuple[int, ...], bool], str]
# The address of a payload: a help text's address is a link argmatrix makes (counted apart from
# the page's other elements: the harmless site has no address), never an image.
BAIT_ADDRESS = "https://example.invalid/pixel.png"
WRITERS_LINK = "a href=bait"


def hostile_text(slot: str, payloads: tuple[int, ...], single_line: bool) -> str:
    text = " ".join([slot, *(PAYLOADS[n % len(PAYLOADS)] for n in payloads)])
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "", text) if single_line else text


def harmless_text(slot: str, payloads: tuple[int, ...], single_line: bool) -> str:
    return f"{slot} plain words number {payloads[0]}"


@dataclass
class Project:
    root: Path
    texts: dict[str, str]
    visible: set[str]


def write_project(root: Path, make: Maker) -> Project:
    """The project, every text from `make(slot, payload numbers, single line only)`: each slot
    gets two payloads (the first, and the fifth after it) unless it names its own."""
    texts: dict[str, str] = {}
    visible: set[str] = set()

    def text(
        slot: str,
        payload: int,
        *,
        shown: bool = True,
        single_line: bool = False,
        upper: bool = False,
        payloads: tuple[int, ...] = (),
    ) -> str:
        value = make(slot, payloads or (payload, payload + 5), single_line)
        value = value.upper() if upper else value
        texts[slot] = value
        if shown:
            visible.add(slot)
        return value

    def lit(slot: str, payload: int, **options: bool) -> str:
        return repr(text(slot, payload, **options))

    registry = f'''"""A registry whose every text is the pull request's."""

import argparse


def build_parser():
    parser = argparse.ArgumentParser(prog={lit("prog", 1)},
                                     description={lit("description", 2)})
    # {text("section-one", 1, single_line=True)}
    parser.add_argument("--alpha", help={lit("help-alpha", 3)} + " prog=%(prog)s",
                        default={lit("default-alpha", 4)}, metavar={lit("metavar-alpha", 5)})
    parser.add_argument("--beta", choices=[{lit("choice-one", 6)}, {lit("choice-two", 7)}],
                        default={lit("choice-default", 8)}, help={lit("help-beta", 9)})
    parser.add_argument({lit("positional", 10, upper=True)}, nargs="?",
                        help={lit("help-positional", 11)})
    # {text("section-two", 9, single_line=True, payloads=(9, 8))}
    parser.add_argument("--gamma", action="store_true", help={lit("help-gamma", 12)})
    parser.add_argument("--delta", nargs=2, metavar=({lit("metavar-one", 13)},
                                                     {lit("metavar-two", 0)}),
                        help={lit("help-delta", 1)})
    parser.add_argument("--old-alpha", help="Deprecated: use --alpha. " + {lit("help-old", 2)})
    commands = parser.add_subparsers(dest="command")
    first = commands.add_parser({lit("command-one", 3)}, help={lit("command-help-one", 4)},
                                description={lit("command-description", 5)},
                                aliases=[{lit("alias", 6)}])
    first.add_argument("target", metavar={lit("metavar-target", 10, upper=True)}, nargs="?",
                       help={lit("help-target", 11)})
    # {text("section-shared", 7, single_line=True)}
    first.add_argument("--port", help={lit("help-port", 8)}, default={lit("default-port", 9)})
    second = commands.add_parser({lit("command-two", 12)}, help={lit("command-help-two", 13)})
    # {texts["section-shared"]}
    second.add_argument("--port", help={lit("help-port", 8)}, default={lit("default-port", 9)})
    return parser
'''
    manifest_lines = [
        "platform: npu",
        f"title: {_yaml(text('platform-title', 0, payloads=(14, 0)))}",
        f"description: {_yaml(text('platform-description', 1))}",
        f"variants: [{_yaml(text('variant-one', 2))}, {_yaml(text('variant-two', 3))}]",
        "default: unverified",
        "arguments:",
        f"  --alpha: {{status: supported, note: {_yaml(text('note-alpha', 4))}}}",
        f"  --beta: {{status: supported, variants: [{_yaml(texts['variant-two'])}],"
        f" options: [{_yaml(texts['choice-one'])}]}}",
        f"  --gamma: {{status: not-applicable, reason: {_yaml(text('reason-gamma', 5))}}}",
        f"  --delta: {{status: unsupported, reason: {_yaml(text('reason-delta', 6))}}}",
    ]
    # Marker and directive attributes are `name="value"`: these two sections have no '"' or '>'.
    section = texts["section-two"]
    hand_written = (
        "# Guide\n\n"
        f"Hand-written words quote `{texts['help-alpha']}` in code and {{% raw %}} as text.\n\n"
        '<!-- argmatrix:begin section="' + texts["section-one"] + '" -->\n'
        "<!-- argmatrix:end -->\n\n"
        "```text\n<script>alert(1)</script> in a fence of the author's\n```\n\n"
        f'<!-- argmatrix section="{section}" platform="npu" -->\n\n'
        "Closing words {{ 7*7 }}.\n"
    )
    config = (
        "registry: {target: hostile_cli:build_parser, mode: static}\n"
        "manifests: [capabilities/npu.yaml]\n"
        "docs_dir: docs\n"
        "pages:\n"
        f"  - {{template: server_arguments.md.j2, output: server.md,"
        f" title: {_yaml(text('page-title', 14))}}}\n"
        "  - {template: platform_support.md.j2, output: npu.md, platform: npu}\n"
        "  - {template: platform_support.md.j2, output: npu_variants.md, platform: npu,"
        " options: {layout: variants}}\n"
        "  - {template: platform_matrix.md.j2, output: matrix.md}\n"
        "  - {template: cli_reference.md.j2, output: cli.md,"
        f" options: {{prog: {_yaml(text('cli-prog', 5))}}}}}\n"
        "  - {template: server_arguments.md.j2, output: guide.md, inplace: true}\n"
    )
    mkdocs = (
        "site_name: hostile\n"
        "docs_dir: docs\n"
        "theme: {name: material}\n"
        "plugins: [search, argmatrix]\n"
        "nav: [index.md, server.md, npu.md, npu_variants.md, matrix.md, cli.md, guide.md]\n"
        "markdown_extensions:\n"
        "  - tables\n  - attr_list\n  - md_in_html\n  - admonition\n  - pymdownx.details\n"
        "  - pymdownx.highlight\n  - pymdownx.inlinehilite\n  - pymdownx.superfences\n"
        "  - toc: {permalink: true}\n"
    )
    (root / "docs").mkdir(parents=True)
    (root / "capabilities").mkdir()
    (root / "hostile_cli.py").write_text(registry, encoding="utf-8")
    (root / "capabilities" / "npu.yaml").write_text(
        "\n".join(manifest_lines) + "\n", encoding="utf-8"
    )
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    (root / "mkdocs.yml").write_text(mkdocs, encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Home\n\nThe pages are generated.\n")
    (root / "docs" / "guide.md").write_text(hand_written, encoding="utf-8")
    return Project(root, texts, visible)


def _yaml(text: str) -> str:
    """A YAML double-quoted scalar holding `text` exactly (control characters escaped)."""
    escaped = "".join(
        f"\\x{ord(c):02x}"
        if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F
        else f"\\u{ord(c):04x}"
        if unicodedata.category(c) in ("Cf", "Zl", "Zp")
        else "\\\\"
        if c == "\\"
        else '\\"'
        if c == '"'
        else c
        for c in text
    )
    return f'"{escaped}"'


def seen_as(text: str) -> str:
    """What a reader sees of a text: control and format characters dropped, white space
    folded (pages fold it; HTML shows any run of it as one space)."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))
    return " ".join(kept.split())


# ------------------------------------------------------------------ parsing the built HTML


@dataclass
class Page:
    tags: Counter[str] = field(default_factory=Counter)
    event_attributes: list[tuple[str, str]] = field(default_factory=list)
    javascript_urls: list[str] = field(default_factory=list)
    script_sources: set[str] = field(default_factory=set)
    inline_scripts: list[str] = field(default_factory=list)
    text: str = ""


class _Reader(HTMLParser):
    """Elements, attributes and text of a page, read as a browser reads them: what is inside
    `<title>` and `<textarea>` is text up to their end tag, as in `<script>` (html.parser reads
    tags there unless told)."""

    CDATA_CONTENT_ELEMENTS = ("script", "style", "title", "textarea")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.parts: list[str] = []
        self.in_script = False
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.in_title = tag == "title"
        writers_link = tag == "a" and dict(attrs).get("href") == BAIT_ADDRESS
        # A fenced code block's own wrappers (the theme, or Sphinx, highlights a usage
        # synopsis; one holding a hostile metavar is a <pre> block of references instead).
        classes = (dict(attrs).get("class") or "").split()
        highlight = tag == "div" and any(c.startswith("highlight") for c in classes)
        self.page.tags[WRITERS_LINK if writers_link else HIGHLIGHT if highlight else tag] += 1
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.page.event_attributes.append((tag, name))
            if (
                value
                and "javascript:" in re.sub(r"\s", "", value).lower()
                and name in ("href", "src", "action", "formaction", "data", "xlink:href")
            ):
                self.page.javascript_urls.append(f"{tag} {name}={value}")
        if tag == "script":
            self.in_script = True
            source = dict(attrs).get("src")
            if source:
                self.page.script_sources.add(source)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.in_script = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False
        if tag == "title":
            self.in_title = False

    def handle_data(self, data: str) -> None:
        if self.in_title:
            return
        if self.in_script:
            self.page.inline_scripts.append(data)
        else:
            self.parts.append(data)


def read_html(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    reader.page.text = seen_as(" ".join(reader.parts))
    return reader.page


PAGES = ("server", "npu", "npu_variants", "matrix", "cli", "guide")


@dataclass
class Site:
    project: Project
    build: Build
    pages: dict[str, Page]
    markdown: dict[str, str]


def build(root: Path, make: Maker) -> Site:
    project = write_project(root, make)
    generated = run_cli_in_process("generate", cwd=root)
    assert generated.code == 0, generated.err
    result = build_site(root / "mkdocs.yml", root / "site")
    assert result.code == 0, result.output
    assert result.warnings == [], result.warnings
    pages = {name: read_html(root / "site" / name / "index.html") for name in PAGES}
    markdown = {name: (root / "docs" / f"{name}.md").read_text(encoding="utf-8") for name in PAGES}
    return Site(project, result, pages, markdown)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return build(tmp_path_factory.mktemp("hostile"), hostile_text)


@pytest.fixture(scope="module")
def harmless(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return build(tmp_path_factory.mktemp("harmless"), harmless_text)


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("name", PAGES)
def test_no_element_has_an_event_attribute(hostile: Site, name: str) -> None:
    assert hostile.pages[name].event_attributes == []


@pytest.mark.parametrize("name", PAGES)
def test_no_link_or_source_is_a_javascript_url(hostile: Site, name: str) -> None:
    assert hostile.pages[name].javascript_urls == []


@pytest.mark.parametrize("name", PAGES)
def test_the_only_scripts_are_the_themes(hostile: Site, harmless: Site, name: str) -> None:
    page, baseline = hostile.pages[name], harmless.pages[name]
    assert page.script_sources == baseline.script_sources
    assert len(page.inline_scripts) == len(baseline.inline_scripts)
    assert [s for s in page.inline_scripts if "alert(" in s] == []


@pytest.mark.parametrize("name", PAGES)
def test_no_element_comes_from_the_inputs(hostile: Site, harmless: Site, name: str) -> None:
    """The hostile page has the very elements of the harmless one: nothing was injected."""
    found, baseline = hostile.pages[name].tags, harmless.pages[name].tags
    assert {t: found[t] for t in INJECTED_TAGS} == {t: baseline[t] for t in INJECTED_TAGS}


def test_an_address_after_a_bang_is_a_link_never_an_image(hostile: Site) -> None:
    """`!` + the link the writer makes of an address would be an image in Markdown."""
    assert "help-positional" in hostile.project.visible  # a help text with the payload
    assert sum(page.tags[WRITERS_LINK] for page in hostile.pages.values()) > 0
    assert sum(page.tags["img"] for page in hostile.pages.values()) == 0


def shown_value(text: str) -> str:
    """What a reader sees of a default or a choice: its control characters as escapes."""
    return seen_as(value_text(text))


def shown_prose(text: str) -> str:
    """What a reader sees of a help text: its address is a link, whose text the page reader
    reads as a part of its own (parts are joined by a space)."""
    return seen_as(text.replace(f"!{BAIT_ADDRESS}", f"! {BAIT_ADDRESS} "))


def shown_as(slot: str, text: str) -> str:
    if slot.startswith(("default-", "choice-")):
        return shown_value(text)
    return shown_prose(text) if "help" in slot or slot == "description" else seen_as(text)


def test_every_hostile_text_is_shown_as_text(hostile: Site) -> None:
    shown = " ".join(page.text for page in hostile.pages.values())
    missing = [
        slot
        for slot in sorted(hostile.project.visible)
        if shown_as(slot, hostile.project.texts[slot]) not in shown
    ]
    assert missing == []


def test_the_payloads_are_in_the_inputs(hostile: Site) -> None:
    """The checks above mean something only if every payload went in somewhere."""
    inputs = " ".join(hostile.project.texts.values())
    assert [p for p in PAYLOADS if p not in inputs and seen_as(p) not in inputs] == []


def test_the_hand_written_words_are_kept(hostile: Site) -> None:
    guide = hostile.markdown["guide"]
    assert guide.startswith("# Guide\n\nHand-written words quote `")
    assert "```text\n<script>alert(1)</script> in a fence of the author's\n```" in guide
    assert guide.endswith("Closing words {{ 7*7 }}.\n")
    assert "{{ 7*7 }}" in hostile.pages["guide"].text  # the page was never read as a template


def test_every_table_keeps_one_row_per_argument_and_its_columns(hostile: Site) -> None:
    texts = hostile.project.texts
    server = tables(hostile.markdown["server"])
    for name in ("server", "npu", "npu_variants", "matrix", "cli", "guide"):
        for table in tables(hostile.markdown[name]):
            assert all(len(row) == len(table.header) for row in table.rows), name
    # Two sections, the deprecated arguments, then the subcommands' sections: each flag with
    # the value form a user types (its metavar, its choices), a positional with its usage form.
    positional, target = texts["positional"], texts["metavar-target"]
    assert [[seen_as(row[0]) for row in table.rows] for table in server] == [
        [
            seen_as(f"--alpha {texts['metavar-alpha']}"),
            seen_as(f"--beta {{{texts['choice-one']},{texts['choice-two']}}}"),
            seen_as(f"{positional} [{positional}]"),
        ],
        ["--gamma", seen_as(f"--delta {texts['metavar-one']} {texts['metavar-two']}")],
        ["--old-alpha OLD_ALPHA"],
        [seen_as(f"{target} [{target}]")],
        ["--port PORT"],
        ["--port PORT"],
    ]
    # The section both commands have is shown once, as shared, in the CLI reference.
    cli = hostile.markdown["cli"]
    assert cli.count("## Options shared by several commands") == 1
    assert len([t for t in tables(cli) if [r[0] for r in t.rows] == ["--port PORT"]]) == 1
    described = {row[0].split(" ")[0]: seen_as(row[1]) for row in server[0].rows}
    assert described["--alpha"] == seen_as(texts["help-alpha"] + " prog=" + texts["prog"])
    assert described["--beta"] == seen_as(texts["help-beta"])
    assert [seen_as(cell) for cell in server[0].rows[1][2:]] == [
        shown_value(texts["choice-default"]),
        shown_value(texts["choice-one"]) + ", " + shown_value(texts["choice-two"]),
    ]


def test_the_harmless_site_has_the_same_tables(hostile: Site, harmless: Site) -> None:
    for name in ("server", "npu", "npu_variants", "matrix", "cli"):
        shape = [(len(t.header), len(t.rows)) for t in tables(hostile.markdown[name])]
        assert shape == [(len(t.header), len(t.rows)) for t in tables(harmless.markdown[name])]


# ------------------------------------------------------------------ text that is not text


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_lone_surrogate_reads_as_the_replacement_character(mode: str, tmp_path: Path) -> None:
    """`"\\ud800"` in a registry's string literal cannot be written as UTF-8: the converter
    shows it as U+FFFD in the model, so pages render and are written."""
    registry = load("python_versions_cli:build_parser", mode)  # type: ignore[arg-type]
    argument = registry.by_flag()["--surrogate"]
    assert (argument.default, argument.help) == ("\ufffd", "Half a pair: \ufffd.")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REGISTRIES / "python_versions_cli.py", project)
    (project / "argmatrix.yaml").write_text(
        f"registry: {{target: python_versions_cli:build_parser, mode: {mode}}}\n"
        "pages:\n  - {template: server_arguments.md.j2, output: server.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    page = (project / "docs" / "server.md").read_text(encoding="utf-8")
    assert "| Half a pair: \ufffd. | `\ufffd` |" in page
