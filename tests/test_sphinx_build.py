"""The Sphinx extension with the real engines: `sphinx-build -W -b html` of a Sphinx + MyST
project (tests/fixtures/sphinx: the fixture registry tinyserver.py and its NPU manifest, two
pages generated at build time in the `myst` format, a MyST page embedding tables with the
`{argmatrix}` directive and referring to options with `{option}`, a reST page doing the same with
`.. argmatrix::` and `:option:`), checked in the HTML Sphinx writes.

The helpers at the top (building, reading tables, rows and links out of the HTML) are shared with
tests/test_sphinx_hostile.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from argmatrix.config import load_config
from argmatrix.project import Project, project_from_config
from helpers import FIXTURE_PROJECT, FIXTURES, GOLDEN, flag_of, line_of, replace_in
from test_hostile_pages import seen_as

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

SPHINX_FIXTURE = FIXTURES / "sphinx"


def sphinx_build(source: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`sphinx-build -W -b html` (warnings are errors), as a user runs it.

    `--no-color`: Sphinx colours its log when FORCE_COLOR is set (CI machines set it), and the
    tests read the log's lines as a user's tools would read them.
    """
    command = [sys.executable, "-m", "sphinx", "-W", "--no-color", "-b", "html", *options]
    command += [str(source), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@dataclass
class HtmlRow:
    id: str | None
    ids: set[str] = field(default_factory=set)  # every id of the row and of what it holds
    cells: list[str] = field(default_factory=list)


@dataclass
class HtmlTable:
    header: list[str] = field(default_factory=list)
    rows: list[HtmlRow] = field(default_factory=list)


@dataclass
class Link:
    href: str
    text: str


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[HtmlTable] = []
        self.links: list[Link] = []
        self.ids: set[str] = set()
        self.row: HtmlRow | None = None
        self.in_head = False
        self.cell: list[str] | None = None
        self.link: Link | None = None
        self.permalinks: list[Link] = []  # a flag's ¶ (its text is not a cell's)
        self.in_permalink = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and "headerlink" in (values.get("class") or "").split():
            self.in_permalink = True
            if self.cell is not None:  # a heading's own ¶ is the theme's
                self.permalinks.append(Link(values.get("href") or "", ""))
            return
        element_id = values.get("id")
        if element_id:
            self.ids.add(element_id)
            if self.row is not None:
                self.row.ids.add(element_id)
        if tag == "table":
            self.tables.append(HtmlTable())
        elif tag == "thead":
            self.in_head = True
        elif tag == "tbody":
            self.in_head = False
        elif tag == "tr":
            self.row = HtmlRow(element_id, {element_id} if element_id else set())
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "a" and "href" in values:
            self.link = Link(values["href"] or "", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.in_permalink:
            self.in_permalink = False
            return
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.cells.append(seen_as("".join(self.cell)))
            self.cell = None
        elif tag == "tr" and self.row is not None and self.tables:
            table = self.tables[-1]
            if self.in_head:
                table.header = self.row.cells
            else:
                table.rows.append(self.row)
            self.row = None
        elif tag == "a" and self.link is not None:
            self.links.append(self.link)
            self.link = None

    def handle_data(self, data: str) -> None:
        if self.in_permalink:
            if self.cell is not None:
                self.permalinks[-1].text += data
            return
        if self.cell is not None:
            self.cell.append(data)
        if self.link is not None:
            self.link.text += data


@dataclass
class HtmlPage:
    tables: list[HtmlTable]
    links: list[Link]
    ids: set[str]
    permalinks: list[Link] = field(default_factory=list)

    def row_with_id(self, element_id: str) -> HtmlRow:
        """The table row that is, or holds, the element of that id."""
        found = [row for table in self.tables for row in table.rows if element_id in row.ids]
        assert len(found) == 1, (element_id, found)
        return found[0]


def read_page(path: Path) -> HtmlPage:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    return HtmlPage(reader.tables, reader.links, reader.ids, reader.permalinks)


# ------------------------------------------------------------------ the project


def copy_sphinx_project(root: Path) -> Path:
    """The fixture Sphinx project with the registry and manifest it documents, at root."""
    shutil.copytree(SPHINX_FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(FIXTURE_PROJECT / "tinyserver.py", root / "tinyserver.py")
    shutil.copytree(FIXTURE_PROJECT / "capabilities", root / "capabilities")
    return root


@dataclass
class Site:
    root: Path
    out: Path
    first: subprocess.CompletedProcess[str]
    second: subprocess.CompletedProcess[str]

    def page(self, name: str) -> HtmlPage:
        return read_page(self.out / f"{name}.html")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    root = copy_sphinx_project(tmp_path_factory.mktemp("sphinx") / "project")
    out = root / "_build" / "html"
    first = sphinx_build(root / "docs", out)
    assert first.returncode == 0, first.stderr
    second = sphinx_build(root / "docs", out)  # nothing changed: an incremental build
    assert second.returncode == 0, second.stderr
    return Site(root, out, first, second)


SERVING = ["--port", "--page-size", "--backend", "--log-format", "--enable-metrics"]


def flags_of(table: HtmlTable) -> list[str]:
    return [row.cells[0] for row in table.rows]


# ------------------------------------------------------------------ the tests


def test_the_build_is_clean_and_writes_the_pages_once(site: Site) -> None:
    assert "WARNING" not in site.first.stderr + site.second.stderr
    assert "argmatrix: wrote reference/server_arguments.md" in site.first.stdout
    assert "argmatrix: wrote reference/npu.md" in site.first.stdout
    assert "argmatrix: wrote" not in site.second.stdout  # unchanged pages are not rewritten
    for name in ("reference/server_arguments", "reference/npu", "tuning", "options"):
        assert (site.out / f"{name}.html").is_file(), name


def test_the_generated_reference_has_a_table_per_section(site: Site) -> None:
    reference = site.page("reference/server_arguments")
    plain = ["Argument", "Description", "Default", "Type / options"]
    assert [t.header for t in reference.tables[:3]] == [
        plain,
        [*plain, "Environment variable"],  # two of its arguments have one (argmatrix.yaml)
        plain,
    ]
    # each flag with the value form a user types (issue 29)
    assert flags_of(reference.tables[0]) == [
        "--model-path, --model MODEL_PATH",
        "--dtype {auto,float16,bfloat16}",
    ]
    assert [flag_of(cell) for cell in flags_of(reference.tables[1])[:5]] == SERVING
    serving = {flag_of(row.cells[0]): row.cells for row in reference.tables[1].rows}
    assert serving["--page-size"][1:] == [
        "Tokens per KV-cache page | must be a power of two.",
        "1",
        "Type: int",
        "TINY_PAGE_SIZE",
    ]


def test_the_embedded_tables_have_the_rows_of_the_reference(site: Site) -> None:
    """The directive builds its table from the same page model as the generated page: the same
    cells, without a Markdown parser in between."""
    reference = site.page("reference/server_arguments").tables[1]
    tuning = site.page("tuning")
    embedded, on_npu = tuning.tables
    assert embedded.header == [
        *["Argument", "Description", "Default", "Type / options", "Environment variable"]
    ]
    assert [row.cells for row in embedded.rows] == [row.cells for row in reference.rows]
    assert on_npu.header == [
        *["Argument", "Default", "Options", "Environment variable", "Server supported", "Note"]
    ]
    npu = {flag_of(row.cells[0]): row.cells[1:] for row in on_npu.rows}
    assert npu["--page-size"] == [
        *["128", "Type: int", "TINY_PAGE_SIZE", "✓ Supported (V1, V2)", "Only 128 is tuned"]
    ]
    assert npu["--backend"] == ["cpu", "npu", "", "✓ Supported (V2)", ""]
    assert "--warmup-prompts" not in npu  # unsupported: not in a section's table
    generated = site.page("reference/npu").tables[1]
    assert [r.cells[:5] for r in on_npu.rows] == [r.cells[:5] for r in generated.rows]


def _target(site: Site, page: str, text: str) -> tuple[str, HtmlRow]:
    """Where the link of `page` showing `text` goes: the page and the row holding its id."""
    links = [link for link in site.page(page).links if link.text == text]
    assert links, f"no link {text!r} in {page}"
    href = links[0].href
    document, _, element_id = href.partition("#")
    target = (site.out / page).parent / document if document else site.out / page
    target_name = os.path.relpath(target, site.out).removesuffix(".html")
    if not document:
        target_name = page
    return element_id, site.page(target_name).row_with_id(element_id)


def test_option_references_in_myst_land_on_the_flags_row(site: Site) -> None:
    element_id, row = _target(site, "tuning", "--page-size")
    assert element_id == "cmdoption-page-size"
    assert row.cells[0] == "--page-size PAGE_SIZE"  # a row of the generated reference
    assert "Tokens per KV-cache page" in row.cells[1]
    element_id, row = _target(site, "tuning", "--model-path")
    assert row.id == element_id == "cmdoption-model-path"  # the row of options.rst's table
    assert row.cells[0] == "--model-path, --model MODEL_PATH"


def test_option_references_in_rest_land_on_the_flags_row(site: Site) -> None:
    element_id, row = _target(site, "options", "--model-path")
    assert row.id == element_id
    element_id, alias_row = _target(site, "options", "--model")
    assert alias_row == row and element_id == "cmdoption-model"  # an alias: the same row
    element_id, row = _target(site, "options", "--page-size")
    assert row.cells[0] == "--page-size PAGE_SIZE" and element_id in row.ids


def test_the_myst_reference_page_matches_its_golden_file(site: Site) -> None:
    """What the build wrote, byte for byte: the fixture registry's reference in MyST."""
    text = (site.root / "docs" / "reference" / "server_arguments.md").read_text(encoding="utf-8")
    golden = GOLDEN / "server_arguments.myst.md"
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def _one_argmatrix_line(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    """The one line of the build's output about the problem (`-W`: a warning fails the build
    with 1; an input error stops it with 2)."""
    lines = [line for line in result.stderr.splitlines() if "argmatrix" in line]
    assert result.returncode == code, result.stderr
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_unknown_section_is_one_located_error(tmp_path: Path) -> None:
    root = copy_sphinx_project(tmp_path / "project")
    replace_in(root / "docs" / "tuning.md", ":section: Serving\n:no-index:", ":section: Servng")
    line = _one_argmatrix_line(sphinx_build(root / "docs", tmp_path / "out"))
    page = root / "docs" / "tuning.md"
    directive = line_of(page, "```{argmatrix}")  # the first: the one changed
    assert line.startswith(f"{page}:{directive}: WARNING: argmatrix: unknown section 'Servng'")
    assert "(fix: use a registry section: Model, Serving, Scheduling)" in line


def test_a_bad_configuration_stops_the_build_naming_its_line(tmp_path: Path) -> None:
    root = copy_sphinx_project(tmp_path / "project")
    replace_in(root / "argmatrix.yaml", "docs_dir: docs", "docs_dir: docs\npagez: []")
    result = sphinx_build(root / "docs", tmp_path / "out")
    line = _one_argmatrix_line(result, code=2)
    config = root / "argmatrix.yaml"
    assert line.startswith(f"ERROR: argmatrix: {config}:{line_of(config, 'pagez')}: unknown key")
    assert "(fix: use one of: registry," in line
    assert "Traceback" not in result.stderr


def test_a_translated_site_translates_the_table_headings(tmp_path: Path) -> None:
    """Headings and labels go through Sphinx's gettext: the catalog `argmatrix` in the project's
    locale_dirs."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    root = copy_sphinx_project(tmp_path / "project")
    catalog = Catalog(locale="de", domain="argmatrix")
    catalog.add("Argument", "Parameter")
    catalog.add("Server supported", "Vom Server unterstützt")
    catalog.add("Unverified", "Ungeprüft")
    catalog.add("Supported", "Unterstützt")
    folder = root / "docs" / "locale" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "argmatrix.mo").open("wb") as file:
        write_mo(file, catalog)
    with (root / "docs" / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('language = "de"\nlocale_dirs = ["locale"]\n')
    result = sphinx_build(root / "docs", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    embedded, on_npu = read_page(tmp_path / "out" / "tuning.html").tables
    assert embedded.header[:4] == ["Parameter", "Description", "Default", "Type / options"]
    assert on_npu.header[0] == "Parameter" and on_npu.header[4] == "Vom Server unterstützt"
    statuses = {flag_of(row.cells[0]): row.cells[4] for row in on_npu.rows}
    assert statuses["--port"] == "? Ungeprüft"  # the file default: symbol and translated word
    assert statuses["--backend"] == "✓ Unterstützt (V2)"  # a variant's name is not a label


def test_wide_directive_tables_scroll_inside_the_page(site: Site) -> None:
    """The extension adds its stylesheet to an HTML build: a directive table wider than the
    theme's column (alabaster's) scrolls inside it, flag in place, instead of being cut off."""
    stylesheet = site.out / "_static" / "argmatrix-sphinx.css"
    assert "table.argmatrix-table" in stylesheet.read_text(encoding="utf-8")
    page = (site.out / "tuning.html").read_text(encoding="utf-8")
    assert 'href="_static/argmatrix-sphinx.css' in page
    assert 'class="argmatrix-table' in page


# ------------------------------------------------------------------ Sphinx's own ways in


def _project(root: Path) -> Project:
    return project_from_config(load_config(root / "argmatrix.yaml", root))


def _index_texts(site: Site) -> set[str]:
    """The words the general index lists (its entries and sub-entries are links)."""
    return {link.text for link in site.page("genindex").links}


def test_the_general_index_lists_every_option_and_environment_variable(site: Site) -> None:
    """As sphinx-click does, and as Sphinx's own `option` and `envvar` directives do: each flag
    under its own name and under "command line option", each variable under its name."""
    project = _project(site.root)
    flags = {flag for a in project.registry.arguments if not a.hidden for flag in a.flags}
    variables = {"TINY_PORT", "TINY_PAGE_SIZE"}
    listed = _index_texts(site)
    assert flags <= listed, sorted(flags - listed)
    assert variables <= listed
    assert "command line option" in listed  # the other half of each option's pair
    assert "--debug-dump" not in listed  # hidden (argparse.SUPPRESS): on no page


def test_every_flag_and_variable_is_a_search_result(site: Site) -> None:
    text = (site.out / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    types = {number: name for number, name in index["objtypes"].items()}
    found = {(types[str(kind)], name) for _doc, kind, _prio, _anchor, name in index["objects"][""]}
    project = _project(site.root)
    flags = {flag for a in project.registry.arguments if not a.hidden for flag in a.flags}
    assert {("std:cmdoption", flag) for flag in flags} <= found
    assert {("std:envvar", "TINY_PORT"), ("std:envvar", "TINY_PAGE_SIZE")} <= found


def test_every_flag_on_the_reference_has_a_permalink_to_itself(site: Site) -> None:
    reference = site.page("reference/server_arguments")
    flags = [
        flag
        for table in reference.tables
        for row in table.rows
        for flag in row.cells[0].split(", ")
    ]
    assert len(reference.permalinks) == len(flags) > 10
    assert {link.text for link in reference.permalinks} == {"¶"}
    targets = [link.href.removeprefix("#") for link in reference.permalinks]
    assert set(targets) <= reference.ids
    assert "cmdoption-page-size" in targets and "cmdoption-mb" in targets


def test_the_directive_gives_its_flags_permalinks_unless_it_indexes_nothing(site: Site) -> None:
    options = site.page("options")  # `.. argmatrix::` of Model: its rows are the targets
    assert [link.href for link in options.permalinks] == [
        "#cmdoption-model-path",
        "#cmdoption-model",
        "#cmdoption-dtype",
    ]


def test_envvar_references_land_on_the_variables_row(site: Site) -> None:
    element_id, row = _target(site, "tuning", "TINY_PAGE_SIZE")
    assert element_id == "envvar-TINY_PAGE_SIZE"
    assert row.cells[0] == "--page-size PAGE_SIZE"  # the generated reference's row


def test_generated_text_keeps_its_dashes_and_quotes(tmp_path: Path) -> None:
    """The project turns on Sphinx's smartquotes (its default) and MyST's typography: neither
    rewrites what argmatrix writes, on a generated page or in a table of a hand-written one."""
    root = copy_sphinx_project(tmp_path / "project")
    replace_in(
        root / "tinyserver.py",
        '        parser.add_argument("--port",',
        "        parser.add_argument(\n"
        '            "--cuda-graph", action=argparse.BooleanOptionalAction, default=True,\n'
        "            help='Capture \"graphs\" -- it\\'s faster...',\n"
        "        )\n"
        '        parser.add_argument("--port",',
    )
    # A hand-written page whose table argmatrix keeps up to date (an in-place region).
    (root / "docs" / "handwritten.md").write_text(
        "# Hand-written\n\nOur prose -- set by the theme.\n\n"
        '% argmatrix:begin section="Serving"\n% argmatrix:end\n',
        encoding="utf-8",
    )
    replace_in(
        root / "argmatrix.yaml",
        "# Two arguments",
        "  - {template: server_arguments.myst.j2, output: handwritten.md, format: myst,"
        " inplace: true}\n# Two arguments",
    )
    replace_in(root / "docs" / "index.md", "options\n", "options\nhandwritten\n")
    result = sphinx_build(root / "docs", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    for page in ("reference/server_arguments", "tuning", "handwritten"):
        rows = {
            row.cells[0]: row.cells
            for table in read_page(tmp_path / "out" / f"{page}.html").tables
            if table.header[1] == "Description"
            for row in table.rows
        }
        cells = rows["--cuda-graph, --no-cuda-graph"]
        assert cells[1] == 'Capture "graphs" -- it\'s faster...', page
        assert cells[3] == "bool flag (--cuda-graph / --no-cuda-graph)", page
    # Text the project wrote itself is still the theme's to set.
    handwritten = (tmp_path / "out" / "handwritten.html").read_text(encoding="utf-8")
    assert "Our prose \u2013 set by the theme." in handwritten


def test_the_directive_shows_a_section_in_the_compact_layout(tmp_path: Path) -> None:
    root = copy_sphinx_project(tmp_path / "project")
    with (root / "docs" / "options.rst").open("a", encoding="utf-8") as page:
        page.write("\n.. argmatrix::\n   :section: Serving\n   :layout: compact\n   :no-index:\n")
    result = sphinx_build(root / "docs", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    compact = read_page(tmp_path / "out" / "options.html").tables[-1]
    assert compact.header == ["Argument", "Description"]
    cells = {flag_of(row.cells[0]): row.cells[1] for row in compact.rows}
    # The help, then its facts: a paragraph each (the reader here joins their text).
    assert cells["--page-size"] == (
        "Tokens per KV-cache page | must be a power of two."
        "Default: 1 · Type: int · Environment variable: TINY_PAGE_SIZE"
    )
    html = (tmp_path / "out" / "options.html").read_text(encoding="utf-8")
    assert "<p>Default: <code" in html
