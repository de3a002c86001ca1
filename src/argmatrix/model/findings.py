"""What a check reports: one finding per problem, with its file and line, and the "did you
mean" suggestion some of them carry."""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, replace
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


def with_severity(finding: Finding, configured: dict[str, str]) -> Finding | None:
    """The finding at the severity `checks.severity` gives its kind; None when that is `off`.
    `check` and `generate` both ask this, so a finding reads and weighs the same in both."""
    level = configured.get(finding.kind)
    if level == "off":
        return None
    return (
        finding if level is None or level == finding.severity else replace(finding, severity=level)
    )


_EXHAUSTIVE_UP_TO = 1000  # candidates compared one by one with difflib (about 5 ms)
_SHORTLIST = 100
_ALIKE = 0.75  # difflib's similarity a candidate needs to be considered at all
_MAX_EDITS = 3
_SHORTEST = 4  # shorter names are all a typo away from each other


def closest(name: str, candidates: list[str]) -> str | None:
    """The candidate `name` is most probably a misspelling of, if any.

    Case and the separator (`-` or `_`) do not count: `--tp-size` is `--tp_size` written the
    other way, and that is the suggestion. Otherwise a candidate is suggested only when it is a
    typo away: difflib finds the most alike candidates, and the nearest of them must be within
    one edit (a character added, dropped, replaced, or two neighbours swapped) of a name under
    16 characters, two under 24, three beyond; names under 4 characters get no suggestion
    (`--prot` -> `--port`, `--oltp-traces-endpoint` -> `--otlp-traces-endpoint`; never
    `--enable-trt-fmha` -> `--enable-fmha` or `--max-batch-size` -> `--gpu-max-batch-size`,
    other flags that merely look alike). The edits must also be typos word by word: a word that
    differs keeps three quarters of its letters, so `--disable-tokenizer-batch-encode` does not
    suggest `--disable-tokenizer-batch-decode`.

    difflib compares with every candidate, about 5 µs each: fine for a registry of a thousand
    flags, but a manifest with hundreds of stale entries against a registry of ten thousand
    would take a minute. Larger candidate lists are first cut down to those most alike in
    their character pairs (Dice's coefficient, a cheap set intersection)."""
    import difflib  # imported by the runs that look for a spelling, not by every run

    key = spelling_key(name)
    by_key = _by_spelling_key(tuple(candidates))
    if key in by_key:
        return by_key[key]
    if len(by_key) > _EXHAUSTIVE_UP_TO:
        pairs = _pairs(key)
        ranked = heapq.nlargest(
            _SHORTLIST,
            _pair_index(tuple(by_key)),
            key=lambda c: 2 * len(pairs & c[1]) / ((len(pairs) + len(c[1])) or 1),
        )
        shortlist = [candidate for candidate, _ in ranked]
    else:
        shortlist = list(by_key)
    core = key.lstrip("-")
    allowed = _allowed_edits(len(core))
    alike = difflib.get_close_matches(key, shortlist, n=5, cutoff=_ALIKE)
    near = [(edits(core, c.lstrip("-")), order, c) for order, c in enumerate(alike)]
    fitting = [
        entry for entry in near if entry[0] <= allowed and _word_by_word(core, entry[2].lstrip("-"))
    ]
    return by_key[min(fitting)[2]] if fitting else None


@lru_cache(maxsize=4)
def _by_spelling_key(candidates: tuple[str, ...]) -> dict[str, str]:
    by_key: dict[str, str] = {}
    for candidate in candidates:
        by_key.setdefault(spelling_key(candidate), candidate)
    return by_key


def _allowed_edits(length: int) -> int:
    if length < _SHORTEST:
        return 0
    return max(1, min(_MAX_EDITS, length // 8))


_WORD_BREAK = re.compile(r"[-\s.]+")


def _word_by_word(name: str, candidate: str) -> bool:
    """Whether the edits stay typos word by word: each word that differs keeps three quarters of
    its letters (`customer`/`custom`, `oltp`/`otlp`; not `encode`/`decode`), or the words only
    differ in where they break (`batchsize`/`batch-size`), give or take one letter."""
    words, others = _WORD_BREAK.split(name), _WORD_BREAK.split(candidate)
    if len(words) != len(others):
        return edits("".join(words), "".join(others)) <= 1
    return all(
        edits(word, other) <= max(1, max(len(word), len(other)) // 4)
        for word, other in zip(words, others, strict=True)
        if word != other
    )


def spelling_key(name: str) -> str:
    """A name as argparse users confuse it: any case, `_` and `-` alike."""
    return name.lower().replace("_", "-")


def edits(a: str, b: str) -> int:
    """The optimal-string-alignment distance: characters added, dropped, replaced, or two
    neighbours swapped, each one edit."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def _pairs(text: str) -> frozenset[str]:
    return frozenset(text[i : i + 2] for i in range(len(text) - 1))


@lru_cache(maxsize=4)
def _pair_index(candidates: tuple[str, ...]) -> list[tuple[str, frozenset[str]]]:
    return [(candidate, _pairs(candidate)) for candidate in candidates]
