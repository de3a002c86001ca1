"""Finding and loading `argmatrix.yaml`: `find_config`, `load_config` (each part read by its
module, every problem of the file reported at once), the project folder, `docs_dir`,
`templates_dir` and `manifests` (kept inside the project)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import within
from argmatrix._runtime.yamlfile import line_of, load_cached_yaml_file
from argmatrix.config.checks import _checks, _coverage
from argmatrix.config.compatibility import _compatibility
from argmatrix.config.display import _display
from argmatrix.config.fields import _too_long, _unknown_keys
from argmatrix.config.pages import _pages
from argmatrix.config.registry import _registry
from argmatrix.config.spec import Config
from argmatrix.errors import ArgmatrixError, Problem, has_control

CONFIG_NAME = "argmatrix.yaml"
TOP_KEYS = (
    "registry",
    "manifests",
    "docs_dir",
    "templates_dir",
    "pages",
    "checks",
    "environment",
    "types",
    "computed_defaults",
    "computed",
    "section_titles",
    "stability",
    "prog",
)


def find_config(explicit: str | None, cwd: Path) -> Path | None:
    """The configuration: the file named, else `argmatrix.yaml` in `cwd` or the nearest folder
    above it, up to the repository's root (the folder holding `.git`), as git and ruff find
    theirs; None when there is none."""
    if explicit:
        path = Path(explicit)
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise ArgmatrixError.at(
                "configuration file not found",
                file=str(path),
                fix="check the --config path, or pass --no-config to read none",
            )
        return path
    for folder in (cwd, *cwd.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
        if os.path.lexists(folder / ".git"):
            return None  # the repository's root: a configuration above it is another project's
    return None


def other_configurations(file: Path) -> list[Path]:
    """The project's other configurations: `argmatrix.yaml` and each `argmatrix-*.yaml` beside
    `file` (a project with two command lines has one per command line), `file` left out."""
    folder = file.parent
    candidates = [folder / CONFIG_NAME, *sorted(folder.glob("argmatrix-*.yaml"))]
    return [path for path in candidates if path.is_file() and not _same_file(path, file)]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def load_config(path: Path | None, cwd: Path) -> Config:
    if path is None:  # the project is still the repository (where a snapshot's paths start)
        return Config(
            None,
            cwd,
            None,
            (),
            cwd / "docs",
            cwd / "templates",
            (),
            project_dir=project_folder(cwd),
        )
    data = load_cached_yaml_file(path)  # PyYAML is not imported while the file is unchanged
    where = str(path)
    problems: list[Problem] = []
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ArgmatrixError.at("the configuration must be a mapping", file=where, line=1)
    root = path.parent
    project = project_folder(root)
    for key, line in getattr(data, "duplicates", ()):
        problems.append(Problem(f"key {key!r} is named twice", where, line, "keep one"))
    _unknown_keys(data, TOP_KEYS, "", where, problems)
    registry = _registry(
        data.get("registry"), root, project, where, line_of(data, "registry"), problems
    )
    manifests = _paths(
        data.get("manifests", []), root, project, where, line_of(data, "manifests"), problems
    )
    docs_dir = _project_folder(data, "docs_dir", "docs", root, project, where, problems)
    templates_dir = _project_folder(
        data, "templates_dir", "templates", root, project, where, problems
    )
    pages = _pages(data.get("pages", []), where, line_of(data, "pages"), problems, docs_dir)
    severity, prose, ignored = _checks(data.get("checks", {}), where, problems)
    coverage = _coverage(data.get("checks"), docs_dir, project, where, problems)
    display = _display(data, where, problems)
    compatibility = _compatibility(data.get("checks"), root, project, where, problems)
    if problems:
        raise ArgmatrixError(*problems)
    return Config(
        path,
        root,
        registry,
        manifests,
        docs_dir,
        templates_dir,
        pages,
        severity,
        prose,
        ignored,
        line_of(data, "docs_dir") if "docs_dir" in data else None,
        project,
        coverage=coverage,
        display=display,
        compatibility=compatibility,
    )


def _folder(root: Path, relative: str) -> Path:
    return Path(os.path.normpath(root / relative))


def project_folder(config_folder: Path) -> Path:
    """The project a configuration belongs to, resolved: the git work tree it is in (the
    repository a pull request changes; argmatrix.yaml may sit in a subfolder and name '..'),
    else its own folder. A repository cannot hold a `.git` of its own below its top (git refuses
    to check one out), so a pull request can only make this folder smaller, never larger."""
    folder = Path(os.path.realpath(config_folder))
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return folder


def _project_folder(
    data: dict[str, Any],
    key: str,
    default: str,
    root: Path,
    project: Path,
    where: str,
    problems: list[Problem],
) -> Path:
    """docs_dir or templates_dir: a folder of the project. One outside it (`/srv/www`,
    `../site`, or a symbolic link leading out) would let a pull request's configuration make
    argmatrix write (docs_dir) or read (templates_dir) files elsewhere on the machine."""
    relative = _text(data, key, default, where, problems)
    line = line_of(data, key)
    if has_control(relative):
        problems.append(
            Problem(
                f"'{key}' {relative!r} contains a control character",
                where,
                line,
                "write a plain folder path",
            )
        )
        return _folder(root, default)
    folder = _folder(root, relative)
    too_long = _too_long(folder, relative)
    if too_long:
        problems.append(
            Problem(
                f"'{key}' {too_long}, more than a file system allows",
                where,
                line,
                "use a shorter folder name",
            )
        )
        return _folder(root, default)
    if not within(os.path.normpath(os.path.realpath(root) / Path(relative)), project):
        problems.append(
            Problem(
                f"'{key}' {relative!r} is outside the project ({project})",
                where,
                line,
                "use a folder inside the project, such as 'docs'",
            )
        )
    elif not within(os.path.realpath(folder), project):
        problems.append(
            Problem(
                f"'{key}' {relative!r} leads outside the project through a"
                f" symbolic link (to {os.path.realpath(folder)})",
                where,
                line,
                "make it a real folder inside the project",
            )
        )
    return folder


def _text(data: dict[str, Any], key: str, default: str, where: str, problems: list[Problem]) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value:
        problems.append(Problem(f"'{key}' must be a folder path", where, line_of(data, key)))
        return default
    return value


def _paths(
    raw: Any,
    root: Path,
    project: Path,
    where: str,
    line: int | None,
    problems: list[Problem],
    key: str = "manifests",
) -> tuple[Path, ...]:
    """Files the configuration names: inside the project, after symbolic links (what a pull
    request's manifest entry points at ends up in pages and in the CI log)."""
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        problems.append(Problem(f"'{key}' must be a list of file paths", where, line))
        return ()
    paths = []
    for index, name in enumerate(raw):
        item_line = line_of(raw, index) or line
        if has_control(name):
            problems.append(
                Problem(
                    f"{key}: {name!r} contains a control character",
                    where,
                    item_line,
                    "write a plain file path",
                )
            )
            continue
        path = root / name
        if not within(os.path.realpath(path), project):
            problems.append(
                Problem(
                    f"{key}: {name!r} is outside the project ({project})",
                    where,
                    item_line,
                    "keep the file inside the project (no absolute path, '..' or symbolic link"
                    " leading out)",
                )
            )
            continue
        paths.append(path)
    return tuple(paths)
