"""`argmatrix generate` (write every configured page) and `argmatrix schema`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix.cli.common import EXIT_FINDINGS, EXIT_OK, source_options
from argmatrix.errors import printable

if TYPE_CHECKING:
    from argmatrix.cli.common import Commands
    from argmatrix.model.findings import Finding


def register(commands: Commands) -> None:
    generate = commands.add(
        "generate",
        help="Write every configured page.",
        description="Render every page of argmatrix.yaml and write them; all pages or none.",
    )
    if generate is not None:
        generate.set_defaults(handler=_generate)

    schema = commands.add(
        "schema",
        common=False,
        help="Print a JSON Schema: of a manifest (the default), argmatrix.yaml or findings.",
        description="Print one JSON Schema, so editors and tools can validate what argmatrix"
        " reads and writes: 'manifest' (a capability manifest, the default), 'config'"
        " (argmatrix.yaml) or 'findings' (what 'check --format json' prints).",
    )
    if schema is not None:
        schema.add_argument(
            "kind",
            nargs="?",
            default="manifest",
            choices=("manifest", "config", "findings"),
            help="Which schema to print: manifest, config or findings (default: manifest).",
        )
        schema.set_defaults(handler=_schema)


def _generate(args: argparse.Namespace) -> int:
    from argmatrix.generate import generate
    from argmatrix.project import load_project

    project = load_project(source_options(args))
    done = generate(project, warn=_say_finding)
    if done.stopped_by:
        kinds = sorted({finding.kind for finding in done.stopped_by})
        print(
            printable(
                f"argmatrix generate: nothing written: {len(done.stopped_by)} error(s) in the"
                " manifests (fix: correct them, or publish anyway with checks.severity:"
                f" {{{kinds[0]}: warning}} in argmatrix.yaml)"
            ),
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    for path in done.written:
        print(printable(f"wrote {_relative(path)}"))
    if done.unchanged:
        print(printable(unchanged_line([_relative(path) for path in done.unchanged])))
    return EXIT_OK


def unchanged_line(pages: list[str], shown: int = 5) -> str:
    """One line for the pages `generate` left alone: `unchanged: 2 pages (a.md, b.md)`."""
    names = ", ".join(pages[:shown]) + (
        f", and {len(pages) - shown} more" if len(pages) > shown else ""
    )
    return f"unchanged: {len(pages)} page{'s' if len(pages) != 1 else ''} ({names})"


def _say_finding(finding: Finding) -> None:
    """A manifest entry that does not fit the registry, on stderr as `check` words it."""
    from argmatrix.checks.report import text_line

    print(text_line(finding), file=sys.stderr, flush=True)


def _relative(path: Path) -> str:
    for folder in (Path.cwd(), Path.cwd().resolve()):  # pages are resolved, the cwd may not be
        try:
            return str(path.relative_to(folder))
        except ValueError:
            continue
    return str(path)


def _schema(args: argparse.Namespace) -> int:
    from argmatrix.schema import schema_text

    sys.stdout.write(schema_text(args.kind))
    return EXIT_OK
