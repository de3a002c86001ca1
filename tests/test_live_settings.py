"""Live mode on registries as projects write them today: the project's own parser class, the
environment and command line it is built under, builders that parse instead of returning,
modules that are not there (`mock: auto`), registries that print, lazy help texts, wrappers that
swallow keywords. Each fixture in tests/fixtures/registries/ is written to need the setting."""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from argmatrix.config import load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.live.mocking import Stub, stand_ins
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry, Unevaluated
from helpers import REGISTRIES, one_error_line, run_cli_in_process, run_cli_in_subprocess


def live(target: str, base_dir: Path = REGISTRIES, **settings: Any) -> Registry:
    return load_registry(RegistrySpec(target=target, base_dir=base_dir, **settings))


def refusal(target: str, **settings: Any) -> str:
    with pytest.raises(ArgmatrixError) as caught:
        live(target, **settings)
    return str(caught.value)


def by_flag(registry: Registry) -> dict[str, Any]:
    return {a.flags[0] if a.flags else a.dest: a for a in registry.arguments}


# ------------------------------------------------------------------ parser_class


def test_a_filler_gets_the_parser_class_it_needs() -> None:
    plain = live("own_parser_cli:add_cli_args")
    own = live("own_parser_cli:add_cli_args", parser_class="own_parser_cli:DashParser")
    assert [a.flags for a in plain.arguments][:2] == [("--max_model_len",), ("--swap_space",)]
    assert [a.flags for a in own.arguments] == [
        ("--max-model-len", "--max_model_len"),
        ("--swap-space", "--swap_space"),
        ("--served-model-name",),
    ]
    assert by_flag(plain)["--swap_space"].help == ""
    assert by_flag(own)["--swap-space"].help == "Default: 4.0."


def test_a_parser_class_that_is_not_a_parser_is_refused() -> None:
    message = refusal("own_parser_cli:add_cli_args", parser_class="own_parser_cli:add_cli_args")
    assert "not a subclass of argparse.ArgumentParser" in message


def test_a_parser_class_for_a_builder_that_takes_no_parser_is_refused() -> None:
    message = refusal("lazy_help_cli:get_parser", parser_class="own_parser_cli:DashParser")
    assert "is given no parser" in message and "fix:" in message


# ------------------------------------------------------------------ builders that parse


def test_the_parser_is_captured_where_the_entry_point_parses() -> None:
    registry = live("parsing_cli:run")  # would raise SystemExit after parsing: never reached
    assert [s.name for s in registry.subcommands] == ["serve", "lite"]
    assert [a.flags for a in registry.arguments] == [("--log-level",)]


@pytest.mark.parametrize(
    "settings",
    [
        {"target": "parsing_cli:run", "subcommand": ("serve", "api_server")},
        {"target": "parsing_cli:run serve api_server"},  # the words after the target
    ],
)
def test_a_subcommand_path_leads_to_the_registry(settings: dict[str, Any], tmp_path: Path) -> None:
    config = tmp_path / "argmatrix.yaml"
    lines = [f"  target: {settings['target']}"]
    if "subcommand" in settings:
        lines.append(f"  subcommand: [{', '.join(settings['subcommand'])}]")
    config.write_text("registry:\n" + "\n".join(lines) + "\n", encoding="utf-8")
    spec = load_config(config, tmp_path).registry
    assert spec is not None
    assert (spec.target, spec.subcommand) == ("parsing_cli:run", ("serve", "api_server"))
    registry = live(spec.target, subcommand=spec.subcommand)
    assert registry.source == "parsing_cli:run serve api_server"
    assert [a.flags or (a.dest,) for a in registry.arguments] == [
        ("model_path",),
        ("--tp",),
        ("--server-port",),
    ]
    assert registry.sections == ("Model", "Server")


def test_an_unknown_subcommand_names_the_known_ones() -> None:
    message = refusal("parsing_cli:run", subcommand=("serve", "web"))
    assert "parsing_cli:run serve has no subcommand 'web'" in message
    assert "api_server, grpc" in message


def test_a_setup_function_that_parses_known_args_and_returns_a_config() -> None:
    registry = live("parsing_cli:setup_args")
    assert [a.flags for a in registry.arguments] == [("--workers",), ("--role",)]


def test_parsing_is_ours_again_after_loading() -> None:
    live("parsing_cli:run")
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=int)
    assert parser.parse_args(["--x", "3"]).x == 3


# ------------------------------------------------------------------ env and argv


def test_an_import_that_needs_an_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIXTURE_TARGET_DEVICE", raising=False)
    message = refusal("env_needed_cli:make_arg_parser")
    assert "FIXTURE_TARGET_DEVICE is not set" in message
    argv = list(sys.argv)
    registry = live(
        "env_needed_cli:make_arg_parser",
        env=(("FIXTURE_TARGET_DEVICE", "cpu"),),
        argv=("serve", "--help"),
    )
    device = by_flag(registry)["--device"]
    assert (device.default, device.help) == ("cpu", "The device to run on.")
    assert "FIXTURE_TARGET_DEVICE" not in os.environ and sys.argv == argv  # restored


def test_without_help_on_the_command_line_the_help_is_not_built() -> None:
    registry = live("env_needed_cli:make_arg_parser", env=(("FIXTURE_TARGET_DEVICE", "npu"),))
    assert (by_flag(registry)["--device"].default, by_flag(registry)["--device"].help) == (
        "npu",
        "",
    )


def test_static_reading_never_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_TARGET_DEVICE", "from-the-environment")
    spec = RegistrySpec(
        target="env_needed_cli:make_arg_parser",
        mode="static",
        base_dir=REGISTRIES,
        env=(("FIXTURE_TARGET_DEVICE", "from-the-setting"),),
    )
    try:
        registry = load_registry(spec)
    except ArgmatrixError as error:  # static reading may stop at the `raise`: fine, located
        assert "from-the" not in str(error)
        return
    assert "from-the" not in json.dumps([str(a.default) for a in registry.arguments])


# ------------------------------------------------------------------ output of the registry


def test_what_the_registry_prints_never_reaches_our_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    registry = live("noisy_cli:build_parser")
    assert by_flag(registry)["--volume"].default == 11
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    print("ours")  # our own output still works after
    assert capfd.readouterr().out == "ours\n"


def test_export_json_is_clean_when_the_registry_prints(tmp_path: Path) -> None:
    result = run_cli_in_subprocess(
        "export", "--registry", "noisy_cli:build_parser", "--manifest", "none.yaml", cwd=REGISTRIES
    )
    if result.code != 0:  # the manifest option is required by some commands: try without
        result = run_cli_in_subprocess(
            "export", "--registry", "noisy_cli:build_parser", cwd=REGISTRIES
        )
    assert result.code == 0, result.err
    data = json.loads(result.out)
    printed = ("stdout is not yours", "building the parser", "file descriptor", "a log line")
    assert not any(text in result.out for text in printed)
    assert data["registry"]["prog"] == "noisy"  # the parser's name, not what it printed
    assert data["registry"]["arguments"][0]["flags"] == ["--volume"]


def test_verbose_shows_what_the_registry_printed_on_stderr() -> None:
    result = run_cli_in_subprocess(
        "export", "--registry", "noisy_cli:build_parser", "--verbose", cwd=REGISTRIES
    )
    assert result.code == 0, result.err
    json.loads(result.out)
    assert "stdout is not yours" in result.err
    assert "written to file descriptor 1" in result.err


# ------------------------------------------------------------------ lazy text


def test_lazy_help_texts_and_titles_read_as_argparse_formats_them() -> None:
    registry = live("lazy_help_cli:get_parser")
    assert registry.description == "construit des choses"
    assert registry.sections == ("options générales",)
    assert by_flag(registry)["--jobs"].help == "tâches simultanées (défaut 1)"
    assert by_flag(registry)["--quiet"].help == "ne rien dire"
    assert registry.subcommands[0].help == "enlever ce qui a été construit"


def test_sphinx_build_help_and_group_titles_are_text() -> None:
    """sphinx-build's parser, read live, against argparse's own formatting of the same parser."""
    if importlib.util.find_spec("sphinx") is None:
        pytest.fail(
            "Sphinx is not installed: the `sphinx` extra has it (fix: run `make install`)",
            pytrace=False,
        )
    from sphinx.cmd import build

    registry = live("sphinx.cmd.build:get_parser", base_dir=Path.cwd())
    parser = build.get_parser()
    formatter = parser._get_formatter()
    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    assert [a.help for a in registry.arguments] == [
        "" if not a.help or a.help == argparse.SUPPRESS else formatter._expand_help(a)
        for a in actions
    ]
    assert all(isinstance(a.help, str) for a in registry.arguments)
    titles = [str(g.title) for g in parser._action_groups if g._group_actions]
    assert set(registry.sections) == set(titles)
    # what makes this a test of lazy text: sphinx hands argparse translation proxies
    assert any(type(g.title) is not str for g in parser._action_groups)
    assert sum(type(a.help) is not str for a in actions) > 20
    assert "general options" in registry.sections


# ------------------------------------------------------------------ missing modules


def test_a_missing_module_asks_for_a_mock() -> None:
    message = refusal("live_compiled.server_args:add_cli_args")
    assert "needs 'not_installed_gpu_lib', which is not installed" in message
    assert "--mock not_installed_gpu_lib" in message and "mock: auto" in message
    assert "error in the registry's own code" not in message
    assert "server_args.py:" in message  # where the registry imports it


def test_a_missing_compiled_submodule_asks_for_mock_auto() -> None:
    message = refusal("live_compiled.server_args:add_cli_args", mock=("not_installed_gpu_lib",))
    assert "'live_compiled.ops.kernels' is a submodule of the installed package" in message
    assert "mock: auto" in message


def test_a_submodule_named_in_mock_is_stood_in_for_though_its_package_is_installed() -> None:
    registry = live(
        "live_compiled.server_args:add_cli_args",
        mock=("not_installed_gpu_lib", "live_compiled.ops"),
    )
    assert by_flag(registry)["--device"].choices == ("cpu",)
    assert "live_compiled.ops" not in sys.modules  # the stand-in leaves with the load


def test_mock_auto_stands_in_honestly() -> None:
    registry = live("live_compiled.server_args:add_cli_args", auto_mock=True)
    arguments = by_flag(registry)
    # hasattr(gpu, "npu") and find_spec("not_installed_npu_lib") see no NPU
    assert arguments["--device"].choices == ("cpu",)
    # a stand-in as a base class (shared by both subclasses) and as annotations
    assert arguments["--sampler"].default == "Sampler"
    assert arguments["--strict"].help == (
        "Tensor check False; hints ['dtype', 'weights']; shared base True."
    )
    # text built from a stand-in is unresolved and reported, never shown as the project's
    assert arguments["--sampler"].help == Unevaluated(
        "Sampler class; one of not_installed_gpu_lib.registry.module_dict.keys()."
    )
    assert isinstance(arguments["--kernel-config"].default, Unevaluated)
    messages = [d.message for d in registry.diagnostics]
    assert len(messages) == 2
    assert "--sampler: the help comes from a stand-in" in messages[0]
    assert "--kernel-config: the default comes from a stand-in" in messages[1]
    assert not [
        n
        for n in sys.modules
        if n.startswith(("not_installed_gpu_lib", "live_compiled.ops.kernels"))
    ]


def test_unresolved_values_are_named_on_stderr() -> None:
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "live_compiled.server_args:add_cli_args",
        "--mock",
        "auto",
        cwd=REGISTRIES,
    )
    assert result.code == 0, result.err
    assert "--sampler: the help comes from a stand-in" in result.err
    assert "\ue000" not in result.out and "<stand-in" not in result.out
    json.loads(result.out)


@pytest.mark.slow
def test_auto_among_the_mock_names_is_the_setting_from_any_front_end() -> None:
    spec = RegistrySpec(target="x:y", mock=("torch", "auto"))
    assert (spec.mock, spec.auto_mock) == (("torch",), True)
    registry = live("live_compiled.server_args:add_cli_args", mock=("auto",))
    assert by_flag(registry)["--device"].choices == ("cpu",)


def test_mock_auto_leaves_another_librarys_optional_import_alone() -> None:
    registry = live("uses_optional_cli:build_parser", auto_mock=True)
    assert by_flag(registry)["--fast-json"].default is False


def test_mock_auto_never_stands_in_for_the_target_itself() -> None:
    message = refusal("no_such_registry_module:build", auto_mock=True)
    assert "cannot import 'no_such_registry_module': no such module" in message


def test_a_compiled_module_that_cannot_load_is_stood_in_for(tmp_path: Path) -> None:
    package = tmp_path / "cuda_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (package / f"_C{suffix}").write_bytes(b"not a shared library")
    (package / "cli.py").write_text(
        "import argparse\nfrom cuda_pkg import _C\n\n"
        "def build():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--kernels', default='auto')\n    return p\n",
        encoding="utf-8",
    )
    message = refusal("cuda_pkg.cli:build", base_dir=tmp_path)
    assert "cannot be loaded here" in message and "mock: auto" in message
    sys.modules.pop("cuda_pkg", None)
    registry = live("cuda_pkg.cli:build", base_dir=tmp_path, auto_mock=True)
    assert by_flag(registry)["--kernels"].default == "auto"
    for name in [n for n in sys.modules if n.startswith("cuda_pkg")]:
        del sys.modules[name]


def test_stand_ins_have_what_the_code_names_and_nothing_else() -> None:
    with stand_ins((), auto=True, owners=[__name__.split(".", 1)[0]]):
        import not_installed_probe_lib as lib  # type: ignore[import-not-found]

        assert hasattr(lib, "npu") is False
        assert getattr(lib, "cuda", "absent") == "absent"
        assert isinstance(lib.nn.Module, Stub)  # named in the code: there
        assert isinstance(3, lib.Tensor) is False
        assert importlib.util.find_spec("not_installed_other_lib") is None
        base = lib.nn.Module

        class A(base):  # type: ignore[misc,valid-type]
            pass

        class B(lib.nn.Module):  # type: ignore[misc,name-defined]
            pass

        assert A.__mro__[1] is B.__mro__[1]
        assert "not_installed_probe_lib" in f"{lib.dtype}"

        class Cache(lib.LRUCache[str, int]):  # type: ignore[misc,name-defined]
            def __init__(self) -> None:
                super().__init__(1024, getsizeof=len)

        assert Cache[str, int] is Cache and isinstance(Cache(), Cache)  # parametrised, built
        assert "not_installed_probe_lib" in str("op_" + lib.schema())  # still a stand-in's text
    assert "not_installed_probe_lib" not in sys.modules


# ------------------------------------------------------------------ wrappers


def test_keywords_a_group_wrapper_swallows_are_recorded_from_the_outer_call() -> None:
    registry = live("wrapper_cli:setup_args")
    arguments = by_flag(registry)
    assert arguments["--port"].extra == {"env_name": "START_PORT"}
    assert arguments["--port"].metavar == "INT"  # what the wrapper injects, as argparse holds it
    assert arguments["--host"].extra == {"bind_to": "server.host", "env_name": "SERVER_HOST"}
    assert arguments["--workers"].extra == {}


def test_a_wrappers_positional_parameters_are_flags_not_keywords() -> None:
    registry = live("wrapper_cli:flag_first")
    assert by_flag(registry)["--threads"].extra == {"env_name": "THREADS", "unit": "cores"}
    assert by_flag(registry)["--quiet"].extra == {}


def test_a_parser_subclass_keyword_is_still_recorded() -> None:
    registry = live("env_cli:make_parser")
    assert by_flag(registry)["--queue-url"].extra == {"env_name": "WORKER_QUEUE_URL"}


# ------------------------------------------------------------------ the settings, checked


BAD_SETTINGS = [
    ("parser_class: FlexibleArgumentParser", "'parser_class'", "module:Class"),
    ("parser_class: 3", "'parser_class'", "module:Class"),
    ("env: [A=1]", "'env' must map", "env: {VLLM_TARGET_DEVICE: cpu}"),
    ("env: {FLAG: true}", "'env' must map", "quote true/false"),
    ("argv: --help", "'argv' must be a list", "argv: [serve, --help]"),
    ("argv: [{a: 1}]", "'argv' must be a list", "argv: [serve, --help]"),
    ("args: 7", "'args' must be a list", "args: [7, text]"),
    ("kwargs: [1, 2]", "'kwargs' must map", "kwargs:"),
    ("kwargs: {'not a name': 1}", "'kwargs' must map", "kwargs:"),
    ("subcommand: {serve: 1}", "'subcommand' must be a list", "subcommand: [serve, api_server]"),
    ("mock: yes", "'mock' must be a list of module names, or 'auto'", "mock: auto"),
]


@pytest.mark.parametrize(("line", "message", "fix"), BAD_SETTINGS)
def test_a_bad_setting_is_one_located_error(
    line: str, message: str, fix: str, tmp_path: Path
) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        f"registry:\n  target: env_cli:make_parser\n  {line}\n", encoding="utf-8"
    )
    result = run_cli_in_process("export", cwd=tmp_path)
    one_error_line(result, "argmatrix.yaml:3:", message, fix)


def test_subcommands_named_twice_are_refused(tmp_path: Path) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        "registry:\n  target: parsing_cli:run serve\n  subcommand: [serve]\n", encoding="utf-8"
    )
    result = run_cli_in_process("export", cwd=tmp_path)
    one_error_line(result, "argmatrix.yaml:3:", "named both", "name them in one place")


def test_the_settings_reach_the_loader(tmp_path: Path) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        "registry:\n"
        "  target: env_needed_cli:make_arg_parser\n"
        "  mock: auto\n"
        "  env: {FIXTURE_TARGET_DEVICE: cpu, WORKERS: 4}\n"
        "  argv: [serve, --help]\n"
        "  args: [1]\n"
        "  kwargs: {configs: {call: 'pkg.mod:Configs'}}\n",
        encoding="utf-8",
    )
    spec = load_config(tmp_path / "argmatrix.yaml", tmp_path).registry
    assert spec is not None
    assert spec.auto_mock and spec.mock == ()
    assert spec.env == (("FIXTURE_TARGET_DEVICE", "cpu"), ("WORKERS", "4"))
    assert spec.argv == ("serve", "--help")
    assert spec.args == (1,) and spec.kwargs == (("configs", {"call": "pkg.mod:Configs"}),)
    assert type(spec.kwargs[0][1]) is dict  # plain data, not the YAML reader's mapping


@pytest.mark.slow
def test_the_command_line_options_reach_the_loader() -> None:
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "env_needed_cli:make_arg_parser",
        "--env",
        "FIXTURE_TARGET_DEVICE=xpu",
        "--argv",
        "serve --help",
        cwd=REGISTRIES,
    )
    assert result.code == 0, result.err
    device = json.loads(result.out)["registry"]["arguments"][0]
    assert (device["default"], device["help"]) == ("xpu", "The device to run on.")
    own = run_cli_in_subprocess(
        "export",
        "--registry",
        "own_parser_cli:add_cli_args",
        "--parser-class",
        "own_parser_cli:DashParser",
        cwd=REGISTRIES,
    )
    assert json.loads(own.out)["registry"]["arguments"][0]["flags"] == [
        "--max-model-len",
        "--max_model_len",
    ]
    sub = run_cli_in_subprocess(
        "export",
        "--registry",
        "parsing_cli:run",
        "--subcommand",
        "serve",
        "--subcommand",
        "grpc",
        cwd=REGISTRIES,
    )
    assert json.loads(sub.out)["registry"]["arguments"][0]["flags"] == ["--grpc-port"]


def test_a_bad_env_option_is_a_usage_error() -> None:
    result = run_cli_in_process("export", "--registry", "env_cli:make_parser", "--env", "NOVALUE")
    assert result.code == 2 and "NAME=VALUE" in result.err


def test_a_call_argparse_refuses_is_located_in_the_registry(tmp_path: Path) -> None:
    (tmp_path / "unknown_keyword.py").write_text(
        "import argparse\n\ndef build():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--x', unit='s')\n    return p\n",
        encoding="utf-8",
    )
    message = refusal("unknown_keyword:build", base_dir=tmp_path)
    assert "unknown_keyword.py:5:" in message and "unexpected keyword argument 'unit'" in message
    sys.modules.pop("unknown_keyword", None)


def test_a_builder_argument_made_by_a_call(tmp_path: Path) -> None:
    (tmp_path / "two_params.py").write_text(
        "import argparse\n\nclass Configs:\n    port = 8000\n\n"
        "def init_all(parser, configs, *, prefix='--'):\n"
        "    parser.add_argument(prefix + 'port', default=configs.port)\n",
        encoding="utf-8",
    )
    registry = live(
        "two_params:init_all",
        base_dir=tmp_path,
        args=({"call": "two_params:Configs"},),
        kwargs=(("prefix", "--server-"),),
    )
    assert by_flag(registry)["--server-port"].default == 8000
    sys.modules.pop("two_params", None)
