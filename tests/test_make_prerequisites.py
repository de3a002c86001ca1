"""`make test` on a fresh machine: what it needs beside Python is checked before anything is
installed (`make prerequisites`, its first step), and each missing one stops it with one line
naming the command that installs it (README.md, "Two commands on a fresh machine")."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import HANG_SECONDS, REPO

INSTALLS = re.compile(r"pip install|-m venv|npm ci")
NEEDED = re.compile(r"make: (\S+)[^:]* is not installed")


def _make(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    make = shutil.which("make")
    if make is None:
        pytest.fail("make is not installed (fix: apt-get install make)", pytrace=False)
    # As typed in a shell: not as a sub-make of the `make test` that may be running this suite.
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    env["PATH"] = path or os.environ["PATH"]
    return subprocess.run(
        [make, "-s", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


def _path_with_stubs(tmp_path: Path, stubs: set[str], without: set[str]) -> str:
    """A PATH of one folder: this machine's programs but `without`, and `stubs` that exist and
    do nothing (so the machine's own Chromium or Node.js does not decide what is missing)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        for program in sorted(Path(directory).glob("*")) if Path(directory).is_dir() else []:
            target = folder / program.name
            if program.name not in without | stubs and not target.exists():
                target.symlink_to(program)
    for name in stubs:
        (folder / name).write_text("#!/bin/sh\nexit 0\n")
        (folder / name).chmod(0o755)
    return str(folder)


@pytest.mark.slow
def test_make_test_checks_what_it_needs_before_it_installs_anything() -> None:
    lines = _make("-n", "test").stdout.splitlines()
    first_install = next((i for i, line in enumerate(lines) if INSTALLS.search(line)), len(lines))
    checked = {m.group(1) for line in lines[:first_install] for m in NEEDED.finditer(line)}
    assert {"chromium", "chromedriver", "node", "npm", "Python"} <= checked, lines[:first_install]


@pytest.mark.slow
def test_a_missing_npm_stops_make_test_with_the_command_that_installs_it(tmp_path: Path) -> None:
    path = _path_with_stubs(tmp_path, {"chromium", "chromedriver", "node"}, without={"npm"})
    result = _make("prerequisites", path=path)
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("make: npm is not installed: ")
    assert first.endswith("(fix: apt-get install nodejs npm)")


@pytest.mark.slow
def test_a_missing_python_stops_make_test_with_the_command_that_installs_it(
    tmp_path: Path,
) -> None:
    path = _path_with_stubs(tmp_path, {"chromium", "chromedriver", "node", "npm"}, without=set())
    result = _make("prerequisites", "OTHER_PYTHONS=3.10 3.99", path=path)
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("make: Python 3.99 is not installed: ")
    assert "(fix: pyenv install 3.99, " in first
