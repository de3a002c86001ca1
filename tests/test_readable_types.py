"""Types as a reader understands them: converters by what they read, never their source."""

from __future__ import annotations

import pytest

from argmatrix.model.registry import Argument
from argmatrix.model.values import readable_type, value_description


def argument(type_: str | None, metavar: str | None = None, **fields: object) -> Argument:
    return Argument(flags=("--x",), dest="x", section="Main", type=type_, metavar=metavar, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("converter", "shown"),
    [
        ("str2bool", "bool"),  # RTP-LLM's 87 boolean flags
        ("strtobool", "bool"),
        ("_grpc_config_from_json(grpc_config)", "JSON"),  # a call kept as source
        ("pkg.mod.parse_json", "JSON"),
        ("positive_int", "int"),
        ("human_readable_int", "int"),
        ("float_or_none", "float"),
        ("nullable_str", "str"),  # sglang's
        ("<lambda>", "value"),
        ("lambda", "value"),
        # A converter named for nothing argmatrix knows reads as its own name (as `export`).
        ("parse_size", "parse_size"),
        ("sizes.parse_size", "parse_size"),
        ("normalize_think_mode", "normalize_think_mode"),
        ("_parse_prefill_capture_config", "value"),  # a private helper: no name for readers
        ("interval", "interval"),  # "int" inside a word is not the word int
        ("functools.partial(f, 2)", "value"),  # an expression: no name of its own
        ("int", "int"),
        ("Path", "Path"),
        (None, "str"),
    ],
)
def test_a_converter_reads_as_what_it_reads(converter: str | None, shown: str) -> None:
    assert readable_type(argument(converter)) == shown


def test_the_projects_metavar_names_an_unknown_converter() -> None:
    assert readable_type(argument("normalize_think_mode", metavar="MODE")) == "MODE"
    assert readable_type(argument("positive_int", metavar="N")) == "N"
    # A converter named for booleans stays bool whatever the metavar says.
    assert readable_type(argument("str2bool", metavar="BOOL_OR_AUTO")) == "bool"


def test_the_projects_own_names_come_first() -> None:
    names = {"_positive_or_unlimited": "int or unlimited", "str2bool": "true/false"}
    assert readable_type(argument("_positive_or_unlimited"), names) == "int or unlimited"
    assert readable_type(argument("str2bool"), names) == "true/false"


@pytest.mark.parametrize(
    "source",
    [
        "_grpc_config_from_json(grpc_config)",
        "lambda s: s.strip()",
        "functools.partial(f, 2)",
        "a[0]",
    ],
)
def test_no_source_expression_reaches_a_page(source: str) -> None:
    text = value_description(argument(source))
    assert "(" not in text.removeprefix("Type: ").replace("(value optional)", "")
    assert source not in text


def test_lists_read_their_items_type() -> None:
    assert value_description(argument("str2bool", nargs="+")) == "List[bool]"


def test_the_standard_json_parser_reads_as_json() -> None:
    assert readable_type(argument("json.loads")) == "JSON"  # static reading's name
    assert readable_type(argument("loads")) == "JSON"  # the function's own name, live
