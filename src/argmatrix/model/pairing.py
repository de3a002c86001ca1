"""Which arguments of two registries are one and the same: what `argmatrix diff`, `history` and
the compatibility check of `check` all compare by.

Arguments are paired by their canonical flag, then by any flag they still share (an alias
changed), then by destination (the flag was renamed). Values are compared in their JSON-safe
form, so a registry read live, statically or from a snapshot compares the same.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

from argmatrix.model.registry import Argument, Registry, json_value, python_value

Pair = tuple[Argument, Argument]


def snapshot_form(value: Any) -> Any:
    """A value as a snapshot holds it: what a loader could not evaluate compares by its source.

    The JSON-safe form of a live object differs before and after a snapshot round trip
    ({"python": ...} becomes {"unevaluated": ...}); one more trip makes both sides alike.
    """
    return json_value(python_value(json_value(value)))


def same_value(first: Any, second: Any) -> bool:
    """Equal JSON-safe values of the same kinds throughout: `0`, `False` and `0.0` differ (in
    Python they compare equal, and a default going from 0 to False would go unreported)."""
    return first == second and json.dumps(first, sort_keys=True) == json.dumps(
        second, sort_keys=True
    )


def flatten(registry: Registry, prefix: str = "") -> Registry:
    """One list of arguments (and of exclusive groups), a subcommand's named after it
    (`serve --port`), at any depth."""
    arguments = [
        replace(a, flags=tuple(f"{prefix}{f}" for f in a.flags), dest=f"{prefix}{a.dest}")
        if prefix
        else a
        for a in registry.arguments
    ]
    groups = [
        replace(g, arguments=tuple(f"{prefix}{name}" for name in g.arguments))
        for g in registry.exclusive_groups
    ]
    for sub in registry.subcommands:
        flat = flatten(sub.registry, f"{prefix}{sub.name} ")
        arguments.extend(flat.arguments)
        groups.extend(flat.exclusive_groups)
    return replace(
        registry, arguments=tuple(arguments), subcommands=(), exclusive_groups=tuple(groups)
    )


def exclusions(registry: Registry, argument: Argument) -> list[str]:
    """What an argument's exclusive groups say of it, as `diff` compares it: the names of the
    arguments it excludes, sorted, each group's marked `(required)` when one of it must be
    given."""
    said = []
    for group in registry.groups_of(argument):
        others = ", ".join(sorted(n for n in group.arguments if n != argument.name))
        said.append(f"{others} (required)" if group.required else others)
    return sorted(said)


def pair_arguments(old: Registry, new: Registry) -> tuple[list[Pair], list[Pair]]:
    """The arguments of two registries (flattened, or one parser's) that are one and the same:
    those paired by a name or a shared flag, and those paired by their destination alone
    (renamed)."""
    pairs = _pair_by_name(old, new)
    pairs += _pair_by_shared_flag(old, new, pairs)
    return pairs, _pair_by_dest(old, new, pairs)


def _pair_by_name(old: Registry, new: Registry) -> list[Pair]:
    by_name = {a.name: a for a in new.arguments}
    return [(a, by_name[a.name]) for a in old.arguments if a.name in by_name]


def _pair_by_shared_flag(old: Registry, new: Registry, pairs: list[Pair]) -> list[Pair]:
    taken_old = {id(o) for o, _ in pairs}
    taken_new = {id(n) for _, n in pairs}
    found = []
    for before in old.arguments:
        if id(before) in taken_old:
            continue
        after = next(
            (
                a
                for a in new.arguments
                if id(a) not in taken_new and set(a.flags) & set(before.flags)
            ),
            None,
        )
        if after is not None:
            found.append((before, after))
            taken_new.add(id(after))
    return found


def _pair_by_dest(old: Registry, new: Registry, pairs: list[Pair]) -> list[Pair]:
    """Unpaired arguments with one and the same destination on both sides were renamed."""
    taken_old = {id(o) for o, _ in pairs}
    taken_new = {id(n) for _, n in pairs}
    left_old = [a for a in old.arguments if id(a) not in taken_old and a.flags]
    left_new = [a for a in new.arguments if id(a) not in taken_new and a.flags]
    old_dests = Counter(a.dest for a in left_old)
    new_dests = {a.dest: a for a in left_new}
    new_counts = Counter(a.dest for a in left_new)
    return [
        (a, new_dests[a.dest])
        for a in left_old
        if old_dests[a.dest] == 1 and new_counts[a.dest] == 1
    ]


def positionals_by_place(old: Registry, new: Registry, pairs: list[Pair]) -> list[Pair]:
    """A positional renamed in its place, for what a command line passes (by place, not by
    name): the positionals left unpaired on both sides, when there are as many, in order. Not
    for `diff`, where a positional of another name is another argument."""
    taken_old = {id(o) for o, _ in pairs}
    taken_new = {id(n) for _, n in pairs}
    left_old = [a for a in old.arguments if a.positional and id(a) not in taken_old]
    left_new = [a for a in new.arguments if a.positional and id(a) not in taken_new]
    if not left_old or len(left_old) != len(left_new):
        return []
    return list(zip(left_old, left_new, strict=True))
