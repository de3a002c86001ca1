"""How arguments are shown on a page (`environment:`, `types:`, `computed_defaults:`): the
values `Named`, `Environment`, `Display`, `DisplayFacts`, and reading them from the file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from argmatrix._runtime.yamlfile import line_of
from argmatrix.config.compatibility import Stability, _stability
from argmatrix.config.fields import _shown, _unknown_keys
from argmatrix.errors import ArgmatrixError, Problem, has_control
from argmatrix.model.findings import closest
from argmatrix.model.registry import Argument, FromEnvironment, Registry
from argmatrix.model.spelling import ambiguous_flag_error, argument_spellings, find_argument

ENVIRONMENT_KEYS = ("keyword", "prefix", "arguments")


class Named(NamedTuple):
    """A flag named in the configuration, what is said of it, and the line it is written on."""

    flag: str
    text: str
    line: int | None


@dataclass(frozen=True)
class Environment:
    """How an argument's environment variable is found (`environment:`): the argument's own
    entry in `arguments`, else the `add_argument` keyword named by `keyword` (RTP-LLM's
    `env_name=`), else the variable its default is read from (`os.environ.get("X", d)`), else
    `prefix` + the dest upper-cased (`SGLANG_` + `MODEL_PATH`)."""

    keyword: str | None = None
    prefix: str | None = None
    arguments: tuple[Named, ...] = ()

    def variable_of(self, argument: Argument, named: Mapping[int, str] | None = None) -> str:
        """The argument's environment variable, "" when it has none. `named`: `arguments`
        keyed by the argument's identity (`Display.facts` resolves their spellings)."""
        if named and id(argument) in named:
            return named[id(argument)]
        if self.keyword is not None:
            value = argument.extra.get(self.keyword)
            if isinstance(value, str) and value.strip():
                return value
        if isinstance(argument.default, FromEnvironment) and (
            self.keyword is not None or self.prefix is not None or self.arguments
        ):
            return argument.default.variable
        if self.prefix is not None and argument.flags:
            return self.prefix + _NOT_IN_VARIABLE.sub("_", argument.dest).upper()
        return ""


_NOT_IN_VARIABLE = re.compile(r"[^A-Za-z0-9_]")
_VARIABLE_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Display:
    """What the configuration says of how arguments read on a page: their environment
    variables, display text for converters (`types:`), and defaults computed at run time
    (`computed_defaults:`, flag -> a short text said instead of the registry's value)."""

    environment: Environment = field(default_factory=Environment)
    types: dict[str, str] = field(default_factory=dict)
    computed: tuple[Named, ...] = ()
    stability: Stability | None = None  # `stability:`: a Stability column on the pages
    # `computed:` flag -> {help, choices}: the text said instead of a help or choices computed
    # when the server starts (kept as source text by static reading); its `default`s are in
    # `computed`, with those of `computed_defaults:`.
    computed_help: tuple[Named, ...] = ()
    computed_choices: tuple[Named, ...] = ()
    # `section_titles:`: a registry section -> its title on the pages, in the order the pages
    # show them (before the sections not named); sections given one title are merged.
    section_titles: tuple[Named, ...] = ()
    # `prog:`: the program's name as a user types it, in the usage synopses of the pages, in
    # place of the one the registry's parser has ("": the registry's own).
    prog: str = ""

    @property
    def has_environment(self) -> bool:
        return bool(
            self.environment.keyword or self.environment.prefix or self.environment.arguments
        )

    def facts(self, registry: Registry, where: str) -> DisplayFacts:
        """The configuration's flags resolved against the registry (its subcommands' too:
        `serve --revision`, see `model.spelling`); a flag the registry does not have, or a bare
        flag several subcommands have, stops here, at its line."""

        def by_argument(named: tuple[Named, ...], key: str) -> dict[int, str]:
            return {
                id(argument): entry.text
                for entry, argument in resolved(registry, named, key, where)
            }

        self._check_section_titles(registry, where)
        stability = self.stability.canonical(registry, where) if self.stability else None
        return DisplayFacts(
            self,
            by_argument(self.environment.arguments, "environment: arguments"),
            by_argument(self.computed, "computed_defaults"),
            _tags(registry, stability) if stability else {},
            by_argument(self.computed_help, "computed"),
            by_argument(self.computed_choices, "computed"),
        )

    def configured(self) -> set[tuple[str, str]]:
        """(flag, field) of each help, choices or default the configuration gives a text for:
        what the registry computes there reaches no page."""
        return {
            *((n.flag, "help") for n in self.computed_help),
            *((n.flag, "choices") for n in self.computed_choices),
            *((n.flag, "default") for n in self.computed),
        }

    def _check_section_titles(self, registry: Registry, where: str) -> None:
        """Every section `section_titles:` names is a section of the registry (or of one of
        its subcommands): a misspelled one would silently leave the page as it was."""
        known = list(dict.fromkeys(s for each in _registries(registry) for s in each.sections))
        for entry in self.section_titles:
            if entry.flag not in known:
                near = closest(entry.flag, known)
                raise ArgmatrixError.at(
                    f"section_titles: {entry.flag!r} is not a section of the registry",
                    file=where,
                    line=entry.line,
                    fix=f"did you mean {near!r}?"
                    if near
                    else f"name one of its sections ({', '.join(known[:10])})",
                )

    def section_title(self) -> dict[str, str]:
        """`section_titles:` as a mapping, in its order."""
        return {entry.flag: entry.text for entry in self.section_titles}


class DisplayFacts(NamedTuple):
    """`Display` resolved against one registry: keyed by each argument's identity (`serve
    --port` and `bench --port` are two arguments)."""

    display: Display
    variables: dict[int, str]
    computed: dict[int, str]
    stability: dict[int, str]  # id(argument) -> its stability tag, with `stability:`
    help_texts: dict[int, str] = {}  # noqa: RUF012 (a NamedTuple's default, never changed)
    choices_texts: dict[int, str] = {}  # noqa: RUF012

    def help_of(self, argument: Argument) -> str | None:
        """The configuration's text for a help computed at run time (`computed:`), or None."""
        return self.help_texts.get(id(argument))

    def choices_of(self, argument: Argument) -> str | None:
        """The configuration's text for choices computed at run time (`computed:`), or None."""
        return self.choices_texts.get(id(argument))

    def stability_of(self, argument: Argument) -> str:
        """The argument's stability tag; "" when the configuration gives none."""
        return self.stability.get(id(argument), "")

    def variable_of(self, argument: Argument) -> str:
        return self.display.environment.variable_of(argument, self.variables)

    def computed_of(self, argument: Argument) -> str | None:
        return self.computed.get(id(argument))

    @property
    def types(self) -> dict[str, str]:
        return self.display.types


def _tags(registry: Registry, stability: Stability, prefix: str = "") -> dict[int, str]:
    """Each argument's tag, its names prefixed with its subcommands (`serve --port`)."""
    tags = {
        id(a): stability.tag_of(
            tuple(f"{prefix}{f}" for f in a.flags or (a.dest,)), a.section, prefix
        )
        for a in registry.arguments
    }
    for sub in registry.subcommands:
        tags.update(_tags(sub.registry, stability, f"{prefix}{sub.name} "))
    return tags


def resolved(
    registry: Registry, named: tuple[Named, ...], key: str, where: str
) -> list[tuple[Named, Argument]]:
    """Each entry with the argument its flag names (`model.spelling`): a flag that names none,
    or a bare flag several subcommands have, is an error at the entry's line."""
    found = []
    for entry in named:
        argument = spelled_argument(registry, entry.flag, f"{key}: ", where, entry.line)
        found.append((entry, argument))
    return found


def spelled_argument(
    registry: Registry, spelled: str, context: str, where: str, line: int | None
) -> Argument:
    """The argument `spelled` names in the registry, or a located error: it names none (with
    the nearest spelling), or it is a bare flag of several subcommands (with every spelling)."""
    found = find_argument(registry, spelled)
    if found.argument is not None:
        return found.argument
    if found.ambiguous:
        raise ambiguous_flag_error(context, spelled, found.ambiguous, where, line)
    near = closest(spelled, argument_spellings(registry))
    raise ArgmatrixError.at(
        f"{context}{spelled!r} is not an argument of the registry",
        file=where,
        line=line,
        fix=f"did you mean {near!r}?"
        if near
        else "write a flag the registry has, as argparse spells it (a subcommand's as"
        " 'serve --flag'), or drop it",
    )


def _registries(registry: Registry) -> list[Registry]:
    found = [registry]
    for sub in registry.subcommands:
        found.extend(_registries(sub.registry))
    return found


COMPUTED_FIELDS = ("help", "choices", "default")


def _display(data: dict[str, Any], where: str, problems: list[Problem]) -> Display:
    fields = _computed(data, where, problems)
    return Display(
        _environment(data.get("environment"), line_of(data, "environment"), where, problems),
        {n.flag: n.text for n in _texts(data, "types", "converter", where, problems)},
        (*_texts(data, "computed_defaults", "flag", where, problems), *fields["default"]),
        _stability(data, where, problems),
        fields["help"],
        fields["choices"],
        _texts(data, "section_titles", "section", where, problems),
        _prog(data, where, problems),
    )


def _prog(data: dict[str, Any], where: str, problems: list[Problem]) -> str:
    """`prog:`: the program's name, a text on one line."""
    value = data.get("prog")
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip() or has_control(value):
        problems.append(
            Problem(
                f"'prog' must be the program's name on one line, not {_shown(value)}",
                where,
                line_of(data, "prog"),
                "write the name a user types, e.g. 'prog: python -m sglang.launch_server'",
            )
        )
        return ""
    return " ".join(value.split())


def _computed(
    data: dict[str, Any], where: str, problems: list[Problem]
) -> dict[str, tuple[Named, ...]]:
    """`computed:`: flag -> {help, choices, default}, each a text on one line said instead of
    what the registry computes when the server starts."""
    found: dict[str, list[Named]] = {name: [] for name in COMPUTED_FIELDS}
    raw = data.get("computed")
    if raw is None:
        return {name: () for name in COMPUTED_FIELDS}
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                "'computed' must map a flag to its texts",
                where,
                line_of(data, "computed"),
                "write e.g. 'computed: {--tool-call-parser: {help: ..., choices: ...}}'",
            )
        )
        return {name: () for name in COMPUTED_FIELDS}
    for flag, entry in raw.items():
        line = line_of(raw, flag)
        if not isinstance(entry, dict):
            problems.append(
                Problem(
                    f"computed: {_shown(flag)} must map help, choices or default to a text",
                    where,
                    line,
                    "write e.g. '--tool-call-parser: {choices: the installed parsers}'",
                )
            )
            continue
        _unknown_keys(entry, COMPUTED_FIELDS, f"computed: {flag}: ", where, problems)
        for name in COMPUTED_FIELDS:
            if name not in entry:
                continue
            text = entry[name]
            if not isinstance(text, str) or not text.strip() or has_control(text):
                problems.append(
                    Problem(
                        f"computed: {flag}: {name} must be a text on one line, not {_shown(text)}",
                        where,
                        line_of(entry, name) or line,
                        "put the text in quotes",
                    )
                )
                continue
            found[name].append(Named(str(flag), text.strip(), line_of(entry, name) or line))
    return {name: tuple(entries) for name, entries in found.items()}


def _environment(raw: Any, line: int | None, where: str, problems: list[Problem]) -> Environment:
    if raw is None:
        return Environment()
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                "'environment' must be a mapping",
                where,
                line,
                "write e.g. 'environment: {keyword: env_name}' or '{prefix: SGLANG_}'",
            )
        )
        return Environment()
    _unknown_keys(raw, ENVIRONMENT_KEYS, "environment: ", where, problems)
    keyword = raw.get("keyword")
    if keyword is not None and not (isinstance(keyword, str) and keyword.isidentifier()):
        problems.append(
            Problem(
                f"environment: 'keyword' must be a keyword argument's name, not {_shown(keyword)}",
                where,
                line_of(raw, "keyword"),
                "write the add_argument keyword that holds the variable, e.g. 'keyword: env_name'",
            )
        )
        keyword = None
    prefix = raw.get("prefix")
    if prefix is not None and not (isinstance(prefix, str) and _VARIABLE_PREFIX.match(prefix)):
        problems.append(
            Problem(
                f"environment: 'prefix' must start a variable's name, not {_shown(prefix)}",
                where,
                line_of(raw, "prefix"),
                "use letters, digits and '_', e.g. 'prefix: SGLANG_'",
            )
        )
        prefix = None
    arguments = _texts(raw, "arguments", "flag", where, problems, "environment: ")
    return Environment(keyword, prefix, arguments)


def _texts(
    raw: dict[str, Any],
    key: str,
    what: str,
    where: str,
    problems: list[Problem],
    context: str = "",
) -> tuple[Named, ...]:
    """A mapping of names (flags, converters) to short texts: each checked, with its line."""
    value = raw.get(key)
    if value is None:
        return ()
    example = f"'{key}: {{--mem-fraction-static: chosen at start-up}}'"
    if key == "types":
        example = "'types: {str2bool: bool}'"
    if key == "section_titles":
        example = "'section_titles: {options: Server options}'"
    if not isinstance(value, dict):
        problems.append(
            Problem(
                f"{context}'{key}' must map a {what} to a text",
                where,
                line_of(raw, key),
                f"write e.g. {example}",
            )
        )
        return ()
    for name, line in getattr(value, "duplicates", ()):
        problems.append(
            Problem(f"{context}{key}: {name!r} is named twice", where, line, "keep one")
        )
    found = []
    for name, text in value.items():
        line = line_of(value, name)
        if not isinstance(name, str) or not name.strip() or has_control(name):
            problems.append(
                Problem(
                    f"{context}{key}: {_shown(name)} is not a {what}",
                    where,
                    line,
                    f"write e.g. {example}",
                )
            )
        elif not isinstance(text, str) or not text.strip() or has_control(text):
            problems.append(
                Problem(
                    f"{context}{key}: {name} must be a text on one line, not {_shown(text)}",
                    where,
                    line,
                    "put the text in quotes",
                )
            )
        else:
            found.append(Named(name, text.strip(), line))
    return tuple(found)
