"""What one read replayed on real argparse: the parsers and actions made, where each argument
was added, the stand-in action classes, the `add_argument` methods of the source being followed
(`WrapperCall`), and the calls made inside a branch static reading cannot decide (`replay` turns
the registry's calls into these, `statements` compares branches with the log)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, cast

from argmatrix.loaders.sections import CallSite
from argmatrix.loaders.static.argparse_parsers.handles import ActionHandle, ParserHandle
from argmatrix.loaders.static.python.values import (
    contains_unevaluated,
)
from argmatrix.model.registry import Unevaluated

if TYPE_CHECKING:
    from argmatrix.loaders.static.python.evaluator import Evaluator


class WrapperCall:
    """An `add_argument` of the source being followed: where it is called and the keywords it
    was given that argparse does not know (recorded from the outermost such call)."""

    __slots__ = ("extra", "file", "line", "start")

    def __init__(self, file: str, line: int, start: int, extra: dict[str, Any]) -> None:
        self.file = file
        self.line = line
        self.start = start
        self.extra = extra


class Recording:
    """What one read replayed: the parsers and actions (kept alive, so their ids stay unique),
    where each argument was added, and the stand-in action classes made for it."""

    def __init__(self, prog: str = "prog") -> None:
        self.sites: dict[int, CallSite] = {}
        self.keep: list[Any] = []
        self.prog = prog  # what a parser made without `prog` is called (as in live loading)
        self.calls = 0  # parser calls replayed so far
        self.placeholders: dict[tuple[str, type], type] = {}
        # Inside a branch static reading cannot decide: what each call was, to compare branches.
        self.logging = 0
        self.log: list[tuple[Any, ...]] = []
        # The add_argument methods of the source being followed, outermost first (`objects`).
        self.wrapper_calls: list[WrapperCall] = []

    def placeholder_action(self, name: str, base: type = argparse.Action) -> type:
        key = (name, base)
        if key not in self.placeholders:
            self.placeholders[key] = type(name, (base,), {})
        return self.placeholders[key]

    def parser(self, **kwargs: Any) -> ParserHandle:
        """A parser for replaying calls. argparse makes a help formatter (and asks for the
        terminal size) on every add_argument to check metavars; one formatter serves them all."""
        kwargs.setdefault("prog", self.prog)
        parser = argparse.ArgumentParser(**kwargs)
        formatter = parser._get_formatter()
        parser._get_formatter = lambda: formatter  # type: ignore[method-assign]
        self.keep.append(parser)
        self.calls += 1
        return ParserHandle(parser)

    def add_argument(
        self, handle: ParserHandle, flags: list[str], kwargs: dict[str, Any], site: CallSite
    ) -> ActionHandle:
        """Replay one add_argument with argparse-ready keywords; values argparse checks while
        adding (computed choices, an unknown nargs) are set on the action afterwards."""
        after: dict[str, Any] = {}
        if sys.version_info < (3, 13) and "deprecated" in kwargs:
            after["deprecated"] = kwargs.pop("deprecated")
        if contains_unevaluated(kwargs.get("choices")):
            after["choices"] = kwargs.pop("choices")
        if isinstance(kwargs.get("nargs"), Unevaluated):
            after["nargs"] = kwargs["nargs"]
            kwargs["nargs"] = "*"
        action = handle.target.add_argument(*flags, **kwargs)
        for key, value in after.items():
            setattr(action, key, value)
        self.keep.append(action)
        self.sites[id(action)] = site
        self.calls += 1
        return ActionHandle(action)

    def call(self, handle: ParserHandle, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Replay add_argument_group, add_subparsers, add_parser... with plain data."""
        result = getattr(handle.target, name)(*args, **kwargs)
        self.keep.append(result)
        self.calls += 1
        if name == "set_defaults":
            return None
        if name == "add_parser":
            formatter = result._get_formatter()
            result._get_formatter = lambda: formatter
        return ParserHandle(result)


def recording_of(it: Evaluator) -> Recording:
    """The recording of the read `it` runs in: the evaluator knows no parser, so what was
    replayed is the read's (`ReadContext.recording`)."""
    return cast(Recording, it.loader.recording)
