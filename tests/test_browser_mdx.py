"""MDX pages that fit a Mintlify site at 1400 px (a desktop) and 390 px (a phone), measured in
headless Chromium.

Mintlify is a hosted service and cannot run here. What stands for it:

- **The pages** are what a Mintlify site renders: each generated .mdx page compiled by the real
  `@mdx-js/mdx` (with frontmatter and GFM, as Mintlify reads pages) and rendered to HTML by
  React's `renderToStaticMarkup` (tests/e2e/mdx_render.mjs). A page's `<table>`, `<td>` and
  `<code>` are HTML elements as written; Mintlify's own components (`<Note>`) and the snippets a
  page imports stand in as a `<div>` holding their children.
- **The page frame** (tests/e2e/mintlify-frame.css, our own CSS) reproduces these facts of
  Mintlify's default page layout, from public sources:
  - a `.css` file in the docs repository is applied to every page, unlayered, so it overrides
    Mintlify's layered Tailwind utilities (Mintlify's "Custom scripts" page; the comments of
    radixark/miles' docs/style.css, a Mintlify site);
  - breakpoints lg 1024 px (the sidebar, 18rem in the mint theme, appears) and xl 1280 px (the
    table of contents appears) (mintlify/docs, agent-context's themes-and-layout.md and
    css-variables.md); the content column is about 719 px wide at 1280 and 1440 px (radixark/miles
    pull request 2394, measured on its Mintlify site): 45rem here;
  - every table is wrapped in a box that scrolls sideways and hides its scroll bar, so columns
    that do not fit are silently cut off (radixark/miles pull request 2394; Mintlify's table
    docs: "tables that are too wide for the page scroll horizontally");
  - every table cell is at least 150 px wide (`[&_td]:min-w-[150px]`: radixark/miles 2394,
    growthbook 6943); a phone's content column is the viewport less 1rem each side (assumed:
    Tailwind's usual padding; no public source gives it).
- **The stylesheet** a Mintlify user adds: argmatrix's `argmatrix-mintlify.css`, as
  `python -m argmatrix.integrations.assets --mintlify` copies it (docs/guide/mintlify.md).

Measured (tests/e2e/mdx_fit.py): no sideways scroll of the page, every header cell and cell
inside the content column and inside its scroll box, every flag on one line (and no smaller
than 8 px), each value form broken only after a choice's comma or at a space. On the Mintlify
fixture's pages (sglang 0.5.7's registry, its Ascend page, a guide with one section's tables:
tests/fixtures/mintlify after `argmatrix generate`), the Click showcase's committed page
(showcase/click-server), sglang 0.5.23's reference (531 arguments, the showcase's configuration,
in the default layout and the compact one) and the shape fixture (shape_server.py) as MDX: its
server arguments in both layouts and its command-line reference. Two of the pages are measured
without the stylesheet too: at 390 px they do not fit (the measure can fail, and the stylesheet
is what makes them fit). Screenshots are kept in tests/artifacts/ (fit-mdx-*.png).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argmatrix.integrations.assets import MINTLIFY_STYLESHEET
from argmatrix.integrations.assets import main as copy_assets_main
from e2e.browser import chromium, find_chromium
from e2e.fit import DESKTOP, PHONE
from e2e.mdx_fit import check_mdx_fits, measure, problems
from e2e.mdx_site import MdxRenderer, write_site
from e2e.site import serve
from helpers import REGISTRIES, REPO, run_cli_in_process
from test_mdx_mintlify import ASCEND_PAGE, GUIDE, SERVER_PAGE, copy_mintlify

pytestmark = pytest.mark.browser  # Debian's Chromium and ChromeDriver

SIZES = [DESKTOP, PHONE]
SIZE_IDS = ["1400", "390"]

SHAPE_CONFIG = """\
registry:
  target: shape_server:build_parser
  mode: live
docs_dir: docs
pages:
  - {template: server_arguments.mdx.j2, output: shape_server.mdx}
  - {template: server_arguments.mdx.j2, output: shape_compact.mdx, options: {layout: compact}}
  - {template: cli_reference.mdx.j2, output: shape_cli.mdx}
"""
SHAPE_PAGES = ["shape_server", "shape_compact", "shape_cli"]
MINTLIFY_PAGES = [SERVER_PAGE, GUIDE, ASCEND_PAGE]
# The Click showcase's committed MDX page (an environment variable a line of the description).
CLICK_SHOWCASE = REPO / "showcase" / "click-server" / "docs" / "server_arguments.mdx"
# sglang 0.5.23's 531 arguments with the showcase's configuration (its section titles, computed
# defaults, history facts: the MDX tables keep SGLang's four cells, no "Added in"), in the
# default layout and the compact one (`make new-sglang`).
SGLANG_0523 = REPO / ".cache" / "sglang-0.5.23"
SHOWCASE_0523 = REPO / "showcase" / "sglang-0.5.23"
SGLANG_PAGES = ["sglang_0523", "sglang_0523_compact"]
PAGES = [
    *SHAPE_PAGES,
    *(page.removesuffix(".mdx") for page in MINTLIFY_PAGES),
    "click_server",
    *SGLANG_PAGES,
]


def mdx_pages(tmp_path: Path) -> dict[str, str]:
    """The generated pages of the Mintlify fixture and of the shape fixture, by name."""
    mintlify = copy_mintlify(tmp_path)
    result = run_cli_in_process("generate", cwd=mintlify)
    assert result.code == 0, result.err
    shape = tmp_path / "shape"
    (shape / "docs").mkdir(parents=True)
    (shape / ".git").mkdir()
    shutil.copy(REGISTRIES / "shape_server.py", shape / "shape_server.py")
    (shape / "argmatrix.yaml").write_text(SHAPE_CONFIG, encoding="utf-8")
    result = run_cli_in_process("generate", cwd=shape)
    assert result.code == 0, result.err
    pages = {
        name: (shape / "docs" / f"{name}.mdx").read_text(encoding="utf-8") for name in SHAPE_PAGES
    }
    for page in MINTLIFY_PAGES:
        text = (mintlify / "docs" / page).read_text(encoding="utf-8")
        pages[page.removesuffix(".mdx")] = text
    pages["click_server"] = CLICK_SHOWCASE.read_text(encoding="utf-8")
    sglang = sglang_project(tmp_path / "sglang")
    result = run_cli_in_process("generate", cwd=sglang)
    assert result.code == 0, result.err
    for name in SGLANG_PAGES:
        pages[name] = (sglang / "docs" / f"{name}.mdx").read_text(encoding="utf-8")
    return pages


def sglang_project(root: Path) -> Path:
    """The sglang 0.5.23 showcase's configuration, its pages written as MDX."""
    if not (SGLANG_0523 / "sglang").is_dir():
        pytest.fail(f"sglang 0.5.23 is not in {SGLANG_0523} (fix: run `make new-sglang`)")
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    config = (SHOWCASE_0523 / "argmatrix.yaml").read_text(encoding="utf-8")
    replacements = {
        "../../.cache/sglang-0.5.23": str(SGLANG_0523),
        "docs_dir: ../../docs": "docs_dir: docs",
        "history: history.json": f"history: {SHOWCASE_0523 / 'history.json'}",
        "template: server_arguments.md.j2": "template: server_arguments.mdx.j2",
        "output: showcase-0.5.23/server_arguments.md": "output: sglang_0523_compact.mdx",
        "options: {html: true, layout: compact,": "options: {layout: compact,",
    }
    for old, new in replacements.items():
        assert old in config, old
        config = config.replace(old, new)
    default = (
        "  - {template: server_arguments.mdx.j2, output: sglang_0523.mdx, committed: false,"
        f" history: {SHOWCASE_0523 / 'history.json'}}}\n"
    )
    config = config.replace("pages:\n", "pages:\n" + default, 1)
    (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    return root


def the_users_stylesheet(folder: Path) -> Path:
    """The stylesheet as a user gets it: copied by the documented command."""
    assert copy_assets_main(["--mintlify", str(folder)]) == 0
    return folder / MINTLIFY_STYLESHEET


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The pages with argmatrix's stylesheet (`styled`) and without it (`bare`), served."""
    root = tmp_path_factory.mktemp("mdx-sites")
    pages = mdx_pages(root / "projects")
    stylesheet = the_users_stylesheet(root / "docs-repository")
    renderer = MdxRenderer()
    try:
        styled = write_site(renderer, pages, root / "styled", [stylesheet])
        bare = write_site(renderer, pages, root / "bare", [])
    finally:
        renderer.close()
    with serve(styled) as styled_url, serve(bare) as bare_url:
        yield {"styled": styled_url, "bare": bare_url}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    find_chromium()
    with chromium() as driver:
        yield driver


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("page", PAGES)
def test_every_mdx_page_fits_with_the_stylesheet(
    browser: Any, sites: dict[str, str], page: str, size: tuple[int, int]
) -> None:
    name = page.replace("/", "-")
    fit = check_mdx_fits(browser, f"{sites['styled']}{page}.html", size, name)
    assert fit.flags >= fit.rows  # every row's flags measured
    if page.startswith("shape"):
        assert fit.values >= 10, f"{fit}: {fit.values} value forms"
    if page in SGLANG_PAGES:
        assert fit.tables > 50 and fit.flags > 550, str(fit)
    if page == SERVER_PAGE.removesuffix(".mdx"):
        # SGLang's columns, in every table but the deprecated arguments'.
        assert fit.tables > 10 and fit.rows > 250, str(fit)
        assert all(
            row == ("Argument", "Description", "Defaults", "Options") for row in fit.headings
        )


@pytest.mark.parametrize("page", ["shape_server", SERVER_PAGE.removesuffix(".mdx")])
def test_without_the_stylesheet_a_phone_cuts_columns_off(
    browser: Any, sites: dict[str, str], page: str
) -> None:
    """The frame's facts bite: four columns of at least 150 px each cannot stand in a phone's
    column, so Mintlify's scroll box hides the last ones, and a long flag overflows."""
    data = measure(browser, f"{sites['bare']}{page}.html", PHONE)
    found = problems(data)
    assert any(problem.startswith("outside the content column: ") for problem in found), found
    assert any(": TH Options at " in problem for problem in found), found
