"""Whether a built page's argument tables fit, measured in the browser: the page does not scroll
sideways, every header cell and every cell is inside the theme's text column, and every flag is
on one line (a value form after it wraps only after a choice's comma or at a space), and so is
every flag named in another cell (`--enable-foo` in a description, "one of `--a`, `--b`"). Shared by
the browser tests of MkDocs (Material), Zensical and Sphinx (alabaster, Furo).

The text column is Material's article, Furo's article or alabaster's body. A theme's own
wrapper around a table counts as part of it where it reaches a little further (Material's
scrolling wrapper takes 0.8rem of the margins, Furo's its padding): a cell there is shown, not
cut off. A cell inside a box that scrolls or clips (overflow other than visible) must also be
inside that box, so a column scrolled out of sight is a cell outside the column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .browser import screenshot, wait_for

DESKTOP = (1400, 900)
PHONE = (390, 844)

# The text column of each theme, and the wrappers themes put around a table.
_MEASURE = """
const CONTENT = '.md-content__inner, article[role=main], div.body, div[role=main]';
const WRAPPERS = '.md-typeset__scrollwrap, .table-wrapper';
const width = document.documentElement.clientWidth;
const area = el => {
  const column = el.closest(CONTENT).getBoundingClientRect();
  let left = column.left, right = column.right;
  const wrapper = el.closest(WRAPPERS);
  if (wrapper) {
    const box = wrapper.getBoundingClientRect();
    left = Math.min(left, box.left); right = Math.max(right, box.right);
  }
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    if (getComputedStyle(p).overflowX === 'visible') continue;
    const box = p.getBoundingClientRect();
    left = Math.max(left, box.left); right = Math.min(right, box.right);
  }
  return [Math.max(left, 0), Math.min(right, width)];
};
const shown = el => el.getClientRects().length > 0;
const FLAG = /^--?[A-Za-z][A-Za-z0-9_-]*$/;
const out = {width: width, scroll: document.documentElement.scrollWidth, tables: [], outside: [],
             broken: [], unlabelled: [], flags: 0, named: 0, values: 0, headings: [], header_rows: []};
for (const table of document.querySelectorAll('table')) {
  if (!shown(table) || !table.closest(CONTENT)) continue;
  const first = table.querySelector('thead th');
  if (!first || !table.hasAttribute('data-am-arguments')) continue;
  const cards = table.hasAttribute('data-am-cards');
  const [left, right] = area(table);
  const name = (table.querySelector('tbody td') || first).textContent.trim().slice(0, 50);
  const longest = Math.max(0, ...[...table.querySelectorAll(
      'tbody tr > td:first-child code:not(.am-value)')]
    .map(code => code.textContent.length));
  out.tables.push({name: name, cards: cards, longest: longest});
  const cells = [...table.querySelectorAll('thead th, tbody td')].filter(shown);
  for (const cell of cells) {
    const box = cell.getBoundingClientRect();
    if (box.right > right + 0.5 || box.left < left - 0.5)
      out.outside.push(`${name}: ${cell.tagName} ${cell.textContent.trim().slice(0, 40)}`
                       + ` at ${Math.round(box.left)}-${Math.round(box.right)},`
                       + ` column ${Math.round(left)}-${Math.round(right)}`);
  }
  if (!cards) {
    const row = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
    out.headings.push(...row);
    out.header_rows.push(row);
  } else {
    // No heading row: each cell but the flag's says its column's name.
    for (const td of table.querySelectorAll('tbody td:not(:first-child)'))
      if (shown(td) && !td.getAttribute('data-am-label')) out.unlabelled.push(name);
    for (const td of table.querySelectorAll('tbody tr:first-child td'))
      out.headings.push(td.getAttribute('data-am-label') || '');
  }
  // The flags; the value form after one (marked by the script) may wrap, between its pieces.
  // None of those starts like a flag: no flag is taken for one.
  for (const code of table.querySelectorAll('tbody tr > td:first-child code.am-value')) {
    if (code.textContent.startsWith('-')) out.broken.push('a flag taken for a value: ' + code.textContent);
    // It wraps only after a choice's comma or at a space: each of its pieces on one line.
    out.values += 1;
    const pieces = [...code.querySelectorAll('.am-piece')];
    if (!pieces.length) out.broken.push('a value form not split into pieces: ' + code.textContent);
    for (const piece of pieces.filter(shown)) {
      if (new Set([...piece.getClientRects()].map(r => Math.round(r.top))).size > 1)
        out.broken.push(`${code.textContent}: broken inside ${piece.textContent}`);
    }
  }
  // A flag named anywhere else in the table (a description's `--enable-foo`, "one of `--a`,
  // `--b`", a replacement) is on one line too, and inside the column.
  for (const code of table.querySelectorAll('tbody tr > td:not(:first-child) code')) {
    if (!shown(code) || !FLAG.test(code.textContent.trim())) continue;
    out.named += 1;
    const lines = new Set([...code.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) out.broken.push('named in a cell: ' + code.textContent);
    const box = code.getBoundingClientRect();
    if (box.right > right + 0.5 || box.left < left - 0.5)
      out.outside.push(`${name}: named flag ${code.textContent} at ${Math.round(box.left)}-`
                       + `${Math.round(box.right)}, column ${Math.round(left)}-${Math.round(right)}`);
  }
  for (const code of table.querySelectorAll('tbody tr > td:first-child code:not(.am-value)')) {
    if (!shown(code)) continue;
    out.flags += 1;
    const lines = new Set([...code.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) out.broken.push(code.textContent);
    const box = code.getBoundingClientRect();
    if (box.right > right + 0.5 || box.left < left - 0.5)
      out.outside.push(`${name}: flag ${code.textContent} at ${Math.round(box.left)}-`
                       + `${Math.round(box.right)}, column ${Math.round(left)}-${Math.round(right)}`);
  }
}
return out;
"""


@dataclass(frozen=True)
class Fit:
    """What a page's argument tables look like at one width."""

    url: str
    width: int
    tables: int
    cards: int  # tables shown as cards (every table on a phone)
    flags: int
    headings: tuple[str, ...]  # of the tables shown as tables, and the cards' labels
    # The longest flag (in characters) of each table shown as cards.
    card_flags: tuple[int, ...] = ()
    values: int = 0  # value forms after a flag (`N`, `{auto,pt}`), each measured
    header_rows: tuple[tuple[str, ...], ...] = ()  # each table's headings, shown as a table
    named: int = 0  # flags named in the other cells (descriptions, notes), each measured

    def __str__(self) -> str:
        return f"{self.url} at {self.width} px: {self.tables} tables ({self.cards} as cards)"


def open_page(driver: Any, url: str, size: tuple[int, int]) -> None:
    driver.set_window_size(*size)
    driver.get(url)
    wait_for(driver, "document.readyState === 'complete'")
    wait_for(driver, "document.querySelector('table[data-am-arranged]') !== null")


def check_fits(driver: Any, url: str, size: tuple[int, int], name: str) -> Fit:
    """Open `url` at `size` (a screenshot kept as `name`) and fail naming what does not fit."""
    open_page(driver, url, size)
    screenshot(driver, f"fit-{name}-{size[0]}")
    data: dict[str, Any] = driver.execute_script(_MEASURE)
    where = f"{url} at {size[0]} px"
    assert data["tables"], f"{where}: no argument table"
    assert data["scroll"] <= data["width"], f"{where}: the page scrolls sideways"
    assert not data["outside"], f"{where}: outside the text column: {data['outside'][:5]}"
    assert not data["broken"], f"{where}: flags broken over lines: {data['broken'][:5]}"
    assert not data["unlabelled"], f"{where}: a card's cell without its column's name"
    cards = tuple(table["longest"] for table in data["tables"] if table["cards"])
    return Fit(
        url,
        size[0],
        len(data["tables"]),
        len(cards),
        data["flags"],
        tuple(data["headings"]),
        cards,
        data["values"],
        tuple(tuple(row) for row in data["header_rows"]),
        data["named"],
    )
