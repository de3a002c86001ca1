"""Static reading as a sandbox: hostile registries read through the real command line.

Each case is a registry module a pull request from a fork could contain. It is read with a
canary file on disk and a canary secret in the environment, and every case must: change nothing
on disk, let neither secret reach any output (stdout, stderr, the exported JSON, a generated
page), write no Python repr of an object (`<function ... at 0x...>`), print no traceback and no
raw control character, leave this process's modules and environment as they were, and end in
under 5 s with exit 2 (a located error) or a correct registry. Hypothesis composes the attacks
into random registries and checks the same.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argmatrix.loaders.static.loader import MAX_DIAGNOSTICS
from helpers import (
    HOSTILE,
    SANDBOX_MODULE,
    Outcome,
    read_hostile,
    run_cli_in_process,
    stopped,
    unevaluated,
)

# Every test here reads with the canary secret in the environment.
pytestmark = [
    pytest.mark.usefixtures("static_canary_environment"),
    pytest.mark.hostile,  # a hostile-input suite: slow by design, left out of make test-fast
]

HEAD = """\
import argparse
import importlib
import os
import pathlib
import shutil
import subprocess
import sys

CANARY = {canary!r}
"""


def module(body: str, top: str = "") -> str:
    """A registry module: the head, top-level code, and `build()` running `body`."""
    return (
        HEAD
        + textwrap.dedent(top)
        + "\n\ndef build():\n    parser = argparse.ArgumentParser(prog='hostile')\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n    parser.add_argument('--last', default=1)\n    return parser\n"
    )


# ------------------------------------------------------------------ the cases

Check = Callable[[Outcome], None]


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    check: Check


def _ok(*flags_and_fields: tuple[str, str]) -> Check:
    """The read succeeds, and each (flag, field) is kept as source text with a warning."""

    def check(outcome: Outcome) -> None:
        assert outcome.export.code == 0, outcome.export.err
        for flag, field in flags_and_fields:
            unevaluated(outcome, flag, field)
        outcome.argument("--last")

    return check


def _read_from_environment(
    fields: tuple[tuple[str, str], ...], *defaults: tuple[str, dict[str, object]]
) -> Check:
    """The read succeeds, each (flag, field) of `fields` is kept as source text, and each
    default of `defaults` is the fact that the program reads a variable (its JSON form): the
    variable's name, never its value here."""

    def check(outcome: Outcome) -> None:
        _ok(*fields)(outcome)
        for flag, fact in defaults:
            assert outcome.argument(flag)["default"] == {"environment": fact}
            assert not [w for w in outcome.warnings() if f"{flag}:" in w]

    return check


def _stops(which: str) -> Check:
    def check(outcome: Outcome) -> None:
        stopped(outcome, which)

    return check


CASES = [
    # -------------------------------------------------------------- the file system
    Case(
        "fs: argparse._os.replace",
        module("""
        argparse._os.replace(CANARY, CANARY + ".moved")
        argparse._os.remove(CANARY)
    """),
        _ok(),
    ),
    Case(
        "fs: open() to write and read",
        module("""
        open(CANARY, "w").write("pwned")
        parser.add_argument("--a", help=open(CANARY).read())
    """),
        _ok(("--a", "help")),
    ),
    Case(
        "fs: os and pathlib",
        module("""
        from os import remove as rm
        rm(CANARY)
        os.remove(CANARY)
        os.unlink(CANARY)
        pathlib.Path(CANARY).unlink()
        shutil.rmtree(os.path.dirname(CANARY))
        parser.add_argument("--a", default=pathlib.Path(CANARY).read_text())
    """),
        _ok(("--a", "default")),
    ),
    Case(
        "fs: processes",
        module("""
        subprocess.run(["rm", CANARY])
        os.system("rm " + CANARY)
        parser.add_argument("--a", default=subprocess.check_output(["cat", CANARY]))
    """),
        _ok(("--a", "default")),
    ),
    # -------------------------------------------------------------- the environment
    Case(
        "env: os.environ and os.getenv",
        module("""
        parser.add_argument("--a", default=os.environ["ARGMATRIX_CANARY"])
        parser.add_argument("--b", help=f"token {os.getenv('ARGMATRIX_CANARY')}")
        parser.add_argument("--c", default=dict(os.environ))
        parser.add_argument("--d", default=os.getenv("ARGMATRIX_CANARY", "none"))
        parser.add_argument("--e", help=os.getenv("ARGMATRIX_CANARY"))
    """),
        _read_from_environment(
            (("--b", "help"), ("--c", "default"), ("--e", "help")),
            ("--a", {"variable": "ARGMATRIX_CANARY", "required": True}),
            ("--d", {"variable": "ARGMATRIX_CANARY", "otherwise": "none"}),
        ),
    ),
    Case(
        "env: through argparse's own os",
        module("""
        parser.add_argument("--a", default=argparse._os.environ.get("ARGMATRIX_CANARY"))
        parser.add_argument("--b", help="{0._os.environ[ARGMATRIX_CANARY]}".format(argparse))
        parser.add_argument("--c", help=f"{argparse._os.environ}")
        parser.add_argument("--d", help="{ARGMATRIX_CANARY}".format_map(os.environ))
        parser.add_argument("--e", help="%(ARGMATRIX_CANARY)s" % os.environ)
    """),
        _ok(("--a", "default"), ("--b", "help"), ("--c", "help"), ("--d", "help"), ("--e", "help")),
    ),
    Case(
        "env: a module constant",
        module(
            """
        parser.add_argument("--a", default=TOKEN)
    """,
            top='TOKEN = os.environ.get("ARGMATRIX_CANARY", "none")\n',
        ),
        _read_from_environment((), ("--a", {"variable": "ARGMATRIX_CANARY", "otherwise": "none"})),
    ),
    # -------------------------------------------------------------- imports
    Case(
        "imports: __import__ and importlib",
        module("""
        __import__("os").remove(CANARY)
        importlib.import_module("os").remove(CANARY)
        importlib.reload(argparse)
        parser.add_argument("--a", default=__import__("os").environ["ARGMATRIX_CANARY"])
    """),
        _ok(("--a", "default")),
    ),
    Case(
        "imports: sys.modules replaced",
        module(
            """
        argparse._sys.modules.update({"json": None})
        sys.modules["argmatrix.render"] = sys.modules["os"]
        sys.modules.clear()
        import json
        json.loads = None
    """,
            top='sys.modules["json"] = None\nsys.modules.pop("argmatrix._runtime.cache", None)\n',
        ),
        _ok(),
    ),
    # -------------------------------------------------------------- introspection
    Case(
        "introspection: __class__, __subclasses__, mro",
        module("""
        parser.add_argument("--a", default="".__class__.__base__.__subclasses__())
        parser.add_argument("--b", default=str.mro())
        parser.add_argument("--c", default=type(parser).__init__.__globals__)
        parser.add_argument("--d", default=int.__mro__)
    """),
        _ok(("--a", "default"), ("--b", "default"), ("--c", "default"), ("--d", "default")),
    ),
    Case(
        "introspection: __globals__, __builtins__, __dict__, vars",
        module("""
        parser.add_argument("--a", default=build.__globals__["CANARY"])
        parser.add_argument("--b", help=str(__builtins__))
        parser.add_argument("--c", default=parser.__dict__)
        parser.add_argument("--d", default=vars(parser))
        parser.add_argument("--e", default=(lambda: 0).__code__)
    """),
        _ok(
            ("--a", "default"),
            ("--b", "help"),
            ("--c", "default"),
            ("--d", "default"),
            ("--e", "default"),
        ),
    ),
    Case(
        "introspection: getattr with a computed name",
        module("""
        getattr(argparse, "_o" + "s").remove(CANARY)
        parser.add_argument("--a", default=getattr(parser, "__cl" + "ass__"))
    """),
        # a call handed the parser that static reading does not run may add arguments
        _stops("`getattr(...)` is handed a parser"),
    ),
    Case(
        "introspection: the parser's insides",
        module("""
        parser._actions.clear()
        parser._registries["action"]["store"] = None
        parser.add_argument.__self__._option_string_actions.clear()
        parser.add_argument.__func__.__globals__["_os"].remove(CANARY)
        group = parser.add_argument_group("g")
        group._group_actions.clear()
        parser.add_argument("--a", default=parser.prog)
    """),
        _stops("is what argparse keeps to itself"),  # `parser._actions.clear()` empties it
    ),
    # -------------------------------------------------------------- format strings
    Case(
        "format: attribute fields",
        module("""
        parser.add_argument("--a", help="{0.__class__}".format(parser))
        parser.add_argument("--b", help="{0._os.environ}".format(argparse))
        parser.add_argument("--c", help="{0.__init__.__globals__}".format(parser))
        parser.add_argument("--d", help="{x.__class__}".format_map({"x": 1}))
    """),
        _ok(("--a", "help"), ("--b", "help"), ("--c", "help"), ("--d", "help")),
    ),
    Case(
        "format: no repr of a class, function or module",
        module(
            """
        class Options:
            pass
        parser.add_argument("--a", help="{}".format(Options))
        parser.add_argument("--b", help=str(build))
        parser.add_argument("--c", help=f"{argparse}")
        parser.add_argument("--d", help="%s" % (argparse.ArgumentParser,))
        parser.add_argument("--e", help=repr(os.path))
        parser.add_argument("--f", help="{!r}".format(Options))
    """,
            top="class Options:\n    pass\n",
        ),
        _ok(
            ("--a", "help"),
            ("--b", "help"),
            ("--c", "help"),
            ("--d", "help"),
            ("--e", "help"),
            ("--f", "help"),
        ),
    ),
    Case(
        "format: an f-string width of 10**9",
        module("""
        parser.add_argument("--a", help=f"{1!r:>{10**9}}")
    """),
        _stops("size budget"),
    ),
    Case(
        "format: a str.format width of 10**9",
        module("""
        parser.add_argument("--a", help="{:>{}}".format("a", 10**9))
    """),
        _stops("size budget"),
    ),
    Case(
        "format: a %-width of 10**9",
        module("""
        parser.add_argument("--a", help="%(a)999999999s" % {"a": 1})
    """),
        _stops("size budget"),
    ),
    Case(
        "format: a help placeholder width of 10**9",
        module("""
        parser.add_argument("--a", default=1, help="%(default)999999999d")
    """),
        _stops("size budget"),
    ),
    # -------------------------------------------------------------- decorators, metaclasses
    Case(
        "decorators on the builder and inside it",
        """\
import argparse
import functools
import os


def evil(function):
    os.remove(CANARY)
    return function


@evil
@functools.lru_cache(maxsize=None)
def build():
    @evil
    def helper(p):
        p.add_argument("--from-helper", default=2)

    parser = argparse.ArgumentParser(prog="hostile")
    helper(parser)
    parser.add_argument("--last", default=1)
    return parser


CANARY = {canary!r}
""",
        _ok(),
    ),
    Case(
        "decorators that fill a registry at import",
        module(
            """
        parser.add_argument("--kind", choices=list(REGISTRY))
    """,
            top="""
        REGISTRY = {}

        def register(cls):
            REGISTRY[cls.__name__] = cls
            return cls

        @register
        class First:
            pass
    """,
        ),
        _ok(("--kind", "choices")),
    ),
    Case(
        "metaclasses",
        module(
            """
        parser.add_argument("--a", default=Options.port)
        parser.add_argument("--b", default=Options.anything)
    """,
            top="""
        class Meta(type):
            def __getattr__(cls, name):
                os.remove(CANARY)
                return os.environ["ARGMATRIX_CANARY"]

        class Options(metaclass=Meta):
            port = 8000
    """,
        ),
        _ok(("--b", "default")),
    ),
    # -------------------------------------------------------------- exec, eval, compile
    Case(
        "exec, eval, compile",
        module("""
        exec("import os; os.remove(CANARY)")
        eval("__import__('os').remove(CANARY)")
        code = compile("import os", "x", "exec")
        parser.add_argument("--a", default=eval("1 + 1"))
        parser.add_argument("--b", default=exec)
    """),
        # code given as text is never run, and what it would add is not known: the read
        # stops at the first of them (issue 21)
        _stops("runs code given as text"),
    ),
    # -------------------------------------------------------------- loops and recursion
    Case(
        "loops: while True",
        module("""
        while True:
            pass
    """),
        # The step budget, or on a slow machine (or under coverage tracing) the processor-time
        # backstop: either way the read stops at the loop's line.
        _stops("budget exceeded"),
    ),
    Case(
        "loops: nested",
        module("""
        for i in range(10**6):
            for j in range(10**6):
                pass
    """),
        _stops("budget exceeded"),
    ),
    Case(
        "loops: a list growing forever",
        module("""
        grow = []
        while True:
            grow.append(1)
    """),
        _stops("budget"),
    ),
    Case(
        "recursion: a helper calling itself",
        module("""
        def again(p):
            again(p)
            again(p)
        again(parser)
    """),
        _stops("call depth budget"),
    ),
    Case(
        "recursion: a helper calling itself three times, twelve deep",
        module("""
        def fan(p, depth):
            if depth > 0:
                fan(p, depth - 1)
                fan(p, depth - 1)
                fan(p, depth - 1)
        fan(parser, 12)
    """),
        # Steps, or processor time where CPython's frame stack thrashes (see loaders/static/python/budget.py).
        _stops("budget exceeded"),
    ),
    Case(
        "recursion: a lambda key calling itself",
        module("""
        fact = lambda n: 1 if n == 0 else n * fact(n - 1)
        parser.add_argument("--a", default=sorted([5000], key=fact))
    """),
        _stops("call depth budget"),
    ),
    # -------------------------------------------------------------- huge values
    Case("huge: 10**10**8", module("x = 10**10**8"), _stops("integer size budget")),
    Case("huge: 1 << 10**9", module("x = 1 << 10**9"), _stops("integer size budget")),
    Case("huge: 'x' * 10**10", module('x = "x" * 10**10'), _stops("size budget")),
    Case("huge: join of a huge list", module('x = "".join(["ab"] * 10**6)'), _stops("size budget")),
    Case(
        "huge: range(10**12)",
        module("""
        parser.add_argument("--a", choices=range(10**12))
    """),
        _stops("size budget"),
    ),
    Case("huge: [0] * 10**9", module("x = [0] * 10**9"), _stops("size budget")),
    Case(
        "huge: a string doubled 64 times",
        module("""
        text = "a"
        for _ in range(64):
            text = text + text
    """),
        _stops("size budget"),
    ),
    Case(
        "huge: a list nested 200 deep",
        module("""
        deep = []
        for _ in range(200):
            deep = [deep]
        parser.add_argument("--a", help=str(deep))
    """),
        _stops("nesting budget"),
    ),
    Case(
        "huge: an integer literal of 5,000 digits",
        module("x = 1" + "0" * 5000),
        _stops("syntax error"),
    ),
    Case(
        "huge: an expression nested 150 deep",
        module("x = " + "-" * 150 + "1"),
        _stops("nesting budget"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_hostile_registry_runs_nothing(case: Case, tmp_path: Path) -> None:
    case.check(read_hostile(tmp_path, case.source))


# ------------------------------------------------------------------ values, never invented


def test_a_lambda_or_function_key_is_evaluated_not_guessed(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module(
            """
        parser.add_argument("--a", default=sorted(["b", "a", "C"], key=lambda s: s.lower()))
        parser.add_argument("--b", default=max([3, 1, 2], key=lambda v: -v))
        parser.add_argument("--c", default=sorted(["bb", "a", "ccc"], key=len, reverse=True))
        parser.add_argument("--d", default=min(["xy", "z"], key=weight))
        parser.add_argument("--e", default=sorted(["b", "a"], key=os.path.getsize))
    """,
            top="def weight(text):\n    return len(text)\n",
        ),
    )
    assert outcome.argument("--a")["default"] == ["a", "b", "C"]
    assert outcome.argument("--b")["default"] == 1
    assert outcome.argument("--c")["default"] == ["ccc", "bb", "a"]
    assert outcome.argument("--d")["default"] == "z"
    assert "getsize" in unevaluated(outcome, "--e", "default")


def test_top_level_changes_of_a_constant_are_followed(tmp_path: Path) -> None:
    outcome = read_hostile(tmp_path, (HOSTILE / "mutations_cli.py").read_text())
    assert outcome.argument("--names")["choices"] == ["a", "b", "c", "d", "e", "f"]
    assert outcome.argument("--table")["default"] == {"a": 1, "b": 2, "c": 3}
    assert outcome.argument("--port")["default"] == 9000
    assert outcome.argument("--sizes")["default"] == [8, 16, 32]
    for name in ("`NAMES`", "`TABLE`", "`PORT`", "`SIZES`"):  # followed: nothing to say
        assert name not in outcome.export.err


def test_changes_static_reading_cannot_follow_make_the_value_unknown(tmp_path: Path) -> None:
    outcome = read_hostile(tmp_path, (HOSTILE / "mutations_cli.py").read_text())
    reasons = {
        "--platform-names": "condition static reading cannot decide",
        "--alias": "changed again at line",
        "--plugins": "filled by `register`",
        "--patched": "assigned again at line",
        "--two-names": "together with",
    }
    for flag, reason in reasons.items():
        field = "choices" if flag in ("--platform-names", "--plugins") else "default"
        unevaluated(outcome, flag, field)
        assert any(flag in w and reason in w for w in outcome.warnings()), (
            flag,
            outcome.warnings(),
        )


def test_a_name_changed_at_the_top_level_is_never_read_one_statement_alone() -> None:
    from argmatrix.loaders.static.reader import SourceModule, StatementOutline, StaticLoader

    text = (HOSTILE / "mutations_cli.py").read_text()
    for name in ("NAMES", "TABLE", "PORT", "SIZES", "PLATFORM_NAMES", "PLUGINS"):
        assert StatementOutline(text).lone_binding(name) is None, name
    lazy = SourceModule("m", Path("m.py"), text, StaticLoader([], "m"), lazy=True)
    assert lazy.global_value("NAMES") == ["a", "b", "c", "d", "e", "f"]
    assert lazy.tree is not None  # parsed whole to follow the changes


def test_a_format_of_a_class_never_writes_a_memory_address(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module(
            """
        parser.add_argument("--a", help="{}".format(Options))
        parser.add_argument("--b", help=f"{Options.__name__}")
        parser.add_argument("--c", help="{} and {}".format("x", 2))
    """,
            top="class Options:\n    pass\n",
        ),
    )
    assert unevaluated(outcome, "--a", "help") == '"{}".format(Options)'
    unevaluated(outcome, "--b", "help")
    assert outcome.argument("--c")["help"] == "x and 2"


# ------------------------------------------------------------------ never silent


def test_what_is_read_with_a_doubt_is_reported(tmp_path: Path) -> None:
    """Arguments read although a condition or a loop could not be decided: there, said."""
    outcome = read_hostile(
        tmp_path,
        module("""
        if os.environ.get("FEATURE"):
            parser.add_argument("--feature")
        for name in os.listdir("."):
            parser.add_argument("--listed")
    """),
    )
    assert outcome.export.code == 0
    flags = [a["flags"] for a in outcome.registry["arguments"]]
    assert ["--feature"] in flags and ["--listed"] in flags
    text = "\n".join(outcome.warnings())
    assert 'the condition `os.environ.get("FEATURE")` cannot be decided' in text
    assert 'the loop over `os.listdir(".")` cannot be followed' in text and "read once" in text
    data = json.loads(outcome.export.out)["registry"]["diagnostics"]
    assert {d["message"] for d in data} == {w.split(": ", 3)[3] for w in outcome.warnings()}
    lines = {int(w.split(":")[3]) for w in outcome.warnings()}
    source = (tmp_path / "project" / f"{SANDBOX_MODULE}.py").read_text().splitlines()
    assert all(source[line - 1].strip() for line in lines)


LONG_HELPER = "add_" + "x" * 420
UNDECIDED = "".join(
    f"""
        if os.environ.get("F{i}"):
            parser.add_argument("--f{i}")"""
    for i in range(MAX_DIAGNOSTICS + 5)
)
MISSED = {
    "an object it cannot follow": (
        """
        group = make_group(parser)
        group.add_argument("--lost")
    """,
        "group = make_group(parser)",
        "`make_group(...)` is handed a parser",
    ),
    "a call of another package handed the parser": (
        """
        from othertool import extra_arguments
        extra_arguments(parser)
    """,
        "extra_arguments(parser)",
        "`extra_arguments(...)` is handed a parser",
    ),
    "a parser inside a list handed to a call": (
        """
        from othertool import register
        register([parser])
    """,
        "register([parser])",
        "`register(...)` is handed a parser",
    ),
    "a parser's bound method handed to a call": (
        """
        from othertool import register_one
        register_one(parser.add_argument)
    """,
        "register_one(parser.add_argument)",
        "`register_one(...)` is handed a parser",
    ),
    "an argument changed after it was added": (
        """
        action = parser.add_argument("--x", default=1)
        action.default = 2
    """,
        "action.default = 2",
        "changes an argument or parser after it was made",
    ),
    "an argument handed to a call that may change it": (
        """
        action = parser.add_argument("--y", default=1)
        setattr(action, "default", 3)
    """,
        'setattr(action, "default", 3)',
        "`setattr(...)` is handed a parser",
    ),
    "argparse's own list of actions": (
        """
        parser.add_argument("--x", default=1)
        for action in parser._actions:
            action.required = True
    """,
        "for action in parser._actions:",
        "is what argparse keeps to itself",
    ),
    "a match statement": (
        """
        match sys.platform:
            case "linux":
                parser.add_argument("--matched")
    """,
        "match sys.platform:",
        "`Match` statement is not read statically",
    ),
    # What is said of it is cut to the length of a diagnostic: it stops all the same.
    "a helper handed the parser, named past the length of a message": (
        f"""
        {LONG_HELPER}(parser)
    """,
        f"{LONG_HELPER}(parser)",
        "is handed a parser",
    ),
    # After more warnings than a read shows (each condition below is one): it stops all the same.
    "a call handed the parser after more warnings than a read shows": (
        UNDECIDED
        + """
        from othertool import extra_arguments
        extra_arguments(parser)
    """,
        "extra_arguments(parser)",
        "`extra_arguments(...)` is handed a parser",
    ),
}


@pytest.mark.parametrize("kind", sorted(MISSED))
def test_a_read_missing_arguments_stops_at_the_statement(kind: str, tmp_path: Path) -> None:
    """Never part of a registry returned as if whole: the read stops (exit 2) at the statement
    whose arguments it could not read, saying why."""
    body, statement, words = MISSED[kind]
    outcome = read_hostile(tmp_path, module(body))
    line = stopped(outcome, words)
    source = (tmp_path / "project" / f"{SANDBOX_MODULE}.py").read_text().splitlines()
    number = int(line.split(f"{SANDBOX_MODULE}.py:")[1].split(":")[0])
    assert statement in source[number - 1]
    assert "static reading stopped" in line and "registry.mode: live" in line


def test_branches_that_add_the_same_arguments_need_no_warning(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module("""
        if sys.platform == "win32":
            parser.add_argument("--device", default="cpu")
        else:
            parser.add_argument("--device", default="cpu")
        if sys.platform == "win32":
            workers = 1
        else:
            workers = 4
        parser.add_argument("--workers", default=workers)
    """),
    )
    assert outcome.argument("--device")["default"] == "cpu"
    assert "--device" not in outcome.export.err
    reason = [w for w in outcome.warnings() if "--workers" in w]
    assert reason and "set differently by the branches of the condition" in reason[0]


def test_control_characters_in_a_registry_are_escaped_on_stderr(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module("""
        parser.add_argument("--x\\n::error::pwned\\x1b[31m", default=os.environ.get("\\x1b]0;t\\x07"))
    """),
    )
    assert outcome.export.code == 0
    (line,) = outcome.warnings()
    assert "\\n::error::pwned\\x1b[31m" in line and "\\x1b]0;t\\x07" in line


def test_diagnostics_survive_the_cache_and_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARGMATRIX_NO_CACHE")
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "p"
    project.mkdir()
    (project / f"{SANDBOX_MODULE}.py").write_text(
        module("""
        parser.add_argument("--a", default=os.cpu_count())
    """).replace("{canary!r}", "'x'")
    )
    first = run_cli_in_process(
        "export", "--registry", f"{SANDBOX_MODULE}:build", "--static", cwd=project
    )
    again = run_cli_in_process(
        "export", "--registry", f"{SANDBOX_MODULE}:build", "--static", cwd=project
    )
    assert first.code == again.code == 0
    assert first.err == again.err and "--a: default kept as source text" in first.err
    assert first.out == again.out
    snapshot = project / "snap.json"
    made = run_cli_in_process(
        "snapshot",
        "--registry",
        f"{SANDBOX_MODULE}:build",
        "--static",
        "-o",
        str(snapshot),
        cwd=project,
    )
    assert made.code == 0
    from_snapshot = run_cli_in_process("export", "--registry", str(snapshot), cwd=project)
    assert from_snapshot.err == first.err
    assert (
        json.loads(from_snapshot.out)["registry"]["diagnostics"]
        == json.loads(first.out)["registry"]["diagnostics"]
    )


def test_sglang_is_read_without_a_warning() -> None:
    from argmatrix.loaders.load import RegistrySpec, load_registry

    registry = load_registry(
        RegistrySpec("sglang.srt.server_args:ServerArgs.add_cli_args", mode="static")
    )
    assert len(registry.arguments) == 313
    assert registry.diagnostics == ()


def test_each_read_has_its_own_state(tmp_path: Path) -> None:
    """Class values and stand-in actions belong to one read: a long-lived process (mkdocs serve)
    does not accumulate them, and an edit is seen by the next read."""
    from argmatrix.loaders.static import reader as static

    project = tmp_path / "p"
    project.mkdir()
    source = (
        "import argparse\n\nclass Args:\n    port = {port}\n\n"
        "class Custom(argparse.Action):\n    pass\n\n"
        "def build():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--port', default=Args.port, action=Custom)\n"
        "    return parser\n"
    )
    ports = []
    for port in (1, 2):
        (project / "per_read.py").write_text(source.format(port=port))
        parser = static.load_static("per_read:build", project, []).parser
        (action,) = [a for a in parser._actions if a.option_strings == ["--port"]]
        ports.append((action.default, type(action)))
    assert [p for p, _ in ports] == [1, 2]
    assert ports[0][1] is not ports[1][1]  # a stand-in class of each read
    assert not [
        name
        for name in vars(static)
        if name.startswith(("_class_values", "_members_by_class", "_placeholder"))
    ]


# ------------------------------------------------------------------ the budget itself


def test_each_budget_names_itself_and_its_numbers(tmp_path: Path) -> None:
    from argmatrix.errors import ArgmatrixError
    from argmatrix.loaders.static.python.budget import Limits
    from argmatrix.loaders.static.reader import load_static

    (tmp_path / "small.py").write_text(
        "import argparse\n\nNAMES = ['a'] * 20\n\n"
        "def build():\n    parser = argparse.ArgumentParser()\n"
        "    for name in NAMES:\n        pass\n"
        "    parser.add_argument('--a', help='x' * 40)\n    return parser\n"
    )
    limits = {
        "the step budget exceeded": Limits(steps=30),
        "the size budget exceeded (a list of 20 items, limit 10)": Limits(value_size=10),
        "the size budget exceeded (a str of 40 items, limit 30)": Limits(value_size=30),
    }
    for message, limit in limits.items():
        with pytest.raises(ArgmatrixError) as caught:
            load_static("small:build", tmp_path, [], limit)
        problem = caught.value.problems[0]
        assert message in problem.message and problem.message.startswith("static reading stopped: ")
        assert problem.file == str(tmp_path / "small.py") and problem.line is not None
        assert problem.fix and "registry.mode: live" in problem.fix
    load_static("small:build", tmp_path, [])  # the defaults leave it far below


# ------------------------------------------------------------------ hypothesis: composed attacks

ATTACKS = [
    'argparse._os.environ["ARGMATRIX_CANARY"]',
    'os.environ.get("ARGMATRIX_CANARY")',
    "open(CANARY).read()",
    "argparse._os.remove(CANARY)",
    '"{0._os.environ[ARGMATRIX_CANARY]}".format(argparse)',
    '"{}".format(argparse.ArgumentParser)',
    '"%s" % (build,)',
    "str(build)",
    '__import__("os").environ["ARGMATRIX_CANARY"]',
    'getattr(argparse, "_os").environ',
    '"".__class__.__mro__[1].__subclasses__()',
    "10**10**8",
    '"x" * 10**10',
    "list(range(10**12))",
    'sorted(["b", "a"], key=lambda s: s)',
    'eval("1")',
    'vars(argparse)["_os"].environ',
    "pathlib.Path(CANARY).read_text()",
    'f"{argparse._os.environ}"',
    '"{:>{}}".format("a", 10**9)',
    "type(parser).__init__.__globals__",
    "parser.add_argument.__self__",
    'argparse.SUPPRESS + os.environ["ARGMATRIX_CANARY"]',
    "[CANARY_VALUE]",
    "dict(os.environ)",
    # values that repeat values a thousand times over (red team: see test_static_redteam)
    'str([[["x" * 1000] * 1000] * 1000])',
    "{((tuple(range(1000)),) * 1000,) * 1000}",
    '"%s" * 1000 % (("x" * 900_000,) * 1000)',
    "[[[1] * 1000] * 1000] * 1000 == [[[1] * 1000] * 1000] * 1000",
]
PLACES = [
    'parser.add_argument("--p", default={x})',
    'parser.add_argument("--p", help={x})',
    'parser.add_argument("--p", choices=[{x}])',
    'parser.add_argument("--p", help="v={{}}".format({x}))',
    'parser.add_argument("--p", default=CONST)',
    'if {x}:\n    parser.add_argument("--p")',
    'for item in [{x}]:\n    parser.add_argument("--p", default=item)',
    "helper(parser, {x})",
    'kw = {{"default": {x}}}\nparser.add_argument("--p", **kw)',
    'parser.add_argument("--p", type=lambda s: {x})',
    "parser.set_defaults(p={x})",
    'sub = parser.add_subparsers().add_parser("run", help={x})',
]
WRAPPERS = [
    "{body}",
    "if True:\n{indented}",
    "for _ in [1]:\n{indented}",
    "def inner(parser):\n{indented}\ninner(parser)",
]


@st.composite
def hostile_modules(draw: st.DrawFn) -> str:
    attack = draw(st.sampled_from(ATTACKS))
    place = draw(st.sampled_from(PLACES))
    body = place.format(x=attack)
    for wrapper in draw(st.lists(st.sampled_from(WRAPPERS), max_size=2)):
        body = wrapper.format(body=body, indented=textwrap.indent(body, "    "))
    top = (
        f"CONST = {attack}\nCANARY_VALUE = os.environ['ARGMATRIX_CANARY']\n\n"
        "def helper(p, value):\n    p.add_argument('--h', default=value)\n"
    )
    return module(body, top=top)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(hostile_modules())
def test_composed_attacks_keep_every_invariant(
    tmp_path_factory: pytest.TempPathFactory, source: str
) -> None:
    outcome = read_hostile(tmp_path_factory.mktemp("composed"), source, generate=False)
    if outcome.export.code == 2:
        assert outcome.export.err.count("\n") == 1 and f"{SANDBOX_MODULE}.py:" in outcome.export.err
    else:
        outcome.argument("--last")


def test_generate_and_check_print_the_warnings_too(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module("""
        parser.add_argument("--a", default=os.cpu_count())
    """),
    )
    assert outcome.generate is not None
    project = tmp_path / "project"
    checked = run_cli_in_process("check", cwd=project)
    # export and generate say it on stderr; check reports it as one of its findings
    for run in (outcome.export, outcome.generate, checked):
        said = (run.err + run.out).splitlines()
        lines = [line for line in said if "warning:" in line or "warning[" in line]
        assert len(lines) == 1, (run.out, run.err)
        assert (
            f"{SANDBOX_MODULE}.py:" in lines[0] and "--a: default kept as source text" in lines[0]
        )
    assert checked.code == 0, checked.out
    assert "0 error(s), 1 warning(s)" in checked.out  # counted in its summary


def test_a_snapshot_with_malformed_diagnostics_is_refused(tmp_path: Path) -> None:
    snapshot = {
        "format": "argmatrix-snapshot",
        "version": 1,
        "registry": {
            "source": "x:y",
            "sections": ["General"],
            "arguments": [{"flags": ["--a"], "dest": "a"}],
            "diagnostics": [{"file": 7, "line": "one", "message": None}],
        },
    }
    (tmp_path / "snap.json").write_text(json.dumps(snapshot))
    result = run_cli_in_process("export", "--registry", "snap.json", cwd=tmp_path)
    assert result.code == 2
    assert "snap.json" in result.err and "diagnostic" in result.err


def test_a_mapping_as_choices_offers_its_keys_without_a_warning(tmp_path: Path) -> None:
    outcome = read_hostile(
        tmp_path,
        module(
            """
        parser.add_argument("--p", choices=PARSERS, help="one of %(choices)s")
    """,
            top='PARSERS = {"a": os.environ, "b": Unknown}\n',
        ),
    )
    assert outcome.argument("--p")["choices"] == ["a", "b"]
    assert outcome.argument("--p")["help"] == "one of a, b"
    assert outcome.warnings() == []
