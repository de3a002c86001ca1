"""The side-by-side build docs/guide/peers.md is written from (`make peers`), and the reading of
it that keeps the page true (tests/test_peers_page.py checks the page's cells about argmatrix's
own output against the same build).

One command line, the shape fixtures (tests/fixtures/registries/shape_server.py, argparse, and its
Click twin shape_click.py), is built by argmatrix and by the option-list tools a server's docs
would otherwise use, each in the engine it runs in: sphinx-argparse-cli and sphinx-argparse
(argparse) and sphinx-click (Click) in Sphinx with Furo, mkdocs-click (both its styles) in MkDocs
with Material; argmatrix in both engines, for both frameworks. `make peers` builds them all with
the Python of `.cache/peers` (`make peers-env`, versions in locks/peers.txt), where argmatrix is
installed editable beside the peers, so every tool runs on the same Sphinx, MkDocs and themes;
the test builds argmatrix's projects only, with its own Python. The projects written here are
argmatrix's own (a configuration and one directive per tool); the sites are build outputs under
build/peers/.

Each page is opened in headless Chromium at 1400 px and 390 px, and what a reader sees is read
from the theme's text column: its text as shown (`innerText`), whether the page scrolls sideways,
which boxes hide part of what they hold behind a sideways scroll, which flags are broken over
two lines, which flags a visible link points at. A Sphinx build's general index is read the
same way. From that, each build gets the value of every row of the page's tables (`ROWS`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
REGISTRIES = TESTS / "fixtures" / "registries"
PEERS_ENV = REPO / ".cache" / "peers"
PAGE = REPO / "docs" / "guide" / "peers.md"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from e2e.browser import chromium, wait_for  # noqa: E402

DESKTOP = (1400, 900)
PHONE = (390, 844)
WIDTHS = (DESKTOP[0], PHONE[0])

# $LLM_PORT where the pages are built: the argparse server reads --port's default from it
# (8000 when unset), as a docs machine's environment may set it.
BUILD_PORT = "9000"


@dataclass(frozen=True)
class Build:
    """One tool's build of one fixture: its project's files, and the pages to read."""

    name: str  # its folder under the output
    column: str  # the column of the page's table that shows it
    engine: str  # "sphinx" or "mkdocs"
    framework: str  # "argparse" or "click"
    files: dict[str, str]
    main: str  # the page compared with the peers' (the command-line reference)
    more: tuple[str, ...] = ()  # other pages of the build that are read
    argmatrix: bool = False

    @property
    def pages(self) -> tuple[str, ...]:
        return (self.main, *self.more)


ARGPARSE_TARGET = "shape_server:build_parser"
CLICK_TARGET = "shape_click:cli"

SPHINX_CONF = """\
project = "llmserve"
extensions = {extensions!r}
html_theme = "furo"
{more}"""


def argmatrix_yaml(target: str, pages: list[str]) -> str:
    listed = "".join(f"  - {page}\n" for page in pages)
    return (
        f"registry: {{target: '{target}', mode: static, search_path: ['{REGISTRIES}']}}\n"
        # The Environment variable column: the variable a default is read from (argparse), the
        # one an option names with `envvar=` (Click).
        "prog: llmserve\nenvironment: {keyword: envvar}\ndocs_dir: docs\npages:\n"
        f"{listed}"
    )


def mkdocs_yml(plugins: str, extensions: str = "") -> str:
    return (
        "site_name: llmserve\nuse_directory_urls: false\ntheme: {name: material, font: false}\n"
        f"plugins: [{plugins}]\nmarkdown_extensions: [{extensions}tables, attr_list,"
        " md_in_html, admonition, {toc: {permalink: true}}]\n"
    )


def argmatrix_mkdocs(framework: str, target: str) -> Build:
    """argmatrix in MkDocs with Material: the command-line reference, and the server-arguments
    page in its two layouts, each with the site's HTML (an anchor a flag)."""
    pages = [
        "{template: cli_reference.md.j2, output: cli.md, committed: false, options: {html: true}}",
        "{template: server_arguments.md.j2, output: server.md, committed: false,"
        " options: {html: true}}",
        "{template: server_arguments.md.j2, output: compact.md, committed: false,"
        " options: {html: true, layout: compact}}",
    ]
    files = {
        "argmatrix.yaml": argmatrix_yaml(target, pages),
        "mkdocs.yml": mkdocs_yml("search, argmatrix"),
        "docs/index.md": "# llmserve\n",
    }
    return Build(
        f"argmatrix-mkdocs-{framework}",
        "argmatrix, MkDocs",
        "mkdocs",
        framework,
        files,
        "cli.html",
        ("server.html", "compact.html"),
        argmatrix=True,
    )


def argmatrix_sphinx(framework: str, target: str) -> Build:
    """argmatrix in Sphinx with Furo: the MyST command-line reference and server arguments."""
    pages = [
        "{template: cli_reference.myst.j2, output: cli.md, format: myst, committed: false}",
        "{template: server_arguments.myst.j2, output: server.md, format: myst, committed: false}",
    ]
    conf = SPHINX_CONF.format(
        extensions=["myst_parser", "argmatrix.sphinx"],
        more='argmatrix_config = "../argmatrix.yaml"\nargmatrix_program = "llmserve"\n',
    )
    files = {
        "argmatrix.yaml": argmatrix_yaml(target, pages),
        "docs/conf.py": conf,
        "docs/index.md": "# llmserve\n\n```{toctree}\ncli\nserver\n```\n",
    }
    return Build(
        f"argmatrix-sphinx-{framework}",
        "argmatrix, Sphinx",
        "sphinx",
        framework,
        files,
        "cli.html",
        ("server.html", "genindex.html"),
        argmatrix=True,
    )


def sphinx_peer(name: str, column: str, extension: str, directive: str, framework: str) -> Build:
    """A peer's Sphinx directive on a page of its own, built with Furo."""
    files = {
        "docs/conf.py": SPHINX_CONF.format(extensions=[extension], more=""),
        "docs/index.rst": "llmserve\n========\n\n.. toctree::\n\n   cli\n",
        "docs/cli.rst": f"Command line\n============\n\n{directive}",
    }
    return Build(name, column, "sphinx", framework, files, "cli.html", ("genindex.html",))


def mkdocs_click(style: str, column: str) -> Build:
    """mkdocs-click's block in one of its styles (Click's help as text, or tables)."""
    block = (
        "# Command line\n\n::: mkdocs-click\n    :module: shape_click\n    :command: cli\n"
        f"    :prog_name: llmserve\n    :depth: 1\n    :style: {style}\n"
    )
    files = {
        "mkdocs.yml": mkdocs_yml("search", "mkdocs-click, "),
        "docs/index.md": "# llmserve\n",
        "docs/cli.md": block,
    }
    return Build(f"mkdocs-click-{style}", column, "mkdocs", "click", files, "cli.html")


def builds() -> list[Build]:
    return [
        argmatrix_mkdocs("argparse", ARGPARSE_TARGET),
        argmatrix_sphinx("argparse", ARGPARSE_TARGET),
        sphinx_peer(
            "sphinx-argparse-cli",
            "sphinx-argparse-cli 1.24",
            "sphinx_argparse_cli",
            ".. sphinx_argparse_cli::\n   :module: shape_server\n   :func: build_parser\n"
            "   :prog: llmserve\n",
            "argparse",
        ),
        sphinx_peer(
            "sphinx-argparse",
            "sphinx-argparse 0.6",
            "sphinxarg.ext",
            ".. argparse::\n   :module: shape_server\n   :func: build_parser\n   :prog: llmserve\n",
            "argparse",
        ),
        argmatrix_mkdocs("click", CLICK_TARGET),
        argmatrix_sphinx("click", CLICK_TARGET),
        sphinx_peer(
            "sphinx-click",
            "sphinx-click 6.2",
            "sphinx_click",
            ".. click:: shape_click:cli\n   :prog: llmserve\n   :nested: full\n",
            "click",
        ),
        mkdocs_click("plain", "mkdocs-click 0.9, plain"),
        mkdocs_click("table", "mkdocs-click 0.9, table"),
    ]


def write_project(root: Path, build: Build) -> Path:
    project = root / build.name
    shutil.rmtree(project, ignore_errors=True)
    for name, text in build.files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return project


def run_build(project: Path, build: Build, python: Path) -> tuple[Path, list[str]]:
    """Build the project as its engine's user would, with the fixtures importable (the peers
    import them; argmatrix reads them statically) and $LLM_PORT set. Returns the site's folder
    and the warnings the build printed (a fact of the comparison, not a failure of it)."""
    site = project / "site"
    if build.engine == "sphinx":
        command = [str(python), "-m", "sphinx", "-q", "-b", "html", "docs", str(site)]
    else:
        command = [str(python), "-m", "mkdocs", "build", "-d", str(site)]
    env = {
        **os.environ,
        "PYTHONPATH": str(REGISTRIES),
        "NO_MKDOCS_2_WARNING": "1",
        "NO_COLOR": "1",
        "LLM_PORT": BUILD_PORT,
    }
    result = subprocess.run(
        command, cwd=project, capture_output=True, text=True, timeout=600, check=False, env=env
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        raise AssertionError(f"{build.name}: the build failed:\n{output}")
    return site, [line for line in output.splitlines() if "WARNING" in line]


# What a reader sees of a page, read in the browser from the theme's text column: whether the
# page scrolls sideways, which boxes hide part of what they hold behind a sideways scroll (code
# blocks apart), which flags are broken over two lines (in a flag's entry, or inside a table's
# description cell), which flags a visible link points at (a permalink to copy), and then the
# text as shown, each heading marked with "§§ ".
_READ = """
const CONTENT = '.md-content__inner, article[role=main], div.body';
const root = document.querySelector(CONTENT);
const width = document.documentElement.clientWidth;
const FLAG = /^--?[A-Za-z][A-Za-z0-9-]*$/;
const out = {width: width, scroll: document.documentElement.scrollWidth,
             height: document.documentElement.scrollHeight, hidden: [], code: [], broken: [],
             selflinks: []};
for (const el of root.querySelectorAll('*')) {
  if (getComputedStyle(el).overflowX === 'visible' || el.getClientRects().length === 0) continue;
  if (el.scrollWidth <= el.clientWidth + 1) continue;
  const said = el.tagName.toLowerCase() + ' hides ' + (el.scrollWidth - el.clientWidth)
               + ' px of ' + el.scrollWidth;
  if (el.tagName === 'PRE' || el.closest('pre')) out.code.push(said); else out.hidden.push(said);
}
const seen = new Set();
for (const el of root.querySelectorAll('code, kbd, span, strong, a')) {
  if (el.closest('pre')) continue;
  const text = el.textContent.trim();
  if (!FLAG.test(text) || el.getClientRects().length === 0) continue;
  if ([...el.children].some(child => child.textContent.trim() === text)) continue;
  const lines = new Set([...el.getClientRects()].map(rect => Math.round(rect.top)));
  const cell = el.closest('td, th');
  const where = cell && cell.cellIndex > 0 ? 'description' : 'entry';
  if (lines.size > 1 && !seen.has(text + where)) {
    seen.add(text + where); out.broken.push([text, where]);
  }
}
for (const a of root.querySelectorAll('a[href^="#"]')) {
  if (a.getClientRects().length === 0) continue;
  const target = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
  if (!target || /^(H[1-6]|SECTION)$/.test(target.tagName)) continue;
  if (target.querySelector('h1, h2, h3, h4, h5, h6, p.rubric')) continue;
  // An empty anchor (argmatrix's Markdown: <a id> before the flag) marks the cell it opens,
  // read as shown (its names on lines of their own, not run together).
  const cell = target.textContent.trim() ? null : target.closest('td, li, dt, dd');
  const text = cell ? cell.innerText : target.textContent;
  const found = (text.match(/--[A-Za-z][A-Za-z0-9-]*/) || [null])[0];
  if (found) out.selflinks.push(found);
}
for (const heading of root.querySelectorAll('h1, h2, h3, h4, h5, h6'))
  heading.insertAdjacentText('afterbegin', '\\u00a7\\u00a7 ');
out.text = root.innerText;
return out;
"""

# argmatrix's script arranges its argument tables once the page is laid out, and says so.
_ARRANGED = (
    "document.readyState === 'complete' && (!document.querySelector('table[data-am-arguments]')"
    " || document.querySelector('table[data-am-arranged]') !== null)"
)
HEADING = "\u00a7\u00a7"


def shown(text: str) -> str:
    """Text as a reader reads it: whitespace collapsed, typographic quotes as straight ones."""
    for curly, straight in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(curly, straight)
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


@dataclass
class Fit:
    """How a page sits on a screen of one width."""

    overflow: int  # px the page is wider than the screen
    height: int
    hidden: list[str]  # boxes (tables, lists) whose content scrolls sideways
    code: list[str]  # code blocks whose content scrolls sideways
    broken: list[list[str]]  # [flag, "entry" or "description"] broken over two lines


@dataclass
class PageRead:
    lines: list[str]  # as shown at 1400 px, a line each (a row, an item), headings marked
    selflinks: set[str]
    fits: dict[int, Fit] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def read_page(driver: Any, url: str, shots: Path | None) -> PageRead:
    """Read a page at each width; with `shots`, a screenshot of its top is kept there."""
    reads: dict[int, dict[str, Any]] = {}
    for size in (DESKTOP, PHONE):
        driver.set_window_size(*size)
        driver.get(url)
        wait_for(driver, _ARRANGED)
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(shots / f"{Path(url).stem}-{size[0]}.png"))
        reads[size[0]] = driver.execute_script(_READ)
    desktop = reads[DESKTOP[0]]
    lines = [shown(line) for line in desktop["text"].splitlines() if line.strip()]
    page = PageRead(lines, set(desktop["selflinks"]))
    for width, data in reads.items():
        page.fits[width] = Fit(
            max(0, data["scroll"] - data["width"]),
            data["height"],
            data["hidden"],
            data["code"],
            data["broken"],
        )
    return page


def entries(lines: list[str], flag: str) -> Iterator[tuple[str, str]]:
    """The entries a page gives `flag` (its row, its list item, its term and definition: the
    line it starts, and the lines after up to the next that starts with a flag or is a
    heading), each with the heading it stands under."""
    heading = ""
    starts = re.compile(re.escape(flag) + r"(?![\w-])")
    for number, line in enumerate(lines):
        if line.startswith(HEADING):
            heading = line
        elif starts.match(line):
            entry = [line]
            for after in lines[number + 1 : number + 8]:
                if after.startswith(("-", HEADING)):
                    break
                entry.append(after)
            yield heading, " ".join(entry)


@dataclass
class Reading:
    """What one build shows: its reference page, its general index, its other pages."""

    build: Build
    main: PageRead
    index: PageRead | None
    others: dict[str, PageRead]
    warnings: list[str]

    def entries(self, flag: str) -> list[tuple[str, str]]:
        return list(entries(self.main.lines, flag))

    def entry_text(self, flag: str) -> str:
        return " ".join(entry for _, entry in self.entries(flag))


# What the reader should find, per framework: each command's usage as the framework prints it,
# the value form beside a flag, the epilogs, the deprecated flags.
USAGES = {
    "argparse": (
        "llmserve [-h] [--version] [-v] [--log-format {text,json}] {serve,s,bench} ...",
        "[--ssl CERT KEY] [--enable-prefix-caching | --disable-prefix-caching]",
        "llmserve bench [-h] --url URL (--prompts FILE | --dataset {sharegpt,random})",
    ),
    "click": (
        "llmserve [OPTIONS] COMMAND [ARGS]...",
        "llmserve serve [OPTIONS] MODEL [ENGINE_ARGS]...",
        "llmserve bench [OPTIONS] {sharegpt|random} [REVISION!]",
    ),
}
VALUE_FORMS = {
    "argparse": (
        ("--served-model-name", "NAME [NAME ...]"),
        ("--dist-init-addr", "HOST:PORT"),
        ("--allowed-origins", "[ORIGIN ...]"),
        ("--ssl", "CERT KEY"),
        ("--revision", "[REVISION]"),
    ),
    "click": (
        ("--tokenizer", "PATH"),
        ("--ssl", "<TEXT TEXT>..."),
        ("--port", "INTEGER RANGE"),
        ("--percentiles", "FLOAT..."),
        ("--dtype", "[auto|float16|bfloat16]"),
    ),
}
EPILOGS = (
    "Run 'llmserve COMMAND --help' for the options of a command.",
    "LLM_HOST and LLM_PORT give the defaults of --host and --port.",
)
DEPRECATED = {
    "argparse": ("--max-batch", "--disable-log-stats", "--swap-space"),
    "click": ("--max-batch", "--swap-space"),
}
# Every flag of each fixture a user can type (for the general index and the permalinks).
FLAGS = {
    "argparse": [
        "--version",
        "--verbose",
        "--log-format",
        "--tokenizer",
        "--served-model-name",
        "--dtype",
        "--revision",
        "--tp-size",
        "--dp",
        "--dist-init-addr",
        "--host",
        "--port",
        "--allowed-origins",
        "--ssl",
        "--enable-prefix-caching",
        "--disable-prefix-caching",
        "--cuda-graph",
        "--max-num-seqs",
        "--max-batch",
        "--disable-log-stats",
        "--swap-space",
        "--url",
        "--prompts",
        "--dataset",
        "--requests",
        "--percentiles",
        "--output",
        "--seed",
    ],
    "click": [
        "--version",
        "--verbose",
        "--log-format",
        "--tokenizer",
        "--served-model-name",
        "--dtype",
        "--tp-size",
        "--host",
        "--port",
        "--ssl",
        "--download-dir",
        "--cuda-graph",
        "--enable-prefix-caching",
        "--max-num-seqs",
        "--max-batch",
        "--swap-space",
        "--url",
        "--requests",
        "--percentiles",
        "--seed",
    ],
}
VARIABLES = ("LLM_HOST", "LLM_PORT", "BENCH_SEED")


def share(found: int, of: int) -> str:
    return "yes" if found == of else "no" if found == 0 else f"{found} of {of}"


def per_width(values: Callable[[Fit], int], reading: Reading, unit: str = "") -> str:
    return " / ".join(f"{values(reading.main.fits[width])}" for width in WIDTHS) + unit


def usage(reading: Reading) -> str:
    text = reading.main.text
    return share(sum(shown(usage) in text for usage in USAGES[reading.build.framework]), 3)


def value_forms(reading: Reading) -> str:
    forms = VALUE_FORMS[reading.build.framework]
    found = sum(
        any(entry.startswith(f"{flag} {form}") for _, entry in reading.entries(flag))
        for flag, form in forms
    )
    return share(found, len(forms))


def exclusive_groups(reading: Reading) -> str:
    pairs = (("--enable-prefix-caching", "--disable-prefix-caching"), ("--prompts", "--dataset"))
    return share(sum(other in reading.entry_text(flag) for flag, other in pairs), len(pairs))


def epilogs(reading: Reading) -> str:
    # Found also where the engine's smart quotes made an en dash of a `--` (a row of its own).
    text = reading.main.text.replace("\u2013", "--")
    return share(sum(shown(epilog) in text for epilog in EPILOGS), len(EPILOGS))


def deprecated(reading: Reading) -> str:
    flags = DEPRECATED[reading.build.framework]
    said = sum(
        any("deprecat" in f"{heading} {entry}".lower() for heading, entry in reading.entries(flag))
        for flag in flags
    )
    return f"{said} of {len(flags)}"


def hidden_left_out(reading: Reading) -> str:
    return "yes" if "--tensor-parallel-size" not in reading.main.text else "no"


def port_default(reading: Reading) -> str:
    found = set(re.findall(rf"\b(?:8000|{BUILD_PORT})\b", reading.entry_text("--port")))
    return BUILD_PORT if BUILD_PORT in found else "8000" if found else "not shown"


def port_variable(reading: Reading) -> str:
    return "yes" if "LLM_PORT" in reading.entry_text("--port") else "no"


def dashes_kept(reading: Reading) -> str:
    return "no" if re.search("\u2013[a-z]", reading.main.text) else "yes"


def index_options(reading: Reading) -> str:
    if reading.index is None:
        return "n/a"
    return str(sum(flag in reading.index.text for flag in FLAGS[reading.build.framework]))


def index_variables(reading: Reading) -> str:
    if reading.index is None:
        return "n/a"
    return str(sum(name in reading.index.text for name in VARIABLES))


def self_links(reading: Reading) -> str:
    return str(len(reading.main.selflinks & set(FLAGS[reading.build.framework])))


def broken(where: str) -> Callable[[Reading], str]:
    def count(reading: Reading) -> str:
        return per_width(lambda fit: sum(place == where for _, place in fit.broken), reading)

    return count


# The rows of the page's two tables, by their first cell, and how a build's value is read.
ROWS: dict[str, Callable[[Reading], str]] = {
    "Usage of each command, as the framework prints it": usage,
    "Value form beside the flag": value_forms,
    "Exclusive groups said beside their flags": exclusive_groups,
    "Epilogs of the program and of `serve`": epilogs,
    "Deprecated flags said deprecated": deprecated,
    "Hidden flag (`help=SUPPRESS`) left out": hidden_left_out,
    f"`--port`'s default (`$LLM_PORT` is {BUILD_PORT} where built)": port_default,
    "`--port`'s environment variable in its entry": port_variable,
    "A `--` in help text kept as typed": dashes_kept,
    "Options in Sphinx's general index": index_options,
    "Environment variables in the general index": index_variables,
    "Flags with a visible link to themselves": self_links,
    "Page wider than the screen, 1400 / 390 px": lambda r: per_width(
        lambda fit: fit.overflow, r, " px"
    ),
    "Tables or lists scrolling sideways, 1400 / 390 px": lambda r: per_width(
        lambda fit: len(fit.hidden), r
    ),
    "Code blocks scrolling sideways, 1400 / 390 px": lambda r: per_width(
        lambda fit: len(fit.code), r
    ),
    "Flags broken over two lines in their entry, 1400 / 390 px": broken("entry"),
    "Flags broken over two lines in a description, 1400 / 390 px": broken("description"),
}
# Rows that only the argparse table has (the Click fixture has no exclusive group, no hidden
# flag, and no default read from the environment).
ARGPARSE_ONLY = {
    "Exclusive groups said beside their flags",
    "Hidden flag (`help=SUPPRESS`) left out",
    f"`--port`'s default (`$LLM_PORT` is {BUILD_PORT} where built)",
}


def rows_of(reading: Reading) -> dict[str, str]:
    return {
        label: value(reading)
        for label, value in ROWS.items()
        if reading.build.framework == "argparse" or label not in ARGPARSE_ONLY
    }


def read_builds(
    selected: list[Build], out: Path, python: Path, shots: bool = False
) -> list[Reading]:
    """Build each project under `out` with `python` and read its pages in Chromium."""
    out = out.resolve()
    built = []
    for build in selected:
        site, warnings = run_build(write_project(out, build), build, python)
        built.append((build, site, warnings))
    readings = []
    with chromium() as driver:
        for build, site, warnings in built:
            folder = out / "screenshots" / build.name if shots else None
            pages = {
                page: read_page(driver, (site / page).as_uri(), folder) for page in build.pages
            }
            main = pages.pop(build.main)
            index = pages.pop("genindex.html", None)
            readings.append(Reading(build, main, index, pages, warnings))
    return readings


def page_tables(page: str) -> dict[str, dict[str, dict[str, str]]]:
    """The page's comparison tables, keyed by their first header cell (`argparse registry`,
    `Click registry`): for each column header, each row's cell, as markdown-it reads them."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(page)
    tables: dict[str, dict[str, dict[str, str]]] = {}
    rows: list[list[str]] = []
    row: list[str] = []
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None and token.map is not None:
            row.append(token.content.strip())
        elif token.type == "tr_close":
            rows.append(row)
        elif token.type == "table_close":
            header, *body = rows
            tables[header[0]] = {
                column: {line[0]: line[number] for line in body}
                for number, column in enumerate(header)
                if number > 0
            }
            rows = []
    return tables


TABLE_OF = {"argparse": "argparse registry", "click": "Click registry"}


# Rows whose counts fall where a line happens to end: they follow the machine's fonts (a code
# block of 60 characters scrolls on a phone with one monospace font and not with another), so
# the suite leaves them to `make peers`, which measures them on the machine it runs on.
FONT_METRICS = (
    "Code blocks scrolling sideways, 1400 / 390 px",
    "Flags broken over two lines in a description, 1400 / 390 px",
)


def disagreements(readings: list[Reading], page: str, every_row: bool = True) -> list[str]:
    """Each cell of the page's tables that the build does not show, for the builds given: the
    page's table and column of a build, every row of `ROWS` for it (all but `FONT_METRICS`
    without `every_row`), and no row the code does not know."""
    tables = page_tables(page)
    found = []
    for reading in readings:
        table = TABLE_OF[reading.build.framework]
        column = tables.get(table, {}).get(reading.build.column)
        if column is None:
            found.append(f"the {table!r} table has no column {reading.build.column!r}")
            continue
        measured = rows_of(reading)
        for label in column.keys() - measured.keys():
            found.append(f"{table} table: row {label!r} is not one the build reads")
        for label, value in measured.items():
            if not every_row and label in FONT_METRICS:
                continue
            said = column.get(label)
            if said != value:
                found.append(
                    f"{table} table, {reading.build.column}, {label!r}: the page says {said!r},"
                    f" the build shows {value!r}"
                )
    return found


def report(readings: list[Reading]) -> Iterator[str]:
    """Every row of every build, and how each page fits, as Markdown rows to read."""
    for framework in ("argparse", "click"):
        mine = [r for r in readings if r.build.framework == framework]
        yield f"| {TABLE_OF[framework]} | " + " | ".join(r.build.column for r in mine) + " |"
        yield "|---" * (len(mine) + 1) + "|"
        for label in rows_of(mine[0]):
            yield f"| {label} | " + " | ".join(rows_of(r)[label] for r in mine) + " |"
        yield ""
    for reading in readings:
        yield f"{reading.build.name}: {len(reading.warnings)} build warnings"
        for name, page in [(reading.build.main, reading.main), *reading.others.items()]:
            for width, fit in page.fits.items():
                yield (
                    f"  {name} at {width} px: {fit.height} px tall, overflow {fit.overflow} px,"
                    f" hidden {fit.hidden}, code {fit.code}, broken {fit.broken}"
                )


def peers_python() -> Path:
    python = PEERS_ENV / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no environment of the peers at {PEERS_ENV} (fix: run `make peers-env`)")
    return python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "peers")
    args = parser.parse_args()
    readings = read_builds(builds(), args.out, peers_python(), shots=True)
    facts = {
        r.build.name: {
            "rows": rows_of(r),
            "warnings": r.warnings,
            "text": r.main.lines,
            "fit": {
                name: {width: vars(fit) for width, fit in page.fits.items()}
                for name, page in [(r.build.main, r.main), *r.others.items()]
            },
        }
        for r in readings
    }
    (args.out / "facts.json").write_text(json.dumps(facts, indent=1) + "\n", encoding="utf-8")
    for line in report(readings):
        print(line)
    if not PAGE.exists():
        return 0
    wrong = disagreements(readings, PAGE.read_text(encoding="utf-8"))
    for line in wrong:
        print(f"{PAGE.relative_to(REPO)}: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
