"""Static reading of a registry built as RTP-LLM builds its own: the project's ArgumentParser
subclass and its group wrapper run as written (a metavar injected from the type, `env_name=`
swallowed and recorded from the outermost call), the parser captured where the builder parses
its command line, enum defaults read from the `.pyi` stub of a compiled module that is not built.

Every expectation is the live read of the same target: the fixture (tests/fixtures/registries/
rtp_like) is copied with a pure-Python stand-in for its compiled module (members shaped as
pybind11 writes them), imported live, and compared with the static read, which never sees that
module (only its stub). RTP-LLM's own source is compared with its live read in
test_live_rtp.py."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Opaque, Registry, Unevaluated
from helpers import (
    REGISTRIES,
    Link,
    Outcome,
    read_hostile,
    read_hostile_tree,
    run_cli_in_process,
    stopped,
    unevaluated,
)

TARGET = "rtp_like.args:setup_args"

# What the compiled module is at run time, for the live read only (static reading reads the
# stub beside `rtp_like/ops/__init__.py` and never this folder): pybind11's enums are no
# enum.Enum, their class maps names to members in `__members__`.
NATIVE = """
class _NativeEnum:
    def __init__(self, name, value):
        self._name, self._value = name, value

    @property
    def name(self):
        return self._name

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name}: {self._value}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name}"


class CacheMode(_NativeEnum):
    pass


CacheMode.DISABLED = CacheMode("DISABLED", 0)
CacheMode.PAGED = CacheMode("PAGED", 1)
CacheMode.__members__ = {"DISABLED": CacheMode.DISABLED, "PAGED": CacheMode.PAGED}


class RoleType(_NativeEnum):
    pass


RoleType.PDFUSION = RoleType("PDFUSION", 0)
RoleType.PREFILL = RoleType("PREFILL", 1)
RoleType.__members__ = {"PDFUSION": RoleType.PDFUSION, "PREFILL": RoleType.PREFILL}


class KernelLimits:
    MAX_TOKENS = 4096
"""


def _forget_fixture() -> None:
    for name in [n for n in sys.modules if n.split(".")[0] in ("rtp_like", "_rtp_like_native")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("rtp_like")
    shutil.copytree(REGISTRIES / "rtp_like", folder / "rtp_like")
    libs = folder / "rtp_like" / "ops" / "libs"
    libs.mkdir()
    (libs / "_rtp_like_native.py").write_text(NATIVE, encoding="utf-8")
    saved = list(sys.path)
    yield folder
    sys.path[:] = saved  # the fixture appends its libs folder, as RTP-LLM does
    _forget_fixture()


@pytest.fixture(scope="module")
def live(project: Path) -> Registry:
    try:
        return load_registry(RegistrySpec(TARGET, base_dir=project))
    finally:
        _forget_fixture()


@pytest.fixture(scope="module")
def static(project: Path) -> Registry:
    found = load_registry(RegistrySpec(TARGET, mode="static", base_dir=project))
    assert not [n for n in sys.modules if n.split(".")[0] == "rtp_like"]
    return found


def test_static_reads_what_the_builder_parses_with(live: Registry, static: Registry) -> None:
    assert [a.flags for a in static.arguments] == [a.flags for a in live.arguments]
    assert len(static.arguments) == 9
    assert static.sections == live.sections == ("Server", "Cache")
    assert static.description == live.description


def test_static_equals_live_but_for_what_only_the_compiled_module_knows(
    live: Registry, static: Registry
) -> None:
    for mine, theirs in zip(static.arguments, live.arguments, strict=True):
        if mine.flags == ("--max_tokens",):  # a constant the stub declares without a value
            assert mine.default == Unevaluated("KernelLimits.MAX_TOKENS")
            assert theirs.default == 4096
            mine = mine.__class__(**{**vars(mine), "default": theirs.default})
        assert mine == theirs, mine.flags


def test_a_filler_handed_the_project_parser_class(project: Path, static: Registry) -> None:
    """`parser_class` in static mode: the class read from source, made as live mode makes it."""
    settings = {"parser_class": "rtp_like.args:EnvArgumentParser"}
    filler = "rtp_like.groups:init_all_group_args"
    try:
        live = load_registry(
            RegistrySpec(
                filler, base_dir=project, args=({"call": "rtp_like.args:Configs"},), **settings
            )
        )
    finally:
        _forget_fixture()
    found = load_registry(RegistrySpec(filler, mode="static", base_dir=project, **settings))
    assert found.arguments == static.arguments
    for mine, theirs in zip(found.arguments, live.arguments, strict=True):
        if mine.flags == ("--max_tokens",):  # as above: the stub declares no value
            assert theirs.default == 4096
            continue
        assert mine == theirs, mine.flags


def test_the_wrapper_runs_as_written(live: Registry, static: Registry) -> None:
    metavars = {a.flags[0]: a.metavar for a in static.arguments}
    assert metavars == {a.flags[0]: a.metavar for a in live.arguments}
    assert metavars["--port"] == "INT" and metavars["--host"] == "STR"
    assert metavars["--debug"] == "BOOL"  # bool before int: bool is a subclass of int
    assert metavars["--warm_up"] is None  # a converter function is no class
    assert metavars["--config_json"] == "JSON"  # given: never replaced


def test_swallowed_keywords_come_from_the_outermost_call(static: Registry) -> None:
    by_flag = static.by_flag()
    assert by_flag["--port"].extra == {"env_name": "START_PORT", "bind_to": "server.port"}
    assert by_flag["--host"].extra == {"env_name": "HOST"}  # bind_to=None is no keyword given
    assert all(a.extra.get("env_name") for a in static.arguments)


def test_enum_members_from_the_stub(live: Registry, static: Registry) -> None:
    by_flag = static.by_flag()
    assert by_flag["--cache_mode"].default == Opaque("CacheMode.PAGED")
    assert by_flag["--cache_mode"].default == live.by_flag()["--cache_mode"].default
    assert by_flag["--role_type"].default == "PDFUSION"  # `RoleType.PDFUSION.name`


def test_computed_json_default_and_a_converter_made_by_a_factory(static: Registry) -> None:
    config = static.by_flag()["--config_json"]
    assert config.default == (
        '{"client":{"max_message":1024},"server":{"max_message":2048,"pollers":4}}'
    )
    assert config.type == "converter"


def test_diagnostics_are_located_where_the_argument_is_written(static: Registry) -> None:
    assert [(Path(d.file).name, d.message.split(":")[0]) for d in static.diagnostics] == [
        ("groups.py", "--max_tokens")
    ]


def test_the_override_of_parse_args_is_never_run(project: Path) -> None:
    # It would read the environment and log; static reading captures the parser before it.
    result = run_cli_in_process("export", "--static", "--registry", TARGET, cwd=project)
    assert result.code == 0, result.err
    assert "parsing" not in result.out + result.err


def test_a_stub_function_is_never_run(tmp_path: Path) -> None:
    package = tmp_path / "stubbed"
    (package / "ops").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "ops" / "__init__.py").write_text(
        "from _native import limit, LIMIT\n", encoding="utf-8"
    )
    (package / "ops" / "_native.pyi").write_text(
        "def limit() -> int: ...\nLIMIT: int = ...\n", encoding="utf-8"
    )
    (package / "cli.py").write_text(
        "import argparse\nfrom stubbed.ops import limit, LIMIT\n\n"
        "def build(parser: argparse.ArgumentParser) -> None:\n"
        "    parser.add_argument('--limit', type=int, default=limit())\n"
        "    parser.add_argument('--cap', type=int, default=LIMIT)\n",
        encoding="utf-8",
    )
    found = load_registry(RegistrySpec("stubbed.cli:build", mode="static", base_dir=tmp_path))
    by_flag = found.by_flag()
    assert by_flag["--limit"].default == Unevaluated("limit()")
    assert by_flag["--cap"].default == Unevaluated("_native.LIMIT")


# ------------------------------------------------------------------ hostile variants

WRAPPED = """
import argparse
import json


class Parser(argparse.ArgumentParser):
    def add_argument_group(self, *args, **kwargs):
        return Group(super().add_argument_group(*args, **kwargs), self)


class Group:
    def __init__(self, group, parser):
        self._group = group
        self._parser = parser

    def add_argument(self, *args, env_name=None, **kwargs):
        {wrapper}
        return self._group.add_argument(*args, **kwargs)


def build():
    parser = Parser(prog="hostile")
    group = parser.add_argument_group("G")
    {body}
    parser.parse_args()
"""


def hostile(tmp_path: Path, body: str, wrapper: str = "pass") -> Outcome:
    return read_hostile(tmp_path, WRAPPED.format(body=body, wrapper=wrapper))


def test_a_wrapper_that_calls_itself_stops_at_the_call_depth(tmp_path: Path) -> None:
    outcome = hostile(tmp_path, "group.add_argument('--x')", "self.add_argument(*args, **kwargs)")
    stopped(outcome, "budget exceeded")


def test_a_wrapper_that_grows_its_object_stops_at_the_size_budget(tmp_path: Path) -> None:
    wrapper = (
        "self.log = [0] * 1000\n        while True:\n            self.log = self.log + self.log"
    )
    stopped(hostile(tmp_path, "group.add_argument('--x')", wrapper), "budget exceeded")


def test_json_nested_beyond_the_budget_is_kept_as_source_text(tmp_path: Path) -> None:
    body = "group.add_argument('--x', default=json.loads('[' * 200000 + ']' * 200000))"
    outcome = hostile(tmp_path, body)
    assert outcome.export.code == 0, outcome.export.err
    assert unevaluated(outcome, "--x", "default").startswith("json.loads(")


def test_json_written_beyond_the_budget_stops(tmp_path: Path) -> None:
    body = "rows = [[1] * 1000] * 1000\n    group.add_argument('--x', default=json.dumps(rows))"
    stopped(hostile(tmp_path, body), "budget exceeded")


def test_a_stub_value_beyond_any_enum_is_not_read(tmp_path: Path) -> None:
    stub = (
        "import typing\nclass Mode:\n    __members__: typing.ClassVar[dict]\n"
        "    BIG: typing.ClassVar[Mode]  # value = <Mode.BIG: " + "9" * 5000 + ">\n"
    )
    files: dict[str, str | Link] = {
        "hostile_registry.py": "import argparse\nfrom _native import Mode\n\n"
        "def build():\n    parser = argparse.ArgumentParser(prog='hostile')\n"
        "    parser.add_argument('--mode', default=Mode.BIG.value)\n    return parser\n",
        "_native.pyi": stub,
    }
    outcome = read_hostile_tree(tmp_path, files, "hostile_registry:build")
    assert outcome.export.code == 0, outcome.export.err
    assert unevaluated(outcome, "--mode", "default") == "Mode.BIG"
