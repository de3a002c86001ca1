"""A stand-in as the field type of a pydantic model, read live under `mock: auto`. pydantic is
not a dependency of argmatrix: `make pydantic-lib` installs it into .cache/ and the registry is
read in a process of its own with that folder on its path (a test installs nothing)."""

from __future__ import annotations

import json
import os

import pytest

from helpers import REGISTRIES, REPO, line_of, one_error_line, run_cli_in_subprocess

PYDANTIC = REPO / ".cache" / "pydantic-2.14.3"

pytestmark = pytest.mark.live_env  # pydantic in .cache (make pydantic-lib)


def pydantic_env() -> dict[str, str]:
    if not (PYDANTIC / ".installed").is_file():
        pytest.fail(
            f"pydantic is not installed in {PYDANTIC} (fix: run `make pydantic-lib`)",
            pytrace=False,
        )
    return {**os.environ, "PYTHONPATH": str(PYDANTIC)}


def test_a_pydantic_model_typed_with_stand_ins() -> None:
    env = pydantic_env()
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "pydantic_cli:build_parser",
        "--mock",
        "auto",
        cwd=REGISTRIES,
        env=env,
    )
    assert result.code == 0, result.err
    arguments = {a["flags"][0]: a for a in json.loads(result.out)["registry"]["arguments"]}
    assert list(arguments) == ["--dtype", "--weights", "--block-size"]
    assert (arguments["--block-size"]["default"], arguments["--block-size"]["help"]) == (
        16,
        "Tokens per block.",
    )
    # the field types' text comes from stand-ins: unresolved, and named on stderr
    assert "<stand-in" not in result.out and "\ue000" not in result.out
    assert "--dtype: the help comes from a stand-in (not_installed_gpu_lib.dtype)" in result.err
    assert "--weights: the help comes from a stand-in" in result.err


def test_without_stand_ins_the_missing_library_is_named() -> None:
    if not (PYDANTIC / ".installed").is_file():
        pytest.fail(f"run `make pydantic-lib` ({PYDANTIC})", pytrace=False)
    env = {**os.environ, "PYTHONPATH": str(PYDANTIC)}
    result = run_cli_in_subprocess(
        "export", "--registry", "pydantic_cli:build_parser", cwd=REGISTRIES, env=env
    )
    assert result.code == 2
    assert "needs 'not_installed_gpu_lib', which is not installed" in result.err


def test_validated_config_defaults_bounded_and_typed_by_stand_ins() -> None:
    """vLLM's config classes in small (issue 32): a field bounded by `Field(le=torch's long
    max)`, typed by a subclass of a stand-in, typed `stand-in | Literal[...]` (its choices kept),
    and a default that is a deep copy of a validated config object."""
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "pydantic_defaults_cli:build_parser",
        "--mock",
        "auto",
        cwd=REGISTRIES,
        env=pydantic_env(),
    )
    assert result.code == 0, result.err
    arguments = json.loads(result.out)["registry"]["arguments"]
    assert [(a["flags"], a["default"], a["choices"]) for a in arguments] == [
        (["--lora-dtype"], "auto", ["auto", "bfloat16", "float16"]),
        (["--seed"], None, None),
        (["--weights"], None, None),
        (["--max-loras"], 1, None),
    ]


def test_a_validation_error_is_located_in_the_registry_not_in_pydantic() -> None:
    """pydantic refuses a config object the registry builds (a validator's assertion): the
    place is the registry's line that built it, not pydantic's own frames."""
    result = run_cli_in_subprocess(
        "export",
        "--registry",
        "pydantic_defaults_cli:build_refused_parser",
        "--mock",
        "auto",
        cwd=REGISTRIES,
        env=pydantic_env(),
    )
    source = REGISTRIES / "pydantic_defaults_cli.py"
    line = one_error_line(result, "raised ValidationError: 1 validation error for ParallelConfig")
    # named from where it ran
    assert line.startswith(f"argmatrix: error: {source.name}:{line_of(source, 'workers=0')}: "), (
        line
    )
