"""The static reader's modules import only downward, annotation imports included.

`make lint` (import-linter) enforces the layers of `pyproject.toml`, but its root setting
`exclude_type_checking_imports` leaves out what is imported under `if TYPE_CHECKING:`, and
import-linter 2.16 has no setting per contract. The static reader's layers must hold for those
too: its parts name the interpreter, the read and the module being read by the protocols of
`evaluator` and `context`, never by importing `interpreter`, `reader` or `source`, so a change
to one part never needs the whole package. This test checks the contracts of `loaders/static`
and of each of its packages (the evaluator `python/`, one per framework reader) in
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


def static_contracts() -> dict[str, list[list[str]]]:
    """The layers of each contract on `loaders/static` and its packages, high to low, as
    module names, by container."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return {
        container: [[name.strip() for name in layer.split("|")] for layer in c["layers"]]
        for c in contracts
        if c["type"] == "layers"
        for container in c.get("containers", [])
        if container == STATIC or container.startswith(STATIC + ".")
    }


def upward_imports(package: str, container: str, layers: list[list[str]]) -> list[str]:
    """Every import (annotation imports included) against the layers, as `importer -> imported`."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    illegal = graph.find_illegal_dependencies_for_layers(
        layers=[grimp.Layer(*layer) for layer in layers], containers={container}
    )
    return sorted(f"{d.importer} -> {d.imported}" for d in illegal)


def children(container: str) -> set[str]:
    """The modules and packages directly inside a package of the static reader."""
    folder = ROOT / "src" / Path(*container.split("."))
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    return modules | {p.parent.name for p in folder.glob("*/__init__.py")}


def test_every_module_of_the_static_reader_has_a_layer() -> None:
    contracts = static_contracts()
    packages = {STATIC} | {
        f"{STATIC}.{p.parent.name}"
        for p in (ROOT / "src" / Path(*STATIC.split("."))).glob("*/__init__.py")
    }
    assert set(contracts) == packages  # a new package of static/ gets its own contract
    for container, layers in contracts.items():
        listed = {name for layer in layers for name in layer}
        assert children(container) - listed == set(), container  # a new module gets its place
        assert listed - children(container) == set(), container


def test_the_static_reader_has_no_import_circle_not_even_in_annotations() -> None:
    for container, layers in static_contracts().items():
        assert upward_imports("argmatrix", container, layers) == [], container


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


def static_forbidden() -> list[tuple[str, str, list[str]]]:
    """(contract name, source package, forbidden modules) of each forbidden contract on the
    static reader or one of its packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [
        (c["name"], source, c["forbidden_modules"])
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "forbidden"
        for source in c["source_modules"]
        if source == STATIC or source.startswith(STATIC + ".")
    ]


def forbidden_chains(package: str, source: str, forbidden: list[str]) -> list[str]:
    """Every chain of imports (annotation imports included) from `source` to a forbidden
    module or library, as `a -> b -> c`."""
    graph = grimp.build_graph(
        package, include_external_packages=True, exclude_type_checking_imports=False, cache_dir=None
    )
    return sorted(
        " -> ".join(chain)
        for name in forbidden
        if name in graph.modules  # a library nothing of the package imports
        for chain in graph.find_shortest_chains(importer=source, imported=name, as_packages=True)
    )


def test_the_evaluator_imports_no_framework_not_even_in_annotations() -> None:
    """The evaluator (`static/python/`) knows Python only: not argparse, Click, Typer or the
    libraries of declared records, nor the readers of them, even for an annotation."""
    contracts = static_forbidden()
    assert any(source == f"{STATIC}.python" for _, source, _ in contracts)
    for name, source, forbidden in contracts:
        assert forbidden_chains("argmatrix", source, forbidden) == [], name


def test_an_annotation_import_of_a_forbidden_library_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "apart"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import argparse\n"
        "def helper(parser: argparse.ArgumentParser) -> None: ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert forbidden_chains("apart", "apart.core", ["argparse", "click"]) == [
        "apart.core -> argparse"
    ]
