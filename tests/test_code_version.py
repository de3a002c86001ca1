"""Cached results are keyed on argmatrix's own code: an edit to any of its modules, at any depth
of the package, makes every cached registry, manifest and page be computed again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import argmatrix

PACKAGE = Path(argmatrix.__file__).resolve().parent
PRINT_VERSION = "from argmatrix._runtime.cache import code_version; print(code_version())"


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of the installed package, so its modules can be edited."""
    shutil.copytree(PACKAGE, tmp_path / "argmatrix", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _code_version(root: Path) -> str:
    environment = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", PRINT_VERSION],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


@pytest.mark.parametrize(
    "module",
    [
        "cli/main.py",
        "errors.py",
        "loaders/static/python/values.py",
        "render/formats/markdown.py",
        "model/registry.py",
    ],
)
def test_an_edit_anywhere_in_the_package_changes_the_code_version(
    package_copy: Path, module: str
) -> None:
    before = _code_version(package_copy)
    assert _code_version(package_copy) == before  # nothing edited: the same version
    edited = package_copy / "argmatrix" / module
    edited.write_text(edited.read_text() + "\n# edited\n")
    assert _code_version(package_copy) != before
