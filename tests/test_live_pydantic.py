"""A stand-in as the field type of a pydantic model, read live under `mock: auto`. pydantic is
not a dependency of argmatrix: `make pydantic-lib` installs it into .cache/ and the registry is
read in a process of its own with that folder on its path (a test installs nothing)."""

from __future__ import annotations

import json
import os

import pytest

from helpers import REGISTRIES, REPO, run_cli_in_subprocess

PYDANTIC = REPO / ".cache" / "pydantic-2.14.3"

pytestmark = pytest.mark.live_env  # pydantic in .cache (make pydantic-lib)


def test_a_pydantic_model_typed_with_stand_ins() -> None:
    if not (PYDANTIC / ".installed").is_file():
        pytest.fail(
            f"pydantic is not installed in {PYDANTIC} (fix: run `make pydantic-lib`)",
            pytrace=False,
        )
    env = {**os.environ, "PYTHONPATH": str(PYDANTIC)}
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
