"""Live loading: import `module:callable`, let it build its parser, and record every call.

Every argument container created while the target runs records where each argument was added
(`argparse_parsers.Recorder`); a Click command or Typer app is read from its object
(`click_commands`, `typer_apps`), never run.

The registry runs as a program would: under the environment and `sys.argv` the configuration
gives, with the parser class it expects, and stopped at the moment it would parse its command line
(a target such as `main()` or `setup_args()` builds a parser and parses at once: the parser it
parses with is the registry). It runs in a process of its own (`process.py`), and a stop ends
that process with what was found: nothing after the parse runs, even where the target's own
`except:` would catch an exception or the parse is in a thread. What it prints goes nowhere near
argmatrix's output.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import inspect
import os
import runpy
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import CLICK, CommandFacts
from argmatrix.loaders.convert import ARGPARSE
from argmatrix.loaders.live.argparse_parsers import (
    KNOWN_ONLY,
    ParseCaptured,
    Recorder,
    later_parser,
    merged_parser,
    parse_captured,
    pre_parser_error,
)
from argmatrix.loaders.live.click_commands import (
    ClickCaptured,
    click_parse_captured,
    command_facts,
    framework_command,
    runner_warning,
)
from argmatrix.loaders.live.failures import (
    ARGMATRIX_FOLDER,
    compiled_module_error,
    framework_folders,
    is_compiled,
    missing_module_error,
    user_code_error,
)
from argmatrix.loaders.live.mocking import (
    stand_ins,
)
from argmatrix.loaders.live.settings import LiveSettings
from argmatrix.loaders.live.typer_apps import is_typer_app, typer_command
from argmatrix.loaders.sections import CallSite
from argmatrix.loaders.target import split_target
from argmatrix.model.registry import Diagnostic, Registry

MAIN = "__main__"  # `module:__main__`: the parser the module builds when run as a script
TARGET_FIX = (
    "name a function that returns an ArgumentParser or fills one it is given, a Click command"
    " or group, a Typer app, or module:__main__"
)


@dataclass
class LiveResult:
    parser: Any  # the framework's: an `argparse.ArgumentParser`; Click's `CommandFacts`
    sites: dict[int, CallSite]
    stood_in: list[str] = field(default_factory=list)
    framework: str = ARGPARSE  # what built the parser (`FRAMEWORKS` in loaders/modes.py)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # said of how it was found


@dataclass(frozen=True)
class LiveOutcome:
    """What a live read's process hands back (`process.py`): the model, the files of the
    modules it imported (the target's first), and what --verbose says of the read."""

    registry: Registry
    modules: tuple[str, ...]
    notes: tuple[str, ...] = ()


# Where a stop goes: the process's end with what was found (or the error it makes); it never
# returns. Without one (a read in this process), a stop is raised as an exception.
End = Callable[["LiveResult | ArgmatrixError"], NoReturn]


@contextmanager
def environment(env: Sequence[tuple[str, str]], argv: Sequence[str]) -> Iterator[None]:
    """`os.environ` with `env` set and `sys.argv` as `argv` while the block runs."""
    saved_env = {name: os.environ.get(name) for name, _ in env}
    saved_argv = sys.argv
    os.environ.update(dict(env))
    sys.argv = list(argv)
    try:
        yield
    finally:
        sys.argv = saved_argv
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def load_live(
    target: str,
    base_dir: Path | None = None,
    settings: LiveSettings | None = None,
    end: End | None = None,
) -> LiveResult:
    """Import the target and build its parser; return the parser, its call sites and the
    modules stood in for (see `unresolved_stand_ins` for the values that came from them).

    `end`: where a stop goes (the end of the read's process, `process.py`): the target's code
    stops where it would parse, and `end` is given what was found there, or the error a stop
    makes; it never returns. Without it a stop is an exception the target's code could catch."""
    module_name, attr = split_target(target)
    settings = settings or LiveSettings()
    settings = replace(settings, owners=tuple(sorted(_owners(module_name, settings))))
    path_entry = str(base_dir or Path.cwd())
    # The registry's code sees itself as the program: a parser made without `prog` is named
    # after the module, and a stray parse_args() reads no argmatrix options.
    program = module_name.rsplit(".", 1)[-1]
    argv = [program, *(settings.argv or ())]
    sys.path.insert(0, path_entry)
    recorder = Recorder()
    try:
        with (
            environment(settings.env, argv),
            stand_ins(
                settings.mock,
                settings.auto_mock,
                settings.owners,
                dict(settings.versions),
            ) as stood_in,
            recorder.recording(),
        ):
            stops = _Stops(target, module_name, recorder, stood_in, end)
            parser, command = _parser_or_command(module_name, attr, target, settings, stops)
    finally:
        if path_entry in sys.path:
            sys.path.remove(path_entry)
    return stops.result(parser if command is None else command)


class _Stops:
    """Where the target's code would parse its command line: the read ends there, with that
    parser (or Click command) as the registry, handed to `end`. While the target's module is
    imported (`running` False), a Click command asked to parse is refused instead: importing
    the module would run it."""

    def __init__(
        self,
        target: str,
        module_name: str,
        recorder: Recorder,
        stood_in: list[str],
        end: End | None,
    ) -> None:
        self.target = target
        self.module_name = module_name
        self.recorder = recorder
        self.stood_in = stood_in
        self.end = end
        self.running = False
        self.function = False  # the target is a function, not a script: a runner is said
        self.diagnostics: list[Diagnostic] = []

    def result(self, parser: Any) -> LiveResult:
        framework = CLICK if isinstance(parser, CommandFacts) else ARGPARSE
        stood_in = list(dict.fromkeys(self.stood_in))
        return LiveResult(parser, self.recorder.sites, stood_in, framework, list(self.diagnostics))

    def finish(self, found: LiveResult | ArgmatrixError) -> None:
        """Hand `found` to `end` (which never returns); without one, return to raise."""
        if self.end is not None:
            self.end(found)
        if isinstance(found, ArgmatrixError):
            raise found

    def parsed(self, parser: argparse.ArgumentParser, method: str, frame: Any) -> None:
        """An argparse parser asked to parse. A pre-parser (`parse_known_args` on a parser
        without `--help`, with another parse after it in the same code) is merged into the
        parser of that later parse when that one is built already, and stopped at otherwise."""
        if method in KNOWN_ONLY and not parser.add_help:
            later = later_parser(frame, parser)
            if isinstance(later, argparse.ArgumentParser):
                parser = merged_parser(later, parser)
            elif later is not None:
                self.finish(pre_parser_error(self.target, frame, parser))
        self.finish(self.result(parser))

    def clicked(self, found: Any, settings: dict[str, Any], frame: Any) -> None:
        """A Click command (or a Typer app) asked to parse or run, by the code of `frame`."""
        frame = _project_frame(frame)
        if not self.running:
            self.finish(_runs_at_import(self.module_name, found, frame))
        try:
            command = typer_command(found, self.target) if is_typer_app(found) else found
            facts = command_facts(command, settings=settings)
        except ArgmatrixError as error:
            self.finish(error)
            return
        if self.function:
            warning = runner_warning(found, self.target, self.module_name, frame)
            self.diagnostics.append(warning)
        self.finish(self.result(facts))


def _project_frame(frame: Any) -> Any:
    """The innermost frame outside Click, Typer and argmatrix, from `frame` outwards: the
    project's code that ran a command (`typer.run(main)` calls the app it makes)."""
    outside = (ARGMATRIX_FOLDER, *framework_folders())
    while frame is not None and frame.f_code.co_filename.startswith(outside):
        frame = frame.f_back
    return frame


def _runs_at_import(module_name: str, command: Any, frame: Any) -> ArgmatrixError:
    name = getattr(command, "name", None) or type(command).__name__
    return ArgmatrixError.at(
        f"importing {module_name!r} runs the Click command {name!r} (not under `if __name__ =="
        ' "__main__":`): live reading stopped there, before it parses',
        file=frame.f_code.co_filename if frame is not None else None,
        line=frame.f_lineno if frame is not None else None,
        fix=f"name {module_name}:__main__ to read what the module runs, or put the call under"
        ' `if __name__ == "__main__":`',
    )


def _parser_or_command(
    module_name: str, attr: str, target: str, settings: LiveSettings, stops: _Stops
) -> tuple[argparse.ArgumentParser | None, CommandFacts | None]:
    """The target's argparse parser, or the Click command it is or builds (never run)."""
    if attr == MAIN:
        return _run_as_main(module_name, target, settings, stops)
    with click_parse_captured(stops.clicked):
        module = _import(module_name, settings)
        builder = _resolve(module, module_name, attr)
        command = framework_command(builder, module, target)
        if command is not None:
            return None, command_facts(command)
    return _build(builder, target, settings, stops)


def _owners(module_name: str, settings: LiveSettings) -> set[str]:
    """The registry's own packages: those whose failing imports `mock: auto` stands in for."""
    named = [module_name, settings.parser_class or ""]
    named += [v["call"] for v in (*settings.args, *(v for _, v in settings.kwargs)) if _is_call(v)]
    return {name.split(":", 1)[0].split(".", 1)[0] for name in named if name}


def _is_call(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["call"] and isinstance(value["call"], str)


def _import(module_name: str, settings: LiveSettings) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if settings.verbose:
            traceback.print_exc()
        missing = exc.name or module_name
        if isinstance(exc, importlib.metadata.PackageNotFoundError):
            pass  # a distribution importlib.metadata was asked about, not this module
        elif module_name == missing or module_name.startswith(missing + "."):
            raise ArgmatrixError.at(
                f"cannot import {module_name!r}: no such module on sys.path",
                fix="check the registry target, or run from the folder that holds the module",
            ) from None
        raise missing_module_error(f"importing {module_name!r}", exc, settings) from None
    except ImportError as exc:
        if is_compiled(exc) and not settings.auto_mock:
            raise compiled_module_error(f"importing {module_name!r}", exc) from None
        raise user_code_error(f"importing {module_name!r}", exc, settings) from None
    except (Exception, SystemExit) as exc:  # a module that exits on import is an error too
        raise user_code_error(f"importing {module_name!r}", exc, settings) from None


def _resolve(module: Any, module_name: str, attr: str) -> Callable[..., Any]:
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ArgmatrixError.at(
                f"module {module_name!r} has no attribute {attr!r}",
                file=getattr(module, "__file__", None),
                fix=TARGET_FIX,
            ) from None
    if not callable(obj):
        raise ArgmatrixError.at(
            f"{module_name}:{attr} is not callable (it is a {type(obj).__name__})",
            file=getattr(module, "__file__", None),
            fix=TARGET_FIX,
        )
    return cast(Callable[..., Any], obj)


def _required_positionals(builder: Callable[..., Any], keywords: Sequence[str]) -> int | None:
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):
        return None
    return sum(
        1
        for p in signature.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.name not in keywords
    )


def _wants_parser(builder: Callable[..., Any], settings: LiveSettings) -> bool:
    """A builder is handed a parser when it needs more positional arguments than `args` gives."""
    required = _required_positionals(builder, [k for k, _ in settings.kwargs])
    return required is not None and required > len(settings.args)


def _import_object(spec: str, what: str, settings: LiveSettings) -> Any:
    """`module:Name` (dotted after the colon), imported under the registry's settings."""
    module_name, attr = split_target(spec)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise missing_module_error(f"importing the {what} {spec!r}", exc, settings) from None
    except (Exception, SystemExit) as exc:
        raise user_code_error(f"importing the {what} {spec!r}", exc, settings) from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ArgmatrixError.at(
                f"the {what} {spec!r}: module {module_name!r} has no attribute {attr!r}",
                file=getattr(module, "__file__", None),
                fix="name it as module:Name",
            )
        obj = getattr(obj, part)
    return obj


def _given_parser(settings: LiveSettings) -> argparse.ArgumentParser:
    if settings.parser_class is None:
        return argparse.ArgumentParser(add_help=False)
    cls = _import_object(settings.parser_class, "parser class", settings)
    if not (isinstance(cls, type) and issubclass(cls, argparse.ArgumentParser)):
        raise ArgmatrixError.at(
            f"parser_class {settings.parser_class!r} is not a subclass of argparse.ArgumentParser",
            fix="name the class the project's own command line builds its parser with",
        )
    try:
        return cls(add_help=False)
    except (Exception, SystemExit) as exc:
        raise user_code_error(f"creating a {settings.parser_class}", exc, settings) from None


def _value(value: Any, settings: LiveSettings) -> Any:
    """A builder argument: a plain value, or `{call: module:callable}`, what calling it gives."""
    if _is_call(value):
        factory = _import_object(value["call"], "builder argument", settings)
        try:
            return factory()
        except (Exception, SystemExit) as exc:
            raise user_code_error(f"calling {value['call']}", exc, settings) from None
    return value


def _build(
    builder: Callable[..., Any], target: str, settings: LiveSettings, stops: _Stops
) -> tuple[argparse.ArgumentParser | None, CommandFacts | None]:
    with click_parse_captured(stops.clicked):  # the settings' own imports run nothing either
        given = _given_parser(settings) if _wants_parser(builder, settings) else None
        if given is None and settings.parser_class is not None:
            raise ArgmatrixError.at(
                f"parser_class is set, but {target} is given no parser (it takes no parameter"
                " for one)",
                fix="remove parser_class, or name the function that fills a parser it is given",
            )
        args = [_value(a, settings) for a in settings.args]
        kwargs = {k: _value(v, settings) for k, v in settings.kwargs}
    if given is not None:
        args.insert(0, given)
    try:
        with parse_captured(stops.parsed), click_parse_captured(stops.clicked):
            stops.running = stops.function = True
            result = builder(*args, **kwargs)
            stops.running = False
    except ParseCaptured as captured:
        return captured.parser, None
    except ClickCaptured as captured:  # it runs a Click command: that command is the registry
        return None, command_facts(captured.command, settings=captured.settings)
    except ModuleNotFoundError as exc:
        raise missing_module_error(f"building the parser with {target}", exc, settings) from None
    except (Exception, SystemExit) as exc:  # sys.exit() in the builder
        raise user_code_error(f"building the parser with {target}", exc, settings) from None
    parser = result if isinstance(result, argparse.ArgumentParser) else given
    if parser is None:
        with click_parse_captured(stops.clicked):
            command = framework_command(result, sys.modules[type(result).__module__], target)
            if command is not None:  # a factory that returns a Click command or a Typer app
                return None, command_facts(command)
        raise ArgmatrixError.at(
            f"{target} returned {type(result).__name__}, not an argparse.ArgumentParser",
            fix="name a function that returns an ArgumentParser, fills one it is given, or"
            " parses the command line with one; or a Click command or Typer app",
        )
    return parser, None


def _run_as_main(
    module_name: str, target: str, settings: LiveSettings, stops: _Stops
) -> tuple[argparse.ArgumentParser | None, CommandFacts | None]:
    """`module:__main__`: run the module as a script (`python -m module`; for a package, its
    `__main__` module) and stop where it parses its command line, with argparse or with
    Click: that parser is the registry."""
    with click_parse_captured(stops.clicked):  # a package's __init__ is imported to find it
        origin = _script_file(module_name)
    try:
        with parse_captured(stops.parsed), click_parse_captured(stops.clicked):
            stops.running = True
            runpy.run_module(module_name, run_name=MAIN, alter_sys=False)
            stops.running = False
    except ParseCaptured as captured:
        return captured.parser, None
    except ClickCaptured as captured:
        return None, command_facts(captured.command, settings=captured.settings)
    except ModuleNotFoundError as exc:
        raise missing_module_error(f"running {module_name!r} as a script", exc, settings) from None
    except ImportError as exc:  # `python -m pkg` of a package without __main__.py
        raise user_code_error(f"running {module_name!r} as a script", exc, settings) from None
    except (Exception, SystemExit) as exc:
        raise user_code_error(f"running {module_name!r} as a script", exc, settings) from None
    raise ArgmatrixError.at(
        f"{target}: running {module_name!r} as a script ended without parsing a command line",
        file=origin,
        fix="name the function that builds the parser (module:function), or the Click"
        " command or Typer app (module:name)",
    )


def _script_file(module_name: str) -> str | None:
    """The file `python -m module_name` runs: the module's, or a package's `__main__.py`."""
    try:
        spec = importlib.util.find_spec(module_name)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(f"{module_name}.{MAIN}") or spec
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ArgmatrixError.at(
            f"cannot import {module_name!r}: no such module on sys.path",
            fix="check the registry target, or run from the folder that holds the module",
        )
    return spec.origin
