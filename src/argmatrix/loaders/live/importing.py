"""Live loading: import `module:callable`, let it build its parser, and record every call.

Every argument container created while the target runs gets a recording `add_argument`, so the
model learns where each argument was added (for comment sections) and which keyword arguments a
custom parser subclass accepted beyond argparse's own (kept as `extra`).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE_KEYWORDS
from argmatrix.loaders.live.mocking import stand_ins
from argmatrix.loaders.sections import CallSite
from argmatrix.loaders.target import split_target

_original_init: Callable[..., None] = argparse._ActionsContainer.__init__


class Recorder:
    """Maps id(action) to the call site of the outermost `add_argument` that made it."""

    def __init__(self) -> None:
        self.sites: dict[int, CallSite] = {}
        self._keep: list[argparse.Action] = []  # keep actions alive so ids stay unique

    def wrap(self, container: argparse._ActionsContainer) -> None:
        method = type(container).add_argument
        recorder = self

        def add_argument(*args: Any, **kwargs: Any) -> Any:
            action = method(container, *args, **kwargs)
            frame = sys._getframe(1)
            extra = tuple((k, v) for k, v in kwargs.items() if k not in ARGPARSE_KEYWORDS)
            if isinstance(action, argparse.Action):
                recorder._keep.append(action)
                recorder.sites[id(action)] = CallSite(
                    frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_firstlineno, extra
                )
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


def load_live(
    target: str, mock: Sequence[str] = (), base_dir: Path | None = None, verbose: bool = False
) -> tuple[argparse.ArgumentParser, dict[int, CallSite]]:
    """Import the target and build its parser; return the parser and its call sites."""
    module_name, attr = split_target(target)
    path_entry = str(base_dir or Path.cwd())
    sys.path.insert(0, path_entry)
    # The registry's code sees itself as the program: a parser made without `prog` is named
    # after the module, and a stray parse_args() reads no argmatrix options.
    argv = sys.argv
    sys.argv = [module_name.rsplit(".", 1)[-1]]
    try:
        with stand_ins(mock):
            module = _import(module_name, mock, verbose)
            builder = _resolve(module, module_name, attr)
            recorder = Recorder()
            with recorder.recording():
                parser = _build(builder, target, verbose)
    finally:
        sys.argv = argv
        if path_entry in sys.path:
            sys.path.remove(path_entry)
    return parser, recorder.sites


def _import(module_name: str, mock: Sequence[str], verbose: bool) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if verbose:
            traceback.print_exc()
        missing = exc.name or module_name
        if module_name == missing or module_name.startswith(missing + "."):
            raise ArgmatrixError.at(
                f"cannot import {module_name!r}: no such module on sys.path",
                fix="check the registry target, or run from the folder that holds the module",
            ) from None
        root = missing.split(".", 1)[0]
        if root in mock:
            raise ArgmatrixError.at(
                f"importing {module_name!r} needs {missing!r}, which a stand-in cannot provide",
                fix=f"install {root!r} for real (it is a submodule of an installed package)",
            ) from None
        raise ArgmatrixError.at(
            f"importing {module_name!r} needs {missing!r}, which is not installed",
            fix=f"add {root!r} to registry.mock in argmatrix.yaml or pass --mock {root}"
            " (or use --static)",
        ) from None
    except (Exception, SystemExit) as exc:  # a module that exits on import is an error too
        raise _user_code_error(f"importing {module_name!r}", exc, verbose) from None


def _resolve(module: Any, module_name: str, attr: str) -> Callable[..., Any]:
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ArgmatrixError.at(
                f"module {module_name!r} has no attribute {attr!r}",
                file=getattr(module, "__file__", None),
                fix="name a function that returns an ArgumentParser or fills one it is given",
            ) from None
    if not callable(obj):
        raise ArgmatrixError.at(
            f"{module_name}:{attr} is not callable",
            file=getattr(module, "__file__", None),
            fix="name a function that returns an ArgumentParser or fills one it is given",
        )
    return cast(Callable[..., Any], obj)


def _wants_parser(builder: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in signature.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(required) >= 1


def _build(builder: Callable[..., Any], target: str, verbose: bool) -> argparse.ArgumentParser:
    given = argparse.ArgumentParser(add_help=False) if _wants_parser(builder) else None
    try:
        result = builder(given) if given is not None else builder()
    except (Exception, SystemExit) as exc:  # parse_args() or sys.exit() in the builder
        raise _user_code_error(f"building the parser with {target}", exc, verbose) from None
    parser = result if isinstance(result, argparse.ArgumentParser) else given
    if parser is None:
        raise ArgmatrixError.at(
            f"{target} returned {type(result).__name__}, not an argparse.ArgumentParser",
            fix="name a function that returns an ArgumentParser or fills one it is given",
        )
    return parser


def _user_code_error(doing: str, exc: BaseException, verbose: bool) -> ArgmatrixError:
    """An error raised by the registry's own code: say so, and where."""
    if verbose:
        traceback.print_exception(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if "argmatrix" not in Path(f.filename).parts[-2:-1]]
    where = own[-1] if own else (frames[-1] if frames else None)
    return ArgmatrixError.at(
        f"{doing} raised {type(exc).__name__}: {exc}"
        if str(exc)
        else f"{doing} raised {type(exc).__name__}",
        file=where.filename if where else None,
        line=where.lineno if where else None,
        fix="this is an error in the registry's own code; run with --verbose for the traceback",
    )
