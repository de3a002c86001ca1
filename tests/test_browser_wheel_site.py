"""A maintainer's own site gets the showcase's look: argmatrix built as a wheel, installed into a
folder of its own (never into .venv), and a MkDocs project outside the repository that lists
only `plugins: [argmatrix]`. The plugin brings the stylesheet and script from the wheel; in
headless Chromium the status columns of every argument table are in view at 1400 px, and on a
phone (390 px) every card shows its statuses without scrolling sideways. The same checks run
on the showcase. Screenshots are kept in tests/artifacts/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.browser import chromium, find_chromium, screenshot, wait_for
from e2e.fit import check_fits
from e2e.site import serve, showcase_site
from helpers import REPO

pytestmark = pytest.mark.browser  # Debian's Chromium and ChromeDriver

DESKTOP = (1400, 900)
PHONE = (390, 844)
ASSETS = ("argmatrix.css", "argmatrix.js")
PIP = (sys.executable, "-m", "pip")

USER_CONFIG = """\
registry:
  target: sglang.srt.server_args:ServerArgs.add_cli_args
  mode: static
manifests: [capabilities/ascend.yaml]
docs_dir: docs
pages:
  - {template: server_arguments.md.j2, output: reference/server_arguments.md, committed: false,
     options: {html: true}}
  - {template: platform_support.md.j2, output: reference/ascend.md, platform: ascend,
     committed: false, options: {html: true}}
  - {template: platform_support.md.j2, output: reference/ascend_variants.md, platform: ascend,
     committed: false, options: {layout: variants, html: true}}
  - {template: platform_matrix.md.j2, output: reference/matrix.md, committed: false,
     options: {html: true}}
  - {template: platform_support.md.j2, output: reference/ascend_plain.md, platform: ascend,
     committed: false}
"""

USER_MKDOCS = """\
site_name: A server's docs
docs_dir: docs
theme: {name: material}
plugins:
  - search
  - argmatrix
markdown_extensions:
  - tables
  - toc: {permalink: true}
nav:
  - Home: index.md
  - Reference:
      - Server arguments: reference/server_arguments.md
      - Ascend: reference/ascend.md
      - Ascend per variant: reference/ascend_variants.md
      - Matrix: reference/matrix.md
      - Ascend without HTML: reference/ascend_plain.md
"""

USER_INDEX = """\
# LoRA on Ascend

<!-- argmatrix section="LoRA" platform="ascend" layout="variants" -->

<!-- argmatrix section="LoRA" platform="ascend" -->
"""

USER_PAGES = (
    "",
    "reference/ascend/",
    "reference/ascend_variants/",
    "reference/matrix/",
)
SHOWCASE_PAGES = (
    "tutorials/lora-on-ascend/",
    "showcase/ascend/",
    "showcase/ascend_variants/",
    "showcase/matrix/",
)

# Every argument table with status columns: where each status heading is (each status cell, on
# a table shown as cards), where the table's visible area ends (Material's scrolling wrapper,
# else the article), and the viewport.
STATUS_HEADINGS = """
const tables = [];
for (const table of document.querySelectorAll('article table[data-am-support]')) {
  if (!table.getClientRects().length) continue;
  const area = (table.closest('.md-typeset__scrollwrap') || table.closest('article'))
    .getBoundingClientRect();
  // A table shown as cards (it would not fit as a table) has no heading row: its status
  // cells, each labelled with its column's name, are what must be in view.
  const cards = table.hasAttribute('data-am-cards');
  const headings = [...table.querySelectorAll(
      cards ? 'tbody td.am-support' : 'thead th[data-am-support-heading]')]
    .map(th => { const b = th.getBoundingClientRect();
      return {text: cards ? th.getAttribute('data-am-label') : th.textContent.trim(),
              left: b.left, right: b.right}; });
  tables.push({area: {left: area.left, right: area.right}, headings: headings,
               first: table.querySelector('tbody tr td').textContent.trim()});
}
return {tables: tables, width: document.documentElement.clientWidth};
"""

# On a phone: every status cell of every card, and whether the page scrolls sideways.
CARD_STATUSES = """
const cells = [];
for (const cell of document.querySelectorAll('article table[data-am-support] td.am-support')) {
  if (!cell.closest('tr').getClientRects().length) continue;
  const b = cell.getBoundingClientRect();
  cells.push({left: b.left, right: b.right, height: b.height,
              flag: cell.closest('tr').cells[0].textContent.trim()});
}
// Cells shown with their column's name and nothing after it ("Note:" on a row without a note).
const empty = [...document.querySelectorAll('article table[data-am-support] td[data-am-label]')]
  .filter(td => td.getClientRects().length && !td.textContent.trim()).length;
// The matrix's cards: how much of the card's width the flag has (all of it: its own line).
const flags = [...document.querySelectorAll('article table[data-am-badges] tr')]
  .filter(tr => tr.getClientRects().length && tr.cells.length)
  .map(tr => tr.cells[0].getBoundingClientRect().width / tr.getBoundingClientRect().width);
return {cells: cells, width: document.documentElement.clientWidth, empty: empty,
        narrowest_flag: flags.length ? Math.min(...flags) : 1,
        scroll: document.documentElement.scrollWidth};
"""


def build_wheel(work: Path) -> Path:
    """argmatrix's wheel, built from a copy of its sources (nothing is written into the
    repository) with the build backend of .venv."""
    source = work / "source"
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    wheels = work / "wheels"
    subprocess.run(
        [*PIP, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("argmatrix-*.whl")
    return wheel


def install_wheel(wheel: Path, target: Path) -> None:
    subprocess.run(
        [*PIP, "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )


def user_project(folder: Path) -> Path:
    """A maintainer's project: its own configuration, a manifest, one hand-written page with
    directives, and a mkdocs.yml that says nothing of argmatrix's stylesheet or script."""
    (folder / "docs").mkdir(parents=True)
    (folder / "capabilities").mkdir()
    shutil.copy2(REPO / "capabilities" / "ascend.yaml", folder / "capabilities" / "ascend.yaml")
    (folder / "argmatrix.yaml").write_text(USER_CONFIG, encoding="utf-8")
    (folder / "mkdocs.yml").write_text(USER_MKDOCS, encoding="utf-8")
    (folder / "docs" / "index.md").write_text(USER_INDEX, encoding="utf-8")
    return folder


def run_with_wheel(lib: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A command of .venv's Python with the installed wheel first on its path (and never the
    repository's sources)."""
    env = {**os.environ, "PYTHONPATH": str(lib), "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def user_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel-site")
    lib = work / "lib"
    install_wheel(build_wheel(work), lib)
    project = user_project(work / "project")
    where = run_with_wheel(lib, ["-c", "import argmatrix; print(argmatrix.__file__)"], project)
    assert Path(where.stdout.strip()).is_relative_to(lib), where
    built = run_with_wheel(
        lib, ["-m", "mkdocs", "build", "--strict", "-d", str(work / "site")], project
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return work / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    find_chromium()
    with chromium() as driver:
        yield driver


def open_at(driver: Any, url: str, size: tuple[int, int]) -> None:
    driver.set_window_size(*size)
    driver.get(url)
    wait_for(driver, "document.readyState === 'complete'")
    wait_for(driver, "document.querySelector('table[data-am-arranged]') !== null")


def test_the_wheel_ships_the_assets_and_the_plugin_serves_them(user_site: Path) -> None:
    for name in ASSETS:
        served = user_site / "assets" / "argmatrix" / name
        assert served.read_bytes() == (REPO / "src" / "argmatrix" / "assets" / name).read_bytes()
    page = (user_site / "reference" / "matrix" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="stylesheet" href="../../assets/argmatrix/argmatrix.css">' in page
    assert 'src="../../assets/argmatrix/argmatrix.js"' in page


def test_the_repository_keeps_one_copy_of_the_assets() -> None:
    assert not (REPO / "docs" / "assets" / "argmatrix.css").exists()
    assert not (REPO / "docs" / "assets" / "argmatrix.js").exists()


def check_statuses_in_view(driver: Any, url: str, name: str) -> int:
    open_at(driver, url, DESKTOP)
    screenshot(driver, f"{name}-1400")
    data = driver.execute_script(STATUS_HEADINGS)
    for table in data["tables"]:
        assert table["headings"], f"{url}: a table without status headings ({table['first']})"
        for heading in table["headings"]:
            where = f"{url}: {heading['text']} of the table starting {table['first']}"
            assert heading["left"] >= table["area"]["left"] - 0.5, where
            assert heading["right"] <= table["area"]["right"] + 0.5, f"{where}: cut off"
            assert heading["right"] <= data["width"] + 0.5, f"{where}: outside the window"
    return len(data["tables"])


def check_cards_on_a_phone(driver: Any, url: str, name: str) -> int:
    open_at(driver, url, PHONE)
    screenshot(driver, f"{name}-390")
    data = driver.execute_script(CARD_STATUSES)
    assert data["scroll"] <= data["width"], f"{url}: the page scrolls sideways on a phone"
    assert data["empty"] == 0, f"{url}: a card shows a column's name with nothing after it"
    assert data["narrowest_flag"] > 0.9, f"{url}: a matrix card squeezes its flag"
    for cell in data["cells"]:
        assert cell["height"] > 0, f"{url}: {cell['flag']}: a status is not shown"
        assert cell["left"] >= 0 and cell["right"] <= data["width"] + 0.5, cell
    return len(data["cells"])


def test_a_users_site_has_the_badges_and_the_filter(browser: Any, user_site: Path) -> None:
    with serve(user_site) as url:
        open_at(browser, url + "reference/matrix/", DESKTOP)
        looks = browser.execute_script(
            "const badge = document.querySelector('article .am-badge');"
            "const form = document.querySelector('form[data-am-matrix-filter]');"
            "return [getComputedStyle(badge).display, getComputedStyle(badge).borderTopStyle,"
            " form.hidden, form.getClientRects().length > 0];"
        )
    assert looks == ["inline-block", "solid", False, True]


@pytest.mark.parametrize("page", USER_PAGES)
def test_a_users_site_keeps_the_statuses_in_view(browser: Any, user_site: Path, page: str) -> None:
    name = "wheel-" + (page.strip("/").replace("/", "-") or "index")
    with serve(user_site) as url:
        assert check_statuses_in_view(browser, url + page, name) >= 1
        assert check_cards_on_a_phone(browser, url + page, name) > 0


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1400", "390"])
@pytest.mark.parametrize("page", ("reference/server_arguments/", *USER_PAGES))
def test_a_users_site_fits_its_pages(
    browser: Any, user_site: Path, page: str, size: tuple[int, int]
) -> None:
    """The stylesheet and script from the wheel lay out every argument table to fit: no
    sideways scroll, every cell inside the text column, every flag on one line (e2e/fit.py)."""
    name = "wheel-" + (page.strip("/").replace("/", "-") or "index")
    with serve(user_site) as url:
        fit = check_fits(browser, url + page, size, name)
    if size == PHONE:
        assert fit.cards == fit.tables, str(fit)


@pytest.mark.parametrize("page", SHOWCASE_PAGES)
def test_the_showcase_keeps_the_statuses_in_view(browser: Any, page: str) -> None:
    result = showcase_site()
    assert result.code == 0, result.output
    name = "showcase-" + page.strip("/").replace("/", "-")
    with serve(result.site) as url:
        assert check_statuses_in_view(browser, url + page, name) >= 1
        assert check_cards_on_a_phone(browser, url + page, name) > 0


# --quantization-param-path: `{status: not-applicable, reason: Special for GPU}` in the manifest.
REASON_CELL = """
const row = document.getElementById('--quantization-param-path').closest('tr');
const why = row.querySelector('td > .am-why');
if (!why) return null;
why.closest('tr').scrollIntoView({block: 'center'});
const link = why.querySelector('a');
return {shown: why.getClientRects().length > 0, text: why.textContent,
        badge: why.previousElementSibling.textContent, href: link && link.href};
"""
REASON_SHOWN = (
    "const why = document.getElementById('--quantization-param-path').closest('tr')"
    ".querySelector('td > .am-why');"
    "const b = why.getBoundingClientRect();"
    "const top = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);"
    "return [why.getClientRects().length > 0, b.left >= 0 &&"
    " b.right <= document.documentElement.clientWidth + 0.5, why.contains(top)];"
)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1400", "390"])
def test_a_matrix_reason_opens_on_a_tap(
    browser: Any, user_site: Path, size: tuple[int, int]
) -> None:
    """The manifest says why (`reason: Special for GPU`): the badge of that cell opens it."""
    with serve(user_site) as url:
        open_at(browser, url + "reference/matrix/", size)
        before = browser.execute_script(REASON_CELL)
        assert before is not None, "no cell of the matrix carries a reason"
        # The reason, and where it is written: the argument's row on the platform's page.
        assert before["text"] == "Special for GPU (Ascend NPU)" and not before["shown"]
        assert before["href"] == f"{url}reference/ascend/#--quantization-param-path"
        assert before["badge"] == "– Not applicable"
        browser.execute_script(
            "return document.getElementById('--quantization-param-path').closest('tr')"
            ".querySelector('.am-badge:has(+ .am-why)')"
        ).click()
        shown = browser.execute_script(REASON_SHOWN)
        screenshot(browser, f"wheel-matrix-reason-{size[0]}")
    assert shown == [True, True, True]  # shown, inside the window, above the rows below


def test_statuses_are_badges_without_the_html_option(browser: Any, user_site: Path) -> None:
    """A plain GFM platform page (no `options: {html: true}`): each status cell's symbol and
    word become its badge, the variants or the reason beside it."""
    with serve(user_site) as url:
        open_at(browser, url + "reference/ascend_plain/", DESKTOP)
        cells = browser.execute_script(
            "return Array.from(document.querySelectorAll('td.am-support')).map(td => {"
            "  const badge = td.querySelector('.am-badge');"
            "  return [badge ? badge.className : '', td.textContent.trim()];"
            "});"
        )
    assert cells, "no status cell on the page"
    assert all(name.startswith("am-badge am-text-badge am-") for name, _ in cells), cells
    assert any(text.startswith("✓ Supported (") for _, text in cells)


def test_a_flag_on_a_platform_page_leads_to_its_server_arguments_row(
    browser: Any, user_site: Path
) -> None:
    with serve(user_site) as url:
        open_at(browser, url + "reference/ascend/", DESKTOP)
        link = browser.execute_script(
            "const a = document.querySelector('article table a.am-flag-link');"
            "return a && [a.textContent, a.href];"
        )
        assert link is not None, "no flag links to the Server Arguments page"
        # The status's symbol and word become its badge; the reason stays beside it.
        status = browser.execute_script(
            "const td = document.getElementById('--quantization-param-path').closest('tr')"
            ".querySelector('td.am-support');"
            "const badge = td && td.querySelector('.am-badge');"
            "return badge && [badge.className, badge.textContent, td.textContent];"
        )
        assert status == [
            "am-badge am-text-badge am-not-applicable",
            "– Not applicable",
            "– Not applicable (Special for GPU)",
        ]
        flag, href = link
        assert href == f"{url}reference/server_arguments/#{flag}"
        browser.get(href)
        wait_for(browser, "document.readyState === 'complete'")
        assert browser.execute_script("return document.getElementById(arguments[0]) !== null", flag)
