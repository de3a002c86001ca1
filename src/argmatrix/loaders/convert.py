"""Turn a built `argparse.ArgumentParser` into the registry model.

Live and static loading both end here: the live loader hands over the parser the project built,
the static loader a parser it built by evaluating the project's `add_argument` calls. One converter
means both modes describe an argument the same way, and the same on every supported Python: what
argparse itself adds or writes differently from one version to the next (3.10's
BooleanOptionalAction help suffix, 3.13's `deprecated`, how an enum member or a set reads in
`%(default)s`) is normalised here. The model holds plain data only: text without lone surrogates,
numbers, containers, and `Opaque` text (without a memory address) for any other object.
"""

from __future__ import annotations

import argparse
import enum
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from argmatrix.loaders.sections import CallSite, site_section
from argmatrix.model.registry import (
    DEFAULT_SECTION,
    Argument,
    ExclusiveGroup,
    FromEnvironment,
    Opaque,
    Registry,
    SourceLine,
    Subcommand,
    Unevaluated,
    is_required,
    sorted_if_unordered,
)

ACTION_NAMES: dict[type, str] = {
    argparse._StoreAction: "store",
    argparse._StoreConstAction: "store_const",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
    argparse._AppendAction: "append",
    argparse._AppendConstAction: "append_const",
    argparse._CountAction: "count",
    argparse._VersionAction: "version",
    argparse._ExtendAction: "extend",
    argparse.BooleanOptionalAction: "boolean_optional",
}

# Keyword arguments argparse itself understands; anything else a call passes is kept as `extra`.
ARGPARSE = "argparse"  # the framework this converter is for (`FRAMEWORKS` in loaders/modes.py)
ARGPARSE_KEYWORDS = frozenset(
    {
        "action",
        "nargs",
        "const",
        "default",
        "type",
        "choices",
        "required",
        "help",
        "metavar",
        "dest",
        "version",
        "deprecated",
    }
)
_STANDARD_ACTION_ATTRIBUTES = frozenset(
    {
        "option_strings",
        "dest",
        "nargs",
        "const",
        "default",
        "type",
        "choices",
        "required",
        "help",
        "metavar",
        "version",
        "deprecated",
        "container",
    }
)
_DEPRECATED_HELP = re.compile(r"^\W*deprecated\b", re.IGNORECASE)

SourceReader = Callable[[str], str | None]


def action_name(action: argparse.Action) -> str:
    """argparse's own action names; a custom Action class by its class name."""
    return ACTION_NAMES.get(type(action), type(action).__name__)


def type_name(type_: Any) -> str | None:
    if type_ is None:
        return None
    if isinstance(type_, str):
        return type_
    name = getattr(type_, "__name__", None)
    return name if isinstance(name, str) else type(type_).__name__


_HELP_PLACEHOLDER = re.compile(r"%\((\w+)\)([-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa])|%%")
# Python 3.10's BooleanOptionalAction appends this to a help (3.11 and later do not).
_BOOLEAN_DEFAULT_SUFFIX = " (default: %(default)s)"
_SURROGATE = re.compile("[\ud800-\udfff]")
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
MAX_CHOICES = 10_000  # more (a `range(10**12)`): kept as the text of the container


def clean_text(text: str) -> str:
    """Text that can be written as UTF-8: a lone surrogate (a `\\ud800` escape in a string
    literal of the registry) becomes U+FFFD, the replacement character."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def own_help(action: argparse.Action) -> Any:
    """The help as the registry wrote it, whatever the Python: 3.10's BooleanOptionalAction
    appends " (default: %(default)s)" to a help when the action has a default."""
    help_ = action.help
    if (
        sys.version_info < (3, 11)
        and isinstance(action, argparse.BooleanOptionalAction)
        and isinstance(help_, str)
        and help_.endswith(_BOOLEAN_DEFAULT_SUFFIX)
        and action.default is not None
        and action.default is not argparse.SUPPRESS
    ):
        return help_[: -len(_BOOLEAN_DEFAULT_SUFFIX)]
    return help_


def expanded_help(action: argparse.Action, prog: str) -> str:
    """The help text with `%(default)s` and friends filled in as argparse would.

    argparse applies `%` to the whole string and fails on a stray `100% sure`; here each
    placeholder is filled on its own and any other `%` is left as written. Values read the same
    on every Python (an enum member as 3.12 writes it, a set in sorted order, no addresses).
    """
    help_ = lazy_text(own_help(action))
    if not help_ or help_ == argparse.SUPPRESS:
        return ""
    if not isinstance(help_, str):
        return help_  # type: ignore[no-any-return]  # an Unevaluated help: its source text
    if "%" not in help_:
        return clean_text(help_)
    params = _help_params(action, prog)

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        name, spec = match.group(1), match.group(2)
        if name not in params:
            return match.group(0)
        value = params[name]
        if isinstance(value, FromEnvironment) and spec[-1] not in "sra":
            return _numeric_environment_default(value, spec) or match.group(0)
        try:
            if spec[-1] in "sra":
                return ("%" + spec[:-1] + "s") % (
                    text_of(value) if spec[-1] == "s" else repr_of(value),
                )
            return ("%" + spec) % (value,)
        except (TypeError, ValueError, OverflowError):
            return match.group(0)

    return clean_text(_HELP_PLACEHOLDER.sub(fill, help_))


def _numeric_environment_default(value: FromEnvironment, spec: str) -> str:
    """`%(default)d` or `%(default).2f` of a default read from an environment variable: the
    fallback in the help's own format, then where the value may come from instead, as
    `%(default)s` says it ("8000, or $PORT when set"); "" when the fallback does not take the
    format (a text fallback under `%d`: argparse itself would fail)."""
    if value.required or value.otherwise is None:
        return str(value)
    try:
        fallback = ("%" + spec) % (value.otherwise,)
    except (TypeError, ValueError, OverflowError):
        return ""
    return f"{fallback}, or ${value.variable} when set"


def lazy_text(value: Any) -> Any:
    """A help, title or description as argparse writes it: text stays text, an `Unevaluated`
    stays as it is, and any other object is what `str()` makes of it (argparse formats a help
    with `%` and a title with `%s`): a lazy translation (sphinx's `_TranslationProxy`) reads as
    its text, never as its repr."""
    if value is None or isinstance(value, (str, Unevaluated)):
        return value
    try:
        return str(value)
    except Exception:
        return Opaque(clean_text(repr_of(value)))


def _help_params(action: argparse.Action, prog: str) -> dict[str, Any]:
    params = {
        k: v
        for k, v in vars(action).items()
        if k in _STANDARD_ACTION_ATTRIBUTES and v is not argparse.SUPPRESS
    }
    params.setdefault("deprecated", False)  # an attribute of every action from Python 3.13 on
    params["prog"] = prog
    for name, value in list(params.items()):
        if hasattr(value, "__name__") and not isinstance(value, enum.Enum):
            params[name] = value.__name__
    choices = params.get("choices")
    if choices is not None:
        items = choices if isinstance(choices, str) else normalise_choices(choices)
        params["choices"] = (
            ", ".join(text_of(c) for c in items)
            if isinstance(items, (str, tuple))
            else text_of(items)
        )
    return params


def is_deprecated(action: argparse.Action) -> bool:
    if getattr(action, "deprecated", False) is True:
        return True
    if "deprecated" in type(action).__name__.lower():
        return True
    return isinstance(action.help, str) and bool(_DEPRECATED_HELP.match(action.help))


# ------------------------------------------------------------------ values as every Python reads


def text_of(value: Any) -> str:
    """`str(value)` as Python 3.12 writes it, the same on 3.10 to 3.13 and from run to run."""
    if isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return _enum_text(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return repr_of(value)
    if isinstance(value, (Opaque, Unevaluated, FromEnvironment)):
        return str(value)
    return _ADDRESS.sub("", str(value))


def repr_of(value: Any) -> str:
    """`repr(value)` the same everywhere: enum members as 3.12 writes them, sets and
    frozensets in sorted order, no memory addresses."""
    if value is None or type(value) in (str, int, float, bool):
        return repr(value)
    if isinstance(value, enum.Enum):
        return f"<{type(value).__name__}.{_enum_name(value)}: {repr_of(value.value)}>"
    if isinstance(value, (set, frozenset)):
        items = ", ".join(sorted(repr_of(v) for v in value))
        if isinstance(value, frozenset):
            return f"frozenset({{{items}}})" if items else "frozenset()"
        return f"{{{items}}}" if items else "set()"
    if isinstance(value, list):
        return "[" + ", ".join(repr_of(v) for v in value) + "]"
    if isinstance(value, tuple) and type(value) is tuple:
        items = ", ".join(repr_of(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if isinstance(value, dict) and type(value) is dict:
        return "{" + ", ".join(f"{repr_of(k)}: {repr_of(v)}" for k, v in value.items()) + "}"
    return _ADDRESS.sub("", repr(value))


_STDLIB_ENUM_STR = {
    getattr(kind, "__str__", None)
    for kind in (
        enum.Enum,
        enum.Flag,
        enum.IntEnum,
        enum.IntFlag,
        getattr(enum, "StrEnum", enum.Enum),
    )
}


def _enum_text(value: enum.Enum) -> str:
    kind = type(value)
    if kind.__str__ not in _STDLIB_ENUM_STR and kind.__str__ not in (
        int.__str__,
        int.__repr__,
        str.__str__,
        object.__str__,
    ):
        return str(value)  # the project's own __str__: the same on every Python
    if isinstance(value, (enum.IntEnum, enum.IntFlag)):
        return str(int(value))  # 3.11 and later; 3.10 wrote Class.MEMBER
    str_enum = getattr(enum, "StrEnum", None)
    if str_enum is not None and isinstance(value, str_enum):
        return str(value.value)
    return f"{kind.__name__}.{_enum_name(value)}"


def _enum_name(value: enum.Enum) -> str:
    """A member's name; a combination of flags as `A|B` in definition order (3.10 named it
    None and wrote the bits in another order)."""
    members = type(value).__members__
    name = value.name
    if name is not None and members.get(name) is value:
        return name
    if isinstance(value, enum.Flag) and isinstance(value.value, int):
        bits = [
            m
            for m in dict.fromkeys(members.values())
            if isinstance(m.value, int)
            and m.value > 0
            and not m.value & (m.value - 1)
            and value.value & m.value == m.value
        ]
        if bits:
            return "|".join(str(m.name) for m in bits)
    return str(name) if name is not None else repr_of(value.value)


_PLAIN_NUMBERS = frozenset({bool, int, float})  # these types themselves, never an Enum


def normalise_value(value: Any) -> Any:
    """A value of the model, the same in every mode and on every Python: text (lone surrogates
    replaced), numbers, True/False/None and containers of them; an enum member as
    `Class.MEMBER`; any other object as `Opaque` text without a memory address."""
    kind = type(value)
    if kind is str:  # the most common by far, and what the checks below would make of it
        return clean_text(value)
    if kind in _PLAIN_NUMBERS:
        return value
    if (
        value is None
        or isinstance(value, (Opaque, Unevaluated, FromEnvironment))
        or (isinstance(value, (bool, int, float)) and not isinstance(value, enum.Enum))
    ):
        return value
    if isinstance(value, enum.Enum):
        return Opaque(f"{type(value).__name__}.{_enum_name(value)}")
    native = _native_enum_name(value)
    if native is not None:
        return Opaque(f"{type(value).__name__}.{native}")
    if isinstance(value, str):
        return clean_text(value) if type(value) is str else clean_text(str(value))
    if isinstance(value, list):
        return [normalise_value(v) for v in value]
    if isinstance(value, tuple):  # a named tuple too: JSON (a snapshot) keeps its items only
        return tuple(normalise_value(v) for v in value)
    if isinstance(value, dict):
        return {
            normalise_value(k) if isinstance(k, str) else k: normalise_value(v)
            for k, v in value.items()
        }
    if isinstance(value, (set, frozenset)):
        return type(value)(normalise_value(v) for v in value)
    return Opaque(clean_text(repr_of(value)))


def _native_enum_name(value: Any) -> str | None:
    """The name of a member of a compiled module's enum (pybind11's: its class maps
    `__members__` names to members, as an Enum does, without deriving from enum.Enum), so that
    it reads `Class.MEMBER` as an Enum member does, and as static reading gives it from the
    module's `.pyi` stub."""
    members = getattr(type(value), "__members__", None)
    if not isinstance(members, Mapping) or isinstance(value, (str, int, float, bool)):
        return None
    for name, member in members.items():
        if member is value and isinstance(name, str):
            return name
    return None


def normalise_choices(choices: Any) -> Any:
    if choices is None or not hasattr(choices, "__iter__") or isinstance(choices, str):
        return normalise_value(choices)
    if isinstance(choices, Unevaluated):
        return choices
    if hasattr(choices, "__len__") and len(choices) > MAX_CHOICES:
        return Opaque(clean_text(repr_of(choices)))  # `range(10**12)`: its text, not its items
    if isinstance(choices, Mapping):
        return tuple(normalise_value(c) for c in choices)
    if isinstance(choices, (set, frozenset)):  # sorted by what the values read as everywhere
        return sorted_if_unordered(frozenset(normalise_value(c) for c in choices))
    return tuple(normalise_value(c) for c in choices)


def extra_of(action: argparse.Action, site: CallSite | None) -> dict[str, Any]:
    extra: dict[str, Any] = dict(site.extra) if site else {}
    for key, value in vars(action).items():
        if key not in _STANDARD_ACTION_ATTRIBUTES and not key.startswith("_"):
            extra.setdefault(key, value)
    return {clean_text(key): normalise_value(value) for key, value in sorted(extra.items())}


def _plain_text(value: Any) -> str:
    """A description or a group title: text, or nothing."""
    text = lazy_text(value)
    return clean_text(text) if isinstance(text, str) else ""


def _custom_groups(parser: argparse.ArgumentParser) -> list[argparse._ArgumentGroup]:
    defaults = {id(parser._positionals), id(parser._optionals)}
    return [g for g in parser._action_groups if id(g) not in defaults and g._group_actions]


def _documented_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
    ]


def registry_from_parser(
    parser: argparse.ArgumentParser,
    source: str,
    sites: Mapping[int, CallSite],
    read_source: SourceReader,
) -> Registry:
    """Build the model of `parser`; `sites` maps id(action) to where it was added."""
    actions = _documented_actions(parser)
    section_by_action = _sections(parser, actions, sites, read_source)
    sections = list(dict.fromkeys(section_by_action[id(a)] for a in actions))
    arguments = tuple(
        _argument(action, section_by_action[id(action)], parser.prog, sites.get(id(action)))
        for action in actions
    )
    return Registry(
        source=source,
        sections=tuple(clean_text(title) for title in sections),
        arguments=arguments,
        subcommands=_subcommands(parser, source, sites, read_source),
        description=_plain_text(parser.description),
        prog=_plain_text(parser.prog),
        usage=_plain_text(parser.usage),
        epilog=_plain_text(parser.epilog),
        help_flags=_help_flags(parser),
        exclusive_groups=_exclusive_groups(parser, actions, arguments),
        subcommand_metavar=_subcommand_metavar(parser),
    )


def _help_flags(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The flags of the parser's help option (`-h, --help`), which its usage shows first."""
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) and action.help != argparse.SUPPRESS:
            return tuple(clean_text(flag) for flag in action.option_strings)
    return ()


def _exclusive_groups(
    parser: argparse.ArgumentParser,
    actions: list[argparse.Action],
    arguments: tuple[Argument, ...],
) -> tuple[ExclusiveGroup, ...]:
    """The parser's mutually exclusive groups, their arguments by name (a group with none of
    the arguments the model keeps, a help option's own, is left out)."""
    if not parser._mutually_exclusive_groups:
        return ()
    model = {id(action): argument for action, argument in zip(actions, arguments, strict=True)}
    groups = []
    for group in parser._mutually_exclusive_groups:
        members = tuple(model[id(a)].name for a in group._group_actions if id(a) in model)
        if members:
            groups.append(ExclusiveGroup(members, bool(group.required)))
    return tuple(groups)


def _subcommand_metavar(parser: argparse.ArgumentParser) -> str:
    """What stands for the subcommand in the usage when `add_subparsers(metavar=...)` names
    it; "" for argparse's own `{serve,bench}`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and isinstance(action.metavar, str):
            return clean_text(action.metavar)
    return ""


def _argument(action: argparse.Action, section: str, prog: str, site: CallSite | None) -> Argument:
    metavar = action.metavar
    suppressed = isinstance(action.default, str) and action.default == argparse.SUPPRESS
    type_ = type_name(action.type)
    flags = tuple(clean_text(flag) for flag in action.option_strings)
    nargs = normalise_value(action.nargs)
    return Argument(
        flags=flags,
        dest=clean_text(action.dest),
        section=clean_text(section),
        action=clean_text(action_name(action)),
        type=clean_text(type_) if type_ is not None else None,
        default=None if suppressed else normalise_value(action.default),
        choices=normalise_choices(action.choices),
        nargs=nargs,
        required=is_required(flags, nargs, bool(action.required)),
        metavar=tuple(normalise_value(m) for m in metavar)
        if isinstance(metavar, (list, tuple))
        else normalise_value(metavar),
        help=expanded_help(action, prog),
        hidden=action.help == argparse.SUPPRESS,
        deprecated=is_deprecated(action),
        extra=extra_of(action, site),
        origin=SourceLine(site.file, site.line) if site else None,
    )


def _sections(
    parser: argparse.ArgumentParser,
    actions: list[argparse.Action],
    sites: Mapping[int, CallSite],
    read_source: SourceReader,
) -> dict[int, str]:
    """Section per action: argument groups if the parser has any, else comment blocks."""
    groups = _custom_groups(parser)
    if groups:
        section: dict[int, str] = {}
        for group in parser._action_groups:
            for action in group._group_actions:
                section.setdefault(
                    id(action), (_plain_text(group.title) or DEFAULT_SECTION).strip()
                )
        return {id(a): section.get(id(a), DEFAULT_SECTION) for a in actions}
    lines: dict[str, list[int]] = {}
    for site in sites.values():
        lines.setdefault(site.file, []).append(site.line)
    for each in lines.values():
        each.sort()
    by_comment = {id(a): _comment_section(sites.get(id(a)), read_source, lines) for a in actions}
    if not any(by_comment.values()):
        return {id(a): DEFAULT_SECTION for a in actions}
    return {key: title or DEFAULT_SECTION for key, title in by_comment.items()}


def _comment_section(
    site: CallSite | None, read_source: SourceReader, lines: Mapping[str, list[int]]
) -> str | None:
    """The comment block's title above the call (one that titles a block of arguments:
    `lines`, each file's lines of argument calls), or its declared field's."""
    if site is None:
        return None
    text = read_source(site.file)
    return site_section(text, site, lines.get(site.file, ())) if text else site.fallback


def _subcommands(
    parser: argparse.ArgumentParser,
    source: str,
    sites: Mapping[int, CallSite],
    read_source: SourceReader,
) -> tuple[Subcommand, ...]:
    result: list[Subcommand] = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        seen: dict[int, Subcommand] = {}
        aliases: dict[int, list[str]] = {}  # gathered, not copied at each (100,000 aliases)
        for name, subparser in action._name_parser_map.items():
            if id(subparser) in seen:
                aliases[id(subparser)].append(clean_text(name))
                continue
            help_ = lazy_text(helps.get(name, ""))
            aliases[id(subparser)] = []
            seen[id(subparser)] = Subcommand(
                name=clean_text(name),
                aliases=(),
                help=clean_text(help_) if isinstance(help_, str) else help_,
                registry=registry_from_parser(subparser, f"{source} {name}", sites, read_source),
            )
        result.extend(
            Subcommand(first.name, tuple(aliases[key]), first.help, first.registry)
            for key, first in seen.items()
        )
    return tuple(result)
