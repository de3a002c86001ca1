"""`argmatrix check`: the docs-drift check, and `check --fix`. Exit 0 when all agrees, 1 on
drift, 2 on bad input."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from argmatrix.cli.common import EXIT_FINDINGS, EXIT_OK, source_options
from argmatrix.errors import printable

if TYPE_CHECKING:
    from argmatrix.checks.fix import Fix, Fixed
    from argmatrix.cli.common import Commands
    from argmatrix.model.findings import Finding
    from argmatrix.project import Project, SourceOptions


def register(commands: Commands) -> None:
    check = commands.add(
        "check",
        help="Fail when pages, manifests or prose have drifted.",
        description="Compare generated pages with the disk, manifests with the registry, and"
        " hand-written Markdown with the registry's flags. Exit 0: all agrees; 1: drift;"
        " 2: bad input.",
    )
    if check is None:
        return
    from argmatrix.checks.report import FORMATS  # with the findings' output: for `check` only

    check.add_argument(
        "--fix",
        action="store_true",
        help="Regenerate stale pages instead of reporting them, write a manifest entry naming"
        " a renamed flag under its new spelling, and remove stale entries from"
        " the allowlists of checks.coverage and the accept list of checks.compatibility in"
        " argmatrix.yaml (never adding one).",
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="Output format: human text, JSON findings, or GitHub annotations.",
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from argmatrix._runtime import outcome
    from argmatrix.checks.report import emit
    from argmatrix.checks.run import check, pages_to_check
    from argmatrix.loaders.load import warnings_to
    from argmatrix.project import load_project

    options = source_options(args)
    with warnings_to(None):  # the registry's warnings are findings of the check: counted
        project = load_project(options)
    if not args.fix and project.inputs().complete:
        outcome.replayable()  # what it finds depends on the files it reads alone
    fix = _fix(options) if args.fix else None
    if fix is not None:
        from argmatrix.checks.fix import with_renamed_entries

        project = with_renamed_entries(project, fix)  # before the pages state their facts

    def more(project: Project) -> list[Finding]:
        from argmatrix.checks.drift import registry_warnings

        return [*registry_warnings(project, options.verbose), *_coverage_values(project)]

    report = check(project, pages_to_check(project, fix is not None), fix, more=more)
    emit(report, args.format, sys.stdout)
    return EXIT_FINDINGS if report.failed else EXIT_OK


def _fix(options: SourceOptions) -> Fix:
    from argmatrix.checks.fix import Fix  # and its YAML editor: imported by `check --fix` only

    return Fix(wrote=_say_fixed, options=options)


def _coverage_values(project: Project) -> list[Finding]:
    """The coverage check's comparison of values (`checks.coverage`'s `compare:`), read by
    `audit`'s reader of hand-written pages; nothing is imported without a coverage page."""
    if not project.config.coverage:
        return []
    from argmatrix.adoption.audit import coverage_value_findings

    return coverage_value_findings(project)


def _say_fixed(fixed: Fixed) -> None:
    """One line on stderr for each file `check --fix` writes, as it writes it."""
    from argmatrix.checks.report import relative_path

    what = relative_path(str(fixed.file))
    if fixed.removed:
        what += f": removed {', '.join(fixed.removed)} from {fixed.listed_in}"
    if fixed.renamed:
        what += ": renamed " + ", ".join(f"{old} to {new}" for old, new in fixed.renamed)
    print(printable(f"wrote {what}"), file=sys.stderr)
