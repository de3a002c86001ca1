"""The JSON-value invariant (issue 31) over every fixture registry, read both ways: each value of
an export is plain JSON, or a value kept as source text whose warning was printed, and no text of
one of argmatrix's own objects (tests/export_values.py says it; tests/test_corpus.py holds the
corpus of real command lines to it too)."""

from __future__ import annotations

import json

import pytest

from export_values import assert_plain_values, problems
from helpers import DEMO_SERVER, HEAVY_MODULE, REGISTRIES, run_cli_in_process

# Every fixture registry a test reads, with the modules its live import stands in for.
FIXTURES: dict[str, tuple[str, ...]] = {
    DEMO_SERVER: (HEAVY_MODULE,),
    "class_body_cli.entrypoint:run": (),
    "classmethod_cli:Args.add_cli_args": (),
    "click_group_cli:cli": (),
    "click_group_cli:__main__": (),
    "click_server:serve": (),
    "click_server:__main__": (),
    "click_runtime_cli:cli": (),
    "click_lazy_cli:lazy": (),
    "click_placeholder_cli:jobs": (),
    "click_alias_cli:models": (),
    "control_flow_cli:build_parser": (),
    "custom_action_cli:b": (),
    "declared_cli.dataclass_args:build_parser": (),
    "declared_cli.struct_args:Server.add_cli_args": (),
    "declared_sections_cli:build_parser": (),
    "enum_cli:build_parser": (),
    "env_cli:make_parser": (),
    "grouped_cli:build_parser": (),
    "idioms_cli:build_parser": (),
    "issue21.served:build_parser": (),
    "lazy_help_cli:get_parser": (),
    "lazy_loader_cli:add_cli_args": (),
    "noisy_cli:build_parser": (),
    "own_parser_cli:add_cli_args": (),
    "parsing_cli:run": (),
    "parsing_cli:setup_args": (),
    "platform_cli:build_parser": (),
    "python_versions_cli:build_parser": (),
    "rtp_like.args:setup_args": ("auto",),
    "runtime_choices:build_parser": (),
    "runtime_defaults:build_parser": (),
    "star_cli.cli:build_parser": (),
    "starred_flags_cli:build_parser": (),
    "subcommands_cli:build_parser": (),
    "uses_optional_cli:build_parser": (),
    "worker_script:__main__": (),
    "wrapper_cli:setup_args": (),
    "help_shape_cli:serve": (),
    "option_groups_cli:serve": (),
    "shape_click:cli": (),
    # the shapes the field writes (issue 31)
    "field31.serve:cli": (),
    "field31.guarded:cli": (),
    "field31.runners:proxy_server": (),
    "field31.runners:main": (),
    "field31.tools:cli": (),
    "field31.commands:serve": (),
    "field31.argparse_shapes:build": (),
    # static: Typer is not installed here (tests/test_typer_registry.py reads them live)
    "typer_app_cli:app": (),
    "typer_run_cli:main": (),
    "typer_commands_cli:app": (),
    "typer_guarded_cli:tp": (),
    "typer_field.cli:app": (),
    "typer_markup_cli:app": (),
    "typer_unnamed_cli:app": (),
}
STATIC_ONLY = {target for target in FIXTURES if target.startswith("typer_")}


def exported(target: str, static: bool, mock: tuple[str, ...]) -> tuple[dict, str] | None:
    words = ["export", "--registry", target]
    words += ["--static"] if static else [f"--mock={m}" for m in mock]
    result = run_cli_in_process(*words, cwd=REGISTRIES)
    if result.code == 2:  # refused, in one line: nothing exported, nothing to hold
        assert len(result.err.splitlines()) == 1, result.err
        return None
    assert result.code == 0, result.err
    return json.loads(result.out)["registry"], result.err


@pytest.mark.parametrize("target", sorted(FIXTURES))
@pytest.mark.slow
def test_every_value_of_a_fixture_export_is_plain_or_said(target: str) -> None:
    read = 0
    for static in (True, False) if target not in STATIC_ONLY else (True,):
        found = exported(target, static, FIXTURES[target])
        if found is None:
            continue
        registry, said = found
        assert_plain_values(registry, said)
        read += 1
    assert read, f"{target} was read in no mode"


def test_the_invariant_finds_what_it_forbids() -> None:
    """The check itself: an argmatrix object's text, and a value kept without a warning."""
    registry = {
        "arguments": [
            {"flags": ["--a"], "dest": "a", "default": {"python": "ExternalRef(dotted='x.Y')"}},
            {"flags": ["--b"], "dest": "b", "default": "EnumMember(owner='P', name='E')"},
            {"flags": ["--c"], "dest": "c", "default": {"unevaluated": "f()"}},
            {"flags": ["--d"], "dest": "d", "choices": ["MISSING"]},
            {"flags": ["--e"], "dest": "e", "default": {"python": "PosixPath('/srv')"}},
        ],
        "subcommands": [],
    }
    found = problems(registry, said="")
    assert [line.split(":")[0] for line in found] == [
        "--a default",
        "--b default",
        "--c default",
        "--d choices",
    ]
    said = "argmatrix: warning: x.py:3: --c: default kept as source text: `f()`"
    assert [line.split(":")[0] for line in problems(registry, said)] == [
        "--a default",
        "--b default",
        "--d choices",
    ]
