"""`check --fix`: what the check would report as stale, written instead.

Stale pages are rendered again and written (all or none), a manifest entry naming a flag the
project's records say was renamed (the compatibility baseline, the history facts) is written
under its new spelling (its fact kept), and the stale entries of the allowlists of
checks.coverage and of checks.compatibility's `accept` are removed from argmatrix.yaml (never
one added: a breaking change is accepted by a person, with a reason). The caller is
told of each file written (`Fix.wrote`), as it is written; `checks/run.py` then checks the
result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix._runtime.files import read_regular_file
from argmatrix._runtime.writer import write_all
from argmatrix.checks.allowlists import shrink_accepts, shrink_allowlists
from argmatrix.checks.compatibility import STALE_ACCEPT, stale_accept_entries
from argmatrix.checks.coverage import STALE, StaleEntry, read_documented, stale_entries
from argmatrix.checks.drift import page_on_disk
from argmatrix.config import Config
from argmatrix.errors import ArgmatrixError
from argmatrix.project import (
    STALE_ENTRY,
    Project,
    SourceOptions,
    config_with,
    load_platforms,
    rename_of,
)

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.render.pages import RenderedPage


@dataclass(frozen=True)
class Fixed:
    """A file `check --fix` wrote: a page, or argmatrix.yaml with the flags of `removed` taken
    off its allowlists."""

    file: Path
    removed: tuple[str, ...] = ()
    listed_in: str = "allow_undocumented"  # the list `removed` were taken off
    renamed: tuple[tuple[str, str], ...] = ()  # a manifest's entries: (old, new) spellings


@dataclass(frozen=True)
class Fix:
    """How to fix: who is told of each file written, and the options and folder the project
    was loaded with (`load_project`), to read argmatrix.yaml again once its allowlists shrank."""

    wrote: Callable[[Fixed], None]
    options: SourceOptions
    cwd: Path | None = None


def fix_project(project: Project, pages: list[RenderedPage], fix: Fix) -> Project:
    """Write the stale pages, then shrink the allowlists; the project as it is now."""
    for path in fix_pages(project.config, pages):
        fix.wrote(Fixed(path))
    shrunk = [fixed for fixed in (fix_allowlists(project), fix_accepts(project)) if fixed]
    if not shrunk:
        return project
    for fixed in shrunk:
        fix.wrote(fixed)
    return replace(project, config=config_with(fix.options, fix.cwd))


def fix_pages(config: Config, pages: list[RenderedPage]) -> list[Path]:
    """Write every page that differs from the disk, all or none; the paths written."""
    changed = [(page.path, page.text) for page in pages if page_on_disk(page.path) != page.text]
    return write_all(changed, state_dir=config.project, inside=config.docs_dir)


def fix_manifests(project: Project) -> list[Fixed]:
    """Before the pages are rendered (they state the entries' facts): write each manifest entry that names a renamed flag under the flag's new spelling (on
    the entry's own line, every other byte kept; all manifests or none): what the stale entry's
    finding advises. An entry whose line does not start with its key is left to a person."""
    edits: dict[str, dict[int, tuple[str, str]]] = {}
    for resolved in project.resolved.values():
        for finding in resolved.findings:
            if finding.kind != STALE_ENTRY or not finding.flag or not finding.file:
                continue
            rename = rename_of(finding.flag, project.renames)
            if rename is not None and finding.line:
                edits.setdefault(finding.file, {})[finding.line] = (finding.flag, rename.now)
    written: list[tuple[Path, str]] = []
    fixed: list[Fixed] = []
    for file, lines in sorted(edits.items()):
        path = Path(file)
        text = _manifest_text(path)
        renamed, done = _renamed_keys(text, lines)
        if done:
            written.append((path, renamed))
            fixed.append(Fixed(path, renamed=tuple(done)))
    if written:
        write_all(written, state_dir=project.config.project, inside=project.config.root)
    return fixed


def with_renamed_entries(project: Project, fix: Fix) -> Project:
    """The project with its manifests' renamed entries written under their new spellings
    (`fix_manifests`) and read again; the same project when none is."""
    renamed = fix_manifests(project)
    for fixed in renamed:
        fix.wrote(fixed)
    if not renamed:
        return project
    return replace(project, platforms=load_platforms(project.config.manifests))


def _renamed_keys(
    text: str, lines: dict[int, tuple[str, str]]
) -> tuple[str, list[tuple[str, str]]]:
    """The text with the key of each given line (1-based) renamed, and the renames made."""
    kept = text.splitlines(keepends=True)
    done = []
    for number, (old, new) in sorted(lines.items()):
        if not 0 < number <= len(kept):
            continue
        key = re.compile(rf"^(\s*)(['\"]?){re.escape(old)}\2(?=\s*:)")
        line = kept[number - 1]
        found = key.match(line)
        if found:
            indent, quote = found.group(1), found.group(2)
            kept[number - 1] = f"{indent}{quote}{new}{quote}{line[found.end() :]}"
            done.append((old, new))
    return "".join(kept), done


def fix_allowlists(project: Project) -> Fixed | None:
    """Remove the stale allowlist entries of checks.coverage from argmatrix.yaml (every other
    byte kept, written all or none); None when the file is left as it was."""
    config = project.config
    if config.file is None or not config.coverage or config.severity.get(STALE) == "off":
        return None
    stale = all_stale_entries(project)
    if not stale:
        return None
    text = _config_text(config.file)
    shrunk = shrink_allowlists(text, stale, str(config.file))
    if shrunk == text:
        return None
    write_all([(config.file, shrunk)], state_dir=config.project, inside=config.file.parent)
    return Fixed(config.file, tuple(entry.finding.flag or "" for entry in stale))


def fix_accepts(project: Project) -> Fixed | None:
    """Remove the stale entries of checks.compatibility's `accept` from argmatrix.yaml (every
    other byte kept); None when the file is left as it was. Never adds one."""
    config = project.config
    if config.file is None or config.severity.get(STALE_ACCEPT) == "off":
        return None
    stale = [entry.name for entry in stale_accept_entries(project)]
    if not stale:
        return None
    text = _config_text(config.file)
    shrunk = shrink_accepts(text, stale, str(config.file))
    if shrunk == text:
        return None
    write_all([(config.file, shrunk)], state_dir=config.project, inside=config.file.parent)
    return Fixed(config.file, tuple(stale), "checks.compatibility.accept")


def all_stale_entries(project: Project) -> list[StaleEntry]:
    """The stale allowlist entries of every page of checks.coverage."""
    found = []
    for index, spec in enumerate(project.config.coverage):
        documented = read_documented(spec, project.config)
        found.extend(stale_entries(spec, index, documented, project.registry, project.config))
    return found


def _manifest_text(path: Path) -> str:
    """A manifest exactly as it is, to edit one key of it byte for byte."""
    data = read_regular_file(path, "the manifest", "check the manifests: list of argmatrix.yaml")
    if data is None:
        raise ArgmatrixError.at("manifest not found", file=str(path))
    return data.decode("utf-8")


def _config_text(path: Path) -> str:
    """argmatrix.yaml exactly as it is (its line endings kept), to edit it byte for byte."""
    data = read_regular_file(path, "the configuration", "check the --config path")
    if data is None:
        raise ArgmatrixError.at("configuration file not found", file=str(path))
    return data.decode("utf-8")  # it was read as UTF-8 already
