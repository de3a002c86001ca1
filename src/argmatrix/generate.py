"""`argmatrix generate`: every configured page rendered and written, all or none.

The pages are those `check` compares with the disk and the engine adapters serve
(`Project.pages`, which calls `render_project`); `_runtime/writer.py` writes them, so an
interrupted run leaves every page as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from argmatrix._runtime.writer import write_changed
from argmatrix.errors import ArgmatrixError
from argmatrix.model.findings import Finding
from argmatrix.project import Project


@dataclass(frozen=True)
class Generated:
    """What `generate` did with each page, in the configuration's order."""

    written: list[Path]
    unchanged: list[Path]  # already as generated: left alone, their modification time too


def generate(project: Project, warn: Callable[[Finding], None]) -> Generated:
    """Write every configured page that differs from what is on disk.

    The findings of the manifests (entries that do not fit the registry) go to `warn` before
    any page is rendered: they stop no page, and `check` reports them with their severity."""
    config = project.config
    if not config.pages:
        raise ArgmatrixError.at(
            "no pages configured",
            file=str(config.file or "argmatrix.yaml"),
            fix="add a 'pages:' list with template and output to argmatrix.yaml",
        )
    for resolved in project.resolved.values():
        for finding in resolved.findings:
            warn(finding)
    pages = project.pages()
    written, unchanged = write_changed(
        ((page.path, page.text) for page in pages), state_dir=config.project, inside=config.docs_dir
    )
    return Generated(written, unchanged)
