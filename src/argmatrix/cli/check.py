"""`argmatrix check`: the docs-drift check, and `check --fix`. Exit 0 when all agrees, 1 on
drift, 2 on bad input."""

from __future__ import annotations

import argparse
import contextlib
import sys

from argmatrix._runtime.writer import hold_lock, repair, write_all
from argmatrix.checks.drift import _read, run_checks
from argmatrix.checks.report import FORMATS, emit, relative_path
from argmatrix.cli.common import EXIT_FINDINGS, EXIT_OK, source_options
from argmatrix.errors import printable
from argmatrix.project import load_project


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    check = commands.add_parser(
        "check",
        parents=[common],
        help="Fail when pages, manifests or prose have drifted.",
        description="Compare generated pages with the disk, manifests with the registry, and"
        " hand-written Markdown with the registry's flags. Exit 0: all agrees; 1: drift;"
        " 2: bad input.",
    )
    check.add_argument(
        "--fix", action="store_true", help="Regenerate stale pages instead of reporting them."
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="Output format: human text, JSON findings, or GitHub annotations.",
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    project = load_project(source_options(args))
    pages = project.pages()
    config = project.config
    # Under the writers' lock: a `generate` running meanwhile is seen before or after, never
    # half done; and a write a killed run left half done is finished first.
    with hold_lock(config.project) if pages else contextlib.nullcontext():
        if pages:
            repair(config.project, config.docs_dir, {page.path.parent for page in pages})
        if args.fix:
            changed = [(p.path, p.text) for p in pages if _read(p.path) != p.text]
            for path in write_all(changed, state_dir=config.project, inside=config.docs_dir):
                print(printable(f"wrote {relative_path(str(path))}"), file=sys.stderr)
        report = run_checks(project, pages)
    emit(report, args.format, sys.stdout)
    return EXIT_FINDINGS if report.failed else EXIT_OK
