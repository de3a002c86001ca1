"""Read a registry into the model, in any of its forms: `live` (import the project's code and
let it build its parser), `static` (read its source, import nothing), `snapshot` (a JSON file
written earlier). `RegistrySpec` says where a registry comes from; `LOADERS` maps each mode to
its loader; the static read is cached by the content of every file it read."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from argmatrix._runtime.cache import MISSING, cached, files_seen, lookup, remember_files
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import subcommand_registry
from argmatrix.loaders.convert import registry_from_parser
from argmatrix.loaders.snapshot import read_snapshot
from argmatrix.loaders.target import descend
from argmatrix.model.registry import Registry

AUTO_MOCK = "auto"  # `mock: auto`, `--mock auto`: stand in for every module that fails to import
Mode = Literal["live", "static", "snapshot"]
MODES: tuple[str, ...] = ("live", "static", "snapshot")


@dataclass(frozen=True)
class RegistrySpec:
    """Where a registry comes from: what the configuration's `registry:` block says."""

    target: str
    mode: Mode = "live"
    mock: tuple[str, ...] = ()
    base_dir: Path = field(default_factory=Path.cwd)
    search_path: tuple[str, ...] | None = None  # static mode: defaults to sys.path
    # Live mode only (static reading never reads the environment nor runs anything):
    auto_mock: bool = False  # `mock: auto`: a stand-in for every module that fails to import
    parser_class: str | None = None  # module:Class, the parser a filler is handed
    env: tuple[tuple[str, str], ...] = ()  # set while importing and building
    argv: tuple[str, ...] | None = None  # sys.argv after the program name, likewise
    args: tuple[Any, ...] = ()  # more arguments for the builder (plain YAML values)
    kwargs: tuple[tuple[str, Any], ...] = ()
    # Both modes: the subcommands that lead from the target's parser to the registry.
    subcommand: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # `auto` among the names (from any front end, `argmatrix diff --mock auto` too) is the
        # setting, not a module.
        if AUTO_MOCK in self.mock:
            object.__setattr__(self, "mock", tuple(m for m in self.mock if m != AUTO_MOCK))
            object.__setattr__(self, "auto_mock", True)

    @property
    def source(self) -> str:
        """The registry's name in the model: the target, and the subcommands after it."""
        return " ".join((self.target, *self.subcommand))


def guess_mode(target: str, static: bool) -> Mode:
    if target.endswith(".json") and ":" not in target:
        return "snapshot"
    return "static" if static else "live"


# Where the diagnostics of a loaded registry go: set by the command line (one warning line on
# stderr each), unset for library use and the MkDocs plugin.
_warn: Callable[[str], None] | None = None


@contextlib.contextmanager
def warnings_to(sink: Callable[[str], None] | None) -> Iterator[None]:
    """Send each diagnostic of every registry loaded inside the block to `sink`, as one line
    (`FILE:LINE: message`). A registry read in a forked process sends its own."""
    global _warn
    previous, _warn = _warn, sink
    try:
        yield
    finally:
        _warn = previous


def load_registry(spec: RegistrySpec, verbose: bool = False) -> Registry:
    registry = _load_registry(spec, verbose)
    if _warn is not None:
        for diagnostic in registry.diagnostics:
            _warn(str(diagnostic))
    return registry


def _load_registry(spec: RegistrySpec, verbose: bool) -> Registry:
    return _not_empty(LOADERS[spec.mode](spec, verbose), spec)


# The loaders below import their module when first used: a run that reads a snapshot, or finds
# the registry in the cache, never loads the static interpreter or the import machinery.


def _load_snapshot(spec: RegistrySpec, verbose: bool) -> Registry:
    return read_snapshot(_resolve_path(spec.target, spec.base_dir))


def _load_static(spec: RegistrySpec, verbose: bool) -> Registry:
    return cached("registry", _static_key(spec), lambda: _read_static(spec))


def _load_live(spec: RegistrySpec, verbose: bool) -> Registry:
    from argmatrix.loaders.live.importing import LiveSettings, load_live, unresolved_stand_ins

    settings = LiveSettings(
        mock=spec.mock,
        auto_mock=spec.auto_mock,
        parser_class=spec.parser_class,
        env=spec.env,
        argv=spec.argv,
        args=spec.args,
        kwargs=spec.kwargs,
        verbose=verbose,
    )
    result = load_live(spec.target, spec.base_dir, settings)
    if verbose and result.stood_in:
        print(f"stand-ins for: {', '.join(result.stood_in)}", file=sys.stderr)
    if result.command is not None:  # a Click command, group or Typer app (issue 22)
        return subcommand_registry(result.command, spec.subcommand, spec.target, spec.source)
    assert result.parser is not None
    parser = descend(result.parser, spec.subcommand, spec.target)
    diagnostics = unresolved_stand_ins(parser, result.sites)
    registry = registry_from_parser(parser, spec.source, result.sites, _read_file)
    return replace(registry, diagnostics=tuple(diagnostics)) if diagnostics else registry


# One loader per mode. A new way of reading a registry is a module in this package and an entry
# here (and its name in `Mode`/`MODES`, which the configuration is validated against).
LOADERS: dict[str, Callable[[RegistrySpec, bool], Registry]] = {
    "live": _load_live,
    "static": _load_static,
    "snapshot": _load_snapshot,
}


def _not_empty(registry: Registry, spec: RegistrySpec) -> Registry:
    if not registry.arguments and not registry.subcommands:
        raise ArgmatrixError.at(
            f"registry {spec.target} has no arguments",
            fix="point the target at the function that adds the server's arguments",
        )
    return registry


def needs_reading(spec: RegistrySpec) -> bool:
    """Whether loading means reading source (a static registry not in the cache)."""
    return spec.mode == "static" and lookup("registry", _static_key(spec)) is MISSING


def load_registry_and_files(
    spec: RegistrySpec, verbose: bool = False
) -> tuple[Registry, list[str] | None]:
    """`load_registry` and `input_files` together, for a read done in another process."""
    return load_registry(spec, verbose), input_files(spec)


def adopt_input_files(spec: RegistrySpec, files: list[str] | None) -> None:
    """Make `input_files` answer, in this process, for a registry read in another one."""
    if spec.mode == "static" and files is not None:
        remember_files("registry", _static_key(spec), files)


def _static_key(spec: RegistrySpec) -> tuple[Any, ...]:
    # Where modules are looked for is part of the key: another environment (another sys.path)
    # may hold another version of the same package.
    key: tuple[Any, ...] = (spec.target, str(spec.base_dir), spec.search_path or tuple(sys.path))
    if spec.parser_class:  # the project's parser class a filler is handed, read statically too
        key = (*key, ("parser_class", spec.parser_class))
    return (*key, spec.subcommand) if spec.subcommand else key


def input_files(spec: RegistrySpec) -> list[str] | None:
    """The files the loaded registry was read from; None where that is not known (live)."""
    if spec.mode == "snapshot":
        return [str(_resolve_path(spec.target, spec.base_dir))]
    if spec.mode == "static":
        return files_seen("registry", _static_key(spec))
    return None


def _read_static(spec: RegistrySpec) -> tuple[Registry, list[str]]:
    from argmatrix.loaders.static.reader import (
        diagnostics_of,
        files_read,
        load_static,
        stop_if_incomplete,
        stopped_for_missing,
    )

    framework = _read_static_framework(spec)  # a Click command or Typer app (issue 22)
    if framework is not None:
        return framework

    parser, sites, read_source = load_static(
        spec.target, spec.base_dir, spec.search_path, parser_class=spec.parser_class
    )
    try:
        parser = descend(parser, spec.subcommand, spec.target)
    except ArgmatrixError as exc:  # a subcommand static reading may have missed: say where
        raise stopped_for_missing(exc, read_source) from None
    stop_if_incomplete(read_source)
    registry = registry_from_parser(parser, spec.source, sites, read_source)
    diagnostics = diagnostics_of(read_source)
    if diagnostics:  # carried by the model: through the forked reader, the cache, snapshots
        registry = replace(registry, diagnostics=diagnostics)
    return registry, files_read(read_source)


def _read_static_framework(spec: RegistrySpec) -> tuple[Registry, list[str]] | None:
    """A Click command, group or Typer app read from source; None: the target is not one."""
    from argmatrix.loaders.static.frameworks import read_framework
    from argmatrix.loaders.static.reader import diagnostics_of, files_read, stop_if_incomplete

    found = read_framework(spec.target, spec.base_dir, spec.search_path)
    if found is None:
        return None
    stop_if_incomplete(found.read_source)
    registry = subcommand_registry(found.command, spec.subcommand, spec.target, spec.source)
    diagnostics = diagnostics_of(found.read_source)
    if diagnostics:
        registry = replace(registry, diagnostics=diagnostics)
    return registry, files_read(found.read_source)


def _resolve_path(target: str, base_dir: Path) -> Path:
    path = Path(target)
    return path if path.is_absolute() else base_dir / path


def _read_file(name: str) -> str | None:
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def mock_list(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values or ()))


def split_mock(values: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """The modules named, and whether `auto` is among them."""
    names = mock_list(values)
    return tuple(n for n in names if n != AUTO_MOCK), AUTO_MOCK in names
