"""When each flag arrived and which left: the facts file `argmatrix history` writes, as pages read
it ("Added in", removed arguments). Built from already-parsed JSON; reading the file is the
caller's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Argument

HISTORY_FORMAT = "argmatrix-history/1"
FIX = "write it with `argmatrix history --output FILE`, or point the page at that file"


@dataclass(frozen=True)
class FlagHistory:
    name: str
    flags: tuple[str, ...]
    added: str
    removed: str | None


@dataclass(frozen=True)
class History:
    releases: tuple[str, ...]
    entries: tuple[FlagHistory, ...]

    @property
    def by_flag(self) -> Mapping[str, FlagHistory]:
        """Every flag of an entry still present (the newest name first), mapped to its entry."""
        found: dict[str, FlagHistory] = {}
        for entry in self.entries:
            if entry.removed is None:
                for flag in (entry.name, *entry.flags):
                    found.setdefault(flag, entry)
        return found

    def added_in(self, argument: Argument) -> str | None:
        """The release an argument arrived in, looked up by its name, then by any alias; None
        when the facts do not know it (added after the newest release they were made from)."""
        by_flag = self.by_flag
        for flag in (argument.name, *argument.flags):
            if flag in by_flag:
                return by_flag[flag].added
        return None

    @property
    def removed(self) -> tuple[FlagHistory, ...]:
        return tuple(entry for entry in self.entries if entry.removed is not None)


def history_from_dict(data: Any, where: str) -> History:
    """The facts of a history file, checked: anything else is one located error."""
    if not isinstance(data, dict) or data.get("format") != HISTORY_FORMAT:
        raise ArgmatrixError.at(
            f"not an argmatrix history file ({HISTORY_FORMAT})", file=where, fix=FIX
        )
    releases = data.get("releases")
    arguments = data.get("arguments")
    if not isinstance(releases, list) or not _strings(releases) or not isinstance(arguments, list):
        raise ArgmatrixError.at(
            "a history file needs 'releases' and 'arguments'", file=where, fix=FIX
        )
    entries = tuple(_entry(item, set(releases), where) for item in arguments)
    return History(tuple(releases), entries)


def _entry(item: Any, releases: set[str], where: str) -> FlagHistory:
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("name"), str)
        or not _strings(item.get("flags"))
        or item.get("added") not in releases
        or (item.get("removed") is not None and item.get("removed") not in releases)
    ):
        shown = item.get("name") if isinstance(item, dict) else item
        raise ArgmatrixError.at(
            f"history entry {shown!r}: needs a name, its flags and releases from 'releases'",
            file=where,
            fix=FIX,
        )
    return FlagHistory(item["name"], tuple(item["flags"]), item["added"], item.get("removed"))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
