"""A Mintlify project (tests/fixtures/mintlify): the showcase registry (sglang 0.5.7, read
statically), a hand-written server-arguments page whose reference is an in-place region, a guide
with one section's regions, and a generated Ascend page.

After `argmatrix generate`: every page compiles with the real MDX compiler, the author's prose is
kept byte for byte, every server-arguments row has SGLang's four cells, the rules of SGLang's own
coverage test (parse <tr>/<td>, four cells a row, every live flag covered or allow-listed, no row
naming a flag that does not register) pass on the page, and `argmatrix check` agrees with it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from argmatrix.config import load_config
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.usage import value_form
from argmatrix.project import project_from_config
from helpers import FIXTURES, REPO, one_error_line, run_cli_in_process
from test_mdx_compiler import (
    OUR_ELEMENTS,
    MdxCompiler,
    code_in,
    compiled,
    compiler_fixture,
    elements,
    jsx_tables,
    outside_regions,
)

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

MINTLIFY = FIXTURES / "mintlify"
SERVER_PAGE = "advanced_features/server_arguments.mdx"
GUIDE = "guides/lora.mdx"
ASCEND_PAGE = "hardware-platforms/ascend/support_features.mdx"
HAND_WRITTEN = (SERVER_PAGE, GUIDE)
# What the hand-written pages hold of their own: an import, an expression, two components.
AUTHORS_CODE = {SERVER_PAGE: ['import { Callout } from "/snippets/callout.jsx";', "1 + 1"]}
AUTHORS_ELEMENTS = {"Callout", "Note"}


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


def copy_mintlify(tmp_path: Path) -> Path:
    """A copy of the fixture with the showcase's Ascend manifest beside its configuration."""
    root = tmp_path / "mintlify"
    shutil.copytree(MINTLIFY, root)
    (root / "capabilities").mkdir()
    shutil.copy(REPO / "capabilities" / "ascend.yaml", root / "capabilities" / "ascend.yaml")
    return root


def generated_copy(tmp_path: Path) -> Path:
    root = copy_mintlify(tmp_path)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_copy(tmp_path_factory.mktemp("mintlify"))


@pytest.fixture(scope="module")
def registry(project: Path) -> Registry:
    return project_from_config(load_config(project / "argmatrix.yaml", project)).registry


def page(project: Path, name: str) -> str:
    return (project / "docs" / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------ the pages


@pytest.mark.parametrize("name", [SERVER_PAGE, GUIDE, ASCEND_PAGE])
def test_every_page_compiles_and_holds_no_code_or_element_of_the_registry(
    mdx: MdxCompiler, project: Path, name: str
) -> None:
    tree = compiled(mdx, page(project, name), name)
    assert code_in(tree) == AUTHORS_CODE.get(name, [])
    assert {element for element, _ in elements(tree)} <= OUR_ELEMENTS | AUTHORS_ELEMENTS
    assert jsx_tables(tree), "no table generated"


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_the_authors_prose_is_kept_byte_for_byte(project: Path, name: str) -> None:
    original = (MINTLIFY / "docs" / name).read_text(encoding="utf-8")
    regenerated = page(project, name)
    assert outside_regions(regenerated) == outside_regions(original)
    assert len(regenerated) > len(original) + 1000  # the regions were filled


def test_a_whole_page_region_has_no_frontmatter_of_its_own(project: Path) -> None:
    text = page(project, SERVER_PAGE)
    assert text.count("\n---\n") == 1  # the author's frontmatter closes; no second one
    assert 'title: "Server Arguments"' in text.split("\n---\n")[0]


def argument_cell(argument: Argument) -> str:
    """The text of an Argument cell: its flags a line each, then the value form a user types
    (issue 29), in a <code> element of its own: SGLang's coverage test reads flags only."""
    form = value_form(argument)
    return "\n".join(argument.flags) + (f" {form}" if form else "")


def test_every_server_arguments_row_has_sglangs_four_cells(
    mdx: MdxCompiler, project: Path, registry: Registry
) -> None:
    tables = jsx_tables(compiled(mdx, page(project, SERVER_PAGE)))
    assert len(tables) == len(registry.sections)
    for table in tables:
        assert table.header == ["Argument", "Description", "Defaults", "Options"]
        assert table.rows and all(len(row) == 4 for row in table.rows)
    shown = {row[0] for table in tables for row in table.rows}
    assert shown == {argument_cell(a) for a in registry.arguments if not a.hidden}


def test_the_ascend_page_has_sglangs_columns(mdx: MdxCompiler, project: Path) -> None:
    tables = jsx_tables(compiled(mdx, page(project, ASCEND_PAGE)))
    columns = ["Argument", "Defaults", "Options", "Server supported"]
    main = [t for t in tables if t.header[:4] == columns]
    assert main and all(t.header in (columns, [*columns, "Note"]) for t in main)
    for table in tables:
        assert all(len(row) == len(table.header) for row in table.rows)
    rows = {row[0]: row for table in main for row in table.rows}
    assert rows["--model-path\n--model MODEL_PATH"][1:] == [
        "required",
        "Type: str",
        "✓ Supported (A2, A3)",
    ]
    assert page(project, ASCEND_PAGE).startswith('---\ntitle: "Supported Features"\n---\n')


def test_the_guide_embeds_one_section_and_the_same_on_ascend(
    mdx: MdxCompiler, project: Path, registry: Registry
) -> None:
    server, ascend = jsx_tables(compiled(mdx, page(project, GUIDE)))
    lora = [argument_cell(a) for a in registry.in_section("LoRA") if not a.hidden]
    assert [row[0] for row in server.rows] == lora and server.header[3] == "Options"
    assert [row[0] for row in ascend.rows] == lora and ascend.header[3] == "Server supported"


# ------------------------------------------------------------------ SGLang's coverage rules

_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.DOTALL)
_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.DOTALL)
# A flag counts where it is delimited: a code span or a <code> element.
_FLAG = re.compile(r"`(--[A-Za-z0-9][\w-]*)`|<code>(--[A-Za-z0-9][\w-]*)</code>")


def _flags(cells: Iterable[str]) -> set[str]:
    return {m.group(1) or m.group(2) for cell in cells for m in _FLAG.finditer(cell)}


def coverage_problems(page_text: str, registry: Registry, allowlist: set[str]) -> list[str]:
    """The rules of SGLang's CPU test of its server-arguments page, as the issue states them:
    rows are <tr> elements with <td> cells (header rows hold only <th>), each has exactly
    four cells; every live flag has a row naming it (any alias) in its first cell unless it is
    on the allowlist; an allowlist entry must still be undocumented and registered; no cell
    names a flag that no longer registers (deprecated ones still do)."""
    rows = [cells for row in _ROW.findall(page_text) if (cells := _CELL.findall(row))]
    problems = [f"row of {len(c)} cells: {c[0][:60]}" for c in rows if len(c) != 4]
    documented = _flags(cells[0] for cells in rows)
    live = [a for a in registry.arguments if a.flags and not a.deprecated]
    uncovered = {a.flags[0] for a in live if documented.isdisjoint(a.flags)}
    problems += [f"no row: {flag}" for flag in sorted(uncovered - allowlist)]
    registered = {flag for a in registry.arguments for flag in a.flags}
    problems += [f"allow-listed but documented: {f}" for f in sorted(allowlist - uncovered)]
    problems += [f"allow-listed but gone: {f}" for f in sorted(allowlist - registered)]
    named = _flags(cell for cells in rows for cell in cells)
    problems += [f"row names an unknown flag: {flag}" for flag in sorted(named - registered)]
    return problems


def test_sglangs_coverage_rules_pass_on_the_generated_page(
    project: Path, registry: Registry
) -> None:
    hidden = {a.flags[0] for a in registry.arguments if a.hidden and a.flags}
    assert coverage_problems(page(project, SERVER_PAGE), registry, hidden) == []


def test_the_coverage_rules_catch_a_missing_row_a_misshapen_row_and_a_stale_flag(
    project: Path, registry: Registry
) -> None:
    """The rules above fail where SGLang's test would: they are not a test that cannot fail."""
    text = page(project, SERVER_PAGE)
    row = re.search(r"    <tr>\n      <td><a id=\"--port\"></a>.*?</tr>\n", text, re.DOTALL)
    assert row is not None
    without_port = text.replace(row.group(0), "")
    assert coverage_problems(without_port, registry, set()) == ["no row: --port"]
    assert coverage_problems(without_port, registry, {"--port"}) == []  # allow-listed
    assert coverage_problems(text, registry, {"--port"}) == ["allow-listed but documented: --port"]
    five = text.replace(row.group(0), row.group(0).replace("</tr>", "  <td>x</td>\n    </tr>"))
    assert coverage_problems(five, registry, set()) == [
        'row of 5 cells: <a id="--port"></a><code>--port</code> <code className="am-v'
    ]
    renamed = text.replace("<code>--port</code>", "<code>--http-port</code>")
    assert coverage_problems(renamed, registry, set()) == [
        "no row: --port",
        "row names an unknown flag: --http-port",
    ]


# ------------------------------------------------------------------ generate and check


def test_check_agrees_with_the_generated_pages_and_generate_changes_nothing(
    tmp_path: Path,
) -> None:
    root = generated_copy(tmp_path)
    before = {name: page(root, name) for name in (*HAND_WRITTEN, ASCEND_PAGE)}
    assert run_cli_in_process("check", cwd=root).code == 0
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert {name: page(root, name) for name in before} == before


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_check_finds_an_edited_region_and_generate_restores_it(tmp_path: Path, name: str) -> None:
    root = generated_copy(tmp_path)
    path = root / "docs" / name
    good = path.read_text(encoding="utf-8")
    path.write_text(good.replace("</code></td>", "</code> edited</td>", 1), encoding="utf-8")
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1 and name in result.out, result.out
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert path.read_text(encoding="utf-8") == good


def test_html_comment_markers_are_not_regions_of_an_mdx_page(tmp_path: Path) -> None:
    """MDX has no HTML comments: a Markdown marker in an .mdx page is reported, not filled."""
    root = copy_mintlify(tmp_path)
    path = root / "docs" / GUIDE
    path.write_text("# LoRA\n\n<!-- argmatrix:begin -->\n<!-- argmatrix:end -->\n")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 2
    assert "no {/* argmatrix:begin */} marker in an in-place page" in result.err


@pytest.mark.parametrize(
    ("page_text", "says"),
    [
        (
            '# LoRA\n\nWords.\n\n{/* argmatrix:begin section="LoRA" */}\n',
            "guides/lora.mdx:5: argmatrix:begin without argmatrix:end"
            " (fix: close the region with {/* argmatrix:end */})",
        ),
        (
            "# LoRA\n\n{/* argmatrix:begin section=LoRA */}\n{/* argmatrix:end */}\n",
            "guides/lora.mdx:3: cannot read the marker attributes 'section=LoRA'"
            ' (fix: write e.g. {/* argmatrix:begin section="LoRA" platform="ascend" */})',
        ),
    ],
)
def test_a_broken_mdx_region_is_one_located_error_in_mdx_terms(
    tmp_path: Path, page_text: str, says: str
) -> None:
    root = copy_mintlify(tmp_path)
    (root / "docs" / GUIDE).write_text(page_text, encoding="utf-8")
    line = one_error_line(run_cli_in_process("generate", cwd=root))
    assert line.endswith(says), line
