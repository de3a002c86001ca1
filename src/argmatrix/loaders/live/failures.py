"""What a live read says when the registry's code fails: a module it needs that is not installed
(and how to stand in for it), a compiled module that cannot load here, a distribution
`importlib.metadata` does not find, or an error the registry's own code raised (or a stand-in
of argmatrix's did), each located at the innermost frame of the registry's own packages."""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.live.mocking import (
    StubModule,
    failed_in_stand_in,
)
from argmatrix.loaders.live.settings import LiveSettings


def is_compiled(exc: ImportError) -> bool:
    return bool(exc.path) and str(exc.path).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_module_error(doing: str, exc: ImportError) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"{doing}: the compiled module {exc.name or exc.path!r} cannot be loaded here ({exc})",
        file=str(exc.path),
        fix="use 'mock: auto' (--mock auto) to stand in for it, or build it for this machine",
    )


def missing_module_error(
    doing: str, exc: ModuleNotFoundError, settings: LiveSettings
) -> ArgmatrixError:
    """A module the registry needs is not installed: say which, and how to stand in for it."""
    if isinstance(exc, importlib.metadata.PackageNotFoundError):  # a ModuleNotFoundError too
        return _missing_distribution_error(doing, exc, settings)
    missing = exc.name or "?"
    root = missing.split(".", 1)[0]
    where = _registry_frame(exc, settings.owners)
    if root != missing and _installed(root):
        fix = (
            f"{missing!r} is a submodule of the installed package {root!r} (a compiled module"
            " not built here?): use 'mock: auto' (--mock auto) to stand in for it"
        )
    else:
        fix = (
            f"add {root!r} to registry.mock in argmatrix.yaml or pass --mock {root}"
            " (or 'mock: auto' for every module that fails to import, or use --static)"
        )
    return ArgmatrixError.at(
        f"{doing} needs {missing!r}, which is not installed",
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix=fix,
    )


def _missing_distribution_error(
    doing: str, exc: importlib.metadata.PackageNotFoundError, settings: LiveSettings
) -> ArgmatrixError:
    """`importlib.metadata` found no distribution the registry asked the version of: a
    distribution, not a module (its package may well be stood in for)."""
    name = exc.name or "?"
    where = _registry_frame(exc, settings.owners)
    stood_in = isinstance(sys.modules.get(name.replace("-", "_")), StubModule)
    return ArgmatrixError.at(
        f"{doing} asked importlib.metadata for the distribution {name!r}, which is not installed"
        + (" (a stand-in takes the place of its package)" if stood_in else ""),
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix=f"give its version in argmatrix.yaml ('registry: versions: {{{name}: X.Y}}'), or"
        " install it",
    )


def _installed(root: str) -> bool:
    try:
        return importlib.util.find_spec(root) is not None
    except (ImportError, ValueError):
        return False


def _registry_frame(
    exc: BaseException, owners: Sequence[str] = ()
) -> traceback.FrameSummary | None:
    """The innermost frame of the traceback in the registry's own packages (`owners`): where
    its code called what failed (pydantic validating a default, `copy.deepcopy`, a stand-in).
    Without one, the innermost frame that is not argmatrix's nor the import system's."""
    own = [
        traceback.FrameSummary(frame.f_code.co_filename, line, frame.f_code.co_name)
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if _module_of(frame).split(".", 1)[0] in owners
    ]
    if own:
        return own[-1]
    frames = traceback.extract_tb(exc.__traceback__)
    outside = [
        f
        for f in frames
        if not f.filename.startswith((ARGMATRIX_FOLDER, "<", *framework_folders()))
        and f.filename != argparse.__file__  # argparse refusing a call: the call is the place
    ]
    return outside[-1] if outside else (frames[-1] if frames else None)


def _module_of(frame: Any) -> str:
    """The module a frame runs in, by its import name (a module run as `__main__` too)."""
    spec = frame.f_globals.get("__spec__")
    return str(getattr(spec, "name", None) or frame.f_globals.get("__name__", ""))


ARGMATRIX_FOLDER = str(Path(__file__).resolve().parents[2])  # frames of argmatrix itself


def framework_folders() -> tuple[str, ...]:
    """Click's and Typer's folders: Click exiting on a usage error is the caller's place."""
    found = []
    for name in ("click", "typer"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            found.append(str(Path(file).parent) + os.sep)
    return tuple(found)


def user_code_error(doing: str, exc: BaseException, settings: LiveSettings) -> ArgmatrixError:
    """An error raised by the registry's own code: say so, and where. One that argmatrix's
    stand-ins raised themselves is argmatrix's, and said so."""
    if settings.verbose:
        traceback.print_exception(exc)
    where = _registry_frame(exc, settings.owners)
    raised = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if failed_in_stand_in(exc):
        return ArgmatrixError.at(
            f"{doing}: argmatrix's stand-in failed with {raised}",
            file=where.filename if where else None,
            line=where.lineno if where else None,
            fix="a defect of argmatrix, not of the registry's code: please report it with the"
            " traceback --verbose prints; installing the module stood in for avoids it",
        )
    return ArgmatrixError.at(
        f"{doing} raised {raised}",
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix="this is an error in the registry's own code; run with --verbose for the traceback",
    )
