"""What a maintainer adopting argmatrix for another server meets on the command line (issue 23):
one spelling of every output option, and `diff` and `history` reading a registry reached
through subcommands, from a folder or a wheel, as `export` and `snapshot` do."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from helpers import REGISTRIES, run_cli_in_process

SERVE = "subcommands_cli:build_parser serve"


def _release(folder: Path, port: int) -> Path:
    """A release of the fixture tool whose `serve --port` defaults to `port`."""
    folder.mkdir(parents=True)
    source = (REGISTRIES / "subcommands_cli.py").read_text(encoding="utf-8")
    assert "default=8000" in source
    (folder / "subcommands_cli.py").write_text(
        source.replace("default=8000", f"default={port}"), encoding="utf-8"
    )
    return folder


def _wheel(path: Path, release: Path) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.write(release / "subcommands_cli.py", "subcommands_cli.py")
        bundle.writestr("tool-2.0.dist-info/METADATA", "Name: tool\n")
    return path


# ------------------------------------------------------------------ point 3: -o everywhere


@pytest.mark.parametrize("spelling", ["-o", "--output"])
def test_every_command_that_writes_a_file_takes_dash_o(tmp_path: Path, spelling: str) -> None:
    _release(tmp_path / "rel-1.0", 8000)
    shutil.copy(REGISTRIES / "subcommands_cli.py", tmp_path)
    history = run_cli_in_process(
        "history", "--target", SERVE, "--release", "1.0=rel-1.0", spelling, "h.json", cwd=tmp_path
    )
    assert history.code == 0, history.err
    assert json.loads((tmp_path / "h.json").read_text())["releases"] == ["1.0"]
    snapshot = run_cli_in_process(
        "snapshot", "--registry", SERVE, "--static", spelling, "s.json", cwd=tmp_path
    )
    assert snapshot.code == 0, snapshot.err
    assert (tmp_path / "s.json").is_file()


def test_the_output_option_reads_alike_in_every_help() -> None:
    for command in ("snapshot", "import", "history"):
        result = run_cli_in_process(command, "--help")
        assert result.code == 0
        assert "-o FILE, --output FILE" in result.out, (command, result.out)


# ------------------------------------------------------------------ point 4: subcommands, wheels


def test_diff_reads_a_registry_reached_through_subcommands(tmp_path: Path) -> None:
    _release(tmp_path / "old", 8000)
    _release(tmp_path / "new", 9000)
    result = run_cli_in_process(
        "diff", SERVE, SERVE, "--old-path", "old", "--new-path", "new", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["changed"] == [
        {"name": "--port", "changes": {"default": {"old": 8000, "new": 9000}}}
    ]
    assert data["counts"] == {"added": 0, "removed": 0, "renamed": 0, "changed": 1}


def test_diff_of_a_subcommand_path_is_the_subcommand_only(tmp_path: Path) -> None:
    """`serve` against `bench`: the other subcommand's arguments, not the whole tool's."""
    shutil.copy(REGISTRIES / "subcommands_cli.py", tmp_path)
    result = run_cli_in_process(
        "diff", SERVE, "subcommands_cli:build_parser bench", "--static", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert {a["name"] for a in data["added"]} == {"--dataset", "--num-prompts", "extra"}
    assert {a["name"] for a in data["removed"]} == {"model", "--port", "--max-requests"}


def test_diff_names_a_missing_subcommand_in_one_line(tmp_path: Path) -> None:
    shutil.copy(REGISTRIES / "subcommands_cli.py", tmp_path)
    result = run_cli_in_process(
        "diff", SERVE, "subcommands_cli:build_parser web", "--static", cwd=tmp_path
    )
    assert result.code == 2
    assert "has no subcommand 'web'" in result.err and len(result.err.splitlines()) == 1


def test_diff_reads_a_wheel_given_as_a_path(tmp_path: Path) -> None:
    _release(tmp_path / "old", 8000)
    wheel = _wheel(tmp_path / "tool-2.0-py3-none-any.whl", _release(tmp_path / "build", 9000))
    shutil.rmtree(tmp_path / "build")
    result = run_cli_in_process(
        "diff", SERVE, SERVE, "--old-path", "old", "--new-path", wheel.name, "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert json.loads(result.out)["changed"][0]["changes"]["default"] == {"old": 8000, "new": 9000}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old", wheel.name]  # nothing unpacked


def test_history_reads_a_registry_reached_through_subcommands(tmp_path: Path) -> None:
    _release(tmp_path / "tool-1.0", 8000)
    _wheel(tmp_path / "tool-2.0-py3-none-any.whl", _release(tmp_path / "build", 9000))
    shutil.rmtree(tmp_path / "build")
    result = run_cli_in_process(
        "history", "--target", SERVE, "--releases", ".", "-o", "history.json", cwd=tmp_path
    )
    assert result.code == 0, result.err
    data = json.loads((tmp_path / "history.json").read_text())
    assert data["releases"] == ["1.0", "2.0"]
    port = next(a for a in data["arguments"] if a["name"] == "--port")
    assert port["defaults"] == [
        {"release": "1.0", "value": 8000},
        {"release": "2.0", "value": 9000},
    ]
    assert "--dataset" not in {a["name"] for a in data["arguments"]}  # bench's, not serve's


# ------------------------------------------------------------------ point 17: help and titles


def test_schema_help_names_every_schema_it_prints() -> None:
    helped = run_cli_in_process("schema", "--help")
    assert helped.code == 0
    for kind in ("manifest", "config", "findings"):
        printed = run_cli_in_process("schema", kind)
        assert printed.code == 0 and json.loads(printed.out)
        assert f"'{kind}'" in " ".join(helped.out.split())


def test_a_platforms_two_pages_get_two_titles(tmp_path: Path) -> None:
    from helpers import copy_project

    root = copy_project(tmp_path)
    assert run_cli_in_process("generate", cwd=root).code == 0
    reference = root / "docs" / "reference"
    titles = {
        page.name: page.read_text(encoding="utf-8").splitlines()[0]
        for page in (reference / "npu.md", reference / "npu_variants.md")
    }
    assert titles == {
        "npu.md": "# Support Features on Example NPU",
        "npu_variants.md": "# Support Features on Example NPU by variant",
    }


# ------------------------------------------------------------------ point 11: converters


CONVERTERS = """
import argparse
import json


def _parse(x):
    return int(x)


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--overrides", type={overrides}, default=None)
    parser.add_argument("--quant-policy", type=_parse, default=0)
    return parser
"""


def test_converters_read_as_what_they_accept(tmp_path: Path) -> None:
    for name, overrides in (("old_cli", "str"), ("new_cli", "json.loads")):
        source = CONVERTERS.replace("{overrides}", overrides)
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    diff = run_cli_in_process(
        "diff", "old_cli:build_parser", "new_cli:build_parser", "--static", cwd=tmp_path
    )
    assert diff.code == 0, diff.err
    assert "- `--overrides`: type `str` → `JSON` (converter `str` → `loads`)" in diff.out

    (tmp_path / "argmatrix.yaml").write_text(
        "registry: {target: 'new_cli:build_parser', mode: static}\n"
        "docs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n",
        encoding="utf-8",
    )
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    page = (tmp_path / "docs" / "args.md").read_text(encoding="utf-8")
    assert "Type: JSON" in page and "Type: value" in page  # `_parse` cannot be known
    config = tmp_path / "argmatrix.yaml"
    config.write_text(config.read_text() + "types: {_parse: int or policy name}\n")
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    page = (tmp_path / "docs" / "args.md").read_text(encoding="utf-8")
    assert "Type: int or policy name" in page and "Type: value" not in page


# ------------------------------------------------------------------ point 10: section titles


GROUPS = """
import argparse


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", help="The model.")
    parser.add_argument("--port", type=int, default=8000)
    cache = parser.add_argument_group("Cache")
    cache.add_argument("--cache-size", type=int, default=1)
    lora = parser.add_argument_group("LoRA")
    lora.add_argument("--lora-path", default=None)
    return parser
"""


def _headings(page: Path) -> list[str]:
    return [line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def test_section_titles_rename_order_and_merge_sections(tmp_path: Path) -> None:
    (tmp_path / "groups_cli.py").write_text(GROUPS, encoding="utf-8")
    config = tmp_path / "argmatrix.yaml"
    config.write_text(
        "registry: {target: 'groups_cli:build_parser', mode: static}\n"
        "docs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n",
        encoding="utf-8",
    )
    page = tmp_path / "docs" / "args.md"
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    options = next(h for h in _headings(page) if h.startswith("## ") and "option" in h)
    assert _headings(page)[1:] == ["## positional arguments", options, "## Cache", "## LoRA"]

    config.write_text(
        config.read_text()
        + "section_titles:\n"
        + "  LoRA: Adapters\n"
        + "  positional arguments: Model and server\n"
        + f"  {options[3:]}: Model and server\n",
        encoding="utf-8",
    )
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    assert _headings(page)[1:] == ["## Adapters", "## Model and server", "## Cache"]
    text = page.read_text(encoding="utf-8")
    merged = text[text.index("## Model and server") : text.index("## Cache")]
    assert merged.index("`model`") < merged.index("`--port`")
    assert run_cli_in_process("check", cwd=tmp_path).code == 0


def test_a_misspelled_section_title_is_one_located_error(tmp_path: Path) -> None:
    from helpers import line_of, one_error_line

    (tmp_path / "groups_cli.py").write_text(GROUPS, encoding="utf-8")
    config = tmp_path / "argmatrix.yaml"
    config.write_text(
        "registry: {target: 'groups_cli:build_parser', mode: static}\n"
        "docs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n"
        "section_titles:\n  Cahce: Caching\n",
        encoding="utf-8",
    )
    for command in ("generate", "check"):
        result = run_cli_in_process(command, cwd=tmp_path)
        one_error_line(
            result,
            f"argmatrix.yaml:{line_of(config, 'Cahce')}:",
            "section_titles: 'Cahce' is not a section of the registry (fix: did you mean 'Cache'?)",
        )
    assert not (tmp_path / "docs" / "args.md").exists()
