"""The registry model: what every loader produces and every renderer and check reads.

Pure data, no I/O. Loaders (live, static, snapshot) fill it; `to_dict`/`from_dict` give the
JSON-safe form used by `export` and by snapshots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

DEFAULT_SECTION = "General"


@dataclass(frozen=True, repr=False)
class Unevaluated:
    """A value static reading could not compute; kept as its source text, never guessed.

    `reason` says why (for the diagnostic that names it); it is not part of the value."""

    source: str
    reason: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.source

    __repr__ = __str__  # inside a list default it reads as the code that computes it


@dataclass(frozen=True, repr=False)
class Opaque:
    """A value JSON cannot hold (a Path, an Enum member), kept as the text Python shows for it."""

    text: str

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


@dataclass(frozen=True, repr=False)
class FromEnvironment:
    """A default the program reads from an environment variable when it starts: the variable's
    value when it is set, else `otherwise` (`os.environ.get("X", d)`, `os.getenv("X")`,
    `int(os.environ.get("X", "8000"))`, read statically). `required`: the program reads the
    variable without a fallback (`os.environ["X"]`) and stops when it is not set.

    A fact of the source, never the value of the environment argmatrix runs in: a page says
    "d, or `$X` when set" (with no d: "unset, or `$X`") on every machine."""

    variable: str
    otherwise: Any = None
    required: bool = False

    def __str__(self) -> str:
        """What `%(default)s` in a help says: `8000, or $PORT when set`."""
        if self.required:
            return f"${self.variable} (must be set)"
        if self.otherwise is None:  # `os.environ.get("X")`
            return f"unset, or ${self.variable}"
        return f"{_plain_text(self.otherwise)}, or ${self.variable} when set"

    __repr__ = __str__  # inside a list default, as inside a help


def _plain_text(value: Any) -> str:
    """A fallback as `%(default)s` writes it: text bare, other values as Python writes them."""
    return value if isinstance(value, str) else repr(python_value(json_value(value)))


@dataclass(frozen=True)
class SourceLine:
    """Where an argument was added in the registry's source: its `add_argument` call, or the
    field it is declared as. Known when the source was read (static) or run (live); a snapshot
    does not keep it."""

    file: str
    line: int


@dataclass(frozen=True)
class Argument:
    flags: tuple[str, ...]
    dest: str
    section: str = DEFAULT_SECTION
    action: str = "store"
    type: str | None = None
    default: Any = None
    choices: tuple[Any, ...] | Unevaluated | None = None
    nargs: str | int | Unevaluated | None = None
    required: bool = False
    metavar: str | tuple[str, ...] | None = None
    help: str | Unevaluated = ""
    hidden: bool = False
    deprecated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    # Where it was added, for findings about it; not part of the argument (nor of its JSON).
    origin: SourceLine | None = field(default=None, compare=False, repr=False)

    @cached_property
    def name(self) -> str:
        """The canonical name: the first long flag, else the first flag, else the dest."""
        for flag in self.flags:
            if flag.startswith("--"):
                return flag
        return self.flags[0] if self.flags else self.dest

    @property
    def is_flag(self) -> bool:
        """True for switches that take no value (store_true and friends)."""
        return self.action in FLAG_ACTIONS

    @property
    def positional(self) -> bool:
        return not self.flags


FLAG_ACTIONS = frozenset(
    {"store_true", "store_false", "store_const", "append_const", "count", "boolean_optional"}
)

# The nargs of a positional that a command line may leave out: `?`, `*` and argparse's
# REMAINDER (`...`) each take no value as well. argparse marks `*` and `...` positionals
# `required` all the same (it must see them to fill them in, and always does).
OPTIONAL_POSITIONAL_NARGS = frozenset({"?", "*", "..."})


def is_required(flags: tuple[str, ...], nargs: Any, required: bool) -> bool:
    """Whether a command line must give the argument: what its parser says, but never for a
    positional that takes no value as well (`nargs="*"`, `"?"`, REMAINDER), whatever argparse
    marks it (the model's `required`, read by every page, `diff` and the compatibility gate;
    a snapshot that holds argparse's mark reads so too)."""
    if not flags and isinstance(nargs, str) and nargs in OPTIONAL_POSITIONAL_NARGS:
        return False
    return required


@dataclass(frozen=True)
class Diagnostic:
    """Something static reading could not follow, and where: an argument it could not replay,
    a branch it could not decide, a value it kept as source text. Never silent.

    `stops`: what it could not follow adds to a parser (a call handed the parser that static
    reading does not run, a statement it cannot read), so the parser it built holds part of
    the registry: the read stops there instead of giving the part as if it were whole. Said by
    the reader where it reports, never read back from the message's wording."""

    file: str
    line: int | None
    message: str
    stops: bool = False
    # What it is about when that is an attribute no page shows unless the configuration asks for
    # it: an `add_argument` keyword argparse does not know (`bind_to`), kept in an argument's
    # extras. Such a diagnostic is said only where an output shows that keyword (or with
    # --verbose); "" for every other one.
    attribute: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        return where + self.message


@dataclass(frozen=True)
class Subcommand:
    name: str
    aliases: tuple[str, ...]
    help: str
    registry: Registry
    # Left out of the command's listing (Click's `hidden=True`): pages leave it out, as they do
    # a hidden option; the compatibility gate does not hold it.
    hidden: bool = False


@dataclass(frozen=True)
class ExclusiveGroup:
    """Arguments of which a command line may give at most one (argparse's
    `add_mutually_exclusive_group`), or exactly one when `required`. Its arguments are named
    by `Argument.name`, in the order they were added to the group."""

    arguments: tuple[str, ...]
    required: bool = False


# What built a registry, which says how its command line is written (`model/usage.py`):
# argparse's rules or Click's. "" when it is not known (a snapshot of format version 1).
ARGPARSE = "argparse"
CLICK = "click"


@dataclass(frozen=True)
class Registry:
    """One command's arguments, its subcommands, and the shape of its command line.

    The shape is kept as facts, never as the text of a terminal: `prog` (the program's name as
    the parser holds it; a subcommand's includes its parents', as argparse and Click write it),
    `usage` (a usage text the registry gives instead of the derived one, `%(prog)s` unexpanded),
    `help_flags` (argparse's help option, shown first in its usage), `exclusive_groups`,
    `subcommand_metavar` (what stands for the subcommand in the usage: argparse's
    `add_subparsers(metavar=...)`, Click's `subcommand_metavar`), `options_metavar` (Click's
    `[OPTIONS]`) and `epilog`. `model/usage.py` derives the usage synopsis from them."""

    source: str
    sections: tuple[str, ...]
    arguments: tuple[Argument, ...]
    subcommands: tuple[Subcommand, ...] = ()
    description: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()
    framework: str = ARGPARSE
    prog: str = ""
    usage: str = ""
    epilog: str = ""
    help_flags: tuple[str, ...] = ()
    exclusive_groups: tuple[ExclusiveGroup, ...] = ()
    subcommand_metavar: str = ""
    options_metavar: str = ""

    def by_flag(self) -> Mapping[str, Argument]:
        """Every flag (aliases included) and every positional's dest, mapped to its argument.

        Built once per registry (every platform resolves against it), read-only."""
        index = self.__dict__.get("_by_flag")
        if index is None:
            built: dict[str, Argument] = {}
            for argument in self.arguments:
                for flag in argument.flags or (argument.dest,):
                    built.setdefault(flag, argument)
            index = MappingProxyType(built)
            object.__setattr__(self, "_by_flag", index)  # a cache, not state: frozen otherwise
        return index

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_by_flag"}

    def all_flags(self) -> set[str]:
        """Every flag of the registry and of its subcommands, at any depth."""
        flags = set(self.by_flag())
        for sub in self.subcommands:
            flags |= sub.registry.all_flags()
        return flags

    def in_section(self, section: str) -> list[Argument]:
        return [a for a in self.arguments if a.section == section]

    def groups_of(self, argument: Argument) -> tuple[ExclusiveGroup, ...]:
        """The exclusive groups the argument is in (usually none, at most one)."""
        return tuple(g for g in self.exclusive_groups if argument.name in g.arguments)


def sorted_if_unordered(values: Iterable[Any]) -> tuple[Any, ...]:
    """Choices from a set have no order; sort them so output is the same on every run."""
    if isinstance(values, (set, frozenset)):
        return tuple(sorted(values, key=lambda v: (type(v).__name__, str(v))))
    return tuple(values)


# ---------------------------------------------------------------- JSON-safe form


def json_value(value: Any) -> Any:
    """A JSON-safe rendering of a Python value (defaults, choices, extras)."""
    if isinstance(value, Unevaluated):
        return {"unevaluated": value.source}
    if isinstance(value, Opaque):
        return {"python": value.text}
    if isinstance(value, FromEnvironment):
        fact: dict[str, Any] = {"variable": value.variable}
        if value.required:
            fact["required"] = True
        else:
            fact["otherwise"] = json_value(value.otherwise)
        return {"environment": fact}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return (
            value if value.bit_length() < 2100 or _decimal_fits(value) else {"python": hex(value)}
        )
    if isinstance(value, float):
        return value if math.isfinite(value) else {"python": repr(value)}
    if isinstance(value, (set, frozenset)):
        return [json_value(v) for v in sorted_if_unordered(value)]
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return {"python": repr(value)}


def _decimal_fits(value: int) -> bool:
    """Whether Python writes the integer in decimal (it refuses beyond 4,300 digits, or what
    PYTHONINTMAXSTRDIGITS says; 2,100 bits is under its smallest setting): a larger one is
    kept as its hexadecimal text, which has no limit."""
    try:
        str(value)
    except ValueError:
        return False
    return True


def python_value(value: Any) -> Any:
    """Inverse of `json_value` as far as JSON allows (tuples come back as lists)."""
    if isinstance(value, dict):
        if set(value) == {"unevaluated"}:
            return Unevaluated(str(value["unevaluated"]))
        if set(value) == {"python"}:
            return _python_repr_value(str(value["python"]))
        if set(value) == {"environment"} and _environment_fact(value["environment"]):
            fact = value["environment"]
            return FromEnvironment(
                fact["variable"],
                python_value(fact.get("otherwise")),
                required=fact.get("required") is True,
            )
        return {k: python_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [python_value(v) for v in value]
    return value


def _environment_fact(fact: Any) -> bool:
    """The JSON form of a `FromEnvironment`: `{"variable": "X", "otherwise": d}`, or
    `{"variable": "X", "required": true}`."""
    return (
        isinstance(fact, dict)
        and isinstance(fact.get("variable"), str)
        and set(fact) <= {"variable", "otherwise", "required"}
    )


def _python_repr_value(text: str) -> Any:
    if text in ("inf", "-inf", "nan"):
        return float(text)
    return Opaque(text)


def argument_to_dict(argument: Argument) -> dict[str, Any]:
    return {
        "flags": list(argument.flags),
        "dest": argument.dest,
        "section": argument.section,
        "action": argument.action,
        "type": argument.type,
        "default": json_value(argument.default),
        "choices": json_value(argument.choices),
        "nargs": json_value(argument.nargs),
        "required": argument.required,
        "metavar": json_value(argument.metavar),
        "help": json_value(argument.help),
        "hidden": argument.hidden,
        "deprecated": argument.deprecated,
        "extra": json_value(argument.extra),
    }


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(what)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def argument_from_dict(data: dict[str, Any]) -> Argument:
    _require(isinstance(data, dict), "an argument is not an object")
    _require(_strings(data.get("flags", [])), "'flags' is not a list of text")
    _require(isinstance(data.get("dest"), str), "'dest' is not text")
    _require(isinstance(data.get("section", ""), str), "'section' is not text")
    _require(isinstance(data.get("action", ""), str), "'action' is not text")
    _require(data.get("type") is None or isinstance(data.get("type"), str), "'type' is not text")
    _require(isinstance(data.get("extra", {}), dict), "'extra' is not an object")
    choices = python_value(data.get("choices"))
    metavar = python_value(data.get("metavar"))
    flags = tuple(data.get("flags") or ())
    nargs = python_value(data.get("nargs"))
    return Argument(
        flags=flags,
        dest=data["dest"],
        section=data.get("section") or DEFAULT_SECTION,
        action=data.get("action") or "store",
        type=data.get("type"),
        default=python_value(data.get("default")),
        choices=tuple(choices) if isinstance(choices, list) else choices,
        nargs=nargs,
        required=is_required(flags, nargs, bool(data.get("required", False))),
        metavar=tuple(metavar) if isinstance(metavar, list) else metavar,
        help=python_value(data.get("help") or ""),
        hidden=bool(data.get("hidden", False)),
        deprecated=bool(data.get("deprecated", False)),
        extra=python_value(data.get("extra") or {}),
    )


def registry_to_dict(registry: Registry) -> dict[str, Any]:
    data: dict[str, Any] = {
        "source": registry.source,
        "description": registry.description,
        "framework": registry.framework,
        "prog": registry.prog,
        "usage": registry.usage,
        "epilog": registry.epilog,
        "help_flags": list(registry.help_flags),
        "exclusive_groups": [
            {"arguments": list(g.arguments), "required": g.required}
            for g in registry.exclusive_groups
        ],
        "subcommand_metavar": registry.subcommand_metavar,
        "options_metavar": registry.options_metavar,
        "sections": list(registry.sections),
        "arguments": [argument_to_dict(a) for a in registry.arguments],
    }
    if registry.subcommands:
        data["subcommands"] = [
            {
                "name": sub.name,
                "aliases": list(sub.aliases),
                "help": sub.help,
                **({"hidden": True} if sub.hidden else {}),
                "registry": registry_to_dict(sub.registry),
            }
            for sub in registry.subcommands
        ]
    if registry.diagnostics:
        data["diagnostics"] = [_diagnostic_to_dict(d) for d in registry.diagnostics]
    return data


def _diagnostic_to_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    data: dict[str, Any] = {
        "file": diagnostic.file,
        "line": diagnostic.line,
        "message": diagnostic.message,
    }
    if diagnostic.attribute:
        data["attribute"] = diagnostic.attribute
    return data


def _diagnostic_from_dict(data: Any) -> Diagnostic:
    _require(isinstance(data, dict), "a diagnostic is not an object")
    _require(isinstance(data.get("file"), str), "a diagnostic's 'file' is not text")
    line = data.get("line")
    _require(line is None or type(line) is int, "a diagnostic's 'line' is not a number")
    _require(isinstance(data.get("message"), str), "a diagnostic's 'message' is not text")
    attribute = data.get("attribute", "")
    _require(isinstance(attribute, str), "a diagnostic's 'attribute' is not text")
    return Diagnostic(data["file"], line, data["message"], attribute=attribute)


def _text_field(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    _require(isinstance(value, str), f"{key!r} is not text")
    return str(value)


def _exclusive_group_from_dict(data: Any) -> ExclusiveGroup:
    _require(isinstance(data, dict), "an exclusive group is not an object")
    _require(_strings(data.get("arguments")), "an exclusive group's 'arguments' is not text")
    _require(isinstance(data.get("required", False), bool), "'required' is not true or false")
    return ExclusiveGroup(tuple(data["arguments"]), bool(data.get("required", False)))


def registry_from_dict(data: dict[str, Any]) -> Registry:
    """The registry of its JSON form. What a snapshot of format version 1 lacks (the shape of
    the command line) is left unknown: no framework, so no usage is derived from it."""
    _require(isinstance(data, dict), "the registry is not an object")
    _require(isinstance(data.get("source"), str), "'source' is not text")
    _require(_strings(data.get("sections")), "'sections' is not a list of text")
    _require(isinstance(data.get("arguments"), list), "'arguments' is not a list")
    _require(_strings(data.get("help_flags", [])), "'help_flags' is not a list of text")
    _require(isinstance(data.get("exclusive_groups", []), list), "'exclusive_groups' is not a list")
    return Registry(
        source=data["source"],
        description=data.get("description", ""),
        framework=_text_field(data, "framework"),
        prog=_text_field(data, "prog"),
        usage=_text_field(data, "usage"),
        epilog=_text_field(data, "epilog"),
        help_flags=tuple(data.get("help_flags", ())),
        exclusive_groups=tuple(
            _exclusive_group_from_dict(g) for g in data.get("exclusive_groups", ())
        ),
        subcommand_metavar=_text_field(data, "subcommand_metavar"),
        options_metavar=_text_field(data, "options_metavar"),
        sections=tuple(data["sections"]),
        arguments=tuple(argument_from_dict(a) for a in data["arguments"]),
        subcommands=tuple(
            Subcommand(
                name=s["name"],
                aliases=tuple(s.get("aliases", ())),
                help=s.get("help", ""),
                registry=registry_from_dict(s["registry"]),
                hidden=s.get("hidden", False) is True,
            )
            for s in data.get("subcommands", ())
        ),
        diagnostics=tuple(_diagnostic_from_dict(d) for d in data.get("diagnostics", ())),
    )
