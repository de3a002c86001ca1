"""`argmatrix generate`: every configured page rendered and written, all or none.

The pages are those `check` compares with the disk and the engine adapters serve
(`Project.pages`, which calls `render_project`); `_runtime/writer.py` writes them, so an
interrupted run leaves every page as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from argmatrix._runtime.writer import write_changed
from argmatrix.errors import ArgmatrixError
from argmatrix.model.findings import Finding, with_severity
from argmatrix.project import Project


@dataclass(frozen=True)
class Generated:
    """What `generate` did with each page, in the configuration's order."""

    written: list[Path]
    unchanged: list[Path]  # already as generated: left alone, their modification time too
    # The manifests' findings of severity `error` (`checks.severity`): nothing was written.
    stopped_by: list[Finding] = field(default_factory=list)


def generate(project: Project, warn: Callable[[Finding], None]) -> Generated:
    """Write every configured page that differs from what is on disk.

    The findings of the manifests (entries that do not fit the registry, a misspelled flag or
    section) go to `warn` before any page is rendered, at the severity `checks.severity` gives
    them, as `check` reports them: one `off` is not said; one that is an `error` stops the run
    before anything is written, as the rows it meant would be published as something else."""
    config = project.config
    if not config.pages:
        raise ArgmatrixError.at(
            "no pages configured",
            file=str(config.file or "argmatrix.yaml"),
            fix="add a 'pages:' list with template and output to argmatrix.yaml",
        )
    found = [
        weighed
        for resolved in project.resolved.values()
        for finding in resolved.findings
        if (weighed := with_severity(finding, config.severity)) is not None
    ]
    for finding in found:
        warn(finding)
    errors = [finding for finding in found if finding.severity == "error"]
    if errors:
        return Generated([], [], errors)
    pages = project.pages()
    written, unchanged = write_changed(
        ((page.path, page.text) for page in pages), state_dir=config.project, inside=config.docs_dir
    )
    return Generated(written, unchanged)
