"""Write a set of pages all or nothing: every page to a temporary file, then all moved in place."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from .errors import ArgmatrixError


@lru_cache(maxsize=1)
def _new_file_mode() -> int:
    """The mode a plain `open(path, "w")` would give (temporary files start at 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return _new_file_mode()


def refuse_folder(path: Path) -> None:
    if path.is_dir():
        raise ArgmatrixError.at("the output is a folder, not a file", file=str(path),
                                fix="give the page an output file name ending in .md")


def _stage(path: Path, text: str, staged: list[tuple[Path, Path]]) -> None:
    refuse_folder(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temporary = Path(name)
    staged.append((temporary, path))
    with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)
    os.chmod(temporary, _mode_for(path))


def write_all(files: Iterable[tuple[Path, str]]) -> list[Path]:
    """Write every (path, text); if any write fails, no target file has changed."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, text in files:
            _stage(path, text, staged)
        for temporary, path in staged:
            os.replace(temporary, path)
    except OSError as exc:
        raise ArgmatrixError.at(f"cannot write: {exc.strerror or exc}",
                                file=str(exc.filename or (staged[-1][1] if staged else "")),
                                fix="check that the folder exists and can be written") from None
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                temporary.unlink()  # still there only if it was not moved into place
    return [path for _, path in staged]
