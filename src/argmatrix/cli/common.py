"""What every command shares: exit codes, the subcommands' table (`Commands`), the source
options and their plain-value form.

The core never sees an `argparse.Namespace`: a handler turns its arguments into
`project.SourceOptions` with `source_options` and passes plain values on.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from argmatrix.errors import printable

if TYPE_CHECKING:
    from argmatrix.project import SourceOptions

    # what `add_subparsers` returns; not subscriptable at run time
    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2

Handler = Callable[[argparse.Namespace], int]


class Commands:
    """The subcommands of `argmatrix`, each registered by its module with `add`.

    A run builds the parser of its own command (`selected`) only: the others are listed by name
    and help, which is all `argmatrix --help` and an unknown command's error show, and get no
    options (building every command's options, the source options again for each, took 6 ms of
    every run). `selected` "" (no command named): every command is listed only; None: every
    command is built (the CLI reference reads the whole parser)."""

    def __init__(self, subparsers: SubParsers, selected: str | None = None) -> None:
        self._subparsers = subparsers
        self._selected = selected
        self._common: argparse.ArgumentParser | None = None

    def add(
        self, name: str, *, help: str, common: bool = True, **settings: Any
    ) -> argparse.ArgumentParser | None:
        """The parser of command `name`, for its module to add its options to; None when
        another command runs (`name` is only listed, with its `help`). `common`: it takes the
        options every command reading a project takes (`source_options_parser`)."""
        if self._selected is not None and name != self._selected:
            # never parses: the command line names another command (or one that is unknown)
            self._subparsers.add_parser(name, help=help, add_help=False)
            return None
        if common:
            settings["parents"] = [self._source_options()]
        return self._subparsers.add_parser(name, help=help, **settings)

    def _source_options(self) -> argparse.ArgumentParser:
        if self._common is None:
            self._common = source_options_parser()
        return self._common


def source_options_parser() -> argparse.ArgumentParser:
    """Options every command takes; they override the configuration file."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("Registry and manifests")
    add_config_options(
        group,
        "Read no configuration file: the command line says where the registry and the"
        " manifests are.",
    )
    group.add_argument(
        "--registry",
        metavar="TARGET",
        help="The registry: module:callable (a function that returns an ArgumentParser or fills"
        " the one it is given), or a snapshot .json file. Another target than the"
        " configuration's takes none of its settings that name the configured registry's"
        " flags (manifests, computed_defaults, computed, stability, section_titles,"
        " environment arguments, checks.compatibility and checks.coverage).",
    )
    group.add_argument(
        "--static",
        action="store_true",
        help="Read the registry from its source without importing it.",
    )
    group.add_argument(
        "--mock",
        metavar="MOD",
        action="append",
        default=None,
        help="Stand in for a heavy module that is not installed when importing live"
        " (repeatable); 'auto' stands in for every module that fails to import.",
    )
    group.add_argument(
        "--parser-class",
        metavar="MODULE:CLASS",
        type=_module_name,
        help="Live mode: the parser class a filler is handed (the project's own subclass).",
    )
    group.add_argument(
        "--env",
        metavar="NAME=VALUE",
        action="append",
        type=_variable,
        default=None,
        help="Live mode: an environment variable set while the registry is imported and built"
        " (repeatable).",
    )
    group.add_argument(
        "--argv",
        metavar="WORDS",
        type=_words,
        help="Live mode: the command line the registry sees after the program name, as one"
        " shell-quoted text ('--argv \"serve --help\"'; '--argv=--help' for one that starts"
        " with a dash).",
    )
    group.add_argument(
        "--subcommand",
        metavar="NAME",
        action="append",
        default=None,
        help="The subcommand whose arguments are the registry (repeat for a path: --subcommand"
        " serve --subcommand api_server).",
    )
    group.add_argument(
        "--manifest",
        metavar="FILE",
        action="append",
        default=None,
        help="A platform capability manifest (repeatable; replaces the configured list).",
    )
    group.add_argument(
        "--verbose",
        action="store_true",
        help="Show tracebacks of errors raised inside the registry's own code.",
    )
    return common


def add_config_options(group: argparse._ActionsContainer, no_config_help: str) -> None:
    """--config FILE or --no-config, one of them: which configuration a command reads."""
    configuration = group.add_mutually_exclusive_group()
    configuration.add_argument(
        "--config",
        metavar="FILE",
        help="Configuration file (default: argmatrix.yaml in the current folder or the nearest"
        " one above it, up to the repository's root).",
    )
    configuration.add_argument("--no-config", action="store_true", help=no_config_help)


def _module_name(text: str) -> str:
    module, sep, attr = text.partition(":")
    if not sep or not all(p.isidentifier() for half in (module, attr) for p in half.split(".")):
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form module:Class")
    return text


def _variable(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form NAME=VALUE")
    return name, value


def _words(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def source_options(args: argparse.Namespace) -> SourceOptions:
    """The source options of a parsed command line, as plain values."""
    from argmatrix.loaders.load import mock_list
    from argmatrix.project import SourceOptions

    return SourceOptions(
        config=args.config,
        no_config=args.no_config,
        registry=args.registry,
        static=args.static,
        mock=mock_list(args.mock),
        manifests=tuple(args.manifest) if args.manifest else None,
        verbose=args.verbose,
        parser_class=args.parser_class,
        env=tuple(args.env or ()),
        argv=args.argv,
        subcommand=tuple(args.subcommand or ()),
    )


_WARNED: set[str] = set()  # the warnings of this run, said once each


def new_run() -> None:
    """A run of a command starts (another one in the same process, as tests run them)."""
    _WARNED.clear()


def warn(text: str) -> None:
    """One warning line on stderr (what static reading could not follow, a manifest entry that
    does not fit), control characters escaped; flushed at once, as a forked reader writes too.
    Once a run: a command reading one source twice (`diff` of two targets in one file) says
    each warning once."""
    if text in _WARNED:
        return
    _WARNED.add(text)
    print(printable(f"argmatrix: warning: {text}"), file=sys.stderr, flush=True)
