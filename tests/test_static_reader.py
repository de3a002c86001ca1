"""Static reading: the registry comes from source alone, and nothing is guessed."""

from __future__ import annotations

import sys

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.model import Unevaluated
from conftest import BROKEN, DEMO_SERVER, HEAVY_MODULE, PARITY_TARGETS, REGISTRIES, line_of, load


def imported_fixture_modules() -> list[str]:
    roots = {target.split(":")[0].split(".")[0] for target in PARITY_TARGETS} | {HEAVY_MODULE}
    return sorted(name for name in sys.modules if name.split(".")[0] in roots)


@pytest.mark.parametrize("target", sorted(PARITY_TARGETS))
def test_static_reading_imports_nothing_of_the_target(target: str) -> None:
    assert imported_fixture_modules() == []
    registry = load(target, "static")
    assert registry.arguments
    assert imported_fixture_modules() == []


def test_static_reading_needs_no_mock_for_a_package_that_cannot_be_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REGISTRIES))
    with pytest.raises(ModuleNotFoundError) as caught:
        __import__("demo_server")  # its __init__ imports a module that is not installed
    assert caught.value.name == HEAVY_MODULE
    registry = load(DEMO_SERVER, "static")
    assert registry.by_flag()["--tp-size"].default == 1
    assert "demo_server" not in sys.modules


def test_static_reading_keeps_runtime_values_as_source_text() -> None:
    registry = load("runtime_defaults:build_parser", "static")
    by_flag = registry.by_flag()
    assert by_flag["--threads"].default == Unevaluated("os.cpu_count()")
    assert by_flag["--threads"].help == Unevaluated('f"Worker threads (max {os.cpu_count()})."')
    assert by_flag["--threads"].type == "int"
    assert by_flag["--cache-dir"].default == Unevaluated('os.path.join(os.getcwd(), "cache")')
    assert by_flag["--device"].default == "cpu"
    assert by_flag["--device"].help == "Device to run on."
    assert by_flag["--data-dir"].default == Unevaluated('Path("data")')
    assert by_flag["--data-dir"].type == "Path"


def test_static_reading_keeps_runtime_choices_as_source_text() -> None:
    registry = load("runtime_choices:build_parser", "static")
    device = registry.by_flag()["--device"]
    assert device.choices == Unevaluated("available_devices()")
    assert device.default == "cpu"


def test_live_reading_computes_what_static_reading_keeps() -> None:
    registry = load("runtime_defaults:build_parser", "live")
    threads = registry.by_flag()["--threads"]
    assert isinstance(threads.default, int)
    assert threads.help == f"Worker threads (max {threads.default})."


def test_a_syntax_error_names_the_file_and_line() -> None:
    source = BROKEN / "syntax_error_registry.py"
    with pytest.raises(ArgmatrixError) as caught:
        load("syntax_error_registry:build_parser", "static", base_dir=BROKEN)
    problem = caught.value.problems[0]
    assert "syntax error" in problem.message
    assert problem.file == str(source)
    assert problem.line == line_of(source, '"--name", help="Name."')
    assert str(caught.value).startswith(f"{source}:{problem.line}: ")


def test_a_function_that_builds_no_parser_is_refused_statically() -> None:
    with pytest.raises(ArgmatrixError) as caught:
        load("not_a_builder:answer", "static")
    problem = caught.value.problems[0]
    assert "does not build an argparse.ArgumentParser" in problem.message
    assert problem.file == str(REGISTRIES / "not_a_builder.py")
    assert problem.line == line_of(REGISTRIES / "not_a_builder.py", "def answer")


def test_a_class_is_not_a_function() -> None:
    with pytest.raises(ArgmatrixError, match="is not a function"):
        load("demo_server.server_args:ServerArgs", "static")


def test_a_condition_on_the_platform_reads_both_branches() -> None:
    # sys.platform is outside the package: static reading cannot know it, so it keeps both.
    registry = load("platform_cli:build_parser", "static")
    assert [a.name for a in registry.arguments] == ["--workers", "--iocp", "--uvloop"]


def test_a_classmethod_and_the_helpers_it_calls_are_followed() -> None:
    static = load("classmethod_cli:Args.add_cli_args", "static")
    assert [(a.flags, a.default, a.section) for a in static.arguments] == [
        (("--port",), 80, "Network"), (("--host",), "x", "Extras"),
    ]
    live = load("classmethod_cli:Args.add_cli_args", "live")
    assert live.arguments == static.arguments and live.sections == static.sections


def test_loops_helpers_spreads_and_inheritance_are_followed() -> None:
    registry = load("control_flow_cli:build_parser", "static")
    assert [a.flags[0] for a in registry.arguments] == [
        "--verbose", "--a", "--c", "--w0", "--w1", "--from-helper", "--alpha", "--beta",
        "--gamma", "--device", "--base-flag", "--own-flag",
    ]
    by_flag = registry.by_flag()
    assert by_flag["--a"].default == 7  # argument_default of the parser
    assert by_flag["--alpha"].help == "first of server"  # a spread dict, values read on demand
    assert (by_flag["-g"].default, by_flag["-g"].type) == (5, "float")  # dict edited in place


def test_a_custom_action_keeps_the_nargs_of_its_init_and_comments_in_conditions_are_no_titles(
) -> None:
    registry = load("custom_action_cli:b", "static")
    assert registry.sections == ("Real",)
    assert [(a.name, a.nargs) for a in registry.arguments] == [("--flagish", 0), ("--after", None)]
