"""`argmatrix check`: the docs-drift check, and `check --fix`. Exit 0 when all agrees, 1 on
drift, 2 on bad input."""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import replace
from pathlib import Path

from argmatrix._runtime.files import read_regular_file
from argmatrix._runtime.writer import hold_lock, repair, write_all
from argmatrix.checks.coverage import STALE, all_stale_entries, shrink_allowlists
from argmatrix.checks.drift import _read, run_checks
from argmatrix.checks.report import FORMATS, emit, relative_path
from argmatrix.cli.common import EXIT_FINDINGS, EXIT_OK, source_options
from argmatrix.errors import ArgmatrixError, printable
from argmatrix.project import Project, SourceOptions, config_with, load_project


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
        "--fix",
        action="store_true",
        help="Regenerate stale pages instead of reporting them, and remove stale entries from"
        " the allowlists of checks.coverage in argmatrix.yaml (never adding one).",
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="Output format: human text, JSON findings, or GitHub annotations.",
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    options = source_options(args)
    project = load_project(options)
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
            project = _shrink_allowlists(project, options)
        report = run_checks(project, pages)
    emit(report, args.format, sys.stdout)
    return EXIT_FINDINGS if report.failed else EXIT_OK


def _shrink_allowlists(project: Project, options: SourceOptions) -> Project:
    """Remove the stale allowlist entries of checks.coverage from argmatrix.yaml (every other
    byte kept, written all or none), and return the project with the configuration re-read."""
    config = project.config
    if config.file is None or not config.coverage or config.severity.get(STALE) == "off":
        return project
    stale = all_stale_entries(project)
    if not stale:
        return project
    text = _config_text(config.file)
    shrunk = shrink_allowlists(text, stale, str(config.file))
    if shrunk == text:
        return project
    write_all([(config.file, shrunk)], state_dir=config.project, inside=config.file.parent)
    removed = ", ".join(entry.finding.flag or "" for entry in stale)
    shown = relative_path(str(config.file))
    print(printable(f"wrote {shown}: removed {removed} from allow_undocumented"), file=sys.stderr)
    return replace(project, config=config_with(options))


def _config_text(path: Path) -> str:
    """argmatrix.yaml exactly as it is (its line endings kept), to edit it byte for byte."""
    data = read_regular_file(path, "the configuration", "check the --config path")
    if data is None:
        raise ArgmatrixError.at("configuration file not found", file=str(path))
    return data.decode("utf-8")  # it was read as UTF-8 already
