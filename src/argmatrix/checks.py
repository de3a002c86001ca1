"""`argmatrix check`: the CI docs-drift check. Exit 0 when all agrees, 1 on drift, 2 on bad input.

Render in memory, compare with the disk, report every finding (never just the first).
`--fix` is the same path writing instead of comparing.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import fnmatch
import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .config import CHECK_KINDS
from .errors import json_for_log, printable
from .outputs import read_page, read_prose
from .project import Project, load_project
from .resolve import Finding, closest
from .writer import hold_lock, refuse_folder, repair, write_all

if TYPE_CHECKING:  # rendering (and Jinja2) is imported when a page is rendered
    from .render import RenderedPage

KINDS = CHECK_KINDS
FORMATS = ("text", "json", "github")
DIFF_LINES = 40
FLAG_IN_PROSE = re.compile(r"(?<![\w/-])(--[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?![\w-])")


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    diffs: dict[int, str]  # index of a stale-page finding -> its unified diff

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    check = commands.add_parser(
        "check",
        parents=[common],
        help="Fail when pages, manifests or prose have drifted.",
        description="Compare generated pages with the disk, manifests with the registry, and"
        " hand-written Markdown with the registry's flags. Exit 0: all agrees; 1: drift;"
        " 2: bad input.",
    )
    check.add_argument(
        "--fix", action="store_true", help="Regenerate stale pages instead of reporting them."
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="Output format: human text, JSON findings, or GitHub annotations.",
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    project = load_project(args)
    pages = project.pages()
    config = project.config
    # Under the writers' lock: a `generate` running meanwhile is seen before or after, never
    # half done; and a write a killed run left half done is finished first.
    with hold_lock(config.project) if pages else contextlib.nullcontext():
        if pages:
            repair(config.project, config.docs_dir, {page.path.parent for page in pages})
        if args.fix:
            changed = [(p.path, p.text) for p in pages if _read(p.path) != p.text]
            for path in write_all(changed, state_dir=config.project, inside=config.docs_dir):
                print(printable(f"wrote {relative_path(str(path))}"), file=sys.stderr)
        report = run_checks(project, pages)
    emit(report, args.format, sys.stdout)
    return 1 if report.failed else 0


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
    findings.extend(dead_flags(project, generated))
    return apply_severity(findings, diffs, project.config.severity)


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


def prose_files(project: Project, generated: set[Path]) -> list[Path]:
    docs = project.config.docs_dir
    if not docs.is_dir():
        return []
    files = []
    for root, dirs, names in os.walk(docs):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            relative = path.relative_to(docs).as_posix()
            if path.resolve() in generated or not name.endswith(".md"):
                continue
            if any(_matches(relative, pattern) for pattern in project.config.prose_globs):
                files.append(path)
    return files


def _matches(relative: str, pattern: str) -> bool:
    """fnmatch, where a leading `**/` also matches no folder at all (`**/*.md` takes index.md)."""
    return fnmatch.fnmatch(relative, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:])
    )


def dead_flags(project: Project, generated: set[Path]) -> list[Finding]:
    known = project.registry.all_flags() | set(project.config.ignore_flags)
    candidates = sorted(known)
    found = []
    for path in prose_files(project, generated):
        text = read_prose(path, project.config.project)
        for number, line in enumerate(text.splitlines(), start=1):
            for match in FLAG_IN_PROSE.finditer(line):
                flag = match.group(1)
                if flag in known:
                    continue
                suggestion = closest(flag, candidates)
                found.append(
                    Finding(
                        "dead-flag",
                        f"{flag} is not an argument of the registry",
                        flag=flag,
                        file=str(path),
                        line=number,
                        fix=f"did you mean {suggestion}?" if suggestion else "remove or update it",
                    )
                )
    return found


# ------------------------------------------------------------------ output


def finding_dict(finding: Finding, diff: str | None) -> dict[str, Any]:
    data = asdict(finding)
    data = {
        k: data[k]
        for k in ("kind", "severity", "message", "flag", "platform", "file", "line", "fix")
    }
    if diff:
        data["diff"] = diff
    return data


def emit(report: Report, form: str, stream: TextIO) -> None:
    """Every format is safe to print into a terminal or a CI log, whatever the registry, the
    manifests or the pages hold: see `errors.printable`."""
    if form == "json":
        items = [finding_dict(f, report.diffs.get(i)) for i, f in enumerate(report.findings)]
        stream.write(json_for_log(json.dumps(items, indent=2, ensure_ascii=False)) + "\n")
        return
    if form == "github":
        for finding in report.findings:
            stream.write(github_annotation(finding) + "\n")
        return
    colour = stream.isatty() and "NO_COLOR" not in os.environ
    for index, finding in enumerate(report.findings):
        stream.write(text_line(finding, colour) + "\n")
        if report.diffs.get(index):
            stream.write(_indent(report.diffs[index]))
    stream.write(summary(report.findings) + "\n")


def text_line(finding: Finding, colour: bool = False) -> str:
    where = ""
    if finding.file:
        file = relative_path(finding.file)
        where = f"{file}:{finding.line}: " if finding.line else f"{file}: "
    label = printable(f"{finding.severity}[{finding.kind}]")
    if colour:
        code = "31" if finding.severity == "error" else "33"
        label = f"\033[{code}m{label}\033[0m"
    fix = f" ({finding.fix})" if finding.fix else ""
    return f"{printable(where)}{label}: {printable(finding.message + fix)}"


def relative_path(file: str) -> str:
    """A path relative to the working directory (the repository root in CI), where it can be."""
    try:
        return os.path.relpath(file)
    except ValueError:
        return file


def github_annotation(finding: Finding) -> str:
    level = "error" if finding.severity == "error" else "warning"
    props = []
    if finding.file:
        props.append(f"file={_escape_property(relative_path(finding.file))}")
    if finding.line:
        props.append(f"line={finding.line}")
    props.append(f"title={_escape_property('argmatrix ' + finding.kind)}")
    message = finding.message + (f" ({finding.fix})" if finding.fix else "")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    """A workflow command's message: no character that ends the line or the command, and
    control characters shown as escapes (`printable`)."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def summary(findings: Iterable[Finding]) -> str:
    items = list(findings)
    errors = sum(f.severity == "error" for f in items)
    warnings = len(items) - errors
    if not items:
        return "argmatrix check: everything agrees"
    return f"argmatrix check: {errors} error(s), {warnings} warning(s)"


def _indent(text: str) -> str:
    """The diff, indented; each line shown with `printable`, since a page's lines come from the
    registry's help text and the manifests."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "".join(f"    {printable(line)}\n" for line in lines)
