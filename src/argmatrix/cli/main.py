"""The `argmatrix` command line. Built with argparse, so argmatrix can document itself."""

from __future__ import annotations

import gc
import sys

TYPE_CHECKING = False  # `typing` is not imported: a replay imports this module
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from argmatrix.errors import Problem

PROG = "argmatrix"
# Commands whose outcome may be replayed (`_runtime/outcome.py`): a run that ends finding what
# an earlier one found, with nothing it looked at changed, imports nothing but the replay.
REPLAYED = ("check",)


def build_parser(*, only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, of that command alone, the others listed by
    name and help (`cli.common.Commands`): what a run that names `only` parses identically."""
    import argparse

    from argmatrix import __version__
    from argmatrix.cli import adoption, check, export, generate
    from argmatrix.cli.common import Commands

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
    from argmatrix.cli.common import EXIT_BAD_INPUT, Handler, new_run, warn
    from argmatrix.errors import ArgmatrixError

    new_run()

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
            print(f"argmatrix: error: {shown_here(problem)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


def shown_here(problem: Problem) -> Problem:
    """`problem` with its file named from the current folder, as warnings name theirs
    (`argmatrix.yaml:6`, `../argmatrix.yaml:6` from `docs/`): a file in the current folder or
    below it, or in the project the current folder is in (the folder of the nearest
    argmatrix.yaml); any other file keeps its absolute path."""
    import os
    from dataclasses import replace
    from pathlib import Path

    from argmatrix.config import find_config
    from argmatrix.errors import ArgmatrixError

    if not problem.file or not os.path.isabs(problem.file):
        return problem

    cwd = Path.cwd()
    file = Path(os.path.normpath(problem.file))
    try:
        found = find_config(None, cwd)
    except (ArgmatrixError, OSError):
        found = None
    home = cwd if found is None else found.parent
    if not file.is_relative_to(home if cwd.is_relative_to(home) else cwd):
        return problem
    return replace(problem, file=Path(os.path.relpath(file, cwd)).as_posix())


def run() -> int:
    """The `argmatrix` command. A replayed command (`REPLAYED`) first looks for the outcome of
    an earlier run that still holds (`_runtime/outcome.py`); otherwise it runs, observed, so
    that its outcome may be replayed next time."""
    argv = sys.argv[1:]
    if not argv or argv[0] not in REPLAYED:
        return _main(argv)
    from argmatrix._runtime import outcome

    replayed = outcome.replayed(argv)
    if replayed is not None:
        return replayed
    recording = outcome.start(argv)
    code: int | None = None
    try:
        code = _main(argv)
    finally:
        if recording is not None:
            outcome.stop(recording, code)
    return code


def _main(argv: list[str]) -> int:
    """A short-lived process, so the cyclic garbage collector is tuned for it. A run builds up
    to millions of long-lived, acyclic objects (syntax trees, manifest entries, table rows),
    which reference counting frees; with the default thresholds the collector scans that
    growing heap again and again, about a third of a cold run at 10,000 arguments. Collections
    still happen, just rarely. What the run built is frozen when it ends, likewise: the
    collections Python makes as it exits would otherwise go through all of it (20 ms of a
    cold showcase export), only for the process to end."""
    gc.freeze()  # what the imports built lives as long as the process
    gc.set_threshold(100_000, 50, 100)
    try:
        return main(argv)
    finally:
        gc.freeze()


if __name__ == "__main__":
    sys.exit(run())
