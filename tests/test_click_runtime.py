"""Click's facts as Click decides them when it runs (issue 31, items 2, 4 and 8), read live and
statically (tests/fixtures/registries/click_runtime_cli.py): a subclass of a Click type keeps
what its base says, an Enum default and Enum choices read as Click shows them, a `default_map`
gives the defaults Click runs with, a hidden command is left out of pages as a hidden option is;
and a group that decides its commands when it runs (a lazy group, placeholder commands, `"name |
alias"` registrations) is read live as Click lists and selects them, while static reading stops
at its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argmatrix.loaders.load import Mode, RegistrySpec, load_registry
from argmatrix.model.registry import Registry
from helpers import REGISTRIES, chdir, line_of, load_dict, one_error_line, run_cli_in_subprocess

MODULE = REGISTRIES / "click_runtime_cli.py"


def read(target: str, mode: Mode, tmp_path: Path, *subcommand: str) -> Registry:
    with chdir(tmp_path):  # a command that ran would leave its canary here
        return load_registry(RegistrySpec(target, mode, base_dir=REGISTRIES, subcommand=subcommand))


@pytest.mark.parametrize("mode", ["live", "static"])
def test_click_types_enums_default_map_and_hidden_commands(mode: Mode, tmp_path: Path) -> None:
    registry = read("click_runtime_cli:cli", mode, tmp_path)
    assert [(s.name, s.hidden) for s in registry.subcommands] == [
        ("serve", False),
        ("debug", True),
    ]
    serve = registry.subcommands[0].registry.by_flag()
    # a subclass of IntRange is a range; the default_map's 9000 is what Click runs with
    assert (serve["--port"].type, serve["--port"].extra["range"]) == ("int", "1<=x<=65535")
    assert serve["--port"].default == 9000
    assert serve["--backend"].choices == ("flashinfer", "triton")  # a subclass of Choice
    assert (serve["--placement"].default, serve["--placement"].choices) == (
        "Everywhere",
        ("Everywhere", "Nowhere"),
    )
    assert not list(tmp_path.iterdir())


def test_static_equals_live() -> None:
    assert load_dict("click_runtime_cli:cli", "static") == load_dict("click_runtime_cli:cli")


def test_a_hidden_command_is_left_out_of_pages(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "click_runtime_cli.py").write_bytes(MODULE.read_bytes())
    (tmp_path / "argmatrix.yaml").write_text(
        "registry:\n  target: click_runtime_cli:cli\n  mode: static\nmanifests: []\n"
        "docs_dir: docs\npages:\n  - {template: server_arguments.md.j2, output: cli.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_subprocess("generate", cwd=tmp_path)
    assert result.code == 0, result.err
    page = (tmp_path / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "--port" in page and "serve" in page
    assert "debug" not in page and "--secret-level" not in page
    exported = run_cli_in_subprocess("export", "--static", cwd=tmp_path)
    [debug] = [
        s for s in json.loads(exported.out)["registry"]["subcommands"] if s["name"] == "debug"
    ]
    assert debug["hidden"] is True  # in the model and its JSON: a snapshot keeps it


# ------------------------------------------------------------------ decided when it runs


def test_a_lazy_group_lists_what_click_lists(tmp_path: Path) -> None:
    registry = read("click_lazy_cli:lazy", "live", tmp_path)
    assert [s.name for s in registry.subcommands] == ["status", "bench"]
    bench = read("click_lazy_cli:lazy", "live", tmp_path, "bench")
    assert bench.by_flag()["--rounds"].default == 3
    assert not list(tmp_path.iterdir())


def test_a_placeholder_command_is_read_as_the_command_it_loads(tmp_path: Path) -> None:
    run = read("click_placeholder_cli:jobs", "live", tmp_path, "run")
    assert run.by_flag()["--steps"].help == "Steps to run."
    assert not list(tmp_path.iterdir())


def test_a_name_and_alias_registration_is_a_name_with_an_alias(tmp_path: Path) -> None:
    registry = read("click_alias_cli:models", "live", tmp_path)
    [listing] = registry.subcommands
    assert (listing.name, listing.aliases) == ("list", ("ls",))
    by_alias = read("click_alias_cli:models", "live", tmp_path, "ls")
    assert by_alias.by_flag()["--all"].action == "store_true"


@pytest.mark.parametrize(
    ("target", "statement", "says"),
    [
        (
            "click_lazy_cli:lazy",
            "@click.group(cls=LazyGroup)",
            "the group 'lazy' is made by `LazyGroup`, whose `get_command`, `list_commands` decide its"
            " commands when it runs",
        ),
        (
            "click_placeholder_cli:jobs",
            "jobs.add_command(Placeholder(",
            "adds a command static reading cannot find in the source",
        ),
        (
            "click_alias_cli:models",
            "@click.group(cls=AliasGroup)",
            "the group 'models' is made by `AliasGroup`, whose `get_command`, `list_commands`",
        ),
    ],
)
def test_static_reading_stops_at_a_group_that_decides_when_it_runs(
    target: str, statement: str, says: str
) -> None:
    module = REGISTRIES / f"{target.partition(':')[0]}.py"
    result = run_cli_in_subprocess("export", "--static", "--registry", target, cwd=REGISTRIES)
    one_error_line(
        result, f"{module.name}:{line_of(module, statement)}: static reading stopped:", says
    )
