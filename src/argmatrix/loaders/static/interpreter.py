"""The read's interpreter: the evaluator's `PythonInterpreter` with the framework readers' hooks
filled in. A parser method called is replayed (`argparse_parsers.replay`), a parser subclass or
wrapper of the source run as an object (`argparse_parsers.objects`), a call of Click or Typer
recorded in a framework read (`click_commands.framework_calls`), a typing form or a record class
modelled (`declared_fields.declared`), an attribute found by the kind of value
(`attributes`)."""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.loaders.static.argparse_parsers import objects
from argmatrix.loaders.static.argparse_parsers.argparse_names import ArgparseRef, is_parser_class
from argmatrix.loaders.static.argparse_parsers.handles import ParserHandle, ParserMethod
from argmatrix.loaders.static.argparse_parsers.replay import new_parser, parser_call
from argmatrix.loaders.static.attributes import reader_attribute
from argmatrix.loaders.static.click_commands import framework_calls, framework_values
from argmatrix.loaders.static.declared_fields import declared
from argmatrix.loaders.static.python import calls
from argmatrix.loaders.static.python import interpreter as python_interpreter
from argmatrix.loaders.static.python.interpreter import UNHANDLED, PythonInterpreter
from argmatrix.loaders.static.python.values import (
    BuiltinRef,
    CannotEvaluate,
    ClassRef,
    ExternalRef,
    FunctionRef,
    builds_registry,
    resolve,
)


class Interpreter(PythonInterpreter):
    """The interpreter of a read: Python, and the values of argparse, Click, Typer and declared
    fields handed to their readers."""

    node_attribute_kinds = frozenset({ParserHandle, objects.GroupActions})
    call_kinds = frozenset({ParserMethod, ClassRef, ArgparseRef, declared.Modeled, *objects.CALLED})
    form_kinds = frozenset({declared.Modeled, BuiltinRef})

    def reader_attribute(self, base: Any, node: ast.Attribute) -> Any:
        if (
            type(base) is ParserHandle
            and not node.attr.startswith("__")
            and not objects.reads_as_modelled(base, node.attr)
        ):
            # argparse's own state (`parser._actions`): what is done with it is not followed
            self.report(
                node,
                f"`{self.quoted(node)}` is what argparse keeps to itself, which static reading"
                " does not follow: what the registry does with it is missing",
                stops=True,
            )
        if type(base) is objects.GroupActions:
            return objects.group_actions_attribute(self, base, node)
        return UNHANDLED

    def attribute(self, base: Any, attr: str) -> Any:
        base = resolve(base)
        found = reader_attribute(self, base, attr)
        return super().attribute(base, attr) if found is UNHANDLED else found

    def framework_call(self, function: Any, node: ast.Call) -> Any:
        if type(function) in framework_values.VALUES:  # a decorator of Click applied, `wraps`...
            args, kwargs = calls.call_arguments(self, node)
            return framework_calls.call(self, function, args, kwargs)
        if framework_calls.records(self, function):  # `click.option(...)`, `typer.Option`
            return framework_calls.make(self, function, node)
        return UNHANDLED

    def reader_call(self, function: Any, node: ast.Call) -> Any:
        kind = type(function)
        if kind is ParserMethod:
            return parser_call(self, function, node)
        if kind in objects.CALLED:
            return objects.call(self, function, node)
        if kind is ClassRef and is_parser_class(function) and objects.writes_methods(function):
            args, kwargs = calls.lenient_arguments(self, node)
            return objects.new_object(self, function, node, args, kwargs)
        if (kind is ArgparseRef and function.name == "ArgumentParser") or (
            kind is ClassRef and is_parser_class(function)
        ):
            return new_parser(self, node, function)
        if kind is declared.Modeled:
            if not declared.next_allowed(function, node):
                raise CannotEvaluate("`next` of anything but a generator expression")
            args, kwargs = calls.call_arguments(self, node)
            return declared.call(self, function, args, kwargs)
        if kind is ClassRef and declared.is_record_class(self, function):
            # `Opt(help=..., choices=SET_AT_RUN_TIME)`: a field value only running would tell
            # is kept as source text, the others are known
            args, kwargs = calls.lenient_arguments(self, node)
            return declared.instance(self, function, args, kwargs)
        if kind is ClassRef:  # a wrapper given a parser or a group: an object of the source
            args, kwargs = calls.lenient_arguments(self, node)
            if any(builds_registry(v) for v in [*args, *kwargs.values()]):
                return objects.new_object(self, function, node, args, kwargs)
        return UNHANDLED

    def framework_call_value(self, value: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if type(value) in framework_values.VALUES or (
            type(value) is ExternalRef and framework_calls.records(self, value)
        ):
            return framework_calls.call(self, value, args, kwargs)
        return UNHANDLED

    def union(self, left: Any, right: Any) -> Any:
        return declared.union(left, right)

    def subscript_form(self, base: Any, key: Any) -> Any:
        if type(base) in (declared.Modeled, BuiltinRef):
            return declared.subscript(base, resolve(key))
        return None


def run_function(
    function: FunctionRef,
    args: list[Any],
    kwargs: dict[str, Any],
    depth: int = 0,
    strict: bool = False,
) -> Any:
    """Run a function of the source in the read's interpreter (`python.interpreter.run_function`)."""
    return python_interpreter.run_function(Interpreter, function, args, kwargs, depth, strict)
