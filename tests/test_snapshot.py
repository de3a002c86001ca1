"""Snapshots: a registry written as JSON reads back as the same model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.snapshot import read_snapshot, snapshot_text
from argmatrix.model.registry import Registry, registry_to_dict
from helpers import PARITY_TARGETS, REGISTRIES, load, load_dict, run_cli_in_subprocess

# Static-only fixtures too: their Unevaluated values must survive the round trip.
ROUND_TRIP_TARGETS = [*sorted(PARITY_TARGETS), "runtime_defaults:build_parser"]


def write_snapshot(registry: Registry, path: Path) -> Path:
    path.write_text(snapshot_text(registry), encoding="utf-8")
    return path


def snapshot_data(registry: Registry) -> dict[str, Any]:
    return json.loads(snapshot_text(registry))


@pytest.mark.parametrize("target", ROUND_TRIP_TARGETS)
def test_static_registry_round_trips(target: str, tmp_path: Path) -> None:
    registry = load(target, "static")
    path = write_snapshot(registry, tmp_path / "registry.json")
    assert registry_to_dict(read_snapshot(path)) == registry_to_dict(registry)


@pytest.mark.parametrize("target", sorted(PARITY_TARGETS))
def test_live_registry_round_trips_through_snapshot_mode(target: str, tmp_path: Path) -> None:
    registry = load(target, "live", PARITY_TARGETS[target])
    write_snapshot(registry, tmp_path / "registry.json")
    spec = RegistrySpec(target="registry.json", mode="snapshot", base_dir=tmp_path)
    again = load_registry(spec)
    assert registry_to_dict(again) == registry_to_dict(registry)
    # Writing what was read gives the same bytes: snapshots are stable under rewriting.
    assert snapshot_text(again) == snapshot_text(registry)


def test_snapshot_keeps_values_json_cannot_hold(tmp_path: Path) -> None:
    registry = load("runtime_defaults:build_parser", "static")
    data = snapshot_data(registry)
    assert (data["format"], data["version"]) == ("argmatrix-snapshot", 2)
    threads = data["registry"]["arguments"][0]
    assert threads["default"] == {"unevaluated": "os.cpu_count()"}
    again = read_snapshot(write_snapshot(registry, tmp_path / "r.json"))
    assert again.arguments[0] == registry.arguments[0]

    grouped = load("grouped_cli:build_parser", "static")
    timeout = next(
        a for a in snapshot_data(grouped)["registry"]["arguments"] if a["dest"] == "timeout"
    )
    assert timeout["default"] == {"python": "inf"}
    again = read_snapshot(write_snapshot(grouped, tmp_path / "g.json"))
    assert again.by_flag()["--timeout"].default == float("inf")


def test_live_values_json_cannot_hold_round_trip(tmp_path: Path) -> None:
    registry = load("runtime_defaults:build_parser", "live")
    data_dir = next(
        a for a in snapshot_data(registry)["registry"]["arguments"] if a["dest"] == "data_dir"
    )
    assert data_dir["default"] == {"python": repr(Path("data"))}
    again = read_snapshot(write_snapshot(registry, tmp_path / "r.json"))
    assert registry_to_dict(again) == registry_to_dict(registry)


def test_snapshot_keeps_subcommands(tmp_path: Path) -> None:
    registry = load("subcommands_cli:build_parser", "static")
    again = read_snapshot(write_snapshot(registry, tmp_path / "r.json"))
    assert [(s.name, s.aliases) for s in again.subcommands] == [
        ("serve", ("s", "run")),
        ("bench", ()),
        ("version", ()),
    ]
    assert again.subcommands[0].registry.sections == ("Serving", "Limits")


# ------------------------------------------------------------------ bad snapshots


def snapshot_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "snapshot.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    data = snapshot_data(load("env_cli:make_parser", "static"))
    data["version"] = 3
    path = snapshot_file(tmp_path, json.dumps(data))
    with pytest.raises(ArgmatrixError) as caught:
        read_snapshot(path)
    problem = caught.value.problems[0]
    assert "version 3 is not supported (this argmatrix reads versions 1, 2)" in problem.message
    assert problem.file == str(path)


def test_a_truncated_snapshot_is_refused(tmp_path: Path) -> None:
    text = snapshot_text(load("env_cli:make_parser", "static"))
    path = snapshot_file(tmp_path, text[: len(text) // 2])
    with pytest.raises(ArgmatrixError) as caught:
        read_snapshot(path)
    problem = caught.value.problems[0]
    assert "not valid JSON" in problem.message and "truncated" in problem.message
    assert problem.file == str(path)
    assert problem.line is not None and problem.line > 1


def test_json_that_is_no_snapshot_is_refused(tmp_path: Path) -> None:
    data = load_dict("env_cli:make_parser", "static")  # a bare registry, no header
    with pytest.raises(ArgmatrixError, match="not an argmatrix snapshot"):
        read_snapshot(snapshot_file(tmp_path, json.dumps(data)))


def test_a_snapshot_without_arguments_is_refused(tmp_path: Path) -> None:
    data = snapshot_data(load("env_cli:make_parser", "static"))
    del data["registry"]["arguments"]
    with pytest.raises(ArgmatrixError, match="incomplete or malformed"):
        read_snapshot(snapshot_file(tmp_path, json.dumps(data)))


def test_a_missing_snapshot_says_how_to_write_one(tmp_path: Path) -> None:
    with pytest.raises(ArgmatrixError, match="argmatrix snapshot --registry"):
        read_snapshot(tmp_path / "missing.json")


# ------------------------------------------------------------------ through the CLI


@pytest.mark.slow
def test_cli_snapshot_reads_back_through_export(tmp_path: Path) -> None:
    out = tmp_path / "demo.json"
    written = run_cli_in_subprocess(
        "snapshot", "--registry", "grouped_cli:build_parser", "-o", str(out), cwd=REGISTRIES
    )
    assert written.code == 0, written.err
    assert out.is_file()
    exported = run_cli_in_subprocess("export", "--registry", str(out), cwd=tmp_path)
    assert exported.code == 0, exported.err
    assert json.loads(exported.out)["registry"] == load_dict("grouped_cli:build_parser")


# ------------------------------------------------------------------ the command line's shape


V1_SNAPSHOT = REGISTRIES.parent / "snapshots" / "shape_server.v1.json"


@pytest.mark.parametrize("target", ["shape_server:build_parser", "shape_click:cli"])
def test_the_shape_of_the_command_line_round_trips(target: str, tmp_path: Path) -> None:
    registry = load(target, "static")
    again = read_snapshot(write_snapshot(registry, tmp_path / "registry.json"))
    # the program, usage, epilog, help option, groups, framework (JSON keeps a tuple as a list)
    assert registry_to_dict(again) == registry_to_dict(registry)
    assert again.exclusive_groups == registry.exclusive_groups
    serve = again.subcommands[0].registry
    program = "llmserve" if target.startswith("shape_server") else "shape_click"  # its module
    assert (serve.prog, serve.epilog[:3]) == (f"{program} serve", "LLM")


def test_a_version_1_snapshot_still_reads(tmp_path: Path) -> None:
    """A snapshot the argmatrix before format version 2 wrote (tests/fixtures/snapshots): its
    arguments as they were, and no shape of the command line it did not know (no framework,
    so no usage is made up from it)."""
    assert json.loads(V1_SNAPSHOT.read_text(encoding="utf-8"))["version"] == 1
    old = read_snapshot(V1_SNAPSHOT)
    now = load("shape_server:build_parser", "static")
    assert old.framework == "" and old.prog == "" and old.exclusive_groups == ()
    assert [a.flags for a in old.arguments] == [a.flags for a in now.arguments]
    serve, serve_now = old.subcommands[0].registry, now.subcommands[0].registry

    def shape(registry: Registry) -> list[tuple[Any, ...]]:  # (defaults from the environment
        # are kept as source text in version 1: another fact of format version 2)
        return [(a.flags, a.dest, a.nargs, a.metavar, a.choices) for a in registry.arguments]

    assert shape(serve) == shape(serve_now)
    written = snapshot_data(old)  # written again: the current format, the same arguments
    assert written["version"] == 2 and written["registry"]["framework"] == ""


def test_pages_from_a_version_1_snapshot_have_no_made_up_usage(tmp_path: Path) -> None:
    (tmp_path / "registry.json").write_bytes(V1_SNAPSHOT.read_bytes())
    (tmp_path / "argmatrix.yaml").write_text(
        "registry: {target: registry.json}\ndocs_dir: docs\npages:\n"
        "  - {template: server_arguments.md.j2, output: server.md}\n"
        "  - {template: cli_reference.md.j2, output: cli.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_subprocess("generate", cwd=tmp_path)
    assert result.code == 0, result.err
    for page in ("server.md", "cli.md"):
        text = (tmp_path / "docs" / page).read_text(encoding="utf-8")
        assert "```console" not in text and "| `--port` |" in text  # no usage, no value forms
