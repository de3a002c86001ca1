"""Click and Typer commands into the registry model: what both readers of such a command (live,
from the command object; static, from the decorators and signatures of its source) hand over,
and the one converter that turns it into the model.

A reader fills `CommandFacts` with Click's own facts, under Click's own names (`opts`,
`secondary_opts`, `is_flag`, `flag_value`, `multiple`, `count`, `nargs`, `envvar`, ...), as the
parameter objects hold them before Click derives anything; `registry_from_command` derives what
Click derives (a flag's default, an option's environment variable under `auto_envvar_prefix`)
and says it in the model's words: a flag pair is `boolean_optional`, `multiple` is `append`, a
range is its bounds, an environment variable is `extra["envvar"]` (what `environment: {keyword:
envvar}` shows in a column). One converter means both modes say a parameter the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import clean_text, normalise_choices, normalise_value
from argmatrix.loaders.markup import plain_help
from argmatrix.model.registry import CLICK as CLICK  # the framework this converter is for
from argmatrix.model.registry import (
    DEFAULT_SECTION,
    Argument,
    Diagnostic,
    Registry,
    SourceLine,
    Subcommand,
    Unevaluated,
)
from argmatrix.model.usage import typer_argument_usage


class _Missing:
    """A value the command does not set (Click's own `UNSET`): Click derives one."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

# Click's parameter types, by the class name `to_info_dict` calls `param_type`, as the model
# names the value they read (a Choice has no type of its own: its choices say it).
TYPE_NAMES: dict[str, str | None] = {
    "String": "str",
    "Unprocessed": "str",
    "Int": "int",
    "IntRange": "int",
    "Float": "float",
    "FloatRange": "float",
    "Bool": "bool",
    "UUID": "UUID",
    "Path": "Path",
    "File": "File",
    "DateTime": "datetime",
    "Choice": None,
}


@dataclass(frozen=True)
class TypeFacts:
    """A Click parameter type: its class (`param_type`, as `to_info_dict` names it: `Int`,
    `Choice`, or a custom type's class), the `name` Click gives it, and what bounds it."""

    param_type: str
    name: str = ""
    choices: tuple[Any, ...] | Unevaluated | None = None
    min: Any = None
    max: Any = None
    min_open: bool = False
    max_open: bool = False
    items: tuple[TypeFacts, ...] = ()  # a Tuple's types
    case_sensitive: bool = True  # a Choice's (`case_sensitive=False`: any case is taken)


STRING = TypeFacts("String", "text")
BOOL = TypeFacts("Bool", "boolean")


@dataclass(frozen=True)
class ParamFacts:
    """One Click `Parameter` as it was declared (`MISSING` where the declaration sets nothing).
    `version`: Click's `version_option`; `panel`: Typer's `rich_help_panel`."""

    kind: str  # "option" | "argument"
    name: str
    opts: tuple[str, ...]
    secondary_opts: tuple[str, ...] = ()
    type: TypeFacts = STRING
    required: bool = False
    nargs: int = 1
    multiple: bool = False
    default: Any = MISSING
    envvar: str | tuple[str, ...] | Unevaluated | None = None
    help: str | Unevaluated | None = None
    hidden: bool = False
    is_flag: bool = False
    flag_value: Any = MISSING
    count: bool = False
    show_default: Any = None
    metavar: str | None = None
    allow_from_autoenv: bool = True
    deprecated: bool = False
    version: bool = False
    panel: str | None = None
    # An argument of a Typer that writes arguments in a usage itself (`{model}`, `[name]`), not
    # as Click does: a live read knows the Typer installed; a static read cannot, and says
    # what Click writes (docs/guide/configuration.md).
    typer_usage: bool = False
    # Where it is declared (a static read knows: the decorator's or the signature's line), for
    # what is said about the argument at its source line (checks/compatibility.py).
    origin: SourceLine | None = field(default=None, compare=False)


@dataclass(frozen=True)
class CommandFacts:
    """A Click `Command` or `Group` (a Typer app is read as `typer.main.get_command` makes it):
    its own parameters, and a group's subcommands by the name they are registered under, in
    the order they are. `auto_envvar_prefix` as its `context_settings` set it."""

    name: str
    help: str | Unevaluated | None = None
    short_help: str | Unevaluated | None = None
    params: tuple[ParamFacts, ...] = ()
    is_group: bool = False
    subcommands: tuple[tuple[str, CommandFacts], ...] = ()
    auto_envvar_prefix: str | None = None
    hidden: bool = False
    deprecated: bool = False
    epilog: str | Unevaluated | None = None
    # What the usage shows for the options and for a group's subcommand, as the command sets
    # them (None: Click's own, which for a group depends on `chain` and
    # `invoke_without_command`).
    options_metavar: str | None = "[OPTIONS]"
    subcommand_metavar: str | None = None
    chain: bool = False
    invoke_without_command: bool = False
    # The other names its group accepts for it (`"list | ls"` registered, `ls` found by the
    # group's `get_command`).
    aliases: tuple[str, ...] = ()
    # How a Typer command's help is marked up (its `rich_markup_mode`: "rich", "markdown"),
    # None for plain text (Click's): the model keeps the words, not the markup (markup.py).
    markup: str | None = None


# ------------------------------------------------------------------ the converter


def registry_from_command(
    command: CommandFacts,
    source: str,
    sites: Any = None,
    read_file: Callable[[str], str | None] | None = None,
) -> Registry:
    """The model of a Click command, a group (its subcommands as argparse's) or a Typer app.
    (`sites` and `read_file`, which the argparse converter takes, are not needed: a parameter
    carries the line it is declared at, where a reader knows it.)"""
    return _registry(command, source, command.auto_envvar_prefix, program_of(source))


def program_of(source: str) -> str:
    """The program a Click command's usage starts with: Click names it as it is run (the
    script's name), which the command does not hold; argmatrix names it after the target's
    module, as argparse names a parser run as that module (the configuration's `prog:` names
    it otherwise), with the subcommands the target names after it (`cli serve`)."""
    target, *words = source.split(" ")
    module = target.partition(":")[0].rsplit(".", 1)[-1]
    return clean_text(" ".join([module, *words]))


def _registry(command: CommandFacts, source: str, prefix: str | None, prog: str) -> Registry:
    prefix = _own_prefix(command, prefix)
    arguments = tuple(_argument(param, prefix, command.markup) for param in command.params)
    sections = tuple(dict.fromkeys(a.section for a in arguments))
    # A subcommand's program is Click's `command_path`: its group's, the group's arguments as
    # its usage shows them, then its own name.
    path = " ".join([prog, *(str(a.metavar) for a in arguments if a.positional)])
    subcommands = tuple(
        Subcommand(
            name=clean_text(name),
            aliases=tuple(clean_text(a) for a in sub.aliases),
            help=_short_help(sub),
            registry=_registry(
                sub, f"{source} {name}", _child_prefix(prefix, name), f"{path} {clean_text(name)}"
            ),
            hidden=sub.hidden,
        )
        for name, sub in command.subcommands
    )
    return Registry(
        source=source,
        sections=sections,
        arguments=arguments,
        subcommands=subcommands,
        description=_text(command.help, command.markup),
        framework=CLICK,
        prog=prog.strip(),
        epilog=_text(command.epilog, command.markup),
        options_metavar=clean_text(command.options_metavar or ""),
        subcommand_metavar=_subcommand_metavar(command),
    )


def _subcommand_metavar(command: CommandFacts) -> str:
    """What a group's usage shows for its subcommand (Click's `subcommand_metavar`)."""
    if not command.is_group:
        return ""
    if command.subcommand_metavar is not None:
        return clean_text(command.subcommand_metavar)
    if command.chain:
        if command.invoke_without_command:
            return "[COMMAND1] [ARGS]... [COMMAND2 [ARGS]...]..."
        return "COMMAND1 [ARGS]... [COMMAND2 [ARGS]...]..."
    return "[COMMAND] [ARGS]..." if command.invoke_without_command else "COMMAND [ARGS]..."


def _own_prefix(command: CommandFacts, inherited: str | None) -> str | None:
    """A command's own `auto_envvar_prefix` wins over the one its parent passes down; Click
    upper-cases it and writes `-` as `_`."""
    prefix = command.auto_envvar_prefix or inherited
    return prefix.upper().replace("-", "_") if prefix else None


def _child_prefix(prefix: str | None, name: str) -> str | None:
    return f"{prefix}_{name.upper()}" if prefix else None


def _text(value: str | Unevaluated | None, markup: str | None = None) -> str:
    if isinstance(value, Unevaluated):
        return value.source
    if not value:
        return ""
    return clean_text(plain_help(inspect.cleandoc(value).partition("\f")[0].strip(), markup))


def _short_help(command: CommandFacts) -> str:
    """What a group's listing says of a subcommand: its `short_help`, else the first paragraph
    of its help (Click cuts that to 45 characters for a terminal; a page has room)."""
    if command.short_help:
        return _text(command.short_help, command.markup)
    text = _text(command.help, command.markup)
    return " ".join(text.split("\n\n", 1)[0].split())


def _argument(param: ParamFacts, prefix: str | None, markup: str | None = None) -> Argument:
    option = param.kind == "option"
    if param.version:  # Click's version_option: prints the version, has no value
        param = replace(param, type=STRING, default=None, allow_from_autoenv=False)
    return Argument(
        flags=tuple(clean_text(f) for f in (*param.opts, *param.secondary_opts)) if option else (),
        dest=clean_text(param.name),
        section=clean_text(param.panel) if param.panel else DEFAULT_SECTION,
        action=_action(param) if option else "store",
        type=None if param.version else _type_name(param.type),
        default=_default(param),
        choices=normalise_choices(param.type.choices),
        nargs=_nargs(param),
        required=param.required,
        metavar=_metavar(param),
        help=_help(param.help, markup),
        hidden=param.hidden,
        deprecated=param.deprecated,
        extra=_extra(param, prefix),
        origin=param.origin,
    )


def _metavar(param: ParamFacts) -> str | None:
    """The name its value is shown under, as Click writes it (`make_metavar`): for an option
    that takes a value, the declared metavar, else its type's (`INTEGER`, `[a|b]`,
    `<TEXT INTEGER>`), followed by `...` when it takes several values; for an argument, what its
    usage shows (`SRC`, `[DST]...`, `{a|b}`, a deprecated one's `SRC!`; Typer's own `{model}`
    where the Typer read writes it so). None for a flag."""
    if param.kind == "option" and (param.is_flag or param.count or param.version):
        return None
    if param.kind == "argument" and param.typer_usage:
        name = clean_text(param.metavar if param.metavar is not None else param.name)
        return typer_argument_usage(name, param.required, param.nargs != 1)
    if param.metavar is not None:
        return clean_text(param.metavar)
    own = _type_metavar(param)
    if param.kind == "option":
        name = own or _type_label(param.type).upper()
        return name + ("..." if param.nargs != 1 else "")
    name = own or param.name.upper()
    bracketed = name.startswith("[") and name.endswith("]")
    if param.deprecated:
        name += "!"
    if not param.required and not bracketed:
        name = f"[{name}]"
    return clean_text(name + ("..." if param.nargs != 1 else ""))


# Click's DateTime shows the formats it reads; these are its own.
_DATETIME_FORMATS = ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")


def _type_metavar(param: ParamFacts) -> str | None:
    """What a Click type's `get_metavar` gives: a Choice its choices (in braces for a required
    argument), a DateTime its formats; None for the others, which show their name."""
    facts = param.type
    if facts.param_type == "Choice" and isinstance(facts.choices, tuple):
        names = "|".join(_choice_text(c) for c in facts.choices)
        if param.required and param.kind == "argument":
            return f"{{{names}}}"
        return f"[{names}]"
    if facts.param_type == "DateTime":
        return f"[{'|'.join(_DATETIME_FORMATS)}]"
    return None


def _choice_text(choice: Any) -> str:
    return clean_text(choice if isinstance(choice, str) else str(choice))


def _type_label(facts: TypeFacts) -> str:
    """A type's `name` (`integer`, `integer range`, `<text integer>`), Click's label of it."""
    if facts.param_type == "Tuple" and facts.items:
        return "<" + " ".join(_type_label(item) for item in facts.items) + ">"
    return clean_text(facts.name or facts.param_type)


def _help(value: str | Unevaluated | None, markup: str | None = None) -> str | Unevaluated:
    if isinstance(value, Unevaluated):
        return value
    return clean_text(plain_help(value, markup)) if value else ""


def is_bool_flag(param: ParamFacts) -> bool:
    return param.is_flag and param.type.param_type == "Bool"


def activation_value(param: ParamFacts) -> Any:
    """What a flag gives when it is given: its `flag_value`, else True."""
    return True if param.flag_value is MISSING else param.flag_value


def _action(param: ParamFacts) -> str:
    if param.version:
        return "version"
    if param.count:
        return "count"
    if is_bool_flag(param):
        if param.secondary_opts:
            return "boolean_optional"
        if param.multiple:
            return "append_const"
        return "store_false" if activation_value(param) is False else "store_true"
    if param.is_flag:
        return "append_const" if param.multiple else "store_const"
    return "append" if param.multiple else "store"


def _default(param: ParamFacts) -> Any:
    """The default as Click derives it: a count starts at 0, a boolean flag at False, a
    repeatable flag at (); `default=True` of a flag that stores a value is that value. A
    callable default is computed when the command runs: said so, with its name."""
    value = param.default
    if value is MISSING:
        if param.count:
            return 0
        if param.is_flag and param.multiple and not param.required:
            return ()
        if is_bool_flag(param) and not param.required:
            return False
        return None
    if value is True and param.is_flag and not is_bool_flag(param):
        return normalise_value(activation_value(param))
    return normalise_value(value)


def _nargs(param: ParamFacts) -> str | int | None:
    if param.nargs == 1:
        return None
    if param.nargs < 0:
        return "+" if param.required else "*"
    return param.nargs


def _type_name(facts: TypeFacts) -> str | None:
    if facts.param_type == "Tuple":
        names = {_type_name(item) or "str" for item in facts.items}
        return names.pop() if len(names) == 1 else "tuple"
    if facts.param_type in TYPE_NAMES:
        return TYPE_NAMES[facts.param_type]
    return clean_text(facts.name or facts.param_type)


def describe_range(facts: TypeFacts) -> str | None:
    """A range as Click's own help writes it: `1<=x<=65535`, `x>=1`, `0<x<=1`."""
    if facts.param_type not in ("IntRange", "FloatRange"):
        return None
    if facts.min is None and facts.max is None:
        return None
    if facts.min is None:
        return f"x{'<' if facts.max_open else '<='}{facts.max}"
    if facts.max is None:
        return f"x{'>' if facts.min_open else '>='}{facts.min}"
    low = "<" if facts.min_open else "<="
    high = "<" if facts.max_open else "<="
    return f"{facts.min}{low}x{high}{facts.max}"


def envvar_of(param: ParamFacts, prefix: str | None) -> str | Unevaluated | None:
    """The environment variable(s) that set a parameter: its own `envvar`, else, for an
    option, `PREFIX_NAME` under an `auto_envvar_prefix`."""
    if isinstance(param.envvar, Unevaluated):
        return param.envvar
    if isinstance(param.envvar, str) and param.envvar:
        return param.envvar
    if isinstance(param.envvar, tuple) and param.envvar:
        return ", ".join(param.envvar)
    if param.kind == "option" and param.allow_from_autoenv and prefix and param.name:
        return f"{prefix}_{param.name.upper()}"
    return None


def _extra(param: ParamFacts, prefix: str | None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    envvar = envvar_of(param, prefix)
    if envvar is not None:
        extra["envvar"] = envvar
    bounds = None if param.count else describe_range(param.type)  # a count's own `x>=0`
    if bounds is not None:
        extra["range"] = bounds
    if param.is_flag and not is_bool_flag(param):
        extra["flag_value"] = activation_value(param)
    if param.type.choices is not None and not param.type.case_sensitive:
        extra["case_sensitive"] = False  # a choice is taken in any case
    if isinstance(param.show_default, str) or param.show_default is False:
        extra["show_default"] = param.show_default  # a text said instead, or hidden
    return {clean_text(k): normalise_value(v) for k, v in sorted(extra.items())}


def kept_as_source(registry: Registry) -> list[Diagnostic]:
    """A warning for each value a command's reading kept as source text (a callable default,
    computed when the command runs), at the argument's line where it is known: said as static
    reading says the values it keeps."""
    said = []
    for argument in registry.arguments:
        if isinstance(argument.default, Unevaluated):
            origin = argument.origin
            reason = f" ({argument.default.reason})" if argument.default.reason else ""
            said.append(
                Diagnostic(
                    origin.file if origin else registry.source,
                    origin.line if origin else None,
                    f"{argument.name}: default kept as source text: `{argument.default.source}`"
                    + reason,
                )
            )
    for sub in registry.subcommands:
        said += kept_as_source(sub.registry)
    return said


def descend_command(command: CommandFacts, path: tuple[str, ...], target: str) -> CommandFacts:
    """The subcommand `path` leads to in a Click group (`serve`, then `api`), found as `descend`
    finds an argparse subparser, with the same words when it is not there; it keeps, as its
    own `auto_envvar_prefix`, the prefix the groups above pass down to its options' environment
    variables."""
    prefix = _own_prefix(command, None)
    walked: list[str] = []
    for name in path:
        found = dict(command.subcommands)
        canonical = {a: n for n, sub in command.subcommands for a in sub.aliases}
        name = canonical.get(name, name)  # an alias the group accepts names the command
        if name not in found:
            names = list(found)
            known = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
            raise ArgmatrixError.at(
                f"{' '.join([target, *walked])} has no subcommand {name!r}",
                fix=f"name one of its subcommands ({known or 'none: it has no subcommands'})",
            )
        command = found[name]
        prefix = _own_prefix(command, _child_prefix(prefix, name))
        walked.append(name)
    return replace(command, auto_envvar_prefix=prefix) if path else command
