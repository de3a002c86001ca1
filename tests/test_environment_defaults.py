"""Defaults read from environment variables are facts of the source: "d, or `$X` when set".

Static reading states them for every form a server writes (`tests/fixtures/registries/
env_defaults_cli.py`); live reading states the same for the plain forms, recognised in the source
line the argument was added on, and never writes the value its own environment gives (an API key
on a page). Every format writes the fact, `%(default)s` in a help says it, the Environment
variable column names the variable, and nothing is warned about.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from argmatrix.loaders.snapshot import SNAPSHOT_VERSION, read_snapshot, snapshot_text
from argmatrix.model.registry import FromEnvironment, Registry, registry_to_dict
from e2e.tables import argument_tables
from helpers import REGISTRIES, flag_of, load, run_cli_in_process, tables

TARGET = "env_defaults_cli:add_cli_args"
LAUNCHER = "env_defaults_cli:with_launcher_flags"  # adds a custom action naming APP_<DEST>
VARIABLES = (
    "MYSRV_PORT",
    "MYSRV_API_KEY",
    "MYSRV_HOST",
    "MYSRV_LOG_LEVEL",
    "MYSRV_MEM_FRACTION",
    "MYSRV_NAME",
    "APP_WORKERS",
    "MYSRV_TOKEN",
)
# Each flag's default, one per form.
FACTS = {
    "--port": FromEnvironment("MYSRV_PORT", 8000),  # int(...) of a module constant
    "--api-key": FromEnvironment("MYSRV_API_KEY"),  # os.environ.get("X")
    "--token": FromEnvironment("MYSRV_TOKEN"),  # os.getenv("X")
    "--host": FromEnvironment("MYSRV_HOST", "127.0.0.1"),  # os.getenv("X", d)
    "--log-level": FromEnvironment("MYSRV_LOG_LEVEL", "info"),  # a constant of os.getenv
    "--model-dir": FromEnvironment("MYSRV_MODEL_DIR", required=True),  # environ["X"]
    "--mem-fraction": FromEnvironment("MYSRV_MEM_FRACTION", 0.9),  # float(getenv(...))
    "--served-name": FromEnvironment("MYSRV_NAME", "default"),  # environ.get("X") or d
}
WORKERS = FromEnvironment("APP_WORKERS", 4)  # os.environ.get(f"APP_{dest.upper()}", default)
# How a Markdown page (and MyST, and the MDX page with its own code elements) says each.
CELLS = {
    "--port": "`8000`, or `$MYSRV_PORT` when set",
    "--api-key": "unset, or `$MYSRV_API_KEY`",
    "--token": "unset, or `$MYSRV_TOKEN`",
    "--host": "`127.0.0.1`, or `$MYSRV_HOST` when set",
    "--log-level": "`info`, or `$MYSRV_LOG_LEVEL` when set",
    "--model-dir": "`$MYSRV_MODEL_DIR` (must be set)",
    "--mem-fraction": "`0.9`, or `$MYSRV_MEM_FRACTION` when set",
    "--served-name": "`default`, or `$MYSRV_NAME` when set",
    "--workers": "`4`, or `$APP_WORKERS` when set",
}


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The variables unset but the one the registry cannot be imported without."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MYSRV_MODEL_DIR", "/models")
    return monkeypatch


def defaults(registry: Registry) -> dict[str, Any]:
    return {a.name: a.default for a in registry.arguments}


def test_static_reading_states_each_form(environment: pytest.MonkeyPatch) -> None:
    registry = load(LAUNCHER, "static")
    assert defaults(registry) == {**FACTS, "--workers": WORKERS}
    assert registry.diagnostics == ()
    assert registry.by_flag()["--workers"].type == "int"  # passed on through **kwargs
    assert registry.by_flag()["--port"].help == "Port (default: 8000, or $MYSRV_PORT when set)."


def written_helps() -> dict[str, str]:
    """Each help of the fixture that says its default (`%(default)s`, `%(default)r`), as
    argparse itself holds it."""
    spec = importlib.util.spec_from_file_location("env_helps", REGISTRIES / "env_defaults_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with mock.patch.dict(os.environ, {"MYSRV_MODEL_DIR": "/models"}):  # read without fallback
        parser = module.with_launcher_flags(argparse.ArgumentParser())
    return {
        action.option_strings[0]: action.help
        for action in parser._actions
        if action.help and "%(default)" in action.help
    }


def said_helps() -> dict[str, str]:
    """What each of those helps says on a page: the help as argparse fills it, with the fact
    ("d, or $X when set") where argparse would put the value of its own environment."""
    facts = {**FACTS, "--workers": WORKERS}
    return {flag: help_ % {"default": facts[flag]} for flag, help_ in written_helps().items()}


def test_every_help_saying_its_default_says_the_fact(environment: pytest.MonkeyPatch) -> None:
    """`%(default)s` and `%(default)r` of each form (a lookup with or without a fallback,
    `os.getenv`, `environ[...]`, a conversion, `or`, a custom action), read statically and
    live (but for the custom action, whose lookup live reading cannot see)."""
    expected = said_helps()
    assert set(expected) == set(FACTS) - {"--log-level"} | {"--workers"}
    static = {a.name: a.help for a in load(LAUNCHER, "static").arguments}
    assert {flag: static[flag] for flag in expected} == expected
    live = {a.name: a.help for a in load(TARGET, "live").arguments}
    assert {flag: live[flag] for flag in expected if flag in live} == {
        flag: text for flag, text in expected.items() if flag != "--workers"
    }


HEADER = ["Argument", "Description", "Default", "Type / options", "Environment variable"]
Row = tuple[str, str, str]  # Description, Default, Environment variable, as a reader sees them


def rows(html: str) -> dict[str, Row]:
    """The one argument table of a page, by flag."""
    [table] = argument_tables(html)
    assert [cell.text for cell in table[0]] == HEADER
    return {
        flag_of(row[0].text).rstrip("¶"): (row[1].text, row[2].text, row[4].text)
        for row in table[1:]
    }


def expected() -> dict[str, Row]:
    """Each argument's row, from the facts: its Default says the fact as `%(default)s` does,
    its help says it too (the one help that names no default is empty), its column names the
    variable."""
    facts = {**FACTS, "--workers": WORKERS}
    helps = said_helps()
    return {flag: (helps.get(flag, ""), str(fact), fact.variable) for flag, fact in facts.items()}


def test_the_markdown_page_says_what_every_engine_says(
    tmp_path: Path, environment: pytest.MonkeyPatch
) -> None:
    """The rows of the Markdown page `generate` writes, as a reader sees them: those the engines
    give (`expected`, asserted of each engine's HTML)."""
    write_project(tmp_path, "environment: {prefix: MYSRV_}\n")
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    page = (tmp_path / "docs" / "reference" / "server.md").read_text(encoding="utf-8")
    [table] = tables(page)
    assert table.header == HEADER
    assert {flag_of(r[0]): (r[1], r[2], r[4]) for r in table.rows} == expected()


def test_the_python_markdown_extension_states_the_fact(
    tmp_path: Path, environment: pytest.MonkeyPatch
) -> None:
    """A table directive through the Python-Markdown extension (what Zensical runs), as
    `markdown.markdown` renders it; the engines' builds: test_environment_defaults_engines.py."""
    import markdown

    from argmatrix.integrations import markdown as extension_module
    from argmatrix.markdown import ArgmatrixExtension

    write_project(tmp_path, "environment: {prefix: MYSRV_}\n")
    extension_module._CACHE.clear()
    extension = ArgmatrixExtension(config_file=str(tmp_path / "argmatrix.yaml"))
    html = markdown.markdown(
        '<!-- argmatrix section="General" -->', extensions=["tables", extension]
    )
    assert rows(html) == expected()


def test_static_reading_never_reads_the_value(environment: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        environment.setenv(name, "from-the-environment")
    assert "from-the-environment" not in json.dumps(registry_to_dict(load(LAUNCHER, "static")))


@pytest.mark.parametrize("variables_set", [False, True])
def test_live_reading_states_the_same_facts(
    environment: pytest.MonkeyPatch, variables_set: bool
) -> None:
    """Whether or not the variables are set where argmatrix runs: never their values."""
    if variables_set:
        for name, value in [*(zip(VARIABLES, ("9000", "sk-secret", "0.0.0.0"), strict=False))]:
            environment.setenv(name, value)
    live = load(TARGET, "live")
    assert defaults(live) == FACTS
    assert "sk-secret" not in json.dumps(registry_to_dict(live))
    assert registry_to_dict(live) == registry_to_dict(load(TARGET, "static"))


def test_live_reading_keeps_what_it_cannot_see_in_the_call(
    environment: pytest.MonkeyPatch,
) -> None:
    """A custom action's `__init__` reads the variable: live reading gets the value of its own
    environment (the documented difference from static reading)."""
    environment.setenv("APP_WORKERS", "16")
    assert load(LAUNCHER, "live").by_flag()["--workers"].default == "16"
    assert load(LAUNCHER, "static").by_flag()["--workers"].default == WORKERS


def test_a_variable_the_configuration_sets_keeps_its_value(
    environment: pytest.MonkeyPatch,
) -> None:
    from argmatrix.loaders.load import RegistrySpec, load_registry

    spec = RegistrySpec(
        target=TARGET, mode="live", base_dir=REGISTRIES, env=(("MYSRV_HOST", "10.0.0.1"),)
    )
    by_flag = load_registry(spec).by_flag()
    assert by_flag["--host"].default == "10.0.0.1"  # what the maintainer chose to show
    assert by_flag["--api-key"].default == FACTS["--api-key"]


def test_json_and_snapshots_keep_the_fact(tmp_path: Path, environment: pytest.MonkeyPatch) -> None:
    registry = load(TARGET, "static")
    exported = {a["flags"][0]: a["default"] for a in registry_to_dict(registry)["arguments"]}
    assert exported["--port"] == {"environment": {"variable": "MYSRV_PORT", "otherwise": 8000}}
    assert exported["--model-dir"] == {
        "environment": {"variable": "MYSRV_MODEL_DIR", "required": True}
    }
    path = tmp_path / "registry.json"
    path.write_text(snapshot_text(registry), encoding="utf-8")
    assert json.loads(path.read_text())["version"] == SNAPSHOT_VERSION == 2
    assert defaults(read_snapshot(path)) == FACTS


def test_a_version_1_snapshot_still_reads(tmp_path: Path) -> None:
    data = {
        "format": "argmatrix-snapshot",
        "version": 1,
        "registry": {
            "source": "m:f",
            "sections": ["General"],
            "arguments": [{"flags": ["--a"], "dest": "a", "default": {"unevaluated": "x()"}}],
        },
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert str(read_snapshot(path).by_flag()["--a"].default) == "x()"


def write_project(root: Path, environment: str = "") -> None:
    (root / ".git").mkdir(parents=True)
    (root / "env_defaults_cli.py").write_text((REGISTRIES / "env_defaults_cli.py").read_text())
    (root / "argmatrix.yaml").write_text(
        "registry:\n"
        f"  target: {LAUNCHER}\n"
        "  mode: static\n"
        "docs_dir: docs\n"
        f"{environment}"
        "pages:\n"
        "  - {template: server_arguments.md.j2, output: reference/server.md}\n"
        "  - {template: server_arguments.md.j2, output: reference/server.myst.md, format: myst}\n"
        "  - {template: server_arguments.mdx.j2, output: reference/server.mdx}\n",
        encoding="utf-8",
    )


def row(page: str, flag: str) -> str:
    return next(line for line in page.splitlines() if line.startswith(f"| `{flag}`"))


def test_every_format_states_the_fact_and_nothing_is_warned(
    tmp_path: Path, environment: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path)
    generated = run_cli_in_process("generate", cwd=tmp_path)
    assert generated.code == 0 and generated.err == "", generated.err
    checked = run_cli_in_process("check", cwd=tmp_path)
    assert checked.code == 0 and checked.err == "", checked.err
    docs = tmp_path / "docs" / "reference"
    markdown = (docs / "server.md").read_text(encoding="utf-8")
    myst = (docs / "server.myst.md").read_text(encoding="utf-8")
    mdx = (docs / "server.mdx").read_text(encoding="utf-8")
    for flag, cell in CELLS.items():
        assert f" | {cell} | " in row(markdown, flag), flag
        assert f" | {cell} | " in row(myst, flag), flag
        code = re.sub(r"`([^`]*)`", r"<code>\1</code>", cell).replace("$", "\\$")
        assert f"<td>{code}</td>" in mdx, (flag, code)
    assert "Port (default: 8000, or $MYSRV_PORT when set)." in row(markdown, "--port")
    assert "Environment variable" not in markdown  # no column unless the project asks for one


def test_the_environment_column_names_the_variable(
    tmp_path: Path, environment: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, "environment: {prefix: MYSRV_}\n")
    assert run_cli_in_process("generate", cwd=tmp_path).code == 0
    page = (tmp_path / "docs" / "reference" / "server.md").read_text(encoding="utf-8")
    assert row(page, "--workers").endswith(
        "| `APP_WORKERS` |"
    )  # the variable read, not the prefix's
    assert row(page, "--served-name").endswith("| `MYSRV_NAME` |")


def test_a_lookup_no_page_can_state_stays_source_text(
    tmp_path: Path, environment: pytest.MonkeyPatch
) -> None:
    """Inside a list, or as a help: only the running program knows; said, as any such value."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "odd.py").write_text(
        "import argparse, os\n"
        "def build():\n"
        "    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--a", default=[os.environ.get("A")])\n'
        '    p.add_argument("--b", help=os.getenv("B_HELP", "text"))\n'
        '    p.add_argument("--c", default=os.environ.get("C", "x").lower())\n'
        "    return p\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("export", "--registry", "odd:build", "--static", cwd=tmp_path)
    assert result.code == 0
    arguments = {a["flags"][0]: a for a in json.loads(result.out)["registry"]["arguments"]}
    assert arguments["--a"]["default"] == [{"unevaluated": "os.environ.get('A')"}]
    assert arguments["--b"]["help"] == {"unevaluated": "os.environ.get('B_HELP', 'text')"}
    assert arguments["--c"]["default"] == {"unevaluated": 'os.environ.get("C", "x").lower()'}
    said = [line.split(": ")[3].split(":")[0] for line in result.err.splitlines()]
    assert said == ["--a", "--b", "--c"], result.err


@pytest.mark.parametrize(
    ("cell", "agrees"),
    [("`8000`", True), ("$MYSRV_PORT, else 8000", True), ("`9000`", False), ("None", False)],
)
def test_a_hand_written_page_says_it_by_the_fallback_or_the_variable(
    cell: str, agrees: bool
) -> None:
    """`audit`'s rule 7: the value when the variable is unset, or the variable named."""
    from argmatrix.adoption.page_defaults import default_agrees
    from argmatrix.model.registry import Argument

    argument = Argument(flags=("--port",), dest="port", default=FACTS["--port"])
    assert default_agrees(cell, argument) is agrees


NUMERIC_HELPS = """\
import argparse
import os


def add_cli_args(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--port", type=int, default=int(os.environ.get("NUM_PORT", "8000")),
        help="Port %(default)d.",
    )
    parser.add_argument(
        "--ratio", type=float, default=float(os.getenv("NUM_RATIO", "0.5")),
        help="Ratio [%(default)6.2f], or %(default)s.",
    )
    parser.add_argument("--seed", type=int, default=os.getenv("NUM_SEED"), help="Seed %(default)d.")
    parser.add_argument("--name", default=os.getenv("NUM_NAME", "x"), help="Name %(default)d.")
    return parser
"""


def test_a_numeric_placeholder_says_the_fallback_in_its_format_and_the_variable(
    tmp_path: Path,
) -> None:
    """`%(default)d`, `%(default)6.2f` of a default read from the environment: the fallback as
    the help formats it, then the variable; with no fallback, as `%(default)s` says it; a text
    fallback `%d` cannot format (argparse would fail) stays the placeholder it was."""
    (tmp_path / "numeric_helps.py").write_text(NUMERIC_HELPS)
    registry = load("numeric_helps:add_cli_args", "static", base_dir=tmp_path)
    helps = {a.name: a.help for a in registry.arguments}
    facts = {a.name: a.default for a in registry.arguments}
    placeholder = re.compile(r"%\(default\)[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")

    def said(help_: str, fact: FromEnvironment) -> str:
        def one(match: re.Match[str]) -> str:
            if match.group(0).endswith("s") or fact.otherwise is None:
                return str(fact)
            return f"{match.group(0) % {'default': fact.otherwise}}, or ${fact.variable} when set"

        return placeholder.sub(one, help_)

    assert helps["--port"] == said("Port %(default)d.", facts["--port"])
    assert helps["--ratio"] == said("Ratio [%(default)6.2f], or %(default)s.", facts["--ratio"])
    assert helps["--seed"] == said("Seed %(default)d.", facts["--seed"])
    assert helps["--name"] == "Name %(default)d."
    assert "%(default)" not in helps["--port"] + helps["--ratio"] + helps["--seed"]
