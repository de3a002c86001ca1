"""Findings written out: human text, JSON (see `argmatrix schema findings`) or GitHub
workflow annotations, every line made safe for a CI log."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any, TextIO

from argmatrix.errors import json_for_log, printable
from argmatrix.model.findings import Finding

if TYPE_CHECKING:  # the command line offers FORMATS without loading every check
    from argmatrix.checks.drift import PageDiff
    from argmatrix.checks.run import Report

FORMATS = ("text", "json", "github")


# ------------------------------------------------------------------ output


def finding_dict(finding: Finding, diff: PageDiff | None) -> dict[str, Any]:
    """A finding as JSON: its file relative to the working directory, as text and GitHub
    output name it; a stale page's diff and the line of each changed region."""
    data = asdict(finding)
    data = {
        k: data[k]
        for k in ("kind", "severity", "message", "flag", "platform", "file", "line", "fix")
    }
    if finding.file:
        data["file"] = relative_path(finding.file)
    if diff is not None:
        data["diff"] = diff.text
        data["regions"] = list(diff.lines)
    return data


def emit(report: Report, form: str, stream: TextIO) -> None:
    """Every format is safe to print into a terminal or a CI log, whatever the registry, the
    manifests or the pages hold: see `errors.printable`."""
    if form == "json":
        items = [finding_dict(f, report.diffs.get(i)) for i, f in enumerate(report.findings)]
        stream.write(json_for_log(json.dumps(items, indent=2, ensure_ascii=False)) + "\n")
        return
    if form == "github":
        for index, finding in enumerate(report.findings):
            stream.write(github_lines(finding, report.diffs.get(index)))
        return
    colour = stream.isatty() and "NO_COLOR" not in os.environ
    for index, finding in enumerate(report.findings):
        stream.write(text_line(finding, colour) + "\n")
        if index in report.diffs:
            stream.write(_indent(report.diffs[index].text))
    stream.write(summary(report.findings) + "\n")


def github_lines(finding: Finding, diff: PageDiff | None) -> str:
    """A finding in a GitHub Actions log: one annotation, or for a stale page one per changed
    region at its line, then the diff folded in a group (each line `printable`, so no line of a
    page can be read as a workflow command)."""
    if diff is None:
        return github_annotation(finding) + "\n"
    count = len(diff.lines)
    out = []
    for number, line in enumerate(diff.lines, start=1):
        region = replace(finding, line=line)
        if count > 1:
            region = replace(region, message=f"{finding.message} (region {number} of {count})")
        out.append(github_annotation(region) + "\n")
    file = relative_path(finding.file) if finding.file else "page"
    out.append(f"::group::{_escape_data('argmatrix: diff of ' + file)}\n")
    out.append(_indent(diff.text))
    out.append("::endgroup::\n")
    return "".join(out)


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
