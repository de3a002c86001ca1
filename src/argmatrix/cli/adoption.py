"""The adoption commands: audit, import, diff (the work is done in `argmatrix.adoption`).

These commands help a project move from hand-written pages to generated ones: measure how far
a page has drifted (audit), bootstrap a manifest from it (import), and describe what changed
between two releases of a registry (diff).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix.adoption import AUDIT_FORMATS, DIFF_FORMATS
from argmatrix.cli.common import EXIT_FINDINGS, EXIT_OK, source_options

if TYPE_CHECKING:
    from argmatrix.adoption.releases import ReleaseSource
    from argmatrix.cli.common import Commands
    from argmatrix.model.registry import Registry
from argmatrix.errors import ArgmatrixError, Problem, json_for_log, printable
from argmatrix.loaders.load import RegistrySpec, load_registry, mock_list
from argmatrix.loaders.modes import LOADERS, guess_mode


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    """Add the audit, import, diff and history commands."""
    _register_audit(commands, common)
    _register_import(commands, common)
    _register_diff(commands)
    _register_history(commands)


def _register_audit(commands: Commands, common: argparse.ArgumentParser) -> None:
    audit = commands.add_parser(
        "audit",
        parents=[common],
        help="Measure how far a hand-written page is from the registry.",
        description="Compare a hand-written argument page (Markdown tables, or text copied from"
        " a rendered page) with the registry: unknown, missing and duplicated flags, wrong"
        " defaults, options and types, broken rows, text lost as HTML. Exit 0: the page agrees;"
        " 1: findings; 2: bad input.",
    )
    audit.add_argument("page", metavar="PAGE", help="The page to audit (Markdown or copied text).")
    audit.add_argument(
        "--format",
        choices=AUDIT_FORMATS,
        default="text",
        help="Output format: one line per finding, or a JSON report.",
    )
    audit.set_defaults(handler=_audit)


def _register_import(commands: Commands, common: argparse.ArgumentParser) -> None:
    imports = commands.add_parser(
        "import",
        parents=[common],
        help="Bootstrap a capability manifest from a support page.",
        description="Turn a hand-written platform support page into a capability manifest:"
        " support marks become statuses, option lists become 'options' subsets, differing"
        " defaults become platform defaults. Flags the registry does not have are left out and"
        " reported on stderr.",
    )
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


def _register_diff(commands: Commands) -> None:
    diff = commands.add_parser(
        "diff",
        help="Show what changed between two registries.",
        description="Compare two registries (snapshot .json files, or module:callable targets)"
        " and report added, removed and renamed arguments and changed defaults, choices, types,"
        " nargs and actions, as a Markdown release-notes section or JSON.",
    )
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
        help="Read OLD's modules from this folder only (repeatable; implies static"
        " reading for OLD), e.g. a 'pip install --target' folder.",
    )
    diff.add_argument(
        "--new-path",
        metavar="DIR",
        action="append",
        default=None,
        help="Read NEW's modules from this folder only (repeatable; implies static"
        " reading for NEW).",
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
    diff.set_defaults(handler=_diff)


def _register_history(commands: Commands) -> None:
    history = commands.add_parser(
        "history",
        help="Record when each flag arrived, was renamed, changed its default or left.",
        description="Read every release of a registry statically (snapshots, 'pip install"
        " --target' folders, wheels, sdists, or git revisions of this repository, none of them"
        " imported) and write a facts file: for each argument, the first and last release it is"
        " in, its renames and its default by release. No help text is kept, so the file can be"
        " committed; pages read it for an 'Added in' column.",
    )
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
        "--output",
        metavar="FILE",
        help="Write the facts file here (default: standard output).",
    )
    history.set_defaults(handler=_history)


# ------------------------------------------------------------------ handlers


def _audit(args: argparse.Namespace) -> int:
    from argmatrix.adoption.audit import audit_page, emit
    from argmatrix.adoption.handwritten import read_page
    from argmatrix.project import config_with

    page = read_page(Path(args.page))
    options = source_options(args)
    config = config_with(options)
    assert config.registry is not None
    registry = load_registry(config.registry, verbose=options.verbose)
    # Defaults the configuration says are computed at run time may be said in words.
    computed = config.display.facts(registry, str(config.file or "argmatrix.yaml")).computed
    report = audit_page(page, registry, computed)
    emit(report, args.format, sys.stdout)
    return EXIT_FINDINGS if report.findings else EXIT_OK


def _import(args: argparse.Namespace) -> int:
    from argmatrix.adoption.handwritten import read_page
    from argmatrix.adoption.importer import import_page, manifest_text, write_manifest
    from argmatrix.project import load_registry_only

    page = read_page(Path(args.page))
    registry = load_registry_only(source_options(args))
    imported = import_page(page, registry, args.platform, args.title)
    output = Path(args.output)
    write_manifest(output, manifest_text(imported, registry, Path(args.page).name))
    for note in imported.notes:
        print(printable(f"argmatrix: note: {note}"), file=sys.stderr)
    print(
        f"argmatrix import: wrote {output} with {len(imported.entries)} entries;"
        f" {len(imported.notes)} note(s)",
        file=sys.stderr,
    )
    return EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    from argmatrix.adoption.registry_diff import diff_json, diff_markdown, diff_registries

    old = load_registry(
        _diff_spec(args.old, args.static, args.old_path, args.mock), verbose=args.verbose
    )
    new = load_registry(
        _diff_spec(args.new, args.static, args.new_path, args.mock), verbose=args.verbose
    )
    diff = diff_registries(
        old,
        new,
        args.old_label or _label(args.old, args.old_path),
        args.new_label or _label(args.new, args.new_path),
    )
    sys.stdout.write(
        json_for_log(diff_json(diff)) if args.format == "json" else diff_markdown(diff)
    )
    return EXIT_OK


def _history(args: argparse.Namespace) -> int:
    from argmatrix._runtime.writer import write_text_atomically
    from argmatrix.adoption.history import history_json
    from argmatrix.adoption.releases import ReleaseSource, releases_in

    cwd = Path.cwd()
    sources = releases_in(cwd / args.releases) if args.releases else []
    sources += [ReleaseSource.parse(text) for text in args.release or []]
    if not sources:
        raise ArgmatrixError(
            Problem("no releases to read", fix="name them with --release or --releases")
        )
    labels = [s.label for s in sources]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ArgmatrixError(
            Problem(
                f"release {repeated[0]!r} is named twice",
                fix="give each release its own label",
            )
        )
    releases = [(source.label, _read_release(source, args.target, cwd)) for source in sources]
    text = history_json(releases, args.target)
    if args.output:
        write_text_atomically(cwd / args.output, text)
        print(f"argmatrix history: wrote {args.output} ({len(releases)} releases)", file=sys.stderr)
    else:
        sys.stdout.write(json_for_log(text))  # a terminal or CI log: no raw control characters
    return EXIT_OK


def _read_release(source: ReleaseSource, target: str, cwd: Path) -> Registry:
    """One release, its diagnostics and errors naming the archive rather than the private
    folder its sources were copied into."""
    from argmatrix.adoption.releases import release_read
    from argmatrix.loaders.load import warnings_to

    with release_read(source, target, cwd) as read:

        def warn(text: str) -> None:
            print(
                printable(f"argmatrix: warning: {read.shown(text, source.source)}"), file=sys.stderr
            )

        try:
            with warnings_to(warn):
                return load_registry(read.spec)
        except ArgmatrixError as error:
            raise ArgmatrixError(
                *(
                    replace(
                        p,
                        file=read.shown(p.file, source.source) if p.file else p.file,
                        message=f"release {source.label}: {read.shown(p.message, source.source)}",
                    )
                    for p in error.problems
                )
            ) from None


def _label(target: str, paths: list[str] | None) -> str:
    return f"{target} ({', '.join(paths)})" if paths else target


def _diff_spec(
    target: str, static: bool, paths: list[str] | None, mock: list[str] | None
) -> RegistrySpec:
    cwd = Path.cwd()
    mode = guess_mode(target, static or bool(paths))
    if paths and LOADERS[mode].target_is_file:
        raise ArgmatrixError(
            Problem(
                f"--old-path/--new-path only apply to module:callable targets, not {target!r}",
                fix="drop the path option for a snapshot",
            )
        )
    search = tuple(str((cwd / p).resolve()) for p in paths) if paths else None
    # Static reading searches its base folder first: with --old-path/--new-path, that is the
    # first of them, so the current folder (a working tree) cannot hide the release.
    base = Path(search[0]) if search else cwd
    return RegistrySpec(
        target=target, mode=mode, mock=mock_list(mock), base_dir=base, search_path=search
    )
