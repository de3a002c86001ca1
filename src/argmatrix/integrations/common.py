"""What the docs-engine front ends share: loading the project an engine names, the files it was
read from (what `serve` watches and what invalidates a cached project), and where a registry
comes from."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from argmatrix.config import load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import RegistrySpec
from argmatrix.loaders.static.reader import find_module_file
from argmatrix.project import Project, project_from_config


def load_engine_project(config_path: Path, fresh_modules: bool = False) -> Project:
    """The project of `argmatrix.yaml` at `config_path`; it must name a registry.

    `fresh_modules`: a live registry's module is imported afresh (a rebuild while serving)."""
    settings = load_config(config_path, config_path.parent)
    if settings.registry is None:
        raise ArgmatrixError.at(
            "no 'registry' configured",
            file=str(config_path),
            fix="add 'registry: {target: module:callable}'",
        )
    if fresh_modules and settings.registry.mode == "live":
        sys.modules.pop(settings.registry.target.partition(":")[0], None)
    return project_from_config(settings)


def input_paths(project: Project) -> list[Path]:
    """The configuration, the manifests, the project templates and the registry's source."""
    settings = project.config
    paths = [p for p in (settings.file, *settings.manifests, *settings.history_files()) if p]
    if settings.templates_dir.is_dir():
        paths.append(settings.templates_dir)
    source = registry_source(settings.registry) if settings.registry else None
    if source is not None:
        paths.append(source)
    return [p.resolve() for p in paths]


def stamp(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """What changes when one of `paths` changes: its modification time and size (a folder's
    files included), for deciding whether a cached project is still current."""
    stamps: list[tuple[str, int, int]] = []
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            try:
                status = os.stat(file)
            except OSError:
                stamps.append((str(file), -1, -1))
                continue
            stamps.append((str(file), status.st_mtime_ns, status.st_size))
    return tuple(stamps)


def registry_source(spec: RegistrySpec) -> Path | None:
    """The file a registry is read from: the snapshot, or the target's module file."""
    if spec.mode == "snapshot":
        path = Path(spec.target)
        return path if path.is_absolute() else spec.base_dir / path
    module = spec.target.partition(":")[0]
    search = [str(spec.base_dir), *(spec.search_path if spec.search_path is not None else sys.path)]
    found = find_module_file(module, search)
    if found is None and spec.mode == "live":
        try:
            origin = getattr(importlib.util.find_spec(module), "origin", None)
        except (ImportError, ValueError):
            origin = None
        found = Path(origin) if origin and origin.endswith(".py") else None
    return found


__all__ = ["input_paths", "load_engine_project", "registry_source", "stamp"]
