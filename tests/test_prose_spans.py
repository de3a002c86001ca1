"""Help texts and notes keep their code spans and links in every output format: balanced
backticks read as code (their content escaped), unbalanced ones stay literal, web addresses
become links to themselves, and nothing else of the text turns into markup. Each format is read
back by its real parser: markdown-it (CommonMark + GFM tables), myst-parser's, the MDX compiler,
and the document tree the Sphinx directive builds from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from argmatrix.render.formats import markdown, mdx, myst, tree
from argmatrix.render.formats.shared import CODE, LINK, TEXT, prose_parts
from test_mdx_compiler import MdxCompiler, compiled, compiler_fixture, walk

HELP = (
    "Use `--tp-size` or ``x*y_z <b>`` here; see https://example.org/a_b?x=1&y=2. "
    "And `https://in.code/` is code; a lone ` stays."
)
# What a reader sees, in order: (kind, text), and for links the address.
EXPECTED = [
    (TEXT, "Use "),
    (CODE, "--tp-size"),
    (TEXT, " or "),
    (CODE, "x*y_z <b>"),
    (TEXT, " here; see "),
    (LINK, "https://example.org/a_b?x=1&y=2"),
    (TEXT, ". And "),
    (CODE, "https://in.code/"),
    (TEXT, " is code; a lone ` stays."),
]

GFM = MarkdownIt("commonmark").enable("table")
MYST = create_md_parser(
    MdParserConfig(enable_extensions={"dollarmath", "substitution", "attrs_inline", "colon_fence"}),
    RendererHTML,
)


def test_the_parts_of_a_help_text() -> None:
    assert prose_parts(HELP) == EXPECTED


def _cell_inline(parser: MarkdownIt, cell: str) -> list[Token]:
    tokens = parser.parse(f"| h |\n| --- |\n| {cell} |\n")
    cells = [t for t in tokens if t.type == "inline"]
    assert len(cells) == 2, f"the text broke the table: {cell!r}"
    return cells[1].children or []


def _read_back(children: list[Token]) -> list[tuple[str, str]]:
    """The parts a Markdown reader sees: text (joined), code spans, links (by address)."""
    parts: list[tuple[str, str]] = []
    in_link: str | None = None
    for token in children:
        if token.type == "link_open":
            in_link = str(token.attrs["href"])
            parts.append((LINK, in_link))
        elif token.type == "link_close":
            in_link = None
        elif in_link is not None:
            assert token.type == "text" and token.content == in_link, token
        elif token.type == "code_inline":
            parts.append((CODE, token.content))
        elif token.type in ("text", "softbreak"):
            if parts and parts[-1][0] == TEXT:
                parts[-1] = (TEXT, parts[-1][1] + token.content)
            else:
                parts.append((TEXT, token.content))
        else:
            raise AssertionError(f"markup the text did not ask for: {token.type}")
    return parts


@pytest.mark.parametrize(
    ("fmt", "parser"), [(markdown, GFM), (myst, MYST)], ids=["markdown", "myst"]
)
def test_markdown_formats_read_back_as_written(fmt: Any, parser: MarkdownIt) -> None:
    assert _read_back(_cell_inline(parser, fmt.prose(HELP))) == EXPECTED


@pytest.mark.parametrize("fmt", [markdown, myst], ids=["markdown", "myst"])
def test_code_a_table_cannot_hold_reads_as_its_text(fmt: Any) -> None:
    """A pipe or a backtick inside a code span cannot be written in a pipe table's code span:
    such code is shown as its text, whole."""
    parser = GFM if fmt is markdown else MYST
    assert _read_back(_cell_inline(parser, fmt.prose("Use `a|b` or ``x`y``."))) == [
        (TEXT, "Use a|b or x`y.")
    ]


IMAGE_BAITS = (
    "See!https://evil.example/pixel.png",
    "Wow!! https://a.example/x and !http://b.example/y!",
    "a \\!https://c.example/z",  # a backslash of the text's own before the `!`
    "`x`!https://d.example/w",
)


@pytest.mark.parametrize("text", IMAGE_BAITS)
@pytest.mark.parametrize(
    ("fmt", "parser"), [(markdown, GFM), (myst, MYST)], ids=["markdown", "myst"]
)
def test_a_bang_before_an_address_opens_no_image(fmt: Any, parser: MarkdownIt, text: str) -> None:
    """`!` + the link the writer makes of an address would be an image in Markdown syntax:
    `_read_back` fails on any token but text, code and links."""
    parts = _read_back(_cell_inline(parser, fmt.prose(text)))
    assert "".join(p for _, p in parts).count("!") == text.count("!")
    assert [p for k, p in parts if k == LINK] == [p for k, p in prose_parts(text) if k == LINK]


def test_the_document_tree_marks_code_and_links() -> None:
    parts = [(kind, text) for text, kind in tree.spans(tree.prose(HELP))]
    assert parts == EXPECTED


@pytest.fixture(scope="module")
def mdx_compiler() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


@pytest.mark.engine  # the MDX compiler (node)
def test_mdx_reads_back_as_written(mdx_compiler: MdxCompiler) -> None:
    page = f"<table>\n  <tr>\n    <td>{mdx.prose(HELP)}</td>\n  </tr>\n</table>\n"
    cell = next(n for n in walk(compiled(mdx_compiler, page)) if n.get("name") == "td")
    parts: list[tuple[str, str]] = []
    for node in _flatten(cell):
        kind, text = node
        if parts and kind == TEXT and parts[-1][0] == TEXT:
            parts[-1] = (TEXT, parts[-1][1] + text)
        else:
            parts.append(node)
    assert parts == EXPECTED


@pytest.mark.engine  # the MDX compiler (node)
@pytest.mark.parametrize("text", IMAGE_BAITS)
def test_mdx_a_bang_before_an_address_opens_no_image(mdx_compiler: MdxCompiler, text: str) -> None:
    page = f"<table>\n  <tr>\n    <td>{mdx.prose(text)}</td>\n  </tr>\n</table>\n"
    cell = next(n for n in walk(compiled(mdx_compiler, page)) if n.get("name") == "td")
    parts = list(_flatten(cell))  # fails on an image
    assert "".join(p for _, p in parts).count("!") == text.count("!")
    assert [p for k, p in parts if k == LINK] == [p for k, p in prose_parts(text) if k == LINK]


def _flatten(node: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for child in node.get("children", ()):
        if child.get("name") == "code":
            yield CODE, "".join(c.get("value", "") for c in walk(child) if c["type"] == "text")
        elif child["type"] == "link":
            text = "".join(c.get("value", "") for c in walk(child) if c["type"] == "text")
            assert text == child["url"], child
            yield LINK, child["url"]
        elif child["type"] == "text":
            yield TEXT, child["value"]
        elif child["type"] == "paragraph":
            yield from _flatten(child)
        else:
            raise AssertionError(f"markup the text did not ask for: {child['type']}")


# ------------------------------------------------------------------ hostile text


ADDRESS_SAFE = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+")
PIECES = st.sampled_from(
    [
        "`",
        "``",
        "https://",
        "http://x.org",
        "https://a.b/c",
        ")",
        "(",
        "]",
        "[",
        "<",
        ">",
        '"',
        "'",
        "|",
        "{",
        "}",
        "javascript:alert(1)",
        "onerror=",
        "<script>",
        "*",
        "_",
        " ",
        "x",
        "\\",
        "$",
        "{{ s }}",
        "&amp;",
        "!",  # before a link the writer makes: an image, if it were left as it is
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join))
@example("`https:// `")  # code with a space at one edge only (Markdown: the space outside it)
@example("` https://`")
@example("0` |`")  # one written as escaped text (a pipe) keeps it outside
@example("!https://a.b/c")  # `![address](address)` would load an image the text chose
@example("\\!https://a.b/c")  # an escaped backslash, then the `!`
def test_hostile_text_gives_only_code_links_and_text(text: str) -> None:
    for fmt, parser in ((markdown, GFM), (myst, MYST)):
        parts = _read_back(_cell_inline(parser, fmt.prose(text)))
        for kind, part in parts:
            if kind == LINK:
                assert ADDRESS_SAFE.fullmatch(part), part
        expected = [_as_shown(fmt, k, p) for k, p in prose_parts(" ".join(text.split()).strip())]
        assert _unspaced(parts) == _unspaced(_joined(expected)), (fmt.__name__, text)


def _as_shown(fmt: Any, kind: str, part: str) -> tuple[str, str]:
    """Code a pipe table's code span cannot hold (a pipe, a backtick, a backslash, a template
    or comment delimiter: the format's `code` says so by not writing a code span) is shown as
    its text; blank code is shown quoted, so it can be seen."""
    written = fmt.code(part) if kind == CODE else ""
    if kind == CODE and not written.strip(" ").startswith("`"):
        return TEXT, part
    if kind == CODE and not part.strip():
        return CODE, f'"{part}"'
    if kind == CODE and written != written.strip(" "):
        # A space at the code's edge written outside its span (Python-Markdown would drop it
        # inside; the Markdown format writes it outside for every engine).
        return CODE, part.strip(" ")
    return kind, part


def _unspaced(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Texts without their white space (code that falls back to text is trimmed like a cell:
    where spaces go is not what this test is about), blank texts dropped."""
    trimmed = [(k, "".join(p.split()) if k == TEXT else p) for k, p in parts]
    return [(k, p) for k, p in trimmed if p or k != TEXT]


def _joined(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent texts as one, as a reader sees them; blank texts at the ends dropped."""
    joined: list[tuple[str, str]] = []
    for kind, part in parts:
        if joined and kind == TEXT and joined[-1][0] == TEXT:
            joined[-1] = (TEXT, joined[-1][1] + part)
        else:
            joined.append((kind, part))
    return joined
