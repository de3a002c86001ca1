"""Arguments declared as fields of pydantic models, read statically: a model of pydantic's
`BaseModel`, `Field`, `ConfigDict` and `model_fields` over classes read from source (pydantic is
never imported), equal to what the registry builds when pydantic runs it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Registry, Unevaluated
from helpers import REGISTRIES, REPO, load, run_cli_in_subprocess

TARGET = "pydantic_fields_cli.cli:build_parser"
PYDANTIC = REPO / ".cache" / "pydantic-2.14.3"


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load(TARGET, "static")


def test_every_field_of_the_model_and_its_bases_is_an_argument(registry: Registry) -> None:
    flags = [a.flags[0] for a in registry.arguments]
    # base model's fields first; a private attribute and a ClassVar are not fields
    assert flags[:2] == ["--model-path", "--dtype"]
    assert "--registry-note" not in flags and "--kind" not in flags
    assert registry.diagnostics == ()


def test_descriptions_come_from_field_annotated_or_the_attribute_docstring(
    registry: Registry,
) -> None:
    by_flag = registry.by_flag()
    assert by_flag["--port"].help == "Port to listen on."  # Annotated[int, Field(...)]
    assert by_flag["--host"].help == "Address to bind."  # = Field(..., description=...)
    # use_attribute_docstrings: the string after the field, cleaned as inspect.cleandoc does
    assert (
        by_flag["--dtype"].help
        == "Data type of the weights.\n\n`auto` picks what the checkpoint says."
    )
    # a title but no description: the docstring is the description
    assert by_flag["--log-level"].help == "Verbosity of the server log."


def test_required_defaults_factories_and_types(registry: Registry) -> None:
    by_flag = registry.by_flag()
    assert by_flag["--model-path"].required is True
    assert by_flag["--api-keys"].default == [] and by_flag["--api-keys"].nargs == "*"
    assert by_flag["--dtype"].choices == ("auto", "half", "bfloat16")
    assert by_flag["--max-batch"].type == "int" and by_flag["--max-batch"].default is None


@pytest.mark.slow
def test_static_equals_pydantic_running_the_registry(registry: Registry) -> None:
    if not (PYDANTIC / ".installed").is_file():
        pytest.fail(
            f"pydantic is not installed in {PYDANTIC} (fix: run `make pydantic-lib`)",
            pytrace=False,
        )
    env = {**os.environ, "PYTHONPATH": str(PYDANTIC), "ARGMATRIX_CACHE": "off"}
    live = run_cli_in_subprocess("export", "--registry", TARGET, cwd=REGISTRIES, env=env)
    static = run_cli_in_subprocess(
        "export", "--registry", TARGET, "--static", cwd=REGISTRIES, env=env
    )
    assert live.code == 0 and static.code == 0, live.err + static.err
    assert static.err == ""
    mine: dict[str, Any] = json.loads(static.out)["registry"]
    theirs: dict[str, Any] = json.loads(live.out)["registry"]
    assert len(mine["arguments"]) == 8
    for key in ("arguments", "sections"):
        assert mine[key] == theirs[key]


# ------------------------------------------------------------------ what it cannot know

MODELS = """
import argparse
from pydantic import BaseModel, ConfigDict, Field
{extra}

class Args(BaseModel):
{body}


def build_parser():
    parser = argparse.ArgumentParser()
    for name, field in Args.model_fields.items():
        parser.add_argument("--" + name, help=field.description, {keyword})
    return parser
"""


def _write(tmp_path: Path, body: str, extra: str = "", keyword: str = "default=None") -> None:
    text = MODELS.format(body=body, extra=extra, keyword=keyword)
    (tmp_path / "model_cli.py").write_text(text, encoding="utf-8")


def test_a_config_static_reading_cannot_read_stops_the_loop_naming_it(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "    model_config = ConfigDict(**SETTINGS)\n    size: int = 1\n    '''Size.'''\n",
        extra="import os\nSETTINGS = dict(os.environ)",
    )
    with pytest.raises(ArgmatrixError) as caught:
        load("model_cli:build_parser", "static", base_dir=tmp_path)
    assert "model_cli.py:" in str(caught.value) and "Args.model_fields" in str(caught.value)


def test_a_base_model_of_another_package_stops_never_fewer_fields(tmp_path: Path) -> None:
    (tmp_path / "model_cli.py").write_text(
        MODELS.format(
            body="    size: int = 1", extra="from elsewhere import Base", keyword=""
        ).replace("class Args(BaseModel)", "class Args(Base)"),
        encoding="utf-8",
    )
    with pytest.raises(ArgmatrixError, match=r"model_cli\.py:"):
        load("model_cli:build_parser", "static", base_dir=tmp_path)


def test_constraints_are_not_read_as_no_metadata(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "    size: int = Field(1, gt=0, description='Size.')",
        keyword="default=field.metadata",
    )
    registry = load("model_cli:build_parser", "static", base_dir=tmp_path)
    size = registry.by_flag()["--size"]
    assert size.help == "Size."
    assert isinstance(size.default, Unevaluated)
    assert [d.message.split(":")[0] for d in registry.diagnostics] == ["--size"]
