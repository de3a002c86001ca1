"""MDX pages as a Mintlify site shows them, for the browser: each page rendered to HTML by the
real MDX compiler and React (tests/e2e/mdx_render.mjs, run by node from .cache/mdx-render), in a
page frame standing for Mintlify's layout (tests/e2e/mintlify-frame.css; what it stands for is
said in tests/test_browser_mdx.py), with the stylesheets a Mintlify docs repository would hold.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable
from html import escape
from pathlib import Path

import pytest

from .site import ROOT

E2E = Path(__file__).resolve().parent
RENDER_DIR = ROOT / ".cache" / "mdx-render"
RENDER_SCRIPT = E2E / "mdx_render.mjs"
FRAME_CSS = E2E / "mintlify-frame.css"
INSTALL = "run `make .cache/mdx-render/.installed` (or make test), which installs it with npm"

# What Mintlify provides that a page may use and the frame has not: the snippets a page imports
# from the docs repository (`import { Callout } from "/snippets/callout.jsx"`) and Mintlify's
# components (<Note>). Each stands in as a <div> holding its children.
_SNIPPET_IMPORT = re.compile(r'^import \{[^}]*\} from "/snippets/[^"]*";?\n', re.MULTILINE)
_COMPONENT = re.compile(r"<([A-Z][A-Za-z0-9]*)")
# Mintlify wraps every table of a page in a box that scrolls sideways.
_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)

_FRAME = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{links}
</head>
<body>
<nav id="sidebar"></nav>
<main id="content-container">
<div id="content-area">
<h1>{title}</h1>
<div id="content" class="mdx-content">
{body}
</div>
</div>
</main>
<aside id="table-of-contents"></aside>
</body>
</html>
"""


class MdxRenderer:
    """A node process rendering MDX pages to HTML; `render` sends it one page."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail(f"node is not installed, so MDX pages cannot be rendered ({INSTALL})")
        if not (RENDER_DIR / "node_modules" / "react-dom" / "package.json").is_file():
            pytest.fail(f"React and the MDX compiler are not in {RENDER_DIR}: {INSTALL}")
        self.process = subprocess.Popen(
            [node, "--input-type=module", "-e", RENDER_SCRIPT.read_text(encoding="utf-8")],
            cwd=RENDER_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def render(self, source: str, name: str) -> str:
        """The HTML of a page's content; a page that does not compile or run fails the test."""
        assert self.process.stdin is not None and self.process.stdout is not None
        source = _SNIPPET_IMPORT.sub("", source)
        components = sorted(set(_COMPONENT.findall(source)))
        self.process.stdin.write(json.dumps({"source": source, "components": components}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            pytest.fail(f"the MDX renderer stopped (exit code {self.process.wait()})")
        answer = json.loads(line)
        if not answer["ok"]:
            pytest.fail(f"{name} does not render: {answer['error']}")
        return str(answer["html"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def _title(source: str) -> str:
    found = re.search(r'^title: "?(.*?)"?$', source, re.MULTILINE)
    return found.group(1) if found else "Page"


def write_site(
    renderer: MdxRenderer, pages: dict[str, str], out: Path, stylesheets: Iterable[Path]
) -> Path:
    """Each page (its name without .mdx: its source) as `out/<name>.html` in the frame, linking
    the frame's stylesheet and then `stylesheets` (the docs repository's own .css files)."""
    out.mkdir(parents=True, exist_ok=True)
    links = []
    for sheet in (FRAME_CSS, *stylesheets):
        shutil.copy(sheet, out / sheet.name)
        links.append(f'<link rel="stylesheet" href="/{sheet.name}">')
    for name, source in pages.items():
        body = _TABLE.sub(
            lambda table: f'<div class="table-scroll">{table.group(0)}</div>',
            renderer.render(source, name),
        )
        page = _FRAME.format(title=escape(_title(source)), links="\n".join(links), body=body)
        path = out / f"{name}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    return out
