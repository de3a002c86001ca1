"""What a static read imports: it runs on every cold `export`, `generate` and `check` of a
static registry, so an argparse read loads neither the readers of Click and Typer nor what only
live reading needs. Each read is a fresh interpreter, as a user's run is.
"""

from __future__ import annotations

from pathlib import Path

from helpers import REGISTRIES, REPO, loaded, run_snippet

_READ = """
import json, sys
from pathlib import Path
from argmatrix.loaders.load import RegistrySpec, load_registry
before = set(sys.modules)
registry = load_registry(RegistrySpec(sys.argv[1], "static", base_dir=Path(sys.argv[2])))
print(json.dumps([len(registry.arguments), sorted(set(sys.modules) - before)]))
"""

# Only a Click or Typer target needs these; only live reading needs the others.
CLICK_READERS = (
    "argmatrix.loaders.static.click_commands.clicks",
    "argmatrix.loaders.static.typer_apps.typers",
)
LIVE_ONLY = ("threading", "argmatrix.loaders.live")


def _static_read(target: str, cache: Path) -> tuple[int, set[str]]:
    arguments, imported = run_snippet(_READ, target, str(REGISTRIES), cwd=REPO, cache=cache)
    return arguments, set(imported)


def test_an_argparse_read_loads_no_click_reader_and_nothing_of_live_reading(
    tmp_path: Path,
) -> None:
    arguments, imported = _static_read("grouped_cli:build_parser", tmp_path / "cache")
    assert arguments
    assert "argmatrix.loaders.static.reader" in imported  # the read did run in the process
    assert loaded(imported, CLICK_READERS + LIVE_ONLY) == []


def test_a_click_read_loads_the_click_reader(tmp_path: Path) -> None:
    arguments, imported = _static_read("click_server:serve", tmp_path / "cache")
    assert arguments
    assert "argmatrix.loaders.static.click_commands.clicks" in imported
