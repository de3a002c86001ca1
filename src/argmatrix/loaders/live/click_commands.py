"""Live reading of a Click command, a Click group or a Typer app: the object the module defines
is read, never run.

A Click command is callable, and calling it parses `sys.argv` and runs its body (a server would
start). So a target that is a Click `Command` or `Group`, a Typer app (read as
`typer.main.get_command` builds it, which runs none of its callbacks), or a function a Typer app
registers is read from the object; and while any other target runs, a Click command asked to
parse or run in any of the ways Click offers (`cli()`, `Command.main`, `make_context`,
`parse_args`, `Command.invoke`, `Context.invoke` and `Context.forward`, and a Typer app called,
which `typer.run` does too) stops it, as `parse_args` stops an argparse builder: that command is
the registry. Click as Typer vendors it (`typer._click`) is met the same way as Click itself;
what Typer adds (recognising its apps, building their command, its parameters' types) is in
`typer_apps.py`.
"""

from __future__ import annotations

import enum
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import MISSING, TYPE_NAMES, CommandFacts, ParamFacts, TypeFacts
from argmatrix.loaders.live.typer_apps import (
    TYPER_COMPLETION,
    TYPER_MAIN,
    as_typer_run,
    classes_of,
    enum_value,
    is_typer_app,
    made_by_typer,
    markup_mode,
    registered_command,
    typer_command,
    typer_signature,
    typer_type_facts,
    writes_own_usage,
)
from argmatrix.model.registry import Diagnostic, SourceLine, Unevaluated

# Click's types argmatrix knows by name: those the model names (`TYPE_NAMES`), and a Tuple.
TYPE_NAMES_KNOWN = frozenset({*TYPE_NAMES, "Tuple"})

# The modules that define Click's Command: Click's own, and the copy Typer 0.2x vendors.
CLICK_CORES = ("click.core", "typer._click.core")
_COMMAND_CLASSES = ("Command", "BaseCommand")
# The ways a Click command is parsed or run, by the classes that define them: Click's own
# (Click 8.1's BaseCommand and MultiCommand too), Typer's, which override `main`, and a Typer
# app's call. Each stops the read where it is defined: a subclass of the project's own reaches
# one of them before its body runs.
_CLICK_CLASSES = (
    "Context",
    "BaseCommand",
    "Command",
    "MultiCommand",
    "Group",
    "CommandCollection",
)
_STOPS: dict[str, tuple[str, ...]] = {
    "click.core": _CLICK_CLASSES,
    "typer._click.core": _CLICK_CLASSES,
    "typer.core": ("TyperCommand", "TyperGroup"),
    TYPER_MAIN: ("Typer",),
}
_STOP_METHODS = ("__call__", "main", "make_context", "parse_args", "invoke", "forward")
# `main()`'s own parameters; every other keyword is a setting of the context it makes.
_MAIN_PARAMETERS = frozenset(
    {"args", "prog_name", "complete_var", "standalone_mode", "windows_expand_args"}
)
_MAKE_CONTEXT_PARAMETERS = frozenset({"info_name", "args", "parent"})
# Where Click defines its own help option (`help_option`, `HelpOption`): a parameter whose
# callback is defined there is Click's help, left out as argparse's --help is.
_HELP_MODULES = ("click.decorators", "typer._click.decorators")


class ClickCaptured(BaseException):
    """A Click command asked to parse its command line while the target ran: it is the
    registry. A BaseException, so the target's own `except Exception` does not swallow it."""

    def __init__(self, command: Any, settings: dict[str, Any]) -> None:
        super().__init__()
        self.command = command
        self.settings = settings  # what `main()` was given (`auto_envvar_prefix=...`)


# ------------------------------------------------------------------ what a target is


def is_click_command(obj: Any) -> bool:
    return any(m in CLICK_CORES and n in _COMMAND_CLASSES for m, n in classes_of(obj))


def framework_command(obj: Any, module: ModuleType, target: str) -> Any | None:
    """The Click command a target names, without running it: a Click command or group, a
    Typer app, a function a Typer app of the module registers, or a function written for
    `typer.run` (read as `typer.run` would build it). None: not a Click or Typer target.
    A function carrying `@click.option` decorators without `@click.command` is refused."""
    if is_click_command(obj):
        return obj
    if is_typer_app(obj):
        return typer_command(obj, target)
    if not inspect.isfunction(obj):
        return None
    registered = registered_command(obj, module, target)
    if registered is not None:
        return registered
    if getattr(obj, "__click_params__", None):
        raise ArgmatrixError.at(
            f"{target} has @click.option decorators but no @click.command: it is not a command yet",
            file=getattr(module, "__file__", None),
            line=_line_of(obj),
            fix="name the command the decorators are applied to (the function under"
            " @click.command or @group.command)",
        )
    if typer_signature(obj):
        return as_typer_run(obj, target)
    return None


def _line_of(obj: Any) -> int | None:
    code = getattr(obj, "__code__", None)
    return code.co_firstlineno if code is not None else None


# ------------------------------------------------------------------ stopping at the parse


# What a stop is given: the command (or Typer app) asked to parse or run, the settings of the
# context it would make (`auto_envvar_prefix=`, `default_map=`), and the frame that asked.
OnStop = Callable[[Any, dict[str, Any], Any], Any]


@contextmanager
def click_parse_captured(on_stop: OnStop | None = None) -> Iterator[None]:
    """While the block runs, a Click command asked to parse or run calls `on_stop`, which ends
    the read (without it, it raises `ClickCaptured` with the command): in Click loaded now, and
    in Click, Typer's copy or Typer imported in the block."""
    patched: list[tuple[type, str, Any]] = []

    def stopping(method: str) -> Callable[..., Any]:
        def stop(self: Any, *args: Any, **kwargs: Any) -> Any:
            found, settings = _stopped(self, method, args, kwargs)
            if on_stop is not None:
                on_stop(found, settings, sys._getframe(1))
            if is_typer_app(found):
                found = typer_command(found, getattr(found.info, "name", None) or "the app")
            raise ClickCaptured(found, settings)

        return stop

    def patch(module: ModuleType) -> None:
        for name in _STOPS[module.__name__]:
            cls = vars(module).get(name)  # not getattr: Click 8.2+ warns for BaseCommand
            if not isinstance(cls, type):
                continue
            for method in _STOP_METHODS:
                if method in vars(cls):
                    patched.append((cls, method, vars(cls)[method]))
                    setattr(cls, method, stopping(method))

    for name in _STOPS:
        if name in sys.modules:
            patch(sys.modules[name])
    watcher = _ImportWatcher(tuple(_STOPS), patch)
    sys.meta_path.insert(0, watcher)
    try:
        yield
    finally:
        if watcher in sys.meta_path:
            sys.meta_path.remove(watcher)
        for cls, method, original in reversed(patched):
            setattr(cls, method, original)


def _stopped(
    obj: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The command (or Typer app) a stopped call would parse or run, and the settings of its
    context: `main()`'s and a call's extra keywords, `make_context`'s, or the context's own."""
    if method in ("main", "__call__"):
        return obj, {k: v for k, v in kwargs.items() if k not in _MAIN_PARAMETERS}
    if method == "make_context":
        return obj, {k: v for k, v in kwargs.items() if k not in _MAKE_CONTEXT_PARAMETERS}
    if is_click_command(obj):  # parse_args(ctx, args), invoke(ctx)
        context = args[0] if args else kwargs.get("ctx")
        return obj, _context_settings(context)
    # Context.invoke(callback or command, ...), Context.forward(command, ...)
    given = args[0] if args else None
    command = given if is_click_command(given) else getattr(obj, "command", None)
    return command, _context_settings(obj)


def _context_settings(context: Any) -> dict[str, Any]:
    settings = {}
    for name in ("auto_envvar_prefix", "default_map"):
        value = getattr(context, name, None)
        if value is not None:
            settings[name] = value
    return settings


class _ImportWatcher(importlib.abc.MetaPathFinder):
    """Calls `then(module)` once one of `names` has been imported (Click imported by the
    target itself, after the capture began)."""

    def __init__(self, names: Sequence[str], then: Callable[[ModuleType], None]) -> None:
        self.names = set(names)
        self.then = then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                self._watch(spec.loader)
                return spec
        return None

    def _watch(self, loader: Any) -> None:
        execute, then = loader.exec_module, self.then

        def exec_module(module: ModuleType) -> None:
            execute(module)
            then(module)

        loader.exec_module = exec_module


def runner_warning(found: Any, target: str, module_name: str, frame: Any) -> Diagnostic:
    """What is said of a target that is a function (or a script) running a Click command or a
    Typer app, at the line running it: its code before that ran, and the object to name instead,
    which live reading reads without running anything."""
    name = _name_of(found, frame, module_name)
    what = "Typer app" if is_typer_app(found) else "Click command"
    shown = f" {found.name!r}" if isinstance(getattr(found, "name", None), str) else ""
    instead = f"name {name} as the registry target" if name else "name the command object"
    return Diagnostic(
        frame.f_code.co_filename if frame is not None else "<live>",
        frame.f_lineno if frame is not None else None,
        f"{target} runs the {what}{shown} here, so live reading ran {target}'s code up to this"
        " call (whatever it does first, such as an update check, ran too); "
        f"{instead} instead: live reading reads a command object without running any of its code",
    )


def _name_of(found: Any, frame: Any, module_name: str) -> str | None:
    """`module:name` of a module-level name bound to `found`: in the module of the code that
    ran it, the target's module, or the module defining its callback."""
    callback = getattr(found, "callback", None)
    scopes: list[tuple[str, dict[str, Any]]] = []
    if frame is not None:
        spec = frame.f_globals.get("__spec__")
        owner = getattr(spec, "name", None) or frame.f_globals.get("__name__")
        if isinstance(owner, str):
            scopes.append((owner, frame.f_globals))
    for name in (module_name, getattr(callback, "__module__", None)):
        if isinstance(name, str) and name in sys.modules:
            scopes.append((name, vars(sys.modules[name])))
    for owner, names in scopes:
        for attr, value in list(names.items()):
            if value is found and not attr.startswith("_") and owner != "__main__":
                return f"{owner}:{attr}"
    return None


# ------------------------------------------------------------------ the facts of a command


def command_facts(
    command: Any,
    name: str | None = None,
    settings: dict[str, Any] | None = None,
    above: tuple[int, ...] = (),
    parent: Any = None,
) -> CommandFacts:
    """What the converter needs of a Click command object, read from its attributes (the
    same on Click 8.1 to 8.5 and on Typer's copy), with what Click decides at run time: the
    subcommands a group lists (`list_commands`) and runs when one is selected
    (`resolve_command`: a placeholder loads its real command), the defaults its context's
    `default_map` gives. `settings`: what `main()` was given; `above`: the groups it is in (a
    group inside itself would have no end); `parent`: the context of the group it is in."""
    if id(command) in above:
        raise ArgmatrixError.at(
            f"the Click group {command.name!r} contains itself (as {name!r})",
            fix="remove the add_command that adds a group to itself or to a group inside it",
        )
    context = dict(getattr(command, "context_settings", None) or {})
    context.update(settings or {})
    prefix = context.get("auto_envvar_prefix")
    ctx = _context(command, name, parent, settings or {})
    defaults = getattr(ctx, "default_map", None)
    is_group = isinstance(getattr(command, "commands", None), dict)
    return CommandFacts(
        name=name or command.name or "",
        help=_text(getattr(command, "help", None)),
        short_help=_text(getattr(command, "short_help", None)),
        params=tuple(
            param_facts(p, defaults, _origin(command)) for p in command.params if not _plumbing(p)
        ),
        is_group=is_group,
        subcommands=tuple(_subcommands(command, ctx, (*above, id(command)))) if is_group else (),
        auto_envvar_prefix=prefix if isinstance(prefix, str) else None,
        hidden=bool(getattr(command, "hidden", False)),
        deprecated=bool(getattr(command, "deprecated", False)),
        epilog=_text(getattr(command, "epilog", None)),
        options_metavar=_text(getattr(command, "options_metavar", None)),
        subcommand_metavar=_text(getattr(command, "subcommand_metavar", None))
        if is_group
        else None,
        chain=bool(getattr(command, "chain", False)),
        invoke_without_command=bool(getattr(command, "invoke_without_command", False)),
        markup=markup_mode(command),
    )


def _context(command: Any, name: str | None, parent: Any, settings: dict[str, Any]) -> Any:
    """The context Click makes for the command when it runs (its `context_settings`, and what
    `main()` was given), without parsing anything: what the group lists and selects, and the
    `default_map` the parent's passes down, come from it. None where it cannot be made."""
    make = getattr(command, "context_class", None)
    if make is None:
        return None
    extra = {**(getattr(command, "context_settings", None) or {}), **settings}
    try:
        return make(command, info_name=name or command.name, parent=parent, **extra)
    except Exception:  # a context class of the project's that wants more: none
        return None


_CLICK_DEFINED = frozenset({"click.core", "typer._click.core", "typer.core"})


def _own(command: Any, method: str) -> bool:
    """Whether the project's own class defines `method` (Click's and Typer's do not count)."""
    for cls in type(command).__mro__:
        if method in vars(cls):
            return cls.__module__ not in _CLICK_DEFINED
    return False


def _subcommands(
    group: Any, ctx: Any, above: tuple[int, ...]
) -> Iterator[tuple[str, CommandFacts]]:
    """A group's subcommands as Click lists them for `--help` (`list_commands`, where the
    project defines it: a lazy group; else in the order they were registered), each as the
    group runs it when it is selected, with the other names the group accepts for it. A name
    the group lists but gives no command for is left out, as Click's help does."""
    commands: dict[str, Any] = group.commands
    names = (
        list(group.list_commands(ctx)) if _own(group, "list_commands") and ctx else list(commands)
    )
    for name in dict.fromkeys(names):
        if not isinstance(name, str):
            raise _not_a_name(group, name, commands.get(name))
        command = _selected(group, ctx, name)
        if command is None:
            continue
        facts = command_facts(command, name, above=above, parent=ctx)
        aliases = tuple(
            a for a in _alias_names(commands, name) if _selected(group, ctx, a) is command
        )
        yield name, replace(facts, aliases=aliases) if aliases else facts


def _not_a_name(group: Any, name: Any, command: Any) -> ArgmatrixError:
    """A command registered under something else than a text (`name=os.cpu_count()`): Click's
    own help fails on it."""
    where = _origin(command) if command is not None else None
    return ArgmatrixError.at(
        f"the Click group {group.name!r} registers a command under {name!r}, which is not a"
        " name: Click's help fails on it",
        file=where.file if where is not None else None,
        line=where.line if where is not None else None,
        fix="register the command under a text (name=...)",
    )


def _selected(group: Any, ctx: Any, name: str) -> Any:
    """The command the group runs for `name`: what its own `resolve_command` gives (a
    placeholder command loading the real one), else its `get_command`, else the one
    registered under that name."""
    if ctx is not None and _own(group, "resolve_command"):
        try:
            return group.resolve_command(ctx, [name])[1]
        except Exception:  # it refuses the name: as listed, through get_command
            pass
    if ctx is not None and _own(group, "get_command"):
        try:
            return group.get_command(ctx, name)
        except Exception:
            return None
    return group.commands.get(name)


def _alias_names(commands: dict[str, Any], name: str) -> list[str]:
    """The other names of a command registered as `"name | alias"` (and listed as `name`)."""
    found = []
    for key in commands:
        parts = [part.strip() for part in key.split("|")]
        if len(parts) > 1 and parts[0] == name:
            found += [part for part in parts[1:] if part]
    return found


def _origin(command: Any) -> SourceLine | None:
    """Where the command's function is defined: where its parameters are declared, near
    enough for a finding or a warning about one of them (a live read knows no decorator's
    line)."""
    callback = getattr(command, "callback", None)
    try:
        function = inspect.unwrap(callback) if callback is not None else None
    except ValueError:
        return None
    code = getattr(function, "__code__", None)
    if code is None or code.co_filename.startswith(_framework_packages()):
        return None
    return SourceLine(code.co_filename, code.co_firstlineno)


def _framework_packages() -> tuple[str, ...]:
    """The folders of Click and Typer, as imported: their own functions are no place of the
    project's."""
    folders = []
    for name in ("click", "typer"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(file, str):
            folders.append(str(Path(file).parent) + os.sep)
    return tuple(folders)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _plumbing(param: Any) -> bool:
    """Click's help option (`help_option`, Click 8.1's `HelpOption`) and Typer's completion
    options: a command line's own machinery, left out as argparse's `--help` is. Known by
    where Click or Typer defines them, never by a name a project's own option may have."""
    callback = getattr(param, "callback", None)
    if getattr(callback, "__module__", None) in _HELP_MODULES and str(
        getattr(callback, "__qualname__", "")
    ).startswith(("help_option.", "HelpOption.")):
        return True
    if any(m in _HELP_MODULES and n == "HelpOption" for m, n in classes_of(param)):
        return True
    if _option_group_package(param) and type(param).__name__ == "_GroupTitleFakeOption":
        return True  # click-option-group's stand-in for a group's title in the help
    return (
        not getattr(param, "expose_value", True)
        and param.name in TYPER_COMPLETION
        and str(getattr(callback, "__module__", "")).startswith("typer.")
    )


def _unset(value: Any) -> bool:
    """Click's `UNSET` sentinel (8.3 and later, and Typer's copy)."""
    return type(value).__name__ == "Sentinel" and getattr(value, "name", "") == "UNSET"


def _raw(value: Any) -> Any:
    return MISSING if _unset(value) else value


def param_facts(param: Any, defaults: Any = None, origin: SourceLine | None = None) -> ParamFacts:
    """One parameter; its default as the command's `default_map` sets it, where it does."""
    kind = "argument" if param.param_type_name == "argument" else "option"
    envvar = param.envvar
    default = param.default
    if isinstance(defaults, dict) and param.name in defaults:
        default = defaults[param.name]
    return ParamFacts(
        kind=kind,
        name=param.name or "",
        opts=tuple(param.opts),
        secondary_opts=tuple(param.secondary_opts),
        type=type_facts(param.type) if hasattr(param, "type") else typer_type_facts(param),
        required=bool(param.required),
        nargs=int(param.nargs),
        multiple=bool(param.multiple),
        default=enum_value(_default(default))
        if made_by_typer(param)
        else _shown(_default(default)),
        envvar=tuple(envvar) if isinstance(envvar, (list, tuple)) else envvar,
        help=_text(getattr(param, "help", None)),
        hidden=bool(getattr(param, "hidden", False)),
        is_flag=bool(getattr(param, "is_flag", False)),
        flag_value=_raw(getattr(param, "flag_value", MISSING)),
        count=bool(getattr(param, "count", False)),
        show_default=getattr(param, "show_default", None),
        metavar=param.metavar,
        allow_from_autoenv=bool(getattr(param, "allow_from_autoenv", True)),
        deprecated=bool(getattr(param, "deprecated", False)),
        version=_is_version_option(param),
        panel=_text(getattr(param, "rich_help_panel", None)) or _option_group(param),
        typer_usage=kind == "argument" and writes_own_usage(param),
        origin=origin,
    )


# The packages that give Click option groups (their groups are the command's sections).
_OPTION_GROUP_PACKAGES = frozenset({"click_option_group", "cloup"})


def _option_group_package(value: Any) -> bool:
    return type(value).__module__.split(".", 1)[0] in _OPTION_GROUP_PACKAGES


def _option_group(param: Any) -> str | None:
    """The section an option-group package puts the option in: click-option-group's
    `@optgroup.group("Server configuration")` (its `name`), cloup's `@option_group("Global
    options:", ...)` (its `title`, without the colon a help writes after it)."""
    group = getattr(param, "group", None)
    if group is None or not _option_group_package(group):
        return None
    title = getattr(group, "title", None) or getattr(group, "name", None)
    text = _text(title)
    return text.strip().removesuffix(":").strip() or None if text else None


def _default(value: Any) -> Any:
    """A callable default is computed when the command runs: its name, as static reading
    names it (`<lambda>` for a lambda)."""
    if _unset(value):
        return MISSING
    if callable(value) and not isinstance(value, type):
        name = getattr(value, "__name__", type(value).__name__)
        return Unevaluated(f"{name}()", "a callable default, computed when the command runs")
    return value


def _enum_name(value: Any) -> Any:
    """Click (8.2 and later) reads an enum choice by its member's name."""
    return value.name if isinstance(value, enum.Enum) else value


def _shown(value: Any) -> Any:
    """A default as Click shows it: an enum member by its name (Click 8.2 and later, whose
    Choice reads members by name; 8.1 shows `Class.member`), in a list or tuple too."""
    if isinstance(value, enum.Enum):
        return value.name if _click_names_members() else value
    if isinstance(value, (list, tuple)) and any(isinstance(v, enum.Enum) for v in value):
        return type(value)(_shown(v) for v in value)
    return value


def _click_names_members() -> bool:
    choice = getattr(sys.modules.get("click.types"), "Choice", None)
    return choice is None or hasattr(choice, "normalize_choice")


def _is_version_option(param: Any) -> bool:
    callback = getattr(param, "callback", None)
    return getattr(callback, "__qualname__", "").startswith("version_option.")


def type_facts(param_type: Any) -> TypeFacts:
    try:
        info = param_type.to_info_dict()
    except Exception:  # a custom type whose own to_info_dict fails: its class and name
        info = {"param_type": type(param_type).__name__, "name": getattr(param_type, "name", "")}
    kind = _click_type(param_type) or str(info.get("param_type", type(param_type).__name__))
    choices = getattr(param_type, "choices", None) if kind == "Choice" else None
    return TypeFacts(
        param_type=kind,
        name=str(info.get("name", "")),
        choices=tuple(_enum_name(c) for c in choices) if choices is not None else None,
        min=info.get("min"),
        max=info.get("max"),
        min_open=bool(info.get("min_open", False)),
        max_open=bool(info.get("max_open", False)),
        items=tuple(type_facts(t) for t in getattr(param_type, "types", ()))
        if kind == "Tuple"
        else (),
        case_sensitive=getattr(param_type, "case_sensitive", True) is not False,
    )


_CLICK_TYPES = ("click.types", "typer._click.types")


def _click_type(param_type: Any) -> str | None:
    """The Click type a parameter type is, by its class's ancestry: a project's subclass of
    `click.Choice` (a Choice that also takes aliases) is a Choice, of `click.IntRange` a range;
    None for a type of its own made on `click.ParamType`, which is read by its own name."""
    for cls in type(param_type).__mro__:
        if cls.__module__ in _CLICK_TYPES and cls.__name__ in TYPE_NAMES_KNOWN:
            return cls.__name__
    return None
