"""The `argmatrix` command line. Built with argparse, so argmatrix can document itself."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from argmatrix import __version__
from argmatrix._runtime import parallel
from argmatrix.cli import adoption, check, generate
from argmatrix.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    Handler,
    source_options,
    source_options_parser,
)
from argmatrix.errors import ArgmatrixError, json_for_log, printable


def build_parser() -> argparse.ArgumentParser:
    common = source_options_parser()
    parser = argparse.ArgumentParser(
        prog="argmatrix",
        description="Document an argparse registry and its per-platform support from one source"
        " of truth.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    export = commands.add_parser(
        "export",
        parents=[common],
        help="Print the resolved model as JSON.",
        description="Print the registry model, and every platform resolved, as JSON.",
    )
    export.set_defaults(handler=_export)

    snapshot = commands.add_parser(
        "snapshot",
        parents=[common],
        help="Save the registry as a JSON snapshot.",
        description="Save the registry as a versioned JSON snapshot, so docs can be built where"
        " the server's own dependencies are not installed.",
    )
    snapshot.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="Where to write the snapshot."
    )
    snapshot.set_defaults(handler=_snapshot)
    for register in (generate.register, check.register, adoption.register):
        register(commands, common)
    return parser


def _export(args: argparse.Namespace) -> int:
    from argmatrix.project import load_project

    project = load_project(source_options(args))
    sys.stdout.write(
        json_for_log(json.dumps(project.export(), indent=2, ensure_ascii=False)) + "\n"
    )
    return EXIT_OK


def _snapshot(args: argparse.Namespace) -> int:
    from argmatrix._runtime.writer import write_text_atomically
    from argmatrix.loaders.snapshot import snapshot_text
    from argmatrix.project import load_registry_only

    registry = load_registry_only(source_options(args))
    write_text_atomically(Path(args.output), snapshot_text(registry))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    from argmatrix.loaders.load import warnings_to

    try:
        with warnings_to(_warning):
            return handler(args)
    except ArgmatrixError as error:
        for problem in error.problems:
            print(f"argmatrix: error: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


def _warning(text: str) -> None:
    """One warning line on stderr (what static reading could not follow), control characters
    escaped; flushed at once, as a forked reader writes it too."""
    print(printable(f"argmatrix: warning: {text}"), file=sys.stderr, flush=True)


def run() -> int:
    """The `argmatrix` command: a short-lived process, so the cyclic garbage collector is tuned
    for it. A run builds up to millions of long-lived, acyclic objects (syntax trees, manifest
    entries, table rows), which reference counting frees; with the default thresholds the
    collector scans that growing heap again and again, about a third of a cold run at 10,000
    arguments. Collections still happen, just rarely."""
    gc.freeze()  # what the imports built lives as long as the process
    gc.set_threshold(100_000, 50, 100)
    parallel.allow()  # a single-threaded process of its own: forking is safe
    return main()


if __name__ == "__main__":
    sys.exit(run())
