"""The argparse reader's entry: the target function run as the read's interpreter runs it, and
the `argparse.ArgumentParser` it returns, fills or parses with (`build_parser`). The read (the
loader, its budget, the files read: `loaders/static/reader.py`) hands it the target's module and
the interpreter class with every reader's hooks (`static/interpreter.py`, above this package).

What a filler is handed is argparse's parser, or the project's own parser class made as live
mode makes it (`parser_class`, run as written by `objects`); a target that builds no parser
static reading can follow stops at the first statement it could not follow, one located line.
"""

from __future__ import annotations

import argparse
import ast
import re
from typing import Any, cast

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.static.argparse_parsers.argparse_names import is_parser_class
from argmatrix.loaders.static.argparse_parsers.handles import ParserHandle, parser_of
from argmatrix.loaders.static.argparse_parsers.objects import Captured, new_object, writes_methods
from argmatrix.loaders.static.argparse_parsers.recording import Recording
from argmatrix.loaders.static.argparse_parsers.replay import new_parser
from argmatrix.loaders.static.python.context import ModuleContext, ReadContext
from argmatrix.loaders.static.python.interpreter import PythonInterpreter, run_function
from argmatrix.loaders.static.python.scripts import MAIN, main_function
from argmatrix.loaders.static.python.syntax import parameters, skips_first
from argmatrix.loaders.static.python.values import (
    CannotEvaluate,
    ClassRef,
    FunctionRef,
    SourceObject,
    short_source,
)
from argmatrix.loaders.target import split_target

TARGET_FIX = (
    "name a function that returns an ArgumentParser or fills one it is given, a Click command"
    " or group, a Typer app, or module:__main__"
)
_FRAMEWORK_NAMES = re.compile(r"\b(?:click|typer)\b")


def names_click_or_typer(text: str) -> bool:
    """Whether `text` names click or typer as a word. str.find rules most modules out: the
    pattern alone goes over every character of a large module (3 ms of sglang's)."""
    return ("click" in text or "typer" in text) and _FRAMEWORK_NAMES.search(text) is not None


def build_parser(
    loader: ReadContext,
    module: ModuleContext,
    target: str,
    attr: str,
    parser_class: str | None,
    interpreter: type[PythonInterpreter],
) -> argparse.ArgumentParser:
    """The parser the target function of `module` (`attr`) builds, run by `interpreter` (the
    read's: the evaluator's with every reader's hooks)."""
    function = find_function(module, attr)
    skip = skips_first(function)
    params = parameters(function.node)[1 if skip else 0 :]
    required = len(params) - len(function.node.args.defaults)
    receiver: list[Any] = [function.owner] if skip else []
    if parser_class is not None and required < 1:
        raise ArgmatrixError.at(
            f"parser_class is set, but {target} is given no parser (it takes no parameter for one)",
            file=str(module.path),
            line=function.node.lineno,
            fix="remove parser_class, or name the function that fills a parser it is given",
        )
    given: ParserHandle | None = None
    loader.target_function = (str(module.path), function.node)
    try:
        if required >= 1:
            made = _given_parser(loader, parser_class, interpreter)
            given = parser_of(made) if isinstance(made, SourceObject) else made
            result = run_function(interpreter, function, [*receiver, made], {})
        else:
            result = run_function(interpreter, function, receiver, {})
    except Captured as captured:  # it parses its command line: that parser is the registry
        result = captured.handle
    if isinstance(result, SourceObject):  # the project's own parser class
        result = result.parser
    handle = result if isinstance(result, ParserHandle) else given
    if handle is None or not isinstance(handle.target, argparse.ArgumentParser):
        nor = (
            ", nor run a Click command or a Typer app," if names_click_or_typer(module.text) else ""
        )
        line, where = function.node.lineno, ""
        if loader.unfollowed is not None:  # the line it could not follow
            line, source, reason = loader.unfollowed
            where = (
                f": the first statement it does not follow is `{short_source(source)}` ({reason})"
            )
        raise ArgmatrixError.at(
            f"{target} does not build an argparse.ArgumentParser{nor} that static reading can"
            f" follow{where}",
            file=str(module.path),
            line=line,
            fix="name a function that returns an ArgumentParser or fills one it is given,"
            " or load the registry live",
        )
    return handle.target


def _given_parser(
    loader: ReadContext, parser_class: str | None, interpreter: type[PythonInterpreter]
) -> ParserHandle | SourceObject:
    """What a filler is handed: argparse's parser, or the project's class made as live mode
    makes it (`Class(add_help=False)`), its methods run as written (see `objects`)."""
    if parser_class is None:
        return cast(Recording, loader.recording).parser(add_help=False)
    module_name, name = split_target(parser_class)
    module = loader.module(module_name)
    cls: Any = None
    if module is not None:
        try:
            cls = module.global_value(name)
        except CannotEvaluate:
            cls = None
    if not isinstance(cls, ClassRef) or not is_parser_class(cls):
        raise ArgmatrixError.at(
            f"parser_class {parser_class!r} is not a subclass of argparse.ArgumentParser"
            " in the source static reading finds",
            file=str(module.path) if module is not None else None,
            line=cls.node.lineno if isinstance(cls, (ClassRef, FunctionRef)) else None,
            fix="name the class the project's own command line builds its parser with",
        )
    call = ast.Call(ast.Name(name, ast.Load()), [], [ast.keyword("add_help", ast.Constant(False))])
    ast.copy_location(call, cls.node)
    ast.fix_missing_locations(call)
    assert module is not None  # the class was found in it
    it = interpreter(module, {}, cls.node.lineno)
    if writes_methods(cls):
        return new_object(it, cls, call, [], {"add_help": False})
    return new_parser(it, call, cls)


def find_function(module: ModuleContext, attr: str) -> FunctionRef:
    """The function `attr` names in `module` (`Class.method` too; `__main__`: the module's
    `if __name__ == "__main__":` block, run as a function)."""
    if attr == MAIN:  # the module run as a script (issue 22)
        return _main_function(module)
    if attr in module.assignments and attr not in module.definitions:  # a value (issue 22)
        raise ArgmatrixError.at(
            f"{module.name}:{attr} is a value assigned at line"
            f" {module.assignments[attr].lineno}, not a function static reading can run",
            file=str(module.path),
            line=module.assignments[attr].lineno,
            fix=TARGET_FIX,
        )
    parts = attr.split(".")
    owner: ClassRef | None = None
    definitions = module.definitions
    node: Any = None
    for index, part in enumerate(parts):
        node = definitions.get(part) if index == 0 else _member(node, part)
        if node is None:
            raise ArgmatrixError.at(
                f"module {module.name!r} has no function {attr!r}",
                file=str(module.path),
                fix=TARGET_FIX,
            )
        if isinstance(node, ast.ClassDef) and index < len(parts) - 1:
            owner = ClassRef(module, node)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ArgmatrixError.at(
            f"{module.name}:{attr} is not a function (it is a class)",
            file=str(module.path),
            line=getattr(node, "lineno", None),
            fix=TARGET_FIX,
        )
    return FunctionRef(module, node, owner)


def _main_function(module: ModuleContext) -> FunctionRef:
    module.parse()
    assert module.tree is not None
    function = main_function(module.tree)
    if function is None:
        raise ArgmatrixError.at(
            f'module {module.name!r} has no `if __name__ == "__main__":` block to read',
            file=str(module.path),
            fix="name the function that builds the parser (module:function), or the Click"
            " command or Typer app (module:name)",
        )
    return FunctionRef(module, function)


def _member(node: Any, name: str) -> Any:
    if not isinstance(node, ast.ClassDef):
        return None
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            child.name == name
        ):
            return child
    return None
