"""The parser `vllm serve` parses its command line with, as vLLM itself builds it, dumped as JSON
(run by the Python of `make live-env-vllm`; tests/test_live_vllm.py compares argmatrix with it).

vLLM's own entry point (`vllm.entrypoints.cli.main:main`) runs under the command line given after
`--`, and is stopped when it asks its top parser to parse: the `serve` subparser is then the
registry, exactly as vLLM built it. Nothing of argmatrix is imported here. The two structured-output
libraries vLLM imports lazily and this environment does not install (xgrammar, llguidance) are
empty modules whose every attribute is a class: building the parser never uses them.

Usage: python vllm_serve_parser.py [--help-texts] [--all] -- WORD...   (the words after `vllm`)
With --help-texts, vLLM's argument helpers are imported under `vllm serve --help` (vLLM writes its
help texts only when --help is on the command line at that moment) before the command line is set.
With --all, every parser of the command line is dumped, keyed by its subcommands' words ("" for
`vllm` itself, "bench latency", ...), instead of `serve`'s alone.
"""

from __future__ import annotations

import argparse
import enum
import importlib.abc
import importlib.machinery
import json
import sys
import types
from typing import Any


class Captured(BaseException):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


def empty_module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # type: ignore[attr-defined]

    def attribute(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return type(attr, (), {})

    module.__getattr__ = attribute  # type: ignore[method-assign]
    return module


class EmptyModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Any module of the named packages, when it is not installed, is an empty module."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".", 1)[0] not in self.roots:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return empty_module(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def plain(value: Any) -> Any:
    """A value as JSON: JSON's own kinds as they are (a set, which JSON has not, as a sorted
    list), an enum member by its class and name, anything else by both texts Python gives it."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, enum.Enum):
        return {"enum": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, dict) and all(type(k) is str for k in value):
        return {k: plain(v) for k, v in value.items()}
    return {"str": str(value), "repr": repr(value)}


# What argparse.Action.__init__ sets (and the group argparse records an action in); anything else
# on an action is the project's own.
ACTION_FIELDS = {*vars(argparse.Action(["-x"], "x")), "container"}


def dump(parser: argparse.ArgumentParser) -> dict[str, Any]:
    names = {
        cls: name for name, cls in parser._registries["action"].items() if isinstance(name, str)
    }
    section = {}
    for group in parser._action_groups:
        for action in group._group_actions:
            section.setdefault(id(action), group.title)
    formatter = argparse.HelpFormatter(parser.prog)
    arguments = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        arguments.append(
            {
                "flags": list(action.option_strings),
                "dest": action.dest,
                "section": section.get(id(action)),
                "action": names.get(type(action), type(action).__name__),
                "type": None if action.type is None else getattr(action.type, "__name__", None),
                "default": plain(action.default),
                "choices": None if action.choices is None else [plain(c) for c in action.choices],
                "nargs": action.nargs,
                "required": action.required,
                "metavar": plain(action.metavar),
                "help": formatter._expand_help(action) if action.help else action.help,
                "extra": {
                    k: plain(v)
                    for k, v in vars(action).items()
                    if k not in ACTION_FIELDS and not k.startswith("_")
                },
            }
        )
    return {"prog": parser.prog, "arguments": arguments}


def main() -> None:
    options, words = sys.argv[1 : sys.argv.index("--")], sys.argv[sys.argv.index("--") + 1 :]
    sys.meta_path.append(EmptyModules(("xgrammar", "llguidance")))
    if "--help-texts" in options:
        sys.argv = ["vllm", "serve", "--help"]
        import vllm.engine.arg_utils  # noqa: F401  (its NEEDS_HELP is decided now)
    sys.argv = ["vllm", *words]
    from vllm.entrypoints.cli.main import main as vllm_main
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise Captured(self)

    FlexibleArgumentParser.parse_args = capture  # type: ignore[method-assign,assignment]
    try:
        vllm_main()
    except Captured as captured:
        top = captured.parser
    else:
        raise SystemExit("vLLM's main() never parsed its command line")
    if "--all" in options:
        json.dump({" ".join(words): dump(p) for words, p in every_parser(top, ())}, sys.__stdout__)
        return
    json.dump(dump(subcommands(top)["serve"]), sys.__stdout__)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (aliases left out), in the order they were added."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():  # a name first, then its aliases
                if all(sub is not seen for seen in found.values()):
                    found[name] = sub
    return found


def every_parser(
    parser: argparse.ArgumentParser, words: tuple[str, ...]
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    found = [(words, parser)]
    for name, sub in subcommands(parser).items():
        found += every_parser(sub, (*words, name))
    return found


if __name__ == "__main__":
    main()
