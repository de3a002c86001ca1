"""`argmatrix history`: when each flag arrived, was renamed, changed its default or left.

The releases of a registry are compared in order, each with the one before, with the pairing of
`argmatrix diff` (by name, then a shared flag, then the destination alone), so an argument keeps
its identity through renames. The result is a small facts file: flag names, destinations,
defaults and release labels only (never help text, so it can be committed for a third-party
registry). Pages read it to show an "Added in" column and to mark removed flags.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from argmatrix.model.history import HISTORY_FORMAT
from argmatrix.model.pairing import flatten, pair_arguments, same_value, snapshot_form
from argmatrix.model.registry import Argument, Registry


@dataclass
class Lineage:
    """One argument through the releases, whatever it was called in each."""

    names: list[tuple[str, str, str]] = field(default_factory=list)  # (release, name, dest)
    flags: tuple[str, ...] = ()
    present: list[str] = field(default_factory=list)
    defaults: list[tuple[str, Any]] = field(default_factory=list)  # (release, JSON-safe value)

    def record(self, release: str, argument: Argument) -> None:
        if not self.names or self.names[-1][1:] != (argument.name, argument.dest):
            self.names.append((release, argument.name, argument.dest))
        self.flags = argument.flags
        self.present.append(release)
        default = snapshot_form(argument.default)
        if not self.defaults or not same_value(self.defaults[-1][1], default):
            self.defaults.append((release, default))


def lineages(releases: Sequence[tuple[str, Registry]]) -> list[Lineage]:
    """Every argument of every release, followed from release to release."""
    found: list[Lineage] = []
    current: dict[int, Lineage] = {}
    previous: Registry | None = None
    for label, registry in releases:
        registry = flatten(registry)
        carried: dict[int, Lineage] = {}
        if previous is not None:
            pairs, renamed = pair_arguments(previous, registry)
            carried = {id(new): current[id(old)] for old, new in [*pairs, *renamed]}
        kept = {id(lineage) for lineage in carried.values()}
        gone = {lineage.names[-1][1]: lineage for lineage in found if id(lineage) not in kept}
        current = {}
        for argument in registry.arguments:
            lineage = carried.get(id(argument)) or gone.pop(argument.name, None)
            if lineage is None:
                lineage = Lineage()
                found.append(lineage)
            lineage.record(label, argument)
            current[id(argument)] = lineage
        previous = registry
    return found


def history_dict(releases: Sequence[tuple[str, Registry]], target: str = "") -> dict[str, Any]:
    """The facts file's content: deterministic for the same releases."""
    labels = [label for label, _ in releases]
    if len(set(labels)) != len(labels):
        raise ValueError("release labels must differ")
    found = lineages(releases)
    latest = labels[-1] if labels else None
    present = [lineage for lineage in found if lineage.present[-1] == latest]
    removed = sorted(
        (lineage for lineage in found if lineage.present[-1] != latest),
        key=lambda lineage: (labels.index(lineage.present[-1]), lineage.names[-1][1]),
    )
    return {
        "format": HISTORY_FORMAT,
        "target": target,
        "releases": labels,
        "arguments": [_facts(lineage, labels) for lineage in [*present, *removed]],
    }


def _facts(lineage: Lineage, labels: list[str]) -> dict[str, Any]:
    first, last = labels.index(lineage.present[0]), labels.index(lineage.present[-1])
    _, name, dest = lineage.names[-1]
    return {
        "name": name,
        "flags": list(lineage.flags),
        "dest": dest,
        "added": lineage.present[0],
        "removed": labels[last + 1] if last + 1 < len(labels) else None,
        "missing": [label for label in labels[first : last + 1] if label not in lineage.present],
        "renamed": [
            {"release": release, "from": old[1], "to": new_name, "from_dest": old[2], "dest": d}
            for old, (release, new_name, d) in pairwise(lineage.names)
        ],
        "defaults": [{"release": release, "value": value} for release, value in lineage.defaults],
    }


def history_json(releases: Sequence[tuple[str, Registry]], target: str = "") -> str:
    return json.dumps(history_dict(releases, target), indent=2, ensure_ascii=False) + "\n"
