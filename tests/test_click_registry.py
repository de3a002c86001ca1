"""Click registries (issue 22): a server-like Click command of forty options, a Click group with
nested groups, and a worker whose argparse parser is built under `if __name__ == "__main__":`,
read live and statically. Static equals live, and both equal Click's own view of the command
(`Context.to_info_dict`, taken here from the command object); live reading never runs a
command. Click is argmatrix's test dependency (pyproject.toml pins `click==8.5.1`)."""

from __future__ import annotations

import enum
import json
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import pytest

from argmatrix.loaders.load import Mode, RegistrySpec, load_registry, load_registry_and_files
from argmatrix.loaders.modes import FRAMEWORKS
from argmatrix.model.registry import Registry, Unevaluated
from helpers import (
    REGISTRIES,
    chdir,
    line_of,
    load,
    load_dict,
    one_error_line,
    run_cli_in_subprocess,
)

CLICK_TARGETS = ("click_server:serve", "click_group_cli:cli")
MAIN_TARGET = "worker_script:__main__"
# A default read from the environment: static reading keeps the fact (the variable and the value
# when it is unset), live reading the value its own environment gives.
ENVIRONMENT_DEFAULT = (
    "--profile-dir",
    {"variable": "MS_PROFILE_DIR", "otherwise": "/tmp/profiles"},
)


def walk(registry: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield registry
    for sub in registry.get("subcommands", ()):
        yield from walk(sub["registry"])


# ------------------------------------------------------------------ static == live


@pytest.mark.parametrize("target", [*CLICK_TARGETS, MAIN_TARGET])
def test_static_reading_equals_live_reading(target: str) -> None:
    live = load_dict(target, "live")
    static = load_dict(target, "static")
    if target == "click_server:serve":
        flag, fact = ENVIRONMENT_DEFAULT
        [kept] = [a for a in static["arguments"] if a["flags"][:1] == [flag]]
        assert kept["default"] == {"environment": fact}
        [ran] = [a for a in live["arguments"] if a["flags"][:1] == [flag]]
        assert ran["default"] == "/tmp/profiles"
        kept["default"] = ran["default"]
    assert "diagnostics" not in static
    assert static == live


def test_the_environment_default_is_a_fact_without_a_warning() -> None:
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "click_server:serve", cwd=REGISTRIES
    )
    assert result.code == 0, result.err
    assert result.err == ""
    [argument] = [
        a for a in json.loads(result.out)["registry"]["arguments"] if a["dest"] == "profile_dir"
    ]
    assert argument["default"] == {"environment": ENVIRONMENT_DEFAULT[1]}


# ------------------------------------------------------------------ Click's own view


def click_view(command: click.Command, prefix: str | None = None) -> dict[str, Any]:
    """What Click itself says of a command (`to_info_dict`), in the model's words, written here
    from Click's documentation, independently of argmatrix's converter."""
    settings = command.context_settings or {}
    prefix = settings.get("auto_envvar_prefix", prefix)
    with click.Context(command, info_name=command.name, auto_envvar_prefix=prefix) as context:
        info = command.to_info_dict(context)
        params = [
            p
            for p in info["params"]
            if p["name"] != "_click_default_help" and p["opts"] != ["--help"]
        ]
        view = {"params": [param_view(p, context.auto_envvar_prefix) for p in params]}
        commands = getattr(command, "commands", {})
        prefix = context.auto_envvar_prefix
        view["commands"] = {
            name: click_view(sub, f"{prefix}_{name.upper()}" if prefix else None)
            for name, sub in commands.items()
        }
    return view


def param_view(info: dict[str, Any], prefix: str | None) -> dict[str, Any]:
    option = info["param_type_name"] == "option"
    type_ = info["type"]
    envvar = info["envvar"]
    if isinstance(envvar, list):
        envvar = ", ".join(envvar)
    if envvar is None and option and prefix and info["name"] != "version":
        envvar = f"{prefix}_{info['name'].upper()}"
    nargs = info["nargs"]
    return {
        "flags": [*info["opts"], *info["secondary_opts"]] if option else [],
        "dest": info["name"],
        "required": info["required"],
        "repeatable": info["multiple"],
        "count": info.get("count", False),
        "nargs": None if nargs == 1 else ("+" if info["required"] else "*") if nargs < 0 else nargs,
        "default": None if info["name"] == "version" else shown(info["default"]),
        "envvar": envvar,
        "help": info.get("help") or "",
        "hidden": info.get("hidden", False),
        # Click (8.2 and later) offers an Enum's members by their names
        "choices": [c.name if isinstance(c, enum.Enum) else c for c in type_["choices"]]
        if "choices" in type_
        else None,
        "bounds": (type_.get("min"), type_.get("max")) if "Range" in type_["param_type"] else None,
    }


def shown(value: Any) -> Any:
    """A default as Click (8.2 and later) shows it: an Enum member by its name."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple)):
        return [shown(v) for v in value]
    return value


def model_view(registry: dict[str, Any]) -> dict[str, Any]:
    return {
        "params": [
            {
                "flags": a["flags"],
                "dest": a["dest"],
                "required": a["required"],
                "repeatable": a["action"] in ("append", "append_const"),
                "count": a["action"] == "count",
                "nargs": a["nargs"],
                "default": a["default"],
                "envvar": a["extra"].get("envvar"),
                "help": a["help"],
                "hidden": a["hidden"],
                "choices": a["choices"],
                "bounds": _bounds(a),
            }
            for a in registry["arguments"]
        ],
        "commands": {s["name"]: model_view(s["registry"]) for s in registry.get("subcommands", ())},
    }


def _bounds(argument: dict[str, Any]) -> tuple[Any, Any] | None:
    """The bounds back from the range text (`1<=x<=65535`, `x>=1`, `0<x<=1`)."""
    text = argument["extra"].get("range")
    if argument["action"] == "count":
        return (0, None)
    if text is None:
        return None
    low, _, high = text.replace("<=", "<").partition("x")
    low, high = low.rstrip("<"), high.lstrip("<")
    if text.startswith("x>"):
        return (_number(text.lstrip("x>=")), None)
    return (_number(low) if low else None, _number(high) if high else None)


def _number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def own_command(target: str) -> click.Command:
    module_name, attr = target.split(":")
    module = __import__(module_name)
    command = getattr(module, attr)
    assert isinstance(command, click.Command)
    return command


@pytest.mark.parametrize("mode", ["live", "static"])
@pytest.mark.parametrize("target", CLICK_TARGETS)
def test_every_parameter_reads_as_click_itself_reads_it(
    target: str, mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REGISTRIES))
    monkeypatch.delenv("MS_PROFILE_DIR", raising=False)
    read = load_dict(target, mode)
    for argument in read["arguments"]:  # the environment default: compared as live reads it
        if isinstance(argument["default"], dict) and "environment" in argument["default"]:
            argument["default"] = argument["default"]["environment"]["otherwise"]
    own = click_view(own_command(target))
    assert model_view(read) == own
    assert len(own["params"]) >= (40 if target == "click_server:serve" else 2)


def test_click_specific_facts_in_the_model() -> None:
    registry = load("click_server:serve", "static")
    by = registry.by_flag()
    assert by["--trust-remote-code"].action == "boolean_optional"
    assert by["--trust-remote-code"].flags == ("--trust-remote-code", "--no-trust-remote-code")
    assert by["--warmup"].flags == ("--warmup", "--no-warmup", "-W")
    assert (by["--port"].type, by["--port"].extra["range"]) == ("int", "1<=x<=65535")
    assert by["--mem-fraction-static"].extra["range"] == "0.0<x<=1.0"
    assert by["--served-model-name"].action == "append"
    assert by["--cors-origin"].default == ["*"]
    assert (by["-v"].action, by["-v"].default) == ("count", 0)
    assert (by["--no-stream"].action, by["--no-stream"].default) == ("store_false", True)
    assert by["--speculative-mode"].action == "store_const"
    assert by["--speculative-mode"].extra["flag_value"] == "eagle"
    assert by["--version"].action == "version"
    assert by["--host"].extra["envvar"] == "MS_HOST, HOST"
    assert by["--port"].extra["envvar"] == "MODELSERVER_PORT"  # auto_envvar_prefix
    assert by["--api-key"].hidden
    assert by["--swap-space"].type == "bytesize"  # a ParamType of the source, by its name
    assert by["--chat-template"].type == "File"
    assert by["--deadline"].type == "datetime"
    assert by["--lora"].nargs == 2
    assert by["--cpu-offload-gb"].extra["show_default"] == "no offload"
    assert by["--dtype"].choices == ("auto", "half", "float16", "bfloat16", "float", "float32")
    [model_path] = [a for a in registry.arguments if a.positional]
    assert (model_path.dest, model_path.required, model_path.type) == ("model_path", True, "Path")
    assert registry.description.startswith("Start the model server.")


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_group_is_read_as_subcommands(mode: Mode) -> None:
    registry = load("click_group_cli:cli", mode)
    assert [s.name for s in registry.subcommands] == ["cluster", "status", "st", "ping"]
    cluster = registry.subcommands[0]
    assert cluster.help == "Manage clusters."
    assert [s.name for s in cluster.registry.subcommands] == ["create", "nodes"]
    add = cluster.registry.subcommands[1].registry.subcommands[0].registry
    assert add.source == "click_group_cli:cli cluster nodes add"
    assert add.by_flag()["hosts"].nargs == "+"
    assert registry.subcommands[1].help == "Show the fleet's state."  # its short_help


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_subcommand_target(mode: Mode) -> None:
    spec = RegistrySpec(
        "click_group_cli:cli", mode, base_dir=REGISTRIES, subcommand=("cluster", "create")
    )
    registry = load_registry(spec)
    assert registry.source == "click_group_cli:cli cluster create"
    assert [a.name for a in registry.arguments] == [
        "name",
        "--nodes",
        "--region",
        "--label",
        "--tier",
    ]
    assert registry.by_flag()["--tier"].choices == ("GOLD", "SILVER")
    assert registry.by_flag()["--nodes"].extra["envvar"] == "OPS_CLUSTER_CREATE_NODES"


@pytest.mark.parametrize("mode", ["live", "static"])
def test_an_unknown_subcommand_is_one_line(mode: str) -> None:
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "click_group_cli:cli cluster destroy",
        *(["--static"] if mode == "static" else []),
        cwd=REGISTRIES,
    )
    one_error_line(
        result, "click_group_cli:cli cluster has no subcommand 'destroy'", "create, nodes"
    )


def test_the_script_parser_has_its_groups() -> None:
    registry = load(MAIN_TARGET, "static")
    assert registry.sections == ("options", "Retries")  # argparse's own group, then its own
    assert registry.by_flag()["--max-retries"].section == "Retries"
    assert registry.description == "Run a batch worker."


# ------------------------------------------------------------------ live reading runs nothing


@pytest.mark.parametrize(
    "target",
    [*CLICK_TARGETS, MAIN_TARGET, "click_server:__main__", "click_group_cli:__main__"],
)
def test_live_reading_runs_no_command(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command's body would write a canary file and bind a port: neither happens."""
    bound: list[Any] = []
    original_bind = socket.socket.bind

    def bind(self: socket.socket, address: Any) -> None:
        bound.append(address)
        original_bind(self, address)

    monkeypatch.setattr(socket.socket, "bind", bind)
    with chdir(tmp_path):
        registry = load(target, "live")
    assert registry.arguments or registry.subcommands
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())
    assert bound == []


def test_a_function_that_runs_the_command_gives_the_command(tmp_path: Path) -> None:
    """A target like `main()` that calls `cli()`: the command is taken where it would parse,
    with the `auto_envvar_prefix` the call gives."""
    (tmp_path / "runs_cli.py").write_text(
        "import click\n\n"
        "@click.command()\n"
        "@click.option('--port', type=int, default=1)\n"
        "def serve(port):\n"
        "    open('ran.txt', 'w').write('ran')\n\n"
        "def main():\n"
        "    serve(auto_envvar_prefix='APP')\n",
        encoding="utf-8",
    )
    for mode in ("live", "static"):
        with chdir(tmp_path):
            registry = load("runs_cli:main", mode, base_dir=tmp_path)
        assert registry.by_flag()["--port"].extra["envvar"] == "APP_PORT"
    assert not (tmp_path / "ran.txt").exists()


# ------------------------------------------------------------------ bad targets: one line


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_command_run_at_import_is_one_line(tmp_path: Path) -> None:
    """A module that runs its command when imported is stopped there, before Click parses."""
    write(
        tmp_path,
        "usage_error",
        "import click\n\n"
        "@click.command()\n"
        "@click.option('--port', type=int)\n"
        "def serve(port):\n"
        "    pass\n\n"
        "serve(['--no-such-option'])  # at import: Click prints a usage error and exits 2\n",
    )
    result = run_cli_in_subprocess("export", "--registry", "usage_error:serve", cwd=tmp_path)
    one_error_line(
        result, "usage_error.py:8:", "importing 'usage_error' runs the Click command 'serve'"
    )


def test_a_target_writing_to_the_binary_stderr_is_read(tmp_path: Path) -> None:
    write(
        tmp_path,
        "binary_stderr",
        "import argparse, sys\n\n"
        "def build():\n"
        "    sys.stderr.buffer.write(b'loading\\n')\n"
        "    sys.stdout.buffer.write(b'\\xffraw\\n')\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--port', type=int)\n"
        "    return parser\n\n"
        "def fails():\n"
        "    sys.stderr.buffer.write(b'fatal\\n')\n"
        "    raise SystemExit(2)\n",
    )
    result = run_cli_in_subprocess("export", "--registry", "binary_stderr:build", cwd=tmp_path)
    assert result.code == 0, result.err
    assert '"--port"' in result.out and "loading" not in result.out + result.err
    result = run_cli_in_subprocess("export", "--registry", "binary_stderr:fails", cwd=tmp_path)
    one_error_line(result, "binary_stderr.py:", "building the parser with binary_stderr:fails")


@pytest.mark.parametrize("mode", ["live", "static"])
def test_options_without_a_command_are_one_line(mode: str, tmp_path: Path) -> None:
    write(
        tmp_path,
        "bare_options",
        "import click\n\n@click.option('--port')\ndef serve(port):\n    pass\n",
    )
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "bare_options:serve",
        *(["--static"] if mode == "static" else []),
        cwd=tmp_path,
    )
    one_error_line(result, "bare_options.py:", "has @click.option decorators but no @click.command")


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_module_without_a_main_block_is_one_line(mode: str, tmp_path: Path) -> None:
    write(tmp_path, "no_main", "import argparse\n\nparser = argparse.ArgumentParser()\n")
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "no_main:__main__",
        *(["--static"] if mode == "static" else []),
        cwd=tmp_path,
    )
    if mode == "static":
        one_error_line(result, "no_main.py:", 'has no `if __name__ == "__main__":` block')
    else:
        one_error_line(result, "no_main.py:", "as a script ended without parsing a command line")


def test_an_unfollowed_decorator_stops_static_reading(tmp_path: Path) -> None:
    """A decorator of another package may add options: static reading says where it stopped."""
    write(
        tmp_path,
        "shared_options",
        "import click\nfrom elsewhere import common_options\n\n"
        "@click.command()\n@common_options\n@click.option('--port', type=int)\n"
        "def serve(port, **kw):\n    pass\n",
    )
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "shared_options:serve", cwd=tmp_path
    )
    one_error_line(
        result,
        "shared_options.py:5:",
        "static reading stopped: the decorator `common_options` is not one static reading follows",
        "load the registry live",
    )


def test_the_model_is_the_same_through_a_snapshot(tmp_path: Path) -> None:
    snapshot = tmp_path / "serve.json"
    result = run_cli_in_subprocess(
        "snapshot", "--registry", "click_server:serve", "-o", str(snapshot), cwd=REGISTRIES
    )
    assert result.code == 0, result.err
    live: Registry = load("click_server:serve", "live")
    again = load(str(snapshot), "snapshot")
    assert again.arguments == live.arguments
    assert not any(isinstance(a.default, Unevaluated) for a in live.arguments)


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_group_inside_itself_is_one_line(mode: str, tmp_path: Path) -> None:
    write(
        tmp_path,
        "self_group",
        "import click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "@cli.group()\ndef inner():\n    pass\n\ninner.add_command(cli)\n",
    )
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "self_group:cli",
        *(["--static"] if mode == "static" else []),
        cwd=tmp_path,
    )
    one_error_line(result, "contains itself")


def test_static_reading_of_a_click_command_keeps_its_budgets(tmp_path: Path) -> None:
    write(
        tmp_path,
        "huge_default",
        "import click\n\n@click.command()\n@click.option('--x', default='a' * 10**10)\n"
        "def serve(x):\n    pass\n",
    )
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "huge_default:serve", cwd=tmp_path
    )
    one_error_line(result, "huge_default.py:4:", "static reading stopped: the size budget")


# ------------------------------------------------------------------ downstream: diff and audit


@pytest.mark.slow
def test_diff_of_two_releases_of_a_click_server(tmp_path: Path) -> None:
    source = (REGISTRIES / "click_server.py").read_text(encoding="utf-8")
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "click_server.py").write_text(source, encoding="utf-8")
    newer = source.replace('default="main", show_default=True', 'default="stable"')
    newer = newer.replace(
        '@click.option("--seed", type=int, default=None, help="Random seed.")\n', ""
    )
    assert newer != source
    (tmp_path / "new" / "click_server.py").write_text(newer, encoding="utf-8")
    for release in ("old", "new"):
        result = run_cli_in_subprocess(
            "snapshot",
            "--static",
            "--registry",
            "click_server:serve",
            "-o",
            str(tmp_path / f"{release}.json"),
            cwd=tmp_path / release,
        )
        assert result.code == 0, result.err
    result = run_cli_in_subprocess(
        "diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), cwd=tmp_path
    )
    assert "--seed" in result.out and "--revision" in result.out, result.out + result.err
    assert "stable" in result.out


def test_audit_of_the_generated_page_finds_nothing() -> None:
    page = (
        REGISTRIES.parents[1].parent / "showcase" / "click-server" / "docs" / "server_arguments.md"
    )
    result = run_cli_in_subprocess(
        "audit", "--static", "--registry", "click_server:serve", str(page), cwd=REGISTRIES
    )
    assert result.code == 0, result.out + result.err


def test_commands_registered_in_a_loop_stop_static_reading(tmp_path: Path) -> None:
    """Subcommands static reading cannot list are never left out in silence."""
    write(
        tmp_path,
        "loop_registered",
        "import click\n\n@click.group()\ndef cli():\n    pass\n\n"
        "def make(name):\n    return click.Command(name)\n\n"
        "for name in ('a', 'b'):\n    cli.add_command(make(name))\n",
    )
    result = run_cli_in_subprocess(
        "export", "--static", "--registry", "loop_registered:cli", cwd=tmp_path
    )
    one_error_line(result, "loop_registered.py:10:", "static reading stopped: `cli.add_command`")
    live = run_cli_in_subprocess("export", "--registry", "loop_registered:cli", cwd=tmp_path)
    assert live.code == 0, live.err


# ------------------------------------------------------------------ Click as a framework record


def test_a_static_click_read_gives_every_file_it_read(tmp_path: Path) -> None:
    """The page cache and `mkdocs serve` follow the files a registry was read from: a Click
    command read statically names its module and the module its help texts come from."""
    package = tmp_path / "srv"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "texts.py").write_text('PORT_HELP = "Port to bind."\n', encoding="utf-8")
    (package / "serve.py").write_text(
        "import click\nfrom srv.texts import PORT_HELP\n\n\n"
        '@click.command()\n@click.option("--port", type=int, default=80, help=PORT_HELP)\n'
        "def serve(port):\n    pass\n",
        encoding="utf-8",
    )
    spec = RegistrySpec("srv.serve:serve", "static", base_dir=tmp_path, search_path=())
    registry, files = load_registry_and_files(spec)
    assert registry.by_flag()["--port"].help == "Port to bind."
    assert files is not None
    assert {str(package / "serve.py"), str(package / "texts.py")} <= set(files)


@pytest.mark.parametrize("mode", ["live", "static"])
def test_both_readers_hand_a_click_command_to_its_framework_record(
    mode: Mode, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The reader finds the framework (no `framework:` given); its record makes the model."""
    seen = tmp_path / "seen.txt"  # a live read makes its model in a process of its own
    click_record = FRAMEWORKS["click"]

    def to_registry(command: Any, source: str, sites: Any, read_file: Any) -> Registry:
        with seen.open("a", encoding="utf-8") as file:
            file.write(source + "\n")
        return click_record.to_registry(command, source, sites, read_file)

    monkeypatch.setitem(FRAMEWORKS, "click", replace(click_record, to_registry=to_registry))
    spec = RegistrySpec("click_group_cli:cli", mode, base_dir=REGISTRIES, subcommand=("ping",))
    assert spec.framework is None
    assert load_registry(spec).arguments
    assert seen.read_text(encoding="utf-8").splitlines() == ["click_group_cli:cli ping"]


@pytest.mark.parametrize(
    ("target", "name", "declared"),
    [
        ("click_server:serve", "--revision", '@click.option("--revision"'),
        ("typer_app_cli:serve", "--port", "port: Annotated["),
    ],
)
def test_a_parameter_read_statically_is_at_the_line_declaring_it(
    target: str, name: str, declared: str
) -> None:
    argument = load(target, "static").by_flag()[name]
    assert argument.origin is not None
    file = REGISTRIES / f"{target.partition(':')[0]}.py"
    assert (argument.origin.file, argument.origin.line) == (str(file), line_of(file, declared))


def test_a_compatibility_finding_on_a_click_option_is_at_its_line(tmp_path: Path) -> None:
    source = (REGISTRIES / "click_server.py").read_text(encoding="utf-8")
    newer = source.replace('default="main", show_default=True', 'default="stable"')
    assert newer != source
    (tmp_path / "compat").mkdir()
    (tmp_path / "click_server.py").write_text(source, encoding="utf-8")
    result = run_cli_in_subprocess(
        "snapshot",
        "--static",
        "--registry",
        "click_server:serve",
        "-o",
        "compat/base.json",
        cwd=tmp_path,
    )
    assert result.code == 0, result.err
    (tmp_path / "click_server.py").write_text(newer, encoding="utf-8")
    (tmp_path / "argmatrix.yaml").write_text(
        "registry:\n  target: click_server:serve\n  mode: static\npages: []\n"
        "checks:\n  compatibility:\n    baseline: compat/base.json\n",
        encoding="utf-8",
    )
    result = run_cli_in_subprocess("check", "--format", "json", cwd=tmp_path)
    assert result.code == 1, result.err
    [finding] = json.loads(result.out)
    assert (finding["kind"], finding["flag"]) == ("changed-default", "--revision")
    assert Path(finding["file"]).name == "click_server.py"
    assert finding["line"] == line_of(tmp_path / "click_server.py", '"--revision"')
