"""The ways of reading a registry, described once: one `Loader` record per mode, in `LOADERS`,
and what built the registry, a separate idea, in `FRAMEWORKS`; `RegistrySpec`, where a registry
comes from (what a configuration's `registry:` block says), asks them.

A mode says *how* a registry is read: `live` imports the project's code and lets it build its
parser, `static` reads its source without running it, `snapshot` reads a JSON file written
earlier. A framework says *what* built the registry (argparse, or Click and Typer): how its
parser leads to a subcommand's and becomes the model, and how a static read finds its parser.
Everything that depends on the mode asks its record (`spec.loader.runs_code`,
`spec.loader.target_is_file`, ...); outside `loaders/` nothing compares mode names
(tests/test_modes.py keeps it so). A new mode is a record here and its reader in
`loaders/readers.py` (`READERS`), which imports this table; nothing here names a reader.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Registry

if TYPE_CHECKING:
    from argmatrix.loaders.static.reader import StaticRead

Mode = Literal["live", "static", "snapshot"]
StaticReader = Callable[[str, Path, "tuple[str, ...] | None"], "StaticRead | None"]
# What a registry was read from: "target", the target itself (a file); "read", the files its
# reader read (it is cached by their content); "imported", not known, for the project's code ran
# (the modules it imported from inside the project stand for them, and pages are never reused).
Inputs = Literal["target", "read", "imported"]


@dataclass(frozen=True)
class Loader:
    """One way of reading a registry, and everything the rest of argmatrix asks about it."""

    mode: Mode
    inputs: Inputs
    # It imports and runs the project's code: nothing forks afterwards (its imports may have
    # started threads), a rebuild imports the target afresh, and a documentation server watches
    # the target's module (the files it imported are not known).
    runs_code: bool
    # The target is a file path (which must stay inside the project), not module:callable.
    target_is_file: bool
    # Words after the target name subcommands: `pkg.cli:main serve api_server`.
    subcommand_words: bool
    # The mode reading the same target without running its code (`--static`).
    without_running: Mode
    # How messages name the files it reads ("page output x is also an input (the snapshot y)").
    what: str
    # A target ending in this (and not a module:callable) names this mode when none is given.
    suffix: str = ""


LOADERS: dict[str, Loader] = {
    loader.mode: loader
    for loader in (
        Loader(
            mode="live",
            inputs="imported",
            runs_code=True,
            target_is_file=False,
            subcommand_words=True,
            without_running="static",
            what="the registry source",
        ),
        Loader(
            mode="static",
            inputs="read",
            runs_code=False,
            target_is_file=False,
            subcommand_words=True,
            without_running="static",
            what="the registry source",
        ),
        Loader(
            mode="snapshot",
            inputs="target",
            runs_code=False,
            target_is_file=True,
            subcommand_words=False,
            without_running="snapshot",
            what="the snapshot",
            suffix=".json",
        ),
    )
}
MODES: tuple[str, ...] = tuple(LOADERS)  # what `registry.mode` accepts, in this order
DEFAULT_MODE: Mode = "live"


def mode_named_by(target: str) -> Mode:
    """The mode a configured target names by its form when `mode` is not given: a file ending
    in a mode's suffix (a snapshot's `.json`), else live."""
    for loader in LOADERS.values():
        if loader.suffix and target.endswith(loader.suffix):
            return loader.mode
    return DEFAULT_MODE


def guess_mode(target: str, static: bool) -> Mode:
    """The mode of a target named on the command line: as its form names it (a module:callable
    is never a file), read without running its code with `--static`."""
    mode = mode_named_by(target) if ":" not in target else DEFAULT_MODE
    return LOADERS[mode].without_running if static else mode


def imported_files(modules: Sequence[str], root: Path) -> list[tuple[str, bool]]:
    """The files a registry whose code ran stands for, each with whether a documentation server
    watches it: the target's module (the first of `modules`, the files of the modules its read
    imported; watched), and every module imported from inside the project `root` (not watched:
    with a virtual environment in the project, that would be every package installed there)."""
    files: dict[str, bool] = {}
    if modules:
        files[modules[0]] = True
    prefix = str(root).rstrip(os.sep) + os.sep
    for file in modules[1:]:
        if file.startswith(prefix):
            files.setdefault(file, False)
    return list(files.items())


# ------------------------------------------------------------------ where a registry comes from

AUTO_MOCK = "auto"  # `mock: auto`, `--mock auto`: stand in for every module that fails to import


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
    versions: tuple[tuple[str, str], ...] = ()  # what importlib.metadata says of stood-in ones
    # Both modes: the subcommands that lead from the target's parser to the registry.
    subcommand: tuple[str, ...] = ()
    # What built the registry (`FRAMEWORKS` in modes.py); None: what the reader finds the target
    # to be (an ArgumentParser's builder, a Click command or group, a Typer app).
    framework: str | None = None

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

    @property
    def loader(self) -> Loader:
        """How this registry is read: its mode's record in `LOADERS`."""
        return LOADERS[self.mode]


# What a loader returns: the registry, and the files it was read from (None where that cannot be
# known: a live registry's imports read what they read). Pages rendered from the registry are
# reused only while every one of those files is unchanged.
Loaded = tuple[Registry, list[str] | None]


# ------------------------------------------------------------------ what built the registry


@dataclass(frozen=True)
class Framework:
    """What built a registry's parser, apart from how the registry is read: a live import and a
    static read of one target find the same kind of parser (an `ArgumentParser`; for Click, the
    command's `CommandFacts`). The readers find which framework a target is
    (`LiveResult.framework`, `StaticRead.framework`); `RegistrySpec.framework` names one
    instead."""

    name: str
    # The parser of the subcommand the words lead to: (parser, words, target) -> parser.
    descend: Callable[[Any, tuple[str, ...], str], Any]
    # The parser as the model: (parser, source, call sites, read_file) -> Registry.
    to_registry: Callable[[Any, str, Any, Callable[[str], str | None]], Registry]
    # Where its static reader is, "module:function", taking (target, base_dir, search_path) and
    # returning a `StaticRead` of the framework's parser, or None when the target is not one of
    # its commands; imported when first used. None: the framework a static read falls back to
    # (argparse's, `reader.load_static`, which is given more settings).
    static_reader: str | None = None

    def read_static(
        self, target: str, base_dir: Path, search_path: tuple[str, ...] | None
    ) -> StaticRead | None:
        if self.static_reader is None:
            return None
        module, _, name = self.static_reader.partition(":")
        reader = cast(StaticReader, getattr(import_module(module), name))
        return reader(target, base_dir, search_path)


def _imported(where: str) -> Callable[..., Any]:
    """The function `where` names ("module:function"), imported when first called: a run whose
    registry comes from the cache or a snapshot never loads a framework's converter (Click's
    facts, argparse's introspection)."""

    def call(*args: Any) -> Any:
        module, _, name = where.partition(":")
        return getattr(import_module(module), name)(*args)

    return call


# The frameworks' names, as their converters (loaders/convert.py, loaders/clicks.py) say them.
ARGPARSE, CLICK = "argparse", "click"

FRAMEWORKS: dict[str, Framework] = {
    framework.name: framework
    for framework in (
        Framework(
            name=ARGPARSE,
            descend=_imported("argmatrix.loaders.target:descend"),
            to_registry=_imported("argmatrix.loaders.convert:registry_from_parser"),
        ),
        # Click, and Typer: a Typer app is a Click command underneath (`typer.main.get_command`),
        # read from the command object live and from Typer's declarations statically, into the
        # same facts (loaders/clicks.py).
        Framework(
            name=CLICK,
            descend=_imported("argmatrix.loaders.clicks:descend_command"),
            to_registry=_imported("argmatrix.loaders.clicks:registry_from_command"),
            static_reader="argmatrix.loaders.static.reader:read_framework",
        ),
    )
}
DEFAULT_FRAMEWORK = ARGPARSE


def framework_of(spec: RegistrySpec, found: str = DEFAULT_FRAMEWORK) -> Framework:
    """The framework a registry is made with: the one its configuration names, else the one its
    reader `found` the target to be."""
    name = spec.framework or found
    framework = FRAMEWORKS.get(name)
    if framework is None:
        raise ArgmatrixError.at(
            f"registry {spec.target}: unknown framework {name!r}",
            fix=f"use one of: {', '.join(FRAMEWORKS)}",
        )
    return framework
