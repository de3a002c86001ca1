"""`argmatrix.yaml`: where the registry, the manifests and the pages are."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from argmatrix._runtime.files import within
from argmatrix._runtime.yamlfile import line_of, load_yaml_file
from argmatrix.errors import ArgmatrixError, Problem, has_control
from argmatrix.loaders.load import AUTO_MOCK, MODES, RegistrySpec, split_mock
from argmatrix.loaders.target import split_subcommands
from argmatrix.model.registry import Argument, Registry

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
)
ENVIRONMENT_KEYS = ("keyword", "prefix", "arguments")
REGISTRY_KEYS = (
    "target",
    "mode",
    "mock",
    "search_path",
    "parser_class",
    "env",
    "argv",
    "args",
    "kwargs",
    "subcommand",
)
PAGE_KEYS = (
    "template",
    "output",
    "platform",
    "title",
    "options",
    "inplace",
    "committed",
    "format",
    "history",
)
# The output formats of a page (render/formats/ has a module for each); without `format:` a page
# is MDX if its output ends in .mdx, else Markdown.
PAGE_FORMATS = ("markdown", "mdx", "myst")
CHECK_KEYS = ("severity", "prose", "ignore_flags", "coverage")
CHECK_KINDS = (
    "stale-page",
    "unclassified-argument",
    "stale-manifest-entry",
    "duplicate-manifest-entry",
    "impossible-entry",
    "dead-flag",
    # The coverage check of hand-maintained pages (checks/coverage.py, `checks.coverage`).
    "undocumented-flag",
    "stale-allowlist-entry",
    "unregistered-row",
    "misshapen-row",
)
# An entry of `checks.coverage`: a hand-maintained page whose tables must cover the registry.
COVERAGE_KEYS = ("page", "allow_undocumented", "columns", "format")
MAX_COLUMNS = 1000
SEVERITIES = ("error", "warning", "off")


@dataclass(frozen=True)
class PageSpec:
    template: str
    output: str  # relative to docs_dir
    platform: str | None = None
    title: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    inplace: bool = False
    line: int | None = None
    committed: bool = True  # False: a build output (git-ignored); check does not compare it
    output_line: int | None = None  # the line of 'output:', where errors about it point
    format: str | None = None  # one of PAGE_FORMATS; None: from the output's extension
    # An `argmatrix history` facts file (relative to the configuration): an "Added in" column.
    history: str | None = None

    @property
    def output_format(self) -> str:
        """The page's format: as configured, else by the output's extension."""
        return self.format or format_of(self.output)


def format_of(output: str) -> str:
    """The format a page gets without `format:`: MDX for an .mdx output, else Markdown."""
    return "mdx" if output.lower().endswith(".mdx") else "markdown"


@dataclass(frozen=True)
class AllowedFlag:
    """An entry of a coverage page's `allow_undocumented` list, and its line."""

    flag: str
    line: int | None


@dataclass(frozen=True)
class CoverageSpec:
    """A hand-maintained page whose tables must have a row for every flag of the registry
    (`checks.coverage` in argmatrix.yaml; checks/coverage.py checks it)."""

    page: str  # as written, relative to docs_dir
    path: Path  # docs_dir / page
    allowed: tuple[AllowedFlag, ...] = ()
    columns: int | None = None  # cells every row must have; None: its table's header's
    format: str = "markdown"  # one of PAGE_FORMATS: how the page is read
    line: int | None = None  # the line of the entry
    page_line: int | None = None  # the line of 'page:'
    allow_line: int | None = None  # the line of 'allow_undocumented:'


@dataclass(frozen=True)
class Config:
    file: Path | None
    root: Path
    registry: RegistrySpec | None
    manifests: tuple[Path, ...]
    docs_dir: Path
    templates_dir: Path
    pages: tuple[PageSpec, ...]
    severity: dict[str, str] = field(default_factory=dict)
    prose_globs: tuple[str, ...] = ("**/*.md",)
    ignore_flags: tuple[str, ...] = ()  # flags of other tools that prose may mention
    docs_dir_line: int | None = None  # where argmatrix.yaml names docs_dir, for its errors
    project_dir: Path | None = None  # see `project_folder`; None: `root`
    coverage: tuple[CoverageSpec, ...] = ()  # hand-maintained pages `check` holds to the registry
    display: Display = field(default_factory=lambda: Display())  # env vars, types, computed

    @property
    def project(self) -> Path:
        """The folder nothing is read from or written to outside of (symbolic links resolved)."""
        return self.project_dir or Path(os.path.realpath(self.root))

    def history_file(self, page: PageSpec) -> Path | None:
        """Where a page's history facts are read from: relative to the configuration."""
        return self.root / page.history if page.history else None

    def history_files(self) -> list[Path]:
        return sorted({path for page in self.pages if (path := self.history_file(page))})

    def line_of_page(self, page: PageSpec) -> str:
        return f"{self.file}:{page.line}" if self.file and page.line else str(self.file or "")


def find_config(explicit: str | None, cwd: Path) -> Path | None:
    if explicit:
        path = Path(explicit)
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise ArgmatrixError.at(
                "configuration file not found", file=str(path), fix="check the --config path"
            )
        return path
    default = cwd / CONFIG_NAME
    return default if default.is_file() else None


def load_config(path: Path | None, cwd: Path) -> Config:
    if path is None:
        return Config(None, cwd, None, (), cwd / "docs", cwd / "templates", ())
    data = load_yaml_file(path)
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
    pages = _pages(data.get("pages", []), where, line_of(data, "pages"), problems)
    severity, prose, ignored = _checks(data.get("checks", {}), where, problems)
    coverage = _coverage(data.get("checks"), docs_dir, project, where, problems)
    display = _display(data, where, problems)
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
    )


def _unknown_keys(
    mapping: dict[str, Any],
    allowed: tuple[str, ...],
    context: str,
    where: str,
    problems: list[Problem],
) -> None:
    for key in mapping:
        if key not in allowed:
            problems.append(
                Problem(
                    f"{context}unknown key {key!r}",
                    where,
                    line_of(mapping, key),
                    f"use one of: {', '.join(allowed)}",
                )
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


def _registry(
    raw: Any, root: Path, project: Path, where: str, line: int | None, problems: list[Problem]
) -> RegistrySpec | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = {"target": raw}
    if not isinstance(raw, dict):
        problems.append(Problem("'registry' must be a mapping with 'target'", where, line))
        return None
    _unknown_keys(raw, REGISTRY_KEYS, "registry: ", where, problems)
    target = raw.get("target")
    if not isinstance(target, str) or not target:
        problems.append(
            Problem(
                "registry: 'target' is missing",
                where,
                line,
                fix="write 'target: module:callable' or a snapshot path",
            )
        )
        return None
    mode = raw.get("mode", "snapshot" if target.endswith(".json") else "live")
    if mode not in MODES:
        problems.append(
            Problem(
                f"registry: unknown mode {mode!r}",
                where,
                line_of(raw, "mode"),
                f"use one of: {', '.join(MODES)}",
            )
        )
        return None
    if has_control(target):
        problems.append(
            Problem(
                f"registry: target {target!r} contains a NUL or control character",
                where,
                line_of(raw, "target") or line,
                "write a plain module:callable or file path",
            )
        )
        return None
    if mode == "snapshot" and not within(os.path.realpath(root / target), project):
        problems.append(
            Problem(
                f"registry: snapshot {target!r} is outside the project ({project})",
                where,
                line_of(raw, "target") or line,
                "keep the snapshot inside the project",
            )
        )
        return None
    mock = raw.get("mock", [])
    if mock == AUTO_MOCK:
        mock = [AUTO_MOCK]
    if not isinstance(mock, list) or not all(isinstance(m, str) for m in mock):
        problems.append(
            Problem(
                "registry: 'mock' must be a list of module names, or 'auto'",
                where,
                line_of(raw, "mock"),
                "write 'mock: [torch, triton]', or 'mock: auto' for every module that fails to"
                " import",
            )
        )
        mock = []
    search = raw.get("search_path")
    search_path = None
    if search is not None:
        if not isinstance(search, list) or not all(isinstance(s, str) for s in search):
            problems.append(
                Problem(
                    "registry: 'search_path' must be a list of folders",
                    where,
                    line_of(raw, "search_path"),
                )
            )
        else:
            search_path = tuple(str(root / s) for s in search)
    mock_names, auto_mock = split_mock(mock)
    live = _live_settings(raw, where, problems)
    target, words = split_subcommands(target) if mode != "snapshot" else (target, ())
    if words and live.get("subcommand"):
        problems.append(
            Problem(
                "registry: subcommands are named both after the target and in 'subcommand'",
                where,
                line_of(raw, "subcommand"),
                "name them in one place",
            )
        )
    live["subcommand"] = words or live.get("subcommand", ())
    return RegistrySpec(
        target=target,
        mode=mode,
        mock=mock_names,
        base_dir=root,
        search_path=search_path,
        auto_mock=auto_mock,
        **live,
    )


def _live_settings(raw: dict[str, Any], where: str, problems: list[Problem]) -> dict[str, Any]:
    """`parser_class`, `env`, `argv`, `args`, `kwargs` and `subcommand` of `registry:`,
    checked; each bad value is one problem at its line."""
    settings: dict[str, Any] = {}

    def bad(key: str, message: str, fix: str) -> None:
        problems.append(Problem(f"registry: {message}", where, line_of(raw, key), fix))

    if "parser_class" in raw:
        value = raw["parser_class"]
        if _is_module_name(value):
            settings["parser_class"] = value
        else:
            bad(
                "parser_class",
                f"'parser_class' {_shown(value)} is not of the form module:Class",
                "name the class like 'vllm.utils.argparse_utils:FlexibleArgumentParser'",
            )
    if "env" in raw:
        env = _env(raw["env"])
        if env is None:
            bad(
                "env",
                "'env' must map variable names to text or numbers",
                "write it like 'env: {VLLM_TARGET_DEVICE: cpu}' (quote true/false/on/off)",
            )
        else:
            settings["env"] = env
    if "argv" in raw:
        argv = _words(raw["argv"])
        if argv is None:
            bad(
                "argv",
                "'argv' must be a list of command-line words",
                "write the words after the program name, like 'argv: [serve, --help]'",
            )
        else:
            settings["argv"] = argv
    if "args" in raw:
        if isinstance(raw["args"], list):
            settings["args"] = tuple(_plain(v) for v in raw["args"])
        else:
            bad("args", "'args' must be a list of values", "write it like 'args: [7, text]'")
    if "kwargs" in raw:
        kwargs = raw["kwargs"]
        if isinstance(kwargs, dict) and all(
            isinstance(k, str) and k.isidentifier() for k in kwargs
        ):
            settings["kwargs"] = tuple((k, _plain(v)) for k, v in kwargs.items())
        else:
            bad(
                "kwargs",
                "'kwargs' must map parameter names to values",
                "write it like 'kwargs: {configs: {call: 'pkg.config:Configs'}}'",
            )
    if "subcommand" in raw:
        value = raw["subcommand"]
        words = tuple(value.split()) if isinstance(value, str) else _words(value)
        if words is None or not all(w and not has_control(w) for w in words):
            bad(
                "subcommand",
                "'subcommand' must be a list of subcommand names",
                "write the path from the target's parser, like 'subcommand: [serve, api_server]'",
            )
        else:
            settings["subcommand"] = words
    return settings


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else f"{value!r} (not a text)"


def _is_module_name(value: Any) -> bool:
    """`module.path:Name.attr`: dotted Python names on both sides of one colon."""
    if not isinstance(value, str):
        return False
    module, sep, attr = value.partition(":")
    return bool(sep) and all(
        part.isidentifier() for half in (module, attr) for part in half.split(".")
    )


def _env(value: Any) -> tuple[tuple[str, str], ...] | None:
    if not isinstance(value, dict):
        return None
    env: list[tuple[str, str]] = []
    for name, setting in value.items():
        if (
            not isinstance(name, str)
            or not name
            or "=" in name
            or "\0" in name
            or isinstance(setting, bool)
            or not isinstance(setting, (str, int, float))
            or "\0" in str(setting)
        ):
            return None
        env.append((name, str(setting)))
    return tuple(env)


def _words(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(
        isinstance(w, (str, int, float)) and not isinstance(w, bool) for w in value
    ):
        return None
    words = tuple(str(w) for w in value)
    return None if any("\0" in w for w in words) else words


def _plain(value: Any) -> Any:
    """A YAML value as plain Python data (the loader's mappings and lists carry line numbers)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
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


def _pages(raw: Any, where: str, line: int | None, problems: list[Problem]) -> tuple[PageSpec, ...]:
    if not isinstance(raw, list):
        problems.append(Problem("'pages' must be a list", where, line))
        return ()
    pages: list[PageSpec] = []
    outputs: dict[str, str] = {}  # normalised output -> as written
    for index, item in enumerate(raw):
        item_line = line_of(raw, index)
        if not isinstance(item, dict):
            problems.append(
                Problem("a page is a mapping with 'template' and 'output'", where, item_line)
            )
            continue
        _unknown_keys(item, PAGE_KEYS, "page: ", where, problems)
        template, output = item.get("template"), item.get("output")
        if not isinstance(template, str) or not isinstance(output, str):
            problems.append(Problem("a page needs 'template' and 'output'", where, item_line))
            continue
        output_line = line_of(item, "output") or item_line
        if has_control(output):
            problems.append(
                Problem(
                    f"page output {output!r} contains a NUL or control character",
                    where,
                    output_line,
                    "write a plain file path such as reference/x.md",
                )
            )
            continue
        if not _inside(output):
            problems.append(
                Problem(
                    f"page output {output!r} is not a file inside docs_dir",
                    where,
                    output_line,
                    "use a relative path such as reference/server_arguments.md",
                )
            )
            continue
        normal = os.path.normpath(output)
        if normal in outputs:
            same = "" if outputs[normal] == output else f" (as {outputs[normal]!r})"
            problems.append(
                Problem(
                    f"two pages write {output!r}{same}",
                    where,
                    item_line,
                    "give each page its own output",
                )
            )
        outputs.setdefault(normal, output)
        platform = item.get("platform")
        options = item.get("options", {})
        if not isinstance(options, dict):
            problems.append(
                Problem("page: 'options' must be a mapping", where, line_of(item, "options"))
            )
            options = {}
        pages.append(
            PageSpec(
                template,
                output,
                str(platform) if platform else None,
                item.get("title"),
                dict(options),
                bool(item.get("inplace")),
                item_line,
                bool(item.get("committed", True)),
                output_line,
                _page_format(item, output, where, problems),
                _page_history(item, where, problems),
            )
        )
    return tuple(pages)


def _page_history(item: dict[str, Any], where: str, problems: list[Problem]) -> str | None:
    """The page's `history:` facts file, as written (read when the page renders)."""
    value = item.get("history")
    if value is None or (isinstance(value, str) and value.strip() and not has_control(value)):
        return value
    problems.append(
        Problem(
            "page: 'history' must be the path of a facts file",
            where,
            line_of(item, "history"),
            "write e.g. history: docs/reference/history.json (made by argmatrix history)",
        )
    )
    return None


def _page_format(item: dict[str, Any], output: str, where: str, problems: list[Problem]) -> str:
    """The page's `format:`, checked; without one, the format its output's extension implies."""
    if "format" not in item:
        return format_of(output)
    value = item["format"]
    if value not in PAGE_FORMATS:
        shown = repr(value) if isinstance(value, str) else f"{value!r} (not a text)"
        problems.append(
            Problem(
                f"page: unknown format {shown}",
                where,
                line_of(item, "format"),
                f"use one of: {', '.join(PAGE_FORMATS)} (without 'format', an .mdx output is"
                " mdx and any other is markdown)",
            )
        )
        return format_of(output)
    return str(value)


def _inside(output: str) -> bool:
    """A relative file path that stays inside the docs folder."""
    normal = os.path.normpath(output)
    return (
        bool(output.strip())
        and not os.path.isabs(output)
        and normal not in (".", "..")
        and not normal.startswith(".." + os.sep)
        and not output.endswith(("/", os.sep))
    )


def _checks(
    raw: Any, where: str, problems: list[Problem]
) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    defaults: tuple[dict[str, str], tuple[str, ...], tuple[str, ...]] = ({}, ("**/*.md",), ())
    if raw is None:
        return defaults
    if not isinstance(raw, dict):
        problems.append(Problem("'checks' must be a mapping", where, None))
        return defaults
    _unknown_keys(raw, CHECK_KEYS, "checks: ", where, problems)
    return (
        _severities(raw, where, problems),
        _strings(raw, "prose", ["**/*.md"], where, problems),
        _strings(raw, "ignore_flags", [], where, problems),
    )


def _severities(raw: dict[str, Any], where: str, problems: list[Problem]) -> dict[str, str]:
    severity = raw.get("severity", {}) or {}
    result: dict[str, str] = {}
    if not isinstance(severity, dict):
        problems.append(
            Problem(
                "checks: 'severity' must map a kind to error|warning|off",
                where,
                line_of(raw, "severity"),
            )
        )
        return result
    for kind, level in severity.items():
        if level is False:
            level = "off"  # YAML 1.1 reads a bare `off` as false
        if kind not in CHECK_KINDS:
            problems.append(
                Problem(
                    f"checks: unknown kind {kind!r}",
                    where,
                    line_of(severity, kind),
                    f"use one of: {', '.join(CHECK_KINDS)}",
                )
            )
        elif level not in SEVERITIES:
            problems.append(
                Problem(
                    f"checks: severity {level!r} for {kind!r}",
                    where,
                    line_of(severity, kind),
                    "use error, warning or off",
                )
            )
        else:
            result[str(kind)] = level
    return result


def _strings(
    raw: dict[str, Any], key: str, default: list[str], where: str, problems: list[Problem]
) -> tuple[str, ...]:
    value = raw.get(key, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(
            Problem(f"checks: '{key}' must be a list of text", where, line_of(raw, key))
        )
        return tuple(default)
    return tuple(value)


def _coverage(
    raw: Any, docs_dir: Path, project: Path, where: str, problems: list[Problem]
) -> tuple[CoverageSpec, ...]:
    """`checks.coverage`: a list of hand-maintained pages, each with its allowlist."""
    if not isinstance(raw, dict) or raw.get("coverage") is None:
        return ()
    entries = raw["coverage"]
    if not isinstance(entries, list):
        problems.append(
            Problem(
                "checks: 'coverage' must be a list of pages",
                where,
                line_of(raw, "coverage"),
                "write '- page: reference/server_arguments.md' items, each with an optional"
                " 'allow_undocumented: [--flag, ...]'",
            )
        )
        return ()
    specs: list[CoverageSpec] = []
    seen: dict[str, int | None] = {}
    for index, item in enumerate(entries):
        spec = _coverage_page(item, line_of(entries, index), docs_dir, project, where, problems)
        if spec is None:
            continue
        normal = os.path.normpath(spec.page)
        if normal in seen:
            problems.append(
                Problem(
                    f"checks: coverage: page {spec.page!r} is listed twice (first at line"
                    f" {seen[normal]})",
                    where,
                    spec.page_line,
                    "keep one entry per page",
                )
            )
            continue
        seen[normal] = spec.page_line
        specs.append(spec)
    return tuple(specs)


def _coverage_page(
    item: Any, line: int | None, docs_dir: Path, project: Path, where: str, problems: list[Problem]
) -> CoverageSpec | None:
    fix = "write e.g. '- page: reference/server_arguments.md'"
    if not isinstance(item, dict):
        problems.append(
            Problem("checks: coverage: an entry is a mapping with 'page'", where, line, fix)
        )
        return None
    before = len(problems)
    for key, key_line in getattr(item, "duplicates", ()):
        problems.append(
            Problem(f"checks: coverage: key {key!r} is named twice", where, key_line, "keep one")
        )
    _unknown_keys(item, COVERAGE_KEYS, "checks: coverage: ", where, problems)
    page = item.get("page")
    page_line = line_of(item, "page") if "page" in item else line
    if not isinstance(page, str) or not page:
        problems.append(
            Problem("checks: coverage: 'page' must be a file path", where, page_line, fix)
        )
        return None
    if has_control(page) or not _inside(page):
        problems.append(
            Problem(
                f"checks: coverage: page {page!r} is not a plain file path inside docs_dir",
                where,
                page_line,
                "use a relative path such as reference/server_arguments.md",
            )
        )
        return None
    path = docs_dir / page
    if not within(os.path.realpath(path), project):
        problems.append(
            Problem(
                f"checks: coverage: page {page!r} is outside the project ({project})",
                where,
                page_line,
                "keep the page inside the project (no symbolic link leading out)",
            )
        )
        return None
    allowed = _allowed_flags(item, where, problems)
    columns = _columns(item, where, problems)
    page_format = _page_format(item, page, where, problems)
    if len(problems) > before:
        return None
    return CoverageSpec(
        page,
        path,
        allowed,
        columns,
        page_format,
        line,
        page_line,
        line_of(item, "allow_undocumented") if "allow_undocumented" in item else None,
    )


def _allowed_flags(
    item: dict[str, Any], where: str, problems: list[Problem]
) -> tuple[AllowedFlag, ...]:
    """`allow_undocumented`: flags that may have no row (empty, or left out, is no flag)."""
    raw = item.get("allow_undocumented")
    if raw is None:
        return ()
    line = line_of(item, "allow_undocumented")
    if not isinstance(raw, list):
        problems.append(
            Problem(
                "checks: coverage: 'allow_undocumented' must be a list of flags",
                where,
                line,
                "write e.g. 'allow_undocumented: [--debug-tensor-dump-output-folder]'",
            )
        )
        return ()
    allowed = []
    for index, flag in enumerate(raw):
        flag_line = line_of(raw, index) or line
        if (
            not isinstance(flag, str)
            or not flag.startswith("-")
            or has_control(flag)
            or " " in flag
        ):
            shown = repr(flag) if isinstance(flag, str) else f"{flag!r} (not a text)"
            problems.append(
                Problem(
                    f"checks: coverage: {shown} in 'allow_undocumented' is not a flag",
                    where,
                    flag_line,
                    "write each flag as the registry spells it, e.g. --log-level",
                )
            )
            continue
        allowed.append(AllowedFlag(flag, flag_line))
    return tuple(allowed)


def _columns(item: dict[str, Any], where: str, problems: list[Problem]) -> int | None:
    value = item.get("columns")
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= MAX_COLUMNS:
        problems.append(
            Problem(
                f"checks: coverage: 'columns' must be a number of cells from 1 to {MAX_COLUMNS},"
                f" not {value!r}",
                where,
                line_of(item, "columns"),
                "write e.g. 'columns: 4', or leave it out to hold each row to its table's header",
            )
        )
        return None
    return value


# ------------------------------------------------------------------ how arguments are shown


class Named(NamedTuple):
    """A flag named in the configuration, what is said of it, and the line it is written on."""

    flag: str
    text: str
    line: int | None


@dataclass(frozen=True)
class Environment:
    """How an argument's environment variable is found (`environment:`): the argument's own
    entry in `arguments`, else the `add_argument` keyword named by `keyword` (RTP-LLM's
    `env_name=`), else `prefix` + the dest upper-cased (`SGLANG_` + `MODEL_PATH`)."""

    keyword: str | None = None
    prefix: str | None = None
    arguments: tuple[Named, ...] = ()

    def variable_of(self, argument: Argument, named: Mapping[str, str] | None = None) -> str:
        """The argument's environment variable, "" when it has none. `named`: `arguments`
        keyed by the argument's canonical name (`Display.by_name` resolves aliases)."""
        if named and argument.name in named:
            return named[argument.name]
        if self.keyword is not None:
            value = argument.extra.get(self.keyword)
            if isinstance(value, str) and value.strip():
                return value
        if self.prefix is not None and argument.flags:
            return self.prefix + _NOT_IN_VARIABLE.sub("_", argument.dest).upper()
        return ""


_NOT_IN_VARIABLE = re.compile(r"[^A-Za-z0-9_]")
_VARIABLE_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Display:
    """What the configuration says of how arguments read on a page: their environment
    variables, display text for converters (`types:`), and defaults computed at run time
    (`computed_defaults:`, flag -> a short text said instead of the registry's value)."""

    environment: Environment = field(default_factory=Environment)
    types: dict[str, str] = field(default_factory=dict)
    computed: tuple[Named, ...] = ()

    @property
    def has_environment(self) -> bool:
        return bool(
            self.environment.keyword or self.environment.prefix or self.environment.arguments
        )

    def facts(self, registry: Registry, where: str) -> DisplayFacts:
        """The configuration's flags resolved against the registry (its subcommands' too);
        a flag the registry does not have stops here, at its line."""
        index: dict[str, Argument] = {}
        for each in _registries(registry):
            for flag, argument in each.by_flag().items():
                index.setdefault(flag, argument)

        def by_name(named: tuple[Named, ...], key: str) -> dict[str, str]:
            found = {}
            for entry in named:
                argument = index.get(entry.flag)
                if argument is None:
                    raise ArgmatrixError.at(
                        f"{key}: {entry.flag!r} is not an argument of the registry",
                        file=where,
                        line=entry.line,
                        fix="write a flag the registry has, as argparse spells it, or drop it",
                    )
                found[argument.name] = entry.text
            return found

        return DisplayFacts(
            self,
            by_name(self.environment.arguments, "environment: arguments"),
            by_name(self.computed, "computed_defaults"),
        )


class DisplayFacts(NamedTuple):
    """`Display` resolved against one registry: keyed by each argument's canonical name."""

    display: Display
    variables: dict[str, str]
    computed: dict[str, str]

    def variable_of(self, argument: Argument) -> str:
        return self.display.environment.variable_of(argument, self.variables)

    def computed_of(self, argument: Argument) -> str | None:
        return self.computed.get(argument.name)

    @property
    def types(self) -> dict[str, str]:
        return self.display.types


def _registries(registry: Registry) -> list[Registry]:
    found = [registry]
    for sub in registry.subcommands:
        found.extend(_registries(sub.registry))
    return found


def _display(data: dict[str, Any], where: str, problems: list[Problem]) -> Display:
    return Display(
        _environment(data.get("environment"), line_of(data, "environment"), where, problems),
        {n.flag: n.text for n in _texts(data, "types", "converter", where, problems)},
        _texts(data, "computed_defaults", "flag", where, problems),
    )


def _environment(raw: Any, line: int | None, where: str, problems: list[Problem]) -> Environment:
    if raw is None:
        return Environment()
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                "'environment' must be a mapping",
                where,
                line,
                "write e.g. 'environment: {keyword: env_name}' or '{prefix: SGLANG_}'",
            )
        )
        return Environment()
    _unknown_keys(raw, ENVIRONMENT_KEYS, "environment: ", where, problems)
    keyword = raw.get("keyword")
    if keyword is not None and not (isinstance(keyword, str) and keyword.isidentifier()):
        problems.append(
            Problem(
                f"environment: 'keyword' must be a keyword argument's name, not {_shown(keyword)}",
                where,
                line_of(raw, "keyword"),
                "write the add_argument keyword that holds the variable, e.g. 'keyword: env_name'",
            )
        )
        keyword = None
    prefix = raw.get("prefix")
    if prefix is not None and not (isinstance(prefix, str) and _VARIABLE_PREFIX.match(prefix)):
        problems.append(
            Problem(
                f"environment: 'prefix' must start a variable's name, not {_shown(prefix)}",
                where,
                line_of(raw, "prefix"),
                "use letters, digits and '_', e.g. 'prefix: SGLANG_'",
            )
        )
        prefix = None
    arguments = _texts(raw, "arguments", "flag", where, problems, "environment: ")
    return Environment(keyword, prefix, arguments)


def _texts(
    raw: dict[str, Any],
    key: str,
    what: str,
    where: str,
    problems: list[Problem],
    context: str = "",
) -> tuple[Named, ...]:
    """A mapping of names (flags, converters) to short texts: each checked, with its line."""
    value = raw.get(key)
    if value is None:
        return ()
    example = f"'{key}: {{--mem-fraction-static: chosen at start-up}}'"
    if key == "types":
        example = "'types: {str2bool: bool}'"
    if not isinstance(value, dict):
        problems.append(
            Problem(
                f"{context}'{key}' must map a {what} to a text",
                where,
                line_of(raw, key),
                f"write e.g. {example}",
            )
        )
        return ()
    for name, line in getattr(value, "duplicates", ()):
        problems.append(
            Problem(f"{context}{key}: {name!r} is named twice", where, line, "keep one")
        )
    found = []
    for name, text in value.items():
        line = line_of(value, name)
        if not isinstance(name, str) or not name.strip() or has_control(name):
            problems.append(
                Problem(
                    f"{context}{key}: {_shown(name)} is not a {what}",
                    where,
                    line,
                    f"write e.g. {example}",
                )
            )
        elif not isinstance(text, str) or not text.strip() or has_control(text):
            problems.append(
                Problem(
                    f"{context}{key}: {name} must be a text on one line, not {_shown(text)}",
                    where,
                    line,
                    "put the text in quotes",
                )
            )
        else:
            found.append(Named(name, text.strip(), line))
    return tuple(found)
