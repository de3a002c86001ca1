"""Registry snapshots: a versioned JSON file holding a registry, so docs can be built where the
server's own dependencies are not installed; and the JSON of `argmatrix export`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from json.encoder import encode_basestring  # what `json.dumps` writes text with, unescaped
from pathlib import Path
from typing import Any

from argmatrix._runtime.cache import note_read
from argmatrix._runtime.files import read_user_file
from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Registry, registry_from_dict, registry_to_dict

SNAPSHOT_FORMAT = "argmatrix-snapshot"
# 2: the shape of the command line (program, usage, epilog, help option, exclusive groups,
# the framework whose rules write it), and defaults read from the environment (`{"environment":
# {"variable": ..., "otherwise": ...}}`, which version 1 kept as source text). A version 1
# snapshot still reads, without what it did not hold.
SNAPSHOT_VERSION = 2
READABLE_VERSIONS = (1, 2)


# ------------------------------------------------------------------ snapshots


def snapshot_dict(registry: Registry) -> dict[str, Any]:
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "registry": registry_to_dict(registry),
    }


def snapshot_text(registry: Registry) -> str:
    return json_text(snapshot_dict(registry)) + "\n"


# ------------------------------------------------------------------ JSON as argmatrix writes it


def json_text(data: Any) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False)`, byte for byte, in about a third of the
    time: with an indent, `json` writes every value through its pure-Python encoder (a
    generator per level), which took 6 ms of a 300-argument `export`. Values of other types
    than JSON's own (a subclass, a key that is not text) are written by `json` itself."""
    parts: list[str] = []
    try:
        _write_json(data, "", parts.append)
    except (_NotPlain, RecursionError):  # `json` says what it says of a cycle
        return json.dumps(data, indent=2, ensure_ascii=False)
    return "".join(parts)


class _NotPlain(Exception):
    """A value `_write_json` leaves to `json`."""


_SCALARS = {None: "null", True: "true", False: "false"}


def _write_json(value: Any, indent: str, add: Callable[[str], None]) -> None:
    kind = type(value)
    if kind is str:
        add(encode_basestring(value))
    elif kind is dict:
        _write_items(value, indent, add)
    elif kind is list or kind is tuple:  # a tuple is an array to `json`
        if not value:
            add("[]")
            return
        inner = indent + "  "
        separator = "[\n" + inner
        for item in value:
            add(separator)
            separator = ",\n" + inner
            _write_json(item, inner, add)
        add("\n" + indent + "]")
    elif kind is int:
        add(int.__repr__(value))
    elif kind is float:
        add(json.dumps(value))  # repr, or NaN and Infinity as `json` writes them
    elif value is None or kind is bool:
        add(_SCALARS[value])
    else:
        raise _NotPlain


def _write_items(value: dict[Any, Any], indent: str, add: Callable[[str], None]) -> None:
    if not value:
        add("{}")
        return
    inner = indent + "  "
    separator = "{\n" + inner
    for key, item in value.items():
        if type(key) is not str:  # `json` turns numbers and None into text: its own rules
            raise _NotPlain
        add(separator + encode_basestring(key) + ": ")
        separator = ",\n" + inner
        _write_json(item, inner, add)
    add("\n" + indent + "}")


def read_snapshot(path: Path) -> Registry:
    text = read_user_file(
        path,
        "snapshot file",
        "write one with 'argmatrix snapshot --registry MODULE:CALLABLE -o FILE'",
    )
    note_read(path, text)  # pages are reused by the content read, whatever the file holds later
    try:
        data = json.loads(text)
    except RecursionError:
        raise ArgmatrixError.at(
            "snapshot is nested too deeply to be a snapshot",
            file=str(path),
            fix="write it again with 'argmatrix snapshot'",
        ) from None
    except json.JSONDecodeError as exc:
        raise ArgmatrixError.at(
            f"snapshot is not valid JSON ({exc.msg}); it may be truncated",
            file=str(path),
            line=exc.lineno,
            fix="write it again with 'argmatrix snapshot'",
        ) from None
    except ValueError:  # the one other failure: a number of more digits than Python reads
        raise ArgmatrixError.at(
            f"snapshot holds an integer of more than {_max_digits()} digits",
            file=str(path),
            line=_line_of_long_number(text),
            fix="write it again with 'argmatrix snapshot' (it writes such a value as hex text)",
        ) from None
    if "\\ud" in text or "\\uD" in text:  # an escaped surrogate: valid JSON, not valid text
        _refuse_lone_surrogates(data, text, str(path))
    return snapshot_from_dict(data, str(path))


def _refuse_lone_surrogates(data: Any, text: str, where: str) -> None:
    """A `\\ud800` without its pair reads as a string no page or terminal can be written with."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        import re

        found = re.search(
            r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
            r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}",
            text,
        )
        raise ArgmatrixError.at(
            "snapshot holds half of a surrogate pair (\\ud800-\\udfff alone), which is not text",
            file=where,
            line=text.count("\n", 0, found.start()) + 1 if found else None,
            fix="write it again with 'argmatrix snapshot'",
        ) from None


def _max_digits() -> int:
    """The most digits Python reads or writes as a decimal integer."""
    return getattr(sys, "get_int_max_str_digits", lambda: 0)() or 4300


def _line_of_long_number(text: str) -> int | None:
    """The line of the first number json.loads refuses (it does not say where it stopped)."""
    import re

    found = re.search(rf"[:\[,]\s*-?\d{{{_max_digits() + 1},}}", text)
    return text.count("\n", 0, found.end()) + 1 if found else None


def snapshot_from_dict(data: Any, where: str) -> Registry:
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise ArgmatrixError.at(
            'not an argmatrix snapshot (no "format": "argmatrix-snapshot")',
            file=where,
            fix="write one with 'argmatrix snapshot'",
        )
    version = data.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        readable = ", ".join(map(str, READABLE_VERSIONS))
        raise ArgmatrixError.at(
            f"snapshot schema version {version!r} is not supported (this argmatrix reads"
            f" versions {readable})",
            file=where,
            fix="write the snapshot again with this argmatrix, or install the matching argmatrix",
        )
    try:
        registry = registry_from_dict(data["registry"])
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
        raise ArgmatrixError.at(
            f"snapshot is incomplete or malformed ({type(exc).__name__}: {exc})",
            file=where,
            fix="write it again with 'argmatrix snapshot'",
        ) from None
    if version == 1:  # its defaults read from the environment, as version 2 holds them
        from argmatrix.loaders.snapshot_v1 import upgraded

        registry = upgraded(registry)
    return registry


def export_dict(registry: Registry, platforms: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"registry": registry_to_dict(registry), "platforms": platforms or {}}
