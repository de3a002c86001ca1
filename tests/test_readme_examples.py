"""Issue 23: every `argmatrix` command of the README's console examples runs, as written, in a
throwaway project laid out as the README assumes (`mypkg.server_args:add_cli_args`, an
argmatrix.yaml, hand-written pages under docs/, two snapshots, a folder of releases). The
commands are parsed out of README.md, so an example that stops working fails here."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from helpers import FIXTURE_PAGES, FIXTURE_PROJECT, REPO, run_cli_in_process

# Commands whose exit 1 is their answer, not a failure: audit reports a page's findings.
ANSWERS_WITH_ONE = {"audit"}


def readme_commands() -> list[list[str]]:
    """The `argmatrix ...` lines of the README's console blocks, comments cut off."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "argmatrix":
                commands.append(words[1:])
    return commands


# The README's Click and Typer targets (`mypkg.cli:serve`, `mypkg.cli:app`) and its script
# (`mypkg.worker:__main__`, read live: run as __main__ and stopped at the parse).
CLI = """\
import click
import typer

app = typer.Typer()


@click.command()
@click.option("--port", type=int, default=8000, envvar="SERVE_PORT", help="Port to listen on.")
def serve(port):
    raise SystemExit("a command is never run")


@app.command()
def launch(model: str = typer.Option("m", help="The model to serve.")):
    raise SystemExit("a command is never run")
"""
WORKER = """\
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2, help="How many workers.")
    parser.parse_args()
    raise SystemExit("the script never runs past its parse")
"""


def _server_args(tinyserver: str) -> str:
    return tinyserver + ("\n\ndef add_cli_args(parser):\n    ServerArgs.add_cli_args(parser)\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(
        FIXTURE_PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", "reference")
    )
    source = (root / "tinyserver.py").read_text(encoding="utf-8")
    (root / "tinyserver.py").unlink()
    for package in (root / "mypkg", root / "dist" / "mypkg-1.0" / "mypkg"):
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("", encoding="utf-8")
        (package / "server_args.py").write_text(_server_args(source), encoding="utf-8")
    (root / "mypkg" / "cli.py").write_text(CLI, encoding="utf-8")
    (root / "mypkg" / "worker.py").write_text(WORKER, encoding="utf-8")
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "tinyserver:ServerArgs.add_cli_args", "mypkg.server_args:add_cli_args"
        )
        # The old hand-written pages (what audit and import are for) name flags that are gone.
        + "checks:\n  severity: {dead-flag: warning}\n",
        encoding="utf-8",
    )
    shutil.copy(FIXTURE_PAGES / "tiny_drifted.md", root / "docs" / "old_page.md")
    shutil.copy(FIXTURE_PAGES / "npu_marks.md", root / "docs" / "old_npu.md")
    for name in ("old.json", "new.json"):
        made = run_cli_in_process("snapshot", "-o", name, cwd=root)
        assert made.code == 0, made.err
    return root


def test_the_readme_has_examples_of_every_command() -> None:
    named = {words[0] for words in readme_commands()}
    assert {"export", "snapshot", "generate", "check", "audit", "import", "diff", "history",
            "schema"} <= named  # fmt: skip


def test_every_readme_example_runs_as_written(project: Path) -> None:
    for words in readme_commands():
        result = run_cli_in_process(*words, cwd=project)
        allowed = (0, 1) if words[0] in ANSWERS_WITH_ONE else (0,)
        assert result.code in allowed, (words, result.code, result.err[-2000:])
        assert "Traceback" not in result.err, words
    assert (project / "history.json").is_file() and (project / "compat" / "baseline.json").is_file()
