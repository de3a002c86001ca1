"""The `argmatrix` command line. Built with argparse, so argmatrix can document itself."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__, parallel
from .errors import ArgmatrixError, json_for_log, printable

EXIT_OK, EXIT_DRIFT, EXIT_BAD_INPUT = 0, 1, 2

Handler = Callable[[argparse.Namespace], int]


def _source_options() -> argparse.ArgumentParser:
    """Options every command takes; they override the configuration file."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("Registry and manifests")
    group.add_argument(
        "--config", metavar="FILE",
        help="Configuration file (default: argmatrix.yaml in the current directory, if present).",
    )
    group.add_argument(
        "--registry", metavar="TARGET",
        help="The registry: module:callable (a function that returns an ArgumentParser or fills"
        " the one it is given), or a snapshot .json file.",
    )
    group.add_argument(
        "--static", action="store_true",
        help="Read the registry from its source without importing it.",
    )
    group.add_argument(
        "--mock", metavar="MOD", action="append", default=None,
        help="Stand in for a heavy module that is not installed when importing live"
        " (repeatable).",
    )
    group.add_argument(
        "--manifest", metavar="FILE", action="append", default=None,
        help="A platform capability manifest (repeatable; replaces the configured list).",
    )
    group.add_argument(
        "--verbose", action="store_true",
        help="Show tracebacks of errors raised inside the registry's own code.",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _source_options()
    parser = argparse.ArgumentParser(
        prog="argmatrix",
        description="Document an argparse registry and its per-platform support from one source"
        " of truth.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    export = commands.add_parser(
        "export", parents=[common], help="Print the resolved model as JSON.",
        description="Print the registry model, and every platform resolved, as JSON.",
    )
    export.set_defaults(handler=_export)

    snapshot = commands.add_parser(
        "snapshot", parents=[common], help="Save the registry as a JSON snapshot.",
        description="Save the registry as a versioned JSON snapshot, so docs can be built where"
        " the server's own dependencies are not installed.",
    )
    snapshot.add_argument("-o", "--output", metavar="FILE", required=True,
                          help="Where to write the snapshot.")
    snapshot.set_defaults(handler=_snapshot)
    _add_later_commands(commands, common)
    return parser


def _add_later_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Commands from other modules register here, keeping this module's import light."""
    from .commands import register

    register(commands, common)


def _export(args: argparse.Namespace) -> int:
    from .project import load_project

    project = load_project(args)
    sys.stdout.write(json_for_log(json.dumps(project.export(), indent=2, ensure_ascii=False)) + "\n")
    return EXIT_OK


def _snapshot(args: argparse.Namespace) -> int:
    from .project import load_registry_only
    from .registry import snapshot_text, write_text_atomically

    registry = load_registry_only(args)
    write_text_atomically(Path(args.output), snapshot_text(registry))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    from .registry import warnings_to

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
