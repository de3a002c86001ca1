"""A project: the configuration with command-line overrides, its registry and its platforms.

Every front end (CLI commands, the MkDocs plugin, tests) builds one of these and reads the same
resolved model from it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from argmatrix._runtime.cache import cached
from argmatrix.config import (
    CONFIG_NAME,
    Config,
    find_config,
    load_config,
    other_configurations,
)
from argmatrix.errors import ArgmatrixError, Problem
from argmatrix.loaders.load import (
    RegistrySpec,
    load_registry_and_files,
    split_mock,
    warnings_to,
)
from argmatrix.loaders.modes import LOADERS, guess_mode, imported_files
from argmatrix.loaders.target import split_subcommands
from argmatrix.manifests.resolve import ResolvedPlatform, resolve_platform

if TYPE_CHECKING:
    from argmatrix.model.platform import Platform
    from argmatrix.model.registry import Registry


class Input(NamedTuple):
    """A file the project is read from."""

    path: str
    what: str  # what it is to the project, for messages: "the manifest capabilities/npu.yaml"
    watched: bool = True  # a documentation server rebuilds when it changes


@dataclass(frozen=True)
class ProjectInputs:
    """Every file a project is read from: the one list the page cache, the check that no page
    overwrites an input (`outputs.py`) and the engine adapters (what `serve` watches, when a
    kept project is stale) all use. Whether a file changed is decided by its content, as the
    cache decides (`_runtime/cache.py`)."""

    files: tuple[Input, ...]
    # Every file the registry was read from is among `files`; not so when its code ran (its
    # mode's `inputs` is "imported"): the modules it imported stand for them, and its pages are
    # never reused.
    complete: bool
    templates: Path  # the project's templates folder: its templates are read by their own rule

    def known_files(self) -> list[str] | None:
        """Every file, when every one is known (what pages are reused by); else None."""
        return [input.path for input in self.files] if self.complete else None

    def watched_files(self) -> list[Path]:
        """The files a documentation server watches, symbolic links resolved (a file looked
        for and not found is among them: it must still be missing)."""
        return list(dict.fromkeys(Path(i.path).resolve() for i in self.files if i.watched))


@dataclass
class Project:
    """The configuration, its registry and its platforms: what every front end reads."""

    config: Config
    registry: Registry
    platforms: dict[str, Platform]
    # The files the registry was read from, as its loader returned them (live mode: those of the
    # modules its code imported, the target's first; not every file it read).
    registry_files: list[str] | None = None

    @cached_property
    def resolved(self) -> dict[str, ResolvedPlatform]:
        resolved = {name: resolve_platform(p, self.registry) for name, p in self.platforms.items()}
        if any(f.flag for r in resolved.values() for f in r.findings if f.kind == STALE_ENTRY):
            renames = self.renames
            if renames:
                resolved = {
                    name: replace(r, findings=tuple(_renamed(f, renames) for f in r.findings))
                    for name, r in resolved.items()
                }
        return resolved

    @cached_property
    def renames(self) -> dict[str, Rename]:
        """Each spelling the registry no longer has that the project's records say became
        another: the history facts' earlier spellings, then the compatibility baseline's
        renames (which win)."""
        return {
            **renamed_in_history(self.config, self.registry),
            **renamed_since_baseline(self.config, self.registry),
        }

    @cached_property
    def other_command_lines(self) -> frozenset[str]:
        """Every flag of the project's other command lines (see `flags_of_other_configurations`),
        read when first asked."""
        return frozenset(flags_of_other_configurations(self.config))

    def inputs(self) -> ProjectInputs:
        """Every file the project is read from: the configuration, the manifests, the history
        facts and what the registry was read from (its mode says what: `Loader.inputs`)."""
        return self._inputs

    @cached_property
    def _inputs(self) -> ProjectInputs:
        config, spec = self.config, self.config.registry
        assert spec is not None
        files: list[Input] = []
        if config.file is not None:
            files.append(Input(str(config.file), f"the configuration {config.file.name}"))
        for manifest in config.manifests:
            files.append(Input(str(manifest), f"the manifest {_shown(manifest, config.root)}"))
        for history in config.history_files():
            files.append(Input(str(history), f"the history facts {_shown(history, config.root)}"))
        read = self.registry_files
        complete = read is not None and spec.loader.inputs != "imported"
        registry = (
            [(file, True) for file in read or ()]
            if complete
            else imported_files(read or (), config.project)
        )
        for file, watched in registry:
            files.append(Input(file, f"{spec.loader.what} {_shown(file, config.root)}", watched))
        return ProjectInputs(tuple(files), complete, config.templates_dir)

    def pages(self) -> list[Any]:
        """Every configured page, rendered (or reused, when every input is as before), with
        the file it goes to resolved (symbolic links included) and checked before any page is
        read or rendered: see `outputs.resolve_outputs`."""
        # Rendering (Jinja2, the templates) is imported by the commands that render only:
        # `export` and `snapshot` never pay for it.
        from argmatrix.render.pages import render_project

        paths = self.output_paths()
        inputs = self.inputs().known_files()
        pages = render_project(self.config, self.registry, self.resolved, inputs=inputs)
        return [replace(page, path=path) for page, path in zip(pages, paths, strict=True)]

    def output_paths(self) -> list[Path]:
        """Where each page of the configuration goes: inside docs_dir, never an input."""
        from argmatrix.outputs import resolve_outputs  # imports rendering

        inputs = ((i.path, i.what) for i in self.inputs().files)
        return resolve_outputs(self.config, self.config.pages, inputs)

    def generated_files(self) -> set[Path]:
        """The files of the generated pages, symbolic links resolved (not those of in-place
        pages: hand-written pages argmatrix fills a region of); no page is rendered."""
        pages = zip(self.config.pages, self.output_paths(), strict=True)
        return {path.resolve() for spec, path in pages if not spec.inplace}

    def export(self) -> dict[str, Any]:
        """The resolved model as JSON data: what `argmatrix export` prints."""
        from argmatrix.loaders.snapshot import export_dict

        data = export_dict(
            with_portable_paths(self.registry, self.config.project),
            {
                name: platform_export(resolved, self.registry)
                for name, resolved in self.resolved.items()
            },
        )
        data["arguments"] = self.display_export()
        return data

    def display_export(self) -> dict[str, Any]:
        """How each argument reads on the pages (the configuration's `environment:`, `types:`
        and `computed_defaults:` applied), keyed by name; a subcommand's as 'COMMAND --flag'."""
        from argmatrix.model.values import readable_type

        facts = self.config.display.facts(self.registry, str(self.config.file or CONFIG_NAME))
        shown: dict[str, Any] = {}

        def add(registry: Registry, scope: str) -> None:
            for argument in registry.arguments:
                shown[scope + argument.name] = {
                    "environment_variable": facts.variable_of(argument) or None,
                    "computed_default": facts.computed_of(argument),
                    "type": readable_type(argument, facts.types),
                }
            for sub in registry.subcommands:
                add(sub.registry, f"{scope}{sub.name} ")

        add(self.registry, "")
        return shown


STALE_ENTRY = "stale-manifest-entry"


def flags_of_other_configurations(config: Config) -> set[str]:
    """Every flag of the registries of the project's other configurations (`argmatrix-cli.yaml`
    beside `argmatrix.yaml`), however their pages are written (by `generate`, by a docs engine
    at build time, as MDX, outside this configuration's docs_dir): what its prose may name.
    Each is read as it is configured, from the cache while its files are unchanged; a registry
    whose code runs (live) is read statically when this configuration's does not run code, so
    a check in static mode runs nothing. Its warnings are for its own commands to say. A broken
    configuration is an error naming its file and line, and why it was read."""
    if config.file is None or config.registry is None:
        return set()
    flags: set[str] = set()
    for path in other_configurations(config.file):
        flags |= _flags_of_configuration(path, runs_code=config.registry.loader.runs_code)
    return flags


def _flags_of_configuration(path: Path, runs_code: bool) -> set[str]:
    try:
        other = load_config(path, path.parent)
        spec = other.registry
        if spec is None:
            return set()  # a configuration for `--registry` targets names no command line
        if spec.loader.runs_code and not runs_code:
            spec = replace(spec, mode=spec.loader.without_running)
        with warnings_to(None):
            registry = load_registry_and_files(spec, project=other.project)[0]
    except ArgmatrixError as error:
        why = (
            f"reading {path.name}, another configuration of this project, for the flags prose"
            " may name"
        )
        raise ArgmatrixError(
            *(replace(p, message=f"{p.message} ({why})") for p in error.problems)
        ) from None
    return registry.all_flags()


class Rename(NamedTuple):
    """The spelling an old one became, and which record of the project says so."""

    now: str
    because: str  # "the compatibility baseline has --tp-size"


def renamed_since_baseline(config: Config, registry: Registry) -> dict[str, Rename]:
    """Each spelling of the compatibility baseline (`checks.compatibility`) the registry no
    longer has, with the spelling of the argument it became (`serve --tp-size` ->
    `serve --tensor-parallel-size`): what a manifest entry naming the old one is to name. None
    without a baseline."""
    spec = config.compatibility
    if spec is None or not os.path.isfile(spec.baseline):
        return {}
    from argmatrix.loaders.snapshot import read_snapshot
    from argmatrix.model.pairing import flatten, pair_arguments

    old, new = flatten(read_snapshot(spec.baseline)), flatten(registry)
    kept, renamed = pair_arguments(old, new)
    return {
        flag: Rename(after.name, f"the compatibility baseline has {flag}")
        for before, after in (*kept, *renamed)
        for flag in before.flags
        if flag not in after.flags
    }


def renamed_in_history(config: Config, registry: Registry) -> dict[str, Rename]:
    """Each earlier spelling the history facts (`history:` of a page) record for an argument
    the registry still has under its newest name, when the registry no longer has it."""
    if not config.history_files():
        return {}
    from argmatrix.model.pairing import flatten
    from argmatrix.render.pages import read_histories

    spelled = {flag for argument in flatten(registry).arguments for flag in argument.flags}
    found: dict[str, Rename] = {}
    for path, history in sorted(read_histories(config).items(), key=lambda item: str(item[0])):
        for entry in history.entries:
            if entry.removed is not None or entry.name not in spelled:
                continue
            for flag in entry.flags:
                if flag not in spelled:
                    because = f"the history facts {_shown(path or '', config.root)} have {flag}"
                    found.setdefault(flag, Rename(entry.name, because))
    return found


def rename_of(flag: str, renames: dict[str, Rename]) -> Rename | None:
    """What a manifest's spelling became: looked up as written, or as a bare flag of one
    subcommand's (`--tp-size` for `serve --tp-size`)."""
    found = renames.get(flag)
    if found is None:
        near = {r for old, r in renames.items() if old.endswith(f" {flag}")}
        found = near.pop() if len(near) == 1 else None
    return found


def _renamed(finding: Any, renames: dict[str, Rename]) -> Any:
    """A stale manifest entry whose flag the project's records say was renamed: said, and the
    entry's new spelling given (`check --fix` writes it), so that following the advice keeps
    the platform's fact."""
    if finding.kind != STALE_ENTRY or not finding.flag:
        return finding
    rename = rename_of(finding.flag, renames)
    if rename is None:
        return finding
    return replace(
        finding,
        message=f"{finding.flag} is not an argument of the registry: it was renamed {rename.now}",
        fix=f"write {rename.now} instead ({rename.because}; `check --fix` writes it)",
    )


def _shown(path: str | Path, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return str(path)


def platform_export(resolved: ResolvedPlatform, registry: Registry) -> dict[str, Any]:
    from argmatrix.model.registry import json_value

    platform = resolved.platform
    arguments: dict[str, Any] = {}
    for argument in registry.arguments:
        capability = resolved.of(argument)
        arguments[argument.name] = {
            "status": capability.status,
            "variants": list(capability.variants),
            "options": json_value(list(capability.options))
            if capability.options is not None
            else None,
            "default": json_value(capability.effective_default(argument)),
            "note": capability.note,
            "reason": capability.reason,
            "computed_default": capability.computed,
        }
    return {"title": platform.title, "variants": list(platform.variants), "arguments": arguments}


@dataclass(frozen=True)
class SourceOptions:
    """What a front end may override of the configuration: the command line's source options,
    as plain values. `manifests` replaces the configured list when given."""

    config: str | None = None
    no_config: bool = False  # read no configuration file (`--no-config`)
    registry: str | None = None
    static: bool = False
    mock: tuple[str, ...] = ()
    manifests: tuple[str, ...] | None = None
    verbose: bool = False
    # Live mode (see RegistrySpec): each replaces the configured value when given; `env` adds
    # to the configured variables.
    parser_class: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] | None = None
    subcommand: tuple[str, ...] = ()


def configuration_file(config: str | None, no_config: bool, cwd: Path) -> Config:
    """The configuration file a command reads: the one named (`--config`), else the one found
    from `cwd` upwards; none with `no_config` (then the project is the repository)."""
    return load_config(None if no_config else find_config(config, cwd), cwd)


def config_with(options: SourceOptions, cwd: Path | None = None) -> Config:
    """The configuration file, overridden by `options`."""
    cwd = cwd or Path.cwd()
    config = configuration_file(options.config, options.no_config, cwd)
    registry = config.registry
    mock, auto_mock = split_mock(options.mock)
    if options.registry and not _names_the_configured(options.registry, registry, cwd):
        config = config.for_another_registry()
    if options.registry:
        mode = guess_mode(options.registry, options.static)
        target, words = (
            split_subcommands(options.registry)
            if LOADERS[mode].subcommand_words
            else (options.registry, ())
        )
        registry = RegistrySpec(
            target=target,
            mode=mode,
            mock=mock,
            base_dir=cwd,
            auto_mock=auto_mock,
            subcommand=words,
        )
    elif registry is not None:
        if options.static:
            registry = replace(registry, mode=registry.loader.without_running)
        if options.mock:
            registry = replace(registry, mock=mock, auto_mock=auto_mock)
    if registry is not None:
        registry = _live_overrides(registry, options)
    if registry is None:
        raise ArgmatrixError.at(
            "no registry given",
            fix="pass --registry MODULE:CALLABLE (or a snapshot .json), or write argmatrix.yaml",
        )
    manifests = config.manifests
    if options.manifests:
        manifests = tuple(cwd / m for m in options.manifests)
    return replace(config, registry=registry, manifests=manifests)


@dataclass(frozen=True)
class RegistryWarnings:
    """How a command reading registries its command line names (`diff OLD NEW`, `history
    --target`) says their warnings: as every other command says them in this project. A
    registry of the configured target (named as configured, or a snapshot written of it) is
    quiet about what the configuration's `computed:` answers, and names the setting to use by
    the configuration's file; another registry takes none of those settings (`--registry` of
    another target). Files are named from the current folder, a snapshot's (relative to the
    project that wrote it) read from this project."""

    config: Config
    warn: Callable[[str], None]
    verbose: bool = False

    def say(self, registry: Registry, target: str, shown: Callable[[str], str] = str) -> None:
        """Say each warning of `registry`, read from `target`, its text passed through
        `shown` (a release names its archive, not the folder its sources were copied to)."""
        from argmatrix.loaders.load import said_diagnostics, warning_text

        config = self.config
        if not any(_names_the_configured(t, config.registry) for t in (target, registry.source)):
            config = config.for_another_registry()
        configured = config.display.configured()
        for diagnostic in said_diagnostics(
            registry, self.verbose, shown_keywords(config), configured
        ):
            text = warning_text(diagnostic, config.project, registry, config_name(config))
            self.warn(shown(text))


def _names_the_configured(
    target: str, configured: RegistrySpec | None, cwd: Path | None = None
) -> bool:
    """Whether a `--registry` target is the configured registry's own (its settings apply): a
    configured snapshot named by any path to it from `cwd` (`../registry.json` from `docs/`)."""
    if configured is None:
        return False
    if configured.loader.target_is_file:
        named = (cwd or Path.cwd()) / target.strip()
        return os.path.realpath(named) == os.path.realpath(configured.base_dir / configured.target)
    words = configured.subcommand
    spelled = " ".join((configured.target, *words))
    return target.strip() in (configured.target, spelled)


def _live_overrides(registry: RegistrySpec, options: SourceOptions) -> RegistrySpec:
    """The command line's live settings over the configured ones."""
    changes: dict[str, Any] = {}
    if options.parser_class is not None:
        changes["parser_class"] = options.parser_class
    if options.env:
        changes["env"] = tuple({**dict(registry.env), **dict(options.env)}.items())
    if options.argv is not None:
        changes["argv"] = options.argv
    if options.subcommand:
        changes["subcommand"] = options.subcommand
    return replace(registry, **changes) if changes else registry


def _manifest_and_files(path: Path) -> tuple[Platform, list[str]]:
    from argmatrix.manifests.load import load_manifest  # a manifest not in the cache

    return load_manifest(path), [str(path)]


def load_platforms(paths: tuple[Path, ...]) -> dict[str, Platform]:
    """The manifests, in order (each from the cache while its file is unchanged)."""
    platforms: dict[str, Platform] = {}
    problems: list[Problem] = []
    for path in paths:
        try:
            platform = cached("manifest", (str(path),), partial(_manifest_and_files, path))
        except ArgmatrixError as error:
            problems.extend(error.problems)
            continue
        if platform.name in platforms:
            problems.append(
                Problem(
                    f"platform {platform.name!r} is defined twice",
                    str(path),
                    1,
                    "give each manifest its own 'platform' name",
                )
            )
        platforms[platform.name] = platform
    if problems:
        raise ArgmatrixError(*problems)
    return platforms


def load_project(options: SourceOptions | None = None, cwd: Path | None = None) -> Project:
    """The project of the configuration found from `cwd`, with `options` applied."""
    options = options or SourceOptions()
    return project_from_config(config_with(options, cwd), verbose=options.verbose)


def project_from_config(config: Config, verbose: bool = False) -> Project:
    """The registry and the manifests; a manifest's problems are reported before the registry's."""
    spec = config.registry
    assert spec is not None
    shown = shown_keywords(config)
    configured = config.display.configured()
    platforms = load_platforms(config.manifests)
    registry, files = load_registry_and_files(
        spec, verbose, shown, configured, config.project, config_name(config)
    )
    return Project(config, registry, platforms, files)


def shown_keywords(config: Config) -> tuple[str, ...]:
    """The extra `add_argument` keywords a page or export field of this project shows: a
    diagnostic about any other (RTP-LLM's `bind_to` kept as source text) reaches no reader."""
    keyword = config.display.environment.keyword
    return (keyword,) if keyword else ()


def load_registry_only(options: SourceOptions) -> Registry:
    """The registry alone (no manifest read), for the commands that need nothing else."""
    return configured_registry(config_with(options), options.verbose)


def configured_registry(config: Config, verbose: bool = False) -> Registry:
    """The registry of `config`, saying the warnings `generate` and `check` say for it (what
    reaches a page, less what the configuration answers: `computed:`), as every command does."""
    assert config.registry is not None
    return load_registry_and_files(
        config.registry,
        verbose,
        shown_keywords(config),
        config.display.configured(),
        config.project,
        config_name(config),
    )[0]


def config_name(config: Config) -> str:
    """The configuration's file name, as advice names it (`argmatrix-cli.yaml`)."""
    return config.file.name if config.file is not None else CONFIG_NAME


def portable_snapshot(options: SourceOptions, cwd: Path | None = None) -> str:
    """The snapshot of the registry `argmatrix snapshot` writes: the same bytes on every
    machine and from every folder of the project, its paths (where a diagnostic points)
    relative to the project, or to the folder of the import path a module was found in."""
    from argmatrix.loaders.snapshot import snapshot_text

    config = config_with(options, cwd)
    registry = configured_registry(config, options.verbose)
    return snapshot_text(with_portable_paths(registry, config.project))


def with_portable_paths(registry: Registry, project: Path) -> Registry:
    """`registry` with the file of each diagnostic (its subcommands' too) made portable."""
    diagnostics = tuple(
        replace(d, file=portable_path(d.file, project)) for d in registry.diagnostics
    )
    subcommands = tuple(
        replace(s, registry=with_portable_paths(s.registry, project)) for s in registry.subcommands
    )
    return replace(registry, diagnostics=diagnostics, subcommands=subcommands)


def portable_path(file: str, project: Path) -> str:
    """A file as a snapshot names it: relative to the project, else to the folder of the
    import path it lies in (`mysrv/server_args.py` in site-packages), else as it is (a member
    of a release archive: `x.whl!pkg/args.py`). Always with forward slashes."""
    if not os.path.isabs(file):
        return file
    real = os.path.realpath(file)
    for base in (str(project), *_import_folders()):
        try:
            relative = os.path.relpath(real, base)
        except ValueError:  # another drive
            continue
        if not relative.startswith(os.pardir) and not os.path.isabs(relative):
            return Path(relative).as_posix()
    return file


def _import_folders() -> list[str]:
    """The import path's folders, longest first (a virtual environment's site-packages before
    a folder holding it)."""
    import sys

    folders = {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    return sorted(folders, key=len, reverse=True)
