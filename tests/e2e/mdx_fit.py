"""Whether the argument tables of an MDX page fit, measured in the browser on the page as
tests/e2e/mdx_site.py renders it (the frame standing for Mintlify's layout): the page does not
scroll sideways, every header cell and every cell is inside the content column and inside the
box that scrolls it (a cell scrolled out of sight is outside), every flag is on one line and
readable, and the value form after a flag breaks only after a choice's comma or at a space.

The measure reads only what the page shows and how argmatrix's cells are built, never a class
of argmatrix's stylesheet: an argument table is a table whose first cells hold an argument's
anchor (<a id>); in such a cell the flags are the <code> elements after the anchor or a line
break, the value form is the <code> after a space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .browser import screenshot, wait_for

# The smallest size a flag may be shrunk to so that it fits on one line (CSS px).
SMALLEST_FLAG = 8.0

_MEASURE = """
const CONTENT = '#content';
const width = document.documentElement.clientWidth;
const column = document.querySelector(CONTENT).getBoundingClientRect();
const area = el => {
  let left = column.left, right = column.right;
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    if (getComputedStyle(p).overflowX === 'visible') continue;
    const box = p.getBoundingClientRect();
    left = Math.max(left, box.left); right = Math.min(right, box.right);
  }
  return [Math.max(left, 0), Math.min(right, width)];
};
const shown = el => el.getClientRects().length > 0;
const lines = el => new Set([...el.getClientRects()].map(r => Math.round(r.top))).size;
const isValue = code => {
  const before = code.previousSibling;
  return before !== null && before.nodeType === Node.TEXT_NODE && before.textContent === ' ';
};
// Where a value form's text goes to a new line: the characters before each break.
const breaks = code => {
  const found = [];
  let last = null, previous = '';
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      if (!rects.length) { previous = node.data[i]; continue; }
      const top = Math.round(rects[0].top);
      if (last !== null && top > last + 2) found.push(previous + '|' + node.data[i]);
      last = top; previous = node.data[i];
    }
  }
  return found;
};
const out = {width: width, scroll: document.documentElement.scrollWidth, tables: 0, rows: 0,
             outside: [], broken: [], small: [], flags: 0, values: 0, headings: []};
for (const table of document.querySelectorAll(CONTENT + ' table')) {
  if (!shown(table) || !table.querySelector('tbody tr > td:first-child > a[id]')) continue;
  out.tables += 1;
  const [left, right] = area(table);
  const name = table.querySelector('tbody td').textContent.trim().slice(0, 50);
  out.headings.push([...table.querySelectorAll('thead th')].map(th => th.textContent.trim()));
  for (const cell of [...table.querySelectorAll('thead th, tbody td')].filter(shown)) {
    const box = cell.getBoundingClientRect();
    if (box.right > right + 0.5 || box.left < left - 0.5)
      out.outside.push(`${name}: ${cell.tagName} ${cell.textContent.trim().slice(0, 40)}`
                       + ` at ${Math.round(box.left)}-${Math.round(box.right)},`
                       + ` column ${Math.round(left)}-${Math.round(right)}`);
  }
  for (const cell of table.querySelectorAll('tbody tr > td:first-child')) {
    if (!cell.querySelector(':scope > a[id]')) continue;
    out.rows += 1;
    for (const code of cell.querySelectorAll(':scope > code')) {
      if (!shown(code)) continue;
      if (isValue(code)) {
        out.values += 1;
        const wrong = breaks(code).filter(b => !(b.startsWith(',|') || b.startsWith(' |')
                                                 || b.endsWith('| ')));
        if (wrong.length) out.broken.push(`${code.textContent}: broken at ${wrong}`);
        continue;
      }
      out.flags += 1;
      if (lines(code) > 1) out.broken.push(code.textContent);
      const size = parseFloat(getComputedStyle(code).fontSize);
      if (size < SMALLEST) out.small.push(`${code.textContent} at ${size}px`);
      const box = code.getBoundingClientRect();
      if (box.right > right + 0.5 || box.left < left - 0.5)
        out.outside.push(`${name}: flag ${code.textContent} at ${Math.round(box.left)}-`
                         + `${Math.round(box.right)}, column ${Math.round(left)}-${Math.round(right)}`);
    }
  }
}
return out;
"""


@dataclass(frozen=True)
class MdxFit:
    """What a page's argument tables look like at one width."""

    url: str
    width: int
    tables: int
    rows: int
    flags: int
    values: int  # value forms after a flag (`N`, `{auto,pt}`), each measured
    headings: tuple[tuple[str, ...], ...]  # each table's header row

    def __str__(self) -> str:
        return f"{self.url} at {self.width} px: {self.tables} tables, {self.rows} rows"


def measure(driver: Any, url: str, size: tuple[int, int]) -> dict[str, Any]:
    """Open `url` at `size` and read what its argument tables look like."""
    driver.set_window_size(*size)
    driver.get(url)
    wait_for(driver, "document.readyState === 'complete'")
    script = f"const SMALLEST = {SMALLEST_FLAG};\n{_MEASURE}"
    data: dict[str, Any] = driver.execute_script(script)
    return data


def problems(data: dict[str, Any]) -> list[str]:
    """Everything that does not fit, each said once (empty when the page fits)."""
    found = []
    if data["scroll"] > data["width"]:
        found.append(f"the page scrolls sideways ({data['scroll']} px in {data['width']})")
    found += [f"outside the content column: {cell}" for cell in data["outside"]]
    found += [f"broken over lines: {flag}" for flag in data["broken"]]
    found += [f"smaller than {SMALLEST_FLAG}px: {flag}" for flag in data["small"]]
    return found


def check_mdx_fits(driver: Any, url: str, size: tuple[int, int], name: str) -> MdxFit:
    """Open `url` at `size` (a screenshot kept as `name`) and fail naming what does not fit."""
    data = measure(driver, url, size)
    screenshot(driver, f"fit-mdx-{name}-{size[0]}")
    where = f"{url} at {size[0]} px"
    assert data["tables"], f"{where}: no argument table"
    found = problems(data)
    assert not found, f"{where}: {len(found)} problems, first: {found[:5]}"
    return MdxFit(
        url,
        size[0],
        data["tables"],
        data["rows"],
        data["flags"],
        data["values"],
        tuple(tuple(row) for row in data["headings"]),
    )
