"""What a registry's source may name of `argparse`: a whitelist of its public constants and
classes. A name of the whitelist becomes a reference the interpreter can pass around; anything
else of `argparse` stays an external reference, never the real object."""

from __future__ import annotations

import argparse
from typing import Any

from argmatrix.loaders.static.python import syntax
from argmatrix.loaders.static.python.classes import ancestors
from argmatrix.loaders.static.python.values import ClassRef, ExternalRef, ReaderRef

# The parser methods that add to the registry: a call of one is replayed, and a statement or
# helper making one builds the registry (registered with the evaluator, which knows none).
PARSER_METHODS = frozenset(
    {
        "add_argument",
        "add_argument_group",
        "add_mutually_exclusive_group",
        "add_subparsers",
        "add_parser",
        "set_defaults",
    }
)
syntax.BUILDING_METHODS.update(PARSER_METHODS)
syntax.BUILDING_NAMES.add("ArgumentParser")


class ArgparseRef(ReaderRef):
    """`argparse` itself (name "") or one of its public names on the whitelist."""

    __slots__ = ("name",)
    _compared = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def described(self) -> str:
        return f"`argparse.{self.name}`" if self.name else "`argparse`"

    def identified(self) -> bool:
        return bool(self.name)


def is_parser_class(cls: ClassRef) -> bool:
    """A class of the source deriving from `argparse.ArgumentParser`."""
    return any(
        isinstance(base, ArgparseRef) and base.name == "ArgumentParser" for base in ancestors(cls)
    )


ARGPARSE_CONSTANTS: dict[str, str] = {
    name: getattr(argparse, name)
    for name in ("SUPPRESS", "OPTIONAL", "ZERO_OR_MORE", "ONE_OR_MORE", "REMAINDER", "PARSER")
}
# Classes a registry names: to build a parser, to derive a custom action or formatter from, to
# pass as `action=`. The private action classes are there because custom actions derive from
# them; a name of this list is a reference with no attribute of its own.
ARGPARSE_CLASSES = frozenset(
    {
        "ArgumentParser",
        "Action",
        "BooleanOptionalAction",
        "HelpFormatter",
        "RawDescriptionHelpFormatter",
        "RawTextHelpFormatter",
        "ArgumentDefaultsHelpFormatter",
        "MetavarTypeHelpFormatter",
        "FileType",
        "Namespace",
        "ArgumentError",
        "ArgumentTypeError",
        "_StoreAction",
        "_StoreConstAction",
        "_StoreTrueAction",
        "_StoreFalseAction",
        "_AppendAction",
        "_AppendConstAction",
        "_CountAction",
        "_HelpAction",
        "_VersionAction",
        "_ExtendAction",
        "_SubParsersAction",
    }
)


def argparse_attribute(name: str) -> Any:
    """`argparse.<name>` as the interpreter sees it."""
    if name in ARGPARSE_CONSTANTS:
        return ARGPARSE_CONSTANTS[name]
    if name in ARGPARSE_CLASSES:
        return ArgparseRef(name)
    return ExternalRef(f"argparse.{name}")


def argparse_class(value: Any) -> type | None:
    """The real argparse class behind a whitelisted reference, for the replay only."""
    if isinstance(value, ArgparseRef) and value.name in ARGPARSE_CLASSES:
        found = getattr(argparse, value.name, None)
        return found if isinstance(found, type) else None
    return None


def is_action_class(value: Any) -> bool:
    found = argparse_class(value)
    return found is not None and issubclass(found, argparse.Action)
