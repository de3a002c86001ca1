"""Arguments a generic helper makes of declared fields are sectioned where each field is declared,
in live reading as in static reading: the `# ---- Title ----` block above the field in the class
that declares it (a base class, a namespace class a class was assembled from), else that class.
Live reading finds the field in the frames of the running helper (`loaders/live/declared_fields.py`);
both modes name the section with `loaders/sections.site_section`."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.model.registry import registry_to_dict
from helpers import load, load_dict

SECTIONS = "declared_sections_cli:build_parser"
STRUCTS = "declared_cli.struct_args:Server.add_cli_args"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture; the next static read must not find it, and a module
    written by a test is imported afresh."""
    yield
    for name in [
        n
        for n in sys.modules
        if n.split(".")[0] in ("declared_cli", "declared_sections_cli", "hostile_fields")
    ]:
        del sys.modules[name]


def test_live_reading_equals_static_reading_sections_included() -> None:
    """The fixtures of tests/test_static_declarative.py are compared there, sections included."""
    static = registry_to_dict(load(SECTIONS, "static"))
    assert "declared_sections_cli" not in sys.modules
    assert static == load_dict(SECTIONS, "live")


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_fields_section_is_the_block_above_its_declaration_else_its_class(mode: str) -> None:
    sections = {a.flags[0]: a.section for a in load(SECTIONS, mode).arguments}  # type: ignore[arg-type]
    assert sections == {
        "--alpha": "Inherited block",  # declared by the base class, under its block
        "--beta": "Own block",  # declared again by the subclass: the subclass's block
        "--gamma": "Derived",  # under a plain comment (a note): its class
        "--level": "Knob settings",  # a Struct's base
        "--depth": "MoreKnobs",
        "--size": "Large sizes",  # assembled by defstruct: the namespace class of that annotation
        "--count": "Large sizes",
        # added by the helper after its loop, its loop variable still bound: the helper's comment
        "--after-1": "After the loop",
        "--after-2": "After the loop",
        "--after-3": "After the loop",
        "--verbose": "Hand-written",
    }


@pytest.mark.parametrize("mode", ["live", "static"])
def test_the_sglang_shaped_fixture_sections(mode: str) -> None:
    sections = {a.flags[0]: a.section for a in load(STRUCTS, mode).arguments}  # type: ignore[arg-type]
    assert sections["--host"] == "HTTP server"
    assert sections["--page-size"] == "Memory and scheduling"
    assert sections["--tensor-parallel-size"] == "Parallelism"
    assert sections["--chunk"] == "Tuning"  # no comment block: the namespace class
    assert sections["--config"] == "General"  # written by hand, no comment above it


def test_live_reading_finds_a_class_made_inside_a_function() -> None:
    """Static reading cannot follow a class made by a running function; live reading places
    its fields all the same (Python's own qualified name, `build_local.<locals>.Local`)."""
    sections = {a.flags[0]: a.section for a in load("declared_sections_cli:build_local").arguments}
    assert sections == {"--omega": "Local block", "--after": "After the loop"}


# ------------------------------------------------------------------ hostile registries

HOSTILE = """
import argparse
import dataclasses
from typing import Annotated


class Meta(type):
    armed = False

    def __getattribute__(cls, name):
        if name in ("__mro__", "__module__") and Meta.armed:
            raise RuntimeError("looked at")
        return super().__getattribute__(name)


@dataclasses.dataclass
class Weird(metaclass=Meta):
    # ---- Never a section ----
    a: Annotated[int, "A."] = 1


@dataclasses.dataclass
class Plain:
    # ---- Never a section either ----
    b: Annotated[int, "B."] = 2


Meta.armed = True
Plain.__module__ = ["not", "a", "name"]


def build():
    parser = argparse.ArgumentParser(prog="hostile")
    made_up = dataclasses.field(default=0)
    made_up.name = ["not", "a", "name"]
    for field in [made_up]:
        # Made-up field
        parser.add_argument("--made-up", default=field.default)
    cls = Plain
    for field in dataclasses.fields(cls):
        # Misnamed module
        parser.add_argument("--" + field.name, default=field.default)
    cls = Weird
    for field in dataclasses.fields(cls):
        # Looked at
        parser.add_argument("--" + field.name, default=field.default)
    return parser
"""


def test_fields_and_classes_that_misbehave_keep_the_helpers_sections(tmp_path: Path) -> None:
    """A made-up Field, a class whose metaclass raises on every attribute it lacks, a class
    whose module is not a name: the read goes on, each argument sectioned by its call site."""
    (tmp_path / "hostile_fields.py").write_text(textwrap.dedent(HOSTILE), encoding="utf-8")
    registry = load("hostile_fields:build", "live", base_dir=tmp_path)
    sections = {a.flags[0]: a.section for a in registry.arguments}
    assert sections == {
        "--made-up": "Made-up field",
        "--b": "Misnamed module",
        "--a": "Looked at",
    }
