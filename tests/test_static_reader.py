"""Static reading: the registry comes from source alone, and nothing is guessed."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from argmatrix.errors import ArgmatrixError
from argmatrix.model.registry import Unevaluated
from helpers import BROKEN, DEMO_SERVER, HEAVY_MODULE, PARITY_TARGETS, REGISTRIES, line_of, load


def imported_fixture_modules() -> list[str]:
    roots = {target.split(":")[0].split(".")[0] for target in PARITY_TARGETS} | {HEAVY_MODULE}
    return sorted(name for name in sys.modules if name.split(".")[0] in roots)


@pytest.mark.parametrize("target", sorted(PARITY_TARGETS))
def test_static_reading_imports_nothing_of_the_target(target: str) -> None:
    assert imported_fixture_modules() == []
    registry = load(target, "static")
    assert registry.arguments
    assert imported_fixture_modules() == []


def test_static_reading_needs_no_mock_for_a_package_that_cannot_be_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REGISTRIES))
    with pytest.raises(ModuleNotFoundError) as caught:
        __import__("demo_server")  # its __init__ imports a module that is not installed
    assert caught.value.name == HEAVY_MODULE
    registry = load(DEMO_SERVER, "static")
    assert registry.by_flag()["--tp-size"].default == 1
    assert "demo_server" not in sys.modules


def test_static_reading_keeps_runtime_values_as_source_text() -> None:
    registry = load("runtime_defaults:build_parser", "static")
    by_flag = registry.by_flag()
    assert by_flag["--threads"].default == Unevaluated("os.cpu_count()")
    assert by_flag["--threads"].help == Unevaluated('f"Worker threads (max {os.cpu_count()})."')
    assert by_flag["--threads"].type == "int"
    assert by_flag["--cache-dir"].default == Unevaluated('os.path.join(os.getcwd(), "cache")')
    assert by_flag["--device"].default == "cpu"
    assert by_flag["--device"].help == "Device to run on."
    assert by_flag["--data-dir"].default == Unevaluated('Path("data")')
    assert by_flag["--data-dir"].type == "Path"


def test_static_reading_keeps_runtime_choices_as_source_text() -> None:
    registry = load("runtime_choices:build_parser", "static")
    device = registry.by_flag()["--device"]
    assert device.choices == Unevaluated("available_devices()")
    assert device.default == "cpu"


def test_live_reading_computes_what_static_reading_keeps() -> None:
    registry = load("runtime_defaults:build_parser", "live")
    threads = registry.by_flag()["--threads"]
    assert isinstance(threads.default, int)
    assert threads.help == f"Worker threads (max {threads.default})."


def test_a_syntax_error_names_the_file_and_line() -> None:
    source = BROKEN / "syntax_error_registry.py"
    with pytest.raises(ArgmatrixError) as caught:
        load("syntax_error_registry:build_parser", "static", base_dir=BROKEN)
    problem = caught.value.problems[0]
    assert "syntax error" in problem.message
    assert problem.file == str(source)
    assert problem.line == line_of(source, '"--name", help="Name."')
    assert str(caught.value).startswith(f"{source}:{problem.line}: ")


def test_a_function_that_builds_no_parser_is_refused_statically() -> None:
    with pytest.raises(ArgmatrixError) as caught:
        load("not_a_builder:answer", "static")
    problem = caught.value.problems[0]
    assert "does not build an argparse.ArgumentParser" in problem.message
    assert problem.file == str(REGISTRIES / "not_a_builder.py")
    assert problem.line == line_of(REGISTRIES / "not_a_builder.py", "def answer")


def test_a_class_is_not_a_function() -> None:
    with pytest.raises(ArgmatrixError, match="is not a function"):
        load("demo_server.server_args:ServerArgs", "static")


def test_a_condition_on_the_platform_reads_both_branches() -> None:
    # sys.platform is outside the package: static reading cannot know it, so it keeps both.
    registry = load("platform_cli:build_parser", "static")
    assert [a.name for a in registry.arguments] == ["--workers", "--iocp", "--uvloop"]


def test_a_classmethod_and_the_helpers_it_calls_are_followed() -> None:
    static = load("classmethod_cli:Args.add_cli_args", "static")
    assert [(a.flags, a.default, a.section) for a in static.arguments] == [
        (("--port",), 80, "Network"),
        (("--host",), "x", "Extras"),
    ]
    live = load("classmethod_cli:Args.add_cli_args", "live")
    assert live.arguments == static.arguments and live.sections == static.sections


def test_loops_helpers_spreads_and_inheritance_are_followed() -> None:
    registry = load("control_flow_cli:build_parser", "static")
    assert [a.flags[0] for a in registry.arguments] == [
        "--verbose",
        "--a",
        "--c",
        "--w0",
        "--w1",
        "--from-helper",
        "--alpha",
        "--beta",
        "--gamma",
        "--device",
        "--base-flag",
        "--own-flag",
    ]
    by_flag = registry.by_flag()
    assert by_flag["--a"].default == 7  # argument_default of the parser
    assert by_flag["--alpha"].help == "first of server"  # a spread dict, values read on demand
    assert (by_flag["-g"].default, by_flag["-g"].type) == (5, "float")  # dict edited in place


def test_a_custom_action_keeps_the_nargs_of_its_init_and_comments_in_conditions_are_no_titles() -> (
    None
):
    registry = load("custom_action_cli:b", "static")
    assert registry.sections == ("Real",)
    assert [(a.name, a.nargs) for a in registry.arguments] == [("--flagish", 0), ("--after", None)]


# Statements a module might hold, some of them traps for reading one statement alone: the name
# inside strings, comments and brackets, bound twice, indented, imported, decorated.
SNIPPETS = [
    "X = 1\n",
    "X = 2\n",
    "X: int = 3\n",
    "Y = X + 1\n",
    "def X():\n    return 1\n",
    "class X:\n    X = 5\n",
    "@decorate\ndef X():\n    pass\n",
    "@decorate(\n    option=1,\n)\nclass X:\n    value = 1\n",
    "'''\nX = 9\n'''\n",
    '"""Doc.\ndef X():\n    pass\n"""\n',
    "if flag:\n    X = 7\n",
    "from elsewhere import X\n",
    "import X\n",
    "a = X = 4\n",
    "call(X=1)\n",
    "X.attribute = 3\n",
    "# X = 0\n",
    "Z = [\nX,\n]\n",
    "Z = (\nX := 6)\n",
    "Y = 'X = 8'\n",
    "try:\n    X = 10\nexcept E:\n    pass\n",
    "W = {'a': X}\n",
    "def f(X=2):\n    return X\n",
    "for X in range(3):\n    pass\n",
    "Y = 4\n",
    "class Y(X):\n    pass\n",
    'Z = """\nY = 1\n"""\n',
    "async def X():\n    pass\n",
    "from m import (\n    X,\n)\n",
    "X = Y = 3\n",
    "X = 1; Y = 2\n",
    "(X) = 5\n",
    "X \\\n= 11\n",
    "del X\n",
    "X += 1\n",
    "with open(p) as X:\n    pass\n",
    "class C:\n    def X(self):\n        pass\n",
    "X[0] = 1\n",
    "if flag:\n    def X():\n        pass\nelse:\n    X = 12\n",
    "Y: int\n",
    "W = f'{X}'\n",
    "W = rb'''\nX = 13\n'''\n",
    "W = 'it''s'  # X = 14\n",
    "call(\nX=1,\nY=2)\n",
    "Y = a.\\\nX = 2\n",
    "@decorate(\noption=1,\n)\nclass X:\n    pass\n",
    "\uff38 = 2\n",
    "def \U0001d417():\n    pass\n",
    "Y = (1 +\n2)\n",
    "W = f'{{X}}'\n",
    # Changes of a name after it is bound: followed in order, or the name is unknown.
    "X = [1]\n",
    "X = {'k': 1}\n",
    "X.append(5)\n",
    "X.extend([6])\n",
    "X  .  update(k=2)\n",
    "X += [7]\n",
    "X['k'] = 3\n",
    "for i in [8, 9]:\n    X.append(i)\n",
    "Y = X\n",
    "def f():\n    X.append(2)\n",
    "f()\n",
    "@f\nclass C:\n    pass\n",
    "Y = X.copy()\n",
    "X.sort()\n",
    "if flag:\n    X.append(3)\n",
]


def _described(module: object, name: str) -> str:
    from argmatrix.loaders.static.reader import CannotEvaluate, settle

    try:
        return _structure(settle(module.global_value(name)))  # type: ignore[attr-defined]
    except CannotEvaluate:
        return "cannot evaluate"


def _structure(value: object) -> str:
    from argmatrix.loaders.static.reader import ClassRef, FunctionRef

    if isinstance(value, (ClassRef, FunctionRef)):
        return f"{type(value).__name__}({ast.dump(value.node, include_attributes=True)})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_structure(k)}: {_structure(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[" + ", ".join(_structure(v) for v in value) + "]"
    return repr(value)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=8))
@example(["call(\nX=1,\nY=2)\n"])  # a keyword argument at column 0
@example(["Y = a.\\\nX = 2\n"])  # a line continued by a backslash
@example(["X = 1\n", "Y = 4\n", "\uff38 = 2\n"])  # a fullwidth X is the name X
@example(["X = 1\n", "(X) = 5\n"])  # a binding that does not start its line
@example(["X = 1\n", "X \\\n= 11\n"])
@example(["X = 1\n", "a = X = 4\n"])
@example(["X = 1\n", "if flag:\n    X = 7\n"])
@example(["@decorate\ndef X():\n    pass\n"])
@example(["'''\nX = 9\n'''\n", "X = 1\n"])
# statements deep in a module, far below their own size: parsed alone at line 1, then shifted
@example(["Y = 4\n", "\n" * 500, "X = [1]\n", "\n" * 500, "def f():\n    pass\n"])
@pytest.mark.slow
def test_a_module_read_statement_by_statement_reads_as_if_parsed_whole(snippets: list[str]) -> None:
    from argmatrix.loaders.static.reader import SourceModule, StaticLoader

    text = "".join(snippets)
    loader = StaticLoader([], "pkg")
    whole = SourceModule("pkg.mod", Path("pkg/mod.py"), text, loader)
    for name in ("X", "Y", "Z", "W", "a", "f"):
        lazy = SourceModule("pkg.mod", Path("pkg/mod.py"), text, loader, lazy=True)
        assert _described(lazy, name) == _described(whole, name), (name, text)


def test_sglangs_utility_module_is_not_parsed_whole() -> None:
    """sglang's registry needs four names of its 120 KB utility module: read one by one."""
    from argmatrix.loaders.static.reader import SourceModule, StaticLoader

    spec = importlib.util.find_spec("sglang")  # installed with --no-deps: found, not imported
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parent / "srt" / "utils" / "common.py"
    module = SourceModule(
        "sglang.srt.utils.common", path, path.read_text(), StaticLoader([], "x"), lazy=True
    )
    for name in ("nullable_str", "json_list_type", "LORA_TARGET_ALL_MODULES"):
        module.global_value(name)
    assert module.tree is None


def test_strings_the_outline_cannot_follow_send_it_to_the_whole_module() -> None:
    """Python 3.12 lets an f-string hold its own quotes: the outline's string pattern would
    misread where the string ends, so it gives up rather than guess."""
    from argmatrix.loaders.static.reader import StatementOutline

    assert not StatementOutline("X = 1\nW = f\"{\"'''\"}\"\nX = 2\nY = \"'''\"\n").reliable
    assert not StatementOutline("X = 1\nY = 0\n\uff38 = 2\n").reliable
    assert StatementOutline("X = 1\nW = f'{X!r:>{width}}'  # caf\u00e9\n").reliable


def test_the_outline_gives_up_on_stray_quotes_in_linear_time() -> None:
    """A quote that opens no string it understands stops the outline at once: trying every later
    quote against the rest of the text took quadratic time (minutes on 100 KB)."""
    import time

    from argmatrix.loaders.static.reader import StatementOutline

    text = "X = 1\n" + "'\\" * 200_000
    start = time.process_time()
    outline = StatementOutline(text)
    assert not outline.reliable and outline.lone_binding("X") is None
    assert time.process_time() - start < 2.0
