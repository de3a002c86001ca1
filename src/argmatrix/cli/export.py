"""`argmatrix export` (the resolved model as JSON) and `argmatrix snapshot` (the registry
saved as a JSON snapshot)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix.cli.common import EXIT_OK, source_options
from argmatrix.errors import json_for_log

if TYPE_CHECKING:
    from argmatrix.cli.common import Commands


def register(commands: Commands) -> None:
    export = commands.add(
        "export",
        help="Print the resolved model as JSON.",
        description="Print the registry model, and every platform resolved, as JSON.",
    )
    if export is not None:
        export.set_defaults(handler=_export)

    snapshot = commands.add(
        "snapshot",
        help="Save the registry as a JSON snapshot.",
        description="Save the registry as a versioned JSON snapshot, so docs can be built where"
        " the server's own dependencies are not installed.",
    )
    if snapshot is not None:
        snapshot.add_argument(
            "-o", "--output", metavar="FILE", required=True, help="Where to write the snapshot."
        )
        snapshot.set_defaults(handler=_snapshot)


def _export(args: argparse.Namespace) -> int:
    from argmatrix.loaders.snapshot import json_text
    from argmatrix.project import load_project

    project = load_project(source_options(args))
    sys.stdout.write(json_for_log(json_text(project.export())) + "\n")
    return EXIT_OK


def _snapshot(args: argparse.Namespace) -> int:
    from argmatrix._runtime.writer import write_text_atomically
    from argmatrix.project import portable_snapshot

    write_text_atomically(Path(args.output), portable_snapshot(source_options(args)))
    return EXIT_OK
