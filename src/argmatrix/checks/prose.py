"""Flags named in hand-written prose (`checks.prose` globs) that the registry does not have:
the dead references a renamed or removed flag leaves behind."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from argmatrix._runtime.files import read_prose
from argmatrix.model.findings import Finding, closest
from argmatrix.project import Project

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
