"""RTP-LLM's server arguments read live from its source (../shared/real-registries, unpacked in a
temporary folder): `setup_args()` builds an `EnvArgumentParser`, fills it through
`init_all_group_args(parser, configs)` across 33 files, and parses the command line. Its compiled
module `rtp_llm.ops` is not built here (`mock: [rtp_llm.ops]`), the modules the subset leaves out
are stood in for (`mock: auto`), and a group wrapper swallows `env_name=` and `bind_to=`."""

from __future__ import annotations

import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Opaque, Registry, Unevaluated
from helpers import RTP_SOURCE, chdir

pytestmark = pytest.mark.real_rtp  # skipped, with its reason, where the source is absent

MODULE = "rtp_llm.server.server_args.server_args"
LIVE = {"auto_mock": True, "mock": ("rtp_llm.ops",)}


@pytest.fixture(scope="module")
def rtp_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("rtp")
    with tarfile.open(RTP_SOURCE) as archive:
        members = archive.getmembers()
        assert all(m.isfile() or m.isdir() for m in members)
        assert not [m.name for m in members if m.name.startswith("/") or ".." in m.name]
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, members=members, filter="data")
        else:
            archive.extractall(folder, members=members)
    with chdir(folder):  # a default is os.path.join(os.getcwd(), ...)
        yield folder


def read(folder: Path, target: str, **settings: Any) -> Registry:
    try:
        return load_registry(RegistrySpec(target=f"{MODULE}:{target}", base_dir=folder, **settings))
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == "rtp_llm"]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def from_setup_args(rtp_folder: Path) -> Registry:
    return read(rtp_folder, "setup_args", **LIVE)


@pytest.fixture(scope="module")
def from_filler(rtp_folder: Path) -> Registry:
    """The filler itself, handed the project's parser class and a configuration object."""
    return read(
        rtp_folder,
        "init_all_group_args",
        parser_class=f"{MODULE}:EnvArgumentParser",
        args=({"call": "rtp_llm.config.py_config_modules:PyEnvConfigs"},),
        **LIVE,
    )


def test_setup_args_is_read_where_it_parses(from_setup_args: Registry) -> None:
    assert len(from_setup_args.arguments) == 324
    assert len(from_setup_args.sections) == 35
    assert all(a.extra.get("env_name") for a in from_setup_args.arguments)


def test_the_group_wrapper_injects_metavars_from_types(from_setup_args: Registry) -> None:
    for argument in from_setup_args.arguments:
        expected = {"int": "INT", "str": "STR"}.get(str(argument.type))
        if expected is not None:
            assert argument.metavar == expected, argument.flags


def test_the_entry_point_and_the_filler_give_one_model(
    from_setup_args: Registry, from_filler: Registry
) -> None:
    assert from_setup_args.arguments == from_filler.arguments
    assert from_setup_args.sections == from_filler.sections


def test_values_of_the_compiled_module_are_unresolved(from_setup_args: Registry) -> None:
    by_flag = from_setup_args.by_flag()
    assert by_flag["--cp_rotate_method"].default == Unevaluated(
        "rtp_llm.ops.CPRotateMethod.DISABLED"
    )
    bind_to = by_flag["--rank_factor"].extra["bind_to"]
    assert isinstance(bind_to, Unevaluated) and "CacheStoreConfig()" in str(bind_to)
    messages = [d.message for d in from_setup_args.diagnostics]
    assert any(
        m.startswith("--cp_rotate_method: the default comes from a stand-in") for m in messages
    )
    assert any("other arguments: 'bind_to' comes from a stand-in" in m for m in messages)
    assert len(messages) < 10  # one line for a keyword on 200 arguments, not 200


@pytest.fixture(scope="module")
def static_setup_args(rtp_folder: Path) -> Registry:
    return read(rtp_folder, "setup_args", mode="static")


def _stood_in(value: object) -> bool:
    return isinstance(value, Unevaluated) and value.source.startswith("rtp_llm.ops.")


def test_static_equals_live_through_the_same_entry_point(
    from_setup_args: Registry, static_setup_args: Registry
) -> None:
    """Everything argparse holds (flags, dest, section, action, type, metavar, choices, nargs,
    help, env_name) is equal; a default differs only where live has a stand-in for the compiled
    module (static reads its `.pyi` stub: the member live names) or where static keeps
    `os.getcwd()` as source text; a `bind_to` differs only where static keeps it as source text
    (the configuration objects are not built)."""
    live, static = from_setup_args, static_setup_args
    assert static.sections == live.sections and static.description == live.description
    assert len(static.arguments) == len(live.arguments) == 324
    differing: dict[str, str] = {}
    for mine, theirs in zip(static.arguments, live.arguments, strict=True):
        flag = mine.flags[0]
        assert (mine.flags, mine.dest, mine.section) == (theirs.flags, theirs.dest, theirs.section)
        for field in ("action", "type", "metavar", "choices", "nargs", "help", "required"):
            assert getattr(mine, field) == getattr(theirs, field), (flag, field)
        assert mine.extra.get("env_name") == theirs.extra.get("env_name"), flag
        assert set(theirs.extra) <= set(mine.extra), flag
        for key in mine.extra:
            if mine.extra[key] != theirs.extra.get(key):
                assert key == "bind_to" and isinstance(mine.extra[key], Unevaluated), (flag, key)
        if mine.default == theirs.default:
            continue
        if _stood_in(theirs.default):
            assert isinstance(mine.default, Opaque), flag
            assert theirs.default.source.endswith("." + str(mine.default)), flag
            differing[flag] = "stub"
        else:
            assert isinstance(mine.default, Unevaluated), flag
            assert "os.getcwd()" in mine.default.source, flag
            differing[flag] = "cwd"
    stood_in = {a.flags[0] for a in live.arguments if _stood_in(a.default)}
    assert {f for f, why in differing.items() if why == "stub"} == stood_in
    assert list(differing.values()).count("cwd") == 1


def test_static_says_once_what_it_keeps_as_source_text_for_many(
    static_setup_args: Registry,
) -> None:
    kept = [
        a.flags[0]
        for a in static_setup_args.arguments
        if isinstance(a.extra.get("bind_to"), Unevaluated)
    ]
    messages = [d.message for d in static_setup_args.diagnostics]
    assert len(messages) < 10, messages  # one line for a keyword on 300 arguments, not 300
    said = [m for m in messages if "bind_to kept as source text" in m]
    assert len(said) == 1
    assert said[0].startswith(f"{kept[0]} and {len(kept) - 1} other arguments: ")


def test_metavars_come_from_the_group_wrapper_statically(static_setup_args: Registry) -> None:
    injected = [a for a in static_setup_args.arguments if a.metavar in ("INT", "STR", "BOOL")]
    assert len(injected) == sum(str(a.type) in ("int", "str", "bool") for a in injected) > 200


def test_the_filler_handed_the_project_parser_class_reads_the_same_statically(
    rtp_folder: Path, static_setup_args: Registry, from_filler: Registry
) -> None:
    """`parser_class` is read from source in static mode too: the filler alone gives what the
    entry point gives, and what the filler gives live."""
    filler = read(
        rtp_folder,
        "init_all_group_args",
        mode="static",
        parser_class=f"{MODULE}:EnvArgumentParser",
    )
    assert filler.arguments == static_setup_args.arguments
    assert filler.sections == static_setup_args.sections == from_filler.sections
    live_metavars = [a.metavar for a in from_filler.arguments]
    assert [a.metavar for a in filler.arguments] == live_metavars
