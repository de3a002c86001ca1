"""Drift: a generated page that differs from what `generate` would write now (`stale_page`, with
its diff), and an argument a platform's manifest gives no status (`unclassified`).

A page is rendered in memory and compared with the disk; `check --fix` (`checks/fix.py`) is the
same comparison, writing instead of reporting.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix._runtime.files import read_page
from argmatrix._runtime.writer import refuse_folder
from argmatrix.model.findings import Finding
from argmatrix.project import Project

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.render.pages import RenderedPage

DIFF_LINES = 40


def page_on_disk(path: Path) -> str | None:
    """A page as it is on disk; None when it is missing (or not text, so surely stale). The
    path is resolved and inside docs_dir (`Project.pages`); a FIFO or device is refused."""
    refuse_folder(path)
    return read_page(path)


def stale_page(page: RenderedPage) -> tuple[Finding | None, str]:
    on_disk = page_on_disk(page.path)
    if on_disk == page.text:
        return None, ""
    fix = "run 'argmatrix generate' (or 'argmatrix check --fix')"
    if on_disk is None:
        return Finding(
            "stale-page", "generated page is missing", file=str(page.path), line=1, fix=fix
        ), ""
    old, new = on_disk.splitlines(keepends=True), page.text.splitlines(keepends=True)
    first = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    import difflib  # a page that is stale: not on the path of a check that agrees

    diff = list(
        difflib.unified_diff(
            old, new, f"{page.path} (on disk)", f"{page.path} (generated now)", n=2
        )
    )
    text = "".join(diff[:DIFF_LINES])
    if len(diff) > DIFF_LINES:
        text += f"... ({len(diff) - DIFF_LINES} more diff lines)\n"
    return Finding(
        "stale-page",
        "generated page differs from what generate would write now",
        file=str(page.path),
        line=first + 1,
        fix=fix,
    ), text


def unclassified(project: Project, name: str) -> list[Finding]:
    resolved = project.resolved[name]
    platform = resolved.platform
    found = []
    for argument in project.registry.arguments:
        if argument.hidden or resolved.of(argument).origin != "none":
            continue
        found.append(
            Finding(
                "unclassified-argument",
                f"{argument.name} has no status on platform {name!r}",
                flag=argument.name,
                platform=name,
                file=platform.file,
                line=None,
                fix=f"add '{argument.name}: <status>' under 'arguments:' (or a section entry,"
                " or a file 'default:')",
            )
        )
    return found
