"""The compatibility gate (`checks.compatibility` in argmatrix.yaml): `check` fails when a change
breaks a command line that worked against the baseline, a snapshot of the last release.

The baseline and the registry are compared subcommand by subcommand, their arguments paired as
`argmatrix diff` pairs them (`model/pairing.py`). A command line valid against the baseline
breaks when an argument, a subcommand, a spelling or an environment variable is gone, or
a default, the values taken, the place of a positional, what is required or what excludes what
changed: `checks/breaks.py` finds them (`command_line_breaks`) and names each kind.

Additions and help changes are not breaks. An argument hidden or deprecated in the baseline is
not held to it (its removal is the end of an announced deprecation). With `stability:` in the
configuration only `stable` arguments are held. An `accept` entry silences the breaks of the
argument it names; one that silences nothing is a finding itself (`stale-accept-entry`), so the
list only shrinks. `check --fix` removes stale entries (`checks/fix.py`) and never adds one.

Each finding points at the registry's source where the argument is now (static and live reading
know it; a removed argument at the argument that followed it), else at the baseline's line in
argmatrix.yaml.
"""

from __future__ import annotations

import os
from dataclasses import replace

from argmatrix.checks.breaks import Break, command_line_breaks, spellings_of
from argmatrix.config import Accepted, CompatibilitySpec, Config
from argmatrix.errors import ArgmatrixError, Problem
from argmatrix.loaders.snapshot import read_snapshot
from argmatrix.model.findings import Finding, closest
from argmatrix.model.registry import (
    Registry,
    SourceLine,
)
from argmatrix.project import Project

STALE_ACCEPT = "stale-accept-entry"
ACCEPT_FIX = "checks.compatibility.accept"


def compatibility_findings(project: Project) -> list[Finding]:
    """The breaks of the registry against the baseline, accepted ones left out, and the stale
    accept entries; [] when `checks.compatibility` is not configured."""
    config = project.config
    spec = config.compatibility
    baseline = read_baseline(config, spec) if spec is not None else None
    if config.stability is not None:  # bare flags of a subcommand's argument as check names it
        where = str(config.file)
        config = replace(
            config,
            display=replace(
                config.display, stability=config.stability.canonical(project.registry, where)
            ),
        )
    check_stability(config, project.registry, baseline)
    if spec is None or baseline is None:
        return []
    held = [b for b in command_line_breaks(baseline, project.registry) if _held(b, config)]
    used: set[int] = set()
    findings = []
    for found in held:
        entry = spec.reason_for(found.spellings)
        if entry is not None:
            used.add(id(entry))
            continue
        findings.append(_finding(found, config, spec))
    findings += [_stale(entry, config, spec) for entry in spec.accepted if id(entry) not in used]
    return findings


def read_baseline(config: Config, spec: CompatibilitySpec) -> Registry:
    """The baseline snapshot; a missing one is a mistake of argmatrix.yaml, at its line."""
    if not os.path.lexists(spec.baseline):
        raise ArgmatrixError.at(
            f"checks: compatibility: baseline {spec.shown!r} not found",
            file=str(config.file),
            line=spec.baseline_line,
            fix=f"write it at a release with 'argmatrix snapshot -o {spec.shown}', or correct"
            " the path",
        )
    return read_snapshot(spec.baseline)


def stale_accept_entries(project: Project) -> list[Accepted]:
    """The accept entries that silence no break: what `check --fix` removes."""
    spec = project.config.compatibility
    if spec is None:
        return []
    stale = {(f.flag, f.line) for f in compatibility_findings(project) if f.kind == STALE_ACCEPT}
    return [entry for entry in spec.accepted if (entry.name, entry.line) in stale]


def _held(found: Break, config: Config) -> bool:
    """Whether the gate holds this argument to the baseline: every one, or with `stability:`
    only the stable ones."""
    stability = config.stability
    scope = found.name.rsplit(" ", 1)[0] + " " if " " in found.name else ""
    return stability is None or stability.holds(found.spellings, found.section, scope)


def _finding(found: Break, config: Config, spec: CompatibilitySpec) -> Finding:
    file, line = _where(found.origin, config, spec)
    fix = f"{found.fix}, or accept the break: add '{found.name}: <reason>' to {ACCEPT_FIX}"
    return Finding(found.kind, found.message, flag=found.name, file=file, line=line, fix=fix)


def _stale(entry: Accepted, config: Config, spec: CompatibilitySpec) -> Finding:
    return Finding(
        STALE_ACCEPT,
        f"accept entry {entry.name!r} matches no breaking change against the baseline {spec.shown}",
        flag=entry.name,
        file=str(config.file),
        line=entry.line,
        fix="remove it ('argmatrix check --fix' does)",
    )


def _where(
    origin: SourceLine | None, config: Config, spec: CompatibilitySpec
) -> tuple[str, int | None]:
    if origin is not None:
        return origin.file, origin.line
    return str(config.file), spec.baseline_line


# ------------------------------------------------------------------ stability entries


def check_stability(config: Config, registry: Registry, baseline: Registry | None) -> None:
    """Every `stability:` entry names an argument (or section) of the registry or the baseline:
    one that names nothing is a typo that would leave an argument held, or not, by mistake."""
    stability = config.stability
    if stability is None:
        return
    names, sections = _names(registry)
    if baseline is not None:
        old_names, old_sections = _names(baseline)
        names, sections = names | old_names, sections | old_sections
    problems = [
        _unknown(entry.name, entry.line, names, "an argument", config)
        for entry in stability.arguments
        if entry.name not in names
    ]
    problems += [
        _unknown(entry.name, entry.line, sections, "a section", config)
        for entry in stability.sections
        if entry.name not in sections
    ]
    if problems:
        raise ArgmatrixError(*problems)


def _unknown(name: str, line: int | None, known: set[str], what: str, config: Config) -> Problem:
    near = closest(name, sorted(known))
    fix = f"did you mean {near!r}?" if near else "remove the entry, or correct the name"
    return Problem(
        f"stability: {name!r} is not {what} of the registry", str(config.file), line, fix
    )


def _names(registry: Registry, prefix: str = "") -> tuple[set[str], set[str]]:
    """Every name `check` gives an argument or subcommand, and every section's title."""
    names: set[str] = set()
    sections: set[str] = {*registry.sections, *(prefix + s for s in registry.sections)}
    for argument in registry.arguments:
        names.update(spellings_of(argument, prefix))
    for sub in registry.subcommands:
        path = f"{prefix}{sub.name}"
        names.update(f"{prefix}{n}" for n in (sub.name, *sub.aliases))
        more, more_sections = _names(sub.registry, path + " ")
        names |= more
        sections |= more_sections
    return names, sections


# ------------------------------------------------------------------ exclusive groups


# ------------------------------------------------------------------ defaults and choices


# ------------------------------------------------------------------ values taken


# ------------------------------------------------------------------ subcommands
