"""Static reading of arguments declared as annotated class fields and added by one generic
helper (sglang 0.5.14 and later): dataclasses, msgspec Structs assembled by defstruct, typing's
Annotated/Optional/Literal/list, defaults and default factories. Each fixture registry is read
statically and imported live; both must give the same model, sections included: they come from
where each field is declared."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Unevaluated, registry_to_dict
from helpers import REGISTRIES, line_of, load, load_dict, read_hostile, run_cli_in_process, stopped

DATACLASS = "declared_cli.dataclass_args:build_parser"
STRUCTS = "declared_cli.struct_args:Server.add_cli_args"
MADE = "declared_cli.dataclass_args:build_extra"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture package; the next static read must not find it."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "declared_cli"]:
        del sys.modules[name]


@pytest.mark.parametrize("target", [DATACLASS, STRUCTS, MADE])
def test_static_equals_live_on_declared_fields(target: str) -> None:
    """Sections included: both modes place a field's argument where the field is declared
    (tests/test_declared_sections.py)."""
    static = load(target, "static")
    assert "declared_cli" not in sys.modules, "static reading imported the registry"
    assert static.diagnostics == ()
    assert registry_to_dict(static) == load_dict(target, "live")


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


# ------------------------------------------------------------------ never part of a registry

UNREADABLE = "declared_cli.unreadable"


@pytest.mark.parametrize(
    ("builder", "why"),
    [
        ("inherited", "`Inherited` derives from `settings_lib.BaseSettings`, which is not in"),
        ("foreign_metadata", "calls `settings_lib.ExternalOpt`"),
        ("opaque_class", "`isinstance` of `settings_lib.BaseSettings` is not known"),
        ("decorated", "`Decorated` is decorated with `settings_lib.settings`, which static"),
    ],
)
def test_fields_static_reading_cannot_follow_stop_the_read_at_the_loop(
    builder: str, why: str
) -> None:
    with pytest.raises(ArgmatrixError) as caught:
        load(f"{UNREADABLE}:{builder}", "static")
    (problem,) = caught.value.problems
    assert problem.file == str(REGISTRIES / "declared_cli" / "options.py")
    assert problem.line == line_of(REGISTRIES / "declared_cli" / "options.py", "for field in")
    assert "the loop over `declared_fields(cls)` cannot be followed statically" in problem.message
    assert why in problem.message


def test_the_command_line_exits_2_with_one_located_line() -> None:
    result = run_cli_in_process(
        "export", "--static", "--registry", f"{UNREADABLE}:inherited", cwd=REGISTRIES
    )
    assert result.code == 2 and result.out == ""
    (line,) = result.err.splitlines()
    assert line.startswith("argmatrix: error: declared_cli/options.py:")  # from where it ran


# ------------------------------------------------------------------ hostile declarations

HOSTILE_HEAD = """
import argparse
import dataclasses
from typing import Annotated, get_type_hints

import msgspec


def add_fields(parser, cls):
    hints = get_type_hints(cls, include_extras=True)
    for field in dataclasses.fields(cls):
        if field.default is dataclasses.MISSING:
            default = field.default_factory()
        else:
            default = field.default
        parser.add_argument("--" + field.name, help=hints[field.name].__metadata__[0], default=default)


def build():
    parser = argparse.ArgumentParser(prog="hostile")
    add_fields(parser, Settings)
    return parser
"""


@pytest.mark.parametrize(
    "declaration",
    [
        # a class of a million fields, written by a loop no one wrote out
        "@dataclasses.dataclass\nclass Settings:\n"
        + "".join(f"    f{i}: Annotated[int, 'x'] = {i}\n" for i in range(60_000)),
        # fields whose default factories call each other without end
        "def again():\n    return again()\n\n@dataclasses.dataclass\nclass Settings:\n"
        "    a: Annotated[list, 'x'] = dataclasses.field(default_factory=again)\n",
        # bases that are each other's
        "@dataclasses.dataclass\nclass Settings(Other):\n    a: int = 1\n\n"
        "@dataclasses.dataclass\nclass Other(Settings):\n    b: int = 2\n",
        # an annotation nested past any parser's patience
        "@dataclasses.dataclass\nclass Settings:\n    a: '"
        + "list[" * 5000
        + "int"
        + "]" * 5000
        + "' = 1\n",
        # defstruct handed a million fields
        "Settings = msgspec.defstruct('Settings', [('f%d' % i, int, i) for i in range(10**7)])\n",
    ],
    ids=["many-fields", "endless-factory", "cyclic-bases", "deep-annotation", "huge-defstruct"],
)
def test_hostile_declarations_stop_in_time_with_one_line(
    tmp_path: Path, declaration: str, request: pytest.FixtureRequest
) -> None:
    outcome = read_hostile(tmp_path, HOSTILE_HEAD + "\n\n" + declaration, generate=False)
    words = {
        "many": "step budget",
        "endl": "call depth budget",
        "cycl": "nested too deep",
        "deep": "does not parse",
        "huge": "size budget",
    }
    assert words[request.node.callspec.id[:4]] in stopped(outcome)


def test_what_an_undecidable_branch_changes_in_place_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "branchy_cli.py").write_text(
        "import argparse\nimport os\n\n\ndef build():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    choices = {'a', 'b'}\n"
        "    kwargs = {'help': 'Pick one.'}\n"
        "    if os.environ.get('EXTRA'):\n"
        "        choices.add('c')\n"
        "        kwargs['default'] = 'a'\n"
        "    parser.add_argument('--pick', choices=sorted(choices), **kwargs)\n"
        "    return parser\n"
    )
    registry = load("branchy_cli:build", "static", base_dir=tmp_path)
    pick = registry.by_flag()["--pick"]
    assert pick.help == "Pick one."
    assert isinstance(pick.choices, Unevaluated) and isinstance(pick.default, Unevaluated)
    said = " ".join(d.message for d in registry.diagnostics)
    assert "choices kept as source text" in said and "default kept as source text" in said


@pytest.mark.parametrize(
    "source",
    [
        'def f():\n    """  First.\n\n        More.\n    Back.\n\t\tTabbed.\n      \n    End.\n    """\n',
        'def f():\n    """One line."""\n',
        'def f():\n    """\n    Next line.\n      deeper\n    """\n',
        'def f():\n    """Text\n\t    mixed tab\n        spaces\n  """\n',
    ],
)
def test_doc_is_the_running_pythons(source: str) -> None:
    """`f.__doc__` as this Python compiles it (3.13 strips the indentation)."""
    import ast

    from argmatrix.loaders.static.declared_fields.declared import docstring

    namespace: dict[str, Any] = {}
    exec(compile(source, "<docstring>", "exec"), namespace)  # our own literal source
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert docstring(node) == namespace["f"].__doc__
