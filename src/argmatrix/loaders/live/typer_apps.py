"""Live reading of a Typer app: what Typer adds to reading a Click command. A Typer app is a Click
command underneath (`typer.main.get_command` builds it, running none of its callbacks), so
`click_commands.py` reads it; this module recognises Typer's objects by their classes (a Typer
app, a function an app registers, a function written for `typer.run`), builds an app's command,
and says what Typer decides differently from Click: a parameter's type as Typer 0.2x keeps it,
an enum default by its value, the markup of its help."""

from __future__ import annotations

import enum
import inspect
import pathlib
import sys
import typing
from types import ModuleType
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import TypeFacts
from argmatrix.loaders.markup import MARKUP_MODES

TYPER_MAIN = "typer.main"


# Options Typer adds to an app's top command for shell completion: the shell's, not the server's.
TYPER_COMPLETION = ("install_completion", "show_completion")


def classes_of(obj: Any) -> list[tuple[str, str]]:
    return [(c.__module__, c.__name__) for c in type(obj).__mro__]


def is_typer_app(obj: Any) -> bool:
    return (TYPER_MAIN, "Typer") in classes_of(obj)


def _typer_module() -> Any:
    return sys.modules[TYPER_MAIN]


def typer_command(app: Any, target: str) -> Any:
    """`typer.main.get_command(app)`: the Click command Typer builds when the app is run."""
    try:
        return _typer_module().get_command(app)
    except (RuntimeError, AssertionError):  # Typer 0.9 asserts
        raise ArgmatrixError.at(
            f"{target} is a Typer app with no command",
            fix="register a command with @app.command(), or name the app that has them",
        ) from None


def _typer_apps(module: ModuleType) -> list[Any]:
    return [value for value in vars(module).values() if is_typer_app(value)]


def registered_command(function: Any, module: ModuleType, target: str) -> Any | None:
    """The command a Typer app of the module makes of `function` (`@app.command()` returns
    the function itself), or the group whose `@app.callback()` it is."""
    for app in _typer_apps(module):
        path = _path_to(app, function, ())
        if path is None:
            continue
        command = typer_command(app, target)
        for name in path:
            commands = getattr(command, "commands", None)
            if not isinstance(commands, dict) or name not in commands:
                return command  # an app of one command is that command
            command = commands[name]
        return command
    return None


def _path_to(app: Any, function: Any, path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The names leading from `app`'s command to the one built from `function`."""
    callback = getattr(app, "registered_callback", None)
    if callback is not None and callback.callback is function:
        return path
    for info in getattr(app, "registered_commands", ()):
        if info.callback is function:
            return (*path, info.name or _typer_module().get_command_name(function.__name__))
    for group in getattr(app, "registered_groups", ()):
        sub = group.typer_instance
        name = group.name or getattr(sub.info, "name", None)
        if not isinstance(name, str):
            continue
        found = _path_to(sub, function, (*path, name))
        if found is not None:
            return found
    return None


def typer_signature(function: Any) -> bool:
    """Whether a function's parameters are declared with `typer.Option`/`typer.Argument`
    (as a default, or in `Annotated[...]`): a function written for `typer.run`."""
    if TYPER_MAIN not in sys.modules:
        return False
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    for parameter in parameters:
        found = [parameter.default, *getattr(parameter.annotation, "__metadata__", ())]
        if any(_is_parameter_info(value) for value in found):
            return True
    return False


def _is_parameter_info(value: Any) -> bool:
    return any(n == "ParameterInfo" and m.startswith("typer") for m, n in classes_of(value))


def as_typer_run(function: Any, target: str) -> Any:
    typer = _typer_module()
    app = typer.Typer(add_completion=False)
    app.command()(function)
    return typer_command(app, target)


def markup_mode(command: Any) -> str | None:
    """How Typer shows the command's help: its `rich_markup_mode` where Typer formats with Rich
    (Rich installed), else None (the text as it is)."""
    mode = getattr(command, "rich_markup_mode", None)
    if mode not in MARKUP_MODES or not made_by_typer(command):
        return None
    rich = sys.modules.get("typer.core")
    return str(mode) if getattr(rich, "HAS_RICH", True) else None


def made_by_typer(param: Any) -> bool:
    return type(param).__module__.split(".", 1)[0] == "typer"


def writes_own_usage(param: Any) -> bool:
    """Whether Typer writes this argument in a usage itself (`{model}`, `[name]...`: the Typers
    that carry their own copy of Click, 0.29 among them) rather than as Click does (`MODEL`:
    Typer 0.9, which uses Click's). Read from the class that made it, which has the method."""
    return made_by_typer(param) and callable(getattr(type(param), "_usage_display_name", None))


def enum_value(value: Any) -> Any:
    """Typer reads an enum by its members' values, and shows a default as its value."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return type(value)(enum_value(v) for v in value)
    return value


# The annotations Typer 0.2x reads without a Click type (`type_descriptor`), as Click names them.
_ANNOTATION_TYPES = {
    "str": ("String", "text"),
    "int": ("Int", "integer"),
    "float": ("Float", "float"),
    "bool": ("Bool", "boolean"),
    "UUID": ("UUID", "uuid"),
    "datetime": ("DateTime", "datetime"),
}


def typer_type_facts(param: Any) -> TypeFacts:
    """The type of a parameter Typer 0.2x made (it vendors Click without its parameter types,
    and keeps the annotation in a `type_descriptor`): said as Click's type would be."""
    descriptor = param.type_descriptor
    annotation = descriptor.annotation
    if descriptor.is_list:
        annotation = typing.get_args(annotation)[0]
    choices = descriptor.choices
    if choices is not None:
        return TypeFacts(
            "Choice",
            "choice",
            choices=tuple(enum_value(c) for c in choices),
            case_sensitive=getattr(descriptor, "case_sensitive", True) is not False,
        )
    if descriptor.is_tuple and not descriptor.is_list:
        items = tuple(_annotation_type(a, param) for a in typing.get_args(annotation))
        return TypeFacts("Tuple", "<" + " ".join(i.name for i in items) + ">", items=items)
    return _annotation_type(annotation, param, descriptor)


def _annotation_type(annotation: Any, param: Any, descriptor: Any = None) -> TypeFacts:
    name = getattr(annotation, "__name__", str(annotation))
    if descriptor is not None and descriptor.is_ranged:
        kind = "IntRange" if name == "int" else "FloatRange"
        label = "integer range" if name == "int" else "float range"
        return TypeFacts(kind, label, min=param.min, max=param.max)
    if descriptor is not None and descriptor.is_file:
        return TypeFacts("File", "filename")
    if descriptor is not None and descriptor.is_path:
        return TypeFacts("Path", "path")
    if isinstance(annotation, type) and issubclass(annotation, pathlib.PurePath):
        return TypeFacts("Path", "path")
    kind, label = _ANNOTATION_TYPES.get(name, (name, name))
    return TypeFacts(kind, label)
