"""Write a set of pages all or nothing: every page to a temporary file, then all moved in place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_all(files: Iterable[tuple[Path, str]]) -> list[Path]:
    """Write every (path, text); if any write fails, no target file has changed."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, text in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                                 dir=path.parent)
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(text)
            staged.append((Path(temporary), path))
    except BaseException:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                temporary.unlink()
        raise
    for temporary, path in staged:
        os.replace(temporary, path)
    return [path for _, path in staged]
