"""Whatever a help string or a manifest note holds, the tables stay intact and show it as text."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from argmatrix.config import PageSpec
from argmatrix.manifests.resolve import resolve_platform
from argmatrix.model.platform import Capability, Platform
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.values import value_text
from argmatrix.render.environment import environment
from argmatrix.render.formats.shared import CODE, folded, prose_parts
from argmatrix.render.views import page_context, server_page, support_page
from helpers import html_inline, tables

# Text with the characters that break hand-written tables, plus any Unicode at all.
TRICKY = st.sampled_from(
    [
        *list("|`*_<>&[]()\\#!~-+=:{}\"'\n\r\t\x00\x1b\u202e\u2067"),
        "<script>alert(1)</script>",
        "<!--",
        "-->",
        "</td>",
        "**",
        "__",
        "```",
        "[x](javascript:y)",
        "&lt;",
        "&#124;",
        "\\|",
        "| --- |",
        "参数",
        "مرحبا",
        "a" * 300,
        # what Markdown extensions and template re-readers turn into HTML
        '{: onclick="alert(1)" }',
        "{#id .cls onmouseover=x}",
        "{.c}",
        "{{",
        "{%",
        "{#",
        "!!! danger",
        "??? note",
        "~~~",
        "1. ",
        "2) ",
        "# ",
        "--8<-- ",
        "[TOC]",
        '<div markdown="1">',
        "</title><script>",
        "\ud800",
        ":::",
        "#!python ",
        "<img src=x onerror=alert(1)>",
        "]( javascript:alert(1))",
        "!https://a.example/x.png",  # the writer's link after a `!`: never an image
    ]
)
HELP = st.lists(st.one_of(TRICKY, st.text(max_size=20)), max_size=12).map("".join)
_WS = re.compile(r"\s+")
# A bullet at a line's start, as a list's writer reads one (a marker then words).
_BULLET = re.compile(r"^[ \t]*[-*+\u2022][ \t]+(?=\S)")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def as_read(text: str) -> str:
    """Running text (a help) as a reader sees it: code spans without their backticks (blank
    code quoted, so it can be seen), web addresses as their own text."""
    parts = prose_parts(folded(text).strip())
    return "".join(part if kind != CODE or part.strip() else f'"{part}"' for kind, part in parts)


_ITEM_MARKER = re.compile(r"(?:(?<=\s)|^)[-*+\u2022](?=\s)")


def without_markers(text: str) -> str:
    """A text with the bullets a list item may begin with left out, folded again: a help
    kept with its shape shows its `*` or `-` items after a bullet, its words the same."""
    return " ".join(_ITEM_MARKER.sub("", text).split())


def expected_text(text: str) -> str:
    """What a reader should see: the text itself, whitespace folded, invisible controls dropped,
    a lone surrogate shown as U+FFFD, and an invisible word joiner between `<` and `/` of an
    end tag like `</title>` (so that no text can close a page's <title>)."""
    text = "".join(c for c in text if c.isprintable() or c in "\t\n\r" or not _is_control(c))
    text = re.sub("[\ud800-\udfff]", "\ufffd", text)
    text = _WS.sub(" ", _BIDI.sub("", text)).strip()
    return re.sub(
        r"<(?=/(?:title|textarea|script|style|xmp|iframe|noembed|noframes|noscript"
        r"|plaintext))",
        "<\u2060",
        text,
        flags=re.IGNORECASE,
    )


def _is_control(char: str) -> bool:
    import unicodedata

    return unicodedata.category(char) == "Cc"


def _registry(help_text: str, choice: str) -> Registry:
    return Registry(
        source="fixture:build",
        sections=("Main",),
        arguments=(
            Argument(
                flags=("--alpha",),
                dest="alpha",
                section="Main",
                help=help_text,
                default=help_text,
                type="str",
            ),
            Argument(
                flags=("--beta", "-b"),
                dest="beta",
                section="Main",
                help="plain",
                choices=(choice, "x"),
                default=choice,
            ),
        ),
    )


def _render(template: str, **context: object) -> str:
    return environment(None).get_template(template).render(**context)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(help_text=HELP, choice=HELP)
@example(help_text="0`\n|`", choice="")  # a code span that starts with a space and holds a pipe
@pytest.mark.slow
def test_server_table_keeps_its_shape_and_text(help_text: str, choice: str) -> None:
    registry = _registry(help_text, choice)
    page = _render("server_arguments.md.j2", server=server_page(registry), title=None)
    found = tables(page)
    assert len(found) == 1
    assert [len(row) for row in found[0].rows] == [4, 4]
    alpha, beta = found[0].rows
    assert alpha[0] == "--alpha ALPHA"  # the flag, then the value form a user types
    # The description is prose: its code spans read as their content.
    assert _WS.sub(" ", alpha[1]).strip() == _WS.sub(" ", expected_text(as_read(help_text))).strip()
    # The default is a value: its control characters shown as escapes (`\\n`), never folded.
    default = expected_text(value_text(help_text))
    assert _WS.sub(" ", alpha[2]).strip() == default or (
        default == "" and alpha[2] in ('""', '" "')
    )
    # the choices are the value form, in braces as argparse writes them
    assert _WS.sub(" ", beta[0]) == "--beta, -b " + expected_text("{" + choice + ",x}")
    # (and the usage in a <pre> block of references, where a fence would keep `{#` as written;
    # a value form with a `|` in a <code> element: a code span would split the row)
    ours = ("<a id=", "</a>", "<br", '<pre><code class="language-console">', "<code>", "</code>")
    assert [h for h in html_inline(page) if not h.startswith(ours)] == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(note=HELP, reason=HELP.filter(lambda r: r.strip() != ""))
@pytest.mark.slow
def test_support_table_keeps_its_shape_with_any_note_or_reason(note: str, reason: str) -> None:
    registry = _registry("help", "y")
    platform = Platform(
        name="p",
        title="P",
        variants=("V1",),
        default="unverified",
        sections={},
        arguments={
            "--alpha": Capability("supported", note=note),
            "--beta": Capability("not-applicable", reason=reason),
        },
    )
    resolved = resolve_platform(platform, registry)
    page = _render("platform_support.md.j2", support=support_page(registry, resolved))
    found = tables(page)
    assert len(found) == 1
    width = len(found[0].header)
    assert all(len(row) == width for row in found[0].rows)
    # the status's symbol and word, the reason beside it (never instead of it)
    expected = f"– Not applicable ({expected_text(reason)})"
    assert _WS.sub(" ", found[0].rows[1][3]).strip() == expected
    # (and the usage in a <pre> block of references, where a fence would keep `{#` as written)
    ours = ("<a id=", "</a>", "<br", '<pre><code class="language-console">')
    assert [h for h in html_inline(page) if not h.startswith(ours)] == []


# ------------------------------------------------------------------ with the site's extensions

SITE_EXTENSIONS = [
    "tables",
    "attr_list",
    "md_in_html",
    "admonition",
    "toc",
    "pymdownx.details",
    "pymdownx.superfences",
    "pymdownx.inlinehilite",
    "pymdownx.highlight",
]
# What the bundled pages themselves make: headings, paragraphs, tables, anchors, code, breaks.
OUR_TAGS = {"h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "a", "br", "code"}
# ...and the shape of a help with one (its items as a list, the lines Click keeps in a block).
OUR_TAGS |= {"ul", "li", "pre"}


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, tuple[str, ...]]] = []
        self.code_classes: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, tuple(sorted(name for name, _ in attrs))))
        if tag == "code":
            self.code_classes.update(value or "" for name, value in attrs if name == "class")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _site_html(text: str) -> _Elements:
    import markdown

    elements = _Elements()
    elements.feed(markdown.markdown(text, extensions=SITE_EXTENSIONS))
    elements.close()
    return elements


# Pieces joined by spaces: an attribute list `{...}` acts only after a space, a list item
# only at the start of a line.
SPACED = st.lists(st.one_of(TRICKY, st.text(max_size=12)), max_size=8).map(" ".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    help_text=SPACED, choice=SPACED, title=SPACED, section=SPACED.filter(lambda t: t.strip() != "")
)
@example(
    help_text='see {: onclick="alert(1)" }',
    choice="x {#i .c onmouseover=y}",
    title="T",
    section="S",
)
@example(
    help_text="1. first",
    choice="x",
    title='# heading {: onclick="alert(1)" }',
    section='Model {: onclick="alert(1)" }',
)
@example(help_text='!!! danger "boom"', choice="y", title="??? note", section="~~~ fence")
@example(
    help_text='<div markdown="1">**bold**</div>',
    choice="{{ 7*7 }}",
    title="</title><script>alert(1)</script>",
    section="C#",
)
@example(help_text="[TOC]", choice="z", title="2) second", section="--8<-- x")
@example(  # a help with a shape: a list, lines Click keeps as written, markup in each
    help_text="Intro\n\n- [x](javascript:alert(1))\n- <b>b</b> {: onclick=a }\n\n\b\n"
    "{{ secret }}\n  <!-- argmatrix:end -->\n```",
    choice="c",
    title="t",
    section="s",
)
@pytest.mark.slow
def test_python_markdown_with_the_sites_extensions_makes_no_element_of_any_text(
    help_text: str,
    choice: str,
    title: str,
    section: str,
) -> None:
    """attr_list, md_in_html, admonitions, fences, link syntax in a help text, a default, a
    choice, a section title (a heading) or a page title and a description (paragraphs of their
    own): Python-Markdown makes no element and no attribute of them, and shows them as text."""
    registry = _registry(help_text, choice)
    registry = Registry(
        source=registry.source,
        sections=(section,),
        description=help_text,
        # (no default shown as the help's escaped text: the help is read in its cell alone)
        arguments=tuple(
            replace(a, section=section, default=None if a.dest == "alpha" else a.default)
            for a in registry.arguments
        ),
    )
    spec = PageSpec("server_arguments.md.j2", "x.md", title=title or None, options={"html": True})
    context = page_context(spec, registry, {}, "argmatrix.yaml")
    # the usage synopsis is a fenced code block, its text the fence's (test_usage_synopsis.py)
    context["server"] = replace(context["server"], usage="")
    page = _site_html(_render("server_arguments.md.j2", **context))
    assert {tag for tag, _ in page.found} <= OUR_TAGS | {"span"}
    # A table's first heading names its columns' keys, for the site's script.
    assert {attrs for tag, attrs in page.found if tag == "span"} == {("data-am-columns",)}
    assert {attrs for tag, attrs in page.found if tag not in ("a", "span", "code")} <= {
        (),
        ("id",),
    }
    # a block of the lines Click keeps, when it must be a <pre> of references: its language
    assert {attrs for tag, attrs in page.found if tag == "code"} <= {(), ("class",)}
    assert all(re.fullmatch(r"language-[a-z]+", name) for name in page.code_classes)
    # anchors of rows, their permalinks (`<a class href title>`), and links the prose writer
    # made of a help's web addresses
    assert {attrs for tag, attrs in page.found if tag == "a"} <= {
        ("id",),
        ("href",),
        ("class", "href", "title"),
    }
    shown = _WS.sub(" ", "".join(page.text)).replace("\u2060", "")
    # The help keeps its shape (paragraphs, list items, kept lines): each line the author
    # wrote reads as written, but for a bullet that became a list item's marker.
    lines = [_BULLET.sub("", line) for line in re.split(r"\r\n|\r|\n", help_text)]
    for text in (*lines, value_text(choice), title, section):
        assert expected_text(text).replace("\u2060", "") in shown
