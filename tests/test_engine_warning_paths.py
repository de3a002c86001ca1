"""Where the docs engines' warnings point (issue 30: every command and engine reports the same
warnings for the same project, with relative paths): `mkdocs build` and `sphinx-build` run from
the project's parent (`mkdocs build -f proj/mkdocs.yml`) or from a folder below it name a file
as `argmatrix check` run from the project's root names it, never from the build's folder.

The project's registry has a default static reading keeps as source text (`os.cpu_count()`): a
warning of every command and engine, at `srv/server_args.py:7`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli_in_process

pytestmark = pytest.mark.engine  # real MkDocs and Sphinx builds

SERVER = (
    "import argparse\nimport os\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--workers', type=int, default=os.cpu_count())\n"
    "    return parser\n"
)
WARNING = "srv/server_args.py:7: --workers: default kept as source text: `os.cpu_count()`"


def project(tmp_path: Path, page: str) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "srv").mkdir()
    (root / "srv" / "server_args.py").write_text(SERVER, encoding="utf-8")
    (root / "docs" / "guide").mkdir(parents=True)
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'srv.server_args:build', mode: static}\ndocs_dir: docs\n"
        f"pages:\n  - {page}\n",
        encoding="utf-8",
    )
    return root


def check_line(root: Path) -> str:
    """The registry's warning as `argmatrix check` prints it from the project's root."""
    result = run_cli_in_process("check", cwd=root)
    (line,) = [line for line in result.out.splitlines() if "registry-warning" in line]
    return line


def said(output: str, marker: str) -> list[str]:
    """The text after `marker` on each line of a build's output that has it."""
    return [line.partition(marker)[2] for line in output.splitlines() if marker in line]


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def mkdocs_project(tmp_path: Path) -> Path:
    root = project(tmp_path, "{template: server_arguments.md.j2, output: reference/args.md}")
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: proj\nplugins:\n  - argmatrix\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("where", ["parent", "subfolder"])
def test_mkdocs_names_files_from_the_project_root(tmp_path: Path, where: str) -> None:
    root = mkdocs_project(tmp_path)
    cwd = tmp_path if where == "parent" else root / "docs" / "guide"
    config = os.path.relpath(root / "mkdocs.yml", cwd)
    build = run(["mkdocs", "build", "-f", config, "-d", str(tmp_path / "site")], cwd)
    assert build.returncode == 0, build.stderr
    told = said(build.stdout + build.stderr, "WARNING -  argmatrix: ")
    # The page is committed (the default) and not written yet: said with its path from the
    # project's root, and the command to run there.
    assert told == [
        f"{WARNING} (calls `os.cpu_count`, which static reading does not run) (fix: say it in"
        " words in argmatrix.yaml: 'computed: {--workers: {default: ...}}')",
        "docs/reference/args.md is missing: the page is marked committed (the default) (fix:"
        " run 'argmatrix generate' and commit it, or set 'committed: false' on the page in"
        " argmatrix.yaml: the plugin then builds it without writing anything into docs_dir)",
    ]
    assert check_line(root).partition(": warning[")[0] == WARNING.partition(": ")[0]


def test_mkdocs_names_a_second_configuration_from_the_project_root(tmp_path: Path) -> None:
    root = mkdocs_project(tmp_path)
    (root / "argmatrix.yaml").rename(root / "argmatrix-cli.yaml")
    (root / "mkdocs.yml").write_text(
        "site_name: proj\nplugins:\n  - argmatrix:\n      config_file: argmatrix-cli.yaml\n",
        encoding="utf-8",
    )
    run_cli_in_process("generate", "--config", "argmatrix-cli.yaml", cwd=root)
    page = root / "docs" / "reference" / "args.md"
    page.write_text(page.read_text(encoding="utf-8") + "stale\n", encoding="utf-8")
    site = str(tmp_path / "site")
    build = run(["mkdocs", "build", "-f", "proj/mkdocs.yml", "-d", site], tmp_path)
    assert build.returncode == 0, build.stderr
    told = said(build.stdout + build.stderr, "WARNING -  argmatrix: ")
    assert told[0].startswith(WARNING)
    assert told[1:] == [
        "docs/reference/args.md is out of date with its registry (fix: run 'argmatrix generate"
        " --config argmatrix-cli.yaml')"
    ]


@pytest.mark.parametrize("where", ["parent", "subfolder"])
def test_sphinx_names_files_from_the_project_root(tmp_path: Path, where: str) -> None:
    root = project(tmp_path, "{template: server_arguments.myst.j2, output: args.md, format: myst}")
    docs = root / "docs"
    (docs / "conf.py").write_text(
        'project = "proj"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\nexclude_patterns = ["_build", "guide"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text("# proj\n\n```{toctree}\nargs\n```\n", encoding="utf-8")
    cwd = tmp_path if where == "parent" else docs / "guide"
    source = os.path.relpath(docs, cwd)
    out = os.path.relpath(tmp_path / "html", cwd)
    build = run(["sphinx", "--no-color", "-b", "html", source, out], cwd)
    assert build.returncode == 0, build.stderr
    (told,) = said(build.stderr, "WARNING: argmatrix: ")
    assert told.startswith(WARNING), told
    assert check_line(root).partition(": warning[")[0] == WARNING.partition(": ")[0]
