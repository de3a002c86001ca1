"""The template files a project renders with, read once as bytes: the project's templates folder
and the bundled templates. No Jinja here: a run whose pages are all in the cache reads the
templates (their content is part of a page's cache key) but never compiles one, so it never
imports Jinja2."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from argmatrix._runtime.files import read_regular_file
from argmatrix.config import PageSpec
from argmatrix.errors import ArgmatrixError


def bundled_templates() -> Path:
    """The templates that ship with argmatrix: package data next to this module."""
    return Path(__file__).resolve().parent / "templates"


TemplateFiles = dict[str, tuple[bytes, str]]  # name -> (content, file it was read from)


class Templates(NamedTuple):
    """The project's templates and the bundled ones, read once: an environment made from them
    compiles exactly what a page cache key was computed from."""

    project: TemplateFiles
    bundled: TemplateFiles

    @property
    def digest(self) -> str:
        return hashlib.blake2b(
            repr((sorted(self.project.items()), sorted(self.bundled.items()))).encode(),
            digest_size=16,
        ).hexdigest()


def read_templates(project_templates: Path | None) -> Templates:
    return Templates(_read_folder(project_templates), _read_folder(bundled_templates()))


# What a template file's name ends with; nothing else in the templates folder is read (with
# `templates_dir: .` the folder is the whole repository).
TEMPLATE_SUFFIXES = (".j2", ".jinja", ".jinja2")
MAX_TEMPLATE_BYTES = 1 << 20


def _read_folder(folder: Path | None) -> TemplateFiles:
    """Every template file below `folder`, by its name relative to it.

    Hidden folders and files are skipped, and so is a symbolic link that leads out of the folder
    (a link to a folder is never followed). Only regular files are read, at most
    MAX_TEMPLATE_BYTES each."""
    if folder is None or not folder.is_dir():
        return {}
    root = Path(os.path.realpath(folder))
    found: TemplateFiles = {}
    for relative, path in _template_paths(folder, root, ""):
        found[relative] = (_read_template(path), str(path))
    return dict(sorted(found.items()))


def _template_paths(folder: Path, root: Path, prefix: str) -> Iterable[tuple[str, Path]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            yield from _template_paths(path, root, f"{prefix}{entry.name}/")
        elif entry.name.endswith(TEMPLATE_SUFFIXES) and not entry.is_dir():
            if entry.is_symlink() and not _inside(Path(os.path.realpath(path)), root):
                continue
            yield prefix + entry.name, path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _read_template(path: Path) -> bytes:
    """A template file's bytes: a regular file of at most MAX_TEMPLATE_BYTES (a FIFO or a device
    named like a template is never opened for reading)."""
    data = read_regular_file(
        path,
        "the template",
        "make it a readable file",
        limit=MAX_TEMPLATE_BYTES,
        too_large_fix="split it into smaller templates with {% include %} or {% import %}",
    )
    if data is None:  # removed since the folder was listed
        raise ArgmatrixError.at(
            "cannot read the template: it is gone", file=str(path), fix="make it a readable file"
        )
    return data


def pages_by_format(pages: Sequence[PageSpec]) -> dict[str, list[PageSpec]]:
    """The pages of each output format, in the order the formats first appear."""
    grouped: dict[str, list[PageSpec]] = {}
    for page in pages:
        grouped.setdefault(page.output_format, []).append(page)
    return grouped
