"""The adoption commands: audit, import, diff (the work is done in `argmatrix.adoption`).

These commands help a project move from hand-written pages to generated ones: measure how far
a page has drifted (audit), bootstrap a manifest from it (import), and describe what changed
between two releases of a registry (diff).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix.adoption import AUDIT_FORMATS, DIFF_FORMATS
from argmatrix.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    add_config_options,
    source_options,
    warn,
)
from argmatrix.errors import json_for_log, printable

if TYPE_CHECKING:
    from argmatrix.cli.common import Commands
    from argmatrix.project import RegistryWarnings


def register(commands: Commands) -> None:
    """Add the audit, import, diff and history commands."""
    _register_audit(commands)
    _register_import(commands)
    _register_diff(commands)
    _register_history(commands)


def _register_audit(commands: Commands) -> None:
    audit = commands.add(
        "audit",
        help="Measure how far a hand-written page is from the registry.",
        description="Compare a hand-written argument page (Markdown tables, or text copied from"
        " a rendered page) with the registry: unknown, missing and duplicated flags, wrong"
        " defaults, options and types, broken rows, text lost as HTML. Exit 0: the page agrees;"
        " 1: findings; 2: bad input.",
    )
    if audit is None:
        return
    audit.add_argument("page", metavar="PAGE", help="The page to audit (Markdown or copied text).")
    audit.add_argument(
        "--format",
        choices=AUDIT_FORMATS,
        default="text",
        help="Output format: one line per finding, or a JSON report.",
    )
    audit.set_defaults(handler=_audit)


def _register_import(commands: Commands) -> None:
    imports = commands.add(
        "import",
        help="Bootstrap a capability manifest from a support page.",
        description="Turn a hand-written platform support page into a capability manifest:"
        " support marks become statuses, option lists become 'options' subsets, differing"
        " defaults become platform defaults. Flags the registry does not have are left out and"
        " reported on stderr. What the page cannot tell (a reason it does not give, a default"
        " it gives otherwise than the registry) is marked 'review: needed', which 'check'"
        " reports until a person checks the entry and deletes the key.",
    )
    if imports is None:
        return
    imports.add_argument("page", metavar="PAGE", help="The support page to import.")
    imports.add_argument(
        "--platform",
        metavar="NAME",
        required=True,
        help="The platform's short name, e.g. 'ascend'.",
    )
    imports.add_argument(
        "--title",
        metavar="T",
        help="The platform's title (default: taken from the page's heading).",
    )
    imports.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="Where to write the manifest (YAML)."
    )
    imports.set_defaults(handler=_import)


# What the configuration is to `diff` and `history`, whose registries their command line names.
NO_CONFIG_HELP = (
    "Read no configuration file: warnings are said without its answers (computed:,"
    " computed_defaults:)."
)


def _register_diff(commands: Commands) -> None:
    diff = commands.add(
        "diff",
        common=False,
        help="Show what changed between two registries.",
        description="Compare two registries (snapshot .json files, or module:callable targets,"
        " followed by the subcommands that lead to the registry: 'pkg.cli:run serve')"
        " and report added, removed and renamed arguments and changed defaults, choices, types,"
        " nargs and actions, as a Markdown release-notes section or JSON.",
    )
    if diff is None:
        return
    diff.add_argument("old", metavar="OLD", help="The earlier registry: snapshot or target.")
    diff.add_argument("new", metavar="NEW", help="The later registry: snapshot or target.")
    diff.add_argument("--format", choices=DIFF_FORMATS, default="markdown", help="Output format.")
    diff.add_argument(
        "--static",
        action="store_true",
        help="Read module:callable targets from source without importing them.",
    )
    diff.add_argument(
        "--mock",
        metavar="MOD",
        action="append",
        default=None,
        help="Stand in for a heavy module when importing live (repeatable).",
    )
    diff.add_argument(
        "--old-path",
        metavar="DIR",
        action="append",
        default=None,
        help="Read OLD's modules from this folder, wheel or sdist only (repeatable; implies"
        " static reading for OLD), e.g. a 'pip install --target' folder; an archive's sources"
        " are copied out for the read, never installed.",
    )
    diff.add_argument(
        "--new-path",
        metavar="DIR",
        action="append",
        default=None,
        help="Read NEW's modules from this folder, wheel or sdist only (repeatable; implies"
        " static reading for NEW).",
    )
    diff.add_argument(
        "--old-label",
        metavar="TEXT",
        help="How OLD is named in the output, e.g. 'sglang 0.5.2' (default: OLD).",
    )
    diff.add_argument(
        "--new-label", metavar="TEXT", help="How NEW is named in the output (default: NEW)."
    )
    diff.add_argument(
        "--verbose",
        action="store_true",
        help="Show tracebacks of errors raised inside the registry's own code.",
    )
    add_config_options(diff, NO_CONFIG_HELP)
    diff.set_defaults(handler=_diff)


def _register_history(commands: Commands) -> None:
    history = commands.add(
        "history",
        common=False,
        help="Record when each flag arrived, was renamed, changed its default or left.",
        description="Read every release of a registry statically (snapshots, 'pip install"
        " --target' folders, wheels, sdists, or git revisions of this repository, none of them"
        " imported) and write a facts file: for each argument, the first and last release it is"
        " in, its renames and its default by release. No help text is kept, so the file can be"
        " committed; pages read it for an 'Added in' column.",
    )
    if history is None:
        return
    history.add_argument(
        "--target",
        metavar="MODULE:CALLABLE",
        required=True,
        help="The registry in each release, e.g. sglang.srt.server_args:ServerArgs.add_cli_args.",
    )
    history.add_argument(
        "--release",
        metavar="LABEL=SOURCE",
        action="append",
        default=None,
        help="One release, oldest first (repeatable). SOURCE: a snapshot .json, a folder, a"
        " wheel, an sdist, or git:REVISION[:FOLDER].",
    )
    history.add_argument(
        "--releases",
        metavar="DIR",
        help="Every release in this folder (snapshots, folders, wheels, sdists), labelled and"
        " ordered by the version in their names; read before any --release.",
    )
    history.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="Write the facts file here (default: standard output).",
    )
    add_config_options(history, NO_CONFIG_HELP)
    history.set_defaults(handler=_history)


# ------------------------------------------------------------------ handlers


def _audit(args: argparse.Namespace) -> int:
    from argmatrix.adoption.audit import audit_file, emit

    report = audit_file(Path(args.page), source_options(args))
    emit(report, args.format, sys.stdout)
    return EXIT_FINDINGS if report.findings else EXIT_OK


def _import(args: argparse.Namespace) -> int:
    from argmatrix.adoption.importer import import_file

    output = Path(args.output)
    imported = import_file(Path(args.page), source_options(args), args.platform, args.title, output)
    for note in imported.notes:
        print(printable(f"argmatrix: note: {note}"), file=sys.stderr)
    print(
        f"argmatrix import: wrote {output} with {len(imported.entries)} entries;"
        f" {len(imported.notes)} note(s)",
        file=sys.stderr,
    )
    return EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    from argmatrix.adoption.registry_diff import DiffSide, diff_sides, diff_text
    from argmatrix.loaders.load import mock_list

    old = DiffSide(args.old, tuple(args.old_path or ()), args.old_label)
    new = DiffSide(args.new, tuple(args.new_path or ()), args.new_label)
    warnings = _registry_warnings(args)
    diff = diff_sides(old, new, args.static, mock_list(args.mock), args.verbose, warnings)
    sys.stdout.write(diff_text(diff, args.format))
    return EXIT_OK


def _history(args: argparse.Namespace) -> int:
    from argmatrix._runtime.writer import write_text_atomically
    from argmatrix.adoption.history import history_json
    from argmatrix.adoption.releases import read_release, release_sources

    cwd = Path.cwd()
    sources = release_sources(args.releases, args.release or [], cwd)
    warnings = _registry_warnings(args)
    releases = [(s.label, read_release(s, args.target, cwd, warnings)) for s in sources]
    text = history_json(releases, args.target)
    if args.output:
        write_text_atomically(cwd / args.output, text)
        print(f"argmatrix history: wrote {args.output} ({len(releases)} releases)", file=sys.stderr)
    else:
        sys.stdout.write(json_for_log(text))  # a terminal or CI log: no raw control characters
    return EXIT_OK


def _registry_warnings(args: argparse.Namespace) -> RegistryWarnings:
    """How the registries the command line names say their warnings: as every command says
    them with the project's configuration (found as the others find it, or `--config`;
    `--no-config`: none)."""
    from argmatrix.project import RegistryWarnings, configuration_file

    config = configuration_file(args.config, args.no_config, Path.cwd())
    return RegistryWarnings(config, warn, getattr(args, "verbose", False))
