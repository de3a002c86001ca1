"""Click and Typer as the field writes them (issue 31), read statically: the shapes real command
lines have that the first fixtures did not, in `tests/fixtures/registries/field31/`. Each is read
exactly (static equal to live equal to Click's own view of the command), or static reading
says which flag or command it could not read, or stops at the line it could not follow; never
exit 0 with a value made up or dropped. (Typer's shapes: tests/test_typer_registry.py, which
has Typer.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest

from argmatrix.loaders.load import Mode
from helpers import REGISTRIES, line_of, load_dict, one_error_line, run_cli_in_subprocess
from test_click_registry import click_view, model_view

FIELD = REGISTRIES / "field31"


def own_view(target: str) -> dict[str, Any]:
    """Click's own view of the command a target is (or runs)."""
    module_name, attr = target.split(":")
    module = __import__(module_name, fromlist=[attr])
    command = getattr(module, attr)
    assert isinstance(command, click.Command)
    return click_view(command)


def static_and_live(target: str, command: str | None = None) -> dict[str, Any]:
    """The target read both ways: the same model, and no warning said statically (live reading
    of a function running `command` warns that it ran the function's code up to that call)."""
    static = load_dict(target, "static")
    live = load_dict(target, "live")
    assert "diagnostics" not in static, static["diagnostics"]
    if command is not None:
        [said] = live.pop("diagnostics")
        assert f"name {command} as the registry target instead" in said["message"]
    assert static == live
    return static


# ------------------------------------------------------------------ item 6: runners, conditions


@pytest.mark.parametrize(
    ("target", "command"),
    [
        ("field31.guarded:cli", "field31.guarded:cli"),
        # a function importing the command where it runs it, and one calling that function
        ("field31.runners:proxy_server", "field31.guarded:cli"),
        ("field31.runners:main", "field31.guarded:cli"),
    ],
)
def test_a_command_under_a_condition_or_run_by_a_function_is_read(
    target: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REGISTRIES))
    read = static_and_live(target, None if target == command else command)
    assert [s["name"] for s in read["subcommands"]] == ["serve", "work"]
    if target == command:
        assert model_view(read) == own_view(command)
    else:  # the prefix the runner gives: PROXY_SERVE_PORT
        [serve] = [s for s in read["subcommands"] if s["name"] == "serve"]
        assert serve["registry"]["arguments"][0]["extra"]["envvar"] == "PROXY_SERVE_PORT"


def test_a_definition_only_running_decides_stops_at_its_condition() -> None:
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "field31.undecided:serve", cwd=REGISTRIES
    )
    line = line_of(FIELD / "undecided.py", "if sys.platform")
    one_error_line(
        result,
        f"undecided.py:{line}:",
        "static reading stopped: `serve` is bound in more than one alternative of"
        ' `if sys.platform.startswith("linux"):`',
        "load the registry live",
    )


def test_a_runner_of_a_command_static_reading_cannot_read_stops_at_its_call() -> None:
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "field31.runners:elsewhere", cwd=REGISTRIES
    )
    line = line_of(FIELD / "runners.py", "    run_server()")
    one_error_line(
        result,
        f"runners.py:{line}:",
        "static reading stopped: field31.runners:elsewhere runs `run_server()`, imported from"
        " some_other_distribution.cli",
        "name the command object itself",
    )


@pytest.mark.parametrize("mode", ["static", "live"])
def test_a_click_module_whose_target_runs_nothing_says_so(mode: Mode, tmp_path: Path) -> None:
    (tmp_path / "runs_nothing.py").write_text(
        "import click\n\n@click.command()\ndef serve():\n    pass\n\ndef main():\n    print(1)\n",
        encoding="utf-8",
    )
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "runs_nothing:main",
        *(["--static"] if mode == "static" else []),
        cwd=tmp_path,
    )
    if mode == "static":
        one_error_line(
            result,
            "runs_nothing.py:7:",
            "does not build an argparse.ArgumentParser, nor run a Click command or a Typer app,",
        )
    else:
        assert result.code == 2, result.err
