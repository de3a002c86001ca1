"""What a capability manifest says of a platform: statuses, one capability per argument or
section, and how each status reads on a page. Filled by `argmatrix.manifests`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from argmatrix.model.registry import Argument

# ---------------------------------------------------------------- platforms

STATUSES: tuple[str, ...] = (
    "supported",
    "experimental",
    "planned",
    "unsupported",
    "not-applicable",
    "unverified",
)
# How each status reads on a page.
STATUS_LABELS = {
    "supported": "Supported",
    "experimental": "Experimental",
    "planned": "Planned",
    "unsupported": "Not supported",
    "not-applicable": "Not applicable",
    "unverified": "Unverified",
    "unclassified": "Not classified",
}
# The one symbol of each status, on every page and in every format (the matrix's cells, the
# marks of a per-variant page, the legends): no two alike, so a status reads without colour.
STATUS_ICONS = {
    "supported": "✓",
    "experimental": "◐",
    "planned": "◷",
    "unsupported": "✗",
    "not-applicable": "–",
    "unverified": "?",
    "unclassified": "○",
}
NEEDS_REASON = frozenset({"unsupported", "not-applicable"})
UNCLASSIFIED = "unclassified"  # no entry, no section entry and no file default


class Capability(NamedTuple):
    """What one manifest entry says about an argument (or a whole section) on a platform.

    A NamedTuple: large manifests hold tens of thousands of entries.
    """

    status: str
    variants: tuple[str, ...] | None = None
    options: tuple[Any, ...] | None = None
    default: Any = None
    has_default: bool = False
    note: str | None = None
    reason: str | None = None
    computed: str | None = None  # the default is computed at run time: what to say instead
    # `review: needed`: written by `argmatrix import` where it could not know; a person checks
    # it and deletes the key. Pages say so, and `check` reports it (`needs-review`).
    review: bool = False
    line: int | None = None  # where the entry is written, for messages (kept last)


@dataclass(frozen=True)
class Platform:
    """A capability manifest as written: entries keyed by flag and by section."""

    name: str
    title: str
    variants: tuple[str, ...]
    default: str | None
    sections: dict[str, Capability]
    arguments: dict[str, Capability]
    description: str = ""
    file: str = ""


class Resolved(NamedTuple):
    """An argument's capability on a platform after precedence: argument > section > default.

    Shared by every argument that gets it from the same entry (or the same section entry, or
    the file default), so it holds only what the manifest says: `default` is the platform's
    override when `default_overridden`, and `effective_default` gives the value to show.
    """

    status: str
    variants: tuple[str, ...]
    options: tuple[Any, ...] | None
    default: Any
    default_overridden: bool
    note: str | None
    reason: str | None
    origin: str  # "argument", "section", "default" or "none"
    computed: str | None = None  # the default is computed at run time on this platform: how
    review: bool = False  # the entry says `review: needed`: no person has checked it yet

    def effective_default(self, argument: Argument) -> Any:
        return self.default if self.default_overridden else argument.default
