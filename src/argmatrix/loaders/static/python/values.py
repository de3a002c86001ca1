"""The values static reading computes with, and the few operations it implements on them.

The interpreter never holds an object of argmatrix's own process that the registry's code could
reach into. A value is one of:

- plain data: exactly `str`, `int`, `float`, `bool`, `None`, `bytes`, `complex`, and `list`,
  `tuple`, `dict`, `set`, `frozenset` (checked with `type(x) in ...`, never `isinstance`, so no
  subclass slips through). Containers may hold any value of this list;
- a reference to source-level things (`ModuleRef`, `ClassRef`, `FunctionRef`, `ExternalRef`,
  `EnumMember`, `LambdaRef`, ...), the interpreter's own classes: a name, never the thing;
- `BuiltinRef` and `MethodRef`: a builtin or a method of plain data, each implemented for
  plain data only (`builtins`, `ops`: dispatch on the exact type and the name),
  with the budget checked before any value is built;
- `ReaderValue`: what a framework reader gives the registry's code (argparse's parser and
  argument handles, `argparse_parsers/handles.py`): opaque here, asked only what it says of
  itself. Only its reader reaches the real object behind it.

Anything else is `Unevaluated` source text. An operation that cannot be done this way raises
`CannotEvaluate` with a reason a user can read. Whatever goes through a value in depth weighs
it first (`weigh`): a value may repeat another a thousand times over, a thousand times over.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from argmatrix.loaders.static.python.budget import (
    DEFAULT_LIMITS,
    Budget,
    BudgetExceeded,
    active_budget,
)
from argmatrix.loaders.static.python.context import ModuleContext
from argmatrix.model.registry import FromEnvironment, Unevaluated


class CannotEvaluate(Exception):
    """The expression depends on something only running the code would tell."""

    @property
    def reason(self) -> str:
        return str(self.args[0]) if self.args else "only running the code would tell"


# ------------------------------------------------------------------ references


class BaseRef:
    """Base of the interpreter's references: compared and hashed by the fields named in
    `_compared` (plain classes with slots: a module of a dozen dataclasses took 10 ms to
    import, a tenth of a static read)."""

    __slots__ = ()
    _compared: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._compared)

    def __hash__(self) -> int:
        return hash((type(self).__name__, *(getattr(self, f) for f in self._compared)))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._compared)
        return f"{type(self).__name__}({fields})"


class ModuleRef(BaseRef):
    """A module of the registry's own package, read from source on demand."""

    __slots__ = ("name",)
    _compared = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class ExternalRef(BaseRef):
    """A name from a module whose source is not read (outside the package, or not found)."""

    __slots__ = ("dotted",)
    _compared = ("dotted",)

    def __init__(self, dotted: str) -> None:
        self.dotted = dotted

    @property
    def short(self) -> str:
        return self.dotted.rsplit(".", 1)[-1]


class ClassRef(BaseRef):
    """A class of the source."""

    __slots__ = ("module", "node")
    _compared = ("module", "node")

    def __init__(self, module: ModuleContext, node: ast.ClassDef) -> None:
        self.module = module
        self.node = node


class FunctionRef(BaseRef):
    """A function of the source; `enclosing`: the scopes of the functions it is defined in,
    innermost first (a helper defined inside the builder sees the builder's names)."""

    __slots__ = ("enclosing", "module", "node", "owner")
    _compared = ("module", "node", "owner")

    def __init__(
        self,
        module: ModuleContext,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        owner: ClassRef | None = None,
        enclosing: tuple[dict[str, Any], ...] = (),
    ) -> None:
        self.module = module
        self.node = node
        self.owner = owner
        self.enclosing = enclosing


class SuperRef(BaseRef):
    """`super()` inside a method of `owner`: attribute lookups start at its bases."""

    __slots__ = ("owner",)
    _compared = ("owner",)

    def __init__(self, owner: ClassRef) -> None:
        self.owner = owner


class EnumMember(BaseRef):
    """`Level.LOW` of an Enum class read from source: its name and its value. `plain` when the
    class derives from `enum.Enum` alone, so that `str()` of a member is `Class.NAME`."""

    __slots__ = ("name", "owner", "plain", "value")
    _compared = ("owner", "name", "value", "plain")

    def __init__(self, owner: str, name: str, value: Any, plain: bool = False) -> None:
        self.owner = owner
        self.name = name
        self.value = value
        self.plain = plain

    def __str__(self) -> str:
        return f"{self.owner}.{self.name}"


class LambdaRef:
    """A lambda of the source, called (when something calls it) by the interpreter itself."""

    __slots__ = ("enclosing", "module", "node", "owner")

    def __init__(
        self,
        node: ast.Lambda,
        module: ModuleContext,
        enclosing: tuple[dict[str, Any], ...],
        owner: ClassRef | None = None,
    ) -> None:
        self.node = node
        self.module = module
        self.enclosing = enclosing
        self.owner = owner


class BuiltinRef(BaseRef):
    """One of the builtins static reading implements (`sorted`, `len`, `str`, ...)."""

    __slots__ = ("name",)
    _compared = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class ReaderRef(BaseRef):
    """A name of a library a reader models (`argparse` or one of its whitelisted names:
    `argparse_parsers/argparse_names.py`): a reference, never the object, undecidable here.
    `described()` is how a reason names it; `identified()`: comparing it by identity is what
    the program would compare (a class of the library), so it is kept, not refused."""

    __slots__ = ()

    def described(self) -> str:
        raise NotImplementedError

    def identified(self) -> bool:
        return False


UNBOUND: Any = object()


class MethodRef:
    """A method of plain data, bound to `receiver` (or unbound: `str.lower`)."""

    __slots__ = ("name", "owner", "receiver")

    def __init__(self, owner: type, name: str, receiver: Any = UNBOUND) -> None:
        self.owner = owner
        self.name = name
        self.receiver = receiver


class ReaderValue:
    """A value a framework reader made and only it looks into (argparse's parser handles,
    `argparse_parsers/handles.py`): the evaluator passes it around and asks it these questions,
    which decide when a call or statement it cannot follow means arguments are missing.

    `described`: how a reason names it (else by its class); `builds_registry`: it is what the
    registry is being added to (a parser, a group), so a call handed it may add arguments;
    `reaches_registry`: it leads there (a parser's bound method); `registry_part`: it is a part
    already made (an argument), which a call handed it may change; `takes_attributes`: the
    reader owns its attributes, and `changed_by(name)` says whether assigning one changes what
    was read."""

    __slots__ = ()
    described: str | None = None
    builds_registry = False
    reaches_registry = False
    registry_part = False
    takes_attributes = False

    def changed_by(self, attribute: str) -> bool:
        return False


class SourceObject:
    """An instance of a class of the source (see `objects`): its attributes, and the parser it
    is (if its class derives from ArgumentParser, once argparse's `__init__` has run)."""

    __slots__ = ("attrs", "cls", "parser")

    def __init__(self, cls: ClassRef) -> None:
        self.cls = cls
        self.attrs: dict[str, Any] = {}
        self.parser: ReaderValue | None = None

    def __repr__(self) -> str:
        return f"<{self.cls.node.name} object>"


class BoundMethod:
    """A method of the source looked up on an object: called with the object as `self`."""

    __slots__ = ("function", "receiver")

    def __init__(self, function: FunctionRef, receiver: SourceObject) -> None:
        self.function = function
        self.receiver = receiver


class SuperOf:
    """`super()` in a method of `owner` run on `receiver` (see `objects`)."""

    __slots__ = ("owner", "receiver")

    def __init__(self, owner: ClassRef, receiver: SourceObject) -> None:
        self.owner = owner
        self.receiver = receiver


def builds_registry(value: Any) -> bool:
    """What the registry is being added to (a reader's value that says so: a parser, a group),
    or an object of the source that is one or holds one."""
    value = resolve(value)
    if isinstance(value, ReaderValue):
        return value.builds_registry
    if type(value) is SourceObject:
        return value.parser is not None or any(
            type(v) is SourceObject or (isinstance(v, ReaderValue) and v.builds_registry)
            for v in value.attrs.values()
        )
    return False


# Functions of the standard library a registry passes as `type=`: true, as any function.
KNOWN_FUNCTIONS = frozenset(
    {"json.loads", "ast.literal_eval", "os.path.expanduser", "os.path.abspath", "pathlib.Path"}
)
# Values whose truth or comparison only running the program would tell.
UNDECIDABLE = (
    FromEnvironment,
    ClassRef,
    FunctionRef,
    ExternalRef,
    ModuleRef,
    SuperRef,
    ReaderRef,
    SourceObject,
    BoundMethod,
)
# References that stand for a name in the final model (`default=sys.maxsize`).
REFS = (
    ClassRef,
    FunctionRef,
    ExternalRef,
    ModuleRef,
    SuperRef,
    ReaderRef,
    BuiltinRef,
    LambdaRef,
    MethodRef,
    ReaderValue,
    SourceObject,
    BoundMethod,
    SuperOf,
)


# ------------------------------------------------------------------ plain data

LEAVES = frozenset({str, int, float, bool, type(None), bytes, complex})
CONTAINERS = frozenset({list, tuple, dict, set, frozenset})
PLAIN_TYPES = LEAVES | CONTAINERS
SIZED = frozenset({str, bytes, list, tuple, dict, set, frozenset})
NUMBERS = frozenset({int, float, bool, complex})
SEQUENCES = frozenset({str, bytes, list, tuple})
_MAX_NESTING = DEFAULT_LIMITS.nesting


class Deferred:
    """A dict value not read yet: evaluated (once) when something asks for it."""

    __slots__ = ("interpreter", "node")

    def __init__(self, interpreter: Any, node: ast.expr) -> None:
        self.interpreter = interpreter
        self.node = node

    def resolve(self) -> Any:
        return self.interpreter.try_eval(self.node)


def one_deeper(depth: int) -> int:
    if depth >= _MAX_NESTING:
        raise BudgetExceeded("the value nesting budget", f"depth {depth + 1}, limit {_MAX_NESTING}")
    return depth + 1


def resolve(value: Any) -> Any:
    """`value`, a Deferred one evaluated (what is inside it is left as it is)."""
    while type(value) is Deferred:
        value = value.resolve()
    return value


_NESTED = frozenset({list, tuple, dict, set, frozenset})
_WALK_STEPS = 1  # a step counts 2**1 items walked
# A tuple at least this long that holds no container weighs the same every time (nothing in it
# can change): walked once per read (sglang 0.5.23 passes its 546 fields around 1,000 times).
_KEEP_WEIGHT_FROM = 64


def weigh(value: Any, what: str = "a value", steps: int = 0) -> int:
    """The items and characters of a value, each counted as often as it is repeated inside it
    (the length of its text, about); the size budget refuses a value that exceeds it.

    Counting only the items built is not enough: `a = [s] * 1000; b = [a] * 1000` builds 2,000
    items that hold a billion. Whatever goes through a value in depth (`str()`, `==`, a hash, a
    sort, the exported model) weighs it first, walking at most the size budget's worth.
    `steps`: what each item costs the work that follows (the walk's own cost otherwise)."""
    if type(value) not in _NESTED:
        return len(value) if type(value) in (str, bytes) else 1
    budget = active_budget()
    kept = budget is not None and type(value) is tuple and len(value) >= _KEEP_WEIGHT_FROM
    if kept:
        assert budget is not None
        found = budget.weighed.get(id(value))
        if found is not None and found[0] is value:
            _, count, walked = found
            budget.visit(1 + (walked * steps if steps else walked >> _WALK_STEPS))
            return count
    limit = (budget.limits if budget is not None else DEFAULT_LIMITS).value_size
    count = walked = 0
    stack = [value]
    while stack:
        item = stack.pop()
        walked += 1
        kind = type(item)
        if kind in _NESTED:
            count += len(item) + 1
            stack.extend(item.values() if kind is dict else item)
            if kind is dict:
                stack.extend(item)
        elif kind is str or kind is bytes:
            count += len(item)
        if count > limit:
            raise BudgetExceeded(
                "the size budget",
                f"{what} of more than {limit:,} items and characters, counting every"
                " repetition of a value inside it",
            )
    if budget is not None:
        if kept and all(type(item) not in _NESTED for item in value):
            budget.weighed[id(value)] = (value, count, walked)
        budget.visit(1 + (walked * steps if steps else walked >> _WALK_STEPS))
    return count


def hashable(items: list[Any], what: str = "a set or dict key") -> list[Any]:
    """`items`, about to be hashed: a tuple's hash goes through it in depth, so tuples are
    weighed first (the other values hash in one go, or cannot be hashed)."""
    if tuple in map(type, items):  # looked for without a Python loop: most hold no tuple
        for item in items:
            if type(item) is tuple:
                weigh(item, what)
    return items


def settle(value: Any, depth: int = 0) -> Any:
    """`value` with every Deferred inside it evaluated (dicts and lists are settled in place)."""
    kind = type(value)
    if kind is Deferred:
        value = value.resolve()
        if depth:
            weigh(value)  # the value it holds was not weighed with the rest
        return settle(value, depth)
    if depth == 0 and kind in _NESTED:
        weigh(value)
    if kind is dict:
        inner = one_deeper(depth)
        for key, item in value.items():
            if type(item) in (Deferred, dict, list):
                value[key] = settle(item, inner)
    elif kind is list:
        inner = one_deeper(depth)
        for index, item in enumerate(value):
            if type(item) in (Deferred, dict, list):
                value[index] = settle(item, inner)
    return value


def contains_unevaluated(value: Any, depth: int = 0) -> bool:
    value = settle(value, depth)
    kind = type(value)
    if kind is Unevaluated:
        return True
    if kind in (list, tuple, set, frozenset):
        inner = one_deeper(depth)
        return any(contains_unevaluated(v, inner) for v in value)
    if kind is dict:
        inner = one_deeper(depth)
        return any(contains_unevaluated(v, inner) for v in value.values())
    return False


def first_unevaluated(value: Any, depth: int = 0) -> Unevaluated | None:
    """The first Unevaluated inside a settled value, for its reason."""
    kind = type(value)
    if kind is Unevaluated:
        return value  # type: ignore[no-any-return]
    if kind in _NESTED:
        if depth == 0:
            weigh(value)
        inner = one_deeper(depth)
        for item in value.values() if kind is dict else value:
            found = first_unevaluated(item, inner)
            if found is not None:
                return found
    return None


def is_plain(value: Any, depth: int = 0) -> bool:
    """Plain data all the way down (after settling): safe to format, print or hand to argparse."""
    kind = type(value)
    if kind in LEAVES:
        return True
    if kind is Deferred:
        return is_plain(settle(value, depth), depth)
    if kind in CONTAINERS:
        if depth == 0:
            weigh(value)
        inner = one_deeper(depth)
        if kind is dict:
            settle(value, inner)
            return all(is_plain(k, inner) and is_plain(v, inner) for k, v in value.items())
        return all(is_plain(v, inner) for v in value)
    return False


def describe(value: Any) -> str:
    """How a value is named in a reason: `os.environ.get`, `a list`, `class ServerArgs`."""
    if isinstance(value, ExternalRef):
        return f"`{value.dotted}`"
    if isinstance(value, (ClassRef, FunctionRef)):
        return f"`{value.node.name}`"
    if isinstance(value, ModuleRef):
        return f"module `{value.name}`"
    if isinstance(value, ReaderRef):
        return value.described()
    if isinstance(value, BuiltinRef):
        return f"`{value.name}`"
    if isinstance(value, MethodRef):
        return f"`{value.owner.__name__}.{value.name}`"
    if isinstance(value, Unevaluated):
        return f"`{value.source}`"
    if isinstance(value, FromEnvironment):
        return f"the environment variable `{value.variable}`"
    if isinstance(value, ReaderValue):
        return value.described or f"a {type(value).__name__}"
    if isinstance(value, SourceObject):
        return f"an object of `{value.cls.node.name}`"
    if isinstance(value, BoundMethod):
        return f"`{value.function.node.name}`"
    return f"a {type(value).__name__}"


def short_source(text: str, width: int = 80) -> str:
    """Source text quoted in a message: on one line, at most `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def plain_function(value: Any) -> bool:
    """A function of the source with no decorator: a function object, true as any."""
    return type(value) is FunctionRef and not value.node.decorator_list


def truth(value: Any) -> bool:
    """`bool(value)` where static reading can know it."""
    value = resolve(value)
    kind = type(value)
    if kind in PLAIN_TYPES:
        return bool(value)
    if (kind is ExternalRef and value.dotted in KNOWN_FUNCTIONS) or plain_function(value):
        return True
    if isinstance(value, UNDECIDABLE) or kind is Unevaluated:
        raise CannotEvaluate(f"the truth of {describe(value)} depends on the running program")
    return True  # a parser, a lambda, a builtin, an Enum member: all true in Python


# The members of an Enum class read from source, in order, as a `for` over the class sees
# them. The class model is built on these values, so it registers this (declared.py).
class_items: Callable[[ClassRef, Budget], list[Any]] | None = None


def iterate(value: Any, budget: Budget) -> list[Any]:
    """The items a `for` over `value` would see, as a new list."""
    value = resolve(value)
    kind = type(value)
    if kind in SIZED:
        budget.work(len(value))
        if kind is bytes:
            return list(value)
        return list(value)  # a dict gives its keys, a str its characters
    if kind is ClassRef and class_items is not None:
        return class_items(value, budget)
    raise CannotEvaluate(f"cannot iterate over {describe(value)} without running the code")
