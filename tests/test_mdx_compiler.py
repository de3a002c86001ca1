"""The real MDX compiler, for every test of MDX pages: `@mdx-js/mdx` (with the frontmatter and
GFM syntax Mintlify reads) run by node from .cache/mdx, which `make test` installs. One node process compiles every page of a test module, a page per line of JSON.

The helpers here read what the compiler parsed (the MDX syntax tree): the JSX tables, the text a
reader sees, and every piece of code or markup a page holds. The tests below show the harness
tells a page MDX rejects, and code or markup, from plain text.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from argmatrix.render.formats import mdx as mdx_format
from helpers import REPO

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

MDX_DIR = REPO / ".cache" / "mdx"
INSTALL = "run `make .cache/mdx/.installed` (or make test), which installs it with npm"

# Reads {"source": ...} lines; answers each with the syntax tree the compiler parsed (positions
# and the compiler's own data left out) and the JavaScript it wrote, or with the error.
_SERVER = r"""
import {compile} from "@mdx-js/mdx";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import readline from "node:readline";

const drop = (key, value) => (key === "position" || key === "data" ? undefined : value);
const lines = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of lines) {
  const {source} = JSON.parse(line);
  let tree = null;
  const keep = () => (parsed) => { tree = structuredClone(parsed); };
  let answer;
  try {
    const file = await compile(source, {remarkPlugins: [remarkFrontmatter, remarkGfm, keep]});
    answer = {ok: true, tree, code: String(file)};
  } catch (error) {
    answer = {ok: false, error: String(error && error.message), line: error.line ?? null};
  }
  process.stdout.write(JSON.stringify(answer, drop) + "\n");
}
"""


@dataclass
class Compiled:
    ok: bool
    tree: dict[str, Any]
    code: str
    error: str
    line: int | None


class MdxCompiler:
    """A node process running the MDX compiler; `compile` sends it one page."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail(f"node is not installed, so MDX pages cannot be compiled ({INSTALL})")
        if not (MDX_DIR / "node_modules" / "@mdx-js" / "mdx" / "package.json").is_file():
            pytest.fail(f"the MDX compiler is not in {MDX_DIR}: {INSTALL}", pytrace=False)
        self.process = subprocess.Popen(
            [node, "--input-type=module", "-e", _SERVER],
            cwd=MDX_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def compile(self, source: str) -> Compiled:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"source": source}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            pytest.fail(f"the MDX compiler stopped (exit code {self.process.wait()})")
        answer = json.loads(line)
        return Compiled(
            answer["ok"],
            answer.get("tree") or {},
            answer.get("code", ""),
            answer.get("error", ""),
            answer.get("line"),
        )

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def compiler_fixture() -> Iterator[MdxCompiler]:
    """The body of each MDX test module's fixture `mdx` (one compiler per module)."""
    compiler = MdxCompiler()
    yield compiler
    compiler.close()


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


def compiled(mdx: MdxCompiler, source: str, name: str = "page") -> dict[str, Any]:
    """The syntax tree of a page that must compile; a failure names the page's line."""
    result = mdx.compile(source)
    if not result.ok:
        shown = source.splitlines()[result.line - 1] if result.line else ""
        pytest.fail(f"{name} does not compile as MDX: {result.error}\n  {shown[:200]}")
    return result.tree


# ------------------------------------------------------------------ reading the syntax tree

# What MDX reads as code: a JavaScript expression, an ES module statement.
CODE_NODES = ("mdxFlowExpression", "mdxTextExpression", "mdxjsEsm")
JSX_NODES = ("mdxJsxFlowElement", "mdxJsxTextElement")


def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("children", ()):
        yield from walk(child)


def code_in(tree: dict[str, Any]) -> list[str]:
    """Every expression and module statement, but argmatrix's region markers (MDX comments)."""
    return [
        node.get("value", "")
        for node in walk(tree)
        if node["type"] in CODE_NODES and not is_marker(node)
    ]


def is_marker(node: dict[str, Any]) -> bool:
    value = node.get("value", "").strip()
    return node["type"] == "mdxFlowExpression" and value.startswith("/* argmatrix:")


def elements(tree: dict[str, Any]) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every JSX element, as its name and its attributes."""
    return [
        (node["name"], tuple((a.get("name", ""), str(a.get("value"))) for a in node["attributes"]))
        for node in walk(tree)
        if node["type"] in JSX_NODES
    ]


# What the bundled MDX pages make of their own: tables, anchors, code and line breaks, and the
# value form after a flag in pieces (<span>, <wbr />). Their only attributes: an anchor's id, the
# classes and the long flag's length that argmatrix-mintlify.css reads.
OUR_ELEMENTS = {"table", "thead", "tbody", "tr", "th", "td", "a", "code", "br", "span", "wbr"}
_OUR_ATTRIBUTES = {
    "table": {(("className", "argmatrix-table"),)},
    "code": {(), (("className", "am-value"),)},
    "span": {(("className", "am-piece"),)},
    "th": {(), (("className", "am-prose"),)},
}
_ANCHOR = re.compile(r"^[A-Za-z0-9_.-]+$")
_FLAG_LENGTH = re.compile(r"^[1-9][0-9]*[05]$")


def ours(name: str, attributes: tuple[tuple[str, str], ...]) -> bool:
    """Whether an element and its attributes are one argmatrix writes (`elements` gives them)."""
    if name == "a":
        return [key for key, _ in attributes] == ["id"] and bool(_ANCHOR.match(attributes[0][1]))
    if name == "td":
        return attributes == () or (
            [key for key, _ in attributes] == ["data-am-flag"]
            and bool(_FLAG_LENGTH.match(attributes[0][1]))
        )
    return name in OUR_ELEMENTS and attributes in _OUR_ATTRIBUTES.get(name, {()})


def node_types(tree: dict[str, Any]) -> set[str]:
    return {node["type"] for node in walk(tree)}


def text(node: dict[str, Any]) -> str:
    """The text a reader sees in a node: a line break for <br />."""
    if node["type"] in ("text", "inlineCode"):
        return str(node["value"])
    if node["type"] in JSX_NODES and node["name"] == "br":
        return "\n"
    return "".join(text(child) for child in node.get("children", ()))


@dataclass
class JsxTable:
    header: list[str]
    rows: list[list[str]]  # the text of every <td>
    cells: list[list[dict[str, Any]]]  # the <td> nodes


def jsx_tables(tree: dict[str, Any]) -> list[JsxTable]:
    """Every <table> element, its <th> and <td> texts row by row."""
    found = []
    for node in walk(tree):
        if node["type"] in JSX_NODES and node["name"] == "table":
            header: list[str] = []
            rows: list[list[str]] = []
            cells: list[list[dict[str, Any]]] = []
            for row in walk(node):
                if row["type"] not in JSX_NODES or row["name"] != "tr":
                    continue
                columns = [c for c in row["children"] if c["type"] in JSX_NODES]
                if all(c["name"] == "th" for c in columns):
                    header = [text(c) for c in columns]
                else:
                    rows.append([text(c) for c in columns if c["name"] == "td"])
                    cells.append([c for c in columns if c["name"] == "td"])
            found.append(JsxTable(header, rows, cells))
    return found


def frontmatter(tree: dict[str, Any]) -> str | None:
    children = tree.get("children", [])
    if children and children[0]["type"] == "yaml":
        return str(children[0]["value"])
    return None


def outside_regions(text: str) -> list[str]:
    """The author's parts of a page: everything but what is between a begin and an end marker
    (the markers included)."""
    region = mdx_format.REGION
    parts, position = [], 0
    for begin in region.begin.finditer(text):
        if begin.start() < position:
            continue
        end = region.end.search(text, begin.end())
        assert end is not None
        parts.append(text[position : begin.end()])
        position = end.start()
    return [*parts, text[position:]]


# ------------------------------------------------------------------ the harness itself


def test_a_page_mdx_cannot_read_fails_with_its_line(mdx: MdxCompiler) -> None:
    result = mdx.compile("# Title\n\nText with a < b and {an open brace.\n")
    assert not result.ok
    assert result.line == 3


def test_expressions_module_statements_and_elements_are_found(mdx: MdxCompiler) -> None:
    source = (
        'import {X} from "x"\n\n'
        "{/* argmatrix:begin */}\n\n"
        "Some {1 + 1} text with <b>bold</b>.\n\n"
        "<table>\n  <tbody>\n    <tr>\n      <td>a<br />b</td>\n      <td>c</td>\n"
        "    </tr>\n  </tbody>\n</table>\n"
    )
    tree = compiled(mdx, source)
    assert code_in(tree) == ['import {X} from "x"', "1 + 1"]  # the marker is no code
    assert [name for name, _ in elements(tree)] == ["b", "table", "tbody", "tr", "td", "br", "td"]
    assert jsx_tables(tree)[0].rows == [["a\nb", "c"]]


def test_escaped_text_is_plain_text(mdx: MdxCompiler) -> None:
    tree = compiled(mdx, "---\ntitle: x\n---\n\nSome \\{1 + 1\\} text with &lt;b&gt;.\n")
    assert code_in(tree) == [] and elements(tree) == []
    assert frontmatter(tree) == "title: x"
    assert text(tree) == "Some {1 + 1} text with <b>."
