"""Static reading of arguments declared as annotated class fields and added by one generic
helper (sglang 0.5.14 and later): dataclasses, msgspec Structs assembled by defstruct, typing's
Annotated/Optional/Literal/list, defaults and default factories. Each fixture registry is read
statically and imported live; both must give the same model. Sections come from where each
field is declared."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from argmatrix.model.registry import registry_to_dict
from helpers import load, load_dict

DATACLASS = "declared_cli.dataclass_args:build_parser"
STRUCTS = "declared_cli.struct_args:Server.add_cli_args"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture package; the next static read must not find it."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "declared_cli"]:
        del sys.modules[name]


@pytest.mark.parametrize("target", [DATACLASS, STRUCTS])
def test_static_equals_live_on_declared_fields(target: str) -> None:
    static = load(target, "static")
    assert "declared_cli" not in sys.modules, "static reading imported the registry"
    assert static.diagnostics == ()
    assert without_sections(registry_to_dict(static)) == without_sections(load_dict(target, "live"))


def without_sections(model: dict[str, Any]) -> dict[str, Any]:
    """The model but its sections: live reading takes them from the comments above each
    `add_argument` call (all in the generic helper here), static reading from the field's
    declaration (tested below)."""
    model = dict(model)
    del model["sections"]
    model["arguments"] = [
        {k: v for k, v in argument.items() if k != "section"} for argument in model["arguments"]
    ]
    return model


def test_each_field_construct_becomes_what_argparse_makes() -> None:
    by_flag = load(DATACLASS, "static").by_flag()
    assert by_flag["--port"].flags == ("--port", "-p")
    assert by_flag["--ports"].default == [8000, 8001]  # default_factory, a function of the source
    assert by_flag["--ports"].nargs == "+"
    assert by_flag["--model"].dest == "model_path"  # cli_name keeps the field's dest
    assert by_flag["--dtype"].choices == ("auto", "half", "float")  # Literal
    assert by_flag["--mode"].choices == ("fast", "exact")  # Optional[str] with choices
    assert by_flag["--trust-remote-code"].action == "store_true"  # bool
    assert by_flag["--scale"].type == "float"  # float | None
    assert "--internal-flag" not in by_flag and "--not-an-option" not in by_flag


def test_sections_come_from_where_each_field_is_declared() -> None:
    sections = {a.flags[0]: a.section for a in load(STRUCTS, "static").arguments}
    assert sections["--host"] == "HTTP server"
    assert sections["--page-size"] == "Memory and scheduling"
    assert sections["--tensor-parallel-size"] == "Parallelism"
    assert sections["--chunk"] == "Tuning"  # no comment block: the namespace class
    dataclass_sections = {a.flags[0]: a.section for a in load(DATACLASS, "static").arguments}
    assert dataclass_sections["--port"] == "Network"
    assert dataclass_sections["--dtype"] == "Model loading"
