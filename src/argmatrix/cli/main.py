"""The `argmatrix` command line. Built with argparse, so argmatrix can document itself."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from argmatrix import __version__
from argmatrix.cli import adoption, check, export, generate
from argmatrix.cli.common import EXIT_BAD_INPUT, Commands, Handler, warn
from argmatrix.errors import ArgmatrixError

PROG = "argmatrix"


def build_parser(*, only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, of that command alone, the others listed by
    name and help (`cli.common.Commands`): what a run that names `only` parses identically."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Document an argparse registry and its per-platform support from one source"
        " of truth.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # `prog` given: argparse would otherwise format a usage line (and import shutil) to find it
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=PROG)
    commands = Commands(subparsers, only)
    for register in (export.register, generate.register, check.register, adoption.register):
        register(commands)
    return parser


def command_named(argv: Sequence[str]) -> str:
    """The command a command line runs: its first word that is not an option (`argmatrix` has
    no option taking a value), or "" when there is none. A word argparse would take otherwise
    ('-' or '-1') is no command's name: it ends in the same 'invalid choice' error either way."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=command_named(argv))
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    from argmatrix.loaders.load import warnings_to

    try:
        with warnings_to(warn):
            return handler(args)
    except ArgmatrixError as error:
        for problem in error.problems:
            print(f"argmatrix: error: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


def run() -> int:
    """The `argmatrix` command: a short-lived process, so the cyclic garbage collector is tuned
    for it. A run builds up to millions of long-lived, acyclic objects (syntax trees, manifest
    entries, table rows), which reference counting frees; with the default thresholds the
    collector scans that growing heap again and again, about a third of a cold run at 10,000
    arguments. Collections still happen, just rarely."""
    gc.freeze()  # what the imports built lives as long as the process
    gc.set_threshold(100_000, 50, 100)
    return main()


if __name__ == "__main__":
    sys.exit(run())
