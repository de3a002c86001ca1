"""The platform pages on a phone (390 px wide, an iPhone's viewport): every argument's flag is
on one line and its support beside it, inside the screen (a flag too long for that at a
readable size has the card's first line to itself, its support right below). A flag's value
form (`{auto,pt,...}`) stands beside it or on the line below, wrapping after a choice's comma or
at a space, never inside a name. On a desktop the tables stay tables. Headless Chromium on the built showcase site; a screenshot is kept in
tests/artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from e2e.browser import chromium, find_chromium, screenshot, wait_for
from e2e.site import serve, showcase_site

pytestmark = pytest.mark.browser  # Debian's Chromium and ChromeDriver

PHONE = (390, 844)

# For every row of every argument table: the flag cell's and the support cells' boxes.
ROW_BOXES = """
const rows = [];
for (const table of document.querySelectorAll('article table[data-am-support]')) {
  const header = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
  for (const tr of table.querySelectorAll('tbody tr')) {
    const box = cell => { const b = cell.getBoundingClientRect();
      return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
    const support = [...tr.children].filter(c => c.classList.contains('am-support'));
    const codes = [...tr.children[0].querySelectorAll('code')];
    const flags = codes.filter(c => !c.classList.contains('am-value'));
    const values = codes.filter(c => c.classList.contains('am-value'));
    const lines = el => new Set([...el.getClientRects()].map(r => Math.round(r.top))).size;
    rows.push({flag: box(tr.children[0]), support: support.map(box), header: header,
               text: tr.children[0].textContent.trim(), own_line: tr.hasAttribute('data-am-own-line'),
               lines: Math.max(...flags.map(lines)),
               value_lines: values.map(c => new Set([...c.querySelectorAll('.am-piece')]
                 .map(piece => Math.round(piece.getBoundingClientRect().top))).size),
               // A value form's pieces: a choice with its comma, a name; each is on one line.
               broken_pieces: values.flatMap(c => [...c.querySelectorAll('.am-piece')])
                 .filter(piece => lines(piece) > 1).map(piece => piece.textContent),
               unsplit: values.filter(c => !c.querySelector('.am-piece')).map(c => c.textContent),
               code: codes.map(box), size: Math.min(...codes.map(c => parseFloat(getComputedStyle(c).fontSize)))});
  }
}
return {rows: rows, width: document.documentElement.clientWidth};
"""


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    find_chromium()
    result = showcase_site()
    assert result.code == 0, result.output
    with serve(result.site) as url:
        yield url


@pytest.fixture(scope="module")
def phone() -> Iterator[Any]:
    find_chromium()
    with chromium() as driver:
        driver.set_window_size(*PHONE)
        yield driver


def rows_on(driver: Any, url: str) -> dict[str, Any]:
    driver.get(url)
    wait_for(driver, "document.readyState === 'complete'")
    wait_for(driver, "document.querySelector('table[data-am-arguments]') !== null")
    data: dict[str, Any] = driver.execute_script(ROW_BOXES)
    return data


@pytest.mark.parametrize("page", ["ascend", "ascend_variants"])
def test_flag_and_support_side_by_side_on_a_phone(phone: Any, site_url: str, page: str) -> None:
    data = rows_on(phone, f"{site_url}/showcase/{page}/")
    screenshot(phone, f"phone-{page}")
    rows = data["rows"]
    assert len(rows) > 100, "the tables with a support column list most arguments"
    own_line = [row["text"] for row in rows if row["own_line"]]
    assert len(own_line) < len(rows) / 10, own_line  # the long flags only
    # `--load-format {auto,pt,...}`: the choices wrap below the flag, which stays whole.
    assert any(max(row["value_lines"], default=1) > 1 for row in rows), "no long value form"
    for row in rows:
        assert row["support"], f"{row['text']}: no support cell marked in {row['header']}"
        assert row["lines"] == 1, f"{row['text']}: a flag broken over lines"
        # A value form may wrap, but only after a choice's comma or at a space.
        assert not row["unsplit"], f"{row['text']}: a value form the script did not mark"
        assert not row["broken_pieces"], f"{row['text']}: a value form broken inside a name"
        assert all(code["right"] <= data["width"] + 0.5 for code in row["code"]), row["text"]
        assert row["size"] >= 8, f"{row['text']}: a flag made too small to read"
        for support in row["support"]:
            assert support["right"] <= data["width"] + 0.5, f"{row['text']}: support off-screen"
            if row["own_line"]:  # right below the flag's line
                assert support["top"] >= row["flag"]["bottom"] - 0.5, row["text"]
                continue
            assert support["left"] >= row["flag"]["right"] - 0.5, f"{row['text']}: not beside"
            # Side by side: the support cell starts on the flag's first line.
            assert support["top"] < row["flag"]["bottom"], f"{row['text']}: support below the flag"


def test_a_desktop_keeps_the_tables(site_url: str) -> None:
    with chromium() as desktop:
        data = rows_on(desktop, f"{site_url}/showcase/ascend/")
        header_shown = desktop.execute_script(
            "return getComputedStyle(document.querySelector('article table thead')).display"
        )
        desktop_table_class = desktop.execute_script(
            "return document.querySelector('article table[data-am-arguments]').getAttribute('class')"
        )
    assert header_shown != "none"
    # Material still styles it as one of its tables (it styles only tables without a class).
    assert desktop_table_class is None
    first = data["rows"][0]
    assert first["support"][0]["left"] >= first["flag"]["right"] - 0.5


def test_the_matrix_filter_hides_cards_on_a_phone(phone: Any, site_url: str) -> None:
    """Cards are flex boxes; a row the filter hides must not come back as one."""
    from selenium.webdriver.common.by import By

    phone.get(f"{site_url}/showcase/matrix/")
    wait_for(phone, "document.querySelector('form[data-am-matrix-filter]:not([hidden])')")
    phone.find_element(By.NAME, "flag").send_keys("page-size")
    shown = phone.execute_script(
        "return [...document.querySelectorAll('article tbody tr')]"
        ".filter(tr => tr.getClientRects().length > 0).map(tr => tr.textContent)"
    )
    screenshot(phone, "phone-matrix-filter")
    assert shown and all("page-size" in text for text in shown), shown
