"""What breaks a command line that worked against a registry (the baseline of the compatibility
gate, `checks/compatibility.py`), comparing it with another subcommand by subcommand, their
arguments paired as `argmatrix diff` pairs them (`model/pairing.py`). A command line valid
against the old registry breaks when:

* `removed-argument`: an argument is gone (one still there and marked deprecated is not);
* `removed-subcommand`: a subcommand, or one of its aliases, is gone;
* `renamed-argument`: a spelling of an argument is gone while the argument is still there under
  another (the same destination, or a flag it still has): the finding names the new spelling;
* `changed-default`: a default changed (what a command line without the flag does changed);
* `narrowed-choices`: a choice was dropped, or an argument that took any value has choices;
* `rejected-value`: a type or nargs that refuses values the old one took (a switch, argparse's
  or Click's `is_flag`/`count`, that now needs a value, a flag that took a value and takes none,
  `str` -> `int`), a range narrowed (`IntRange(1, 64)` -> `IntRange(1, 8)`, Typer's `max=`), a
  choice once taken in any case now taken in its own case only;
* `removed-envvar`: an environment variable that set the argument (Click's `envvar=`, or the
  one `auto_envvar_prefix` derives) is no longer read;
* `moved-positional`: a positional now takes another place among them (two swapped);
* `new-required-argument`: an argument, new or not, is now required, or one of an exclusive
  group is (`add_mutually_exclusive_group(required=True)`) where none of them was;
* `new-exclusion`: arguments that a command line could give together now exclude each other
  (one joined an exclusive group of the other's).

Additions and help changes are not breaks, nor is a change to an argument hidden or deprecated
in the old registry. Each `Break` names the spellings an accept or stability entry may give it
and where the argument is now."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from argmatrix.model.pairing import (
    pair_arguments,
    positionals_by_place,
    same_value,
    snapshot_form,
)
from argmatrix.model.registry import (
    Argument,
    FromEnvironment,
    Registry,
    SourceLine,
    Subcommand,
    Unevaluated,
)
from argmatrix.model.values import value_text

# Types whose converter takes every text the other took: `int` -> `float`, anything -> `str`,
# text -> a path (Click's `Path`, `pathlib.Path`: every text names one).
_WIDER = {("int", "float"), ("str", "Path"), ("str", "PosixPath"), ("str", "PurePath")}


@dataclass(frozen=True)
class Break:
    """A command line valid against the baseline that the registry now refuses or reads
    otherwise: what broke, the names an accept or stability entry may give it, where."""

    kind: str
    name: str  # as `check` names it: `--flag`, `serve --port`, a positional's dest, `serve`
    message: str
    fix: str
    spellings: tuple[str, ...]  # every name of it, old and new (prefixed with its subcommands)
    section: str | None = None
    origin: SourceLine | None = None


def spellings_of(argument: Argument, prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{flag}" for flag in argument.flags or (argument.dest,))


def command_line_breaks(old: Registry, new: Registry, prefix: str = "") -> list[Break]:
    """What breaks a command line valid against `old`, subcommands included."""
    return list(_breaks(old, new, prefix))


def _breaks(old: Registry, new: Registry, prefix: str) -> Iterator[Break]:
    pairs, renamed = pair_arguments(old, new)
    renamed += positionals_by_place(old, new, [*pairs, *renamed])
    counterpart = {id(o): n for o, n in (*pairs, *renamed)}
    for before in old.arguments:
        if before.hidden or before.deprecated:
            continue  # not offered, or on its way out: not held to the baseline
        after = counterpart.get(id(before))
        if after is None:
            yield _removed(before, old, counterpart, prefix)
        else:
            yield from _changed(before, after, prefix)
    yield from _moved_positionals(old, new, counterpart, prefix)
    paired_new = {id(n) for n in counterpart.values()}
    for added in new.arguments:
        if id(added) not in paired_new and added.required:
            name = _name(added, prefix)
            yield Break(
                "new-required-argument",
                name,
                f"{name} is new and required: command lines without it now fail",
                "give it a default, so that command lines without it still run",
                spellings_of(added, prefix),
                added.section,
                added.origin,
            )
    yield from _group_breaks(old, new, counterpart, prefix)
    yield from _subcommand_breaks(old, new, prefix)


def _name(argument: Argument, prefix: str) -> str:
    return f"{prefix}{argument.name}"


def _removed(gone: Argument, old: Registry, counterpart: dict[int, Argument], prefix: str) -> Break:
    name = _name(gone, prefix)
    return Break(
        "removed-argument",
        name,
        f"{name} was removed: command lines passing it now fail",
        "keep it, marked deprecated, for a release before removing it",
        spellings_of(gone, prefix),
        gone.section,
        _where_it_was(gone, old, counterpart),
    )


def _where_it_was(
    gone: Argument, old: Registry, counterpart: dict[int, Argument]
) -> SourceLine | None:
    """Where a removed argument was: where the argument that followed it (else preceded it) in
    the baseline now is."""
    index = next(i for i, a in enumerate(old.arguments) if a is gone)
    after = old.arguments[index + 1 :]
    before = old.arguments[:index][::-1]
    for neighbour in (*after, *before):
        kept = counterpart.get(id(neighbour))
        if kept is not None and kept.origin is not None:
            return kept.origin
    return None


def _changed(before: Argument, after: Argument, prefix: str) -> Iterator[Break]:
    """The breaks of an argument that is still there, as it is now."""
    name = _name(before, prefix)
    spellings = tuple(dict.fromkeys((*spellings_of(before, prefix), *spellings_of(after, prefix))))

    def make(kind: str, message: str, fix: str) -> Break:
        return Break(kind, name, message, fix, spellings, after.section, after.origin)

    dropped = [flag for flag in before.flags if flag not in after.flags]
    if dropped:
        now = _name(after, prefix)
        old_names = ", ".join(f"{prefix}{flag}" for flag in dropped)
        verb = "was" if len(dropped) == 1 else "were"
        yield make(
            "renamed-argument",
            f"{old_names} {verb} renamed {now}: command lines passing {old_names} now fail",
            f"keep {', '.join(dropped)} as an alias of {after.name}, marked deprecated if it is"
            " to go",
        )
    if after.required and not before.required:
        yield make(
            "new-required-argument",
            f"{name} is now required: command lines without it now fail",
            "give it a default, so that command lines without it still run",
        )
    default = _default_change(before, after)
    if default:
        yield make(
            "changed-default",
            f"{name}: the default changed from {default[0]} to {default[1]}: command lines"
            " without it now run otherwise",
            f"keep the default {default[0]}",
        )
    narrowed = _narrowed(before, after)
    if narrowed:
        yield make("narrowed-choices", f"{name} {narrowed}", "keep accepting those values")
    for refused in _refused(before, after):
        yield make("rejected-value", f"{name} {refused}", "keep taking what it took")
    for variable in _removed_envvars(before, after):
        yield make(
            "removed-envvar",
            f"{name}: the environment variable {variable} is no longer read: a deployment"
            " setting it now runs otherwise",
            f"keep reading {variable} (Click's envvar=, or the command's auto_envvar_prefix)",
        )


def _group_breaks(
    old: Registry, new: Registry, counterpart: dict[int, Argument], prefix: str
) -> Iterator[Break]:
    """Arguments of the baseline now in one exclusive group (given together, they fail), and
    exclusive groups now required where the baseline did not require one of them. A baseline
    that does not know its groups (a snapshot of format version 1) is held to none."""
    if not old.framework:
        return
    now = {id(after): before for before in old.arguments if (after := counterpart.get(id(before)))}
    by_name = {a.name: a for a in new.arguments}
    excluded_before = _exclusions(old)
    for group in new.exclusive_groups:
        members = [by_name[name] for name in group.arguments if name in by_name]
        held = [(a, now[id(a)]) for a in members if id(a) in now and not now[id(a)].hidden]
        for index, (after, before) in enumerate(held):
            joined = [
                other
                for other, other_before in held[:index]
                if other_before.name not in excluded_before.get(before.name, ())
            ]
            if joined:
                yield _exclusion(after, joined, before, prefix)
        if group.required and held and not _required_before(old, [b for _, b in held]):
            first = held[0][0]
            listed = ", ".join(f"{prefix}{a.name}" for a in members)
            yield Break(
                "new-required-argument",
                _name(first, prefix),
                f"one of {listed} is now required: command lines without any of them now fail",
                "keep the group optional, so that command lines without them still run",
                tuple(s for a, _ in held for s in spellings_of(a, prefix)),
                first.section,
                first.origin,
            )


def _exclusion(after: Argument, joined: list[Argument], before: Argument, prefix: str) -> Break:
    name = _name(after, prefix)
    others = ", ".join(f"{prefix}{a.name}" for a in joined)
    return Break(
        "new-exclusion",
        name,
        f"{name} now excludes {others}: command lines passing both now fail",
        f"take {after.name} out of the exclusive group, or deprecate one of them first",
        tuple(dict.fromkeys((*spellings_of(before, prefix), *spellings_of(after, prefix)))),
        after.section,
        after.origin,
    )


def _exclusions(registry: Registry) -> dict[str, set[str]]:
    """Each argument's name -> the names of the arguments an exclusive group keeps it from."""
    found: dict[str, set[str]] = {}
    for group in registry.exclusive_groups:
        for name in group.arguments:
            found.setdefault(name, set()).update(n for n in group.arguments if n != name)
    return found


def _required_before(old: Registry, members: list[Argument]) -> bool:
    """Whether the baseline already required one of these arguments: one of them itself, or a
    required exclusive group of the baseline holding one of them."""
    if any(a.required for a in members):
        return True
    names = {a.name for a in members}
    return any(g.required and names & set(g.arguments) for g in old.exclusive_groups)


def _default_change(before: Argument, after: Argument) -> tuple[str, str] | None:
    """(old, new) as they read, when the default changed. A required argument has none, and a
    switch that now takes a value (or the other way) is reported as that (`rejected-value`)."""
    if after.required or _is_switch(before) != _is_switch(after):
        return None
    now = after.default
    if isinstance(now, FromEnvironment) and not isinstance(before.default, FromEnvironment):
        # A baseline that held the value a read found (a live snapshot of format version 1,
        # taken with the variable unset) or a fixed default, now read from a variable: a
        # command line without the flag runs as before where the variable is unset.
        now = FromEnvironment(now.variable, required=True) if now.required else now.otherwise
    old, new = snapshot_form(before.default), snapshot_form(now)
    if same_value(old, new):
        return None
    return _shown(before.default), _shown(after.default)


def _shown(value: Any) -> str:
    """A default or choice as a message says it: text quoted (so '' and ' ' show), else as
    Python writes it."""
    return repr(value) if isinstance(value, str) else value_text(value)


def _narrowed(before: Argument, after: Argument) -> str | None:
    """What the choices no longer accept, said as the rest of a sentence; None if nothing."""
    old, new = before.choices, after.choices
    if new is None or same_value(snapshot_form(old), snapshot_form(new)):
        return None
    if isinstance(new, tuple) and old is None:
        return f"now accepts only {_values(new)}: it took any value"
    if isinstance(old, tuple) and isinstance(new, tuple):
        kept = [snapshot_form(c) for c in new]
        gone = [c for c in old if not any(same_value(snapshot_form(c), k) for k in kept)]
        return f"no longer accepts {_values(tuple(gone))}" if gone else None
    return (
        f"has other choices ({value_text(old)} -> {value_text(new)}), which static reading"
        " cannot compare"
    )


def _values(values: tuple[Any, ...]) -> str:
    return ", ".join(_shown(v) for v in values)


Arity = tuple[int, float]  # the fewest and the most values the flag takes


def _refused(before: Argument, after: Argument) -> Iterator[str]:
    """What a command line passed and the argument now refuses, said as the rest of a sentence:
    a number of values it no longer takes, a type that refuses texts the old one took, a range
    narrowed, a choice's case now held to."""
    old, new = _arity_of(before), _arity_of(after)
    if old is None or new is None:  # nargs kept as source text: compared as text
        if not same_value(snapshot_form(before.nargs), snapshot_form(after.nargs)):
            yield (
                f"takes nargs {value_text(after.nargs)} where it took"
                f" {value_text(before.nargs)}, which cannot be compared"
            )
    elif new[0] > old[0] or new[1] < old[1]:
        yield f"takes {_describe(new)} where it took {_describe(old)}: {_example(old, new)}"
    if old == (0, 0) or new == (0, 0):
        return  # a switch, before or after: no value for a type to read
    old_type, new_type = before.type or "str", after.type or "str"
    if old_type != new_type and new_type != "str" and (old_type, new_type) not in _WIDER:
        yield (
            f"reads its value as {new_type} where it read {old_type}: values that {old_type}"
            " took may now fail"
        )
    narrowed = _narrowed_range(before.extra.get("range"), after.extra.get("range"))
    if narrowed:
        yield narrowed
    if (
        before.extra.get("case_sensitive") is False
        and after.extra.get("case_sensitive") is not False
        and after.choices is not None
    ):
        yield (
            "now takes its choices in their own case only, where it took them in any case:"
            " a choice written in another case now fails"
        )


def _arity_of(argument: Argument) -> Arity | None:
    """The values an argument takes: none for a switch (argparse's, or Click's `is_flag` and
    `count`, whose nargs the model leaves unset), else as its nargs says."""
    if argument.is_flag or argument.action == "version":
        return (0, 0)
    return _arity(argument.nargs)


Bound = tuple[float, bool]  # a bound, and whether it is open (the value itself refused)


_RANGE = re.compile(r"^(?:(?P<low>[^<>=x]+)(?P<lop><=?))?x(?:(?P<hop><=?)(?P<high>[^<>=]+))?$")


_ABOVE = re.compile(r"^x(?P<op>>=?)(?P<low>[^<>=]+)$")


def _bounds(text: str) -> tuple[Bound | None, Bound | None] | None:
    """A range as Click writes it (`1<=x<=65535`, `x>=1`, `0<x<=1`) as its two bounds; None
    where it is no range argmatrix can read."""
    text = text.replace(" ", "")
    above = _ABOVE.match(text)
    if above:
        low = _bound(above["low"], above["op"] == ">")
        return (low, None) if low is not None else None
    match = _RANGE.match(text)
    if match is None:
        return None
    low = _bound(match["low"], match["lop"] == "<") if match["low"] else None
    high = _bound(match["high"], match["hop"] == "<") if match["high"] else None
    if (match["low"] and low is None) or (match["high"] and high is None):
        return None
    return low, high


def _bound(text: str, open_: bool) -> Bound | None:
    try:
        return float(text), open_
    except ValueError:
        return None


def _narrowed_range(old: Any, new: Any) -> str | None:
    """What a narrowed range no longer takes, said as the rest of a sentence."""
    if not isinstance(new, str) or old == new:
        return None
    before = _bounds(old) if isinstance(old, str) else (None, None)
    after = _bounds(new)
    if before is None or after is None:
        return None  # a range argmatrix cannot read is not compared
    if _takes_less(before[0], after[0], low=True) or _takes_less(before[1], after[1], low=False):
        was = "any value" if old is None else str(old)
        return f"now takes {new} where it took {was}: values outside now fail"
    return None


def _takes_less(old: Bound | None, new: Bound | None, low: bool) -> bool:
    """Whether the new bound refuses a value the old one took."""
    if new is None:
        return False
    if old is None:
        return True
    if old[0] != new[0]:
        return new[0] > old[0] if low else new[0] < old[0]
    return new[1] and not old[1]


def _envvars(argument: Argument) -> list[str]:
    value = argument.extra.get("envvar")
    if not isinstance(value, str):
        return []
    return [name.strip() for name in value.split(",") if name.strip()]


def _removed_envvars(before: Argument, after: Argument) -> list[str]:
    kept = set(_envvars(after))
    return [name for name in _envvars(before) if name not in kept]


def _moved_positionals(
    old: Registry, new: Registry, counterpart: dict[int, Argument], prefix: str
) -> Iterator[Break]:
    """Positionals still there that now take another place among those still there (two
    swapped): a command line's values now bind to other arguments."""
    kept = [(a, counterpart[id(a)]) for a in old.arguments if a.positional and id(a) in counterpart]
    place = {id(a): index for index, a in enumerate(a for a in new.arguments if a.positional)}
    now = sorted(kept, key=lambda pair: place.get(id(pair[1]), 0))
    for index, ((before, after), (_, there)) in enumerate(zip(kept, now, strict=True)):
        if after is there:
            continue
        name = _name(before, prefix)
        where = next(i for i, (_, a) in enumerate(now) if a is after)
        yield Break(
            "moved-positional",
            name,
            f"{name} is now positional {where + 1} where it was {index + 1} (of those kept):"
            " command lines giving them in the old order now bind their values to other"
            " arguments",
            "keep the positionals in their order",
            spellings_of(before, prefix),
            after.section,
            after.origin,
        )


def _arity(nargs: Any) -> Arity | None:
    """argparse's nargs as (fewest, most) values; None when it is not known (source text)."""
    if isinstance(nargs, Unevaluated):
        return None
    if nargs is None:
        return (1, 1)
    if isinstance(nargs, int) and not isinstance(nargs, bool):
        return (nargs, nargs)
    return {"?": (0, 1), "*": (0, math.inf), "+": (1, math.inf), "...": (0, math.inf)}.get(
        nargs, (1, math.inf) if nargs == "A..." else None
    )


def _is_switch(argument: Argument) -> bool:
    return _arity_of(argument) == (0, 0)


def _describe(arity: Arity) -> str:
    fewest, most = arity
    if most == 0:
        return "no value"
    if (fewest, most) == (1, 1):
        return "one value"
    if (fewest, most) == (0, 1):
        return "an optional value"
    if most == math.inf:
        return "any number of values" if fewest == 0 else f"{fewest} or more values"
    return f"{fewest} values" if fewest == most else f"{fewest} to {int(most)} values"


def _example(old: Arity, new: Arity) -> str:
    """A command line that worked and now fails, in words."""
    if new[0] > old[0]:
        if old[0] == 0:
            return "the flag alone now fails"
        return f"{old[0]} value(s) after the flag now fail"
    if new[1] == 0:
        return "a value after the flag now fails"
    return f"more than {int(new[1])} value(s) after the flag now fail"


def _subcommand_breaks(old: Registry, new: Registry, prefix: str) -> Iterator[Break]:
    """A subcommand (or alias) gone; the arguments of those still there, compared."""
    # A hidden subcommand was never offered: not held to the baseline, as a hidden flag is not.
    kept = [(sub, _subcommand(new, sub.name)) for sub in old.subcommands if not sub.hidden]
    for index, (sub, now) in enumerate(kept):
        path = f"{prefix}{sub.name}"
        if now is None:
            yield Break(
                "removed-subcommand",
                path,
                f"subcommand {path!r} was removed: command lines running it now fail",
                "keep it, for a release, saying what replaces it",
                tuple(f"{prefix}{n}" for n in (sub.name, *sub.aliases)),
                origin=_where_subcommand_was(kept, index, new),
            )
            continue
        for alias in sub.aliases:
            if _subcommand(new, alias) is None:
                yield Break(
                    "removed-subcommand",
                    f"{prefix}{alias}",
                    f"subcommand alias {prefix}{alias!r} (of {path!r}) was removed: command"
                    " lines running it now fail",
                    f"keep {alias!r} as an alias of {now.name!r}",
                    (f"{prefix}{alias}", path),
                    origin=_first_origin(now.registry),
                )
        yield from _breaks(sub.registry, now.registry, path + " ")


def _subcommand(registry: Registry, name: str) -> Subcommand | None:
    return next((s for s in registry.subcommands if name in (s.name, *s.aliases)), None)


def _where_subcommand_was(
    kept: list[tuple[Subcommand, Subcommand | None]], index: int, new: Registry
) -> SourceLine | None:
    """Where a removed subcommand was: at the subcommand that followed it (else preceded it) in
    the baseline, as it is now; else at its parent's last argument."""
    for _, now in (*kept[index + 1 :], *kept[:index][::-1]):
        origin = _first_origin(now.registry) if now is not None else None
        if origin is not None:
            return origin
    return next((a.origin for a in reversed(new.arguments) if a.origin), None)


def _first_origin(registry: Registry) -> SourceLine | None:
    """Where the first argument of a registry (or of its subcommands) was added."""
    for argument in registry.arguments:
        if argument.origin is not None:
            return argument.origin
    for sub in registry.subcommands:
        origin = _first_origin(sub.registry)
        if origin is not None:
            return origin
    return None
