"""Click and Typer as the field writes them (issue 31), read statically: the shapes real command
lines have that the first fixtures did not, in `tests/fixtures/registries/field31/`. Each is read
exactly (static equal to live equal to Click's own view of the command), or static reading
says which flag or command it could not read, or stops at the line it could not follow; never
exit 0 with a value made up or dropped. (Typer's shapes: tests/test_typer_registry.py, which
has Typer.)"""

from __future__ import annotations

import json
import os
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
    if mode == "static":  # located at the first statement it does not follow
        one_error_line(
            result,
            "runs_nothing.py:8:",
            "does not build an argparse.ArgumentParser, nor run a Click command or a Typer app,",
            "the first statement it does not follow is `print(1)`",
        )
    else:
        assert result.code == 2, result.err


# ------------------------------------------------------------------ items 2, 3, 5, 7: one server


def test_a_server_in_the_fields_shapes_reads_as_click_itself_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Options shared by decorators of the project's own (a function applying them, a list
    applied in a loop, a factory whose wrapper carries them by `functools.wraps`), subclasses
    of Click's types and options, defaults from another module and from an Enum, options added
    once the command is made: static reading gives what Click itself holds, and says nothing."""
    monkeypatch.syspath_prepend(str(REGISTRIES))
    static = load_dict("field31.serve:cli", "static")
    assert "diagnostics" not in static, static["diagnostics"]
    assert model_view(static) == own_view("field31.serve:cli")
    assert static == load_dict("field31.serve:cli", "live")
    [serve, status] = static["subcommands"]
    by = {a["flags"][0]: a for a in serve["registry"]["arguments"]}
    assert list(by)[:5] == ["--port", "--host", "--verbose", "--log-level", "--workers"]
    assert (by["--placement"]["default"], by["--placement"]["choices"]) == (
        "Everywhere",
        ["Everywhere", "Nowhere"],
    )
    assert by["--backend"]["choices"] == ["vllm", "sglang"]  # an AliasedChoice is a Choice
    assert by["--swap"]["type"] == "bytesize"
    assert (by["--max-batch"]["type"], by["--max-batch"]["default"]) == ("int", 64)
    assert (by["--threads"]["type"], by["--threads"]["default"]) == ("int", 8)
    assert by["--admin-port"]["help"] == "Admin port. (set by SRV_ADMIN_PORT)"
    assert by["--admin-port"]["extra"]["envvar"] == "SRV_ADMIN_PORT"
    assert list(by)[-2:] == ["--late", "--later"]
    # a wrapper without functools.wraps: Click names the command after it, and loses the
    # option applied under it
    assert (status["name"], status["registry"]["arguments"]) == ("wrapper", [])


# ------------------------------------------------------------------ item 7: registrations


def test_commands_from_a_helper_an_imported_module_and_a_missing_extension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`register(cli)` (a function of the package handed the group), a module the group's
    module imports at its end, an optional extension not installed (its `except
    ImportError:` runs, as importing it here does: said), a composite type's arity."""
    monkeypatch.syspath_prepend(str(REGISTRIES))
    static = load_dict("field31.tools:cli", "static")
    [said] = static.pop("diagnostics")
    assert said["line"] == line_of(FIELD / "tools.py", "from field31_missing_extension")
    assert "is not installed beside the target" in said["message"]
    assert static == load_dict("field31.tools:cli", "live")
    assert model_view(static) == own_view("field31.tools:cli")
    assert [s["name"] for s in static["subcommands"]] == ["ls", "status", "clean-cache"]
    [setting] = static["subcommands"][1]["registry"]["arguments"]
    assert (setting["nargs"], setting["action"]) == (2, "append")


def test_a_group_handed_to_code_static_reading_does_not_follow_stops_there() -> None:
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "field31.hooked:cli", cwd=REGISTRIES
    )
    line = line_of(FIELD / "hooked.py", "hook.register_commands(cli=cli)")
    one_error_line(
        result,
        f"hooked.py:{line}:",
        "static reading stopped: `hook.register_commands(cli=cli)` hands a Click command or group",
    )


# ------------------------------------------------------------------ item 7: never a guess


def write(tmp_path: Path, source: str) -> None:
    (tmp_path / "guess.py").write_text(source, encoding="utf-8")


@pytest.mark.parametrize(
    ("declaration", "words"),
    [
        ("@click.option('--x', required=FLAGS['x'])", "--x: `required=` cannot be computed"),
        ("@click.option('--x', multiple=os.environ.get('M'))", "--x: `multiple=` cannot be"),
        ("@click.option('--x', nargs=helper())", "--x: `nargs=` cannot be computed statically"),
        ("@click.option('--x', is_flag=helper())", "--x: `is_flag=` cannot be computed"),
        ("@click.option('--x', hidden=helper())", "--x: `hidden=` cannot be computed"),
    ],
)
def test_a_keyword_deciding_what_a_parameter_is_stops_at_its_line(
    tmp_path: Path, declaration: str, words: str
) -> None:
    write(
        tmp_path,
        "import os\nimport click\n\nFLAGS = {}\n\ndef helper():\n    return os.cpu_count()\n\n"
        f"@click.command()\n{declaration}\ndef serve(x):\n    pass\n",
    )
    result = run_cli_in_subprocess("export", "--static", "--registry", "guess:serve", cwd=tmp_path)
    one_error_line(result, "guess.py:10:", f"static reading stopped: {words}")


@pytest.mark.parametrize(
    ("declaration", "words"),
    [
        ("@click.option('model')", "Click refuses the option 'model': no option names"),
        ("@click.option('--x', nargs=-1)", "nargs=-1 is not supported for options"),
        ("@click.option('--x', count=True, multiple=True)", "'count' is not valid with 'multiple'"),
        ("@click.option('--x', type=click.Path)", "an uninstantiated parameter type"),
        ("@click.argument('x', multiple=True)", "an argument takes no `multiple=`"),
    ],
)
def test_what_click_refuses_at_import_is_refused(
    tmp_path: Path, declaration: str, words: str
) -> None:
    write(tmp_path, f"import click\n\n@click.command()\n{declaration}\ndef serve(x):\n    pass\n")
    static = run_cli_in_subprocess("export", "--static", "--registry", "guess:serve", cwd=tmp_path)
    one_error_line(static, "guess.py:4:", words)
    live = run_cli_in_subprocess("export", "--registry", "guess:serve", cwd=tmp_path)
    assert live.code == 2, live.out  # importing the module fails in Click itself


def test_a_name_a_command_is_registered_under_that_static_reading_cannot_compute_stops(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "import os\nimport click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "@click.command()\ndef serve():\n    pass\n\n"
        "cli.add_command(serve, name=os.environ.get('NAME', 'serve'))\n",
    )
    result = run_cli_in_subprocess("export", "--static", "--registry", "guess:cli", cwd=tmp_path)
    one_error_line(result, "guess.py:12:", "the name a command is registered under cannot be")


def test_a_default_from_another_module_only_running_computes_is_said(tmp_path: Path) -> None:
    """Kept as its source text with a warning naming the flag; the type Click infers from it
    is not claimed (never `ExternalRef(...)` or `str`)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "constants.py").write_text(
        "import os\n\nWORKERS = 4\nCPUS = os.cpu_count()\n", encoding="utf-8"
    )
    (tmp_path / "pkg" / "cli.py").write_text(
        "import click\nfrom pkg.constants import CPUS, WORKERS\n\n@click.command()\n"
        "@click.option('--workers', default=WORKERS)\n@click.option('--threads', default=CPUS)\n"
        "def serve(workers, threads):\n    pass\n",
        encoding="utf-8",
    )
    read = load_dict("pkg.cli:serve", "static", base_dir=tmp_path)
    workers, threads = read["arguments"]
    assert (workers["type"], workers["default"]) == ("int", 4)
    assert threads["default"] == {"unevaluated": "CPUS"}
    assert threads["type"] == "type(CPUS)"
    said = [d["message"] for d in read["diagnostics"]]
    assert said[0].startswith(
        "--threads: default kept as source text: `CPUS` (`pkg.constants.CPUS`"
    )


# ------------------------------------------------------------------ Click's releases


@pytest.mark.live_env
def test_the_click_beside_the_target_decides_how_a_command_is_named(tmp_path: Path) -> None:
    """Click 8.1 names `run_server_cmd` `run-server-cmd`, 8.2 and later `run-server`; static
    reading follows the Click it finds on the path (Typer 0.9.4's folder holds Click 8.1.8)."""
    older = REGISTRIES.parents[2] / ".cache" / "typer-0.9.4"
    if not (older / ".installed").is_file():
        pytest.fail("Click 8.1 is not installed (fix: run `make typer-libs`)", pytrace=False)
    write(
        tmp_path,
        "import click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "@cli.command()\ndef run_server_cmd():\n    pass\n",
    )
    for path, name in ((str(older), "run-server-cmd"), ("", "run-server")):
        env = {"PYTHONPATH": path, "ARGMATRIX_NO_CACHE": "1"}
        for mode in (["--static"], []):
            result = run_cli_in_subprocess(
                "export", "--registry", "guess:cli", *mode, cwd=tmp_path, env={**os.environ, **env}
            )
            assert result.code == 0, result.err
            [sub] = json.loads(result.out)["registry"]["subcommands"]
            assert sub["name"] == name, (mode, path)


def test_a_command_class_whose_init_adds_an_option_and_rewrites_help(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REGISTRIES))
    read = static_and_live("field31.commands:serve")
    assert model_view(read) == own_view("field31.commands:serve")
    assert [a["flags"] for a in read["arguments"]] == [["--port"], ["--trace"]]
    assert read["description"] == "Serve. (traced)"


# ------------------------------------------------------------------ argparse of the same tools


def test_a_parser_subclass_adding_a_second_spelling_and_an_action_passing_its_type() -> None:
    """The project's `add_argument` runs as written (`--config_file` and `--config-file`); an
    action whose `__init__` passes `type=str` on through `**kwargs` keeps it (`str`)."""
    read = static_and_live("field31.argparse_shapes:build")
    config, name = read["arguments"]
    assert config["flags"] == ["--config_file", "--config-file"]
    assert (name["flags"], name["type"]) == (["--served_name", "--served-name"], "str")


def test_a_runner_of_an_object_static_reading_does_not_make_stops_at_its_line(
    tmp_path: Path,
) -> None:
    """gunicorn's shape: the parser is built by a method of an application object; static
    reading names the statement it could not follow, not only the function."""
    (tmp_path / "app.py").write_text(
        "import argparse\n\nclass Application:\n    def run(self):\n"
        "        parser = argparse.ArgumentParser()\n        parser.add_argument('--bind')\n"
        "        parser.parse_args()\n\ndef run(prog=None):\n    # the command line runner\n"
        "    Application().run()\n",
        encoding="utf-8",
    )
    result = run_cli_in_subprocess("export", "--static", "--registry", "app:run", cwd=tmp_path)
    one_error_line(
        result,
        "app.py:11: app:run does not build an argparse.ArgumentParser that static reading can"
        " follow: the first statement it does not follow is `Application().run()` (calls"
        " `Application`, which static reading does not run)",
    )
    live = run_cli_in_subprocess("export", "--registry", "app:run", cwd=tmp_path)
    assert json.loads(live.out)["registry"]["arguments"][0]["flags"] == ["--bind"]


@pytest.mark.parametrize(
    ("source", "line", "words"),
    [
        (
            "import os\nimport click\n\n@click.command(\n"
            "    context_settings=dict(os.environ)\n)\ndef serve():\n    pass\n",
            4,
            "static reading stopped: the command 'serve': its context_settings cannot be read",
        ),
        (
            "import os\nimport click\n\n@click.command(hidden=os.cpu_count() > 2)\n"
            "def serve():\n    pass\n",
            4,
            "static reading stopped: the command 'serve': `hidden=` cannot be computed",
        ),
    ],
)
def test_a_command_setting_static_reading_cannot_compute_stops(
    tmp_path: Path, source: str, line: int, words: str
) -> None:
    write(tmp_path, source)
    result = run_cli_in_subprocess("export", "--static", "--registry", "guess:serve", cwd=tmp_path)
    one_error_line(result, f"guess.py:{line}:", words)


GROUP = (
    "import os\nimport click\n\n@click.group()\ndef cli():\n    pass\n\n"
    "@cli.command()\n@click.option('--port', type=int)\ndef serve(port):\n    pass\n\n"
)


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        (  # a name only running computes: the function's name would be a guess
            "@cli.command(os.environ['ARGMATRIX_TEST_UNSET_NAME'])\ndef work():\n    pass\n",
            13,
            "the command 'work': `name=` cannot be computed statically: `os.environ['ARGMATRIX_TEST_UNSET_NAME']`"
            " (it is read from $ARGMATRIX_TEST_UNSET_NAME when the program runs)",
        ),
        (
            "@cli.command(name=os.path.basename(os.getcwd()))\ndef work():\n    pass\n",
            13,
            "the command 'work': `name=` cannot be computed statically:"
            " `os.path.basename(os.getcwd())`",
        ),
        ("serve.hidden = True\n", 13, "`serve.hidden` changes the Click command 'serve'"),
        ("del serve.short_help\n", 13, "`serve.short_help` changes the Click command 'serve'"),
        (
            "cli.commands['s'] = serve\n",
            13,
            "`cli.commands['s']` changes the Click command 'cli'",
        ),
        (
            "@cli.command()\ndef work():\n    pass\n\ncli.commands.pop('serve')\n",
            17,
            "`cli.commands` changes the subcommands of the Click command 'cli'",
        ),
        (  # a function of the module registering on the group, run at import
            "def add_tools(name):\n    @cli.command(name)\n    def tool():\n        pass\n\n"
            "for name in ('a', 'b'):\n    add_tools(name)\n",
            18,
            "`add_tools(name)` runs `add_tools`, a function registering on or changing the Click"
            " command 'cli' that static reading does not follow",
        ),
    ],
)
def test_a_command_changed_in_a_way_static_reading_does_not_follow_stops_there(
    tmp_path: Path, tail: str, line: int, words: str
) -> None:
    """Live reading sees what these statements do (Python runs them at import); static reading
    stops at their line rather than give the command as first made."""
    write(tmp_path, GROUP + tail)
    result = run_cli_in_subprocess("export", "--static", "--registry", "guess:cli", cwd=tmp_path)
    one_error_line(result, f"guess.py:{line}: static reading stopped: {words}")
    live = run_cli_in_subprocess("export", "--registry", "guess:cli", cwd=tmp_path)
    assert live.code == (2 if "ARGMATRIX_TEST_UNSET_NAME" in tail else 0), live.err


def test_what_does_not_change_a_command_is_read(tmp_path: Path) -> None:
    """Reading a command's attributes, a function of the module using it (not run at import),
    a command's own body using the group: nothing changes what Click holds."""
    write(
        tmp_path,
        GROUP + "print(serve.name)\nNAMES = [serve.name]\n\n"
        "def main():\n    cli.main(prog_name='tool')\n\n"
        "@cli.command(hidden=1)\ndef debug():\n    cli.commands.clear()\n",
    )
    static = load_dict("guess:cli", "static", base_dir=tmp_path)
    assert "diagnostics" not in static
    assert static == load_dict("guess:cli", "live", base_dir=tmp_path)
    assert [(s["name"], s.get("hidden", False)) for s in static["subcommands"]] == [
        ("serve", False),
        ("debug", True),  # hidden=1 hides it, as Click takes it by its truth
    ]


def test_a_command_text_static_reading_cannot_compute_is_said(tmp_path: Path) -> None:
    write(
        tmp_path,
        "import os\nimport click\n\n"
        "@click.command(epilog=os.environ.get('EPILOG', 'Docs.'), help=os.getcwd(),\n"
        "               options_metavar=os.environ['METAVAR'])\n"
        "@click.option('--port', type=int)\ndef serve(port):\n    pass\n",
    )
    read = load_dict("guess:serve", "static", base_dir=tmp_path)
    said = sorted(d["message"] for d in read["diagnostics"])
    assert said == [
        "the command 'serve': `options_metavar=` not shown, it cannot be computed statically:"
        " `os.environ['METAVAR']`; the usage shows Click's own",
        "the command 'serve': epilog kept as source text: `os.environ.get('EPILOG', 'Docs.')`"
        " (it is read from $EPILOG when the program runs)",
        "the command 'serve': help kept as source text: `os.getcwd()` (calls `os.getcwd`,"
        " which static reading does not run)",
    ]
    assert read["epilog"] == "os.environ.get('EPILOG', 'Docs.')"  # its source, as said


def test_an_auto_envvar_prefix_static_reading_cannot_compute_is_said(tmp_path: Path) -> None:
    write(
        tmp_path,
        "import os\nimport click\n\n"
        "@click.command(context_settings={'auto_envvar_prefix': os.environ['APP']})\n"
        "@click.option('--port', type=int)\ndef serve(port):\n    pass\n",
    )
    read = load_dict("guess:serve", "static", base_dir=tmp_path)
    [said] = read["diagnostics"]
    assert "its auto_envvar_prefix read from $APP when the program runs" in said["message"]
    assert read["arguments"][0]["extra"] == {}


TYPER_APP = (
    "import typer\n\napp = typer.Typer()\n\n@app.command()\ndef serve(port: int = 1):\n"
    "    pass\n\n@app.command()\ndef stop():\n    pass\n\n"
)


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        (
            "def more():\n    @app.command()\n    def extra():\n        pass\n\nmore()\n",
            18,
            "`more()` runs `more`, a function registering on or changing the Typer app 'app'",
        ),
        (
            "app.registered_commands.pop()\n",
            13,
            "`app.registered_commands` changes the subcommands of the Typer app 'app'",
        ),
        ("app.info.help = 'Tools.'\n", 13, "`app.info.help` changes the Typer app 'app'"),
        (  # a plugin hook handed the app
            "import pluggy\n\npluggy.PluginManager('tools').hook.register(app=app)\n",
            15,
            "`pluggy.PluginManager('tools').hook.register(app=app)` hands a Typer app to code"
            " static reading does not follow",
        ),
    ],
)
def test_a_typer_app_changed_in_a_way_static_reading_does_not_follow_stops_there(
    tmp_path: Path, tail: str, line: int, words: str
) -> None:
    """(Typer itself is not installed here: its live reading is in tests/test_typer_registry.py.)"""
    (tmp_path / "tools.py").write_text(TYPER_APP + tail, encoding="utf-8")
    result = run_cli_in_subprocess("export", "--static", "--registry", "tools:app", cwd=tmp_path)
    one_error_line(result, f"tools.py:{line}: static reading stopped: {words}")


def test_a_typer_app_only_looked_at_is_read(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        TYPER_APP + "command = typer.main.get_command(app)\nprint(app.info.help)\n"
        "from typer.main import get_command\n\nagain = get_command(app)\n",
        encoding="utf-8",
    )
    read = load_dict("tools:app", "static", base_dir=tmp_path)
    assert [s["name"] for s in read["subcommands"]] == ["serve", "stop"]
    assert "diagnostics" not in read


def test_a_name_and_alias_registration_on_a_plain_group_is_clicks_one_name(
    tmp_path: Path,
) -> None:
    """Click itself splits no `"name | alias"`: a plain group lists and runs the command under
    the whole text, and both readings say so (a group class of the project's that splits it is
    read live, and stopped at statically: tests/test_click_runtime.py)."""
    write(
        tmp_path,
        "import click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "@cli.command('list | ls')\ndef list_models():\n    pass\n\n"
        "@cli.command(name='run|r')\n@click.option('--n', type=int)\ndef run(n):\n    pass\n",
    )
    static = load_dict("guess:cli", "static", base_dir=tmp_path)
    assert static == load_dict("guess:cli", "live", base_dir=tmp_path)
    assert [(s["name"], s["aliases"]) for s in static["subcommands"]] == [
        ("list | ls", []),
        ("run|r", []),
    ]


def test_a_command_registered_under_what_is_not_a_text_is_one_line_live(tmp_path: Path) -> None:
    """Click's help fails on it; live reading says so at the command's function, statically
    the name cannot be computed."""
    write(
        tmp_path,
        "import os\nimport click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "@cli.command(name=os.cpu_count())\ndef work():\n    pass\n",
    )
    live = run_cli_in_subprocess("export", "--registry", "guess:cli", cwd=tmp_path)
    one_error_line(live, "guess.py:8:", "the Click group 'cli' registers a command under")
    static = run_cli_in_subprocess("export", "--static", "--registry", "guess:cli", cwd=tmp_path)
    one_error_line(static, "guess.py:8:", "`name=` cannot be computed statically")
