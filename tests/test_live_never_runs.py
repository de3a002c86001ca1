"""Live reading never runs a command (issue 31, item 9): it stops at every way a Click command is
parsed or run (`cli()`, `main`, `make_context`, `parse_args`, `Command.invoke`, `Context.invoke`,
`Context.forward`, a Typer app called), and at argparse's parse, before any body, callback or
server; and a stop the target's own `except:` would swallow, or a parse in a thread, still ends
the read there (the read runs in a process of its own, which ends at the stop).

Every fixture writes a canary file in each place that must never run: the test finds none."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.live import process
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry
from helpers import chdir, line_of, one_error_line, run_cli_in_subprocess

# A Click command whose body, callback and every place after its parse write a canary.
SERVE = """\
import click

def ran(what):
    open(f"ran-{what}.txt", "w").write(what)

def on_port(ctx, param, value):
    ran("callback")
    return value

@click.command()
@click.option("--port", type=int, default=8000, callback=on_port, help="Port to bind.")
@click.option("--host", default="127.0.0.1")
def serve(port, host):
    ran("body")
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


def read_live(folder: Path, target: str) -> Registry:
    with chdir(folder):
        return load_registry(RegistrySpec(target, "live", base_dir=folder))


def canaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("ran-*.txt"))


def serve_flags(registry: Registry) -> list[str]:
    return [a.name for a in registry.arguments]


# ------------------------------------------------------------------ every way Click parses

RUNNERS = {
    "call": "serve()",
    "main": "serve.main(args=[], standalone_mode=False)",
    "make_context": (
        'with serve.make_context("serve", ["--port", "1"]) as ctx:\n        serve.invoke(ctx)'
    ),
    "parse_args": "ctx = click.Context(serve)\n    serve.parse_args(ctx, [])\n    serve.invoke(ctx)",
    "command_invoke": "serve.invoke(click.Context(serve))",
    "context_invoke": "click.Context(serve).invoke(serve.callback, port=1, host='h')",
    "context_invoke_command": "click.Context(serve).invoke(serve, port=1)",
    "context_forward": "click.Context(serve).forward(serve)",
    "testing_runner": (
        "from click.testing import CliRunner\n    CliRunner().invoke(serve, [], catch_exceptions=False)"
    ),
}


@pytest.mark.parametrize("way", sorted(RUNNERS))
def test_a_function_running_a_click_command_is_stopped_before_it_runs(
    way: str, tmp_path: Path
) -> None:
    write(
        tmp_path,
        "runs",
        SERVE + f"\n\ndef main():\n    {RUNNERS[way]}\n    ran('after')\n",
    )
    registry = read_live(tmp_path, "runs:main")
    assert serve_flags(registry) == ["--port", "--host"]
    assert canaries(tmp_path) == []


# ------------------------------------------------------------------ stops the target cannot swallow

SWALLOWING = {
    "bare_except": "try:\n        serve()\n    except:\n        ran('handler')\n    ran('after')",
    "base_exception": (
        "try:\n        serve()\n    except BaseException:\n        ran('handler')\n    ran('after')"
    ),
    "finally": "try:\n        serve()\n    finally:\n        ran('finally')",
    "loop": (
        "for _ in range(3):\n        try:\n            serve()\n"
        "        except BaseException:\n            continue\n    ran('after')"
    ),
    "thread": (
        "import threading\n    thread = threading.Thread(target=serve)\n"
        "    thread.start()\n    thread.join()\n    ran('after')"
    ),
    "context_manager": (
        "import contextlib\n    with contextlib.suppress(BaseException):\n        serve()\n"
        "    ran('after')"
    ),
}


@pytest.mark.parametrize("shape", sorted(SWALLOWING))
@pytest.mark.parametrize("target", ["main", "__main__"])
def test_a_stop_the_target_would_swallow_still_ends_the_read(
    shape: str, target: str, tmp_path: Path
) -> None:
    body = SWALLOWING[shape]
    if target == "main":
        source = SERVE + f"\n\ndef main():\n    {body}\n"
    else:
        source = (
            SERVE + f"\n\ndef main():\n    {body}\n\n\nif __name__ == '__main__':\n    main()\n"
        )
    write(tmp_path, "swallows", source)
    registry = read_live(tmp_path, f"swallows:{target}")
    assert serve_flags(registry) == ["--port", "--host"]
    assert canaries(tmp_path) == []


ARGPARSE_SCRIPT = """\
import argparse

def ran(what):
    open(f"ran-{what}.txt", "w").write(what)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    try:
        args = parser.parse_args()
    except:
        ran("handler")
    ran("after")
"""


def test_an_argparse_script_swallowing_the_stop_runs_nothing_after_its_parse(
    tmp_path: Path,
) -> None:
    write(tmp_path, "worker", ARGPARSE_SCRIPT)
    registry = read_live(tmp_path, "worker:__main__")
    assert [a.name for a in registry.arguments] == ["--workers"]
    assert canaries(tmp_path) == []


def test_a_command_class_of_the_project_is_stopped_before_its_own_main(tmp_path: Path) -> None:
    """A subclass whose `main` starts the server without calling Click's is stopped at the
    call, which Click's own `__call__` makes."""
    write(
        tmp_path,
        "own_class",
        SERVE.replace("@click.command()", "@click.command(cls=Serving)").replace(
            "@click.command(cls=Serving)",
            "class Serving(click.Command):\n    def main(self, *a, **k):\n"
            "        ran('own-main')\n\n\n@click.command(cls=Serving)",
        )
        + "\n\ndef main():\n    serve()\n",
    )
    registry = read_live(tmp_path, "own_class:main")
    assert serve_flags(registry) == ["--port", "--host"]
    assert canaries(tmp_path) == []


# ------------------------------------------------------------------ Typer


TYPER_APP = """\
import typer

app = typer.Typer()

def ran(what):
    open(f"ran-{what}.txt", "w").write(what)

@app.command()
def serve(port: int = typer.Option(8000, help="Port to bind.")):
    ran("body")

@app.command()
def stop():
    ran("stop")

def cli():
    app()
    ran("after")
"""


@pytest.mark.live_env  # Typer in .cache (make typer-libs)
@pytest.mark.parametrize("version", ["0.29.2", "0.9.4"])
def test_a_function_running_a_typer_app_is_read_as_that_app_with_a_warning(
    version: str, tmp_path: Path
) -> None:
    from test_typer_registry import TYPERS, environment

    write(tmp_path, "typer_runner", TYPER_APP)
    env = {**environment(TYPERS[version], tmp_path), "ARGMATRIX_NO_CACHE": "1"}
    result = run_cli_in_subprocess(
        "export", "--registry", "typer_runner:cli", cwd=tmp_path, env=env
    )
    assert result.code == 0, result.err
    assert '"serve"' in result.out and '"stop"' in result.out
    [warning] = result.err.splitlines()
    line = line_of(tmp_path / "typer_runner.py", "    app()")
    assert f"typer_runner.py:{line}: typer_runner:cli runs the Typer app here" in warning
    assert "name typer_runner:app as the registry target instead" in warning
    assert canaries(tmp_path) == []


def test_a_console_script_doing_work_first_is_warned_about(tmp_path: Path) -> None:
    """What a `main()` does before running its command runs in live mode; the warning says
    so, and names the command object to document instead."""
    write(
        tmp_path,
        "console",
        SERVE + "\n\ndef main():\n    ran('update-check')\n    serve(auto_envvar_prefix='APP')\n",
    )
    with chdir(tmp_path):
        registry = load_registry(RegistrySpec("console:main", "live", base_dir=tmp_path))
    assert registry.by_flag()["--port"].extra["envvar"] == "APP_PORT"
    assert canaries(tmp_path) == ["ran-update-check.txt"]  # before the parse: it ran, and
    [said] = registry.diagnostics  # is said
    assert (said.file, said.line) == (
        str(tmp_path / "console.py"),
        line_of(tmp_path / "console.py", "    serve(auto_envvar_prefix"),
    )
    assert "console:main runs the Click command 'serve' here" in said.message
    assert "name console:serve as the registry target instead" in said.message


def test_naming_the_command_itself_says_nothing(tmp_path: Path) -> None:
    write(tmp_path, "console", SERVE)
    registry = read_live(tmp_path, "console:serve")
    assert registry.diagnostics == ()
    assert canaries(tmp_path) == []


# ------------------------------------------------------------------ Click's own help option


def test_an_option_whose_callback_is_named_show_help_is_the_projects_own(tmp_path: Path) -> None:
    write(
        tmp_path,
        "own_help",
        "import click\n\n"
        "def show_help(ctx, param, value):\n    return value\n\n"
        "@click.command()\n"
        "@click.help_option('--assist')\n"
        "@click.option('--topics', is_flag=True, callback=show_help, help='List the topics.')\n"
        "def serve(topics):\n    pass\n",
    )
    for mode in ("live", "static"):
        with chdir(tmp_path):
            registry = load_registry(RegistrySpec("own_help:serve", mode, base_dir=tmp_path))
        assert [a.name for a in registry.arguments] == ["--topics"], mode


# ------------------------------------------------------------------ a command run at import


def test_a_module_running_its_command_when_imported_is_stopped_there(tmp_path: Path) -> None:
    source = SERVE + "\nserve()\nran('after')\n"
    write(tmp_path, "at_import", source)
    result = run_cli_in_subprocess("export", "--registry", "at_import:serve", cwd=tmp_path)
    line = source.splitlines().index("serve()") + 1
    one_error_line(
        result,
        f"at_import.py:{line}:",
        "importing 'at_import' runs the Click command 'serve'",
        "at_import:__main__",
    )
    assert canaries(tmp_path) == []
    # As a script, that call is what the module runs: its command is the registry.
    assert serve_flags(read_live(tmp_path, "at_import:__main__")) == ["--port", "--host"]
    assert canaries(tmp_path) == []


# ------------------------------------------------------------------ the process of a read


def test_a_read_that_kills_its_process_is_one_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        "killer",
        "import os, signal\n\ndef build():\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    )
    result = run_cli_in_subprocess("export", "--registry", "killer:build", cwd=tmp_path)
    one_error_line(result, "live reading ended without a result: its process was killed by SIGKILL")


@pytest.fixture
def another_thread() -> Iterator[None]:
    """A thread running in this process, as a documentation server's: a fork is not safe."""
    done = threading.Event()
    thread = threading.Thread(target=done.wait)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def test_with_threads_running_the_read_is_started_afresh(
    tmp_path: Path, another_thread: None
) -> None:
    assert not process._can_fork()
    write(
        tmp_path,
        "swallows",
        SERVE + "\n\ndef main():\n    try:\n        serve()\n    except:\n        ran('x')\n",
    )
    registry = read_live(tmp_path, "swallows:main")
    assert serve_flags(registry) == ["--port", "--host"]
    assert canaries(tmp_path) == []
    write(tmp_path, "broken", "def build():\n    raise KeyError('region')\n")
    with pytest.raises(ArgmatrixError, match="raised KeyError: 'region'"):
        read_live(tmp_path, "broken:build")


def test_what_a_read_hands_over_is_the_model_only(tmp_path: Path) -> None:
    """A value of the project's own classes never crosses from the read's process: its model
    holds text for it."""
    write(
        tmp_path,
        "odd_default",
        "import argparse\n\nclass Odd:\n    def __repr__(self):\n        return 'Odd()'\n\n"
        "def build():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--x', default=Odd())\n    return parser\n",
    )
    registry = read_live(tmp_path, "odd_default:build")
    assert str(registry.by_flag()["--x"].default) == "Odd()"
    assert type(registry.by_flag()["--x"].default).__module__ == "argmatrix.model.registry"
