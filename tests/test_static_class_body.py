"""Static reading of a command line built in class bodies, as lmdeploy 0.18.0 builds its own:
`class CLI: parser = Parser(...); parser.add_argument(...); subparsers = parser.add_subparsers()`,
static methods adding subcommands through `CLI.subparsers`, another module's class body adding a
subcommand with sub-subcommands, an entry point that adds them all and parses.

A class body that builds a parser is run once per read: `CLI.parser` is the same parser at every
read. The fixture registry (tests/fixtures/registries/class_body_cli/) is read statically and
imported live; both must give the same model. Hostile class bodies stop within the budget, at
their line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.loaders.load import Mode, RegistrySpec, load_registry
from argmatrix.model.registry import Registry, Unevaluated, registry_to_dict
from helpers import REGISTRIES, line_of, read_hostile, run_cli_in_process, stopped

TARGET = "class_body_cli.entrypoint:run"
FIXTURE = REGISTRIES / "class_body_cli"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture package; the next static read must not find it."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "class_body_cli"]:
        del sys.modules[name]


def read(mode: Mode, *subcommand: str) -> Registry:
    return load_registry(
        RegistrySpec(target=TARGET, mode=mode, base_dir=REGISTRIES, subcommand=subcommand)
    )


@pytest.mark.parametrize(
    "subcommand", [(), ("serve",), ("serve", "api_server"), ("lite", "auto_awq"), ("chat",)]
)
def test_static_equals_live(subcommand: tuple[str, ...]) -> None:
    """Everything: subcommands (in the order live reading gives them), arguments, defaults,
    choices, help, sections; no warning (`set_defaults(run=CLI.chat)` reaches no argument)."""
    static = read("static", *subcommand)
    assert "class_body_cli" not in sys.modules, "static reading imported the registry"
    assert static.diagnostics == ()
    assert registry_to_dict(static) == registry_to_dict(read("live", *subcommand))


def test_subcommands_come_in_the_order_importing_runs_the_class_bodies() -> None:
    """`lite` and `serve` are added by class bodies when the entry point's module imports
    them, before `run()` adds `check_env` and `chat`."""
    names = [s.name for s in read("static").subcommands]
    assert names == ["lite", "serve", "check_env", "chat"]
    serve = next(s for s in read("static").subcommands if s.name == "serve")
    assert [s.name for s in serve.registry.subcommands] == ["api_server", "proxy"]


def test_an_argument_appended_to_a_second_group_keeps_its_first_section() -> None:
    """`tb_group._group_actions.append(tp_act)`: argparse lists --tp under both titles in help;
    its section is the group it was added to."""
    by_flag = read("static", "serve", "api_server").by_flag()
    assert by_flag["--tp"].section == "PyTorch engine arguments"
    assert by_flag["--rope-scaling-factor"].section == "TurboMind engine arguments"
    assert by_flag["--speculative-algorithm"].section == "Speculative decoding arguments"
    assert by_flag["--backend"].choices == ("pytorch", "turbomind")


# ------------------------------------------------------------------ hostile class bodies

CLASS_HEAD = """\
import argparse
import os


class CLI:
    parser = argparse.ArgumentParser(prog="hostile")
    parser.add_argument("--last")
"""
BUILD = """

def build():
    CLI.parser.add_argument("--after")
    return CLI.parser
"""


def hostile_class(body: str) -> str:
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    return CLASS_HEAD + indented + BUILD


def stopped_at(tmp_path: Path, source: str, marker: str, which: str) -> None:
    """Stopped at the statement of the class body (or the loop around it)."""
    line = stopped(read_hostile(tmp_path, source), which)
    found = 1 + next(i for i, text in enumerate(source.splitlines()) if marker in text)
    assert any(f"hostile_registry.py:{n}:" in line for n in (found, found - 1)), line


@pytest.mark.hostile  # a budget stopping a runaway read: slow by design
@pytest.mark.usefixtures("static_canary_environment")
@pytest.mark.parametrize(
    ("body", "marker"),
    [
        ("while True:\n    pass", "pass"),
        ("while True:\n    parser.add_argument_group('g')", "add_argument_group"),
        ("n = 0\nwhile True:\n    n = n + 1", "n = n + 1"),
    ],
    ids=["empty loop", "parser calls in a loop", "counting"],
)
def test_a_class_body_that_loops_forever_stops(tmp_path: Path, body: str, marker: str) -> None:
    stopped_at(tmp_path, hostile_class(body), marker, "budget exceeded")


@pytest.mark.hostile  # a budget stopping a runaway read: slow by design
@pytest.mark.usefixtures("static_canary_environment")
@pytest.mark.parametrize(
    ("body", "marker"),
    [
        ("items = [0]\nwhile True:\n    items = items + items", "items = items + items"),
        ("text = 'x' * 10**10", "text = 'x'"),
        ("parser.add_argument('--big', default=[0] * 10**9)", "--big"),
    ],
    ids=["doubling a list", "a huge string", "a huge default"],
)
def test_a_class_body_that_builds_huge_values_stops(tmp_path: Path, body: str, marker: str) -> None:
    stopped_at(tmp_path, hostile_class(body), marker, "static reading stopped")


@pytest.mark.hostile  # a budget stopping a runaway read: slow by design
@pytest.mark.usefixtures("static_canary_environment")
def test_many_class_bodies_share_one_budget(tmp_path: Path) -> None:
    classes = "".join(
        f"\n\nclass C{i}:\n    parser = CLI.subparsers.add_parser('c{i}')\n"
        f"    for n in range(10**6):\n        parser.add_argument(f'--a{{n}}')\n"
        for i in range(50)
    )
    source = (
        CLASS_HEAD
        + "    subparsers = parser.add_subparsers()\n"
        + classes
        + "\n\ndef build():\n    return C49.parser\n"
    )
    stopped(read_hostile(tmp_path, source), "static reading stopped")


@pytest.mark.usefixtures("static_canary_environment")
def test_a_class_body_that_reads_its_own_class_is_not_followed_in_circles(
    tmp_path: Path,
) -> None:
    """Live, `CLI` is not bound yet in its own body (a NameError); static reading keeps the
    value as source text, and two classes that read each other end too."""
    source = hostile_class("parser.add_argument('--self', default=CLI.parser)") + (
        "\n\nclass A:\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--a', default=B.parser)\n"
        "\n\nclass B:\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--b', default=A.parser)\n"
        "\n\ndef build_both():\n    return A.parser\n"
    )
    outcome = read_hostile(tmp_path, source)
    assert outcome.export.code == 0, outcome.export.err
    assert outcome.argument("--self")["default"] == {"unevaluated": "CLI.parser"}
    assert [a["flags"] for a in outcome.registry["arguments"]][-2:] == [["--self"], ["--after"]]


@pytest.mark.usefixtures("static_canary_environment")
def test_appending_what_is_no_argument_to_a_groups_private_list_is_said(tmp_path: Path) -> None:
    source = hostile_class(
        "group = parser.add_argument_group('g')\n"
        "other = parser.add_argument('--other')\n"
        "group._group_actions.append(other)\n"
        "group._group_actions.append('--other')"
    )
    outcome = read_hostile(tmp_path, source)
    assert outcome.export.code == 0, outcome.export.err
    warnings = "\n".join(outcome.warnings())
    assert "what is appended is no argument static reading made" in warnings
    # the first group that lists it (its parser's options) stays its section
    assert outcome.argument("--other")["section"] == "options"


def test_other_changes_to_a_groups_private_list_stop_the_read(tmp_path: Path) -> None:
    """`remove` of an argument from it is not followed: the read stops there, never a guess."""
    source = hostile_class(
        "group = parser.add_argument_group('g')\n"
        "other = parser.add_argument('--other')\n"
        "group._group_actions.append(other)\n"
        "group._group_actions.remove(other)"
    )
    outcome = read_hostile(tmp_path, source)
    assert outcome.export.code == 2
    assert "`group._group_actions.remove` is not" in outcome.export.err or (
        "`remove` of it is not" in outcome.export.err
    )


def test_a_subcommand_a_class_body_could_not_add_stops_the_read_at_that_statement(
    tmp_path: Path,
) -> None:
    """Never "it has no subcommands" when static reading only missed the statement adding it."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "cli.py").write_text(
        "import argparse\nfrom elsewhere import add_serve\n\n\nclass CLI:\n"
        "    parser = argparse.ArgumentParser()\n"
        "    subparsers = parser.add_subparsers()\n"
        "    add_serve(subparsers)\n\n\n"
        "def run():\n    CLI.parser.parse_args()\n"
    )
    (project / "argmatrix.yaml").write_text(
        "registry: {target: 'pkg.cli:run', mode: static, subcommand: [serve]}\n"
        "docs_dir: .\npages: []\n"
    )
    result = run_cli_in_process("export", cwd=project)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, lines
    where = f"cli.py:{line_of(project / 'pkg' / 'cli.py', 'add_serve(subparsers)')}:"
    assert where in lines[0] and "static reading stopped" in lines[0], lines[0]
    assert "has no subcommand 'serve'" in lines[0] and "no subcommands)" not in lines[0]


def test_a_class_without_parser_calls_is_still_read_value_by_value() -> None:
    """Dataclass field defaults and Enum members are not run as bodies (their reads are the
    same as before, and as fast): the declarative fixtures read as live does."""
    static = load_registry(
        RegistrySpec(
            target="declared_cli.dataclass_args:build_parser", mode="static", base_dir=REGISTRIES
        )
    )
    assert not any(isinstance(a.default, Unevaluated) for a in static.arguments)
