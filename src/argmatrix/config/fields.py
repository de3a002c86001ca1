"""Checks of a configuration's fields that several of its parts share: unknown keys, how a
value is shown in a message, a relative path that stays inside docs_dir."""

from __future__ import annotations

import os
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
