"""Which configuration a command reads, and what of it applies.

The configuration is `argmatrix.yaml` in the current folder or the nearest one above it, up to
the repository's root (as git and ruff find theirs); `--no-config` reads none; a `--registry` of
another target than the configured one takes none of the settings that name the configured
registry's flags. A snapshot is the same bytes from every folder and on every machine: its paths
are relative to the project.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import copy_project, line_of, one_error_line, run_cli_in_process

OTHER = (
    "import argparse\n\n\n"
    "def build():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--verbosity', type=int, default=1)\n"
    "    parser.add_argument('--threads', default=__import__('os').cpu_count())\n"
    "    return parser\n"
)


def project(tmp_path: Path) -> Path:
    root = copy_project(tmp_path)
    (root / ".git").mkdir()
    (root / "other_cli.py").write_text(OTHER, encoding="utf-8")
    with (root / "argmatrix.yaml").open("a", encoding="utf-8") as config:
        config.write(
            "computed_defaults: {--port: chosen at start-up}\n"
            "stability: {arguments: {--port: beta}}\n"
            "environment: {arguments: {--port: TINY_PORT}}\n"
        )
    assert run_cli_in_process("generate", cwd=root).code == 0
    return root


def test_a_check_from_a_subfolder_finds_the_configuration_above(tmp_path: Path) -> None:
    root = project(tmp_path)
    inside = root / "docs" / "reference"
    result = run_cli_in_process("check", cwd=inside)
    assert result.code == 0, result.out + result.err
    (root / "docs" / "reference" / "npu.md").write_text("stale\n", encoding="utf-8")
    stale = run_cli_in_process("check", cwd=inside)
    assert stale.code == 1 and "npu.md" in stale.out


def test_the_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    """A configuration above the repository is another project's."""
    outer = project(tmp_path)
    inner = outer / "vendor" / "lib"
    (inner / ".git").mkdir(parents=True)
    (inner / "other_cli.py").write_text(OTHER, encoding="utf-8")
    result = run_cli_in_process("generate", cwd=inner)
    assert result.code == 2
    assert "no registry given" in one_error_line(result, "no registry given")
    exported = run_cli_in_process("export", "--registry", "other_cli:build", "--static", cwd=inner)
    assert exported.code == 0 and json.loads(exported.out)["platforms"] == {}


def test_no_config_reads_none(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run_cli_in_process("export", "--no-config", cwd=root)
    assert result.code == 2
    one_error_line(result, "no registry given", "--registry")
    exported = run_cli_in_process(
        "export", "--no-config", "--registry", "tinyserver:ServerArgs.add_cli_args", cwd=root
    )
    assert exported.code == 0, exported.err
    data = json.loads(exported.out)
    assert data["platforms"] == {} and data["arguments"]["--port"]["computed_default"] is None


def test_config_and_no_config_are_one_choice(tmp_path: Path) -> None:
    result = run_cli_in_process("export", "--config", "argmatrix.yaml", "--no-config")
    assert result.code == 2 and "not allowed with argument" in result.err


def test_another_registry_takes_none_of_the_configured_registry_settings(tmp_path: Path) -> None:
    """The README's first example, in a project that has a configuration."""
    root = project(tmp_path)
    result = run_cli_in_process("export", "--registry", "other_cli:build", "--static", cwd=root)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["platforms"] == {}  # the manifests name the configured registry's flags
    assert set(data["arguments"]) == {"--verbosity", "--threads"}
    assert "--threads: default kept as source text" in result.err


def test_the_configured_target_named_again_keeps_its_settings(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = "tinyserver:ServerArgs.add_cli_args"
    result = run_cli_in_process("export", "--registry", target, "--static", cwd=root)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["arguments"]["--port"]["computed_default"] == "chosen at start-up"
    assert data["arguments"]["--port"]["environment_variable"] == "TINY_PORT"
    assert "npu" in data["platforms"]


def test_a_snapshot_is_the_same_bytes_from_every_folder_and_place(tmp_path: Path) -> None:
    root = other_project(tmp_path)
    first = run_cli_in_process("snapshot", "-o", str(tmp_path / "a.json"), cwd=root)
    second = run_cli_in_process("snapshot", "-o", str(tmp_path / "b.json"), cwd=root / "docs")
    assert first.code == second.code == 0, first.err + second.err
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    moved = tmp_path / "elsewhere" / "deeper" / "project"
    shutil.copytree(root, moved)
    third = run_cli_in_process("snapshot", "-o", str(tmp_path / "c.json"), cwd=moved)
    assert third.code == 0, third.err
    assert (tmp_path / "c.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    assert str(tmp_path) not in (tmp_path / "a.json").read_text(encoding="utf-8")


def other_project(tmp_path: Path) -> Path:
    """The project, its registry one with a diagnostic (a default only running can tell)."""
    root = project(tmp_path)
    config = (root / "argmatrix.yaml").read_text(encoding="utf-8")
    config = config.replace("tinyserver:ServerArgs.add_cli_args", "other_cli:build")
    (root / "argmatrix.yaml").write_text(config.split("manifests:")[0], encoding="utf-8")
    return root


def test_a_snapshot_names_its_diagnostics_relative_to_the_project(tmp_path: Path) -> None:
    root = other_project(tmp_path)
    result = run_cli_in_process("snapshot", "-o", "registry.json", cwd=root / "docs")
    assert result.code == 0, result.err
    data = json.loads((root / "docs" / "registry.json").read_text(encoding="utf-8"))
    [diagnostic] = data["registry"]["diagnostics"]
    assert diagnostic["file"] == "other_cli.py"
    assert diagnostic["line"] == line_of(root / "other_cli.py", "--threads")
