"""The values a replayed argparse call gives the registry's code: opaque to the evaluator.

Each is a `ReaderValue` (`python/values.py`): the evaluator passes it around, names it in a
reason (`described`) and asks it whether it builds the registry (a parser or group), reaches it
(a parser's bound method) or is a part of it (an argument), and whether assigning one of its
attributes changes what was read; only this reader (`replay`, `objects`) looks into it.
"""

from __future__ import annotations

from typing import Any, cast

from argmatrix.loaders.static.python.values import ReaderValue, SourceObject

# The fields of an argument an assignment changes after `add_argument` made it
# (`action.help = ...`): what was read would be wrong, so the read stops there.
ARGUMENT_FIELDS = frozenset(
    {
        "help",
        "default",
        "choices",
        "metavar",
        "required",
        "dest",
        "nargs",
        "type",
        "const",
        "option_strings",
        "deprecated",
        "container",
    }
)


class ParserHandle(ReaderValue):
    """A parser, argument group or subparsers object the interpreter created. The registry's
    code sees only this handle, whose attributes are the parser methods being replayed."""

    __slots__ = ("target",)
    described = "a parser object"
    builds_registry = True
    takes_attributes = True

    def __init__(self, target: Any) -> None:
        self.target = target

    def changed_by(self, attribute: str) -> bool:
        return not attribute.startswith("_")


class ParserMethod(ReaderValue):
    """A parser method named on a handle (`parser.add_argument`), replayed when called."""

    __slots__ = ("handle", "name")
    described = "a parser object"
    reaches_registry = True

    def __init__(self, handle: ParserHandle, name: str) -> None:
        self.handle = handle
        self.name = name


class ActionHandle(ReaderValue):
    """What `add_argument` returns to the registry's code: nothing it can look into."""

    __slots__ = ("target",)
    described = "a parser object"
    registry_part = True
    takes_attributes = True

    def __init__(self, target: Any) -> None:
        self.target = target

    def changed_by(self, attribute: str) -> bool:
        return attribute in ARGUMENT_FIELDS


class ParseMethod(ReaderValue):
    """`parser.parse_args` of a parser: calling it captures the parser. `name`: which of the
    parse methods (`parse_known_args` may parse a pre-parser)."""

    __slots__ = ("handle", "name")

    def __init__(self, handle: ParserHandle, name: str = "parse_args") -> None:
        self.handle = handle
        self.name = name


class ArgparseInit(ReaderValue):
    """`super().__init__` reaching argparse's: makes the replayed parser of `receiver`."""

    __slots__ = ("receiver",)

    def __init__(self, receiver: SourceObject) -> None:
        self.receiver = receiver


def parser_of(obj: SourceObject) -> ParserHandle | None:
    """The parser an object of the source is (its class derives from ArgumentParser and
    argparse's `__init__` has run): only this reader sets it (`objects.py`)."""
    return cast("ParserHandle | None", obj.parser)
