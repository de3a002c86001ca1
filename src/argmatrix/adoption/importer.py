"""`argmatrix import`: turn a hand-written support page into a capability manifest.

The page's support marks become statuses, its option lists become `options` subsets and its
defaults, where they differ from the registry, become platform `default`s. Only what the
registry can confirm is kept: flags it does not have and values that are not its choices are
left out and reported, never silently carried over. The YAML is written in registry order, so
importing the same page twice gives the same file.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from argmatrix._runtime.writer import write_text_atomically
from argmatrix._runtime.yamlfile import load_yaml_text
from argmatrix.adoption.handwritten import (
    DEFAULT,
    EXPERIMENTAL,
    NO,
    OPTIONS,
    PLANNED,
    REPLACEMENT,
    STATUS,
    UNKNOWN,
    YES,
    ArgumentPage,
    ArgumentRow,
    mark_of,
    option_values,
    read_page,
)
from argmatrix.adoption.page_arguments import ReadRow, RegistryFlags, Scoped, read_rows
from argmatrix.adoption.page_defaults import comparable, default_agrees
from argmatrix.errors import ArgmatrixError, Problem
from argmatrix.manifests.load import PLATFORM_NAME, Problems, parse_manifest
from argmatrix.manifests.resolve import in_choices
from argmatrix.model.findings import closest
from argmatrix.model.platform import STATUS_ICONS, STATUS_LABELS
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.spelling import argument_spellings, scopes
from argmatrix.model.values import value_text
from argmatrix.project import SourceOptions, load_registry_only

UNSUPPORTED_REASON = "marked unsupported on the imported page"
NOT_APPLICABLE_REASON = "marked not applicable on the imported page"
# Reasons import writes because the page gave none: placeholders a person must replace.
PLACEHOLDER_REASONS = frozenset({UNSUPPORTED_REASON, NOT_APPLICABLE_REASON})
_TITLE_PREFIX = re.compile(
    r"^(supported\s+)?(support(ed)?\s+)?features\s+(on|of|for)\s+", re.IGNORECASE
)


@dataclass(frozen=True)
class Entry:
    """One imported manifest entry, before it is written as YAML."""

    status: str
    variants: tuple[str, ...] | None = None
    options: tuple[Any, ...] | None = None
    default: Any = None
    has_default: bool = False
    reason: str | None = None


@dataclass
class Imported:
    platform: str
    title: str
    variants: tuple[str, ...]  # from the per-variant columns and the status cells
    # keyed by the argument's spelling (`--port`, `serve --port` for a subcommand's), in
    # registry order
    entries: dict[str, Entry]
    notes: list[Problem] = field(default_factory=list)  # what was left out, and why


# ------------------------------------------------------------------ statuses


def status_of_marks(marks: tuple[tuple[str, str], ...]) -> Entry | None:
    """Per-variant cells (√/× ...) as one entry; None when no cell says anything."""
    kinds = {variant: mark_of(text) or UNKNOWN for variant, text in marks}
    yes = tuple(v for v, k in kinds.items() if k == YES)
    experimental = tuple(v for v, k in kinds.items() if k == EXPERIMENTAL)
    every = tuple(kinds)
    if yes:
        return Entry("supported", None if yes == every else yes)
    if experimental:
        return Entry("experimental", None if experimental == every else experimental)
    if kinds and all(k == PLANNED for k in kinds.values()):
        return Entry("planned")
    if kinds and all(k == NO for k in kinds.values()):
        return Entry("unsupported", reason=UNSUPPORTED_REASON)
    if any(k == PLANNED for k in kinds.values()):
        return Entry("planned")
    return None


_STATUS_WORDS: dict[str, str] = {
    "supported": "supported",
    "yes": "supported",
    "√": "supported",
    "✓": "supported",
    "planned": "planned",
    "experimental": "experimental",
    "not supported": "unsupported",
    "unsupported": "unsupported",
    "no": "unsupported",
    "×": "unsupported",
    "✗": "unsupported",
    "not applicable": "not-applicable",
    "n/a": "not-applicable",
    "unverified": "unverified",
    "?": "unverified",
    "": "unverified",
    "not classified": "unverified",
}
_SPLIT_VARIANTS = re.compile(r"\s*(?:,|/|\band\b|&)\s*")
_PARENTHESISED = re.compile(r"^(?P<word>[^()]+?)\s*\((?P<inside>[^()]*)\)$")


def status_of_cell(text: str) -> tuple[Entry | None, tuple[str, ...]]:
    """A "Server supported" cell (`A2, A3`, `Special for GPU`, `Planned`, ...) as an entry.

    Also returns the variant names the cell mentions, so the platform's variants can be
    gathered from the page.
    """
    cleaned = " ".join(text.split())
    own = _own_status(cleaned)
    if own is not None:
        return own
    key = cleaned.lower()
    if key in _STATUS_WORDS:
        return _plain_status(_STATUS_WORDS[key]), ()
    if key.startswith(("special for", "only for")):
        words = cleaned.split()  # "Special For GPU" and "Special for GPU" are one reason
        reason = " ".join([words[0].capitalize(), "for", *words[2:]])
        return Entry("not-applicable", reason=reason), ()
    match = _PARENTHESISED.match(cleaned)
    if match and match.group("word").lower() in ("experimental", "supported"):
        variants = _variant_names(match.group("inside"))
        return Entry(match.group("word").lower(), variants or None), variants
    variants = _variant_names(cleaned)
    if variants:
        return Entry("supported", variants), variants
    return None, ()


# argmatrix's own status cells: a symbol and a word, then the variants or the reason.
_OWN_STATUS = {f"{STATUS_ICONS[k]} {label}": k for k, label in STATUS_LABELS.items()}


def _own_status(cleaned: str) -> tuple[Entry | None, tuple[str, ...]] | None:
    """A status cell as argmatrix writes it (`✓ Supported (A2, A3)`, `✗ Not supported (No
    CUDA graphs)`), or None when the cell is not one."""
    for word, status in _OWN_STATUS.items():
        if cleaned != word and not cleaned.startswith(word + " ("):
            continue
        detail = cleaned[len(word) + 2 : -1] if cleaned != word else ""
        if status in ("supported", "experimental"):
            variants = _variant_names(detail) if detail else ()
            return Entry(status, variants or None), variants
        if status in ("unsupported", "not-applicable") and detail:
            return Entry(status, reason=detail), ()
        return _plain_status("unverified" if status == "unclassified" else status), ()
    return None


def _plain_status(status: str) -> Entry | None:
    if status == "unverified":
        return None
    if status == "unsupported":
        return Entry(status, reason=UNSUPPORTED_REASON)
    if status == "not-applicable":
        return Entry(status, reason=NOT_APPLICABLE_REASON)
    return Entry(status)


_VARIANT_NAME = re.compile(r"[A-Za-z0-9][\w.+-]{0,15}")


def _variant_names(text: str) -> tuple[str, ...]:
    """`A2, A3` -> (A2, A3), or () when the text does not read as a list of hardware names.

    A hardware name holds a digit (A2, 910B, MI300X) or is a short capitalised word (CPU), so a
    stray word such as "Partial" is not taken for a variant.
    """
    parts = tuple(p for p in _SPLIT_VARIANTS.split(text.strip()) if p)
    if parts and all(
        _VARIANT_NAME.fullmatch(p)
        and (any(c.isdigit() for c in p) or (p.isupper() and len(p) <= 5))
        for p in parts
    ):
        return parts
    return ()


def group_reason(row: ArgumentRow) -> str:
    """Why a row of a not-supported table is not supported: the text just before the table."""
    caption = " ".join(row.table.caption.split()).rstrip(":").strip()
    return caption or UNSUPPORTED_REASON


def entry_of_row(row: ArgumentRow, page: ArgumentPage) -> tuple[Entry | None, tuple[str, ...]]:
    if row.table.has(REPLACEMENT):
        return None, ()  # a deprecated-arguments table says nothing about support
    status = row.cell(STATUS)
    if status is not None:
        return status_of_cell(status.text)
    if row.table.variants:
        return status_of_marks(row.marks()), ()
    if page.states_support:
        return Entry("unsupported", reason=group_reason(row)), ()
    return None, ()


# ------------------------------------------------------------------ options and defaults


def options_subset(
    row: ArgumentRow, argument: Argument, notes: list[Problem], file: str, name: str = ""
) -> tuple[Any, ...] | None:
    """The page's option values that are registry choices, when they are a strict subset.
    `name`, here and below: the argument's spelling in notes (`serve --port`)."""
    name = name or argument.name
    cell = row.cell(OPTIONS)
    choices = argument.choices
    if cell is None or not isinstance(choices, tuple):
        return None
    values = option_values(cell)
    kept = tuple(c for c in choices if any(in_choices(v, (c,)) for v in values))
    dropped = [v for v in values if not in_choices(v, choices)]
    if dropped:
        notes.append(
            Problem(
                f"{name}: {', '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} not"
                " among the registry's choices; left out of 'options'",
                file,
                row.line,
            )
        )
    if not kept or len(kept) == len(choices):
        return None
    return kept


def platform_default(
    row: ArgumentRow, argument: Argument, notes: list[Problem], file: str, name: str = ""
) -> tuple[bool, Any]:
    """(True, value) when the page's default differs from the registry and can be typed."""
    name = name or argument.name
    cell = row.cell(DEFAULT)
    if cell is None or default_agrees(cell.text, argument) is not False:
        return False, None
    value = typed_default(cell.text, argument)
    registry_text = repr(value_text(argument.default))
    if value is None:
        notes.append(
            Problem(
                f"{name}: the page's default {cell.text!r} differs from the registry's"
                f" {registry_text} but cannot be read as {_kind_name(argument)}; left out",
                file,
                row.line,
                "write a 'default' by hand if the platform really differs",
            )
        )
        return False, None
    notes.append(
        Problem(
            f"{name}: platform default {value!r} taken from the page (the registry's is"
            f" {registry_text})",
            file,
            row.line,
        )
    )
    return True, value


def _kind_name(argument: Argument) -> str:
    kind = _value_kind(argument)
    return {"int": "an int", "float": "a float", "bool": "a bool", "str": "a string"}.get(
        kind or "", "a plain value"
    )


def typed_default(text: str, argument: Argument) -> Any:
    """The page's default text as a value of the argument's type, or None if it is not one."""
    raw = " ".join(text.split()).strip("`").strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        raw = raw[1:-1]
    kind = _value_kind(argument)
    try:
        if kind == "bool":
            return {"true": True, "false": False}.get(raw.lower())
        if kind == "int":
            return int(raw)
        if kind == "float":
            number = float(raw)
            return number if math.isfinite(number) else None
    except ValueError:
        return None
    if kind == "str" and raw and raw.lower() not in ("none", "null"):
        return raw
    return None


def _value_kind(argument: Argument) -> str | None:
    default = argument.default
    if isinstance(default, bool) or argument.is_flag:
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if argument.nargs not in (None, "?") or not comparable(default):
        return None
    return {"int": "int", "float": "float", "str": "str", None: "str"}.get(argument.type)


# ------------------------------------------------------------------ the whole page


def import_file(
    path: Path, options: SourceOptions, platform: str, title: str | None, output: Path
) -> Imported:
    """`argmatrix import`: the support page at `path` written to `output` as the manifest of
    `platform`; what was left out is in the result's `notes`."""
    page = read_page(path)
    registry = load_registry_only(options)
    imported = import_page(page, registry, platform, title)
    write_manifest(output, manifest_text(imported, registry, path.name))
    return imported


def import_page(
    page: ArgumentPage, registry: Registry, platform: str, title: str | None
) -> Imported:
    if not PLATFORM_NAME.match(platform):
        raise ArgmatrixError.at(
            f"--platform {platform!r} is not a platform name",
            fix="use letters, digits, '-', '_' or '.', e.g. 'ascend'",
        )
    if not page.states_support:
        raise ArgmatrixError.at(
            "the page has no support columns (per-variant marks or a 'Server supported' column),"
            " so there is nothing to import",
            file=page.file,
            line=1,
            fix="import a platform support page; audit a generic page with 'argmatrix audit'",
        )
    imported = Imported(platform, title or page_title(page, platform), page.variants, {})
    flags = RegistryFlags.of(registry)
    for read in read_rows(page, flags):
        scoped = _argument_of(read, flags, imported.notes, page.file)
        if scoped is not None:
            _import_row(read.row, scoped, page, imported)
    order = {spelled: i for i, spelled in enumerate(argument_spellings(registry))}
    imported.entries = dict(sorted(imported.entries.items(), key=lambda item: order[item[0]]))
    return imported


def _import_row(row: ArgumentRow, scoped: Scoped, page: ArgumentPage, imported: Imported) -> None:
    notes, name, argument = imported.notes, scoped.spelled, scoped.argument
    if name in imported.entries:
        notes.append(
            Problem(f"{name} is on the page twice; the first row is kept", page.file, row.line)
        )
        return
    if row.broken:
        repair = (
            "its cells were realigned"
            if "unescaped" in row.broken
            else ("its missing cells were read as empty")
        )
        notes.append(
            Problem(f"{name}: {row.broken}; {repair}, check the entry", page.file, row.line)
        )
    entry, variants = entry_of_row(row, page)
    imported.variants = tuple(dict.fromkeys((*imported.variants, *variants)))
    status = row.cell(STATUS)
    if entry is None and status is not None and mark_of(status.text) is None:
        notes.append(
            Problem(
                f"{name}: the status {status.text!r} is not understood; left out",
                page.file,
                row.line,
                "write e.g. 'A2, A3', 'Planned', 'Experimental' or 'Special for GPU'",
            )
        )
    if entry is not None:
        imported.entries[name] = _with_values(entry, row, argument, notes, page.file, name)


def _argument_of(
    read: ReadRow, flags: RegistryFlags, notes: list[Problem], file: str
) -> Scoped | None:
    """The argument the row documents, in its spelling (`serve --port`); None, with a note,
    for a flag the registry lacks or one the page does not place under one subcommand."""
    found, row = read.flags, read.row
    if found.argument is not None:
        return found.argument
    if found.ambiguous:
        flag, spellings = found.ambiguous[0]
        named = ", ".join(repr(s) for s in spellings)
        notes.append(
            Problem(
                f"{flag} is an argument of several subcommands ({named}) and the page does not"
                " say which one the row is about; left out",
                file,
                row.line,
                f"put the row under a heading naming its subcommand, or write {spellings[0]!r}"
                " in its cell",
            )
        )
        return None
    flag = row.flags[0]
    suggestion = flags.suggestion(closest(flag, flags.candidates), read.scope)
    notes.append(
        Problem(
            f"{flag} is not an argument of the registry; left out",
            file,
            row.line,
            f"did you mean {suggestion}?" if suggestion else None,
        )
    )
    return None


def _with_values(
    entry: Entry, row: ArgumentRow, argument: Argument, notes: list[Problem], file: str, name: str
) -> Entry:
    if entry.status not in ("supported", "experimental"):
        return entry
    options = options_subset(row, argument, notes, file, name)
    has_default, default = platform_default(row, argument, notes, file, name)
    return Entry(entry.status, entry.variants, options, default, has_default, entry.reason)


def page_title(page: ArgumentPage, platform: str) -> str:
    """The platform's title from the page's (`Support Features on Ascend NPU` -> `Ascend NPU`)."""
    title = _TITLE_PREFIX.sub("", page.title.strip()).strip()
    return title if title and title != page.title.strip() else platform


# ------------------------------------------------------------------ YAML


def manifest_text(imported: Imported, registry: Registry, source: str) -> str:
    lines = [
        f"# Imported by argmatrix from {source}: {len(imported.entries)} argument(s) of the"
        " registry.",
        "# Arguments the page does not cover fall back to 'default'. Review before committing:"
        " 'review: needed' marks",
        "# what the page could not tell (delete it once checked); 'argmatrix check' reports it.",
        f"platform: {scalar(imported.platform)}",
        f"title: {scalar(imported.title)}",
    ]
    if imported.variants:
        lines.append(f"variants: [{', '.join(scalar(v) for v in imported.variants)}]")
    lines.append("default: unverified")
    if imported.entries:
        lines.append("arguments:")
    section = None
    for scope in scopes(registry):
        for argument in scope.registry.arguments:
            spelled = scope.words + argument.name
            entry = imported.entries.get(spelled)
            if entry is None:
                continue
            if (scope.words, argument.section) != section:
                section = (scope.words, argument.section)
                lines.append(f"  # {' '.join((scope.words + argument.section).split())}")
            lines.append(f"  {scalar(spelled)}: {entry_yaml(entry, imported.variants)}")
    return "\n".join(lines) + "\n"


def needs_review(entry: Entry) -> bool:
    """What import could not know: a reason it made up (the page gave none), or a default it
    took from the page where the page differs from the registry (what `audit` calls a wrong
    default: a platform's own default, or a mistake of the page). `review: needed` keeps it
    visible on the pages and a `check` finding until a person decides."""
    return entry.reason in PLACEHOLDER_REASONS or entry.has_default


def entry_yaml(entry: Entry, platform_variants: tuple[str, ...]) -> str:
    parts: list[str] = [f"status: {entry.status}"]
    if entry.variants and entry.variants != platform_variants:
        parts.append(f"variants: [{', '.join(scalar(v) for v in entry.variants)}]")
    if entry.options is not None:
        parts.append(f"options: [{', '.join(scalar(v) for v in entry.options)}]")
    if entry.has_default:
        parts.append(f"default: {scalar(entry.default)}")
    if entry.reason:
        parts.append(f"reason: {scalar(entry.reason)}")
    if needs_review(entry):
        parts.append("review: needed")
    if len(parts) == 1:
        return entry.status
    return "{" + ", ".join(parts) + "}"


_PLAIN = re.compile(r"^[A-Za-z0-9_./+-][A-Za-z0-9_ ./+()-]*$")


def scalar(value: Any) -> str:
    """A YAML scalar that reads back as exactly `value` (plain when safe, else quoted)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    text = str(value)
    if _PLAIN.match(text) and not text.endswith(" ") and _reads_back(text, text):
        return text
    return _NON_PRINTABLE.sub(_escape_char, json.dumps(text, ensure_ascii=False))


# Characters a YAML reader refuses even inside quotes, and line breaks JSON leaves raw (which
# YAML would fold into spaces): written as escapes instead.
_NON_PRINTABLE = re.compile(f"{yaml.reader.Reader.NON_PRINTABLE.pattern}|[\x85\u2028\u2029]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _float_text(value: float) -> str:
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _reads_back(text: str, value: Any) -> bool:
    try:
        return bool(yaml.safe_load(f"k: {text}") == {"k": value})
    except yaml.YAMLError:
        return False


def validated(text: str, where: str) -> str:
    """The manifest text, after checking that `load_manifest` would accept it."""
    problems = Problems(where)
    parse_manifest(load_yaml_text(text, where), problems)
    if problems.items:
        raise ArgmatrixError(*problems.items)
    return text


def write_manifest(path: Path, text: str) -> None:
    write_text_atomically(path, validated(text, str(path)))
