"""The suite passes on a contributor's machine as on CI's: a developer's shell changes nothing it
tests (tests/conftest.py), Python's bytecode caches written by a live import are not files
argmatrix wrote (most machines write them; CI's shell sets PYTHONDONTWRITEBYTECODE), and what a
test needs is there or the test fails: only the `real_rtp` tests are ever skipped."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from environment_probe import PROBE_OUTPUT
from helpers import HANG_SECONDS, REPO, TESTS

PROBE = "tests/environment_probe.py"
SAFETY_CASE = "tests/test_file_safety.py::test_an_output_that_is_an_input_is_a_located_error"


def _pytest(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """pytest in a process of its own, from the repository, in the environment `env`."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


# ------------------------------------------------------------------ a developer's shell


@pytest.mark.slow
def test_a_developers_variables_do_not_reach_the_tests(tmp_path: Path) -> None:
    # What a developer's shell may hold, each of which would change what the suite tests.
    developer = {
        "ARGMATRIX_NO_CACHE": "1",  # every cache test would test no cache
        "ARGMATRIX_LOCK_TIMEOUT": "0",  # every wait for the lock would give up at once
        "ARGMATRIX_TEST_STEP_DELAY": "5",  # every page written would take seconds
        "ARGMATRIX_TEST_KILL_AT": "finished:0",  # every write would be killed
        "ARGMATRIX_CACHE_DIR": str(tmp_path / "developer-cache"),
        "ARGMATRIX_SITE_DIR": str(tmp_path / "developer-site"),
        "PYTHONHASHSEED": "0",  # would hide an order that depends on the hash seed
        "PYTHONPATH": str(tmp_path / "developer-path"),  # would import from elsewhere
        "PYTHONWARNINGS": "ignore",
        "PYTHONINTMAXSTRDIGITS": "640",
    }
    # What `make test` passes on purpose, and the switch that rewrites the golden files.
    kept = {
        "ARGMATRIX_LIVE_PYTHON": sys.executable,
        "ARGMATRIX_PYTHONS": sys.executable,
        "ARGMATRIX_UPDATE_GOLDEN": "1",
    }
    output = tmp_path / "seen.json"
    shell = {**os.environ, **developer, **kept, PROBE_OUTPUT: str(output)}
    result = _pytest(PROBE, "--basetemp", str(tmp_path / "run"), env=shell)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    seen = json.loads(output.read_text(encoding="utf-8"))
    reached = {name: seen[name] for name in developer if seen.get(name) == developer[name]}
    assert reached == {}
    assert {name: seen.get(name) for name in kept} == kept
    assert "ARGMATRIX_UPDATE_GOLDEN is set: the golden files were rewritten" in result.stdout


# ------------------------------------------------------------------ Python's bytecode caches


@pytest.mark.hostile
def test_a_live_import_that_writes_bytecode_leaves_the_project_as_it_was(tmp_path: Path) -> None:
    """The file-safety check of a live registry (its page output is its own source: refused,
    nothing written) run as on a machine without PYTHONDONTWRITEBYTECODE, whatever this one has:
    the import writes `__pycache__` beside the registry, and the check holds all the same."""
    laptop = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run = tmp_path / "run"
    result = _pytest(f"{SAFETY_CASE}[live registry]", "--basetemp", str(run), env=laptop)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
    written = [path.name for path in run.rglob("__pycache__/tinyserver.*.pyc")]
    assert written, "the live import wrote no bytecode: the laptop's path was not taken"


# ------------------------------------------------------------------ fail, never skip

SKIPS = {"skip", "skipif", "importorskip"}


def _skips(tree: ast.AST) -> list[int]:
    """The lines of `pytest.skip(...)`, `pytest.importorskip(...)` and `pytest.mark.skip[if]`."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in SKIPS
        and isinstance(node.value, ast.Name | ast.Attribute)
        and ast.unparse(node.value) in {"pytest", "pytest.mark"}
    )


@pytest.mark.slow
def test_no_test_skips_but_those_of_rtp_llms_real_source() -> None:
    """A test whose engine or environment is missing fails, naming how to get it; the one skip
    is conftest's, for RTP-LLM's real source beside the repository (CONTRIBUTING.md)."""
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        if "fixtures" not in path.parts
        for line in _skips(ast.parse(path.read_text(encoding="utf-8")))
    ]
    conftest = [f"tests/conftest.py:{line}" for line in _skips(ast.parse(_conftest()))]
    assert len(conftest) == 1
    assert found == conftest


def _conftest() -> str:
    return (TESTS / "conftest.py").read_text(encoding="utf-8")


def test_the_rule_finds_each_kind_of_skip() -> None:
    source = (
        "import pytest\n"
        "sphinx = pytest.importorskip('sphinx')\n"
        "@pytest.mark.skipif(True, reason='x')\n"
        "def test_a():\n    pytest.skip('no')\n"
        "@pytest.mark.xfail(strict=True)\n"
        "def test_b():\n    pass\n"
    )
    assert _skips(ast.parse(source)) == [2, 3, 5]
