"""The framework's own view of a corpus target, printed as JSON: run by tests/test_corpus.py with
the corpus environment's Python (`python corpus_view.py module:attr`), never imported by the
suite's own process.

Written from Click's, Typer's and argparse's documented objects, independently of argmatrix: a
Click command's parameters as the `Parameter` objects hold them, its subcommands as Click lists
them for `--help` (`Group.list_commands` and `get_command`, on a `Context`), a Typer app as
`typer.main.get_command` makes it, and an argparse parser's actions (the parser a function
builds is taken by stopping its `parse_args`, as any test double would)."""

from __future__ import annotations

import argparse
import enum
import importlib
import inspect
import json
import sys
from typing import Any

TYPER_COMPLETION = ("install_completion", "show_completion")


class Stopped(BaseException):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


def resolve(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def click_module(obj: Any) -> Any:
    """Click itself, or the copy Typer vendors, whichever made `obj`."""
    for cls in type(obj).__mro__:
        if cls.__module__ in ("click.core", "typer._click.core"):
            return sys.modules[cls.__module__.rsplit(".", 1)[0]]
    raise TypeError(f"{obj!r} is no Click object")


def is_command(obj: Any) -> bool:
    return any(
        c.__module__ in ("click.core", "typer._click.core") and c.__name__ == "Command"
        for c in type(obj).__mro__
    )


# ------------------------------------------------------------------ values as the framework shows


def shown(value: Any, typer_param: bool) -> Any:
    """A default as the command line shows it: an Enum member by its name (Click 8.2 and
    later) or by its value (Typer), a callable as what computes it, a Path as its text."""
    if isinstance(value, enum.Enum):
        return value.value if typer_param else value.name
    if isinstance(value, (list, tuple)):
        return [shown(v, typer_param) for v in value]
    if callable(value) and not isinstance(value, type):
        return {"unevaluated": f"{getattr(value, '__name__', type(value).__name__)}()"}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if type(value).__name__ == "Sentinel":  # Click's UNSET
        return None
    if isinstance(value, dict):
        return {str(k): shown(v, typer_param) for k, v in value.items()}
    return {"python": repr(value)}


# ------------------------------------------------------------------ Click and Typer


def markup_of(command: Any) -> str | None:
    """How Typer prints the command's help: with Rich, in its `rich_markup_mode`, where Rich is
    installed (`typer.core.HAS_RICH`); None for Click's own commands."""
    if not type(command).__module__.startswith("typer"):
        return None
    mode = getattr(command, "rich_markup_mode", None)
    core = sys.modules.get("typer.core")
    return mode if mode in ("rich", "markdown") and getattr(core, "HAS_RICH", False) else None


def as_printed(text: str, markup: str | None) -> str:
    """A help's words as Typer's `--help` prints them: Rich's own reading of its markup (or of
    Markdown), not the markup; whitespace folded."""
    if markup == "rich":
        from rich.text import Text

        text = Text.from_markup(text).plain
    elif markup == "markdown":
        import io

        from rich.console import Console
        from rich.markdown import Markdown

        out = io.StringIO()
        Console(file=out, width=10_000, color_system=None).print(Markdown(text))
        text = out.getvalue()
    return " ".join(text.split())


def click_view(command: Any, prefix: str | None, ctx: Any) -> dict[str, Any]:
    settings = dict(getattr(command, "context_settings", None) or {})
    prefix = settings.get("auto_envvar_prefix") or prefix
    if prefix:
        prefix = prefix.upper().replace("-", "_")
    commands: dict[str, Any] = {}
    list_commands = getattr(command, "list_commands", None)
    if list_commands is not None:
        for name in list_commands(ctx):
            sub = selected(command, ctx, name)
            if sub is None:
                continue
            sub_ctx = type(ctx)(sub, parent=ctx, info_name=name)
            view = click_view(sub, f"{prefix}_{name.upper()}" if prefix else None, sub_ctx)
            view["hidden"] = bool(getattr(sub, "hidden", False))
            view["aliases"] = [
                alias
                for key in command.commands
                for alias in [part.strip() for part in key.split("|")][1:]
                if key.split("|")[0].strip() == name and selected(command, ctx, alias) is sub
            ]
            commands[name] = view
    markup = markup_of(command)
    return {
        "help": as_printed((command.help or "").split("\f")[0], markup),
        "params": [param_view(p, prefix, markup) for p in command.params if not machinery(p)],
        "commands": commands,
    }


def selected(group: Any, ctx: Any, name: str) -> Any:
    """The command a group runs when `name` is given: what `resolve_command` finds, as Click
    does before it runs one (a placeholder loads its command there)."""
    try:
        return group.resolve_command(ctx, [name])[1]
    except Exception:
        return group.get_command(ctx, name)


def machinery(param: Any) -> bool:
    """Click's help option (made by `click.help_option`) and Typer's completion options."""
    callback = getattr(param, "callback", None)
    where = getattr(callback, "__module__", "") or ""
    if where.endswith("decorators") and "help" in getattr(callback, "__qualname__", ""):
        return True
    return param.name in TYPER_COMPLETION and where.startswith("typer")


def is_version(param: Any) -> bool:
    callback = getattr(param, "callback", None)
    return getattr(callback, "__qualname__", "").startswith("version_option.")


def param_view(param: Any, prefix: str | None, markup: str | None) -> dict[str, Any]:
    option = param.param_type_name == "option"
    typer_param = type(param).__module__.startswith("typer")
    envvar = param.envvar
    if isinstance(envvar, (list, tuple)):
        envvar = ", ".join(envvar)
    if (
        not envvar
        and option
        and prefix
        and getattr(param, "allow_from_autoenv", True)
        and param.name
        and not is_version(param)
    ):
        envvar = f"{prefix}_{param.name.upper()}"
    kind = getattr(param, "type", None)
    choices = getattr(kind, "choices", None)
    if kind is None and getattr(param, "type_descriptor", None) is not None:
        choices = param.type_descriptor.choices
    bounds = None
    if kind is not None and hasattr(kind, "min") and hasattr(kind, "max"):
        bounds = [kind.min, kind.max]
    elif getattr(param, "type_descriptor", None) is not None and param.type_descriptor.is_ranged:
        bounds = [param.min, param.max]
    if getattr(param, "count", False):
        bounds = None
    nargs = param.nargs
    default = param.default
    if hasattr(param, "to_info_dict"):  # Click's own account of the parameter
        default = param.to_info_dict()["default"]
    return {
        "flags": [*param.opts, *param.secondary_opts] if option else [],
        "dest": param.name,
        "required": bool(param.required),
        "repeatable": bool(param.multiple),
        "count": bool(getattr(param, "count", False)),
        "nargs": None if nargs == 1 else ("+" if param.required else "*") if nargs < 0 else nargs,
        "default": None if param.required or is_version(param) else shown(default, typer_param),
        "envvar": envvar or None,
        "help": as_printed(getattr(param, "help", None) or "", markup),
        "hidden": bool(getattr(param, "hidden", False)),
        "choices": None if choices is None else [shown(c, typer_param) for c in choices],
        "bounds": bounds,
    }


def command_of(obj: Any) -> Any:
    if type(obj).__name__ == "Typer" and type(obj).__module__ == "typer.main":
        return sys.modules["typer.main"].get_command(obj)
    return obj


# ------------------------------------------------------------------ argparse


def parser_of(function: Any) -> argparse.ArgumentParser:
    """The parser a function parses its command line with."""
    methods = ("parse_args", "parse_known_args")
    saved = {m: getattr(argparse.ArgumentParser, m) for m in methods}

    def stop(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise Stopped(self)

    for method in methods:
        setattr(argparse.ArgumentParser, method, stop)
    sys.argv = [function.__module__.rsplit(".", 1)[-1]]
    try:
        function()
    except Stopped as stopped:
        return stopped.parser
    finally:
        for method, original in saved.items():
            setattr(argparse.ArgumentParser, method, original)
    raise SystemExit(f"{function!r} did not parse")


def must_be_given(action: argparse.Action) -> bool:
    """Whether a command line must give the argument: argparse marks a `*` or REMAINDER
    positional required, but such a positional matches no words as well, so `parse_args` never
    reports it missing (nor a `?` one)."""
    optional_positional = not action.option_strings and action.nargs in ("?", "*", "...")
    return bool(action.required) and not optional_positional


def argparse_view(parser: argparse.ArgumentParser) -> dict[str, Any]:
    params = []
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        hidden = action.help == argparse.SUPPRESS
        help_text = "" if hidden or not action.help else formatter._expand_help(action)
        params.append(
            {
                "flags": list(action.option_strings),
                "dest": action.dest,
                "required": must_be_given(action),
                "nargs": action.nargs,
                "default": None
                if action.default == argparse.SUPPRESS
                else shown(action.default, False),
                "choices": None
                if action.choices is None
                else [shown(c, False) for c in action.choices],
                "hidden": hidden,
                "help": " ".join(help_text.split()),
            }
        )
    return {"help": " ".join((parser.description or "").split()), "params": params, "commands": {}}


def main() -> None:
    target = sys.argv[1]
    obj = resolve(target)
    command = command_of(obj)
    if is_command(command):
        click = click_module(command)
        with click.Context(command, info_name=command.name) as ctx:
            view = click_view(command, None, ctx)
        print(json.dumps({"framework": "click", "view": view}))
        return
    if inspect.isfunction(obj):
        print(json.dumps({"framework": "argparse", "view": argparse_view(parser_of(obj))}))
        return
    raise SystemExit(f"{target} is neither a Click command, a Typer app nor a function")


if __name__ == "__main__":
    main()
