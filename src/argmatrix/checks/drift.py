"""Drift: a generated page that differs from what `generate` would write now (`stale_page`, with
its diff), and an argument a platform's manifest gives no status (`unclassified`).

A page is rendered in memory and compared with the disk; `check --fix` (`checks/fix.py`) is the
same comparison, writing instead of reporting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix._runtime.files import read_page
from argmatrix.model.findings import Finding
from argmatrix.model.spelling import scopes
from argmatrix.project import Project

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.render.pages import RenderedPage

DIFF_LINES = 40
CONTEXT = 2  # lines of context around a change; changes closer than twice this are one region


def page_on_disk(path: Path) -> str | None:
    """A page as it is on disk; None when it is missing (or not text, so surely stale). The
    path is resolved and inside docs_dir (`Project.pages`); a FIFO or device is refused."""
    from argmatrix._runtime.writer import refuse_folder  # a check comparing no page: not loaded

    refuse_folder(path)
    return read_page(path)


@dataclass(frozen=True)
class PageDiff:
    """How a stale page differs from what `generate` would write: the unified diff, and the
    line on disk where each changed region (each hunk of the diff) starts, so a CI annotation
    marks every region, not the first only."""

    text: str
    lines: tuple[int, ...]


def regenerate_fix(config_file: Path | None) -> str:
    """How to regenerate a configuration's pages: `argmatrix generate`, with `--config` when
    the configuration is not the one a command finds by itself from the current folder (a
    project's second configuration, `argmatrix-cli.yaml`), so the advice regenerates the right
    pages."""
    command = generate_command(config_file)
    return f"run '{command}' (or '{command.replace('generate', 'check', 1)} --fix')"


def generate_command(config_file: Path | None, cwd: Path | None = None) -> str:
    """`argmatrix generate`, run from `cwd` (by default the current folder), with `--config`
    (named from `cwd`) when the command would not find `config_file` by itself."""
    import os

    from argmatrix.config import find_config

    if config_file is None:
        return "argmatrix generate"
    cwd = cwd or Path.cwd()
    found = find_config(None, cwd)
    if found is not None and found.resolve() == config_file.resolve():
        return "argmatrix generate"
    try:
        name = os.path.relpath(config_file, cwd)
    except ValueError:  # another drive
        name = str(config_file)
    return f"argmatrix generate --config {name}"


def stale_page(
    page: RenderedPage, fix: str = "run 'argmatrix generate' (or 'argmatrix check --fix')"
) -> tuple[Finding | None, PageDiff | None]:
    """A generated page that differs from what `generate` writes now; `fix` says how to
    regenerate it (`regenerate_fix`), never to remove it."""
    on_disk = page_on_disk(page.path)
    if on_disk == page.text:
        return None, None
    if on_disk is None:
        return Finding(
            "stale-page", "generated page is missing", file=str(page.path), line=1, fix=fix
        ), None
    import difflib  # for a stale page only

    old, new = on_disk.splitlines(keepends=True), page.text.splitlines(keepends=True)
    diff = list(
        difflib.unified_diff(
            old, new, f"{page.path} (on disk)", f"{page.path} (generated now)", n=CONTEXT
        )
    )
    text = "".join(diff[:DIFF_LINES])
    if len(diff) > DIFF_LINES:
        text += f"... ({len(diff) - DIFF_LINES} more diff lines)\n"
    lines = changed_regions(old, new)
    return Finding(
        "stale-page",
        "generated page differs from what generate would write now",
        file=str(page.path),
        line=lines[0],
        fix=fix,
    ), PageDiff(text, lines)


def changed_regions(old: list[str], new: list[str]) -> tuple[int, ...]:
    """The first changed line on disk (1-based) of each hunk of the unified diff: a line that
    differs, or where lines are to be added (the last line when they go at the end)."""
    import difflib

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    lines = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first = next(i1 for tag, i1, _, _, _ in group if tag != "equal")
        lines.append(max(1, min(first + 1, len(old))))
    return tuple(lines) or (1,)


def unreviewed(project: Project, name: str) -> list[Finding]:
    """Entries marked `review: needed` (what `argmatrix import` could not know): one finding
    each, until a person checks the entry and deletes the key."""
    platform = project.resolved[name].platform
    found = []
    for kind, entries in (("section", platform.sections), ("argument", platform.arguments)):
        for key, entry in entries.items():
            if entry.review:
                found.append(
                    Finding(
                        "needs-review",
                        f"{key} ({kind} entry, {entry.status}) was imported and is not reviewed",
                        flag=key if kind == "argument" else None,
                        platform=name,
                        file=platform.file,
                        line=entry.line,
                        fix="check the entry against the platform, correct it, and delete its"
                        " 'review: needed'",
                    )
                )
    return found


def unclassified(project: Project, name: str) -> list[Finding]:
    """The visible arguments the platform gives no status. A manifest with a file `default:`
    gives every argument one (argument entry, else section entry, else the default): nothing
    to look for, among 10^4 arguments per platform."""
    resolved = project.resolved[name]
    platform = resolved.platform
    if platform.default:
        return []
    by_argument = resolved.by_argument
    found = []
    for scope in scopes(project.registry):  # a subcommand's arguments too: `serve --port`
        for argument in scope.registry.arguments:
            spelled = scope.words + argument.name
            if argument.hidden or by_argument[spelled].origin != "none":
                continue
            found.append(
                Finding(
                    "unclassified-argument",
                    f"{spelled} has no status on platform {name!r}",
                    flag=spelled,
                    platform=name,
                    file=platform.file,
                    line=None,
                    fix=f"add '{spelled}: <status>' under 'arguments:' (or a section entry,"
                    " or a file 'default:')",
                )
            )
    return found


def registry_warnings(project: Project, verbose: bool = False) -> list[Finding]:
    """What the registry's reading says of what reaches a page (a value kept as source text
    that no `computed:` answers; every diagnostic with `verbose`): the warnings every other
    command prints, as findings `check` counts, annotates (`--format github`) and weighs by
    `checks.severity` (`registry-warning`)."""
    import os

    from argmatrix.loaders.load import diagnostic_fix, said_diagnostics
    from argmatrix.project import config_name, shown_keywords

    config, registry = project.config, project.registry
    said = said_diagnostics(registry, verbose, shown_keywords(config), config.display.configured())
    return [
        Finding(
            "registry-warning",
            d.message,
            file=d.file
            if "!" in d.file or not d.file
            else os.path.normpath(os.path.join(config.project, d.file)),
            line=d.line,
            fix=diagnostic_fix(d, registry, config_name(config)),
            severity="warning",
        )
        for d in said
    ]
