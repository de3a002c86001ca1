"""Shared paths and helpers: load a fixture registry in any mode, run the CLI."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from argmatrix.model import Registry, registry_to_dict
from argmatrix.registry import Mode, RegistrySpec, load_registry

TESTS = Path(__file__).resolve().parent
REGISTRIES = TESTS / "fixtures" / "registries"
BROKEN = TESTS / "fixtures" / "broken"

DEMO_SERVER = "demo_server.server_args:ServerArgs.add_cli_args"
HEAVY_MODULE = "nonexistent_gpu_lib"

# Every fixture that both loaders can read completely, with the mock its live import needs.
PARITY_TARGETS: dict[str, tuple[str, ...]] = {
    DEMO_SERVER: (HEAVY_MODULE,),
    "grouped_cli:build_parser": (),
    "subcommands_cli:build_parser": (),
    "env_cli:make_parser": (),
    "control_flow_cli:build_parser": (),
    "classmethod_cli:Args.add_cli_args": (),
    "custom_action_cli:b": (),
}


def load(
    target: str, mode: Mode = "live", mock: Sequence[str] = (), base_dir: Path = REGISTRIES
) -> Registry:
    return load_registry(RegistrySpec(target=target, mode=mode, mock=tuple(mock), base_dir=base_dir))


def load_dict(
    target: str, mode: Mode = "live", mock: Sequence[str] = (), base_dir: Path = REGISTRIES
) -> dict[str, Any]:
    return registry_to_dict(load(target, mode, mock, base_dir))


def fixture_modules() -> list[str]:
    """Modules imported from the fixture folders (or stand-ins of the heavy module)."""
    names = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(str(TESTS / "fixtures")) or name.split(".")[0] == HEAVY_MODULE:
            names.append(name)
    return names


@pytest.fixture(autouse=True)
def forget_fixture_modules() -> Iterator[None]:
    """Each test imports the fixtures afresh: a live load must not leak into the next test."""
    for name in fixture_modules():
        del sys.modules[name]
    yield
    for name in fixture_modules():
        del sys.modules[name]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argmatrix", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the first line of `path` containing `text`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test session gets its own argmatrix cache, never the developer's."""
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
