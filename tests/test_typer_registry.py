"""Typer registries (issue 22), read against two Typers: 0.29.2, which vendors its own Click
(`typer._click`, without Click's parameter types), and 0.9.4, which uses Click 8.1.8. Neither is
a dependency of argmatrix (0.29 needs pydantic, which other tests must not find): `make
typer-libs` installs each into .cache/, and every read here runs in a process of its own with
that folder on its path. Static equals live, both equal Typer's own view of the command
(`typer.main.get_command`, taken here in that process), and live reading runs no command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import REGISTRIES, REPO, run_cli_in_subprocess

TYPERS = {
    "0.29.2": REPO / ".cache" / "typer-0.29.2",
    "0.9.4": REPO / ".cache" / "typer-0.9.4",
}
TARGETS = (
    "typer_app_cli:app",
    "typer_app_cli:serve",  # a function the app registers
    "typer_app_cli:models",  # a sub-app
    "typer_app_cli:main",  # the app's callback: the group
    "typer_app_cli:__main__",
    "typer_run_cli:main",  # a function written for typer.run
    "typer_run_cli:__main__",
    # issue 31: several commands and no callback (a group), one of them, a sub-app named by its
    # own Typer(name=...), a function running the app, an app defined under `if`
    "typer_commands_cli:app",
    "typer_commands_cli:serve",
    "typer_commands_cli:prune_cache",
    "typer_commands_cli:tools",
    "typer_commands_cli:cli",
    "typer_commands_cli:__main__",
    "typer_guarded_cli:tp",
    "typer_guarded_cli:stop",
    # item 7: an option through a type alias of another module, a quoted and a nested
    # Annotated, a default_factory, a typer.Option object as a default, an imported callback,
    # a command registered by app.command()(stop)
    "typer_field.cli:app",
    "typer_field.cli:serve",
    "typer_field.cli:stop",
    "typer_unnamed_cli:app",  # a sub-app without a name: as each Typer reads it
)
# What each target is in Typer's own view: the expression of the command, and the path in it.
OWN = {
    "typer_app_cli:app": ("typer.main.get_command(m.app)", ()),
    "typer_app_cli:serve": ("typer.main.get_command(m.app)", ("serve",)),
    "typer_app_cli:models": ("typer.main.get_command(m.models)", ()),
    "typer_app_cli:main": ("typer.main.get_command(m.app)", ()),
    "typer_app_cli:__main__": ("typer.main.get_command(m.app)", ()),
    "typer_run_cli:main": ("_single(m.main)", ()),
    "typer_run_cli:__main__": ("_single(m.main)", ()),
    "typer_commands_cli:app": ("typer.main.get_command(m.app)", ()),
    "typer_commands_cli:serve": ("typer.main.get_command(m.app)", ("serve",)),
    "typer_commands_cli:prune_cache": ("typer.main.get_command(m.tools)", ("prune-cache",)),
    "typer_commands_cli:tools": ("typer.main.get_command(m.tools)", ()),
    "typer_commands_cli:cli": ("typer.main.get_command(m.app)", ()),
    "typer_commands_cli:__main__": ("typer.main.get_command(m.app)", ()),
    "typer_guarded_cli:tp": ("typer.main.get_command(m.tp)", ()),
    "typer_guarded_cli:stop": ("typer.main.get_command(m.tp)", ("stop",)),
    "typer_field.cli:app": ("typer.main.get_command(m.app)", ()),
    "typer_field.cli:serve": ("typer.main.get_command(m.app)", ("serve",)),
    "typer_field.cli:stop": ("typer.main.get_command(m.app)", ("stop",)),
    "typer_unnamed_cli:app": ("typer.main.get_command(m.app)", ()),
}

# Functions that run an app, and the app live reading names in its warning.
RUNS = {"typer_commands_cli:cli": "typer_commands_cli:app"}
# What each mode says of a module's commands, in both modes.
SEED = "--seed: default kept as source text: `random_seed()` (a callable"
WARNS = {"typer_field.cli:app": (SEED,), "typer_field.cli:serve": (SEED,)}

pytestmark = pytest.mark.live_env  # Typer in .cache (make typer-libs)


@pytest.fixture(params=sorted(TYPERS))
def typer_path(request: pytest.FixtureRequest) -> Path:
    folder = TYPERS[request.param]
    if not (folder / ".installed").is_file():
        pytest.fail(
            f"Typer {request.param} is not installed in {folder} (fix: run `make typer-libs`)",
            pytrace=False,
        )
    return folder


def environment(folder: Path, cwd: Path = REGISTRIES) -> dict[str, str]:
    """This process's environment with Typer's folder first on the path (the sources under
    test stay where PYTHONPATH already puts them)."""
    paths = [str(folder), str(cwd), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def export(target: str, folder: Path, static: bool, cwd: Path = REGISTRIES) -> dict[str, Any]:
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        target,
        *(["--static"] if static else []),
        cwd=cwd,
        env={**environment(folder, cwd), "ARGMATRIX_NO_CACHE": "1"},
    )
    assert result.code == 0, result.err
    said = list(WARNS.get(target, ()))
    runs = RUNS.get(target)
    if runs is not None and not static:  # live reading ran the function up to the command
        said.append(f"name {runs} as the registry target instead")
    lines = result.err.splitlines()
    assert len(lines) == len(said), lines
    for line, words in zip(lines, said, strict=True):
        assert words in line, line
    registry: dict[str, Any] = json.loads(result.out)["registry"]
    if said:  # the warnings above (at the parameter's line statically, its function's live)
        assert [d["message"] for d in registry.pop("diagnostics")] == [
            line.split(": ", 3)[-1].split(" (fix: ", 1)[0] for line in lines
        ]  # a warning line ends with the setting that answers it
    return registry


# Typer's own view, in Typer's process: every parameter of the command Typer builds, from the
# parameter object (Typer 0.29's have no Click type: their annotation says it).
VIEW = r"""
import enum, json, sys, typing
import typer, typer.main
import {module} as m

def _single(function):
    app = typer.Typer(add_completion=False)
    app.command()(function)
    return typer.main.get_command(app)

def plain(value):
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if callable(value):  # a default computed when the command runs: what computes it
        return {{"unevaluated": value.__name__ + "()"}}
    return value

def choices(param):
    kind = getattr(param, "type", None)
    if kind is not None:
        found = getattr(kind, "choices", None)
        return None if found is None else [plain(c) for c in found]
    found = param.type_descriptor.choices
    return None if found is None else [plain(c) for c in found]

def view(command):
    params = [
        p for p in command.params
        if p.expose_value and p.name not in ("install_completion", "show_completion", "help")
    ]
    return {{
        "help": command.help,
        "params": [
            {{
                "flags": list(p.opts) + list(p.secondary_opts) if p.param_type_name == "option" else [],
                "dest": p.name,
                "required": p.required,
                "repeatable": bool(p.multiple),
                "count": bool(getattr(p, "count", False)),
                "nargs": p.nargs,
                "default": plain(p.default),
                "envvar": p.envvar,
                "help": getattr(p, "help", None) or "",
                "hidden": bool(getattr(p, "hidden", False)),
                "section": getattr(p, "rich_help_panel", None) or "General",
                "choices": choices(p),
                "flag": bool(getattr(p, "is_flag", False)),
            }}
            for p in params
        ],
        "commands": {{name: view(sub) for name, sub in getattr(command, "commands", {{}}).items()}},
    }}

command = {expression}
for name in {path!r}:
    command = command.commands[name]
print(json.dumps(view(command)))
"""


def typer_view(target: str, folder: Path) -> dict[str, Any]:
    module = target.split(":")[0]
    expression, path = OWN[target]
    script = VIEW.format(module=module, expression=expression, path=path)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REGISTRIES,
        env=environment(folder),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    view: dict[str, Any] = json.loads(done.stdout)
    return view


def model_view(registry: dict[str, Any]) -> dict[str, Any]:
    """The model in the words of Typer's view (explicit environment variables only: the ones
    an auto_envvar_prefix derives are checked by name below)."""
    return {
        "help": registry["description"] or None,
        "params": [
            {
                "flags": a["flags"],
                "dest": a["dest"],
                "required": a["required"],
                "repeatable": a["action"] == "append",
                "count": a["action"] == "count",
                "nargs": {None: 1, "+": -1, "*": -1}.get(a["nargs"], a["nargs"]),
                "default": a["default"],
                "help": a["help"],
                "hidden": a["hidden"],
                "section": a["section"],
                "choices": a["choices"],
                "flag": a["action"] in ("store_true", "store_false", "boolean_optional"),
            }
            for a in registry["arguments"]
        ],
        "commands": {s["name"]: model_view(s["registry"]) for s in registry.get("subcommands", ())},
    }


def without_envvars(view: dict[str, Any]) -> dict[str, Any]:
    return {
        "help": view["help"],
        "params": [{k: v for k, v in p.items() if k != "envvar"} for p in view["params"]],
        "commands": {n: without_envvars(c) for n, c in view["commands"].items()},
    }


def without_argument_metavars(registry: dict[str, Any]) -> dict[str, Any]:
    """The registry with each argument's metavar left out (a positional's, where the Typer read
    writes it itself), its subcommands' too."""
    return {
        **registry,
        "arguments": [
            {**a, "metavar": None} if not a["flags"] else a for a in registry["arguments"]
        ],
        "subcommands": [
            {**sub, "registry": without_argument_metavars(sub["registry"])}
            for sub in registry.get("subcommands", ())
        ],
    }


@pytest.mark.parametrize("target", TARGETS)
def test_static_equals_live_equals_typers_own_view(target: str, typer_path: Path) -> None:
    """Static equals live; with Typer 0.29, but for how an argument is written in a usage
    (`{model}`: Typer's own, which a static read cannot know; Click's `MODEL` there)."""
    live = export(target, typer_path, static=False)
    static = export(target, typer_path, static=True)
    if typer_path == TYPERS["0.29.2"]:
        assert without_argument_metavars(static) == without_argument_metavars(live)
    else:
        assert static == live
    own = typer_view(target, typer_path)
    assert model_view(live) == without_envvars(own)


def test_the_app_in_the_models_words(typer_path: Path) -> None:
    registry = export("typer_app_cli:app", typer_path, static=True)
    assert [a["flags"] for a in registry["arguments"]] == [["--verbose", "-v"], ["--config"]]
    [serve, bench, models] = registry["subcommands"]
    assert (serve["name"], bench["name"], models["name"]) == ("serve", "bench", "models")
    serve_args = {(a["flags"] or [a["dest"]])[0]: a for a in serve["registry"]["arguments"]}
    assert serve["registry"]["sections"] == ["General", "Network", "Parallelism"]
    assert serve_args["--port"]["section"] == "Network"
    assert serve_args["--port"]["extra"]["range"] == "1<=x<=65535"
    assert serve_args["--device"]["choices"] == ["cpu", "cuda", "npu"]
    assert serve_args["--device"]["default"] == "cuda"
    assert serve_args["--served-name"]["action"] == "append"
    assert serve_args["--trust-remote-code"]["flags"] == [
        "--trust-remote-code",
        "--no-trust-remote-code",
    ]
    assert serve_args["--stream"]["action"] == "boolean_optional"
    assert serve_args["--host"]["extra"]["envvar"] == "LLMCTL_SERVE_HOST"  # auto prefix
    assert serve_args["--api-key"]["extra"]["envvar"] == "LLMCTL_API_KEY"
    assert serve_args["--api-key"]["hidden"] is True
    [pull] = [s for s in models["registry"]["subcommands"] if s["name"] == "pull"]
    names = pull["registry"]["arguments"][0]
    assert (names["dest"], names["nargs"], names["required"]) == ("names", "+", True)
    [cache] = [s for s in models["registry"]["subcommands"] if s["name"] == "cache"]
    assert cache["help"] == "The download cache."
    clear = cache["registry"]["subcommands"][0]["registry"]
    assert clear["arguments"][0]["extra"]["envvar"] == "LLMCTL_MODELS_CACHE_CLEAR_YES"


def test_several_commands_without_a_callback_make_a_group(typer_path: Path) -> None:
    """`typer.main.get_command`: an app of two commands and no callback is a group of them; a
    sub-app takes the name of its own `Typer(name=...)`, a command its `name=`."""
    registry = export("typer_commands_cli:app", typer_path, static=True)
    assert [s["name"] for s in registry["subcommands"]] == ["serve", "bench-run", "tools", "store"]
    [tools] = [s for s in registry["subcommands"] if s["name"] == "tools"]
    assert [s["name"] for s in tools["registry"]["subcommands"]] == ["prune-cache", "check"]
    serve = export("typer_commands_cli:serve", typer_path, static=True)
    assert [a["flags"] or [a["dest"]] for a in serve["arguments"]] == [["model"], ["--port", "-p"]]


def test_typer_options_as_the_field_declares_them(typer_path: Path) -> None:
    registry = export("typer_field.cli:app", typer_path, static=True)
    assert [a["flags"] for a in registry["arguments"]] == [["--verbose", "-v"]]  # its callback
    serve = {
        (a["flags"] or [a["dest"]])[0]: a
        for a in registry["subcommands"][0]["registry"]["arguments"]
    }
    assert list(serve) == ["model", "--port", "--host", "--workers", "--seed"]
    assert serve["model"]["help"] == "The model to serve."  # a quoted Annotated
    assert (serve["--port"]["flags"], serve["--port"]["extra"]["envvar"]) == (
        ["--port", "-p"],
        "FIELD_PORT",
    )
    assert (serve["--host"]["default"], serve["--host"]["help"]) == (
        "127.0.0.1",
        "Address to listen on.",
    )
    assert serve["--workers"]["extra"]["range"] == "x>=1"  # Annotated inside Annotated
    assert serve["--seed"]["default"] == {"unevaluated": "random_seed()"}
    assert registry["subcommands"][1]["name"] == "stop"


def test_live_reading_runs_no_command(typer_path: Path, tmp_path: Path) -> None:
    for name in (
        "typer_app_cli.py",
        "typer_run_cli.py",
        "typer_commands_cli.py",
        "typer_guarded_cli.py",
        "typer_unnamed_cli.py",
    ):
        (tmp_path / name).write_bytes((REGISTRIES / name).read_bytes())
    shutil.copytree(REGISTRIES / "typer_field", tmp_path / "typer_field")
    for target in TARGETS:
        export(target, typer_path, static=False, cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".txt") == []


def test_an_app_without_commands_is_one_line(typer_path: Path, tmp_path: Path) -> None:
    (tmp_path / "empty_app.py").write_text("import typer\n\napp = typer.Typer()\n", "utf-8")
    for static in (False, True):
        result = run_cli_in_subprocess(
            "export",
            "--registry",
            "empty_app:app",
            *(["--static"] if static else []),
            cwd=tmp_path,
            env=environment(typer_path, tmp_path),
        )
        assert result.code == 2, result.err
        [line] = result.err.splitlines()
        assert "empty_app:app is a Typer app with no command" in line
        assert "Traceback" not in result.err


# Each command's usage as the Click command Typer builds prints it (`get_usage`, without its
# `Usage: `), by the command's path under the target, in Typer's process.
USAGES = r"""
import json, typer, typer.main
import {module} as m

def _single(function):
    app = typer.Typer(add_completion=False)
    app.command()(function)
    return typer.main.get_command(app)

def usages(command, context, path):
    yield " ".join(path), command.get_usage(context)[len("Usage: "):]
    for name, sub in getattr(command, "commands", {{}}).items():
        child = sub.make_context(name, [], parent=context, resilient_parsing=True)
        yield from usages(sub, child, path + [name])

command = {expression}
print(json.dumps(dict(usages(command, command.make_context("prog", [], resilient_parsing=True), []))))
"""
APPS = [target for target, (_, path) in OWN.items() if not path and "__main__" not in target]


def model_usages(registry: dict[str, Any]) -> dict[str, str]:
    """Each command's usage on the pages, by its path, the program named `prog`."""
    from argmatrix.model.registry import registry_from_dict
    from argmatrix.model.usage import usage_parts

    found: dict[str, str] = {}

    def walk(model: Any, path: list[str]) -> None:
        found[" ".join(path)] = " ".join(usage_parts(model, " ".join(["prog", *path])))
        for command in model.subcommands:
            walk(command.registry, [*path, command.name])

    walk(registry_from_dict(registry), [])
    return found


@pytest.mark.parametrize("target", APPS)
def test_a_typer_commands_usage_is_the_one_click_prints(target: str) -> None:
    """The usage synopsis of every command of a Typer app, read live and statically, is what
    Click's `get_usage` prints for the command Typer 0.9.4 builds (Typer 0.29, which vendors
    its own Click, writes arguments its own way: `{model}`, `[name]...`)."""
    folder = TYPERS["0.9.4"]
    if not (folder / ".installed").is_file():
        pytest.fail(f"Typer 0.9.4 is not installed in {folder} (fix: run `make typer-libs`)")
    expression, _ = OWN[target]
    script = USAGES.format(module=target.split(":")[0], expression=expression)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REGISTRIES,
        env=environment(folder),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    own: dict[str, str] = json.loads(done.stdout)
    for static in (False, True):
        usages = model_usages(export(target, folder, static=static))
        assert usages == {path: own[path] for path in usages}, static
        assert all(usage.startswith("prog") for usage in usages.values())


def own_usages(folder: Path, target: str) -> dict[str, str]:
    """Each command's usage as the Typer installed in `folder` prints it, by its path."""
    if not (folder / ".installed").is_file():
        pytest.fail(f"Typer is not installed in {folder} (fix: run `make typer-libs`)")
    expression = OWN.get(target, ("typer.main.get_command(m.app)", ()))[0]
    script = USAGES.format(module=target.split(":")[0], expression=expression)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REGISTRIES,
        env=environment(folder),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, str] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize(
    "target", ["typer_app_cli:app", "typer_commands_cli:app", "typer_usage_cli:app"]
)
def test_a_typer_that_writes_its_own_usage_has_it_on_the_pages(target: str) -> None:
    """Typer 0.29, which carries its own Click, writes a command's arguments itself:
    `{model} [revision]`, `{SRC} [targets]...`, `{files}...`. Read live with it, every
    command's usage on the pages is the one it prints, token by token. A static read cannot
    know which Typer is installed: it gives Click's usage (`MODEL [REVISION]`), what Typer 0.9
    prints (docs/guide/configuration.md)."""
    new = own_usages(TYPERS["0.29.2"], target)
    old = own_usages(TYPERS["0.9.4"], target)
    assert any("{" in usage for usage in new.values()), new  # its own style is there
    live = model_usages(export(target, TYPERS["0.29.2"], static=False))
    assert {path: usage.split() for path, usage in live.items()} == {
        path: new[path].split() for path in live
    }
    static = model_usages(export(target, TYPERS["0.29.2"], static=True))
    assert static == {path: old[path] for path in static}


GATE = r"""
import json, os, sys
from pathlib import Path
from argmatrix.checks.compatibility import command_line_breaks
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import registry_from_dict, registry_to_dict

read = []
for folder in sys.argv[1:]:
    os.chdir(folder)
    registry = load_registry(RegistrySpec("server:app", MODE, base_dir=Path(folder)))
    read.append(registry_from_dict(registry_to_dict(registry)))  # the old one as a baseline is
print(json.dumps([[b.kind, b.name] for b in command_line_breaks(*read)]))
"""


@pytest.mark.parametrize("mode", ["live", "static"])
def test_the_gate_holds_typers_range_and_switches(
    typer_path: Path, tmp_path: Path, mode: str
) -> None:
    """Item 10 with Typer itself: `max=` narrowed and a switch now taking a value break a
    command line, `str` -> `Path` does not; read live (Typer builds the command) and
    statically, each Typer's way."""
    app = (
        "import pathlib\n\nimport typer\n\napp = typer.Typer()\n\n\n@app.command()\n"
        "def serve(\n    workers: int = typer.Option(1, min=1, max={high}),\n"
        "    stream: {stream} = typer.Option({flag}, '--stream'),\n    out: {out} = typer.Option('x'),\n"
        ") -> None:\n    open('ran.txt', 'w').write('ran')\n"
    )
    folders = []
    for name, high, stream, flag, out in (
        ("old", 64, "bool", "False", "str"),
        ("new", 8, "int", "0", "pathlib.Path"),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "server.py").write_text(
            app.format(high=high, stream=stream, flag=flag, out=out), encoding="utf-8"
        )
        folders.append(str(folder))
    done = subprocess.run(
        [sys.executable, "-c", GATE.replace("MODE", repr(mode)), *folders],
        env={**environment(typer_path, tmp_path), "ARGMATRIX_NO_CACHE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(map(tuple, json.loads(done.stdout))) == [
        ("rejected-value", "--stream"),
        ("rejected-value", "--workers"),
    ]
    assert not list(tmp_path.glob("*/ran.txt"))
