"""The built site in a real browser: headless Chromium on a site served from 127.0.0.1.

Without Chromium or its driver (Debian: chromium chromium-driver) they fail; they are marked
`browser`, which `make test-fast` leaves out.
A screenshot of every page visited is kept under tests/artifacts/.

The showcase is checked as MkDocs builds it (`make docs`) and as Zensical builds it
(`make docs-zensical`: the generated pages, the directives through the Markdown extension).
Search is Material's own user interface and is checked on the MkDocs build only: Zensical's
search is a different component.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from argmatrix.config import load_config
from argmatrix.project import Project, project_from_config
from e2e.browser import chromium, find_chromium, screenshot, wait_for
from e2e.site import (
    ARTIFACTS,
    Build,
    build_site,
    copy_hostile_project,
    serve,
    showcase_site,
    showcase_zensical_site,
)
from helpers import REPO, git_ignores, git_lines

pytestmark = pytest.mark.browser  # Debian's Chromium and ChromeDriver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    find_chromium()
    with chromium() as driver:
        yield driver


ENGINES = {"mkdocs": showcase_site, "zensical": showcase_zensical_site}


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def showcase_url(engine: str) -> Iterator[str]:
    result: Build = ENGINES[engine]()
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module")
def mkdocs_showcase_url() -> Iterator[str]:
    result = showcase_site()
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module")
def showcase() -> Project:
    return project_from_config(load_config(REPO / "argmatrix.yaml", REPO))


def open_page(driver: Any, url: str) -> None:
    driver.get(url)
    wait_for(driver, "document.readyState === 'complete'")


IN_VIEWPORT = """
const element = document.getElementById(arguments[0]);
if (!element) return null;
const box = element.getBoundingClientRect();
const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
return {top: box.top, header: header, height: window.innerHeight, y: window.scrollY};
"""

# Rows of the tables of a support page, before and after its "Not supported" heading.
SUPPORT_ROWS = """
let counts = {supported: 0, unsupported: 0, tables: 0}, after = false;
for (const element of document.querySelector('article').children) {
  if (element.tagName === 'H2' && element.textContent.replace('¶', '').trim() === 'Not supported')
    after = true;
  for (const table of element.matches('table') ? [element] : element.querySelectorAll('table')) {
    if (table.getBoundingClientRect().width === 0) continue;
    counts.tables += 1;
    counts[after ? 'unsupported' : 'supported'] += table.tBodies[0].rows.length;
  }
}
return counts;
"""

VISIBLE_MATRIX_ROWS = """
return Array.from(document.querySelectorAll('article table tbody tr'))
  .filter(row => row.getClientRects().length > 0)
  .map(row => row.cells[0].textContent);
"""


def test_the_ascend_page_shows_a_row_per_argument(
    browser: Any, showcase_url: str, showcase: Project, engine: str
) -> None:
    open_page(browser, showcase_url + "showcase/ascend/")
    screenshot(browser, f"{engine}-ascend")
    ascend = showcase.resolved["ascend"]
    visible = [a for a in showcase.registry.arguments if not a.hidden]
    counts = browser.execute_script(SUPPORT_ROWS)
    assert counts["supported"] == sum(ascend.of(a).status != "unsupported" for a in visible)
    assert counts["unsupported"] == sum(ascend.of(a).status == "unsupported" for a in visible)
    assert counts["tables"] > len(showcase.registry.sections) // 2


@pytest.mark.parametrize("page", ["showcase/ascend/", "showcase/matrix/"])
def test_an_anchor_link_scrolls_its_argument_into_view(
    browser: Any, showcase_url: str, page: str, engine: str
) -> None:
    open_page(browser, showcase_url + page + "#--page-size")
    where = wait_for(browser, "window.scrollY > 0 && true")
    assert where
    box = browser.execute_script(IN_VIEWPORT, "--page-size")
    screenshot(browser, f"{engine}-anchor-" + page.split("/")[1])
    assert box is not None, "no element with id --page-size"
    assert box["y"] > 0
    assert box["header"] <= box["top"] < box["height"], box
    highlight = browser.execute_script(
        "return getComputedStyle(document.getElementById('--page-size').closest('td'))"
        ".backgroundImage"
    )
    assert "gradient" in highlight, "the linked row is not highlighted"


def test_the_matrix_filter_narrows_the_rows(browser: Any, showcase_url: str, engine: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, showcase_url + "showcase/matrix/")
    wait_for(browser, "document.querySelector('form[data-am-matrix-filter]:not([hidden])')")
    every = browser.execute_script(VISIBLE_MATRIX_ROWS)
    box = browser.find_element(By.NAME, "flag")
    box.send_keys("page-size")
    rows = browser.execute_script(VISIBLE_MATRIX_ROWS)
    screenshot(browser, f"{engine}-matrix-filter-flag")
    assert 0 < len(rows) < len(every)
    assert all("page-size" in row for row in rows)
    assert (
        f"Showing {len(rows)} of {len(every)} arguments"
        == browser.find_element(By.NAME, "count").text
    )

    box.clear()
    Select(browser.find_element(By.NAME, "section")).select_by_visible_text("LoRA")
    lora = browser.execute_script(VISIBLE_MATRIX_ROWS)
    assert 0 < len(lora) < len(every) and all("lora" in row for row in lora)
    hidden_headings = browser.execute_script(
        "return Array.from(document.querySelectorAll('article h2')).filter("
        "h => h.getClientRects().length === 0).length"
    )
    assert hidden_headings > 0

    Select(browser.find_element(By.NAME, "section")).select_by_index(0)
    Select(browser.find_element(By.NAME, "status")).select_by_value("not-applicable")
    Select(browser.find_element(By.NAME, "column")).select_by_visible_text("Ascend NPU A3")
    not_applicable = browser.execute_script(VISIBLE_MATRIX_ROWS)
    screenshot(browser, f"{engine}-matrix-filter-status")
    assert 0 < len(not_applicable) < len(every)
    assert (
        browser.execute_script(
            "return Array.from(document.querySelectorAll('article tbody tr'))"
            ".filter(r => r.getClientRects().length).every(r => r.cells[2]"
            ".querySelector('.am-not-applicable'))"
        )
        is True
    )


def test_search_finds_a_flag(browser: Any, showcase_url: str, engine: str) -> None:
    """Typing a flag into the site's search finds the showcase's table of it, on MkDocs and on
    Zensical (whose search is its own: an index of its own, a dialog in a shadow root that
    loads more results as they are scrolled to): `--model-path` reads as the words model and
    path, both highlighted. (A flag in the page's opening usage and first table: Material's
    teaser of a result is the start of its section, which a row far down never reaches.)"""
    open_page(browser, showcase_url)
    links = _zensical_search(browser) if engine == "zensical" else _material_search(browser)
    screenshot(browser, f"search-model-path-{engine}")
    # sglang's pages of it (the vLLM showcase's pages also hold both words, and may come first)
    showcase = [marks for href, marks in links if re.search(r"/showcase(-0\.5\.23)?/", href)]
    assert showcase, links
    assert any({"model", "path"} <= set(marks) for marks in showcase), showcase


def _material_search(browser: Any) -> list[tuple[str, list[str]]]:
    from selenium.webdriver.common.by import By

    search = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    search.click()
    search.send_keys("--model-path")
    return wait_for(  # type: ignore[no-any-return]
        browser,
        (
            "(() => { const items = Array.from(document.querySelectorAll('.md-search-result__item'));"
            " return items.length ? items.map(i => [i.querySelector('a').href,"
            " Array.from(i.querySelectorAll('mark')).map(m => m.textContent.toLowerCase())]) : null;"
            " })()"
        ),
    )


_ZENSICAL_RESULTS = (
    "(() => { const host = Array.from(document.querySelectorAll('*')).find("
    "e => e.shadowRoot && e.shadowRoot.querySelector('input[role=combobox]'));"
    " const list = host && host.shadowRoot.querySelector('ol[role=listbox]');"
    " if (!list) return null; list.parentElement.scrollTop = list.parentElement.scrollHeight;"
    " return Array.from(list.querySelectorAll('li')).filter(li => li.querySelector('a')).map("
    "li => [li.querySelector('a').href,"
    " Array.from(li.querySelectorAll('mark')).map(m => m.textContent.toLowerCase())]); })()"
)


def _zensical_search(browser: Any) -> list[tuple[str, list[str]]]:
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, ".md-search__button").click()
    host = wait_for(
        browser,
        "Array.from(document.querySelectorAll('*')).find("
        "e => e.shadowRoot && e.shadowRoot.querySelector('input[role=combobox]'))",
    )
    host.shadow_root.find_element(By.CSS_SELECTOR, "input[role=combobox]").send_keys("--model-path")
    links: list[tuple[str, list[str]]] = wait_for(
        browser, f"(r => r && r.length ? r : null)({_ZENSICAL_RESULTS})"
    )
    for _ in range(20):  # scrolled to the end, until no more results come
        time.sleep(0.3)
        more = browser.execute_script(f"return {_ZENSICAL_RESULTS}")
        if len(more) == len(links):
            break
        links = more
    return links


def test_markup_in_help_text_shows_as_text_and_never_runs(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    project = copy_hostile_project(tmp_path_factory.mktemp("hostile"))
    result = build_site(project / "mkdocs.yml", project.parent / "site")
    assert result.code == 0, result.output
    with serve(result.site) as url:
        for page in (
            "reference/server_arguments/",
            "reference/npu/",
            "reference/matrix/",
            "guide/",
        ):
            open_page(browser, url + page)
            screenshot(browser, "hostile-" + page.strip("/").replace("/", "-"))
            assert browser.execute_script(
                "return [window.__pwned, document.querySelectorAll("
                "'article script, article img, article b').length]"
            ) == [None, 0], page
            # Cells put an invisible word joiner inside "</script" so no decoder (Material's
            # striptags in <title>) can make it a closing tag again; a reader sees the text.
            text = browser.find_element("css selector", "article").text.replace("\u2060", "")
            if page == "reference/server_arguments/":
                assert (
                    "<script>window.__pwned=1</script> Tokens per page | not a cell break." in text
                )
            if page == "reference/npu/":
                assert "<script>window.__pwned=5</script>NPU" in text


def test_no_browser_artifacts_are_committed() -> None:
    """Screenshots land where git ignores them, and none is in the repository."""
    assert git_ignores(ARTIFACTS / "page.png")
    assert git_lines("ls-files", "--", str(ARTIFACTS)) == []
