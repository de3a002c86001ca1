"""Turn a built `argparse.ArgumentParser` into the registry model.

Live and static loading both end here: the live loader hands over the parser the project built,
the static loader a parser it built by evaluating the project's `add_argument` calls. One converter
means both modes describe an argument the same way.
"""

from __future__ import annotations

import argparse
import enum
import re
from collections.abc import Callable, Mapping
from typing import Any

from .comments import CallSite, section_of
from .model import DEFAULT_SECTION, Argument, Opaque, Registry, Subcommand, sorted_if_unordered

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
ARGPARSE_KEYWORDS = frozenset(
    {"action", "nargs", "const", "default", "type", "choices", "required", "help", "metavar",
     "dest", "version", "deprecated"}
)
_STANDARD_ACTION_ATTRIBUTES = frozenset(
    {"option_strings", "dest", "nargs", "const", "default", "type", "choices", "required", "help",
     "metavar", "version", "deprecated", "container"}
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


def expanded_help(action: argparse.Action, prog: str) -> str:
    """The help text with `%(default)s` and friends filled in as argparse would.

    argparse applies `%` to the whole string and fails on a stray `100% sure`; here each
    placeholder is filled on its own and any other `%` is left as written.
    """
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    if not isinstance(action.help, str):
        return action.help  # an Unevaluated help: keep its source text
    if "%" not in action.help:
        return action.help
    params = _help_params(action, prog)

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        name, spec = match.group(1), match.group(2)
        if name not in params:
            return match.group(0)
        try:
            return ("%" + spec) % (params[name],)
        except (TypeError, ValueError):
            return match.group(0)

    return _HELP_PLACEHOLDER.sub(fill, action.help)


def _help_params(action: argparse.Action, prog: str) -> dict[str, Any]:
    params = {k: v for k, v in vars(action).items()
              if k in _STANDARD_ACTION_ATTRIBUTES and v is not argparse.SUPPRESS}
    params["prog"] = prog
    for name, value in list(params.items()):
        if hasattr(value, "__name__"):
            params[name] = value.__name__
    if params.get("choices") is not None:
        params["choices"] = ", ".join(str(c) for c in params["choices"])
    return params


def is_deprecated(action: argparse.Action) -> bool:
    if getattr(action, "deprecated", False) is True:
        return True
    if "deprecated" in type(action).__name__.lower():
        return True
    return isinstance(action.help, str) and bool(_DEPRECATED_HELP.match(action.help))


def normalise_value(value: Any) -> Any:
    """Enum members read the same in every mode: as `Class.MEMBER`, inside containers too."""
    if isinstance(value, enum.Enum):
        return Opaque(f"{type(value).__name__}.{value.name}")
    if isinstance(value, (list, tuple)):
        return type(value)(normalise_value(v) for v in value)
    if isinstance(value, dict):
        return {k: normalise_value(v) for k, v in value.items()}
    return value


def normalise_choices(choices: Any) -> Any:
    if choices is None or not hasattr(choices, "__iter__") or isinstance(choices, str):
        return choices
    if isinstance(choices, Mapping):
        return tuple(normalise_value(c) for c in choices)
    return tuple(normalise_value(c) for c in sorted_if_unordered(choices))


def extra_of(action: argparse.Action, site: CallSite | None) -> dict[str, Any]:
    extra: dict[str, Any] = dict(site.extra) if site else {}
    for key, value in vars(action).items():
        if key not in _STANDARD_ACTION_ATTRIBUTES and not key.startswith("_"):
            extra.setdefault(key, value)
    return dict(sorted(extra.items()))


def _custom_groups(parser: argparse.ArgumentParser) -> list[argparse._ArgumentGroup]:
    defaults = {id(parser._positionals), id(parser._optionals)}
    return [g for g in parser._action_groups if id(g) not in defaults and g._group_actions]


def _documented_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a for a in parser._actions
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
        sections=tuple(sections),
        arguments=arguments,
        subcommands=_subcommands(parser, source, sites, read_source),
        description=parser.description if isinstance(parser.description, str) else "",
    )


def _argument(action: argparse.Action, section: str, prog: str, site: CallSite | None) -> Argument:
    metavar = action.metavar
    return Argument(
        flags=tuple(action.option_strings),
        dest=action.dest,
        section=section,
        action=action_name(action),
        type=type_name(action.type),
        default=None if action.default == argparse.SUPPRESS else normalise_value(action.default),
        choices=normalise_choices(action.choices),
        nargs=action.nargs,
        required=bool(action.required),
        metavar=tuple(metavar) if isinstance(metavar, (list, tuple)) else metavar,
        help=expanded_help(action, prog),
        hidden=action.help == argparse.SUPPRESS,
        deprecated=is_deprecated(action),
        extra=extra_of(action, site),
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
                section.setdefault(id(action), (group.title or DEFAULT_SECTION).strip())
        return {id(a): section.get(id(a), DEFAULT_SECTION) for a in actions}
    by_comment = {id(a): _comment_section(sites.get(id(a)), read_source) for a in actions}
    if not any(by_comment.values()):
        return {id(a): DEFAULT_SECTION for a in actions}
    return {key: title or DEFAULT_SECTION for key, title in by_comment.items()}


def _comment_section(site: CallSite | None, read_source: SourceReader) -> str | None:
    if site is None:
        return None
    text = read_source(site.file)
    return section_of(text, site.line, site.function_start) if text else None


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
        for name, subparser in action._name_parser_map.items():
            if id(subparser) in seen:
                first = seen[id(subparser)]
                seen[id(subparser)] = Subcommand(
                    first.name, (*first.aliases, name), first.help, first.registry
                )
                continue
            seen[id(subparser)] = Subcommand(
                name=name,
                aliases=(),
                help=helps.get(name, ""),
                registry=registry_from_parser(subparser, f"{source} {name}", sites, read_source),
            )
        result.extend(seen.values())
    return tuple(result)
