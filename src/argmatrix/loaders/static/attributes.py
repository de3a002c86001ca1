"""An attribute of a value of static reading (`base.attr`), found by the kind of value: a method
of plain data, a name of a module of the source (read when asked), a name of `argparse`'s
whitelist, a member of a class of the source or of an enum, what the model of declared fields
says (`declared`), what a parser or an object of the source has (`objects`). Any other attribute
is not known (`CannotEvaluate`): never the attribute of a real object."""

from __future__ import annotations

from typing import Any

from argmatrix.loaders.static.argparse_parsers import objects
from argmatrix.loaders.static.argparse_parsers.argparse_names import argparse_attribute
from argmatrix.loaders.static.click_commands import framework_calls
from argmatrix.loaders.static.declared_fields import declared
from argmatrix.loaders.static.python.builtins import BUILTIN_TYPES
from argmatrix.loaders.static.python.classes import ancestors, class_attribute
from argmatrix.loaders.static.python.evaluator import Evaluator
from argmatrix.loaders.static.python.ops import method, unbound_method
from argmatrix.loaders.static.python.values import (
    PLAIN_TYPES,
    ArgparseRef,
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    EnumMember,
    ExternalRef,
    FunctionRef,
    ModuleRef,
    ParserHandle,
    SourceObject,
    SuperOf,
    SuperRef,
    describe,
    resolve,
)


def attribute_of(it: Evaluator, base: Any, attr: str) -> Any:
    base = resolve(base)
    kind = type(base)
    if kind in PLAIN_TYPES:
        return method(base, attr)
    if kind is ModuleRef:
        return it.loader.imported(base.name, attr)
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
        return class_attribute(base, attr)
    if kind is SuperRef:
        for ancestor in ancestors(base.owner):
            if isinstance(ancestor, ClassRef):
                try:
                    return class_attribute(ancestor, attr)
                except CannotEvaluate:
                    continue
        raise CannotEvaluate(f"no base class defines `{attr}` in the source read")
    if kind is EnumMember and attr in ("name", "value"):
        return getattr(base, attr)
    if kind is BuiltinRef and base.name in BUILTIN_TYPES:
        return unbound_method(BUILTIN_TYPES[base.name], attr)
    if kind is ParserHandle:
        return objects.parser_attribute(base, attr)
    if kind is SourceObject:
        return objects.attribute(it, base, attr)
    if kind is SuperOf:
        return objects.super_attribute(it, base, attr, framework_calls.framework_init)
    raise CannotEvaluate(f"{describe(base)} has no attribute `{attr}` static reading follows")
