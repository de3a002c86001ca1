"""`argmatrix diff`: what changed between two registries, as release notes or JSON.

Arguments are paired as `model/pairing.py` says (by their canonical flag, then by any flag they
still share, then by destination). A pair whose destination changed is a rename too
(`--tensor-parallel-size` now sets `tp_size`: code reading the old attribute breaks).
What is left was added or removed.
A changed metavar (the value form a user types) is told too, never a break.
Values are compared in their JSON-safe form, so a registry read live, statically or from a
snapshot compares the same.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from argmatrix.adoption import DIFF_FORMATS
from argmatrix.adoption.releases import sources_folder
from argmatrix.errors import ArgmatrixError, Problem, json_for_log
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.modes import LOADERS, Mode, guess_mode
from argmatrix.loaders.target import split_subcommands
from argmatrix.model.pairing import (
    exclusions,
    flatten,
    pair_arguments,
    same_value,
    snapshot_form,
)
from argmatrix.model.registry import Argument, Registry, python_value
from argmatrix.model.usage import value_form
from argmatrix.model.values import readable_type, value_text
from argmatrix.render.formats.markdown import cell, code

FIELDS = (
    "flags",
    "default",
    "choices",
    "type",
    "metavar",
    "nargs",
    "action",
    "required",
    "deprecated",
    "exclusive",
)
FIELD_TITLES = {
    "flags": "Changed aliases",
    "default": "Changed defaults",
    "choices": "Changed choices",
    "type": "Changed types",
    "metavar": "Changed value forms",
    "nargs": "Changed nargs",
    "action": "Changed actions",
    "required": "Changed required",
    "deprecated": "Deprecation",
    "exclusive": "Changed exclusive groups",
}
FORMATS = DIFF_FORMATS


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: Any  # JSON-safe form
    new: Any


@dataclass(frozen=True)
class Paired:
    old: Argument
    new: Argument
    changes: tuple[FieldChange, ...]


@dataclass(frozen=True)
class RegistryDiff:
    old_label: str
    new_label: str
    added: tuple[Argument, ...]
    removed: tuple[Argument, ...]
    renamed: tuple[Paired, ...]
    changed: tuple[Paired, ...]  # same argument, some field differs

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "removed": len(self.removed),
            "renamed": len(self.renamed),
            "changed": len(self.changed),
        }

    @property
    def empty(self) -> bool:
        return not any(self.counts().values())


def field_changes(
    old: Argument,
    new: Argument,
    fields: tuple[str, ...] = FIELDS,
    registries: tuple[Registry, Registry] | None = None,
) -> tuple[FieldChange, ...]:
    """What changed of an argument, field by field; `exclusive` (what its exclusive groups
    keep it from) only with the two registries it is in."""
    changes = []
    for name in fields:
        if name == "exclusive":  # unknown to a snapshot of format version 1: not compared
            if registries is None or not all(r.framework for r in registries):
                continue
            before, after = exclusions(registries[0], old), exclusions(registries[1], new)
        else:
            before, after = snapshot_form(getattr(old, name)), snapshot_form(getattr(new, name))
        if not same_value(before, after):
            changes.append(FieldChange(name, before, after))
    return tuple(changes)


@dataclass(frozen=True)
class DiffSide:
    """One registry `argmatrix diff` compares: a snapshot or a module:callable target, its
    modules read from `paths` only when given (statically), and how the output names it."""

    target: str
    paths: tuple[str, ...] = ()
    label: str | None = None

    @property
    def shown(self) -> str:
        if self.label:
            return self.label
        return f"{self.target} ({', '.join(self.paths)})" if self.paths else self.target

    def spec(
        self, static: bool, mock: tuple[str, ...], cwd: Path, folders: tuple[Path, ...] = ()
    ) -> RegistrySpec:
        """How to read it: statically with `static` or `paths` (`folders`: the paths as folders,
        a wheel or sdist among them unpacked); a snapshot takes no paths. Words after a
        module:callable target name the subcommands that lead to the registry
        (`pkg.cli:run serve api_server`), as in `argmatrix.yaml`."""
        mode: Mode = guess_mode(self.target, static or bool(self.paths))
        if self.paths and LOADERS[mode].target_is_file:
            raise ArgmatrixError(
                Problem(
                    "--old-path/--new-path only apply to module:callable targets,"
                    f" not {self.target!r}",
                    fix="drop the path option for a snapshot",
                )
            )
        target, subcommand = (
            split_subcommands(self.target) if LOADERS[mode].subcommand_words else (self.target, ())
        )
        found = folders or tuple((cwd / p).resolve() for p in self.paths)
        search = tuple(str(p) for p in found) if self.paths else None
        # Static reading searches its base folder first: with --old-path/--new-path, that is
        # the first of them, so the current folder (a working tree) cannot hide the release.
        base = Path(search[0]) if search else cwd
        return RegistrySpec(
            target=target,
            mode=mode,
            mock=mock,
            base_dir=base,
            search_path=search,
            subcommand=subcommand,
        )


def diff_sides(
    old: DiffSide, new: DiffSide, static: bool, mock: tuple[str, ...], verbose: bool
) -> RegistryDiff:
    """`argmatrix diff`: read both registries (the old one first), then compare them."""
    cwd = Path.cwd()
    before = _read_side(old, static, mock, verbose, cwd)
    after = _read_side(new, static, mock, verbose, cwd)
    return diff_registries(before, after, old.shown, new.shown)


def _read_side(
    side: DiffSide, static: bool, mock: tuple[str, ...], verbose: bool, cwd: Path
) -> Registry:
    """One side read; a wheel or an sdist named by a path option is read from its sources,
    copied out for the read (as `argmatrix history` reads a release), never installed."""
    with contextlib.ExitStack() as stack:
        folders = tuple(
            stack.enter_context(sources_folder((cwd / p).resolve(), p)) for p in side.paths
        )
        return load_registry(side.spec(static, mock, cwd, folders), verbose=verbose)


def diff_registries(old: Registry, new: Registry, old_label: str, new_label: str) -> RegistryDiff:
    old, new = flatten(old), flatten(new)
    pairs, renamed = pair_arguments(old, new)
    paired_old = {id(p[0]) for p in pairs} | {id(r[0]) for r in renamed}
    paired_new = {id(p[1]) for p in pairs} | {id(r[1]) for r in renamed}
    order = {a.name: i for i, a in enumerate(new.arguments)}
    changed = sorted(
        (
            Paired(o, n, changes)
            for o, n in pairs
            if o.dest == n.dest and (changes := field_changes(o, n, registries=(old, new)))
        ),
        key=lambda p: order[p.new.name],
    )
    new_dests = [_renamed(o, n, (old, new)) for o, n in pairs if o.dest != n.dest]
    return RegistryDiff(
        old_label,
        new_label,
        added=tuple(a for a in new.arguments if id(a) not in paired_new),
        removed=tuple(a for a in old.arguments if id(a) not in paired_old),
        renamed=tuple(
            sorted(
                [*(_renamed(o, n, (old, new)) for o, n in renamed), *new_dests],
                key=lambda p: order[p.new.name],
            )
        ),
        changed=tuple(changed),
    )


def _renamed(old: Argument, new: Argument, registries: tuple[Registry, Registry]) -> Paired:
    """A rename: the flag, the destination, or both changed; what else changed with it."""
    dest = (FieldChange("dest", old.dest, new.dest),) if old.dest != new.dest else ()
    fields = FIELDS if old.name == new.name else FIELDS[1:]
    return Paired(old, new, dest + field_changes(old, new, fields, registries))


# ------------------------------------------------------------------ JSON


def argument_summary(argument: Argument) -> dict[str, Any]:
    return {
        "name": argument.name,
        "flags": list(argument.flags),
        "dest": argument.dest,
        "section": argument.section,
        "action": argument.action,
        "type": argument.type,
        "default": snapshot_form(argument.default),
        "choices": snapshot_form(argument.choices),
        "nargs": snapshot_form(argument.nargs),
    }


def _changes_dict(changes: tuple[FieldChange, ...]) -> dict[str, Any]:
    return {c.field: {"old": c.old, "new": c.new} for c in changes}


def diff_dict(diff: RegistryDiff) -> dict[str, Any]:
    return {
        "old": diff.old_label,
        "new": diff.new_label,
        "counts": diff.counts(),
        "added": [argument_summary(a) for a in diff.added],
        "removed": [argument_summary(a) for a in diff.removed],
        "renamed": [
            {
                "old": p.old.name,
                "new": p.new.name,
                "dest": p.new.dest,
                "changes": _changes_dict(p.changes),
            }
            for p in diff.renamed
        ],
        "changed": [
            {"name": p.new.name, "changes": _changes_dict(p.changes)} for p in diff.changed
        ],
    }


def diff_json(diff: RegistryDiff) -> str:
    return json.dumps(diff_dict(diff), indent=2, ensure_ascii=False) + "\n"


def diff_text(diff: RegistryDiff, form: str) -> str:
    """The diff as `argmatrix diff --format FORM` prints it: Markdown, or JSON made safe for a
    terminal or a CI log."""
    return json_for_log(diff_json(diff)) if form == "json" else diff_markdown(diff)


# ------------------------------------------------------------------ Markdown


def diff_markdown(diff: RegistryDiff, heading: str = "##") -> str:
    """A release-notes section; the same registries always give the same text."""
    counts = diff.counts()
    lines = [
        f"{heading} Argument changes",
        "",
        f"From {code(diff.old_label)} to {code(diff.new_label)}: "
        + ", ".join(f"{n} {kind}" for kind, n in counts.items())
        + ".",
    ]
    if diff.empty:
        lines += ["", "No argument changed."]
    sub = heading + "#"
    if diff.added:
        lines += ["", f"{sub} Added", ""]
        lines += [f"- {code(a.name)} ({cell(a.section)}){_shape(a)}" for a in diff.added]
    if diff.removed:
        lines += ["", f"{sub} Removed", ""]
        lines += [f"- {code(a.name)} ({cell(a.section)})" for a in diff.removed]
    if diff.renamed:
        lines += ["", f"{sub} Renamed", ""]
        lines += [f"- {_rename_text(p)}" for p in diff.renamed]
    for name in FIELDS:
        items = [(p, c) for p in diff.changed for c in p.changes if c.field == name]
        if items:
            lines += ["", f"{sub} {FIELD_TITLES[name]}", ""]
            lines += [f"- {code(p.new.name)}: {_change_text(c, p)}" for p, c in items]
    return "\n".join(lines) + "\n"


def _rename_text(paired: Paired) -> str:
    """`--old` → `--new`; what else changed — or, for a new destination only, `--flag`: that."""
    changes = [_change_text(c, paired) for c in paired.changes]
    if paired.old.name == paired.new.name:
        return f"{code(paired.new.name)}: " + "; ".join(changes)
    return "; ".join([f"{code(paired.old.name)} → {code(paired.new.name)}", *changes])


def _shape(argument: Argument) -> str:
    parts = []
    if argument.is_flag:
        parts.append("switch")
    else:
        parts.append(f"default {_value(snapshot_form(argument.default))}")
    if isinstance(argument.choices, tuple):
        parts.append("choices " + ", ".join(code(value_text(c)) for c in argument.choices))
    return ": " + "; ".join(parts)


def _value(json_form: Any) -> str:
    return code(value_text(python_value(json_form)))


def _change_text(change: FieldChange, paired: Paired) -> str:
    if change.field == "type":
        return _type_change(paired.old, paired.new)
    if change.field == "choices" and isinstance(change.old, list) and isinstance(change.new, list):
        return _set_change(change.old, change.new, "choices")
    if change.field == "flags":
        return _set_change(change.old, change.new, "aliases")
    if change.field == "deprecated":
        return "now deprecated" if change.new else "no longer deprecated"
    if change.field == "exclusive":
        return _exclusive_change(change.old, change.new)
    if change.field == "metavar":
        return f"value form {_value_form(paired.old)} → {_value_form(paired.new)}"
    if change.field == "dest":
        return f"destination {code(change.old)} → {code(change.new)}"
    if change.field == "default":
        return f"default {_value(change.old)} → {_value(change.new)}"
    return f"{change.field} {_describe(change.old)} → {_describe(change.new)}"


def _value_form(argument: Argument) -> str:
    """What a user types after the flag, as the diff says it: the metavar (`HOST:PORT`; a
    tuple's names one after the other), or the form argparse derives without one (`DEST`)."""
    metavar = argument.metavar
    if isinstance(metavar, tuple):
        return code(" ".join(metavar))
    if metavar is None:  # a subcommand's destination is named after it here (`serve port`)
        derived = value_form(replace(argument, dest=argument.dest.rsplit(" ", 1)[-1]))
        return f"derived ({code(derived)})" if derived else "none"
    return code(metavar)


def _exclusive_change(old: list[str], new: list[str]) -> str:
    """What an argument's exclusive groups keep it from, before and after."""

    def said(groups: list[str]) -> str:
        return "; ".join(code(g) for g in groups) if groups else "nothing"

    return f"excludes {said(old)} → {said(new)}"


def _type_change(old: Argument, new: Argument) -> str:
    """A changed converter, as what each side accepts (`str` → `JSON`), never a converter's
    bare name (`loads`, `_parse`) alone; the converters are named too when that says more."""
    before, after = readable_type(old), readable_type(new)
    text = f"type {code(before)} → {code(after)}"
    converters = (old.type or "str", new.type or "str")
    if converters != (before, after):
        text += f" (converter {code(converters[0])} → {code(converters[1])})"
    return text


def _describe(json_form: Any) -> str:
    if isinstance(json_form, list):
        return ", ".join(_value(v) for v in json_form) if json_form else "none"
    if json_form is None:
        return "none"
    return _value(json_form)


def _set_change(old: list[Any], new: list[Any], nouns: str) -> str:
    added = [v for v in new if v not in old]
    removed = [v for v in old if v not in new]
    parts = []
    if added:
        parts.append(f"{nouns} added " + ", ".join(_value(v) for v in added))
    if removed:
        parts.append(f"{nouns} removed " + ", ".join(_value(v) for v in removed))
    return "; ".join(parts) or f"{nouns} reordered"
