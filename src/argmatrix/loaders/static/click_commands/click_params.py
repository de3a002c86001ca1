"""Click's rules for one parameter, applied to the call static reading recorded of it
(`click.option(...)`, `click.argument(...)`, `click.Option([...])`, a `cls=` class of the source):
how `--x/--no-x` splits, which name it gets, which type a default implies, what Click refuses
when the module is imported. Values are shown as the user types them or as Click shows them (an
Enum member by its name, from Click 8.2): anything else static reading cannot compute is kept as
source text and said, naming the flag; a keyword whose value decides what the parameter is
(`required=`, `multiple=`, `nargs=`, `is_flag=`, ...) stops the read at its line instead."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import BOOL, MISSING, STRING, ParamFacts, TypeFacts
from argmatrix.loaders.static.click_commands.click_types import BUILTIN_TYPES, TypeReader
from argmatrix.loaders.static.click_commands.framework_values import FrameworkCall
from argmatrix.loaders.static.python.context import ReadContext
from argmatrix.loaders.static.python.values import (
    REFS,
    BuiltinRef,
    CannotEvaluate,
    EnumMember,
    ExternalRef,
    FunctionRef,
    LambdaRef,
    describe,
    resolve,
    settle,
    short_source,
)
from argmatrix.model.registry import FromEnvironment, SourceLine, Unevaluated

# The option decorators Click derives from `option`: their names and settings when not given.
OPTION_SHORTHANDS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "password_option": (("--password",), {"prompt": True}),
    "confirmation_option": (
        ("--yes",),
        {"is_flag": True, "expose_value": False, "help": "Confirm the action without prompting."},
    ),
}
# Keywords whose value decides what a parameter is: one static reading cannot compute stops
# the read (the model has no place for "not known" there, and a guess would be a wrong page).
DECIDING = (
    "required",
    "multiple",
    "nargs",
    "is_flag",
    "count",
    "hidden",
    "expose_value",
    "deprecated",
    "allow_from_autoenv",
    "is_eager",
)
_LEAVES = (str, int, float, bool, type(None))
_DECIDED = (bool, int, str, type(None))  # what a deciding keyword may be given


@dataclass(frozen=True)
class ClickRules:
    """What the Click static reading follows does where releases differ (read from the Click
    found beside the target, else the newest): 8.2 names Enum members by their name and strips
    `_command`/`_cmd`/`_group`/`_grp` from a command's function name."""

    names_members: bool = True
    strips_suffixes: bool = True

    def member(self, member: EnumMember) -> Any:
        return member.name if self.names_members else str(member)


def installed_rules(loader: ReadContext) -> ClickRules:
    """The rules of the Click found on the read's search path (the one the target imports),
    told by what its source does (read, never imported; its files become inputs of the read,
    so the page cache notices an upgrade); the newest where none is found."""
    decorators = loader.module("click.decorators")
    types = loader.module("click.types")
    if decorators is None or types is None:
        return ClickRules()
    loader.budget.work(len(decorators.text) + len(types.text))
    return ClickRules(
        names_members="def normalize_choice" in types.text,
        strips_suffixes='"cmd"' in decorators.text,
    )


class ParamReader:
    """Reads the parameters of the commands of one read (`loader`), under `rules`."""

    def __init__(self, loader: ReadContext, rules: ClickRules) -> None:
        self.loader = loader
        self.rules = rules

    def report(self, where: tuple[str, int], message: str, stops: bool = False) -> None:
        self.loader.report(where[0], where[1], message, stops)

    # -------------------------------------------------------------- a command's settings

    def envvar_prefix(self, context: Any, where: tuple[str, int], label: str) -> str | None:
        """The `auto_envvar_prefix` of a command's `context_settings`: one static reading cannot
        compute is said (the environment variables it gives are not shown); settings it cannot
        read at all stop the read (what they set is not known)."""
        if context is None:
            return None
        if type(context) is not dict:
            reason = context.reason if type(context) is Unevaluated else describe(context)
            self.report(
                where,
                f"{label}: its context_settings cannot be read statically ({reason}): what"
                " they set (auto_envvar_prefix, default_map) is not known",
                stops=True,
            )
            return None
        prefix = resolve(context.get("auto_envvar_prefix"))
        if prefix is None or type(prefix) is str:
            return prefix
        if type(prefix) is FromEnvironment:
            kept = f"read from ${prefix.variable} when the program runs"
        else:
            text = prefix.source if type(prefix) is Unevaluated else describe(prefix)
            kept = f"kept as source text: `{short_source(text)}`"
        self.report(
            where,
            f"{label}: its auto_envvar_prefix {kept}: the environment variables it gives the"
            " options are not shown",
        )
        return None

    def decided(self, value: Any, where: tuple[str, int], label: str, key: str) -> bool:
        """A command's setting that decides what it is (`hidden=`, `deprecated=`): known, or
        the read stops at it."""
        if value is None or type(value) in (bool, str):
            return bool(value) is True
        self.undecided(where, label, key, key, value)
        return False

    # -------------------------------------------------------------- a parameter

    def param(self, call: FrameworkCall) -> ParamFacts:
        """The parameter a recorded call makes: `click.option(...)` and the other decorators,
        `click.Option([...], ...)`, `click.Argument([...])`."""
        kind = call.name
        where = (str(call.module.path), call.node.lineno)
        if kind in ("Option", "Argument"):
            given = resolve(call.args[0]) if call.args else call.kwargs.get("param_decls")
            decls: list[Any] = list(given) if type(given) in (list, tuple) else []  # type: ignore[arg-type]
            attrs = dict(call.kwargs)
            attrs.pop("param_decls", None)
            kind = kind.lower()
        else:
            decls, attrs = list(call.args), dict(call.kwargs)
        if kind == "version_option":
            decls = decls[1:] or ["--version"]
            attrs.setdefault("is_flag", True)
            attrs.setdefault("expose_value", False)
            attrs.setdefault("help", "Show the version and exit.")
        elif kind in OPTION_SHORTHANDS:
            shorthand, settings = OPTION_SHORTHANDS[kind]
            decls = decls or list(shorthand)
            for key, value in settings.items():
                attrs.setdefault(key, value)
        names = [resolve(d) for d in decls]
        if any(type(d) is not str for d in names):
            raise _unreadable(where, "the parameter's names")
        settled = {k: settle(resolve(v)) for k, v in attrs.items()}
        label = _label(names, kind)
        source = call.keyword_source
        for key in DECIDING:
            if key in settled and type(settled[key]) not in _DECIDED:
                self.undecided(where, label, key, source(key), settled[key])
        if kind == "argument":
            return self._argument(names, settled, call, where)
        return self._option(names, settled, call, where, version=kind == "version_option")

    def undecided(
        self, where: tuple[str, int], label: str, key: str, source: str, value: Any
    ) -> None:
        """A keyword that decides what the parameter is, whose value static reading cannot
        compute (or which only the running program has: read from the environment)."""
        if type(value) is Unevaluated:
            reason = f" ({value.reason})" if value.reason else ""
        elif type(value) is FromEnvironment:
            reason = f" (it is read from ${value.variable} when the program runs)"
        else:
            reason = f" ({describe(value)} is not a value of it)"
        self.report(
            where,
            f"{label}: `{key}=` cannot be computed statically: `{short_source(source)}`{reason};"
            f" what the parameter is depends on it",
            stops=True,
        )

    def _type(
        self, call: FrameworkCall, attrs: dict[str, Any], label: str, where: tuple[str, int]
    ) -> TypeFacts | None:
        if "type" not in attrs or attrs["type"] is None:
            return None
        reader = TypeReader(
            self.loader.budget, label, where, lambda m: self.report(where, m), _member_name
        )
        facts = reader.facts(attrs["type"], call.keyword_source("type"))
        if reader.arity is not None and attrs.get("nargs") is None:
            attrs["nargs"] = reader.arity  # Click: a composite type's arity is its nargs
        return facts

    def _option(
        self,
        decls: list[str],
        attrs: dict[str, Any],
        call: FrameworkCall,
        where: tuple[str, int],
        version: bool = False,
    ) -> ParamFacts:
        name, opts, secondary = option_decls(decls)
        label = model_name([*opts, *secondary], name or "?")
        _refuse_option(decls, name, opts, secondary, attrs, label, where)
        type_ = self._type(call, attrs, label, where)
        default = self.default(attrs, label, call, where)
        flag_value = attrs.get("flag_value", MISSING)
        if flag_value is not MISSING:
            flag_value = self.shown(
                flag_value, call.keyword_source("flag_value"), label, "flag_value", where
            )
        count = attrs.get("count") is True
        is_flag = attrs.get("is_flag")
        if is_flag is None:
            is_flag = flag_value is not MISSING or bool(secondary)
        if type_ is None:
            if count:
                type_ = TypeFacts("IntRange", "integer range", min=0)
            elif is_flag and (flag_value is MISSING or type(flag_value) is bool):
                type_ = BOOL
            elif is_flag:
                type_ = guessed_type(flag_value)
            else:
                type_ = self.inferred_type(default, label, where)
        nargs = attrs.get("nargs")
        if nargs is None:
            nargs = len(type_.items) if type_.param_type == "Tuple" else 1
        if nargs == -1:
            raise _refused(where, label, "nargs=-1 is not supported for options")
        if count and default is MISSING:
            default = 0
        return ParamFacts(
            origin=SourceLine(*where),
            kind="option",
            name=name or "",
            opts=tuple(opts),
            secondary_opts=tuple(secondary),
            type=type_,
            required=attrs.get("required") is True,
            nargs=nargs if type(nargs) is int else 1,
            multiple=attrs.get("multiple") is True,
            default=default,
            envvar=self.envvar(attrs.get("envvar"), call.keyword_source("envvar"), label, where),
            help=_deprecated_help(
                self.help(attrs.get("help"), call.keyword_source("help"), label, where), attrs
            ),
            hidden=attrs.get("hidden") is True,
            is_flag=bool(is_flag),
            flag_value=flag_value,
            count=count,
            show_default=self._show_default(attrs, call, label, where),
            metavar=self._metavar(attrs, call, label, where),
            allow_from_autoenv=attrs.get("allow_from_autoenv", True) is not False,
            deprecated=bool(attrs.get("deprecated")) is True,
            version=version,
        )

    def _argument(
        self, decls: list[str], attrs: dict[str, Any], call: FrameworkCall, where: tuple[str, int]
    ) -> ParamFacts:
        if len(decls) != 1:
            raise ArgmatrixError.at(
                f"a Click argument takes one name, this one has {len(decls)}",
                file=where[0],
                line=where[1],
                fix="give the argument one name, as Click requires",
            )
        name = decls[0].replace("-", "_").lower()
        if "multiple" in attrs:
            raise _refused(where, name, "an argument takes no `multiple=` (use nargs=-1)")
        type_ = self._type(call, attrs, name, where)
        default = self.default(attrs, name, call, where)
        nargs = attrs.get("nargs")
        if type_ is None:
            type_ = self.inferred_type(default, name, where)
        if nargs is None:
            nargs = len(type_.items) if type_.param_type == "Tuple" else 1
        nargs = nargs if type(nargs) is int else 1
        required = attrs.get("required")
        if required is None:
            required = default is MISSING and nargs > 0
        return ParamFacts(
            origin=SourceLine(*where),
            kind="argument",
            name=name,
            opts=(decls[0],),
            type=type_,
            required=required is True,
            nargs=nargs,
            multiple=False,
            default=default,
            envvar=self.envvar(attrs.get("envvar"), call.keyword_source("envvar"), name, where),
            help=_deprecated_help(
                self.help(attrs.get("help"), call.keyword_source("help"), name, where), attrs
            ),
            hidden=attrs.get("hidden") is True,
            metavar=self._metavar(attrs, call, name, where),
            deprecated=bool(attrs.get("deprecated")) is True,
        )

    # -------------------------------------------------------------- values

    def default(
        self, attrs: dict[str, Any], label: str, call: FrameworkCall, where: tuple[str, int]
    ) -> Any:
        """The default as written; a function is computed when the command runs (its name,
        as live reading names it); a value only running would tell is its source text."""
        if "default" not in attrs:
            return MISSING
        value = resolve(attrs["default"])
        if type(value) in (FunctionRef, LambdaRef, BuiltinRef):
            return self.computed(value, label, where)
        return self.shown(value, call.keyword_source("default"), label, "default", where)

    def computed(self, function: Any, label: str, where: tuple[str, int]) -> Unevaluated:
        """A callable default, computed when the command runs: its name, as live reading names
        it, said as live reading says it."""
        kind = type(function)
        if kind is FunctionRef:
            name = function.node.name
        elif kind is LambdaRef:
            name = "<lambda>"
        elif kind is BuiltinRef:
            name = function.name
        elif kind is ExternalRef:
            name = function.short
        else:
            name = short_source(function.source) if kind is Unevaluated else "default_factory"
        kept = Unevaluated(f"{name}()", "a callable default, computed when the command runs")
        self.report(where, f"{label}: default kept as source text: `{kept.source}` ({kept.reason})")
        return kept

    def shown(self, value: Any, source: str, label: str, what: str, where: tuple[str, int]) -> Any:
        """`value` as a page shows it: plain data, an Enum member as Click shows it; anything
        else static reading computed (a class, a function, a name of another package) or could
        not compute is kept as its source text, and said."""
        if what == "default" and type(resolve(value)) is FromEnvironment:
            return resolve(value)  # a fact the pages state: "d, or $X when set"
        try:
            return self._plain(value, 0)
        except _NotPlain as exc:
            kept = exc.kept if exc.kept is not None else Unevaluated(source, exc.reason)
            if kept.source == source or type(value) is not Unevaluated:
                kept = Unevaluated(source, kept.reason)
            reason = f" ({kept.reason})" if kept.reason else ""
            self.report(
                where, f"{label}: {what} kept as source text: `{short_source(source)}`{reason}"
            )
            return kept

    def _plain(self, value: Any, depth: int) -> Any:
        value = resolve(value)
        kind = type(value)
        if kind in _LEAVES:
            return value
        if kind is EnumMember:
            return self.rules.member(value)
        if kind is Unevaluated:
            raise _NotPlain(value.reason, value)
        if kind in (list, tuple, set, frozenset) and depth < 16:
            items = [self._plain(v, depth + 1) for v in value]
            return items if kind is list else tuple(items) if kind is tuple else kind(items)
        if kind is dict and depth < 16:
            return {self._plain(k, depth + 1): self._plain(v, depth + 1) for k, v in value.items()}
        raise _NotPlain(_why_not_plain(self.loader, value))

    def inferred_type(self, default: Any, label: str, where: tuple[str, int]) -> TypeFacts:
        """The type Click gives a parameter from its default when it is given none; from a
        default only running would tell, not known: said, and no type is claimed."""
        if type(default) is Unevaluated and not default.reason.startswith("a callable default"):
            self.report(
                where,
                f"{label}: its type is the one Click infers from its default, which static"
                " reading cannot compute: it is shown as the type of that default's source",
            )
            text = f"type({short_source(default.source)})"
            return TypeFacts(text, text)
        return guessed_type(default)

    def envvar(self, value: Any, source: str, label: str, where: tuple[str, int]) -> Any:
        if value is None:
            return None
        value = self.shown(value, source, label, "envvar", where)
        if type(value) in (list, tuple):
            return tuple(v for v in value if type(v) is str)
        return value if type(value) in (str, Unevaluated) else None

    def help(self, value: Any, source: str, label: str, where: tuple[str, int]) -> Any:
        if value is None:
            return None
        value = self.shown(value, source, label, "help", where)
        if type(value) is str:
            return inspect.cleandoc(value)
        return value if type(value) is Unevaluated else None

    def _show_default(
        self, attrs: dict[str, Any], call: FrameworkCall, label: str, where: tuple[str, int]
    ) -> Any:
        value = attrs.get("show_default")
        if type(value) is Unevaluated:
            self.report(
                where,
                f"{label}: show_default not followed: `{short_source(call.keyword_source('show_default'))}`"
                " cannot be computed statically",
            )
            return None
        return value if type(value) in (bool, str, type(None)) else None

    def _metavar(
        self, attrs: dict[str, Any], call: FrameworkCall, label: str, where: tuple[str, int]
    ) -> str | None:
        value = attrs.get("metavar")
        if value is None or type(value) is str:
            return value
        self.report(
            where,
            f"{label}: metavar not shown: `{short_source(call.keyword_source('metavar'))}`"
            " cannot be computed statically",
        )
        return None


def _member_name(member: EnumMember) -> str:
    """An Enum member among a Choice's choices, as live reading names it (Click 8.2 reads it
    by its name; Click 8.1 cannot show or parse such a Choice at all)."""
    return member.name


class _NotPlain(Exception):
    def __init__(self, reason: str, kept: Unevaluated | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kept = kept


def _why_not_plain(loader: ReadContext, value: Any) -> str:
    """Why a value static reading computed is not one a page can show: for a name of another
    module of the package, why that module's value is not known."""
    if type(value) is ExternalRef:
        module, _, name = value.dotted.rpartition(".")
        source = loader.module(module) if module and loader.in_package(module) else None
        if source is not None and not source.is_stub:
            try:
                source.global_value(name)
            except CannotEvaluate as exc:
                return f"`{value.dotted}`: {exc.reason}"
        return f"`{value.dotted}` is not read from source"
    if isinstance(value, REFS) or type(value) is FrameworkCall:
        return f"{describe(value)} is an object only running the program makes"
    return f"{describe(value)} is not a value a page can show"


def _label(names: list[str], kind: str) -> str:
    if kind == "argument":
        return names[0].replace("-", "_").lower() if names else "an argument"
    name, opts, secondary = option_decls(names)
    return model_name([*opts, *secondary], name or (names[0] if names else "an option"))


def model_name(flags: list[str], dest: str) -> str:
    """How the model names the argument (`Argument.name`): its first long flag, else its first
    flag, else its name; what is said of it says it so, in both modes."""
    return next((f for f in flags if f.startswith("--")), flags[0] if flags else dest)


def _refuse_option(
    decls: list[str],
    name: str | None,
    opts: list[str],
    secondary: list[str],
    attrs: dict[str, Any],
    label: str,
    where: tuple[str, int],
) -> None:
    """What Click refuses when it makes the option (at import: the module does not load)."""
    if name is not None and not opts and not secondary:
        raise _refused(
            where,
            repr(name),
            f"no option names, only the name {name!r} (an argument, or '--{name}'?)",
        )
    if name is None and attrs.get("expose_value", True) is not False:
        raise _refused(where, label, f"no name can be made of {decls!r}")
    identifiers = [d for d in decls if d.isidentifier()]
    if len(identifiers) > 1:
        raise _refused(where, label, f"the name {identifiers[0]!r} is given twice")
    if attrs.get("count") is True and attrs.get("multiple") is True:
        raise _refused(where, label, "'count' is not valid with 'multiple'")
    if attrs.get("count") is True and attrs.get("is_flag") is True:
        raise _refused(where, label, "'count' is not valid with 'is_flag'")


def _refused(where: tuple[str, int], label: str, what: str) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"Click refuses the option {label}: {what}; importing the module fails there",
        file=where[0],
        line=where[1],
        fix="declare the option as Click accepts it",
    )


def guessed_type(default: Any) -> TypeFacts:
    """The type Click gives a parameter from its default when it is given none (from the
    value a default read from the environment has when the variable is unset)."""
    if type(default) is FromEnvironment:
        return guessed_type(default.otherwise)
    if default is MISSING or default is None or type(default) is Unevaluated:
        return STRING
    if type(default) in (list, tuple):
        if not default:
            return STRING
        item = default[0]
        if type(item) in (list, tuple):
            items = tuple(BUILTIN_TYPES.get(type(v).__name__, STRING) for v in item)
            return TypeFacts("Tuple", "<" + " ".join(i.name for i in items) + ">", items=items)
        return BUILTIN_TYPES.get(type(item).__name__, STRING)
    return BUILTIN_TYPES.get(type(default).__name__, STRING)


def option_decls(decls: list[str]) -> tuple[str | None, list[str], list[str]]:
    """Click's `Option._parse_decls`: the name, the options and the secondary options."""
    opts: list[str] = []
    secondary: list[str] = []
    name: str | None = None
    possible: list[tuple[str, str]] = []
    for decl in decls:
        if decl.isidentifier():
            name = name or decl
            continue
        split = ";" if decl[:1] == "/" else "/"
        if split in decl:
            first, second = decl.split(split, 1)
            first = first.rstrip()
            if first:
                possible.append(_split_opt(first))
                opts.append(first)
            second = second.lstrip()
            if second:
                secondary.append(second.lstrip())
        else:
            possible.append(_split_opt(decl))
            opts.append(decl)
    if name is None and possible:
        possible.sort(key=lambda x: -len(x[0]))
        name = possible[0][1].replace("-", "_").lower()
        if not name.isidentifier():
            name = None
    return name, opts, secondary


def _split_opt(opt: str) -> tuple[str, str]:
    first = opt[:1]
    if first.isalnum():
        return "", opt
    if opt[1:2] == first:
        return opt[:2], opt[2:]
    return first, opt[1:]


def _deprecated_help(help_: Any, attrs: dict[str, Any]) -> Any:
    """Click (8.2 and later) says a deprecated parameter is so at the end of its help."""
    deprecated = attrs.get("deprecated")
    if not (deprecated is True or (type(deprecated) is str and deprecated)):
        return help_
    label = f"(DEPRECATED: {deprecated})" if type(deprecated) is str else "(DEPRECATED)"
    if type(help_) is Unevaluated:
        return help_
    return f"{help_} {label}" if help_ else label


def _unreadable(where: tuple[str, int], what: str) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"cannot read {short_source(what)} of a Click parameter statically",
        file=where[0],
        line=where[1],
        fix="spell the parameter's names and keywords out, or load the registry live",
    )


Say = Callable[[str], None]
