"""What a check reports: one finding per problem, with its file and line, and the "did you
mean" suggestion some of them carry."""

from __future__ import annotations

import difflib
import heapq
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Finding:
    """Something a check reports. `kind` names the check; severity comes from configuration."""

    kind: str
    message: str
    flag: str | None = None
    platform: str | None = None
    file: str | None = None
    line: int | None = None
    fix: str | None = None
    severity: str = "error"


_EXHAUSTIVE_UP_TO = 1000  # candidates compared one by one with difflib (about 5 ms)
_SHORTLIST = 100


def closest(name: str, candidates: list[str]) -> str | None:
    """The candidate `name` is most probably a misspelling of, if any.

    difflib compares with every candidate, about 5 µs each: fine for a registry of a thousand
    flags, but a manifest with hundreds of stale entries against a registry of ten thousand
    would take a minute. Larger candidate lists are first cut down to those most alike in
    their character pairs (Dice's coefficient, a cheap set intersection)."""
    if len(candidates) > _EXHAUSTIVE_UP_TO:
        pairs = _pairs(name)
        ranked = heapq.nlargest(
            _SHORTLIST,
            _pair_index(tuple(candidates)),
            key=lambda c: 2 * len(pairs & c[1]) / ((len(pairs) + len(c[1])) or 1),
        )
        candidates = [candidate for candidate, _ in ranked]
    match = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return match[0] if match else None


def _pairs(text: str) -> frozenset[str]:
    return frozenset(text[i : i + 2] for i in range(len(text) - 1))


@lru_cache(maxsize=4)
def _pair_index(candidates: tuple[str, ...]) -> list[tuple[str, frozenset[str]]]:
    return [(candidate, _pairs(candidate)) for candidate in candidates]
