"""`argmatrix generate` (write every configured page) and `argmatrix schema`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from argmatrix.cli.common import source_options
from argmatrix.errors import ArgmatrixError, printable


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    generate = commands.add_parser(
        "generate",
        parents=[common],
        help="Write every configured page.",
        description="Render every page of argmatrix.yaml and write them; all pages or none.",
    )
    generate.set_defaults(handler=_generate)

    schema = commands.add_parser(
        "schema",
        help="Print a JSON Schema (capability manifest by default).",
        description="Print the JSON Schema of a capability manifest, so editors can validate it.",
    )
    schema.add_argument(
        "kind",
        nargs="?",
        default="manifest",
        choices=("manifest", "config", "findings"),
        help="Which schema to print.",
    )
    schema.set_defaults(handler=_schema)


def _generate(args: argparse.Namespace) -> int:
    from argmatrix._runtime.writer import write_all
    from argmatrix.project import load_project

    project = load_project(source_options(args))
    if not project.config.pages:
        raise ArgmatrixError.at(
            "no pages configured",
            file=str(project.config.file or "argmatrix.yaml"),
            fix="add a 'pages:' list with template and output to argmatrix.yaml",
        )
    for resolved in project.resolved.values():
        for finding in resolved.findings:
            where = f"{finding.file}:{finding.line}: " if finding.file else ""
            print(printable(f"argmatrix: warning: {where}{finding.message}"), file=sys.stderr)
    pages = project.pages()
    config = project.config
    written = write_all(
        ((page.path, page.text) for page in pages), state_dir=config.project, inside=config.docs_dir
    )
    for path in written:
        print(printable(f"wrote {_relative(path)}"))
    return 0


def _relative(path: Path) -> str:
    for folder in (Path.cwd(), Path.cwd().resolve()):  # pages are resolved, the cwd may not be
        try:
            return str(path.relative_to(folder))
        except ValueError:
            continue
    return str(path)


def _schema(args: argparse.Namespace) -> int:
    from argmatrix.schema import SCHEMAS

    sys.stdout.write(json.dumps(SCHEMAS[args.kind], indent=2) + "\n")
    return 0
