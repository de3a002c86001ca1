"""Every check of a project, and `argmatrix check` itself.

`run_checks` gathers the findings of every check and applies the configured severities;
`check` runs it the way the command does: under the writers' lock, after repairing what a
killed run left, and with `--fix` writing first (`checks/fix.py`), then checking what it wrote.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from argmatrix.checks.drift import (
    PageDiff,
    regenerate_fix,
    stale_page,
    unclassified,
    unreviewed,
)
from argmatrix.checks.prose import dead_flags
from argmatrix.model.findings import Finding, with_severity
from argmatrix.project import Project

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from argmatrix.checks.fix import Fix
    from argmatrix.render.pages import RenderedPage


@dataclass(frozen=True)
class Report:
    """What `check` found, severities applied, and how each stale page differs."""

    findings: tuple[Finding, ...]
    diffs: dict[int, PageDiff]  # index of a stale-page finding -> how the page differs

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


# Findings a layer above the checks adds (the coverage check's value comparisons, made by
# `adoption.audit`, which reads hand-written pages): the command line hands it in.
MoreFindings = Callable[[Project], list[Finding]]


def pages_to_check(project: Project, fixing: bool = False) -> list[RenderedPage]:
    """The pages `check` renders: all of them when it compares one (`committed: true`, the
    default) or writes them (`--fix`), for a page links to the others and they are rendered
    together; none when every page is a build output (`committed: false`), which `check` never
    compares, so such a run loads no template and no Jinja2. Where each page goes is checked
    either way (inside docs_dir, never an input); an error in rendering a build output is then
    reported by the build that renders it (the MkDocs plugin, Sphinx, `generate`)."""
    if fixing or any(page.committed for page in project.config.pages):
        return project.pages()
    project.output_paths()
    return []


def check(
    project: Project,
    pages: list[RenderedPage],
    fix: Fix | None = None,
    more: MoreFindings | None = None,
) -> Report:
    """The findings of `argmatrix check` (with `fix`, of `check --fix` once it has written).

    Under the writers' lock: a `generate` running meanwhile is seen before or after, never
    half done; and a write a killed run left half done is finished first."""
    config = project.config
    if pages:
        from argmatrix._runtime.writer import hold_lock, repair
    with hold_lock(config.project) if pages else contextlib.nullcontext():
        if pages:
            repair(config.project, config.docs_dir, {page.path.parent for page in pages})
        if fix is not None:
            from argmatrix.checks.fix import fix_project  # its YAML editor: `--fix` only

            project = fix_project(project, pages, fix)
        return run_checks(project, pages, more)


def run_checks(
    project: Project, pages: list[RenderedPage], more: MoreFindings | None = None
) -> Report:
    findings: list[Finding] = []
    diffs: dict[int, PageDiff] = {}
    fix = regenerate_fix(project.config.file) if pages else ""
    for page in pages:
        if not page.spec.committed:
            continue
        finding, diff = stale_page(page, fix)
        if finding is not None:
            if diff is not None:
                diffs[len(findings)] = diff
            findings.append(finding)
    for resolved in project.resolved.values():
        findings.extend(resolved.findings)
        findings.extend(unclassified(project, resolved.platform.name))
        findings.extend(unreviewed(project, resolved.platform.name))
    generated = project.generated_files()
    coverage = _coverage(project)
    findings.extend(_not_also_in(dead_flags(project, generated), coverage))
    findings.extend(coverage)
    if more is not None:
        findings.extend(more(project))
    findings.extend(_compatibility(project))
    return apply_severity(findings, diffs, project.config.severity)


# The checks a project configures, imported when it does (`checks.coverage`; `checks.compatibility`
# or `stability:`): a check of a project without them loads neither.


def _coverage(project: Project) -> list[Finding]:
    if not project.config.coverage:
        return []
    from argmatrix.checks.coverage import coverage_findings

    return coverage_findings(project)


def _compatibility(project: Project) -> list[Finding]:
    config = project.config
    if config.compatibility is None and config.stability is None:
        return []
    from argmatrix.checks.compatibility import compatibility_findings

    return compatibility_findings(project)


def _not_also_in(dead: list[Finding], coverage: list[Finding]) -> list[Finding]:
    """The dead flags of prose, but those a coverage page's row names (reported as its
    `unregistered-row`): one finding per problem."""
    rows = {(f.file, f.line, f.flag) for f in coverage if f.kind == "unregistered-row"}
    return [f for f in dead if (f.file, f.line, f.flag) not in rows]


def apply_severity(
    findings: list[Finding], diffs: dict[int, PageDiff], configured: dict[str, str]
) -> Report:
    kept: list[Finding] = []
    kept_diffs: dict[int, PageDiff] = {}
    for index, given in enumerate(findings):
        finding = with_severity(given, configured)
        if finding is None:
            continue
        if index in diffs:
            kept_diffs[len(kept)] = diffs[index]
        kept.append(finding)
    return Report(tuple(kept), kept_diffs)
