"""`check --fix`: what the check would report as stale, written instead.

Stale pages are rendered again and written (all or none), and the stale entries of the
allowlists of checks.coverage and of checks.compatibility's `accept` are removed from
argmatrix.yaml (never one added: a breaking change is accepted by a person, with a reason). The caller is
told of each file written (`Fix.wrote`), as it is written; `checks/run.py` then checks the
result.
"""

from __future__ import annotations

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
from argmatrix.project import Project, SourceOptions, config_with

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.render.pages import RenderedPage


@dataclass(frozen=True)
class Fixed:
    """A file `check --fix` wrote: a page, or argmatrix.yaml with the flags of `removed` taken
    off its allowlists."""

    file: Path
    removed: tuple[str, ...] = ()
    listed_in: str = "allow_undocumented"  # the list `removed` were taken off


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


def _config_text(path: Path) -> str:
    """argmatrix.yaml exactly as it is (its line endings kept), to edit it byte for byte."""
    data = read_regular_file(path, "the configuration", "check the --config path")
    if data is None:
        raise ArgmatrixError.at("configuration file not found", file=str(path))
    return data.decode("utf-8")  # it was read as UTF-8 already
