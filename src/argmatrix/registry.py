"""Read a registry in any of its three forms (live, static, snapshot) into the model."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .errors import ArgmatrixError, read_user_file
from .introspect import registry_from_parser
from .model import Registry, registry_from_dict, registry_to_dict

Mode = Literal["live", "static", "snapshot"]
MODES: tuple[str, ...] = ("live", "static", "snapshot")
SNAPSHOT_FORMAT = "argmatrix-snapshot"
SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class RegistrySpec:
    """Where a registry comes from: what the configuration's `registry:` block says."""

    target: str
    mode: Mode = "live"
    mock: tuple[str, ...] = ()
    base_dir: Path = field(default_factory=Path.cwd)
    search_path: tuple[str, ...] | None = None  # static mode: defaults to sys.path


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
    if spec.mode == "snapshot":
        registry = read_snapshot(_resolve_path(spec.target, spec.base_dir))
    elif spec.mode == "static":
        from .cache import cached

        registry = cached("registry", _static_key(spec), lambda: _read_static(spec))
    else:
        from .live import load_live

        parser, sites = load_live(spec.target, spec.mock, spec.base_dir, verbose)
        registry = registry_from_parser(parser, spec.target, sites, _read_file)
    return _not_empty(registry, spec)


def _not_empty(registry: Registry, spec: RegistrySpec) -> Registry:
    if not registry.arguments and not registry.subcommands:
        raise ArgmatrixError.at(
            f"registry {spec.target} has no arguments",
            fix="point the target at the function that adds the server's arguments",
        )
    return registry


def needs_reading(spec: RegistrySpec) -> bool:
    """Whether loading means reading source (a static registry not in the cache)."""
    from .cache import MISSING, lookup

    return spec.mode == "static" and lookup("registry", _static_key(spec)) is MISSING


def load_registry_and_files(spec: RegistrySpec, verbose: bool = False
                            ) -> tuple[Registry, list[str] | None]:
    """`load_registry` and `input_files` together, for a read done in another process."""
    return load_registry(spec, verbose), input_files(spec)


def adopt_input_files(spec: RegistrySpec, files: list[str] | None) -> None:
    """Make `input_files` answer, in this process, for a registry read in another one."""
    from .cache import remember_files

    if spec.mode == "static" and files is not None:
        remember_files("registry", _static_key(spec), files)


def _static_key(spec: RegistrySpec) -> tuple[Any, ...]:
    # Where modules are looked for is part of the key: another environment (another sys.path)
    # may hold another version of the same package.
    return (spec.target, str(spec.base_dir), spec.search_path or tuple(sys.path))


def input_files(spec: RegistrySpec) -> list[str] | None:
    """The files the loaded registry was read from; None where that is not known (live)."""
    if spec.mode == "snapshot":
        return [str(_resolve_path(spec.target, spec.base_dir))]
    if spec.mode == "static":
        from .cache import files_seen

        return files_seen("registry", _static_key(spec))
    return None


def _read_static(spec: RegistrySpec) -> tuple[Registry, list[str]]:
    from .static import diagnostics_of, files_read, load_static

    parser, sites, read_source = load_static(spec.target, spec.base_dir, spec.search_path)
    registry = registry_from_parser(parser, spec.target, sites, read_source)
    diagnostics = diagnostics_of(read_source)
    if diagnostics:  # carried by the model: through the forked reader, the cache, snapshots
        registry = replace(registry, diagnostics=diagnostics)
    return registry, files_read(read_source)


def _resolve_path(target: str, base_dir: Path) -> Path:
    path = Path(target)
    return path if path.is_absolute() else base_dir / path


def _read_file(name: str) -> str | None:
    try:
        return Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# ------------------------------------------------------------------ snapshots


def snapshot_dict(registry: Registry) -> dict[str, Any]:
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "registry": registry_to_dict(registry),
    }


def snapshot_text(registry: Registry) -> str:
    return json.dumps(snapshot_dict(registry), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def read_snapshot(path: Path) -> Registry:
    text = read_user_file(path, "snapshot file",
                          "write one with 'argmatrix snapshot --registry MODULE:CALLABLE -o FILE'")
    from .cache import note_read

    note_read(path, text)  # pages are reused by the content read, whatever the file holds later
    try:
        data = json.loads(text)
    except RecursionError:
        raise ArgmatrixError.at("snapshot is nested too deeply to be a snapshot",
                                file=str(path), fix="write it again with 'argmatrix snapshot'"
                                ) from None
    except json.JSONDecodeError as exc:
        raise ArgmatrixError.at(
            f"snapshot is not valid JSON ({exc.msg}); it may be truncated",
            file=str(path), line=exc.lineno,
            fix="write it again with 'argmatrix snapshot'",
        ) from None
    except ValueError:  # the one other failure: a number of more digits than Python reads
        raise ArgmatrixError.at(
            f"snapshot holds an integer of more than {_max_digits()} digits", file=str(path),
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

        found = re.search(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                          r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}", text)
        raise ArgmatrixError.at(
            "snapshot holds half of a surrogate pair (\\ud800-\\udfff alone), which is not text",
            file=where, line=text.count("\n", 0, found.start()) + 1 if found else None,
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
            "not an argmatrix snapshot (no \"format\": \"argmatrix-snapshot\")", file=where,
            fix="write one with 'argmatrix snapshot'",
        )
    version = data.get("version")
    if version != SNAPSHOT_VERSION:
        raise ArgmatrixError.at(
            f"snapshot schema version {version!r} is not supported (this argmatrix reads"
            f" version {SNAPSHOT_VERSION})", file=where,
            fix="write the snapshot again with this argmatrix, or install the matching argmatrix",
        )
    try:
        return registry_from_dict(data["registry"])
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
        raise ArgmatrixError.at(
            f"snapshot is incomplete or malformed ({type(exc).__name__}: {exc})", file=where,
            fix="write it again with 'argmatrix snapshot'",
        ) from None


def write_text_atomically(path: Path, text: str) -> None:
    """Write next to the target and rename, so a failure never leaves half a file."""
    from .writer import write_all

    write_all([(path, text)])


def export_dict(registry: Registry, platforms: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"registry": registry_to_dict(registry), "platforms": platforms or {}}


def mock_list(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values or ()))
