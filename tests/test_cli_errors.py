"""The `export` and `snapshot` commands: JSON on success, one plain line on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argmatrix.loaders.snapshot import snapshot_text
from helpers import (
    BROKEN,
    DEMO_SERVER,
    HEAVY_MODULE,
    REGISTRIES,
    Run,
    line_of,
    load,
    load_dict,
    one_error_line,
    run_cli_in_subprocess,
)


def export(*args: str, cwd: Path = REGISTRIES) -> dict[str, object]:
    result = run_cli_in_subprocess("export", *args, cwd=cwd)
    assert result.code == 0, result.err
    return json.loads(result.out)


def assert_one_line_error(result: Run, *expected: str) -> str:
    """Exit 2, nothing on stdout, one `argmatrix: error:` line on stderr holding `expected`."""
    line = one_error_line(result, *expected)
    assert result.out == ""
    assert line.startswith("argmatrix: error: ")
    return line


# ------------------------------------------------------------------ success


def test_export_live_prints_registry_and_platforms() -> None:
    data = export("--registry", "grouped_cli:build_parser")
    assert set(data) == {"registry", "platforms", "arguments"}
    assert data["registry"] == load_dict("grouped_cli:build_parser")
    # How each argument reads on a page: no `environment:` configured, no variable.
    assert {a["environment_variable"] for a in data["arguments"].values()} == {None}


def test_export_static_needs_no_mock() -> None:
    data = export("--registry", DEMO_SERVER, "--static")
    assert data["registry"] == load_dict(DEMO_SERVER, "static")


def test_export_live_with_mock() -> None:
    data = export("--registry", DEMO_SERVER, "--mock", HEAVY_MODULE)
    assert data["registry"] == load_dict(DEMO_SERVER, "static")


def test_snapshot_writes_a_versioned_file(tmp_path: Path) -> None:
    out = tmp_path / "out" / "subcommands.json"
    result = run_cli_in_subprocess(
        "snapshot",
        "--registry",
        "subcommands_cli:build_parser",
        "--static",
        "-o",
        str(out),
        cwd=REGISTRIES,
    )
    assert result.code == 0, result.err
    assert out.read_text(encoding="utf-8") == snapshot_text(
        load("subcommands_cli:build_parser", "static")
    )


# ------------------------------------------------------------------ bad input


def test_unknown_module() -> None:
    result = run_cli_in_subprocess(
        "export", "--registry", "no_such_module:build_parser", cwd=REGISTRIES
    )
    assert_one_line_error(result, "'no_such_module'")


def test_unknown_attribute() -> None:
    result = run_cli_in_subprocess(
        "export", "--registry", "grouped_cli:no_such_builder", cwd=REGISTRIES
    )
    assert_one_line_error(result, "no_such_builder")


@pytest.mark.parametrize("static", [False, True], ids=["live", "static"])
def test_a_callable_that_builds_no_parser(static: bool) -> None:
    args = ["--registry", "not_a_builder:answer", *(["--static"] if static else [])]
    result = run_cli_in_subprocess("export", *args, cwd=REGISTRIES)
    assert_one_line_error(result, "not_a_builder:answer", "ArgumentParser")


def test_a_builder_that_raises() -> None:
    result = run_cli_in_subprocess(
        "export", "--registry", "raising_builder:build_parser", cwd=REGISTRIES
    )
    source = REGISTRIES / "raising_builder.py"
    line = line_of(source, 'settings["region"]')
    assert_one_line_error(result, "KeyError", f": error: raising_builder.py:{line}:")


def test_a_missing_heavy_module_asks_for_mock() -> None:
    result = run_cli_in_subprocess("export", "--registry", DEMO_SERVER, cwd=REGISTRIES)
    assert_one_line_error(result, HEAVY_MODULE, f"--mock {HEAVY_MODULE}")


def test_a_syntax_error_in_static_mode_names_file_and_line() -> None:
    source = BROKEN / "syntax_error_registry.py"
    line = line_of(source, '"--name", help="Name."')
    result = run_cli_in_subprocess(
        "export", "--registry", "syntax_error_registry:build_parser", "--static", cwd=BROKEN
    )
    assert_one_line_error(result, f": error: syntax_error_registry.py:{line}:", "syntax error")


def test_a_snapshot_of_another_version(tmp_path: Path) -> None:
    data = json.loads(snapshot_text(load("env_cli:make_parser", "static")))
    data["version"] = 99
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    result = run_cli_in_subprocess("export", "--registry", "old.json", cwd=tmp_path)
    assert_one_line_error(result, "old.json", "version 99")


def test_a_truncated_snapshot(tmp_path: Path) -> None:
    text = snapshot_text(load("env_cli:make_parser", "static"))
    (tmp_path / "cut.json").write_text(text[:200], encoding="utf-8")
    result = run_cli_in_subprocess("export", "--registry", "cut.json", cwd=tmp_path)
    assert_one_line_error(result, "cut.json", "not valid JSON")


def test_a_snapshot_that_does_not_exist(tmp_path: Path) -> None:
    result = run_cli_in_subprocess("export", "--registry", "nowhere.json", cwd=tmp_path)
    assert_one_line_error(result, "nowhere.json", "not found")
