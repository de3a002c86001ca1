"""Argument tables that fit their page, in headless Chromium at 1400 px (a desktop) and 390 px (a
phone), on the themes a server's docs use: MkDocs Material (and Zensical's), Sphinx's alabaster
and Furo.

Built here: a fixture server (tests/fixtures/registries/click_server.py: forty options, most with
an environment variable, so its reference has five columns; flag pairs such as
`--trust-remote-code, --no-trust-remote-code`) with its NPU manifest, every page kind in the
default layout and the reference also in the compact one; and sglang 0.5.23's 531 arguments
with their "Added in" column (`make new-sglang`). The repository's own site (the MkDocs
showcase) is measured too. On every page: no sideways scroll, every header cell and every cell
inside the theme's text column, every flag on one line (tests/e2e/fit.py measures the boxes
Chromium lays out). The fixture server of the command line's shape (shape_server.py: `serve` and
`bench`, metavars, every nargs, exclusive groups, deprecated flags) is built too, its server
arguments in both layouts and its command-line reference, with Material, Zensical, alabaster and
Furo; its usages are read back token by token and measured as they wrap. Screenshots are kept in
tests/artifacts/ (fit-*.png).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.browser import chromium, find_chromium, wait_for
from e2e.fit import DESKTOP, PHONE, Fit, check_fits, open_page
from e2e.site import build_site, build_zensical, serve, showcase_site, showcase_zensical_site
from helpers import REGISTRIES, REPO, run_cli_in_process
from test_sphinx_build import sphinx_build

pytestmark = pytest.mark.browser  # Debian's Chromium and ChromeDriver

SIZES = [DESKTOP, PHONE]
SIZE_IDS = ["1400", "390"]
NPU = REPO / "showcase" / "click-server" / "capabilities" / "npu.yaml"
SGLANG_0523 = REPO / ".cache" / "sglang-0.5.23"
SHOWCASE_0523 = REPO / "showcase" / "sglang-0.5.23"

# The fixture server's pages: (output without suffix, page keys); every one in the default
# layout but the compact reference.
FIXTURE_PAGES = {
    "server_arguments": "{template: server_arguments.TEMPLATE, output: server_arguments.md}",
    "compact": "{template: server_arguments.TEMPLATE, output: compact.md,"
    " options: {layout: compact}}",
    "npu": "{template: platform_support.TEMPLATE, output: npu.md, platform: npu}",
    "npu_variants": "{template: platform_support.TEMPLATE, output: npu_variants.md,"
    " platform: npu, options: {layout: variants}}",
}
FIXTURE_CONFIG = """\
registry:
  target: click_server:serve
  mode: static
  search_path: [{registries}]
manifests: [capabilities/npu.yaml]
docs_dir: docs
environment: {{keyword: envvar}}
# A default read from the environment when the server starts (static reading keeps its source).
computed_defaults: {{--profile-dir: "MS_PROFILE_DIR, else /tmp/profiles"}}
pages:
{pages}
"""
# A hand-written page embedding tables: MkDocs directives, Sphinx's `argmatrix` directive.
MKDOCS_INDEX = """\
# A server

<!-- argmatrix section="General" -->

<!-- argmatrix section="General" platform="npu" layout="variants" -->
"""
SPHINX_INDEX = """\
# A server

```{toctree}
server_arguments
compact
npu
npu_variants
```

```{argmatrix}
:section: General
:no-index:
```

```{argmatrix}
:section: General
:platform: npu
:layout: variants
```

```{argmatrix}
:section: General
:layout: compact
:no-index:
```
"""
MKDOCS_YML = """\
site_name: A server
docs_dir: docs
theme: {name: material}
plugins: [search, argmatrix]
markdown_extensions: [tables, {toc: {permalink: true}}]
"""
SPHINX_CONF = """\
project = "A server"
extensions = ["myst_parser", "argmatrix.sphinx"]
argmatrix_config = "../argmatrix.yaml"
html_theme = "{theme}"
"""


def fixture_project(root: Path, engine: str) -> Path:
    """The fixture server's project for MkDocs (Markdown pages with the site's HTML) or Sphinx
    (MyST pages)."""
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()  # the project's root
    (root / "capabilities").mkdir()
    shutil.copy(NPU, root / "capabilities" / "npu.yaml")
    mkdocs = engine == "mkdocs"
    template = "md.j2" if mkdocs else "myst.j2"
    extra = ", committed: false" + (", options: {html: true}" if mkdocs else ", format: myst")
    pages = []
    for spec in FIXTURE_PAGES.values():
        spec = spec.replace("TEMPLATE", template)
        if mkdocs and "options: {" in spec:
            spec = spec.replace("options: {", "options: {html: true, ")
            spec = spec[:-1] + ", committed: false}"
        else:
            spec = spec[:-1] + extra + "}"
        pages.append(f"  - {spec}")
    config = FIXTURE_CONFIG.format(registries=REGISTRIES, pages="\n".join(pages))
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    return root


def sglang_project(root: Path) -> Path:
    """sglang 0.5.23's reference as MyST, in the default layout and in the compact one, with
    the showcase's history facts and texts."""
    if not (SGLANG_0523 / "sglang").is_dir():
        pytest.fail(f"sglang 0.5.23 is not in {SGLANG_0523} (fix: run `make new-sglang`)")
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    config = (SHOWCASE_0523 / "argmatrix.yaml").read_text(encoding="utf-8")
    config = config.replace("../../.cache/sglang-0.5.23", str(SGLANG_0523))
    config = config.replace("docs_dir: ../../docs", "docs_dir: docs")
    config = config.replace("history: history.json", f"history: {SHOWCASE_0523 / 'history.json'}")
    config = config.replace(
        "template: server_arguments.md.j2", "template: server_arguments.myst.j2"
    )
    config = config.replace("output: showcase-0.5.23/server_arguments.md", "output: compact.md")
    config = config.replace(
        "options: {html: true, layout: compact,", "format: myst\n    options: {layout: compact,"
    )
    assert "format: myst" in config and "compact.md" in config, config
    default = (
        "  - {template: server_arguments.myst.j2, output: server_arguments.md, format: myst,"
        f" committed: false, history: {SHOWCASE_0523 / 'history.json'}}}\n"
    )
    config = config.replace("pages:\n", "pages:\n" + default, 1)
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    (root / "docs" / "index.md").write_text(
        "# sglang\n\n```{toctree}\nserver_arguments\ncompact\n```\n", encoding="utf-8"
    )
    return root


def sphinx_site(root: Path, theme: str, out: Path) -> Path:
    (root / "docs" / "conf.py").write_text(SPHINX_CONF.format(theme=theme), encoding="utf-8")
    result = sphinx_build(root / "docs", out)
    assert result.returncode == 0, result.stderr
    return out


# The shape fixture's pages (argparse, two subcommands): its server arguments in the default
# layout and the compact one, and its command-line reference (five columns a table).
SHAPE_CONFIG = """\
registry:
  target: shape_server:build_parser
  mode: live  # its own code: static reading would warn of its `sys.version_info` (-W, --strict)
docs_dir: docs
pages:
  - {{template: server_arguments.{suffix}, output: shape_server.md, {extra}}}
  - {{template: server_arguments.{suffix}, output: shape_compact.md, {extra_compact}}}
  - {{template: cli_reference.{suffix}, output: shape_cli.md, {extra}}}
"""
SHAPE_PAGES = ["shape_server", "shape_compact", "shape_cli"]


def shape_project(root: Path, engine: str) -> Path:
    """The shape fixture's project for MkDocs (Markdown pages with the site's HTML) or Sphinx
    (MyST pages)."""
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    if engine == "mkdocs":
        suffix, extra = "md.j2", "committed: false, options: {{html: true{}}}"
    else:
        suffix, extra = "myst.j2", "committed: false, format: myst, options: {{prog: llmserve{}}}"
    shutil.copy(REGISTRIES / "shape_server.py", root / "shape_server.py")
    config = SHAPE_CONFIG.format(
        suffix=suffix,
        extra=extra.format(""),
        extra_compact=extra.format(", layout: compact"),
    )
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    if engine == "mkdocs":
        (root / "docs" / "index.md").write_text("# llmserve\n", encoding="utf-8")
    else:
        toctree = "\n".join(SHAPE_PAGES)
        (root / "docs" / "index.md").write_text(
            f"# llmserve\n\n```{{toctree}}\n{toctree}\n```\n", encoding="utf-8"
        )
    return root


# ------------------------------------------------------------------ the sites, built once


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    find_chromium()
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def material_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = fixture_project(tmp_path_factory.mktemp("material") / "project", "mkdocs")
    (root / "docs" / "index.md").write_text(MKDOCS_INDEX, encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    result = build_site(root / "mkdocs.yml", root.parent / "site")
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module")
def material_shape(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = shape_project(tmp_path_factory.mktemp("material-shape") / "project", "mkdocs")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    result = build_site(root / "mkdocs.yml", root.parent / "site")
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


# The shape fixture's site for Zensical, which ignores the MkDocs plugin: the pages are generated
# first (`argmatrix generate`), the site's stylesheet and script copied from the package, as
# `make docs-zensical` does for the repository's site; Zensical wants its site folder inside
# the project.
ZENSICAL_YML = """\
site_name: llmserve
docs_dir: docs
site_dir: !ENV [ARGMATRIX_SITE_DIR, site]
theme: {name: material}
extra_css: [assets/argmatrix/argmatrix.css]
extra_javascript: [assets/argmatrix/argmatrix.js]
markdown_extensions:
  - tables
  - attr_list
  - md_in_html
  - pymdownx.highlight
  - pymdownx.superfences
  - toc: {permalink: true}
"""


@pytest.fixture(scope="module")
def zensical_shape(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = shape_project(tmp_path_factory.mktemp("zensical-shape") / "project", "mkdocs")
    generated = run_cli_in_process("generate", cwd=root)
    assert generated.code == 0, generated.err
    assets = ["-m", "argmatrix.integrations.assets", "docs/assets/argmatrix"]
    subprocess.run([sys.executable, *assets], cwd=root, check=True, timeout=60)
    (root / "mkdocs.yml").write_text(ZENSICAL_YML, encoding="utf-8")
    result = build_zensical(root / "mkdocs.yml", root / "site")
    assert result.code == 0, result.output
    for page in SHAPE_PAGES:  # built by Zensical, not left over from another engine
        assert (root / "site" / page / "index.html").is_file(), page
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module", params=["alabaster", "furo"])
def sphinx_shape(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    theme = str(request.param)
    root = shape_project(tmp_path_factory.mktemp(f"shape-{theme}") / "project", "sphinx")
    with serve(sphinx_site(root, theme, root.parent / "html")) as url:
        yield theme, url


@pytest.fixture(scope="module")
def material_showcase() -> Iterator[str]:
    result = showcase_site()
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module")
def zensical_showcase() -> Iterator[str]:
    """The same site built by Zensical (its Material look, the Markdown extension)."""
    result = showcase_zensical_site()
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module", params=["alabaster", "furo"])
def sphinx_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    theme = str(request.param)
    root = fixture_project(tmp_path_factory.mktemp(f"sphinx-{theme}") / "project", "sphinx")
    (root / "docs" / "index.md").write_text(SPHINX_INDEX, encoding="utf-8")
    with serve(sphinx_site(root, theme, root.parent / "html")) as url:
        yield theme, url


@pytest.fixture(scope="module", params=["alabaster", "furo"])
def sphinx_sglang(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    theme = str(request.param)
    root = sglang_project(tmp_path_factory.mktemp(f"sglang-{theme}") / "project")
    with serve(sphinx_site(root, theme, root.parent / "html")) as url:
        yield theme, url


# The longest flag beside which a compact table of three columns still fits a theme's text
# column at 1400 px (Furo's and alabaster's are about 700 px, in a larger font than Material's).
LONG_FLAG = 50


def columns_at_desktop(fit: Fit) -> None:
    """A compact table is a table at 1400 px (it has at most three columns), but where a flag
    is so long that three columns cannot stand beside it: that table is cards."""
    assert all(longest > LONG_FLAG for longest in fit.card_flags), f"{fit}: {fit.card_flags}"


# ------------------------------------------------------------------ MkDocs Material

MATERIAL_FIXTURE_PAGES = ["", "server_arguments/", "compact/", "npu/", "npu_variants/"]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", MATERIAL_FIXTURE_PAGES)
def test_the_fixture_servers_pages_fit_in_material(
    browser: Any, material_fixture: str, page: str, size: tuple[int, int]
) -> None:
    name = "material-fixture-" + (page.strip("/") or "index")
    fit = check_fits(browser, material_fixture + page, size, name)
    if size == PHONE:
        assert fit.cards == fit.tables, f"{fit}: a table on a phone"
    elif page in ("server_arguments/", "compact/"):
        # Five columns (the environment variable's) still fit as a table beside these flags.
        assert fit.cards == 0, str(fit)
        assert "Environment variable" in fit.headings or page == "compact/"


def shape_fits(fit: Fit, page: str, size: tuple[int, int]) -> None:
    """What the shape fixture's pages show beside fitting: the value forms after the flags
    (measured: each on its lines, broken only between its pieces), and tables at 1400 px."""
    assert fit.values >= 10, f"{fit}: {fit.values} value forms"
    # The exclusive groups' notes ("one of `--enable-prefix-caching`, ...") and the deprecated
    # flags' replacements name flags in other cells: each was measured on one line.
    assert fit.named >= 4, f"{fit}: {fit.named} flags named in other cells"
    if size == PHONE:
        assert fit.cards == fit.tables, f"{fit}: a table on a phone"
    else:  # short flags: every table stands as a table beside them, five columns included
        assert fit.cards == 0, str(fit)
        if page == "shape_compact":
            assert max(map(len, fit.header_rows)) <= 3, f"{fit}: {fit.header_rows}"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_the_shape_fixtures_pages_fit_in_material(
    browser: Any, material_shape: str, page: str, size: tuple[int, int]
) -> None:
    fit = check_fits(browser, f"{material_shape}{page}/", size, f"material-{page}")
    shape_fits(fit, page, size)


SHOWCASE_PAGES = [
    "showcase-0.5.23/server_arguments/",  # compact (the showcase's choice), with "Added in"
    "showcase/server_arguments/",  # sglang 0.5.7, the default layout
    "showcase/ascend_variants/",
    "showcase/matrix/",
    "reference/cli/",
]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHOWCASE_PAGES)
def test_the_showcase_fits_in_material(
    browser: Any, material_showcase: str, page: str, size: tuple[int, int]
) -> None:
    name = "material-" + page.strip("/").replace("/", "-")
    fit = check_fits(browser, material_showcase + page, size, name)
    if page.startswith("showcase-0.5.23") and size == DESKTOP:
        columns_at_desktop(fit)
        # Every table shows it but the deprecated arguments' (Argument, Replacement, Description).
        assert fit.tables > 50 and fit.headings.count("Added in") == fit.tables - 1


def test_only_status_columns_are_moved_and_pinned_as_statuses(
    browser: Any, material_showcase: str, material_fixture: str
) -> None:
    """The site's script knows a status column by what the renderer says it is (the column keys
    an HTML page carries), never by a list of headings: "Type / options" and the CLI page's
    "Type / values" stay where they are."""
    statuses = (
        "return [...new Set([...document.querySelectorAll('td.am-support')]"
        ".map(td => td.getAttribute('data-am-label')))].sort()"
    )
    for page in ("showcase-0.5.23/server_arguments/", "reference/cli/"):
        open_page(browser, material_showcase + page, DESKTOP)
        assert browser.execute_script(statuses) == [], page
    open_page(browser, material_fixture + "server_arguments/", DESKTOP)
    assert browser.execute_script(statuses) == []
    headings = browser.execute_script(
        "return [...document.querySelectorAll('article table')].map(table =>"
        " [...table.querySelectorAll('thead th')].map(th => th.textContent.trim()))"
    )
    assert headings and all(
        table[:4] == ["Argument", "Description", "Default", "Type / options"]
        or table[:3] == ["Argument", "Replacement", "Description"]
        for table in headings
    ), headings  # in the page's order: nothing moved next to the flag
    open_page(browser, material_fixture + "npu/", DESKTOP)
    assert browser.execute_script(statuses) == ["Server supported"]
    open_page(browser, material_fixture + "npu_variants/", DESKTOP)
    assert browser.execute_script(statuses) == ["A2", "A3"]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize(
    "page", ["showcase-0.5.23/server_arguments/", "showcase/ascend_variants/", "reference/cli/"]
)
def test_the_showcase_fits_in_zensical(
    browser: Any, zensical_showcase: str, page: str, size: tuple[int, int]
) -> None:
    name = "zensical-" + page.strip("/").replace("/", "-")
    check_fits(browser, zensical_showcase + page, size, name)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_the_shape_fixtures_pages_fit_in_zensical(
    browser: Any, zensical_shape: str, page: str, size: tuple[int, int]
) -> None:
    fit = check_fits(browser, f"{zensical_shape}{page}/", size, f"zensical-{page}")
    shape_fits(fit, page, size)


# ------------------------------------------------------------------ Sphinx: alabaster, Furo

SPHINX_FIXTURE_PAGES = [
    "index.html",
    "server_arguments.html",
    "compact.html",
    "npu.html",
    "npu_variants.html",
]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SPHINX_FIXTURE_PAGES)
def test_the_fixture_servers_pages_fit_in_sphinx(
    browser: Any, sphinx_fixture: tuple[str, str], page: str, size: tuple[int, int]
) -> None:
    theme, url = sphinx_fixture
    fit = check_fits(browser, url + page, size, f"{theme}-fixture-{page.removesuffix('.html')}")
    if size == PHONE:
        assert fit.cards == fit.tables, f"{fit}: a table on a phone"
    elif page == "compact.html":
        columns_at_desktop(fit)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", ["server_arguments.html", "compact.html"])
def test_sglang_0523_fits_in_sphinx(
    browser: Any, sphinx_sglang: tuple[str, str], page: str, size: tuple[int, int]
) -> None:
    theme, url = sphinx_sglang
    fit = check_fits(
        browser, url + page, size, f"{theme}-sglang-0.5.23-{page.removesuffix('.html')}"
    )
    assert fit.tables > 50 and fit.flags > 550
    # In every table, shown, but the deprecated arguments' (Argument, Replacement, Description).
    assert fit.headings.count("Added in") == fit.tables - 1
    if page == "compact.html" and size == DESKTOP:
        columns_at_desktop(fit)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_the_shape_fixtures_pages_fit_in_sphinx(
    browser: Any, sphinx_shape: tuple[str, str], page: str, size: tuple[int, int]
) -> None:
    theme, url = sphinx_shape
    fit = check_fits(browser, f"{url}{page}.html", size, f"{theme}-{page}")
    shape_fits(fit, page, size)


# ------------------------------------------------------------------ a long flag named in a cell

# A registry whose exclusive pair has a flag longer than a phone's card is wide: the note "At
# most one of `--...`, `--...`" names it in the description of both rows, where it must stay on
# one line without making the page wider than a phone's screen.
LONG_FLAG_REGISTRY = """\
import argparse


def build_parser():
    parser = argparse.ArgumentParser(prog="llmserve")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--LONG", action="store_true", help="Turn the long feature on.")
    group.add_argument("--off", action="store_true", help="Turn it off.")
    parser.add_argument("--port", type=int, default=8000, help="Port.")
    return parser
"""
# Longer than any of sglang 0.5.23's (44 letters): on a card it gets smaller, still readable.
LONG_NAMED_FLAG = "--enable-experimental-overlapped-scheduling-of-prefill-batches"
LONG_FLAG_CONFIG = """\
registry: {{target: 'long_flag:build_parser', mode: static, search_path: ['{root}']}}
docs_dir: docs
pages:
  - {{template: server_arguments.{suffix}, output: long.md, committed: false, {extra}}}
"""


@pytest.mark.parametrize("engine", ["material", "alabaster", "furo"])
def test_a_long_flag_named_in_a_description_stays_whole_on_a_phone(
    browser: Any, tmp_path: Path, engine: str
) -> None:
    assert len(LONG_NAMED_FLAG) > 60
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    registry = LONG_FLAG_REGISTRY.replace("--LONG", LONG_NAMED_FLAG)
    (root / "long_flag.py").write_text(registry, encoding="utf-8")
    mkdocs = engine == "material"
    suffix, extra = ("md.j2", "options: {html: true}") if mkdocs else ("myst.j2", "format: myst")
    config = LONG_FLAG_CONFIG.format(root=root, suffix=suffix, extra=extra)
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    if mkdocs:
        (root / "docs" / "index.md").write_text("# llmserve\n", encoding="utf-8")
        (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
        result = build_site(root / "mkdocs.yml", tmp_path / "site")
        assert result.code == 0, result.output
        site, page = result.site, "long/"
    else:
        index = "# llmserve\n\n```{toctree}\nlong\n```\n"
        (root / "docs" / "index.md").write_text(index, encoding="utf-8")
        site, page = sphinx_site(root, engine, tmp_path / "html"), "long.html"
    with serve(site) as url:
        for size in SIZES:
            fit = check_fits(browser, url + page, size, f"{engine}-long-flag")
            # Named in both rows of the pair; check_fits failed on any broken over two lines,
            # outside the text column, or a page wider than the screen.
            assert fit.named >= 2, str(fit)
            sizes = browser.execute_script(
                "return [...document.querySelectorAll('table code.am-flag')]"
                ".map(code => parseFloat(getComputedStyle(code).fontSize))"
            )
            assert sizes and min(sizes) >= 7, f"{fit}: a flag made too small to read: {sizes}"


# ------------------------------------------------------------------ a permalink on every flag

# Every flag row's anchor and the permalink after its names: where it points, whether it is shown
# (its ¶, its box), its opacity at rest and once it has the focus, whether it takes the focus.
PERMALINKS = """
const rows = [];
for (const anchor of document.querySelectorAll('table td:first-child > a[id]')) {
  const link = anchor.parentElement.querySelector(':scope > a.am-permalink');
  if (!link) { rows.push({id: anchor.id, link: null}); continue; }
  link.style.transition = 'none';  // the state it ends in, not a frame of its fading in
  const rest = getComputedStyle(link).opacity;
  link.focus();
  rows.push({id: anchor.id, link: link.getAttribute('href'), rest: rest,
             focused: document.activeElement === link, shown: getComputedStyle(link).opacity,
             mark: getComputedStyle(link, '::after').content,
             width: link.getBoundingClientRect().width});
  link.blur();
}
return rows;
"""


@pytest.mark.parametrize("theme", ["material", "mkdocs"])
def test_every_flag_row_has_a_permalink_a_keyboard_reaches(
    browser: Any, tmp_path: Path, theme: str
) -> None:
    """MkDocs pages (Material's theme and MkDocs' own) show a ¶ after each flag's names as
    Material shows one after a heading: hidden at rest, shown while the row is hovered or the
    link has the focus, which the keyboard gives it; it links to the row's anchor."""
    root = shape_project(tmp_path / "project", "mkdocs")
    yml = MKDOCS_YML.replace("theme: {name: material}", f"theme: {{name: {theme}}}")
    (root / "mkdocs.yml").write_text(yml, encoding="utf-8")
    result = build_site(root / "mkdocs.yml", tmp_path / "site")
    assert result.code == 0, result.output
    with serve(result.site) as url:
        for page in SHAPE_PAGES:
            browser.set_window_size(*DESKTOP)
            browser.get(f"{url}{page}/")
            wait_for(browser, "document.readyState === 'complete'")
            rows = browser.execute_script(PERMALINKS)
            assert len(rows) > 20, page
            for row in rows:
                assert row["link"] == "#" + row["id"], row
                assert (row["rest"], row["shown"]) == ("0", "1"), row
                assert row["focused"] and row["width"] > 0 and row["mark"] == '"\u00b6"', row


# ------------------------------------------------------------------ usages that wrap

# Each code block of the page: whether the script took it for a usage, how much of it scrolls out
# of sight, the pieces broken over two lines (a flag, a choice), the lines that do not hang under
# their start once wrapped, and its text (kept as written: copied, it is the usage's lines).
USAGE_BLOCKS = """
const out = [];
for (const pre of document.querySelectorAll('pre')) {
  const code = pre.querySelector('code') || pre;
  const lines = new Set();
  const unhung = [];
  for (const line of pre.querySelectorAll('.am-usage-line')) {
    const pieces = [...line.querySelectorAll('.am-piece')];
    if (!pieces.length) continue;
    const start = pieces[0].getBoundingClientRect();
    for (const piece of pieces.slice(1)) {
      const box = piece.getBoundingClientRect();
      if (Math.round(box.top) > Math.round(start.top) && box.left < start.left + 2
          && !line.classList.contains('am-continued'))
        unhung.push(piece.textContent);
    }
  }
  out.push({usage: pre.hasAttribute('data-am-usage'),
            hidden: Math.max(pre.scrollWidth - pre.clientWidth, code.scrollWidth - code.clientWidth),
            broken: [...pre.querySelectorAll('.am-piece')].filter(piece =>
              new Set([...piece.getClientRects()].map(r => Math.round(r.top))).size > 1)
              .map(piece => piece.textContent),
            unhung: unhung, text: code.textContent});
}
return out;
"""


def usage_blocks_wrap(browser: Any, url: str, size: tuple[int, int]) -> None:
    from test_usage_synopsis import argparse_usages

    open_page(browser, url, size)
    blocks = browser.execute_script(USAGE_BLOCKS)
    assert blocks and all(block["usage"] for block in blocks), url  # every usage of the page
    # The program's, serve's and bench's usage, as argparse prints them, token by token.
    assert [block["text"].split() for block in blocks] == argparse_usages(), url
    for block in blocks:
        where = f"{url} at {size[0]} px: {block['text'][:40]!r}"
        assert block["hidden"] <= 1, f"{where}: scrolls {block['hidden']} px"
        assert block["broken"] == [], f"{where}: broken inside {block['broken']}"
        assert block["unhung"] == [], f"{where}: wrapped without its hang {block['unhung']}"
        first, *rest = block["text"].split("\n")
        assert first.startswith("llmserve") and not block["text"].endswith("\n"), where
        assert len({len(line) - len(line.lstrip(" ")) for line in rest}) <= 1, where


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_usages_wrap_with_a_hanging_indent_in_material(
    browser: Any, material_shape: str, page: str, size: tuple[int, int]
) -> None:
    """A usage longer than its code block (a phone: about 40 characters) wraps, as argparse
    wraps one, rather than scrolling sideways; at 1400 px it keeps its own lines."""
    usage_blocks_wrap(browser, f"{material_shape}{page}/", size)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_usages_wrap_with_a_hanging_indent_in_zensical(
    browser: Any, zensical_shape: str, page: str, size: tuple[int, int]
) -> None:
    usage_blocks_wrap(browser, f"{zensical_shape}{page}/", size)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", SHAPE_PAGES)
def test_usages_wrap_with_a_hanging_indent_in_sphinx(
    browser: Any, sphinx_shape: tuple[str, str], page: str, size: tuple[int, int]
) -> None:
    _theme, url = sphinx_shape
    usage_blocks_wrap(browser, f"{url}{page}.html", size)
