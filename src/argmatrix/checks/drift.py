"""`argmatrix check`: the CI docs-drift check. Exit 0 when all agrees, 1 on drift, 2 on bad input.

Render in memory, compare with the disk, report every finding (never just the first).
`--fix` is the same path writing instead of comparing.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from argmatrix._runtime.files import read_page
from argmatrix._runtime.writer import refuse_folder
from argmatrix.checks.coverage import coverage_findings
from argmatrix.checks.prose import dead_flags
from argmatrix.config import CHECK_KINDS
from argmatrix.model.findings import Finding
from argmatrix.project import Project

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.render.pages import RenderedPage

KINDS = CHECK_KINDS
DIFF_LINES = 40


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    diffs: dict[int, str]  # index of a stale-page finding -> its unified diff

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


def run_checks(project: Project, pages: list[RenderedPage]) -> Report:
    findings: list[Finding] = []
    diffs: dict[int, str] = {}
    for page in pages:
        if not page.spec.committed:
            continue
        finding, diff = stale_page(page)
        if finding is not None:
            diffs[len(findings)] = diff
            findings.append(finding)
    for resolved in project.resolved.values():
        findings.extend(resolved.findings)
        findings.extend(unclassified(project, resolved.platform.name))
    generated = {page.path.resolve() for page in pages if not page.spec.inplace}
    coverage = coverage_findings(project)
    findings.extend(_not_also_in(dead_flags(project, generated), coverage))
    findings.extend(coverage)
    return apply_severity(findings, diffs, project.config.severity)


def _not_also_in(dead: list[Finding], coverage: list[Finding]) -> list[Finding]:
    """The dead flags of prose, but those a coverage page's row names (reported as its
    `unregistered-row`): one finding per problem."""
    rows = {(f.file, f.line, f.flag) for f in coverage if f.kind == "unregistered-row"}
    return [f for f in dead if (f.file, f.line, f.flag) not in rows]


def apply_severity(
    findings: list[Finding], diffs: dict[int, str], configured: dict[str, str]
) -> Report:
    kept: list[Finding] = []
    kept_diffs: dict[int, str] = {}
    for index, finding in enumerate(findings):
        level = configured.get(finding.kind)
        if level == "off":
            continue
        if level is not None:
            finding = replace(finding, severity=level)
        if index in diffs:
            kept_diffs[len(kept)] = diffs[index]
        kept.append(finding)
    return Report(tuple(kept), kept_diffs)


def _read(path: Path) -> str | None:
    """A page as it is on disk; None when it is missing (or not text, so surely stale). The
    path is resolved and inside docs_dir (`Project.pages`); a FIFO or device is refused."""
    refuse_folder(path)
    return read_page(path)


def stale_page(page: RenderedPage) -> tuple[Finding | None, str]:
    on_disk = _read(page.path)
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
