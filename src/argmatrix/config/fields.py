"""Checks of a configuration's fields that several of its parts share: unknown keys, how a
value is shown in a message, a relative path that stays inside docs_dir."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from argmatrix._runtime.yamlfile import line_of
from argmatrix.errors import Problem


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


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else f"{value!r} (not a text)"


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


# What file systems allow (Linux and macOS: 255 bytes a name; Linux: 4096 a path). Fixed numbers,
# not the machine's, so a configuration is accepted or refused the same everywhere.
NAME_MAX = 255
PATH_MAX = 4096
# What the writers add to a page's name for its temporary file (`.NAME.argmatrix-PID-XXXXXXXX.tmp`,
# _runtime/writer.py), so a page whose name fits but whose temporary file does not is refused too.
TEMPORARY_NAME = len(".") + len(".argmatrix-4194304-") + 8 + len(".tmp")


def _too_long(path: Path, written: str, reserve: int = 0) -> str | None:
    """Why `path` (as `written` in the configuration) is longer than a file system allows, or
    None. `reserve`: bytes the last name must leave for a temporary file beside it."""
    parts = path.parts
    for index, part in enumerate(parts):
        limit = NAME_MAX - (reserve if index == len(parts) - 1 else 0)
        size = len(os.fsencode(part))
        if size > limit:
            return f"{_short(written)}: a name of {size} bytes ({_short(part)}), over {limit}"
    size = len(os.fsencode(str(path)))
    if size > PATH_MAX - reserve:
        return f"{_short(written)}: a path of {size} bytes, over {PATH_MAX - reserve}"
    return None


def _short(text: str) -> str:
    """A long name as a message shows it: its start and its end."""
    return repr(text if len(text) <= 40 else f"{text[:20]}...{text[-12:]}")
