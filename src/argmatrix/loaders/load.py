"""Read a registry into the model, in any of its forms: `live` (import the project's code and
let it build its parser), `static` (read its source, import nothing), `snapshot` (a JSON file
written earlier). `RegistrySpec` (with the table of modes, `loaders/modes.py`) says where a
registry comes from; each mode's reader (`loaders/readers.py`) returns the registry and the files
it was read from, and what it says of the registry is said from here (`warnings_to`)."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from argmatrix.errors import ArgmatrixError

# Where a registry comes from, which the table of modes describes: imported from here by every
# front end, as the one entry of loading.
from argmatrix.loaders.modes import AUTO_MOCK as AUTO_MOCK
from argmatrix.loaders.modes import Loaded as Loaded
from argmatrix.loaders.modes import Mode as Mode
from argmatrix.loaders.modes import RegistrySpec as RegistrySpec
from argmatrix.loaders.readers import read_registry
from argmatrix.model.registry import Diagnostic, Registry

# Where the diagnostics of a loaded registry go: set by the command line (one warning line on
# stderr each), unset for library use and the MkDocs plugin.
_warn: Callable[[str], None] | None = None


# The folder a warning's file is named from: None for the current folder (the command line),
# the project's root for a docs engine (a build run from any folder names the same file).
_shown_from: Path | None = None


@contextlib.contextmanager
def warnings_to(
    sink: Callable[[str], None] | None, shown_from: Path | None = None
) -> Iterator[None]:
    """Send each diagnostic of every registry loaded inside the block to `sink`, as one line
    (`FILE:LINE: message`), its file named from `shown_from` (by default the current folder).
    A registry read in a forked process sends its own."""
    global _warn, _shown_from
    previous, _warn = _warn, sink
    previous_from, _shown_from = _shown_from, shown_from
    try:
        yield
    finally:
        _warn, _shown_from = previous, previous_from


def load_registry(
    spec: RegistrySpec, verbose: bool = False, project: Path | None = None
) -> Registry:
    return load_registry_and_files(spec, verbose, project=project)[0]


def load_registry_and_files(
    spec: RegistrySpec,
    verbose: bool = False,
    shown: Collection[str] | None = None,
    configured: Collection[tuple[str, str]] = (),
    project: Path | None = None,
    config_name: str = "argmatrix.yaml",
) -> Loaded:
    """The registry and the files it was read from, as data (a read done in another process
    returns both). Each diagnostic said goes to the sink of `warnings_to` (`warning_text`; a
    relative file of a snapshot's is read from `project`, by default the registry's base).

    `shown`: the extra keywords an output shows (the configuration's environment keyword); a
    diagnostic about another one (`bind_to` kept as source text) is not said, but with
    `verbose`. None: every one is said (what is shown is not known). `configured`: (flag,
    field) of each help, choices or default the configuration gives a text for, which pages
    show instead of the source text: not said either."""
    registry, files = read_registry(spec, verbose)
    _not_empty(registry, spec)
    if _warn is not None:
        for diagnostic in said_diagnostics(registry, verbose, shown, configured):
            _warn(
                warning_text(
                    diagnostic, project or spec.base_dir, registry, config_name, _shown_from
                )
            )
    return registry, files


def warning_text(
    diagnostic: Diagnostic,
    project: Path,
    registry: Registry | None = None,
    config_name: str = "argmatrix.yaml",
    shown_from: Path | None = None,
) -> str:
    """A diagnostic as a warning line says it, `FILE:LINE: message (fix: ...)`, whichever way
    the registry was read: its file relative to the current folder (`../mysrv/args.py` from
    `docs/`), or to `shown_from`, never `proj/../srv/...`; a snapshot's file (relative to the
    project that wrote it) read from `project`; a file outside the project as its absolute
    path."""
    text = str(replace(diagnostic, file=shown_file(diagnostic.file, project, shown_from)))
    fix = diagnostic_fix(diagnostic, registry, config_name)
    return f"{text} (fix: {fix})" if fix else text


# "--flag: default kept as source text: ..." (static reading's `report_unevaluated`), the
# fields a page shows that `computed:` in argmatrix.yaml can say in words.
_KEPT = re.compile(r"(?P<flag>-[^\s:]*): (?P<field>default|help|choices) kept as source text\b")


def diagnostic_fix(
    diagnostic: Diagnostic, registry: Registry | None = None, config_name: str = "argmatrix.yaml"
) -> str | None:
    """The setting that answers a diagnostic, where one does: a value kept as source text is
    said in words by `computed:` (which then silences it), the argument spelled as the
    configuration spells it (`serve --port` for a subcommand's; `registry`: where it is)."""
    found = _KEPT.match(diagnostic.message)
    if found is None:
        return None
    flag, field = found["flag"], found["field"]
    if registry is not None:
        from argmatrix.model.spelling import find_argument

        named = find_argument(registry, flag)
        spellings = (named.spelled,) if named.argument is not None else named.ambiguous
        flag = " or ".join(spellings) or flag
    return f"say it in words in {config_name}: 'computed: {{{flag}: {{{field}: ...}}}}'"


def shown_file(file: str, project: Path, shown_from: Path | None = None) -> str:
    """`file` (relative to `project`, or absolute) as a warning names it: from `shown_from`,
    by default the current folder."""
    if not file or "!" in file:  # a member of a release archive: `x.whl!pkg/args.py`
        return file
    path = os.path.normpath(os.path.join(project, file))  # an absolute `file` stays itself
    try:
        relative = os.path.relpath(path, shown_from or os.getcwd())
        inside = os.path.commonpath([os.path.realpath(path), os.path.realpath(project)])
    except ValueError:  # another drive
        return path
    if not relative.startswith(os.pardir) or inside == os.path.realpath(project):
        return Path(relative).as_posix()
    return path


def said_diagnostics(
    registry: Registry,
    verbose: bool = False,
    shown: Collection[str] | None = None,
    configured: Collection[tuple[str, str]] = (),
) -> list[Diagnostic]:
    """The diagnostics a reader or maintainer can act on: those about what reaches an output
    (`Diagnostic.attribute`: an extra keyword, said only where `shown` has it; a value kept as
    source text that the configuration gives a text for is not shown), every one with
    `verbose`."""
    if verbose:
        return list(registry.diagnostics)
    # As static reading says a value kept as source text (loaders/static/argparse_parsers/replay.py,
    # report_unevaluated): "--flag: help kept as source text: ...", under any of its flags.
    from argmatrix.model.spelling import find_argument, scopes

    found = [(find_argument(registry, name).argument, field) for name, field in configured]
    hidden = tuple(
        f"{flag}: {field} kept as source text"
        for argument, field in found
        if argument is not None
        for flag in argument.flags
    )
    read = {flag for scope in scopes(registry) for flag in scope.registry.by_flag()}
    return [
        d
        for d in registry.diagnostics
        if (shown is None or not d.attribute or d.attribute in shown)
        and not d.message.startswith(hidden or ("\0",))
        and _of_an_argument_read(d, read)
    ]


_KEPT_ANY = re.compile(r"(?P<flag>-[^\s:]*): [\w ]+ kept as source text\b")


def _of_an_argument_read(diagnostic: Diagnostic, flags: set[str]) -> bool:
    """Whether a value kept as source text belongs to an argument of the registry read: one of
    a subcommand left out of the target (`build serve` reads no `bench`) reaches no page."""
    found = _KEPT_ANY.match(diagnostic.message)
    return found is None or found["flag"] in flags


def _not_empty(registry: Registry, spec: RegistrySpec) -> None:
    if not registry.arguments and not registry.subcommands:
        raise ArgmatrixError.at(
            f"registry {spec.target} has no arguments",
            fix="point the target at the function that adds the server's arguments",
        )


def mock_list(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values or ()))


def split_mock(values: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """The modules named, and whether `auto` is among them."""
    names = mock_list(values)
    return tuple(n for n in names if n != AUTO_MOCK), AUTO_MOCK in names
