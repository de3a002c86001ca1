"""Each mode's reader (`READERS`, one per record of `modes.LOADERS`): given where a registry
comes from (`RegistrySpec`) and whether to be verbose, the registry and the files it was read from
(`Loaded`). `read_live` imports the project's code in a process of its own (`live_child` is what
that process runs), `read_static` reads its source (cached by the content of every file read),
`read_snapshot` a JSON file written earlier. `load.load_registry` reads with them; the table of
modes says everything else about a mode and names none of them, so nothing here is imported back.

Each reader imports its module when first used: a run that reads a snapshot, or finds the registry
in the cache, never loads the static interpreter or the import machinery."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from argmatrix._runtime.cache import cached_with_inputs
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.modes import (
    ARGPARSE,
    CLICK,
    FRAMEWORKS,
    Loaded,
    Mode,
    RegistrySpec,
    framework_of,
)
from argmatrix.model.registry import Registry

if TYPE_CHECKING:
    from argmatrix.loaders.live.importing import LiveOutcome, LiveResult
    from argmatrix.loaders.static.reader import StaticRead

Reader = Callable[[RegistrySpec, bool], Loaded]


def read_snapshot(spec: RegistrySpec, verbose: bool) -> Loaded:
    from argmatrix.loaders.snapshot import read_snapshot

    path = _resolve_path(spec.target, spec.base_dir)
    return read_snapshot(path), [str(path)]


def read_static(spec: RegistrySpec, verbose: bool) -> Loaded:
    return cached_with_inputs("registry", _static_key(spec), lambda: _read_static(spec))


def read_live(spec: RegistrySpec, verbose: bool) -> Loaded:
    """The registry read live, in a process of its own that ends where the target would parse
    (loaders/live/process.py): nothing after the parse runs. Its files are those of the modules
    it imported, the target's first (`imported_files` keeps those of the project)."""
    from argmatrix.loaders.live.process import Job, run_apart

    job = Job(live_child, (spec, verbose), _LIVE_MODULES)
    outcome = run_apart(job, _show_printed if verbose else None).value
    for note in outcome.notes if verbose else ():
        print(note, file=sys.stderr)
    return outcome.registry, list(outcome.modules)


# What a live read's process runs on: imported once in this process before it forks one.
_LIVE_MODULES = (
    "argmatrix.loaders.live.importing",
    "argmatrix.loaders.convert",
    "argmatrix.loaders.clicks",
    "argmatrix.loaders.target",
)


def _show_printed(printed: str) -> None:
    sys.stderr.write(f"-- what the registry printed while loading --\n{printed}")
    if not printed.endswith("\n"):
        sys.stderr.write("\n")


def live_child(spec: RegistrySpec, verbose: bool, end: Callable[[Any], NoReturn]) -> NoReturn:
    """In the read's own process (the `Job` of `read_live`): import and build, and end with
    the model of what was found, where the target parses or when it returns (`end` never
    returns)."""
    from argmatrix.loaders.live.importing import load_live
    from argmatrix.loaders.live.settings import LiveSettings

    settings = LiveSettings(
        mock=spec.mock,
        auto_mock=spec.auto_mock,
        parser_class=spec.parser_class,
        env=spec.env,
        argv=spec.argv,
        args=spec.args,
        kwargs=spec.kwargs,
        versions=spec.versions,
        verbose=verbose,
    )

    def finish(found: Any) -> NoReturn:
        if isinstance(found, ArgmatrixError):
            end(found)  # an error: the process hands it over as one
        try:
            end(_live_outcome(spec, found))
        except ArgmatrixError as error:
            end(error)

    finish(load_live(spec.target, spec.base_dir, settings, end=finish))


def _live_outcome(spec: RegistrySpec, result: LiveResult) -> LiveOutcome:
    """The model of what a live read found, with what is said of it, and the files of the
    modules imported (the target's module first)."""
    from argmatrix.loaders.clicks import kept_as_source
    from argmatrix.loaders.live.argparse_parsers import unresolved_stand_ins
    from argmatrix.loaders.live.importing import LiveOutcome

    framework = framework_of(spec, result.framework)
    parser = framework.descend(result.parser, spec.subcommand, spec.target)
    diagnostics = [*result.diagnostics, *unresolved_stand_ins(parser, result.sites)]
    if framework.name == ARGPARSE:  # a default read from the environment: the fact, not the value
        from argmatrix.loaders.environment_source import mark_environment_defaults

        environ = {**os.environ, **dict(spec.env)}
        configured = frozenset(name for name, _ in spec.env)
        mark_environment_defaults(parser, result.sites, _read_file, environ, configured)
    registry = framework.to_registry(parser, spec.source, result.sites, _read_file)
    if framework.name == CLICK:  # a callable default, computed when the command runs: said
        diagnostics += kept_as_source(registry)
    if diagnostics:
        registry = replace(registry, diagnostics=(*registry.diagnostics, *diagnostics))
    notes = (f"stand-ins for: {', '.join(result.stood_in)}",) if result.stood_in else ()
    return LiveOutcome(registry, _module_files(spec.target.partition(":")[0]), notes)


def _module_files(target_module: str) -> tuple[str, ...]:
    files = [getattr(sys.modules.get(target_module), "__file__", None)]
    files += [getattr(module, "__file__", None) for module in list(sys.modules.values())]
    return tuple(dict.fromkeys(f for f in files if isinstance(f, str)))


def _static_key(spec: RegistrySpec) -> tuple[Any, ...]:
    # Where modules are looked for is part of the key: another environment (another sys.path)
    # may hold another version of the same package.
    key: tuple[Any, ...] = (spec.target, str(spec.base_dir), spec.search_path or tuple(sys.path))
    if spec.parser_class:  # the project's parser class a filler is handed, read statically too
        key = (*key, ("parser_class", spec.parser_class))
    if spec.framework:  # the framework named, not the one the read finds
        key = (*key, ("framework", spec.framework))
    return (*key, spec.subcommand) if spec.subcommand else key


def _read_static(spec: RegistrySpec) -> tuple[Registry, list[str]]:
    from argmatrix.loaders.static.reader import load_static, stop_if_incomplete, stopped_for_missing

    read = _framework_read(spec) or load_static(
        spec.target, spec.base_dir, spec.search_path, parser_class=spec.parser_class
    )
    framework = framework_of(spec, read.framework)
    try:
        parser = framework.descend(read.parser, spec.subcommand, spec.target)
    except ArgmatrixError as exc:  # a subcommand static reading may have missed: say where
        raise stopped_for_missing(exc, read) from None
    stop_if_incomplete(read)
    registry = framework.to_registry(parser, spec.source, read.sites, read.source_text)
    if read.diagnostics:  # carried by the model: through the forked reader, the cache, snapshots
        registry = replace(registry, diagnostics=read.diagnostics)
    return registry, list(read.files)


def _framework_read(spec: RegistrySpec) -> StaticRead | None:
    """The read of a target another framework than argparse built (a Click command, a Typer
    app), by the first framework whose static reader recognises it; None: none does, and the
    target is read as argparse's."""
    named = (framework_of(spec),) if spec.framework else tuple(FRAMEWORKS.values())
    for framework in named:
        read = framework.read_static(spec.target, spec.base_dir, spec.search_path)
        if read is not None:
            return read
    return None


def _resolve_path(target: str, base_dir: Path) -> Path:
    path = Path(target)
    return path if path.is_absolute() else base_dir / path


def _read_file(name: str) -> str | None:
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# The reader of each mode of `modes.LOADERS` (tests/test_modes.py keeps the two tables alike).
READERS: dict[Mode, Reader] = {
    "live": read_live,
    "static": read_static,
    "snapshot": read_snapshot,
}


def read_registry(spec: RegistrySpec, verbose: bool) -> Loaded:
    """The registry `spec` names, read by its mode's reader, and the files it was read from."""
    return READERS[spec.mode](spec, verbose)
