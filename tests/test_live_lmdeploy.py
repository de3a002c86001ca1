"""lmdeploy 0.18.0's `lmdeploy serve api_server`, read live from `lmdeploy.cli.entrypoint:run`
(which builds the whole command line in class bodies and parses it: no function returns the
parser) with `mock: auto` for its GPU stack. `make lmdeploy-cli` installs its sources alone
(`--no-deps`) into .cache/; a test installs nothing.

The oracle is argparse itself: the same entry point, run in another process with
`serve api_server --help` on its command line, prints its help; every flag, group title and help
text of the model must be in it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry, Unevaluated, registry_to_dict
from helpers import REPO

LMDEPLOY = REPO / ".cache" / "lmdeploy-0.18.0"
TARGET = "lmdeploy.cli.entrypoint:run"

pytestmark = pytest.mark.live_env  # lmdeploy's sources in .cache (make lmdeploy-cli)


@pytest.fixture(scope="module")
def lmdeploy_dir() -> Path:
    if not (LMDEPLOY / ".installed").is_file():
        pytest.fail(
            f"lmdeploy 0.18.0 is not installed in {LMDEPLOY} (fix: run `make lmdeploy-cli`)",
            pytrace=False,
        )
    return LMDEPLOY


@pytest.fixture(scope="module")
def registry(lmdeploy_dir: Path) -> Registry:
    spec = RegistrySpec(
        target=TARGET, base_dir=lmdeploy_dir, auto_mock=True, subcommand=("serve", "api_server")
    )
    try:
        return load_registry(spec)
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == "lmdeploy"]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def argparse_help(lmdeploy_dir: Path) -> str:
    """What argparse prints for `lmdeploy serve api_server --help`, in a process of its own."""
    program = textwrap.dedent(
        f"""
        import sys
        from argmatrix.loaders.live.mocking import stand_ins
        sys.path.insert(0, {str(lmdeploy_dir)!r})
        with stand_ins((), auto=True, owners=["lmdeploy"]):
            sys.argv = ["lmdeploy", "serve", "api_server", "--help"]
            from lmdeploy.cli.entrypoint import run
            run()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def words(text: str) -> str:
    return " ".join(text.split())


def test_every_argument_of_serve_api_server(registry: Registry, argparse_help: str) -> None:
    assert registry.source == f"{TARGET} serve api_server"
    assert len(registry.arguments) == 78
    help_flags = set(re.findall(r"^\s{2,}(-[-\w]+)", argparse_help, re.MULTILINE))
    help_flags |= set(re.findall(r"^\s{2,}-[-\w]+ .*?, (--[-\w]+)", argparse_help, re.MULTILINE))
    model_flags = {flag for a in registry.arguments for flag in a.flags}
    assert model_flags == help_flags - {"-h", "--help"}
    positionals = [a for a in registry.arguments if not a.flags]
    assert [a.dest for a in positionals] == ["model_path"]


def test_sections_are_the_argument_groups(registry: Registry, argparse_help: str) -> None:
    titles = re.findall(r"^(\S[^\n]*):$", argparse_help, re.MULTILINE)
    assert set(registry.sections) == {t for t in titles if not t.startswith("usage")}
    assert len([s for s in registry.sections if s not in ("options", "positional arguments")]) == 4


def test_help_texts_are_argparses(registry: Registry, argparse_help: str) -> None:
    # without any whitespace: argparse wraps the help, and breaks a long URL across lines
    printed = "".join(argparse_help.split())
    for argument in registry.arguments:
        if isinstance(argument.help, Unevaluated):
            continue
        assert "".join(argument.help.split()) in printed, argument.flags


def test_text_from_stand_ins_is_unresolved_and_named(registry: Registry) -> None:
    unresolved = {a.flags[0] for a in registry.arguments if isinstance(a.help, Unevaluated)}
    assert unresolved == {"--tool-call-parser", "--reasoning-parser"}
    assert sorted(d.message.split(":")[0] for d in registry.diagnostics) == sorted(unresolved)
    assert all("mmengine" in d.message for d in registry.diagnostics)
    text = json.dumps(registry_to_dict(registry), ensure_ascii=False)
    assert "<stand-in" not in text and "\ue000" not in text


def test_choices_and_defaults_are_lmdeploys(registry: Registry, argparse_help: str) -> None:
    by_flag = {a.flags[0]: a for a in registry.arguments if a.flags}
    for flag, argument in by_flag.items():
        if argument.choices and not isinstance(argument.choices, Unevaluated):
            shown = "{" + ",".join(str(c) for c in argument.choices) + "}"
            assert f"{flag} {shown}" in words(argparse_help), flag
    assert by_flag["--server-name"].default == "0.0.0.0"
    assert by_flag["--backend"].choices == ("pytorch", "turbomind")


# ------------------------------------------------------------------ static reading, the same

# What static reading keeps as source text, each with a warning naming it: the log levels
# lmdeploy adds to the logging module when it is imported, and the parser names of registries
# filled at import (live reading too keeps these two from its stand-ins as unresolved).
KEPT_AS_SOURCE = {
    ("--log-level", "choices"),
    ("--tool-call-parser", "help"),
    ("--reasoning-parser", "help"),
}


@pytest.fixture(scope="module")
def static_registry(lmdeploy_dir: Path) -> Registry:
    spec = RegistrySpec(
        target=TARGET,
        mode="static",
        search_path=(str(lmdeploy_dir),),
        subcommand=("serve", "api_server"),
    )
    registry = load_registry(spec)
    assert "lmdeploy" not in sys.modules, "static reading imported lmdeploy"
    return registry


def test_static_reading_equals_live_on_every_argument(
    static_registry: Registry, registry: Registry
) -> None:
    """`CLI.parser`, `CLI.subparsers` and `SubCliServe.subparsers` are made in class bodies:
    static reading runs each body once, so every method adds to the same parsers. All 78
    arguments are the live ones, field by field, sections and their order included; what it
    cannot compute is kept as source text and said, never guessed."""
    assert static_registry.source == registry.source
    assert len(static_registry.arguments) == 78
    assert static_registry.sections == registry.sections
    live = registry_to_dict(registry)["arguments"]
    static = registry_to_dict(static_registry)["arguments"]
    assert [a["dest"] for a in static] == [a["dest"] for a in live]
    kept = set()
    for read, expected in zip(static, live, strict=True):
        flag = (read["flags"] or [read["dest"]])[0]
        for field, value in expected.items():
            if read[field] != value:
                assert isinstance(read[field], dict) and set(read[field]) == {"unevaluated"}
                kept.add((flag, field))
    assert kept == KEPT_AS_SOURCE
    warned = {d.message.split(":")[0] for d in static_registry.diagnostics}
    assert warned == {flag for flag, _ in KEPT_AS_SOURCE}
    by_flag = static_registry.by_flag()
    assert by_flag["--tp"].section == "PyTorch engine arguments"  # also listed under TurboMind
    assert by_flag["--backend"].choices == ("pytorch", "turbomind")


def test_static_reading_of_the_whole_command_line(lmdeploy_dir: Path) -> None:
    """Subcommands in the order lmdeploy adds them: `lite` and `serve` by class bodies when
    the entry point's module imports them, `check_env` and `chat` by `run()`."""
    spec = RegistrySpec(target=TARGET, mode="static", search_path=(str(lmdeploy_dir),))
    registry = load_registry(spec)
    assert [s.name for s in registry.subcommands] == ["lite", "serve", "check_env", "chat"]
    serve = next(s for s in registry.subcommands if s.name == "serve")
    assert [s.name for s in serve.registry.subcommands] == ["api_server", "proxy"]
