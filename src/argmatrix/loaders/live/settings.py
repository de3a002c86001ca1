"""How a live read imports and builds the registry: `LiveSettings`, the live settings of the
configuration's `registry:` block, which every part of a live read is given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LiveSettings:
    """How the registry is imported and built: `registry:` of argmatrix.yaml, live mode."""

    mock: tuple[str, ...] = ()
    auto_mock: bool = False
    parser_class: str | None = None  # module:Class, the parser a filler is handed
    env: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] | None = None  # the words after the program name
    args: tuple[Any, ...] = ()  # more positional arguments for the builder
    kwargs: tuple[tuple[str, Any], ...] = ()
    versions: tuple[tuple[str, str], ...] = ()  # distributions stood in for: their versions
    verbose: bool = False
    # The registry's own packages (`_owners`, set by load_live): what `mock: auto` stands in
    # for when they fail to import it, and where an error of theirs is located.
    owners: tuple[str, ...] = ()
