"""The Jinja environment pages render in: a sandbox for templates that come with a pull request.

A drift check runs on pull requests from forks, and a project's templates are files of the pull
request, so a template may have been written by anyone. Pages render in Jinja's immutable sandbox
(nothing whose name starts with `_`, no method that changes a list, a dict or a set), narrowed
further:

* Attributes are read only on plain data, on argmatrix's page model (the registry, its arguments,
  the platforms and the views made of them) and on Jinja's own helpers (`loop`, macros,
  `namespace()`...). Nothing leads to a module, a class, a function's globals or a file.
* Every value a template builds (filter and method results, `~`, `*`, `+`, `%`, `**`, macro
  output, the page itself) is measured, and so is time. A page stops with a located error when
  one text passes `MAX_TEXT` characters, when everything it built passes `MAX_BUILT`, or when it
  renders for longer than `RENDER_SECONDS`.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import BuiltinMethodType, MappingProxyType
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.environment import TemplateModule
from jinja2.exceptions import SecurityError
from jinja2.runtime import BlockReference, Context, LoopContext, Macro, TemplateReference
from jinja2.sandbox import MAX_RANGE, ImmutableSandboxedEnvironment
from jinja2.utils import Cycler, Joiner, Namespace, generate_lorem_ipsum
from markupsafe import Markup

from argmatrix._runtime import cache

MAX_TEXT = 16_000_000  # characters (or items) of any one value a template builds
MAX_PAGE = 64_000_000  # characters of a page, or of one macro's output
MAX_BUILT = 256_000_000  # characters (or items) built in all while one page renders
MAX_INT_BITS = 100_000  # about 30,000 decimal digits
MAX_COUNT = 1_000_000  # a width, a count of lines or of slices a filter is asked for
RENDER_SECONDS = 60.0  # one page; the showcase's largest renders in about 20 ms
LIPSUM_WORDS = 10_000

# Changed whenever the code the sandbox compiles changes: Jinja's bytecode cache must never hand
# a sandboxed environment code compiled for another one (or by an older argmatrix).
COMPILED_CODE_VERSION = "page-sandbox-2"

PLAIN_TYPES: tuple[type, ...] = (
    str,
    int,
    float,
    tuple,
    list,
    dict,
    set,
    frozenset,
    MappingProxyType,
    range,
    type(None),
)
JINJA_TYPES: tuple[type, ...] = (
    LoopContext,
    Macro,
    BlockReference,
    TemplateReference,
    TemplateModule,
    Namespace,
    Cycler,
    Joiner,
)


class TemplateLimit(SecurityError):
    """A template went over one of the sandbox's budgets."""


class PageNamespace(Namespace):
    """Jinja's `namespace()`, written without its contents. A namespace can be changed after it
    is made (`{% set ns.a = ... %}`), so what it holds is measured nowhere: pointing each of a
    chain of namespaces twice at the next makes one whose text would be 2^60 characters."""

    def __repr__(self) -> str:
        return "<namespace>"


@dataclass
class Budget:
    """What one page render may still spend. The default one (outside `budget`) has no
    deadline and no total, but every single value stays within MAX_TEXT."""

    deadline: float = math.inf
    remaining: int = MAX_BUILT
    calls: int = 0  # the clock is looked at every 64 calls

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateLimit(f"the page took longer than {RENDER_SECONDS:g} s to render")

    def spend(self, size: int, limit: int = MAX_TEXT) -> None:
        self.remaining -= size
        if size > limit or self.remaining < 0:
            self._refuse(size, limit)

    def _refuse(self, size: int, limit: int) -> None:
        if size > limit:
            raise TemplateLimit(
                f"a value of {size:,} characters or items was built (at most {limit:,})"
            )
        raise TemplateLimit(f"the page built more than {MAX_BUILT:,} characters in all")


_UNLIMITED = Budget(remaining=2**62)


_SIZED = frozenset({str, Markup, list, tuple, dict, set, frozenset})
_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})
_CONTAINER_BASES = (list, tuple, dict, set, frozenset)
MAX_DEPTH = 256  # containers in containers


def _size(value: Any) -> int:
    """A value's size as if written out: a container counts its items and, in full, every text
    and container inside it, however often one is repeated. A template cannot change a list,
    but it can build one that holds another twice, sixty times over (`[x, x]` in a loop): a
    handful of objects that `==`, `hash`, `pprint` or `~` would walk 2^60 times, in C code no
    clock can stop."""
    kind = type(value)
    if kind is str or kind is Markup:
        return len(value)
    if kind not in _CONTAINERS:
        return 0
    return _written_size(value, {}, 0)


def _written_size(value: Any, seen: dict[int, int], depth: int) -> int:
    known = seen.get(id(value))  # one object met again (alive: `value` holds it)
    if known is not None:
        return known
    if depth > MAX_DEPTH:
        raise TemplateLimit(f"a value nested more than {MAX_DEPTH} deep")
    items = itertools.chain.from_iterable(value.items()) if isinstance(value, dict) else value
    total = len(value)
    for item in items:
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, _CONTAINER_BASES):  # groupby's tuples too
            total += _written_size(item, seen, depth + 1)
        if total > MAX_PAGE:  # refused whatever the limit: stop counting
            break
    seen[id(value)] = total
    return total


LOOP_FILTER = "argmatrix_loop"  # what every `{% for %}` iterates through


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles every `{% for %}` to iterate through the LOOP_FILTER (`bounded_iter`, which
    watches the clock; a filter is called directly, with no sandbox check to pay) and every `~`
    through `environment.measured`."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        for loop in node.find_all(nodes.For):  # before the filters a template uses are listed
            loop.iter = nodes.Filter(
                loop.iter, LOOP_FILTER, [], [], None, None, lineno=loop.iter.lineno
            )
        super().visit_Template(node, frame)

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.measured(")
        super().visit_Concat(node, frame)
        self.write(")")

    # List, tuple and dict displays are measured too: `[x, x]` doubles what `x` holds.
    def visit_List(self, node: nodes.List, frame: Frame) -> None:
        self.write("environment.measured(")
        super().visit_List(node, frame)
        self.write(")")

    def visit_Tuple(self, node: nodes.Tuple, frame: Frame) -> None:
        if node.ctx != "load":  # an assignment target: `{% for a, b in ... %}`
            super().visit_Tuple(node, frame)
            return
        self.write("environment.measured(")
        super().visit_Tuple(node, frame)
        self.write(")")

    def visit_Dict(self, node: nodes.Dict, frame: Frame) -> None:
        self.write("environment.measured(")
        super().visit_Dict(node, frame)
        self.write(")")


# The widths a %-format or a str.format specification asks for: `%9999999d`, `{:>9999999}`,
# and widths taken from the arguments: `%*d`, `{:{}}`.
_PERCENT_WIDTH = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\d+|\*)?(?:\.(\d+|\*))?")
_BRACE_WIDTH = re.compile(r"\{[^{}]*:[^{}]*?(\d+)[^{}]*\}")
_BRACE_NESTED = re.compile(r"\{[^{}]*:[^{}]*\{")


def _check_format(text: str, arguments: Iterable[Any]) -> None:
    widths: list[int] = []
    from_arguments = False
    if "%" in text:
        for match in _PERCENT_WIDTH.finditer(text):
            for width in match.groups():
                if width == "*":
                    from_arguments = True
                elif width:
                    widths.append(int(width))
    if "{" in text:
        widths += [int(m.group(1)) for m in _BRACE_WIDTH.finditer(text)]
        from_arguments = from_arguments or _BRACE_NESTED.search(text) is not None
    if from_arguments:
        widths += [a for a in arguments if type(a) is int]
    for width in widths:
        if width > MAX_COUNT:
            raise TemplateLimit(f"a format asks for a width of {width:,} (at most {MAX_COUNT:,})")


def _check_count(value: Any, what: str) -> None:
    if type(value) is int and value > MAX_COUNT:
        raise TemplateLimit(f"{what} of {value:,} was asked for (at most {MAX_COUNT:,})")


def _check_product(size: int, what: str) -> None:
    if size > MAX_TEXT:
        raise TemplateLimit(f"{what} would build {size:,} characters (at most {MAX_TEXT:,})")


def _replaced_size(text: Any, old: Any, new: Any) -> int:
    if not isinstance(text, str) or not isinstance(old, str) or not isinstance(new, str):
        return 0
    count = text.count(old) if old else len(text) + 1
    return len(text) + count * len(new)


def _joined_size(separator: Any, items: list[Any]) -> int:
    try:
        text = sum(map(len, items))  # texts (the common case), or lists and tuples
    except TypeError:  # numbers and other values among them: their text is short
        text = sum(len(item) for item in items if isinstance(item, str))
    return text + len(items) * len(str(separator))


# Checks made before the filters that can build much more than they are given.
def _before_center(value: Any, width: Any = 80, *_: Any, **__: Any) -> None:
    _check_count(width, "a width")


def _before_indent(value: Any, width: Any = 4, *_: Any, **__: Any) -> None:
    lines = str(value).count("\n") + 1
    _check_product(
        len(str(value)) + lines * (width if type(width) is int else len(str(width))), "indent"
    )


def _before_format(value: Any, *args: Any, **kwargs: Any) -> None:
    _check_format(str(value), [*args, *kwargs.values()])


def _before_wordwrap(
    value: Any, width: Any = 79, _long: Any = True, wrapstring: Any = None, *_: Any, **kwargs: Any
) -> None:
    wrap = kwargs.get("wrapstring", wrapstring)
    text = str(value)
    _check_product(len(text) * (1 + len(str(wrap or "\n"))), "wordwrap")


def _before_replace(value: Any, old: Any = "", new: Any = "", *_: Any, **__: Any) -> None:
    _check_product(_replaced_size(str(value), old, new), "replace")


def _before_batch(value: Any, linecount: Any = 1, *_: Any, **__: Any) -> None:
    _check_count(linecount, "a batch size")


def _before_slice(value: Any, slices: Any = 1, *_: Any, **__: Any) -> None:
    _check_count(slices, "a number of slices")


MAX_JSON_INDENT = 16


def _nesting(value: Any, seen: dict[int, int], depth: int = 0) -> int:
    """How deep containers go in `value` (each object looked at once)."""
    if not isinstance(value, _CONTAINER_BASES):
        return 0
    known = seen.get(id(value))
    if known is not None:
        return known
    if depth > MAX_DEPTH:
        raise TemplateLimit(f"a value nested more than {MAX_DEPTH} deep")
    items = value.values() if isinstance(value, dict) else value
    deepest = 1 + max((_nesting(item, seen, depth + 1) for item in items), default=0)
    seen[id(value)] = deepest
    return deepest


def _before_tojson(value: Any, indent: Any = None, *_: Any, **__: Any) -> None:
    """Each line of indented JSON starts with `indent` spaces per level: a wide indent over a
    long list is gigabytes (100,000 numbers at indent=100000 took 9 GB in 30 s)."""
    if indent is None:
        return
    width = indent if type(indent) is int else len(str(indent))
    if width > MAX_JSON_INDENT:
        raise TemplateLimit(f"a JSON indent of {width:,} (at most {MAX_JSON_INDENT})")
    _check_product(_size(value) * (1 + width * _nesting(value, {})), "tojson")


def _before_sum(value: Any, attribute: Any = None, start: Any = 0, *_: Any, **__: Any) -> None:
    """Summing lists copies the total so far at every step, in C code no clock stops: refused
    when that work would pass MAX_BUILT items."""
    if isinstance(start, (list, tuple)) and isinstance(value, (list, tuple)):
        work = len(value) * (_size(value) + _size(start))
        if work > MAX_BUILT:
            raise TemplateLimit(f"sum would copy {work:,} items (at most {MAX_BUILT:,})")


_FILTER_CHECKS: dict[str, Callable[..., None]] = {
    "tojson": _before_tojson,
    "sum": _before_sum,
    "center": _before_center,
    "indent": _before_indent,
    "format": _before_format,
    "wordwrap": _before_wordwrap,
    "replace": _before_replace,
    "batch": _before_batch,
    "slice": _before_slice,
}
_PASSES_FIRST = ("context", "eval_context", "environment")


class PageSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, attributes read only on `readable` types, with budgets."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(
        self, readable: tuple[type, ...], filters: dict[str, Callable[..., Any]], **options: Any
    ) -> None:
        super().__init__(**options)
        self.readable = (*PLAIN_TYPES, *JINJA_TYPES, *readable)
        self._safe: set[tuple[type, str]] = set()
        self.budget = _UNLIMITED
        self.template_files: frozenset[str] = frozenset()
        self.output_format = "markdown"  # what its filters write (a key of formats.FORMATS)
        self.filters.update(filters)
        self.filters = {name: self._measured_filter(name, f) for name, f in self.filters.items()}
        self.filters[LOOP_FILTER] = self.bounded_iter
        self.globals["lipsum"] = _bounded_lipsum
        self.globals["namespace"] = PageNamespace
        self.globals["range"] = _bounded_range

    # ---------------------------------------------------------------- what may be read

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Whether templates may read `attr` of `obj`. Decided by the type alone (Jinja's own
        rules are too), so `getattr` remembers each (type, name) found safe."""
        return isinstance(obj, self.readable) and super().is_safe_attribute(obj, attr, value)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """Jinja's sandboxed `getattr` (an attribute, else an item). Pages read 10^4 attributes:
        one set lookup once a (type, name) is known to be safe."""
        try:
            value = getattr(obj, attribute)
        except AttributeError:
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                return self.undefined(obj=obj, name=attribute)
        key = (type(obj), attribute)
        if key in self._safe:
            return value
        if attribute in ("format", "format_map"):
            wrapped = self.wrap_str_format(value)
            if wrapped is not None:
                return wrapped
        if self.is_safe_attribute(obj, attribute, value):
            if attribute not in ("format", "format_map"):
                self._safe.add(key)
            return value
        return self.unsafe_undefined(obj, attribute)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text = value.__self__

        @functools.wraps(wrapped)
        def checked(*args: Any, **kwargs: Any) -> str:
            mapping = args[0] if args and isinstance(args[0], dict) else {}
            _check_format(text, [*args, *kwargs.values(), *mapping.values()])
            result = wrapped(*args, **kwargs)
            self.spent(result)
            return result

        return checked

    # ---------------------------------------------------------------- what may be built

    def spent(self, value: Any, limit: int = MAX_TEXT) -> Any:
        if type(value) in _SIZED:
            self.budget.spend(_size(value), limit)
        return value

    def measured(self, value: Any) -> Any:
        """What `~` built, and list, tuple and dict displays."""
        if type(value) in _SIZED:
            self.budget.spend(_size(value))
        return value

    def concat(self, parts: Iterable[str]) -> str:
        """Macro output, `{% set %}` blocks and the page itself: measured before they are
        joined; a page's parts come a batch at a time, with the clock checked in between."""
        budget = self.budget
        if isinstance(parts, list):
            budget.spend(sum(map(len, parts)), MAX_PAGE)
            return "".join(parts)
        kept: list[str] = []
        size = 0
        iterator = iter(parts)
        while batch := list(itertools.islice(iterator, 1024)):
            budget.check_time()
            size += sum(map(len, batch))
            if size > MAX_PAGE:
                budget.spend(size, MAX_PAGE)
            kept += batch
        budget.spend(size, MAX_PAGE)
        return "".join(kept)

    def bounded_iter(self, iterable: Iterable[Any]) -> Iterable[Any]:
        """What a loop iterates over: the clock is looked at when the loop starts, and every
        1,024 items of a long one (loops nested in loops over prepared lists make no calls)."""
        budget = self.budget
        if budget.deadline == math.inf:
            return iterable
        budget.check_time()
        if isinstance(iterable, (list, tuple)) and len(iterable) <= 1024:
            return iterable
        return _clocked(iterable, budget)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _check_binop(operator, left, right)
        return self.spent(self.binop_table[operator](left, right))

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        """Jinja's sandboxed call (refusing what is marked unsafe), on the clock, with the
        methods that can build much more than they are given checked first."""
        budget = self.budget
        budget.calls += 1
        if not budget.calls & 63:
            budget.check_time()
        kind = type(obj)
        if kind is Macro:  # the template's own code; its output is measured as it is joined
            return context.call(obj, *args, **kwargs)
        if kind is BuiltinMethodType:
            _check_method(obj, args, kwargs)
        if getattr(obj, "unsafe_callable", False) or getattr(obj, "alters_data", False):
            raise SecurityError(f"{obj!r} is not safely callable")
        result = context.call(obj, *args, **kwargs)
        if type(result) in _SIZED:
            budget.spend(_size(result))
        elif type(result) is Cycler:  # `cycler(x, x)` holds a tuple no display made
            budget.spend(_size(result.items))
        return result

    def _measured_filter(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        """`func` with what it builds measured, and checked first where it can build much more
        than it is given."""
        check = _FILTER_CHECKS.get(name)
        pass_arg = getattr(func, "jinja_pass_arg", None)  # Jinja's pass_context and the like
        skip = 1 if pass_arg is not None and getattr(pass_arg, "name", "") in _PASSES_FIRST else 0

        def measured(*args: Any, **kwargs: Any) -> Any:
            result = func(*args, **kwargs)
            if type(result) in _SIZED:
                self.budget.spend(_size(result))
            return result

        def checked(*args: Any, **kwargs: Any) -> Any:
            if check is not None:
                check(*args[skip:], **kwargs)
            return measured(*args, **kwargs)

        def joined(*args: Any, **kwargs: Any) -> Any:
            if len(args) > skip:
                items = list(args[skip])
                separator = args[skip + 1] if len(args) > skip + 1 else kwargs.get("d", "")
                _check_product(_joined_size(separator, items), "join")
                args = (*args[:skip], items, *args[skip + 1 :])
            return measured(*args, **kwargs)

        def summed(*args: Any, **kwargs: Any) -> Any:
            if len(args) > skip and not isinstance(args[skip], (list, tuple)):
                args = (*args[:skip], list(args[skip]), *args[skip + 1 :])  # map() results
            return checked(*args, **kwargs)

        wrapper = checked if check is not None else joined if name == "join" else measured
        if name == "sum":
            wrapper = summed
        return functools.update_wrapper(wrapper, func)


def _clocked(iterable: Iterable[Any], budget: Budget) -> Iterator[Any]:
    for count, item in enumerate(iterable):
        if not count & 1023:
            budget.check_time()
        yield item


def _check_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        if type(left) is int and type(right) is int:
            if left.bit_length() + right.bit_length() > MAX_INT_BITS:
                raise TemplateLimit(f"a product of more than {MAX_INT_BITS:,} bits")
        elif type(right) is int or type(left) is int:
            times, sized = (right, left) if type(right) is int else (left, right)
            _check_product(_size(sized) * max(times, 0), "'*'")
    elif operator == "**" and type(left) is int and type(right) is int and right > 0:
        if abs(left) > 1 and left.bit_length() * right > MAX_INT_BITS:
            raise TemplateLimit(f"a power of more than {MAX_INT_BITS:,} bits")
    elif operator == "+":
        _check_product(_size(left) + _size(right), "'+'")
    elif operator == "%" and isinstance(left, str):
        values = right if isinstance(right, tuple) else [right]
        _check_format(left, values)


def _check_method(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Methods of a text or a number that can build much more than they are given."""
    if type(obj) is not BuiltinMethodType:
        return
    owner = obj.__self__
    if isinstance(owner, str):
        name = obj.__name__
        if name in ("center", "ljust", "rjust", "zfill") and args:
            _check_count(args[0], "a width")
        elif name == "expandtabs":
            size = args[0] if args else kwargs.get("tabsize", 8)
            _check_product(len(owner) * (size if type(size) is int else 1), "expandtabs")
        elif name == "replace" and len(args) >= 2:
            _check_product(_replaced_size(owner, args[0], args[1]), "replace")
        elif name == "join" and args:
            items = args[0] if isinstance(args[0], (list, tuple)) else ()
            _check_product(_joined_size(owner, list(items)), "join")
        elif name == "translate" and args and isinstance(args[0], dict):
            longest = max((_size(v) for v in args[0].values()), default=1)
            _check_product(len(owner) * max(longest, 1), "translate")
    elif isinstance(owner, int) and getattr(obj, "__name__", "") == "to_bytes" and args:
        _check_count(args[0], "a length")


def _bounded_range(*args: int) -> range:
    """Jinja's sandboxed range (at most MAX_RANGE items), refused as a sandbox limit."""
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise TemplateLimit(f"a range of {len(numbers):,} items (at most {MAX_RANGE:,})")
    return numbers


def _bounded_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    if type(n) is not int or type(max) is not int or n * max > LIPSUM_WORDS:
        raise TemplateLimit(f"lipsum() may write at most {LIPSUM_WORDS:,} words")
    return str(generate_lorem_ipsum(n, html, min, max))


class SaltedBytecodeCache(jinja2.BytecodeCache):
    """Another bytecode cache's entries, under keys of their own: code compiled for the sandbox
    never mixes with code compiled by another environment (or an older argmatrix)."""

    def __init__(self, inner: jinja2.BytecodeCache) -> None:
        self.inner = inner

    def load_bytecode(self, bucket: Any) -> None:
        self.inner.load_bytecode(bucket)

    def dump_bytecode(self, bucket: Any) -> None:
        self.inner.dump_bytecode(bucket)

    def clear(self) -> None:
        self.inner.clear()

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        """Keyed on argmatrix's own code as well: code compiled by an argmatrix whose sandbox
        checked less must not outlive it (Jinja reuses compiled code while the template's
        source is unchanged, and a forgotten COMPILED_CODE_VERSION bump would keep it)."""
        salt = f"{COMPILED_CODE_VERSION}:{cache.code_version()}"
        return super().get_cache_key(f"{salt}:{name}", filename)


@contextlib.contextmanager
def page_budget(env: jinja2.Environment) -> Iterator[None]:
    """A fresh budget (deadline and total) for one page rendered in `env`."""
    if not isinstance(env, PageSandbox):
        yield
        return
    before = env.budget
    env.budget = Budget(time.monotonic() + RENDER_SECONDS, MAX_BUILT)
    try:
        yield
    finally:
        env.budget = before


def template_frame(error: BaseException, env: jinja2.Environment) -> tuple[str, int] | None:
    """The innermost template line in `error`'s traceback (Jinja rewrites tracebacks so that the
    frames of compiled templates name the template file and line)."""
    files: frozenset[str] = getattr(env, "template_files", frozenset())
    found = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename in files:
            found = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return found
