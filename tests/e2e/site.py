"""Build a MkDocs site into a temporary folder and serve it on 127.0.0.1 from a thread."""

from __future__ import annotations

import atexit
import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

E2E = Path(__file__).resolve().parent
ROOT = E2E.parents[1]
HOSTILE_PROJECT = E2E / "project"
ARTIFACTS = ROOT / "tests" / "artifacts"


@dataclass(frozen=True)
class Build:
    code: int
    output: str  # stdout and stderr of `mkdocs build`
    site: Path
    docs_changed: tuple[str, ...]  # files of the docs folder the build added, changed or removed

    @property
    def warnings(self) -> list[str]:
        return [line for line in self.output.splitlines() if line.startswith("WARNING")]


def build_site(mkdocs_yml: Path, site_dir: Path, strict: bool = True) -> Build:
    """`mkdocs build` in a subprocess, as a user runs it (from the folder of mkdocs.yml)."""
    docs = mkdocs_yml.parent / "docs"
    before = tree(docs)
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(mkdocs_yml), "-d", str(site_dir)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    result = subprocess.run(
        command + (["--strict"] if strict else []),
        cwd=mkdocs_yml.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    after = tree(docs)
    changed = tuple(
        sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    )
    return Build(result.returncode, result.stdout + result.stderr, site_dir, changed)


@functools.cache
def showcase_site() -> Build:
    """The repository's own site (the tool's docs and the sglang showcase), built once."""
    site = Path(tempfile.mkdtemp(prefix="argmatrix-site-"))
    atexit.register(shutil.rmtree, site, True)
    return build_site(ROOT / "mkdocs.yml", site)


def copy_hostile_project(target: Path) -> Path:
    """A fresh copy of the fixture project whose help texts try to inject markup."""
    project = target / "hostile"
    shutil.copytree(HOSTILE_PROJECT, project, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` with its content: to prove a build wrote nothing there."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve `site` on 127.0.0.1 (a free port) while the block runs; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
