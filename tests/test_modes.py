"""The ways of reading a registry, described once (loaders/modes.py), and a project's one list
of inputs (`Project.inputs()`): what each front end asks of a mode, and what each file is."""

from __future__ import annotations

import ast
import importlib.machinery
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from argmatrix.config import load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import registry_from_parser
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.modes import (
    FRAMEWORKS,
    LOADERS,
    MODES,
    Framework,
    Mode,
    guess_mode,
    mode_named_by,
)
from argmatrix.loaders.readers import READERS
from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.project import (
    Project,
    SourceOptions,
    config_with,
    load_project,
    project_from_config,
)
from argmatrix.schema import CONFIG_SCHEMA
from helpers import FIXTURE_PROJECT, REGISTRIES, chdir

SOURCE = Path(__file__).resolve().parents[1] / "src" / "argmatrix"

# ------------------------------------------------------------------ no mode compared outside


def mode_comparisons(source: str) -> list[int]:
    """The lines of `source` that compare against a mode's name, or compare a `mode` with
    anything but the table (`spec.mode == x`, `mode in (...)`, a `case "live":`): what belongs
    to a mode's record. `mode in MODES` (validation against the table) is no comparison."""

    def mode_name(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in MODES
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(mode_name(element) for element in node.elts)
        return False

    def a_mode(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "mode") or (
            isinstance(node, ast.Name) and node.id == "mode"
        )

    def against_the_table(node: ast.Compare) -> bool:
        return all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and all(
            isinstance(c, ast.Name) and c.id in {"MODES", "LOADERS"} for c in node.comparators
        )

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = (node.left, *node.comparators)
            if any(mode_name(o) for o in operands) or (
                any(a_mode(o) for o in operands) and not against_the_table(node)
            ):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case) and any(
            isinstance(pattern, ast.MatchValue) and mode_name(pattern.value)
            for pattern in ast.walk(node.pattern)
        ):
            lines.append(node.pattern.lineno)
    return lines


@pytest.mark.parametrize(
    "source",
    [
        'if spec.mode == "live": pass',
        'x = "snapshot" != kind',
        'x = kind in ("static", "other")',
        "x = config.registry.mode is SOMETHING",
        "x = mode not in allowed",
        'match kind:\n    case "live":\n        pass',
    ],
)
def test_the_guard_finds_a_mode_comparison(source: str) -> None:
    assert mode_comparisons(source) != []


def test_the_guard_lets_modes_be_named_without_comparing_them() -> None:
    source = (
        'spec = RegistrySpec("x.json", mode="snapshot")\ncommand = "snapshot"\n'
        "if mode not in MODES: pass\n"
    )
    assert mode_comparisons(source) == []


def test_nothing_outside_the_loaders_compares_modes() -> None:
    """What depends on the mode asks its record (`spec.loader.runs_code`, ...): a new mode is a
    record in loaders/modes.py, not a search for every place that names the others."""
    found = [
        f"{path.relative_to(SOURCE)}:{line}"
        for path in sorted(SOURCE.rglob("*.py"))
        if "loaders" not in path.relative_to(SOURCE).parts
        for line in mode_comparisons(path.read_text(encoding="utf-8"))
    ]
    assert found == []


# ------------------------------------------------------------------ the table


def test_every_mode_has_one_record_and_a_reader() -> None:
    assert set(get_args(Mode)) == set(LOADERS) == set(MODES) == set(READERS)
    assert MODES == ("live", "static", "snapshot")  # the order errors and the schema list them
    for name, loader in LOADERS.items():
        assert loader.mode == name
        assert callable(READERS[loader.mode])
        assert not LOADERS[loader.without_running].runs_code


def test_the_configuration_schema_lists_the_modes_of_the_table() -> None:
    assert CONFIG_SCHEMA["properties"]["registry"]["properties"]["mode"]["enum"] == list(MODES)


@pytest.mark.parametrize(
    ("target", "static", "mode"),
    [
        ("pkg.cli:build", False, "live"),
        ("pkg.cli:build", True, "static"),
        ("snapshots/v1.json", False, "snapshot"),
        ("snapshots/v1.json", True, "snapshot"),  # --static changes nothing: nothing runs
        ("pkg.cli:build.json", False, "live"),  # a module:callable is never a file
    ],
)
def test_the_command_line_guesses_the_mode_from_the_target(
    target: str, static: bool, mode: str
) -> None:
    assert guess_mode(target, static) == mode


def test_a_configured_target_without_a_mode() -> None:
    assert mode_named_by("snap.json") == "snapshot"
    assert mode_named_by("pkg.cli:build") == "live"


def test_static_on_the_command_line_reads_a_configured_live_registry_without_running_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "argmatrix.yaml").write_text("registry: pkg.cli:build serve\n")
    config = config_with(SourceOptions(static=True), tmp_path)
    assert config.registry is not None
    assert (config.registry.mode, config.registry.subcommand) == ("static", ("serve",))


def test_words_after_a_snapshot_are_part_of_its_path(tmp_path: Path) -> None:
    """Subcommand words apply to a module:callable only: a snapshot's path may hold spaces."""
    (tmp_path / "argmatrix.yaml").write_text("registry: my snap.json\n")
    config = load_config(tmp_path / "argmatrix.yaml", tmp_path)
    assert config.registry is not None
    assert (config.registry.target, config.registry.subcommand) == ("my snap.json", ())


# ------------------------------------------------------------------ what built the registry


def test_the_live_reader_asks_the_framework_for_the_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.txt"  # a live read makes its model in a process of its own

    def to_registry(parser: Any, source: str, sites: Any, read_file: Any) -> Any:
        seen.write_text(source, encoding="utf-8")
        return registry_from_parser(parser, source, sites, read_file)

    argparse = FRAMEWORKS["argparse"]
    monkeypatch.setitem(FRAMEWORKS, "traced", Framework("traced", argparse.descend, to_registry))
    spec = RegistrySpec("grouped_cli:build_parser", base_dir=REGISTRIES, framework="traced")
    assert load_registry(spec).arguments
    assert seen.read_text(encoding="utf-8") == "grouped_cli:build_parser"


def test_an_unknown_framework_is_one_error() -> None:
    spec = RegistrySpec("grouped_cli:build_parser", base_dir=REGISTRIES, framework="docopt")
    with pytest.raises(ArgmatrixError, match="unknown framework 'docopt'"):
        load_registry(spec)


# ------------------------------------------------------------------ a project's inputs


@pytest.fixture
def fixture_project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    shutil.copytree(FIXTURE_PROJECT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def described(project: Project) -> list[tuple[str, str, bool]]:
    root = project.config.root
    return [
        (Path(i.path).relative_to(root).as_posix(), i.what, i.watched)
        for i in project.inputs().files
    ]


def test_a_static_project_names_every_file_it_was_read_from(fixture_project: Path) -> None:
    with chdir(fixture_project):
        project = load_project()
    inputs = project.inputs()
    # Beside the module read, the files Python would import instead, were they to appear (they
    # must stay missing): a package of its name, a compiled extension of its name.
    instead = ["tinyserver/__init__.py"] + [
        f"tinyserver{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
    ]
    assert described(project) == [
        ("argmatrix.yaml", "the configuration argmatrix.yaml", True),
        ("capabilities/npu.yaml", "the manifest capabilities/npu.yaml", True),
        ("tinyserver.py", "the registry source tinyserver.py", True),
        *((name, f"the registry source {name}", True) for name in instead),
    ]
    assert inputs.complete
    assert inputs.known_files() == [i.path for i in inputs.files]
    assert inputs.templates == fixture_project / "templates"


def test_a_snapshot_project_names_its_snapshot(fixture_project: Path) -> None:
    with chdir(fixture_project):
        registry = load_project().registry
    (fixture_project / "snap.json").write_text(snapshot_text(registry))
    config = fixture_project / "argmatrix.yaml"
    text = config.read_text().replace("tinyserver:ServerArgs.add_cli_args", "snap.json")
    config.write_text(text.replace("mode: static", "mode: snapshot"))
    with chdir(fixture_project):
        project = load_project()
    assert described(project)[-1] == ("snap.json", "the snapshot snap.json", True)
    assert project.inputs().complete


@pytest.fixture
def live_project(tmp_path: Path) -> Iterator[Path]:
    """A project whose registry is imported live and imports a helper from the project."""
    folder = tmp_path / "live"
    folder.mkdir()
    (folder / "modes_helper.py").write_text("HELP = 'the port'\n")
    (folder / "modes_cli.py").write_text(
        "import argparse\n\nfrom modes_helper import HELP\n\n\ndef build():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--port', help=HELP)\n    return parser\n"
    )
    (folder / "argmatrix.yaml").write_text(
        "registry: {target: modes_cli:build, mode: live}\ndocs_dir: docs\npages: []\n"
    )
    yield folder
    for name in ("modes_cli", "modes_helper"):
        sys.modules.pop(name, None)


def test_a_live_project_cannot_name_its_files_so_its_imports_stand_for_them(
    live_project: Path,
) -> None:
    """The pages of a registry whose code ran are never reused; the modules it imported from
    the project still count as inputs (no page may overwrite one), and a documentation server
    watches its target's module."""
    project = project_from_config(load_config(live_project / "argmatrix.yaml", live_project))
    inputs = project.inputs()
    assert described(project) == [
        ("argmatrix.yaml", "the configuration argmatrix.yaml", True),
        ("modes_cli.py", "the registry source modes_cli.py", True),
        ("modes_helper.py", "the registry source modes_helper.py", False),
    ]
    assert not inputs.complete and inputs.known_files() is None
    assert inputs.watched_files() == [
        (live_project / "argmatrix.yaml").resolve(),
        (live_project / "modes_cli.py").resolve(),
    ]


def test_no_page_may_overwrite_a_module_a_live_registry_imported(live_project: Path) -> None:
    config = live_project / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "docs_dir: docs\npages: []",
            "docs_dir: .\npages: [{template: server_arguments.md.j2, output: modes_helper.py}]",
        )
    )
    project = project_from_config(load_config(config, live_project))
    with pytest.raises(ArgmatrixError, match=r"is also an input \(the registry source modes_h"):
        project.output_paths()
