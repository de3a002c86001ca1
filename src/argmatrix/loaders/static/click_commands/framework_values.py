"""Click's and Typer's objects as values of static reading: what the interpreter gives back, in a
read of a Click command or Typer app, for a call of Click or Typer (`click.option(...)`,
`click.Choice([...])`, `typer.Option(...)`) or of a class of the source deriving from one of
theirs (`AliasedChoice([...])`, `MyOption`), and for a function the project's own decorators
hand on (`Decorated`: the Click parameters applied to it so far, as `__click_params__` holds
them). These are records of the calls, made of the interpreter's own values: nothing of Click or
Typer is imported, nothing of the project is run but by the interpreter, and the rules of what
each call makes are applied by the Click and Typer readers (`clicks`, `click_params`, `typers`)."""

from __future__ import annotations

import ast
from typing import Any

from argmatrix.loaders.static.python.context import ModuleContext
from argmatrix.loaders.static.python.values import ClassRef, ExternalRef, FunctionRef

FRAMEWORKS = ("click", "typer")
# The decorators of Click that add a parameter to the function they are applied to, and those
# that add none (they wrap it, or mark it), each returning what they were given.
PARAMETER_DECORATORS = frozenset(
    {"option", "argument", "version_option", "password_option", "confirmation_option"}
)
PLAIN_DECORATORS = frozenset(
    {"pass_context", "pass_obj", "help_option", "pass_meta_key", "make_pass_decorator"}
)


def framework_of(dotted: str) -> str | None:
    """`click` for `click.option`, `typer` for `typer.Option` (and Typer's copy of Click)."""
    head = dotted.partition(".")[0]
    return head if head in FRAMEWORKS else None


class FrameworkCall:
    """A call of Click or Typer, or of a class of the source deriving from one of theirs: what
    is called, with its arguments as the interpreter computed them (a value it could not
    compute is kept as source text), where it is written, and, for a class of the source whose
    `__init__` the interpreter followed, what reached the framework's own `__init__` and the
    attributes the project's `__init__` set after it (`init`, `attrs`)."""

    __slots__ = ("args", "attrs", "callee", "init", "kwargs", "module", "node")

    def __init__(
        self,
        callee: ExternalRef | ClassRef,
        args: list[Any],
        kwargs: dict[str, Any],
        module: ModuleContext,
        node: ast.Call,
    ) -> None:
        self.callee = callee
        self.args = args
        self.kwargs = kwargs
        self.module = module
        self.node = node
        self.init: tuple[list[Any], dict[str, Any]] | None = None
        self.attrs: dict[str, Any] = {}

    @property
    def name(self) -> str:
        """The name called: `option`, `Choice`, or the source class's own name."""
        if isinstance(self.callee, ExternalRef):
            return self.callee.short
        return self.callee.node.name

    def keyword_source(self, key: str) -> str:
        """The source text of a keyword argument (or of the whole call, if it came in a
        `**spread`), for a value kept as source text."""
        for keyword in self.node.keywords:
            if keyword.arg == key:
                return self.module.segment(keyword.value)
        return self.module.segment(self.node)

    def argument_source(self, index: int) -> str:
        args = self.node.args
        if index < len(args) and not any(isinstance(a, ast.Starred) for a in args[: index + 1]):
            return self.module.segment(args[index])
        return self.module.segment(self.node)


class Decorated:
    """A function as decorators hand it on: the Click parameters applied to it so far, in the
    order they were applied (`__click_params__`), and the function whose `__name__` and
    `__doc__` it has (None: the decorated function's own). `functools.wraps` shares the list
    with the wrapper, as it copies the wrapped function's `__dict__`, and its name and doc."""

    __slots__ = ("function", "params")

    def __init__(self, params: list[FrameworkCall], function: FunctionRef | None = None) -> None:
        self.params = params
        self.function = function


class Wraps:
    """`functools.wraps(f)`: applied to a wrapper, gives it what `f` carries."""

    __slots__ = ("wrapped",)

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped


class FrameworkInit:
    """`super().__init__` reaching the framework's class from an `__init__` of the source:
    records what it is given on the object being made."""

    __slots__ = ("receiver",)

    def __init__(self, receiver: Any) -> None:
        self.receiver = receiver


# The key under which an object being made keeps what reached the framework's `__init__`.
FRAMEWORK_INIT = "\0framework_init"
VALUES = (FrameworkCall, Decorated, Wraps, FrameworkInit)
