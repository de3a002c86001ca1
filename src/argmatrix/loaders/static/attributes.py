"""An attribute of a value of static reading (`base.attr`) that a reader knows, by the kind of
value: a name of `argparse`'s whitelist, what the model of declared fields says (`declared`, an
external name included), what a parser or an object of the source has (`objects`). The kinds of
plain Python (plain data, a module, a class of the source, an enum member, a builtin type) are the
evaluator's (`python.interpreter.PythonInterpreter.attribute`)."""

from __future__ import annotations

from typing import Any

from argmatrix.loaders.static.argparse_parsers import objects
from argmatrix.loaders.static.argparse_parsers.argparse_names import ArgparseRef, argparse_attribute
from argmatrix.loaders.static.argparse_parsers.handles import ParserHandle
from argmatrix.loaders.static.click_commands import framework_calls
from argmatrix.loaders.static.declared_fields import declared
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.interpreter import UNHANDLED
from argmatrix.loaders.static.python.values import (
    ClassRef,
    ExternalRef,
    FunctionRef,
    SourceObject,
    SuperOf,
    resolve,
)


def reader_attribute(it: Evaluator, base: Any, attr: str) -> Any:
    """`base.attr` for the readers' kinds of value, or `UNHANDLED` for the evaluator's own
    (`PythonInterpreter.attribute`)."""
    base = resolve(base)
    kind = type(base)
    if kind is ExternalRef:
        return declared.external(f"{base.dotted}.{attr}")
    if kind in declared.VALUES:
        return declared.attribute(it, base, attr)
    if kind is ArgparseRef:
        if not base.name:
            return argparse_attribute(attr)
        return ExternalRef(f"argparse.{base.name}.{attr}")
    if attr == "__doc__" and kind in (ClassRef, FunctionRef):
        return declared.docstring(base.node)
    if kind is ClassRef:
        if attr == "__annotations__":
            return declared.class_annotations(it, base)
        if attr in declared.MODEL_ATTRIBUTES:
            return declared.model_attribute(it, base, attr)
    if kind is ParserHandle:
        return objects.parser_attribute(base, attr)
    if kind is SourceObject:
        return objects.attribute(it, base, attr)
    if kind is SuperOf:
        return objects.super_attribute(it, base, attr, framework_calls.framework_init)
    return UNHANDLED
