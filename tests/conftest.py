"""The tests' fixtures (their helpers are in helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from helpers import RTP_SOURCE, SECRET, fixture_modules


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
