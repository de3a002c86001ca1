"""Build a site with MkDocs or Zensical into a temporary folder, and serve it on 127.0.0.1 from
a thread."""

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


# The repository's own site is built where `make docs` builds it: the docs environment, which has
# vLLM without torch for the vLLM showcase (`make docs-env`).
DOCS_PYTHON = ROOT / ".cache" / "docs" / "bin" / "python"


def docs_python() -> Path:
    if not DOCS_PYTHON.exists():
        raise AssertionError(
            f"no docs environment at {DOCS_PYTHON.parent.parent}: the repository's site reads"
            " vLLM there (fix: run `make docs-env`)"
        )
    return DOCS_PYTHON


def build_site(
    mkdocs_yml: Path, site_dir: Path, strict: bool = True, python: Path | None = None
) -> Build:
    """`mkdocs build` in a subprocess, as a user runs it (from the folder of mkdocs.yml), with
    this Python or `python`."""
    docs = mkdocs_yml.parent / "docs"
    before = tree(docs)
    command = [str(python or sys.executable), "-m", "mkdocs", "build", "-f", str(mkdocs_yml)]
    command += ["-d", str(site_dir)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    if python is not None:
        # Another environment's argmatrix may be another checkout's (the docs environment is
        # shared between worktrees): the build uses the sources under test.
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")])
        )
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


ZENSICAL = Path(sys.executable).with_name("zensical")


def build_zensical(mkdocs_yml: Path, site_dir: Path, strict: bool = False) -> Build:
    """`zensical build` in a subprocess, from the folder of mkdocs.yml. Zensical has no option
    for the site folder and wants it inside the project: mkdocs.yml reads it from
    ARGMATRIX_SITE_DIR (`site_dir: !ENV [ARGMATRIX_SITE_DIR, site]`). Never `--clean`: it empties
    the project's whole `.cache` folder, which in this repository holds the test environments
    (live sglang, the other Pythons, the MDX compiler) that the rest of the run needs."""
    docs = mkdocs_yml.parent / "docs"
    for entry in (mkdocs_yml.parent / ".cache").glob("[0-9]*"):
        if entry.is_file():  # Zensical's cache of rendered pages: stale after an input changed
            entry.unlink()
    before = tree(docs)
    env = {**os.environ, "NO_COLOR": "1", "ARGMATRIX_SITE_DIR": str(site_dir)}
    result = subprocess.run(
        [str(ZENSICAL), "build", "-f", str(mkdocs_yml)] + (["--strict"] if strict else []),
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
def showcase_zensical_site() -> Build:
    """The repository's own site built by Zensical (`make docs-zensical`), built once. Zensical
    ignores the MkDocs plugin: the showcase pages are generated first, as `make docs` does, the
    stylesheet and script are copied from the package, and the directives of the hand-written
    pages are expanded by the Python-Markdown extension."""
    for python, config in (
        (sys.executable, "argmatrix.yaml"),
        (sys.executable, "showcase/sglang-0.5.23/argmatrix.yaml"),
        (docs_python(), "showcase/vllm-0.33/argmatrix.yaml"),  # vLLM is installed there
        (docs_python(), "showcase/vllm-0.33/cli.yaml"),
    ):
        subprocess.run(
            [str(python), "-m", "argmatrix", "generate", "--config", config],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=300,
        )
    # The stylesheet and script, which the MkDocs plugin would have added (git-ignored copies).
    subprocess.run(
        [sys.executable, "-m", "argmatrix.integrations.assets", "docs/assets/argmatrix"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    )
    (ROOT / "build").mkdir(exist_ok=True)  # git-ignored; Zensical's site must be in the project
    site = Path(tempfile.mkdtemp(prefix="zensical-site-", dir=ROOT / "build"))
    atexit.register(shutil.rmtree, site, True)
    return build_zensical(ROOT / "mkdocs.yml", site)


@functools.cache
def showcase_site() -> Build:
    """The repository's own site (the tool's docs, the sglang and vLLM showcases), built once,
    in the docs environment as `make docs` builds it."""
    site = Path(tempfile.mkdtemp(prefix="argmatrix-site-"))
    atexit.register(shutil.rmtree, site, True)
    return build_site(ROOT / "mkdocs.yml", site, python=docs_python())


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
