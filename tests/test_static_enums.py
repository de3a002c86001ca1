"""Iterating an Enum class read from source (`[m.name for m in Mode]`): static reading lists
exactly the members Python makes, in order and without aliases, or says it cannot (the choices
kept as source text and named on stderr), never fewer or more. Python's rules are those of 3.10
to 3.13; where they differ between versions (a nested class, a private `__name`), static reading
says so."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from argmatrix.model.registry import Registry, Unevaluated
from helpers import load

BUILDER = """

def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", choices=[m.name for m in M])
    return parser
"""

_counter = itertools.count()


def _read(tmp_path: Path, body: str) -> tuple[Registry, Registry]:
    """The registry read statically and live, of a module defining the Enum `M`."""
    name = f"enum_case_{next(_counter)}_cli"  # a new module name: live mode imports it
    text = "import argparse\nimport enum\nfrom enum import Enum, IntEnum\n\n" + body + BUILDER
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    target = f"{name}:build_parser"
    return load(target, "static", base_dir=tmp_path), load(target, "live", base_dir=tmp_path)


# Classes whose members static reading lists, as Python does on every supported version.
LISTED = {
    "plain": ("class M(Enum):\n    A = 'a'\n    B = 'b'\n", ("A", "B")),
    "an alias is left out": ("class M(Enum):\n    A = 1\n    B = 2\n    C = 1\n", ("A", "B")),
    "equal values of other types are aliases": (
        "class M(Enum):\n    A = 1\n    B = 1.0\n    C = True\n    D = 'd'\n",
        ("A", "D"),
    ),
    "_ignore_ as a list": (
        "class M(Enum):\n    _ignore_ = ['scratch']\n    A = 'a'\n    scratch = 's'\n    B = 'b'\n",
        ("A", "B"),
    ),
    "_ignore_ as one string": (
        "class M(Enum):\n    _ignore_ = 'x, y'\n    A = 1\n    x = 2\n    y = 3\n",
        ("A",),
    ),
    "a chain of targets: the later an alias": (
        "class M(Enum):\n    A = B = 'x'\n    C = 'c'\n",
        ("A", "C"),
    ),
    "a single leading underscore is a member": (
        "class M(Enum):\n    _p = 'p'\n    A = 'a'\n",
        ("_p", "A"),
    ),
    "dunders, methods, properties and bare annotations are not members": (
        "class M(Enum):\n    '''Doc.'''\n    __doc__ = 'doc'\n    A: str = 'a'\n    B: str\n"
        "    C = 'c'\n    'the doc of C'\n\n    @property\n    def low(self):\n"
        "        return self.value\n\n    def describe(self):\n        return self.name\n",
        ("A", "C"),
    ),
    "IntEnum whose values are all ints": (
        "class M(IntEnum):\n    A = 1\n    B = 2\n    C = 2\n",
        ("A", "B"),
    ),
    "a str mixin whose values are all str": (
        "class M(str, Enum):\n    A = 'a'\n    B = 'b'\n    C = 'a'\n",
        ("A", "B"),
    ),
    "a base Enum of the source with methods only": (
        "class Base(str, Enum):\n    def describe(self):\n        return self.value\n\n\n"
        "class M(Base):\n    A = 'a'\n    B = 'b'\n",
        ("A", "B"),
    ),
    "unique without aliases": (
        "@enum.unique\nclass M(Enum):\n    A = 'a'\n    B = 'b'\n",
        ("A", "B"),
    ),
}


@pytest.mark.parametrize("case", sorted(LISTED))
def test_static_lists_the_members_python_makes(tmp_path: Path, case: str) -> None:
    body, expected = LISTED[case]
    static, live = _read(tmp_path, body)
    assert live.by_flag()["--m"].choices == expected  # Python's own answer
    assert static.by_flag()["--m"].choices == expected
    assert static.diagnostics == ()


# Classes whose members only running the class tells (or that differ between Python
# versions): the reason static reading gives.
SAID = {
    "an unhashable value (aliases differ between 3.10 and 3.11)": (
        "class M(Enum):\n    A = {1, 2}\n    B = frozenset({1, 2})\n",
        "depends on the Python version",
    ),
    "a private name (a member before 3.11 only)": (
        "class M(Enum):\n    __x = 1\n    A = 2\n",
        "is a member or not by Python version",
    ),
    "a nested class (a member before 3.13 only)": (
        "class M(Enum):\n    A = 'a'\n    class Inner:\n        pass\n    C = 'c'\n",
        "nests the class `Inner`",
    ),
    "a tuple target": ("class M(Enum):\n    A, B = 'a', 'b'\n    C = 'c'\n", "line 6 of `M`"),
    "an if in the body": (
        "class M(Enum):\n    A = 'a'\n    if True:\n        B = 'b'\n",
        "line 7 of `M` is not a plain assignment",
    ),
    "a for in the body": (
        "class M(Enum):\n    A = 'a'\n    for _i in range(2):\n        pass\n",
        "line 7 of `M`",
    ),
    "a try in the body": (
        "class M(Enum):\n    try:\n        A = 'a'\n    except Exception:\n        pass\n",
        "line 6 of `M`",
    ),
    "a with in the body": (
        "import contextlib\n\n\nclass M(Enum):\n    with contextlib.suppress():\n        A = 'a'\n",
        "line 9 of `M`",
    ),
    "__new__": (
        "class M(Enum):\n    def __new__(cls, value, doc):\n        obj = object.__new__(cls)\n"
        "        obj._value_ = value\n        return obj\n    A = ('a', 'first')\n"
        "    B = ('a', 'second')\n",
        "defines `__new__`",
    ),
    "__init__": (
        "class M(Enum):\n    def __init__(self, *args):\n        pass\n    A = 1\n",
        "defines `__init__`",
    ),
    "_missing_": (
        "class M(Enum):\n    A = 1\n\n    @classmethod\n    def _missing_(cls, value):\n"
        "        return cls.A\n",
        "defines `_missing_`",
    ),
    "_generate_next_value_": (
        "class M(Enum):\n    def _generate_next_value_(name, start, count, last):\n"
        "        return name\n    A = 'a'\n",
        "defines `_generate_next_value_`",
    ),
    "a str mixin converting an int to an alias": (
        "class M(str, Enum):\n    A = 1\n    B = '1'\n    C = 'c'\n",
        "converted to `str`",
    ),
    "IntEnum converting a str to an alias": (
        "class M(IntEnum):\n    A = 1\n    B = '1'\n    C = 2\n",
        "converted to `int`",
    ),
    "IntEnum given a bool": ("class M(IntEnum):\n    A = 1\n    B = True\n", "converted to `int`"),
    "a mixin of a tuple": (
        "class M(str, Enum):\n    A = ('a',)\n    B = 'a'\n",
        "converted to `str`",
    ),
    "a descriptor as a value": (
        "class M(Enum):\n    A = 'a'\n    B = staticmethod(len)\n    C = 'c'\n",
        "the value of `M.B`",
    ),
    "a name bound twice (Python refuses it)": (
        "class M(Enum):\n    A = 'a'\n    B = 'b'\n    B = 'c'\n",
        "`M.B` is bound twice",
    ),
    "a name changed in place": (
        "class M(Enum):\n    A = 'a'\n    B = 'b'\n    B += 'c'\n",
        "changed in the class body at line 8",
    ),
    "unique with an alias": (
        "@enum.unique\nclass M(Enum):\n    A = 'a'\n    B = 'a'\n",
        "`B` is an alias",
    ),
    "a base of the source with members": (
        "class Base:\n    X = 1\n\n\nclass M(Base, Enum):\n    A = 'a'\n",
        "binds values in its body",
    ),
}


@pytest.mark.parametrize("case", sorted(SAID))
def test_static_says_what_only_running_would_tell(tmp_path: Path, case: str) -> None:
    body, reason = SAID[case]
    name = f"enum_said_{next(_counter)}_cli"
    text = "import argparse\nimport enum\nfrom enum import Enum, IntEnum\n\n" + body + BUILDER
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    static = load(f"{name}:build_parser", "static", base_dir=tmp_path)
    choices = static.by_flag()["--m"].choices
    assert isinstance(choices, Unevaluated)
    assert choices.source == "[m.name for m in M]"
    [diagnostic] = static.diagnostics
    assert diagnostic.message.startswith("--m: choices kept as source text")
    assert reason in diagnostic.message


def test_the_reviewed_cases_that_python_lists_are_listed_as_python_lists(tmp_path: Path) -> None:
    """`_ignore_`, a chain of targets and a private-looking single underscore together, read
    statically and live in one module."""
    body = (
        "class M(Enum):\n    _ignore_ = ['scratch']\n    _p = 'p'\n    A = B = 'a'\n"
        "    scratch = 's'\n    C = 'c'\n"
    )
    static, live = _read(tmp_path, body)
    assert static.by_flag()["--m"].choices == live.by_flag()["--m"].choices == ("_p", "A", "C")


@pytest.mark.parametrize(
    ("body", "read"),
    [
        (
            "class M(Enum):\n    _ignore_ = ['scratch']\n    A = 'a'\n    scratch = 's'\n",
            "M.scratch",
        ),
        ("class M(Enum):\n    _ignore_ = 'x y'\n    A = 'a'\n    x = 's'\n", "M.x"),
        ("class M(Enum):\n    _order_ = 'A'\n    A = 'a'\n", "M._order_"),
    ],
)
def test_a_name_that_is_no_member_read_alone_is_said(tmp_path: Path, body: str, read: str) -> None:
    """Python removes the names `_ignore_` lists, and `_sunder_` names are the Enum's own
    settings: read as one attribute (`default=M.scratch`), none of them is a member."""
    name = f"enum_attr_{next(_counter)}_cli"
    text = (
        "import argparse\nfrom enum import Enum\n\n" + body + "\n\ndef build_parser():\n"
        "    parser = argparse.ArgumentParser()\n"
        f"    parser.add_argument('--m', default={read})\n    return parser\n"
    )
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    static = load(f"{name}:build_parser", "static", base_dir=tmp_path)
    assert isinstance(static.by_flag()["--m"].default, Unevaluated)
    assert [d.message.split(":")[0] for d in static.diagnostics] == ["--m"]
