"""The static reader's modules import only downward, annotation imports included.

`make lint` (import-linter) enforces the layers of `pyproject.toml`, but its root setting
`exclude_type_checking_imports` leaves out what is imported under `if TYPE_CHECKING:`, and
import-linter 2.16 has no setting per contract. The static reader's layers must hold for those
too: its parts name the interpreter, the read and the module being read by the protocols of
`evaluator` and `context`, never by importing `interpreter`, `reader` or `source`, so a change
to one part never needs the whole package. This test checks the contract of `loaders/static` in
`pyproject.toml` on the import graph with annotation imports counted (grimp, import-linter's own
graph builder).
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest and mypy depend on tomli where tomllib is missing
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
STATIC = "argmatrix.loaders.static"


def static_layers() -> list[list[str]]:
    """The layers of the contract on `loaders/static`, high to low, as module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c.get("containers") == [STATIC]]
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def upward_imports(package: str, container: str, layers: list[list[str]]) -> list[str]:
    """Every import (annotation imports included) against the layers, as `importer -> imported`."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    illegal = graph.find_illegal_dependencies_for_layers(
        layers=[grimp.Layer(*layer) for layer in layers], containers={container}
    )
    return sorted(f"{d.importer} -> {d.imported}" for d in illegal)


def test_every_module_of_the_static_reader_has_a_layer() -> None:
    modules = {p.stem for p in (ROOT / "src/argmatrix/loaders/static").glob("*.py")}
    listed = {name for layer in static_layers() for name in layer}
    assert modules - {"__init__"} - listed == set()  # a new module gets its place in the contract
    assert listed - modules == set()


def test_the_static_reader_has_no_import_circle_not_even_in_annotations() -> None:
    assert upward_imports("argmatrix", STATIC, static_layers()) == []


def test_an_annotation_import_upward_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "layered"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("from layered.low import helper\n\nclass Thing: ...\n")
    (package / "low.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from layered.high import Thing\n"
        "def helper(thing: Thing) -> None: ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert upward_imports("layered", "layered", [["high"], ["low"]]) == [
        "layered.low -> layered.high"
    ]
