"""Flags named in hand-written prose (`checks.prose` globs) that the registry does not have:
the dead references a renamed or removed flag leaves behind.

What argmatrix wrote is never prose: a page any configuration generated (its last line says so,
`render.formats.shared.generated_page`: a project with two command lines has two
configurations, and each one's pages name flags the other's registry lacks), and the regions
of an in-place page between its `argmatrix:begin` and `argmatrix:end` markers. A flag a line
names twice is one finding."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from argmatrix._runtime.files import read_prose
from argmatrix.model.findings import Finding, closest
from argmatrix.project import Project
from argmatrix.render.formats import FORMATS
from argmatrix.render.formats.shared import generated_page

FLAG_IN_PROSE = re.compile(r"(?<![\w/-])(--[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*)(?![\w-])")


def prose_files(project: Project, generated: set[Path]) -> list[Path]:
    docs = project.config.docs_dir
    if not docs.is_dir():
        return []
    files = []
    for root, dirs, names in os.walk(docs):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".md"):
                continue
            path = Path(root) / name
            relative = path.relative_to(docs).as_posix()
            # a file is resolved only when it would be read
            if (
                any(_matches(relative, pattern) for pattern in project.config.prose_globs)
                and path.resolve() not in generated
            ):
                files.append(path)
    return files


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(number, line) of the page's lines outside its in-place regions (whose text argmatrix
    writes), marked in the comment syntax of any format."""
    regions = [output_format.REGION for output_format in FORMATS.values()]
    lines = text.splitlines()
    inside = False
    kept = []
    for number, line in enumerate(lines, start=1):
        if not inside and any(r.begin.search(line) for r in regions):
            inside = not any(r.end.search(line) for r in regions)
            continue
        if inside:
            inside = not any(r.end.search(line) for r in regions)
            continue
        kept.append((number, line))
    return kept


def _matches(relative: str, pattern: str) -> bool:
    """fnmatch, where a leading `**/` also matches no folder at all (`**/*.md` takes index.md)."""
    return fnmatch.fnmatch(relative, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:])
    )


def dead_flags(project: Project, generated: set[Path]) -> list[Finding]:
    """The flags hand-written pages name that the registry lacks. Prose may name the flags of
    every command line of the project (a home page introducing the server and its management
    tool): those of every other configuration beside this one (`argmatrix-cli.yaml`), read from
    its registry whatever pages it writes and wherever, and those a page another configuration
    generated documents (which is not prose)."""
    texts = [
        (path, read_prose(path, project.config.project)) for path in prose_files(project, generated)
    ]
    others = {
        match.group(1)
        for _, text in texts
        if generated_page(text)
        for match in FLAG_IN_PROSE.finditer(text)
    }
    known = project.registry.all_flags() | set(project.config.ignore_flags) | others
    unknown = [
        (path, number, flag)
        for path, text in texts
        if not generated_page(text)  # a page a configuration generated: its own check compares it
        for number, line in prose_lines(text)
        for flag in dict.fromkeys(m.group(1) for m in FLAG_IN_PROSE.finditer(line))
        if flag not in known
    ]
    if not unknown:  # the other command lines are read only when this one's flags do not answer
        return []
    others |= project.other_command_lines
    unknown = [u for u in unknown if u[2] not in others]
    candidates = sorted(known | others)
    return [_dead(flag, path, number, closest(flag, candidates)) for path, number, flag in unknown]


def _dead(flag: str, path: Path, number: int, suggestion: str | None) -> Finding:
    return Finding(
        "dead-flag",
        f"{flag} is not an argument of the registry",
        flag=flag,
        file=str(path),
        line=number,
        fix=f"did you mean {suggestion}?" if suggestion else "remove or update it",
    )
