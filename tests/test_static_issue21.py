"""Idioms static reading once read wrong with exit 0 and nothing said (issue 21). Each fixture
in tests/fixtures/registries/issue21/ is imported live in the test, and static reading gives
the same registry, or says what it could not follow, or stops at the statement."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Unevaluated, registry_to_dict
from helpers import REGISTRIES, line_of, load, load_dict

FIXTURE = REGISTRIES / "issue21"


@pytest.fixture(autouse=True)
def _forget_fixture_modules() -> Iterator[None]:
    """A live read imports the fixture package; the next static read must not find it."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "issue21"]:
        del sys.modules[name]


def stop_of(target: str) -> str:
    with pytest.raises(ArgmatrixError) as caught:
        load(target, "static")
    (problem,) = caught.value.problems
    assert problem.message.startswith("static reading stopped:")
    return f"{problem.file}:{problem.line}: {problem.message}"


def flags_live(target: str) -> list[str]:
    return [a.flags[0] for a in load(target, "live").arguments]


# ------------------------------------------------------------------ 6: exec, eval, compile


@pytest.mark.parametrize(
    ("target", "statement", "missed"),
    [
        ("issue21.runs_text:build_parser", "exec(", "--from-text"),
        ("issue21.runs_text:build_from_class", "eval(compile(", "--compiled"),
    ],
)
def test_code_given_as_text_stops_the_read_at_its_statement(
    target: str, statement: str, missed: str
) -> None:
    assert missed in flags_live(target)  # Python runs the text: it adds an argument
    where = stop_of(target)
    line = line_of(FIXTURE / "runs_text.py", statement)
    assert where.startswith(f"{FIXTURE / 'runs_text.py'}:{line}: ")
    assert "runs code given as text" in where


# ------------------------------------------------------------------ 2: a parser that escapes


@pytest.mark.parametrize(
    ("target", "statement", "missed"),
    [
        # a local function that closes over the parser, handed to another package
        ("issue21.escapes:build_closure", "issue21_ext.run_hook(more)", "--from-closure"),
        # the parser kept in an attribute of an object static reading does not follow
        ("issue21.escapes:build_holder", "holder.p = parser", "--from-holder"),
        # `self`, holding the parser, handed to another package
        ("issue21.escapes:build_self", "issue21_ext.fill_from(self)", "--from-self"),
    ],
)
def test_a_parser_handed_on_through_what_reaches_it_stops_the_read(
    target: str, statement: str, missed: str
) -> None:
    assert missed in flags_live(target)
    where = stop_of(target)
    assert where.startswith(
        f"{FIXTURE / 'escapes.py'}:{line_of(FIXTURE / 'escapes.py', statement)}: "
    )


# ------------------------------------------------------------------ 3, 4: which bases are records


@pytest.mark.parametrize(
    "builder",
    [
        "over_plain",  # @dataclass over a plain class: its annotations are no fields
        "between",  # a plain class between two dataclasses
        "with_mixin",  # a msgspec Struct with a plain mixin
        "keywords_last",  # msgspec puts keyword-only fields (kw_only=True) last
    ],
)
def test_fields_come_from_record_bases_in_the_order_of_their_kind(builder: str) -> None:
    target = f"issue21.records:{builder}"
    static = load(target, "static")
    assert static.diagnostics == ()
    assert registry_to_dict(static) == load_dict(target, "live")


def test_get_type_hints_still_has_the_annotations_of_every_base() -> None:
    """`get_type_hints` is not `fields`: a plain base's annotations are hints, not fields."""
    target = "issue21.records:hints_of_plain_base"
    static = load(target, "static")
    assert registry_to_dict(static) == load_dict(target, "live")
    assert [a.flags[0] for a in static.arguments] == ["--plain", "--own"]


# ------------------------------------------------------------------ 1: a custom action's __init__


def test_a_custom_actions_init_is_run_with_the_calls_arguments() -> None:
    """`super().__init__(..., nargs=0, default=False, **kwargs)`, choices and help set in
    `__init__`, `--no-x` added by the class, an `__init__` inherited from the source."""
    target = "issue21.actions:build_parser"
    static = load(target, "static")
    assert static.diagnostics == ()
    assert registry_to_dict(static) == load_dict(target, "live")
    by_flag = static.by_flag()
    assert (by_flag["--flag"].nargs, by_flag["--flag"].default) == (0, False)
    assert by_flag["--level"].choices == ("low", "high")
    assert by_flag["--color"].flags == ("--color", "--no-color")
    assert by_flag["--inherited"].nargs == 0


def test_an_init_static_reading_cannot_follow_is_said() -> None:
    target = "issue21.actions:build_unknown"
    static = load(target, "static")
    (said,) = static.diagnostics
    assert said.line == line_of(FIXTURE / "actions.py", '"--opaque"')
    assert "--opaque: `Opaque.__init__` cannot be followed statically" in said.message


# ------------------------------------------------------------------ 7: a registry filled elsewhere


def test_a_list_filled_by_registrations_in_other_modules_is_said_with_the_flag() -> None:
    """Python's value comes from plugin modules registering themselves when imported (a call
    and a decorator); static reading does not run them, so the list is not shown as it stands
    before they ran (empty), but said, naming the flag and the list."""
    target = "issue21.served:build_parser"
    live = load(target, "live").by_flag()["--backend"]
    assert live.choices == ("alpha", "beta")
    static = load(target, "static")
    line = line_of(FIXTURE / "served.py", '"--backend"')
    said = {(d.line, d.message.split(":")[0]) for d in static.diagnostics}
    assert said == {(line, "--backend")}
    assert all("issue21.registry.BACKENDS" in d.message for d in static.diagnostics)
    assert all(not d.stops for d in static.diagnostics)
    argument = static.by_flag()["--backend"]
    assert isinstance(argument.choices, Unevaluated)  # never the empty list
    assert isinstance(argument.help, Unevaluated)


# ------------------------------------------------------------------ 5: names rebound at import


@pytest.mark.parametrize(
    ("flag", "how"),
    [
        ("--port", "`consts.PORT = ...` in the importing module"),
        ("--host", '`globals()["HOST"] = ...` in the module'),
        ("--workers", "`setattr(sys.modules[__name__], ...)` in the module"),
        ("--level", "`consts.LEVEL = ...` in a module imported earlier"),
    ],
)
def test_a_name_rebound_at_import_is_said_never_read_as_first_bound(flag: str, how: str) -> None:
    target = "issue21.rebinding:build_parser"
    first = {"--port": 8000, "--host": "127.0.0.1", "--workers": 1, "--level": "info"}[flag]
    live = load(target, "live").by_flag()[flag].default
    assert live != first, how  # Python's value is the rebound one
    static = load(target, "static")
    assert isinstance(static.by_flag()[flag].default, Unevaluated), how
    line = line_of(FIXTURE / "rebinding.py", f'"{flag}"')
    assert any(
        d.line == line and d.message.startswith(f"{flag}: default") for d in static.diagnostics
    )
