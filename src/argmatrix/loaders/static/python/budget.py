"""The budget of one static read: how much work a registry's source may make the interpreter do.

Static reading interprets code it does not trust (a pull request from a fork may change it), so
every read has bounds: steps, call depth, expression nesting, the size of any value built (and of
all of them together, and of any value counted with every repetition inside it), the bit length
of integers, and processor time. Sizes are checked *before* a value is computed (`"x" * 10**10`
is refused, never attempted), and so is the cost of parsing a module (Python's parser cannot be
stopped half-way).

Steps are the real bound, the same on every machine: each kind of work counts about one step a
microsecond (measured on Python 3.11: a statement or expression node is one step, a helper call
14, a replayed `add_argument` 60 for argparse's, the model's and the page's work, builtins by the
items they go through, parsing by the characters that separate tokens), so that 2,500,000 steps
stop any registry within about 2.5 s. sglang 0.5.7's registry (313 arguments) takes about
340,000 steps (14%), most of them parsing its 224 KB module; a synthetic registry of 10,000
arguments (1.5 MB) about 1,420,000 (57%) and 1.5 s.

Processor time, 4 s of the reading thread's (so that neither a loaded machine nor a host's
other threads count: the synthetic registry above takes 1.5 s, under 2.5 s on a busy machine
whose other core competes for the caches), is the backstop for what steps cannot see: CPython
itself slows down in places, such as a recursion that goes back and forth over a boundary of
its frame stack (a chunk is allocated and freed at every crossing: a loop seven helpers deep
ran four times slower per step).

Exceeding a bound stops the read with a located error (`BudgetExceeded` is turned into an
`ArgmatrixError` where the file and line are known).
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
import time
from _thread import _local
from collections.abc import Iterator

FIX = (
    "static reading stops there to stay safe on untrusted input; if the registry really needs"
    " that much work, simplify the code that builds the parser or read it live"
    " (registry.mode: live, which runs the registry's code)"
)


class Limits:
    """The bounds of one read; every default leaves real registries far below it."""

    __slots__ = (
        "call_depth",
        "int_bits",
        "nesting",
        "seconds",
        "source_bytes",
        "steps",
        "total_size",
        "value_size",
    )

    def __init__(
        self,
        *,
        steps: int = 2_500_000,  # about a microsecond each: see the module docstring
        call_depth: int = 30,  # helpers calling helpers (a Python frame budget lies behind it)
        nesting: int = 100,  # expression and value nesting
        value_size: int = 1_000_000,  # characters of one string, items of one container
        total_size: int = 5_000_000,  # characters and items built during the whole read
        int_bits: int = 10_000,  # about 3,000 digits (Python refuses 4,300 to convert)
        seconds: float = 4.0,  # processor time of the reading thread: a backstop, see above
        source_bytes: int = 8 * 1024 * 1024,  # one module's source file
    ) -> None:
        self.steps = steps
        self.call_depth = call_depth
        self.nesting = nesting
        self.value_size = value_size
        self.total_size = total_size
        self.int_bits = int_bits
        self.seconds = seconds
        self.source_bytes = source_bytes


DEFAULT_LIMITS = Limits()
_CHECK_EVERY = 2048  # steps between two looks at the clock
_CALL_STEPS = 14  # what a call of a helper or a lambda costs, in steps (about its time)


# What parsing costs, in steps, by the characters that separate tokens: Python's parser builds
# objects per token and statement (a line `x` costs it about 7 microseconds, the characters of a
# string literal next to nothing). Measured on Python 3.11: at most about 1.5 microseconds a step.
_WEIGHTS = {
    **dict.fromkeys(b" \t\f=+-*/%<>&|^~@!'\"\\", 2),
    **dict.fromkeys(b",()[]{}.:", 4),
    **dict.fromkeys(b"\n;", 10),
}
_LAMBDA = 12  # `lambda` builds a node of arguments: more than its separators tell
_CLASSES = bytes(_WEIGHTS.get(byte, 0) for byte in range(256))
# Above this estimate, string literals and comments are cut out and the rest counted again (a
# 5 MB help string of prose would otherwise count as code).
_EXACT_ABOVE = 400_000
_STRING_BODY = (  # "unrolled" so that the characters of a long literal go in one run
    rb"(?:'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")'
)
_LITERALS_AT_MOST = 200_000  # quotes; more literals than this: cutting them out would be slow

# The patterns below are compiled when first used (most modules need neither): compiling them
# is a good part of importing this module.


@functools.cache
def _literals() -> re.Pattern[bytes]:
    return re.compile(rb"#[^\n]*|" + _STRING_BODY, re.S)


# Python 3.10 and 3.11 parse each `{field}` of an f-string by going back over the f-string up
# to it: one f-string of 40,000 fields took 2.2 s. Counted as fields x length / this.
@functools.cache
def _fstrings() -> re.Pattern[bytes]:
    return re.compile(rb"(?<![\w'\"])(?:[rRbB]?[fF]|[fF][rRbB])" + _STRING_BODY, re.S)


_FSTRING_QUADRATIC = 2_000
_FSTRING_FIELDS = 256  # fewer braces in a whole module: nothing quadratic worth counting


def _separators(data: bytes) -> int:
    classes = data.translate(_CLASSES)
    return sum(weight * classes.count(weight) for weight in (2, 4, 10)) + _LAMBDA * data.count(
        b"lambda"
    )


def parse_cost(text: str, budget: Budget | None = None) -> int:
    """About how many steps Python's parser takes on `text`: an over-estimate, so that the
    step budget also bounds the time of parsing, which cannot be stopped half-way."""
    data = text.encode("utf-8", "surrogatepass")
    cost = _separators(data)
    quotes = data.count(b"'") + data.count(b'"')
    if cost > _EXACT_ABOVE and quotes <= _LITERALS_AT_MOST:  # a few long literals: cut them out
        cost = _separators(_literals().sub(b"''", data)) + 4 * data.count(b"{")
    fits = budget is None or budget.steps + cost <= budget.limits.steps
    if sys.version_info < (3, 12) and fits and data.count(b"{") > _FSTRING_FIELDS:
        for match in _fstrings().finditer(data):
            literal = match.group()
            cost += literal.count(b"{") * len(literal) // _FSTRING_QUADRATIC
    return cost


class BudgetExceeded(Exception):
    """A bound of the read was reached; the interpreter adds the file and line."""

    def __init__(self, which: str, numbers: str) -> None:
        super().__init__(f"static reading stopped: {which} exceeded ({numbers})")
        self.message = str(self)


# threading.local itself (threading imports _local from _thread), without importing threading:
# a static read is often the only user of threads' own data in a run.
_active = _local()


def active_budget() -> Budget | None:
    """The budget of the read running in this thread (walks of values deep inside the value
    model count their work against it), or None outside a read."""
    found: Budget | None = getattr(_active, "budget", None)
    return found


# A tracer (coverage.py's, a debugger's) runs Python code or C hooks on every line and call:
# CPython does each step two to three times slower under coverage.py (`make test`: a generate of
# the synthetic registry of 10,000 arguments took 2.3-2.4 s of processor time untraced, 4.4-5.9 s
# traced, and a full suite's run was stopped at the 4 s backstop). Steps stay the bound; the
# processor-time backstop, there for CPython's own slow paths, widens as much (tests/helpers.py
# bounds a hostile read's time by the same factor) so that a traced run of a legitimate registry
# is not stopped where an untraced one passes.
TRACED_SLOWDOWN = 3.0


def traced_slowdown() -> float:
    """TRACED_SLOWDOWN while this thread is traced (`sys.settrace`, or a `sys.monitoring`
    tool such as coverage.py's on Python 3.12 and later), else 1."""
    if sys.gettrace() is not None:
        return TRACED_SLOWDOWN
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6)):
        return TRACED_SLOWDOWN
    return 1.0


class Budget:
    """The counters of one read, checked against its `Limits`."""

    __slots__ = ("_next_check", "built", "limits", "seconds", "started", "steps", "weighed")

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.steps = 0
        self.built = 0
        self.seconds = limits.seconds * traced_slowdown()
        self.started = time.thread_time()
        self._next_check = min(_CHECK_EVERY, limits.steps + 1)
        # What `values.weigh` found of a long tuple of no containers, by its id (the tuple is
        # kept with it, so that the id stays its own): the same every time it is weighed.
        self.weighed: dict[int, tuple[tuple[object, ...], int, int]] = {}

    @contextlib.contextmanager
    def active(self) -> Iterator[Budget]:
        """This budget is the thread's `active_budget()` while the read runs."""
        before = active_budget()
        _active.budget = self
        try:
            yield self
        finally:
            _active.budget = before

    # -------------------------------------------------------------- steps and time

    def step(self) -> None:
        """One statement or expression node: the hot path, one addition and one comparison."""
        self.steps += 1
        if self.steps >= self._next_check:
            self._checkpoint()

    def work(self, items: int) -> None:
        """A builtin operation that goes through `items` items (a scan, a sort, a join)."""
        self.steps += 1 + (items >> 5)
        if self.steps >= self._next_check:
            self._checkpoint()

    def visit(self, items: int) -> None:
        """Work done item by item in Python (a loop over names, a walk of values): a step each."""
        self.steps += items
        if self.steps >= self._next_check:
            self._checkpoint()

    def _checkpoint(self) -> None:
        limit = self.limits.steps
        if self.steps > limit:
            raise BudgetExceeded("the step budget", f"{self.steps:,} steps, limit {limit:,}")
        elapsed = time.thread_time() - self.started
        if elapsed > self.seconds:
            raise BudgetExceeded(
                "the time budget", f"{elapsed:.1f} s of processor time, limit {self.seconds:g} s"
            )
        self._next_check = min(self.steps + _CHECK_EVERY, limit + 1)

    def parse(self, cost: int, what: str) -> None:
        """About to parse source estimated at `cost` steps (see `parse_cost`): refused before
        it starts, since a parse cannot be stopped half-way."""
        if self.steps > self.limits.steps:
            self._checkpoint()  # over already: the plain message
        if self.steps + cost > self.limits.steps:
            raise BudgetExceeded(
                "the step budget",
                f"{what} would take about {cost:,} steps, {self.steps:,} used,"
                f" limit {self.limits.steps:,}",
            )
        self.steps += cost
        self._checkpoint()

    def check_time(self) -> None:
        """Between two steps that may each take long (parsing a module)."""
        self._checkpoint()

    # -------------------------------------------------------------- sizes

    def size(self, items: int, what: str = "a value", added: int | None = None) -> None:
        """About to build `what` of `items` characters or items, `added` of them new (all of
        them unless said): refuse before building it."""
        if items > self.limits.value_size:
            raise BudgetExceeded(
                "the size budget",
                f"{what} of {items:,} items, limit {self.limits.value_size:,}",
            )
        new = items if added is None else added
        self.built += new
        if self.built > self.limits.total_size:
            raise BudgetExceeded(
                "the total size budget",
                f"{self.built:,} items built, limit {self.limits.total_size:,}",
            )
        if new > 1024:
            self.work(new)

    def int_bits(self, bits: int) -> None:
        """About to build an integer of about `bits` bits."""
        if bits > self.limits.int_bits:
            raise BudgetExceeded(
                "the integer size budget", f"about {bits:,} bits, limit {self.limits.int_bits:,}"
            )

    def nesting(self, depth: int, what: str = "expression nesting") -> None:
        if depth > self.limits.nesting:
            raise BudgetExceeded(
                f"the {what} budget", f"depth {depth}, limit {self.limits.nesting}"
            )

    def calls(self, depth: int) -> None:
        """A call, `depth` calls deep: it costs steps of its own (setting up a scope)."""
        self.steps += _CALL_STEPS
        if depth > self.limits.call_depth:
            raise BudgetExceeded(
                "the call depth budget", f"depth {depth}, limit {self.limits.call_depth}"
            )

    def source(self, size: int) -> None:
        if size > self.limits.source_bytes:
            raise BudgetExceeded(
                "the source size budget",
                f"{size:,} bytes, limit {self.limits.source_bytes:,}",
            )
