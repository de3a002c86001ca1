"""What the docs-engine front ends share: loading the project an engine names, and its inputs
as an engine needs them (what `serve` watches, and whether a kept project is still current).

The files are the project's one list, `Project.inputs()`; whether one changed is decided by its
content, as the cache decides (`_runtime/cache.py`: a time stamp can miss an edit made within
its granularity)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from argmatrix._runtime.cache import Stamp, stamp
from argmatrix.config import load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import warnings_to
from argmatrix.project import Project, project_from_config
from argmatrix.render.template_files import read_templates


def load_engine_project(
    config_path: Path, fresh_modules: bool = False, warn: Callable[[str], None] | None = None
) -> Project:
    """The project of `argmatrix.yaml` at `config_path`; it must name a registry.

    `fresh_modules`: a registry whose code runs has its module imported afresh (a rebuild while
    serving). `warn`: where each diagnostic of the registry that reaches an output goes (a value
    kept as source text), as the engine's own warning, so a strict build fails on it; its file
    named from the project's root (the folder of `argmatrix.yaml`), as `argmatrix check` run
    there names it, from whichever folder the build runs."""
    settings = load_config(config_path, config_path.parent)
    if settings.registry is None:
        raise ArgmatrixError.at(
            "no 'registry' configured",
            file=str(config_path),
            fix="add 'registry: {target: module:callable}'",
        )
    if fresh_modules and settings.registry.loader.runs_code:
        sys.modules.pop(settings.registry.target.partition(":")[0], None)
    with warnings_to(warn, shown_from=settings.root):
        return project_from_config(settings)


def watched_paths(project: Project) -> list[Path]:
    """What a documentation server watches: the configuration, the manifests, the history facts,
    the registry's files (for a registry whose code ran, its module) and the templates folder;
    those that exist (a watch cannot be set on a missing file)."""
    inputs = project.inputs()
    files = [path for path in inputs.watched_files() if path.exists()]
    templates = [inputs.templates.resolve()] if inputs.templates.is_dir() else []
    return [*files, *templates]


def current_state(project: Project) -> tuple[tuple[Stamp, ...], str]:
    """What the project's inputs hold now: each watched file by the hash of its content, and its
    templates (the project's and the bundled ones) by theirs. A kept project is current while
    this is unchanged."""
    inputs = project.inputs()
    files = tuple(stamp(path) for path in inputs.watched_files())
    return files, read_templates(inputs.templates).digest


__all__ = ["current_state", "load_engine_project", "watched_paths"]
