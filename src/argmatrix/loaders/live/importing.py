"""Live loading: import `module:callable`, let it build its parser, and record every call.

Every argument container created while the target runs gets a recording `add_argument`, so the
model learns where each argument was added (for comment sections) and which keyword arguments a
custom parser subclass, or a wrapper around a group, accepted beyond argparse's own (kept as
`extra`, taken from the outermost `add_argument` call, where the registry wrote them).

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
import dis
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import inspect
import os
import runpy
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.clicks import CLICK, CommandFacts
from argmatrix.loaders.convert import ARGPARSE, ARGPARSE_KEYWORDS
from argmatrix.loaders.live.clicks import (
    ClickCaptured,
    click_parse_captured,
    command_facts,
    framework_command,
    is_typer_app,
    runner_warning,
    typer_command,
)
from argmatrix.loaders.live.fields import FieldFinder
from argmatrix.loaders.live.mocking import (
    StubModule,
    failed_in_stand_in,
    is_stand_in,
    stand_in_names,
    stand_ins,
    unmarked,
)
from argmatrix.loaders.sections import CallSite
from argmatrix.loaders.target import split_target
from argmatrix.model.registry import Diagnostic, Registry, Unevaluated

_original_init: Callable[..., None] = argparse._ActionsContainer.__init__
MAIN = "__main__"  # `module:__main__`: the parser the module builds when run as a script
TARGET_FIX = (
    "name a function that returns an ArgumentParser or fills one it is given, a Click command"
    " or group, a Typer app, or module:__main__"
)
_PARSE_METHODS = (
    "parse_args",
    "parse_known_args",
    "parse_intermixed_args",
    "parse_known_intermixed_args",
)
_KNOWN_ONLY = ("parse_known_args", "parse_known_intermixed_args")  # the rest left to others


@dataclass(frozen=True)
class LiveSettings:
    """How the registry is imported and built: `registry:` of argmatrix.yaml, live mode."""

    mock: tuple[str, ...] = ()
    auto_mock: bool = False
    parser_class: str | None = None  # module:Class, the parser a filler is handed
    env: tuple[tuple[str, str], ...] = ()
    argv: tuple[str, ...] | None = None  # the words after the program name
    args: tuple[Any, ...] = ()  # more positional arguments for the builder
    kwargs: tuple[tuple[str, Any], ...] = ()
    versions: tuple[tuple[str, str], ...] = ()  # distributions stood in for: their versions
    verbose: bool = False
    # The registry's own packages (`_owners`, set by load_live): what `mock: auto` stands in
    # for when they fail to import it, and where an error of theirs is located.
    owners: tuple[str, ...] = ()


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


class Recorder:
    """Maps id(action) to the call site of the outermost `add_argument` that made it."""

    def __init__(self) -> None:
        self.sites: dict[int, CallSite] = {}
        self._keep: list[argparse.Action] = []  # keep actions alive so ids stay unique
        self.fields = FieldFinder()

    def wrap(self, container: argparse._ActionsContainer) -> None:
        method = type(container).add_argument
        recorder = self

        def add_argument(*args: Any, **kwargs: Any) -> Any:
            action = method(container, *args, **kwargs)
            if isinstance(action, argparse.Action):
                recorder._keep.append(action)
                site = _outermost_site(sys._getframe(1), kwargs, recorder.fields)
                recorder.sites[id(action)] = site
            return action

        container.add_argument = add_argument  # type: ignore[method-assign]

    @contextmanager
    def recording(self) -> Iterator[Recorder]:
        recorder = self

        def init(container: argparse._ActionsContainer, *args: Any, **kwargs: Any) -> None:
            _original_init(container, *args, **kwargs)
            recorder.wrap(container)

        argparse._ActionsContainer.__init__ = init  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            argparse._ActionsContainer.__init__ = _original_init  # type: ignore[method-assign]


_RECORDING_CODE: Any = None  # the code of Recorder.wrap's add_argument, set below


def _outermost_site(frame: Any, kwargs: Mapping[str, Any], fields: FieldFinder) -> CallSite:
    """The call site of the outermost of the nested `add_argument` calls that made an action,
    and the keyword arguments argparse does not know, as that call passed them: a wrapper
    (RTP-LLM's group wrapper) takes `env_name=` and calls the group without it. An argument
    a generic helper makes of a declared field is placed where the field is declared."""
    extra = {k: v for k, v in kwargs.items() if k not in ARGPARSE_KEYWORDS}
    while frame is not None and frame.f_code.co_name == "add_argument":
        extra = {**extra, **_keywords_of(frame)}  # the outer call's words win
        frame = frame.f_back
    if frame is None:
        return CallSite("", 0, 0, tuple(extra.items()))
    declared = fields.declaration(frame)
    if declared is not None:
        return declared.site(tuple(extra.items()))
    return CallSite(
        frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_firstlineno, tuple(extra.items())
    )


def _keywords_of(frame: Any) -> dict[str, Any]:
    """The keyword arguments outside argparse's own that an `add_argument` frame was given: its
    keyword-only parameters (`*args, env_name=None`; a None is an unset default, left out) and
    its `**kwargs`. Positional parameters are the flags, never keywords."""
    code, local = frame.f_code, frame.f_locals
    if code is _RECORDING_CODE:
        kwargs = local.get("kwargs", {})
        return {k: v for k, v in kwargs.items() if k not in ARGPARSE_KEYWORDS}
    named = code.co_argcount + code.co_kwonlyargcount
    found: dict[str, Any] = {}
    for name in code.co_varnames[code.co_argcount : named]:
        value = local.get(name)
        if name not in ARGPARSE_KEYWORDS and value is not None:
            found[name] = value
    if code.co_flags & inspect.CO_VARKEYWORDS:
        varkw = code.co_varnames[named + (1 if code.co_flags & inspect.CO_VARARGS else 0)]
        kwargs = local.get(varkw)
        if isinstance(kwargs, dict):
            found.update({k: v for k, v in kwargs.items() if k not in ARGPARSE_KEYWORDS})
    return found


def _recording_code() -> Any:
    recorder = Recorder()
    container = argparse.ArgumentParser(add_help=False)
    recorder.wrap(container)
    return container.add_argument.__code__


_RECORDING_CODE = _recording_code()


class _Captured(BaseException):
    """Stops the registry's code at the moment it would parse its command line (a read without
    a process of its own: see `End`). A BaseException, so the registry's own `except
    Exception` does not swallow it."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


@contextmanager
def parse_captured(
    on_parse: Callable[[argparse.ArgumentParser, str, Any], Any] | None = None,
) -> Iterator[None]:
    """While the block runs, a parser asked to parse calls `on_parse(parser, method, frame of
    the call)`, which ends the read (without it, it raises `_Captured` with itself)."""
    saved = {name: getattr(argparse.ArgumentParser, name) for name in _PARSE_METHODS}

    def capturing(method: str) -> Callable[..., Any]:
        def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
            if on_parse is not None:
                on_parse(self, method, sys._getframe(1))
            raise _Captured(self)

        return capture

    for name in _PARSE_METHODS:
        setattr(argparse.ArgumentParser, name, capturing(name))
    try:
        yield
    finally:
        for name, method in saved.items():
            setattr(argparse.ArgumentParser, name, method)


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
        if method in _KNOWN_ONLY and not parser.add_help:
            later = _later_parser(frame, parser)
            if isinstance(later, argparse.ArgumentParser):
                parser = _merged(later, parser)
            elif later is not None:
                self.finish(_pre_parser_error(self.target, frame, parser))
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
    outside = (_ARGMATRIX, *_framework_folders())
    while frame is not None and frame.f_code.co_filename.startswith(outside):
        frame = frame.f_back
    return frame


def _later_parser(frame: Any, parser: argparse.ArgumentParser) -> Any:
    """The parser of the next parse written in the code of `frame` after the current one (what
    the name it is called on holds now: None where no parse follows, `...` where the name holds
    no other parser yet)."""
    if frame is None:
        return None
    instructions = list(dis.get_instructions(frame.f_code))
    before = None
    for instruction in instructions:
        if (
            instruction.offset > frame.f_lasti
            and instruction.opname in ("LOAD_ATTR", "LOAD_METHOD")
            and instruction.argval in _PARSE_METHODS
        ):
            holder = _bound(frame, before)
            if isinstance(holder, argparse.ArgumentParser) and holder is not parser:
                return holder
            return ...
        before = instruction
    return None


def _bound(frame: Any, instruction: Any) -> Any:
    """What the name an instruction loads is bound to in `frame` now (None: not a name)."""
    if instruction is None or not instruction.opname.startswith(_NAME_LOADS):
        return None
    name = instruction.argval
    if isinstance(name, tuple):  # LOAD_FAST_LOAD_FAST (3.13): the second is the receiver
        name = name[-1]
    for scope in (frame.f_locals, frame.f_globals):
        if name in scope:
            return scope[name]
    return None


_NAME_LOADS = ("LOAD_NAME", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF")


def _merged(
    parser: argparse.ArgumentParser, pre: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    """`parser` with the options of the pre-parser it does not have: the whole command line."""
    known = set(parser._option_string_actions)
    for action in pre._actions:
        if action.option_strings and not known.intersection(action.option_strings):
            parser._add_action(action)
    return parser


def _pre_parser_error(target: str, frame: Any, pre: argparse.ArgumentParser) -> ArgmatrixError:
    flags = ", ".join(a.option_strings[0] for a in pre._actions if a.option_strings) or "none"
    return ArgmatrixError.at(
        f"{target} parses a pre-parser ({flags}) with parse_known_args and builds the parser of"
        " the rest of its command line after that, when it runs: live reading stops at the"
        " pre-parse, before any of it runs",
        file=frame.f_code.co_filename if frame is not None else None,
        line=frame.f_lineno if frame is not None else None,
        fix="name the function that builds the whole parser (module:function), or build it"
        " before the pre-parse",
    )


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
        if _compiled(exc) and not settings.auto_mock:
            raise _compiled_module_error(f"importing {module_name!r}", exc) from None
        raise _user_code_error(f"importing {module_name!r}", exc, settings) from None
    except (Exception, SystemExit) as exc:  # a module that exits on import is an error too
        raise _user_code_error(f"importing {module_name!r}", exc, settings) from None


def _compiled(exc: ImportError) -> bool:
    return bool(exc.path) and str(exc.path).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def _compiled_module_error(doing: str, exc: ImportError) -> ArgmatrixError:
    return ArgmatrixError.at(
        f"{doing}: the compiled module {exc.name or exc.path!r} cannot be loaded here ({exc})",
        file=str(exc.path),
        fix="use 'mock: auto' (--mock auto) to stand in for it, or build it for this machine",
    )


def missing_module_error(
    doing: str, exc: ModuleNotFoundError, settings: LiveSettings
) -> ArgmatrixError:
    """A module the registry needs is not installed: say which, and how to stand in for it."""
    if isinstance(exc, importlib.metadata.PackageNotFoundError):  # a ModuleNotFoundError too
        return _missing_distribution_error(doing, exc, settings)
    missing = exc.name or "?"
    root = missing.split(".", 1)[0]
    where = _registry_frame(exc, settings.owners)
    if root != missing and _installed(root):
        fix = (
            f"{missing!r} is a submodule of the installed package {root!r} (a compiled module"
            " not built here?): use 'mock: auto' (--mock auto) to stand in for it"
        )
    else:
        fix = (
            f"add {root!r} to registry.mock in argmatrix.yaml or pass --mock {root}"
            " (or 'mock: auto' for every module that fails to import, or use --static)"
        )
    return ArgmatrixError.at(
        f"{doing} needs {missing!r}, which is not installed",
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix=fix,
    )


def _missing_distribution_error(
    doing: str, exc: importlib.metadata.PackageNotFoundError, settings: LiveSettings
) -> ArgmatrixError:
    """`importlib.metadata` found no distribution the registry asked the version of: a
    distribution, not a module (its package may well be stood in for)."""
    name = exc.name or "?"
    where = _registry_frame(exc, settings.owners)
    stood_in = isinstance(sys.modules.get(name.replace("-", "_")), StubModule)
    return ArgmatrixError.at(
        f"{doing} asked importlib.metadata for the distribution {name!r}, which is not installed"
        + (" (a stand-in takes the place of its package)" if stood_in else ""),
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix=f"give its version in argmatrix.yaml ('registry: versions: {{{name}: X.Y}}'), or"
        " install it",
    )


def _installed(root: str) -> bool:
    try:
        return importlib.util.find_spec(root) is not None
    except (ImportError, ValueError):
        return False


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
        raise _user_code_error(f"importing the {what} {spec!r}", exc, settings) from None
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
        raise _user_code_error(f"creating a {settings.parser_class}", exc, settings) from None


def _value(value: Any, settings: LiveSettings) -> Any:
    """A builder argument: a plain value, or `{call: module:callable}`, what calling it gives."""
    if _is_call(value):
        factory = _import_object(value["call"], "builder argument", settings)
        try:
            return factory()
        except (Exception, SystemExit) as exc:
            raise _user_code_error(f"calling {value['call']}", exc, settings) from None
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
    except _Captured as captured:
        return captured.parser, None
    except ClickCaptured as captured:  # it runs a Click command: that command is the registry
        return None, command_facts(captured.command, settings=captured.settings)
    except ModuleNotFoundError as exc:
        raise missing_module_error(f"building the parser with {target}", exc, settings) from None
    except (Exception, SystemExit) as exc:  # sys.exit() in the builder
        raise _user_code_error(f"building the parser with {target}", exc, settings) from None
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
    except _Captured as captured:
        return captured.parser, None
    except ClickCaptured as captured:
        return None, command_facts(captured.command, settings=captured.settings)
    except ModuleNotFoundError as exc:
        raise missing_module_error(f"running {module_name!r} as a script", exc, settings) from None
    except ImportError as exc:  # `python -m pkg` of a package without __main__.py
        raise _user_code_error(f"running {module_name!r} as a script", exc, settings) from None
    except (Exception, SystemExit) as exc:
        raise _user_code_error(f"running {module_name!r} as a script", exc, settings) from None
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


def _registry_frame(
    exc: BaseException, owners: Sequence[str] = ()
) -> traceback.FrameSummary | None:
    """The innermost frame of the traceback in the registry's own packages (`owners`): where
    its code called what failed (pydantic validating a default, `copy.deepcopy`, a stand-in).
    Without one, the innermost frame that is not argmatrix's nor the import system's."""
    own = [
        traceback.FrameSummary(frame.f_code.co_filename, line, frame.f_code.co_name)
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if _module_of(frame).split(".", 1)[0] in owners
    ]
    if own:
        return own[-1]
    frames = traceback.extract_tb(exc.__traceback__)
    outside = [
        f
        for f in frames
        if not f.filename.startswith((_ARGMATRIX, "<", *_framework_folders()))
        and f.filename != argparse.__file__  # argparse refusing a call: the call is the place
    ]
    return outside[-1] if outside else (frames[-1] if frames else None)


def _module_of(frame: Any) -> str:
    """The module a frame runs in, by its import name (a module run as `__main__` too)."""
    spec = frame.f_globals.get("__spec__")
    return str(getattr(spec, "name", None) or frame.f_globals.get("__name__", ""))


_ARGMATRIX = str(Path(__file__).resolve().parents[2])  # frames of argmatrix itself


def _framework_folders() -> tuple[str, ...]:
    """Click's and Typer's folders: Click exiting on a usage error is the caller's place."""
    found = []
    for name in ("click", "typer"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            found.append(str(Path(file).parent) + os.sep)
    return tuple(found)


def _user_code_error(doing: str, exc: BaseException, settings: LiveSettings) -> ArgmatrixError:
    """An error raised by the registry's own code: say so, and where. One that argmatrix's
    stand-ins raised themselves is argmatrix's, and said so."""
    if settings.verbose:
        traceback.print_exception(exc)
    where = _registry_frame(exc, settings.owners)
    raised = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if failed_in_stand_in(exc):
        return ArgmatrixError.at(
            f"{doing}: argmatrix's stand-in failed with {raised}",
            file=where.filename if where else None,
            line=where.lineno if where else None,
            fix="a defect of argmatrix, not of the registry's code: please report it with the"
            " traceback --verbose prints; installing the module stood in for avoids it",
        )
    return ArgmatrixError.at(
        f"{doing} raised {raised}",
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix="this is an error in the registry's own code; run with --verbose for the traceback",
    )


# ------------------------------------------------------------------ values made of stand-ins

_CHECKED = ("help", "default", "const", "choices", "metavar", "type")


def unresolved_stand_ins(parser: Any, sites: dict[int, CallSite]) -> list[Diagnostic]:
    """Every value of the parser built from a stand-in becomes `Unevaluated` (its text, with
    the stand-in's name), and is reported: a stand-in's text never reads as the project's.
    A keyword outside argparse's (`bind_to=`) made of stand-ins on many arguments is reported
    once, with the first argument's place and how many there are."""
    diagnostics: list[Diagnostic] = []
    if not isinstance(parser, argparse.ArgumentParser):  # a Click command: read as it is
        return diagnostics
    keywords: dict[str, list[tuple[str, CallSite | None, str]]] = {}
    for action in _all_actions(parser):
        label = action.option_strings[0] if action.option_strings else action.dest
        site = sites.get(id(action))
        for name in _CHECKED:
            text = _stand_in_text(getattr(action, name, None))
            if text is None:
                continue
            setattr(action, name, unmarked(text) if name == "type" else Unevaluated(unmarked(text)))
            diagnostics.append(_unresolved(label, site, f"the {name}", text))
        for name, text in _unresolved_keywords(action, sites):
            keywords.setdefault(name, []).append((label, site, text))
    for name, found in keywords.items():
        label, site, text = found[0]
        if len(found) > 1:
            label += f" and {len(found) - 1} other argument{'s' if len(found) > 2 else ''}"
        diagnostics.append(_unresolved(label, site, f"'{name}'", text, attribute=name))
    return diagnostics


def _unresolved(
    label: str, site: CallSite | None, what: str, text: str, attribute: str = ""
) -> Diagnostic:
    names = ", ".join(dict.fromkeys(stand_in_names(text) or [text]))
    return Diagnostic(
        site.file if site else "<live>",
        site.line if site else None,
        f"{label}: {what} comes from a stand-in ({unmarked(names)}), kept as unresolved;"
        " install the module for the real value",
        attribute=attribute,
    )


def _unresolved_keywords(
    action: argparse.Action, sites: dict[int, CallSite]
) -> list[tuple[str, str]]:
    """The keywords outside argparse's own (recorded at the call, or set on the action) that
    hold a stand-in: each is replaced by `Unevaluated`; returns their names and texts."""
    found: list[tuple[str, str]] = []
    site = sites.get(id(action))
    if site is not None and site.extra:
        extra = []
        for key, value in site.extra:
            text = _stand_in_text(value)
            if text is not None:
                found.append((key, text))
                value = Unevaluated(unmarked(text))
            extra.append((key, value))
        sites[id(action)] = replace(site, extra=tuple(extra))
    for key, value in list(vars(action).items()):
        if key.startswith("_") or key in _CHECKED or key in ARGPARSE_KEYWORDS:
            continue
        text = _stand_in_text(value)
        if text is not None:
            setattr(action, key, Unevaluated(unmarked(text)))
            if key not in dict(found):
                found.append((key, text))
    return found


def _all_actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    seen: set[int] = set()
    pending = [parser]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action._name_parser_map.values())
            else:
                yield action


def _stand_in_text(value: Any, depth: int = 0) -> str | None:
    """The text of `value` (marks kept) if it is, or holds, or was written from a stand-in."""
    if value is None or isinstance(value, (bool, int, float, Unevaluated)) or depth > 8:
        return None
    if is_stand_in(value):
        name = getattr(value, "_stub_name", None) or getattr(value, "__name__", "?")
        return f"<stand-in {name}>"
    if isinstance(value, str):
        return value if stand_in_names(value) else None
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        flat = [i for pair in items for i in (pair if isinstance(value, dict) else (pair,))]
        if any(_stand_in_text(item, depth + 1) is not None for item in flat[:10_000]):
            return unmarked(repr(value))
        return None
    if callable(value) or isinstance(value, type):
        return None
    try:
        text = str(value)  # a lazy text (a translation proxy) reads as what it becomes
    except Exception:
        return None
    return text if stand_in_names(text) else None
