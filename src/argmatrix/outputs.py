"""Where pages go, and how pages and prose are read back: never outside the project.

A drift check runs on pull requests from forks, so the configuration, the folders and the
pages themselves may be hostile: a page that is a symbolic link to /proc/self/environ would be
printed into the CI log as a diff, a symbolic link to a folder outside the repository would let
`generate` write there, and a page output naming the manifest would overwrite it. Every page
output is therefore resolved (symbolic links included) before anything is read or written, and
must stay inside docs_dir, which must stay inside the project (the folder of argmatrix.yaml).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from argmatrix._runtime.files import real, within
from argmatrix.config import Config, PageSpec
from argmatrix.errors import ArgmatrixError, Problem, has_control
from argmatrix.render.template_files import TEMPLATE_SUFFIXES

# (file, what it is to the project: "the manifest x.yaml"), from `Project.inputs()`
Inputs = Iterable[tuple[str, str]]


def resolve_outputs(config: Config, specs: Sequence[PageSpec], inputs: Inputs) -> list[Path]:
    """The file each page is written to, symbolic links resolved, in the order of `specs`.

    Every problem is reported at once, each at the page's line of argmatrix.yaml: an output
    that leaves docs_dir (through a symbolic link), one that is a file the project reads, and
    two outputs that are one file."""
    where = str(config.file or "argmatrix.yaml")
    docs = real_docs_dir(config)
    known = {real(file): what for file, what in inputs}
    templates = real(config.templates_dir)
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    paths: list[Path] = []
    for spec in specs:
        # config/pages.py refuses these; a Config built in code may not
        if has_control(spec.output):
            problems.append(
                Problem(
                    f"page output {spec.output!r} contains a NUL or control character",
                    where,
                    _line(spec),
                    "write a plain file path such as reference/x.md",
                )
            )
            continue
        target = real(config.docs_dir / spec.output)
        paths.append(Path(target))
        problem = _outside_docs(spec, target, docs, where) or _an_input(
            spec, target, known, templates, TEMPLATE_SUFFIXES, where
        )
        if problem is None and target in seen:
            problem = Problem(
                f"pages {seen[target]!r} and {spec.output!r} are one file"
                f" ({_shown(target, config.root)})",
                where,
                _line(spec),
                "give each page its own output (mind symbolic links and './')",
            )
        if problem is not None:
            problems.append(problem)
        seen.setdefault(target, spec.output)
    if problems:
        raise ArgmatrixError(*problems)
    return paths


def _line(spec: PageSpec) -> int | None:
    return spec.output_line or spec.line


def real_docs_dir(config: Config) -> str:
    """docs_dir with symbolic links resolved; it must be inside the project."""
    docs, root = real(config.docs_dir), str(config.project)
    if not within(docs, root):
        raise ArgmatrixError.at(
            f"docs_dir {_shown(config.docs_dir, config.root)!r} resolves to {docs}, outside the"
            " project",
            file=str(config.file or "argmatrix.yaml"),
            line=config.docs_dir_line,
            fix="make docs_dir a real folder inside the project (not a symbolic link leading out)",
        )
    return docs


def _outside_docs(spec: PageSpec, target: str, docs: str, where: str) -> Problem | None:
    if within(target, docs) and target != docs:
        return None
    return Problem(
        f"page output {spec.output!r} resolves to {target}, outside docs_dir"
        " (a symbolic link leads there)",
        where,
        _line(spec),
        "replace the symbolic link by a real file or folder inside docs_dir",
    )


def _an_input(
    spec: PageSpec,
    target: str,
    known: dict[str, str],
    templates: str,
    template_suffixes: tuple[str, ...],
    where: str,
) -> Problem | None:
    what = known.get(target)
    if what is None and within(target, templates) and target.endswith(template_suffixes):
        what = f"a template of the templates folder {os.path.basename(templates)}/"
    if what is None:
        return None
    return Problem(
        f"page output {spec.output!r} is also an input ({what})",
        where,
        _line(spec),
        "write the page to a file of its own under docs_dir",
    )


def _shown(path: str | Path, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return str(path)
