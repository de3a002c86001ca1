"""The tests' fixtures (their helpers are in helpers.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping

import pytest

from helpers import RTP_SOURCE, SECRET, fixture_modules

# What `make test` sets on purpose (the Makefile's TEST_ENVIRONMENT: the interpreters of the live
# environments and the other Pythons), the two interpreters a developer may point at, and the
# switch that rewrites the golden files instead of comparing them (said at the end of the run).
KEPT = frozenset(
    {
        "ARGMATRIX_LIVE_PYTHON",
        "ARGMATRIX_LIVE_PYTHON_0523",
        "ARGMATRIX_PYTHONS",
        "ARGMATRIX_LIVE_PYTHON_VLLM",
        "ARGMATRIX_VLLM_NOTORCH_PYTHON",
        "ARGMATRIX_UPDATE_GOLDEN",
    }
)
# Python's variables that change how a test's child process imports (PYTHONPATH), orders sets
# (PYTHONHASHSEED), warns, optimises away asserts and docstrings, encodes or converts integers.
PYTHON_VARIABLES = frozenset(
    {
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONWARNINGS",
        "PYTHONDEVMODE",
        "PYTHONOPTIMIZE",
        "PYTHONSAFEPATH",
        "PYTHONNOUSERSITE",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONINTMAXSTRDIGITS",
    }
)
GOLDEN_SWITCH = "ARGMATRIX_UPDATE_GOLDEN"


def developer_variables(environ: Mapping[str, str]) -> list[str]:
    """The variables of a developer's shell the suite would otherwise depend on without saying
    so: argmatrix's own but those kept (ARGMATRIX_NO_CACHE, ARGMATRIX_LOCK_TIMEOUT, the cache
    folder, the writer's test hooks, the site folder mkdocs.yml reads, ...) and Python's above.
    PYTHONDONTWRITEBYTECODE is not one: the Makefile runs the suite without it, CI's shell has
    it, and tests/test_suite_environment.py runs a live import without it whatever the shell."""
    return sorted(
        name
        for name in environ
        if (name.startswith("ARGMATRIX_") and name not in KEPT) or name in PYTHON_VARIABLES
    )


def pytest_configure(config: pytest.Config) -> None:
    """No test, and no process a test starts, sees the variables above, whatever the developer's
    shell holds: they are removed before any test (or pytest-xdist worker) starts. A test that
    needs one sets it itself."""
    for name in developer_variables(os.environ):
        del os.environ[name]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if os.environ.get(GOLDEN_SWITCH):
        terminalreporter.write_line(
            f"{GOLDEN_SWITCH} is set: the golden files were rewritten, not compared"
            " (read their diff)"
        )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests of RTP-LLM's real source run where it lies beside the repository (this project's
    development machines have it; third-party source is never committed); a clone without it
    skips them with one reason. Fixtures of its constructs (tests/fixtures/registries/rtp_like)
    are read in the always-on suite. The only marker that is ever skipped: CONTRIBUTING.md."""
    if item.get_closest_marker("real_rtp") and not RTP_SOURCE.is_file():
        pytest.skip(f"RTP-LLM's real source is not beside the repository ({RTP_SOURCE})")


@pytest.fixture(autouse=True)
def forget_fixture_modules() -> Iterator[None]:
    """Each test imports the fixtures afresh: a live load must not leak into the next test."""
    for name in fixture_modules():
        del sys.modules[name]
    yield
    for name in fixture_modules():
        del sys.modules[name]


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test session gets its own argmatrix cache, never the developer's."""
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def static_canary_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The canary secret a hostile registry must not reach, read without cache."""
    monkeypatch.setenv("ARGMATRIX_CANARY", SECRET)
    monkeypatch.setenv("ARGMATRIX_NO_CACHE", "1")
    yield
