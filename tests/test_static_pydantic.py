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


@pytest.mark.live_env  # pydantic in .cache (make pydantic-lib)
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


# ------------------------------------------------------------------ config, qualifiers, Fields

CONFIG_TARGET = "pydantic_config_cli:build_parser"


@pytest.fixture(scope="module")
def configured() -> Registry:
    return load(CONFIG_TARGET, "static")


def test_config_is_merged_along_the_bases_and_docstrings_go_by_declaring_class(
    configured: Registry,
) -> None:
    helps = {a.flags[0]: a.help for a in configured.arguments}
    # the base's use_attribute_docstrings holds in a child that sets another key
    assert (helps["--a"], helps["--b"]) == ("doc of a", "doc of b")
    # a field of a base without the setting has no description, though its child sets it
    assert (helps["--c"], helps["--d"]) == ("None", "doc of d")
    # a class keyword is config too
    assert helps["--e"] == "doc of e"
    # cleaned as inspect.cleandoc cleans it: trailing blanks kept
    assert helps["--t"] == "line one   \nline two   "


def test_class_variables_and_final_fields_as_pydantic_takes_them(configured: Registry) -> None:
    flags = [a.flags[0] for a in configured.arguments]
    # a bare ClassVar, and Final (bare, subscripted or in Annotated) with a default, are class
    # variables; so is ClassVar in Annotated
    assert not {"--f", "--g", "--h", "--o", "--p"} & set(flags)
    # Final[int] without a default is a required field
    assert configured.by_flag()["--fin"].required is True


def test_several_fields_later_ones_win_and_nested_annotated_is_flattened(
    configured: Registry,
) -> None:
    by_flag = configured.by_flag()
    assert by_flag["--i"].default == 2  # Annotated[int, Field(1), Field(2)]
    assert (by_flag["--j"].default, by_flag["--j"].help) == (10, "jj")  # nested Annotated
    assert (by_flag["--k"].default, by_flag["--k"].help) == (11, "kk")
    # the assigned Field(...) comes last: its description wins, the Annotated default stays
    assert (by_flag["--m"].default, by_flag["--m"].help) == (3, "second")
    assert by_flag["--n"].default == 5  # an assigned value wins over the Annotated default


def test_an_alias_generator_makes_the_alias_unknown_never_none(configured: Registry) -> None:
    metavar = configured.by_flag()["--u"].metavar
    assert isinstance(metavar, Unevaluated)
    said = [d.message for d in configured.diagnostics if d.message.startswith("--u:")]
    assert len(said) == 1 and "alias_generator" in said[0]


@pytest.mark.live_env  # pydantic in .cache (make pydantic-lib)
def test_config_and_fields_static_equals_pydantic(configured: Registry) -> None:
    if not (PYDANTIC / ".installed").is_file():
        pytest.fail(
            f"pydantic is not installed in {PYDANTIC} (fix: run `make pydantic-lib`)",
            pytrace=False,
        )
    env = {**os.environ, "PYTHONPATH": str(PYDANTIC), "ARGMATRIX_CACHE": "off"}
    live = run_cli_in_subprocess("export", "--registry", CONFIG_TARGET, cwd=REGISTRIES, env=env)
    assert live.code == 0, live.err
    theirs = {a["flags"][0]: a for a in json.loads(live.out)["registry"]["arguments"]}
    static = run_cli_in_subprocess(
        "export", "--registry", CONFIG_TARGET, "--static", cwd=REGISTRIES, env=env
    )
    mine = {a["flags"][0]: a for a in json.loads(static.out)["registry"]["arguments"]}
    assert list(mine) == list(theirs)
    # what static reading says it cannot know: the alias a generator makes, and the
    # PydanticUndefined a required field's get_default() gives
    assert theirs["--u"]["metavar"] == "U" and "unevaluated" in mine["--u"]["metavar"]
    for flag in set(mine) - {"--u", "--fin"}:
        assert mine[flag] == theirs[flag], flag


TITLED = """
import argparse
from pydantic import BaseModel, ConfigDict, Field


class Args(BaseModel):
    model_config = ConfigDict({config})
    size: int = Field(1{field})


def build_parser():
    parser = argparse.ArgumentParser()
    for name, field in Args.model_fields.items():
        parser.add_argument("--" + name, help=str(field.title))
    return parser
"""


@pytest.mark.parametrize(
    ("config", "field", "title"),
    [
        ("field_title_generator=lambda name, info: name.upper()", "", None),
        ("", ", field_title_generator=lambda name, info: name.upper()", None),
        # a title given is kept: the generator makes one only for a field without
        ("field_title_generator=lambda name, info: name.upper()", ", title='Size'", "Size"),
    ],
)
def test_a_title_generator_makes_the_title_unknown_never_none(
    tmp_path: Path, config: str, field: str, title: str | None
) -> None:
    text = TITLED.format(config=config, field=field)
    (tmp_path / "titled_cli.py").write_text(text, encoding="utf-8")
    registry = load("titled_cli:build_parser", "static", base_dir=tmp_path)
    if title is not None:
        assert registry.by_flag()["--size"].help == title and registry.diagnostics == ()
        return
    assert isinstance(registry.by_flag()["--size"].help, Unevaluated)
    assert "generator" in registry.diagnostics[0].message


def test_json_schema_extra_of_several_fields_is_merged(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "    size: Annotated[int, Field(1, json_schema_extra={'a': 1})] = "
        "Field(json_schema_extra={'b': 2})",
        extra="from typing import Annotated",
        keyword="default=field.json_schema_extra",
    )
    registry = load("model_cli:build_parser", "static", base_dir=tmp_path)
    assert registry.by_flag()["--size"].default == {"a": 1, "b": 2}


def test_a_default_and_a_factory_from_two_fields_stop_as_pydantic_raises(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "    size: Annotated[int, Field(default_factory=list)] = 5",
        extra="from typing import Annotated",
    )
    with pytest.raises(ArgmatrixError, match="a default and a factory"):
        load("model_cli:build_parser", "static", base_dir=tmp_path)


def test_a_bare_classvar_is_no_dataclass_field_either(tmp_path: Path) -> None:
    (tmp_path / "bare_classvar_cli.py").write_text(
        "import argparse\nimport dataclasses\nfrom typing import ClassVar\n\n\n"
        "@dataclasses.dataclass\nclass Args:\n    kind: ClassVar = 'x'\n    size: int = 1\n\n\n"
        "def build_parser():\n    parser = argparse.ArgumentParser()\n"
        "    for f in dataclasses.fields(Args):\n"
        "        parser.add_argument('--' + f.name, default=f.default)\n    return parser\n",
        encoding="utf-8",
    )
    for mode in ("static", "live"):
        registry = load("bare_classvar_cli:build_parser", mode, base_dir=tmp_path)
        assert [a.flags[0] for a in registry.arguments] == ["--size"], mode


MULTIPLE = """
import argparse
import dataclasses


@dataclasses.dataclass
class X:
    x: int = 1
{more_x}

@dataclasses.dataclass
class Y:
    y: int = 2
{more_y}

@dataclasses.dataclass
class M(X, Y):
    m: int = 3


def build_parser():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(M):
        parser.add_argument('--' + f.name, default=f.default)
    return parser
"""


def test_fields_of_several_bases_come_in_pythons_order(tmp_path: Path) -> None:
    """Fields are collected over the method resolution order reversed: the last base first."""
    name = "multiple_bases_cli"
    (tmp_path / f"{name}.py").write_text(MULTIPLE.format(more_x="", more_y=""), encoding="utf-8")
    static = load(f"{name}:build_parser", "static", base_dir=tmp_path)
    live = load(f"{name}:build_parser", "live", base_dir=tmp_path)
    assert [a.flags[0] for a in static.arguments] == ["--y", "--x", "--m"]
    assert [(a.flags, a.default) for a in static.arguments] == [
        (a.flags, a.default) for a in live.arguments
    ]


def test_a_field_two_bases_declare_is_said(tmp_path: Path) -> None:
    (tmp_path / "both_bases_cli.py").write_text(
        MULTIPLE.format(more_x="    a: int = 1", more_y="    a: int = 2"), encoding="utf-8"
    )
    with pytest.raises(ArgmatrixError, match="declared by both"):
        load("both_bases_cli:build_parser", "static", base_dir=tmp_path)


def test_a_name_assigned_without_an_annotation_stops_as_pydantic_refuses_it(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "    size: int = 1\n    count = 5\n")
    with pytest.raises(ArgmatrixError, match="assigned without an annotation"):
        load("model_cli:build_parser", "static", base_dir=tmp_path)
