"""Live reading of an argparse parser: every argument container made while the target runs records
where each argument was added (`Recorder`: for comment sections, and the keywords outside
argparse's own a wrapper or parser subclass took, kept as `extra`), a parser asked to parse stops
the read (`parse_captured`; a pre-parser is merged into the parser of the parse after it), and a
value of the parser made of a stand-in is said, never read as the project's
(`unresolved_stand_ins`)."""

from __future__ import annotations

import argparse
import dis
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.convert import ARGPARSE_KEYWORDS
from argmatrix.loaders.live.declared_fields import FieldFinder
from argmatrix.loaders.live.mocking import (
    is_stand_in,
    stand_in_names,
    unmarked,
)
from argmatrix.loaders.sections import CallSite
from argmatrix.model.registry import Diagnostic, Unevaluated

_original_init: Callable[..., None] = argparse._ActionsContainer.__init__


_PARSE_METHODS = (
    "parse_args",
    "parse_known_args",
    "parse_intermixed_args",
    "parse_known_intermixed_args",
)


KNOWN_ONLY = ("parse_known_args", "parse_known_intermixed_args")  # the rest left to others


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


class ParseCaptured(BaseException):
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
    the call)`, which ends the read (without it, it raises `ParseCaptured` with itself)."""
    saved = {name: getattr(argparse.ArgumentParser, name) for name in _PARSE_METHODS}

    def capturing(method: str) -> Callable[..., Any]:
        def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
            if on_parse is not None:
                on_parse(self, method, sys._getframe(1))
            raise ParseCaptured(self)

        return capture

    for name in _PARSE_METHODS:
        setattr(argparse.ArgumentParser, name, capturing(name))
    try:
        yield
    finally:
        for name, method in saved.items():
            setattr(argparse.ArgumentParser, name, method)


def later_parser(frame: Any, parser: argparse.ArgumentParser) -> Any:
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


def merged_parser(
    parser: argparse.ArgumentParser, pre: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    """`parser` with the options of the pre-parser it does not have: the whole command line."""
    known = set(parser._option_string_actions)
    for action in pre._actions:
        if action.option_strings and not known.intersection(action.option_strings):
            parser._add_action(action)
    return parser


def pre_parser_error(target: str, frame: Any, pre: argparse.ArgumentParser) -> ArgmatrixError:
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
