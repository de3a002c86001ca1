"""Live and static loading of the fixture registries: both must describe them the same way."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import Mode, RegistrySpec, load_registry_and_files
from argmatrix.model.registry import Argument, Registry, Unevaluated
from helpers import DEMO_SERVER, HEAVY_MODULE, PARITY_TARGETS, REGISTRIES, line_of, load, load_dict


@pytest.fixture(params=["live", "static"])
def mode(request: pytest.FixtureRequest) -> Mode:
    return request.param


def load_fixture(target: str, mode: Mode) -> Registry:
    return load(target, mode, PARITY_TARGETS[target] if mode == "live" else ())


def flags_of(registry: Registry) -> list[tuple[str, ...]]:
    return [argument.flags or (argument.dest,) for argument in registry.arguments]


def arg(registry: Registry, flag: str) -> Argument:
    return registry.by_flag()[flag]


# ------------------------------------------------------------------ live == static


@pytest.mark.parametrize("target", sorted(PARITY_TARGETS))
def test_live_and_static_give_the_same_model(target: str) -> None:
    live = load_dict(target, "live", PARITY_TARGETS[target])
    static = load_dict(target, "static")
    assert live["source"] == static["source"] == target
    assert live == static


# ------------------------------------------------------------------ demo_server (SGLang style)


def test_demo_server_flags_keep_aliases_in_order(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    assert flags_of(registry) == [
        ("--model-path", "--model"),
        ("--load-format",),
        ("--model-loader-extra-config",),
        ("--host",),
        ("--port",),
        ("--api-key",),
        ("--tensor-parallel-size", "--tp-size"),
        ("--data-parallel-size", "--dp-size"),
        ("--attention-backend",),
        ("--quantization",),
        ("--mem-fraction-static",),
        ("--lora-scaling",),
        ("--lora-paths",),
        ("--lora-target-modules",),
        ("--max-loaded-loras",),
        ("--reasoning-parser",),
        ("--enable-metrics",),
        ("--debug-dump-dir",),
        ("--disable-radix-cache",),
    ]
    tp = arg(registry, "--tp-size")
    assert tp is arg(registry, "--tensor-parallel-size")
    assert (tp.name, tp.dest) == ("--tensor-parallel-size", "tensor_parallel_size")


def test_demo_server_sections_come_from_comment_lines(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    assert registry.sections == (
        "Model and tokenizer",
        "HTTP server",
        "Parallelism",
        "Kernels and quantization",
        "LoRA",
        "API related",
    )
    # A second comment line, a TODO and a comment inside a call open no section.
    assert [a.dest for a in registry.in_section("HTTP server")] == ["host", "port", "api_key"]
    assert [a.dest for a in registry.in_section("LoRA")] == [
        "lora_paths",
        "lora_target_modules",
        "max_loaded_loras",
    ]


def test_a_comment_on_other_code_titles_no_section(mode: Mode) -> None:
    """A comment titles the arguments that follow it only when it heads them: framed by rules,
    or with an argument in the statement after it or before the next blank line. A note on
    code that picks a platform (vLLM's entry point) or on a helper value is not a title."""
    registry = load_fixture("comment_notes_cli:build_parser", mode)
    assert {a.name: a.section for a in registry.arguments} == {
        "--version": "General",
        "--model": "Model",
        "--tokenizer": "Model",
        "--device": "Devices",
        "--backend": "Fields with computed choices",
    }


def test_demo_server_defaults_come_from_the_dataclass(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    assert arg(registry, "--host").default == "127.0.0.1"
    assert arg(registry, "--port").default == 30000
    assert arg(registry, "--tp-size").default == 1
    assert arg(registry, "--dp-size").default == 2  # field(default=2)
    assert arg(registry, "--mem-fraction-static").default == 0.88
    assert arg(registry, "--max-loaded-loras").default == 4
    assert arg(registry, "--model-loader-extra-config").default == "{}"


def test_demo_server_types(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    types = {a.name: a.type for a in registry.arguments}
    assert types["--model-path"] == "str"
    assert types["--port"] == "int"
    assert types["--mem-fraction-static"] == "float"
    assert types["--model-loader-extra-config"] == "loads"  # json.loads
    assert types["--lora-scaling"] == "Fraction"
    assert types["--enable-metrics"] is None


def test_demo_server_choices_are_evaluated_in_source_order(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    assert arg(registry, "--load-format").choices == ("auto", "safetensors", "dummy")
    assert arg(registry, "--attention-backend").choices == ("flashinfer", "triton", "torch_native")
    # A concatenation of a sibling module's concatenation and an inline list.
    assert arg(registry, "--quantization").choices == ("fp8", "awq", "gptq", "marlin", "none")
    assert arg(registry, "--lora-target-modules").choices == (
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "all",
    )
    # The keys of a dict literal of classes in a sibling module.
    assert arg(registry, "--reasoning-parser").choices == ("deepseek-r1", "qwen3", "kimi")


def test_demo_server_help_is_expanded(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    assert arg(registry, "--port").help == "Port to listen on (default: 30000)."
    assert arg(registry, "--mem-fraction-static").help == (
        "Fraction of memory for weights and KV cache (default: 0.88)."
    )
    assert arg(registry, "--attention-backend").help == (
        "Attention kernels, one of: flashinfer, triton, torch_native."
    )
    assert (
        arg(registry, "--max-loaded-loras").help == "Adapters kept in memory at once (default 4)."
    )
    assert arg(registry, "--reasoning-parser").help == (
        "Reasoning parser, one of ['deepseek-r1', 'qwen3', 'kimi']."
    )


def test_demo_server_flags_hidden_deprecated_and_required(mode: Mode) -> None:
    registry = load_fixture(DEMO_SERVER, mode)
    hidden = [a.name for a in registry.arguments if a.hidden]
    deprecated = [a.name for a in registry.arguments if a.deprecated]
    required = [a.name for a in registry.arguments if a.required]
    assert hidden == ["--debug-dump-dir"]
    assert arg(registry, "--debug-dump-dir").help == ""
    assert deprecated == ["--disable-radix-cache"]
    assert required == ["--model-path"]
    metrics = arg(registry, "--enable-metrics")
    assert (metrics.action, metrics.default, metrics.is_flag) == ("store_true", False, True)
    assert arg(registry, "--lora-paths").nargs == "*"


# ------------------------------------------------------------------ grouped_cli (argument groups)


def test_grouped_cli_sections_are_the_argument_groups(mode: Mode) -> None:
    registry = load_fixture("grouped_cli:build_parser", mode)
    # The argument added straight to the parser stays in argparse's own "options" group.
    assert registry.sections == ("options", "Input", "Output", "Advanced")
    assert registry.description == "Convert data files."
    assert [a.dest for a in registry.in_section("Input")] == ["sources", "include", "encoding"]
    assert [a.dest for a in registry.in_section("Output")] == [
        "output",
        "format",
        "color",
        "layout",
    ]


def test_grouped_cli_actions(mode: Mode) -> None:
    registry = load_fixture("grouped_cli:build_parser", mode)
    actions = {a.dest: a.action for a in registry.arguments}
    assert actions == {
        "dry_run": "store_true",
        "sources": "store",
        "include": "append",
        "encoding": "store",
        "output": "store",
        "format": "store",
        "color": "boolean_optional",
        "layout": "store_const",
        "verbose": "count",
        "workers": "store",
        "define": "KeyValueAction",
        "pair": "store",
        "level": "store",
        "timeout": "store",
        "trace_id": "store",
    }
    assert arg(registry, "--color").flags == ("--color", "--no-color")
    assert arg(registry, "--compact").dest == "layout"


def test_grouped_cli_values(mode: Mode) -> None:
    registry = load_fixture("grouped_cli:build_parser", mode)
    sources = arg(registry, "sources")
    assert sources.positional
    assert (sources.nargs, sources.metavar, sources.required) == ("+", "SRC", True)
    output = arg(registry, "--output")
    assert (output.flags, output.required, output.metavar) == (("-o", "--output"), True, "FILE")
    assert arg(registry, "--pair").nargs == 2
    assert arg(registry, "--pair").metavar == ("LEFT", "RIGHT")
    assert arg(registry, "--level").nargs == "?"
    assert arg(registry, "--define").nargs == "+"
    assert arg(registry, "--define").metavar == "KEY=VALUE"
    assert arg(registry, "--format").choices == ("json", "toml", "yaml")  # a set, sorted
    assert arg(registry, "--workers").type == "positive_int"
    assert arg(registry, "--workers").default == 4
    assert arg(registry, "-v").default == 0
    assert arg(registry, "--include").default == []
    assert arg(registry, "--color").default is True
    assert math.isinf(arg(registry, "--timeout").default)
    assert arg(registry, "--encoding").help == "Input encoding (default: utf-8)."
    assert [a.dest for a in registry.arguments if a.hidden] == ["trace_id"]


# ------------------------------------------------------------------ subcommands_cli


def test_subcommands_names_aliases_and_help(mode: Mode) -> None:
    registry = load_fixture("subcommands_cli:build_parser", mode)
    assert [(s.name, s.aliases, s.help) for s in registry.subcommands] == [
        ("serve", ("s", "run"), "Start the server."),
        ("bench", (), "Run a benchmark."),
        ("version", (), ""),
    ]
    assert flags_of(registry) == [("--config",), ("--log-level",)]
    assert registry.sections == ("Global options",)


def test_subcommand_registries(mode: Mode) -> None:
    registry = load_fixture("subcommands_cli:build_parser", mode)
    serve, bench, version = (s.registry for s in registry.subcommands)
    assert flags_of(serve) == [("model",), ("--port",), ("--max-requests",)]
    assert serve.sections == ("Serving", "Limits")
    assert arg(serve, "model").positional and arg(serve, "model").required
    assert arg(serve, "--port").help == "Port (default: 8000)."
    assert bench.sections == ("Workload",)
    assert arg(bench, "--dataset").choices == ("sharegpt", "random")
    assert arg(bench, "--dataset").default == "sharegpt"
    assert arg(bench, "extra").nargs == "..."  # argparse.REMAINDER
    assert version.arguments == ()


# ------------------------------------------------------------------ env_cli (parser subclass)


def test_parser_subclass_keywords_land_in_extra(mode: Mode) -> None:
    registry = load_fixture("env_cli:make_parser", mode)
    extras = {a.name: a.extra for a in registry.arguments}
    assert extras == {
        "--queue-url": {"env_name": "WORKER_QUEUE_URL"},
        "--concurrency": {"env_name": "WORKER_CONCURRENCY"},
        "--tags": {},
        "--sandbox": {},
        "--quiet": {},
        "--log-file": {},
    }
    # No groups, no comments inside the builder: one section.
    assert registry.sections == ("General",)
    assert arg(registry, "--sandbox").action == "append_const"
    assert arg(registry, "--quiet").action == "store_false"
    assert arg(registry, "--quiet").dest == "chatty"
    assert arg(registry, "--quiet").default is True
    assert arg(registry, "--log-file").metavar == "PATH"


# ------------------------------------------------------------------ mock


def test_live_import_of_a_missing_heavy_module_asks_for_mock() -> None:
    with pytest.raises(ArgmatrixError) as caught:
        load(DEMO_SERVER, "live")
    message = str(caught.value)
    assert f"needs {HEAVY_MODULE!r}, which is not installed" in message
    assert f"--mock {HEAVY_MODULE}" in message
    assert "registry.mock" in message


def test_mock_stands_in_only_while_loading() -> None:
    registry = load(DEMO_SERVER, "live", mock=[HEAVY_MODULE])
    assert len(registry.arguments) == 19
    assert not [name for name in sys.modules if name.split(".")[0] == HEAVY_MODULE]


def test_an_installed_module_named_in_mock_is_imported_for_real(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "fractions", raising=False)  # found afresh by the import
    spec = RegistrySpec(DEMO_SERVER, "live", mock=(HEAVY_MODULE, "fractions"), base_dir=REGISTRIES)
    registry, imported = load_registry_and_files(spec)
    assert arg(registry, "--lora-scaling").type == "Fraction"
    real = importlib.import_module("fractions").__file__
    assert imported is not None and real in imported  # the module's file, not a stand-in


# ------------------------------------------------------------------ live errors


def test_a_builder_that_raises_is_reported_at_its_own_line() -> None:
    with pytest.raises(ArgmatrixError) as caught:
        load("raising_builder:build_parser", "live")
    problem = caught.value.problems[0]
    assert "raised KeyError: 'region'" in problem.message
    assert problem.file == str(REGISTRIES / "raising_builder.py")
    assert problem.line == line_of(REGISTRIES / "raising_builder.py", 'settings["region"]')


def test_a_function_that_returns_no_parser_is_refused_live() -> None:
    with pytest.raises(ArgmatrixError, match=r"not_a_builder:answer returned int, not an argparse"):
        load("not_a_builder:answer", "live")


@pytest.mark.parametrize("loader", ["live", "static"])
def test_unknown_module_and_attribute(loader: Mode) -> None:
    with pytest.raises(ArgmatrixError, match="no_such_module"):
        load("no_such_module:build_parser", loader)
    with pytest.raises(ArgmatrixError, match="no_such_builder"):
        load("grouped_cli:no_such_builder", loader)


def test_a_target_without_a_colon_is_refused() -> None:
    with pytest.raises(ArgmatrixError, match="module:callable"):
        load("grouped_cli.build_parser", "live")


# ------------------------------------------------------------------ idioms of real registries

IDIOM_TARGETS = [
    "idioms_cli:build_parser",
    "starred_flags_cli:build_parser",
    "enum_cli:build_parser",
    "star_cli.cli:build_parser",
]


@pytest.mark.parametrize("target", IDIOM_TARGETS)
def test_live_and_static_agree_on_idioms(target: str) -> None:
    assert load_dict(target, "live") == load_dict(target, "static")


def test_iterating_an_enum_lists_its_members_in_order_without_aliases(mode: Mode) -> None:
    registry = load("enum_cli:build_parser", mode)
    assert arg(registry, "--hash-mode").choices == ("none", "partial", "all")
    assert arg(registry, "--levels").choices == ("low", "high")


def test_names_from_star_imports_follow_all_and_the_later_import(mode: Mode) -> None:
    registry = load("star_cli.cli:build_parser", mode)
    assert arg(registry, "--target-modules").choices == ("q_proj", "k_proj", "v_proj", "ALL")
    assert (arg(registry, "--port").default, arg(registry, "--host").default) == (
        30000,
        "127.0.0.1",
    )


def test_a_star_import_from_outside_the_source_makes_a_name_unknown(tmp_path: Path) -> None:
    (tmp_path / "outside_star_cli.py").write_text(
        "import argparse\nfrom os.path import *\n\n\ndef build_parser():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--sep', default=sep)\n    return parser\n",
        encoding="utf-8",
    )
    registry = load("outside_star_cli:build_parser", "static", base_dir=tmp_path)
    assert isinstance(arg(registry, "--sep").default, Unevaluated)
    assert "may be bound by `from os.path import *`" in registry.diagnostics[0].message


def _package(root: Path, files: dict[str, str], package: str = "pkg") -> None:
    """A package of `files` (a live read imports it: each test that reads live names its own)."""
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("", encoding="utf-8")
    for name, text in files.items():
        (root / package / name).write_text(text, encoding="utf-8")


STAR_BUILDER = (
    "\n\ndef build_parser():\n    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--x', choices=X)\n"
    "    parser.add_argument('--f', choices=choices())\n    return parser\n"
)


def test_a_star_import_after_a_names_own_binding_wins_as_in_python(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "a.py": "X = ['from-a']\n",
            "b.py": "X = ['from-b']\n\n\ndef choices():\n    return ['b1', 'b2']\n",
            "cli.py": "import argparse\nfrom .a import X\n\n\ndef choices():\n"
            "    return ['own']\n\n\nfrom .b import *  # noqa\n" + STAR_BUILDER,
        },
    )
    static = load("pkg.cli:build_parser", "static", base_dir=tmp_path)
    assert (arg(static, "--x").choices, arg(static, "--f").choices) == (("from-b",), ("b1", "b2"))
    assert static.diagnostics == ()
    assert (
        load_dict("pkg.cli:build_parser", "live", base_dir=tmp_path)["arguments"]
        == (load_dict("pkg.cli:build_parser", "static", base_dir=tmp_path)["arguments"])
    )


def test_a_star_import_under_a_condition_makes_what_it_may_bind_unknown(tmp_path: Path) -> None:
    star = "try:\n    from .b import *\nexcept ImportError:\n    pass\n"
    _package(
        tmp_path,
        {
            "b.py": "X = ['from-b']\n\n\ndef choices():\n    return ['b1']\n",
            "cli.py": "import argparse\n\nX = ['own']\n\n\ndef choices():\n"
            "    return ['own']\n\n\n" + star + STAR_BUILDER,
        },
    )
    registry = load("pkg.cli:build_parser", "static", base_dir=tmp_path)
    assert isinstance(arg(registry, "--x").choices, Unevaluated)
    assert isinstance(arg(registry, "--f").choices, Unevaluated)
    assert {d.message.split(":")[0] for d in registry.diagnostics} == {"--x", "--f"}


def test_a_star_import_binds_only_what_the_module_binds_never_its_builtins(
    tmp_path: Path,
) -> None:
    _package(
        tmp_path,
        {
            "consts.py": "A = 1\n",
            "cli.py": "import argparse\n\nint = float\nfrom .consts import *  # noqa\n\n\n"
            "def build_parser():\n    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--n', type=int, default=A)\n    return parser\n",
        },
        "pkg_builtins",
    )
    static = load("pkg_builtins.cli:build_parser", "static", base_dir=tmp_path)
    assert arg(static, "--n").type == "float"
    assert (
        load_dict("pkg_builtins.cli:build_parser", "live", base_dir=tmp_path)["arguments"]
        == (load_dict("pkg_builtins.cli:build_parser", "static", base_dir=tmp_path)["arguments"])
    )


def test_a_value_through_modules_that_star_import_each_other_is_said(tmp_path: Path) -> None:
    """Python gives what the second module sees of the first, partly initialised: it depends
    on the order they are imported in."""
    _package(
        tmp_path,
        {
            "qa.py": "V = 'early'\nfrom .qb import *  # noqa\nV = 'late'\n",
            "qb.py": "from .qa import *  # noqa\nW = V  # noqa\n",
            "cli.py": "import argparse\nfrom .qa import *  # noqa\n\n\ndef build_parser():\n"
            "    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--w', default=W)\n    return parser\n",
        },
    )
    registry = load("pkg.cli:build_parser", "static", base_dir=tmp_path)
    assert isinstance(arg(registry, "--w").default, Unevaluated)
    assert "star import each other" in registry.diagnostics[0].message


def test_modules_that_star_import_each_other_end(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "c.py": "from .d import *\n",
            "d.py": "from .c import *\n",
            "cli.py": "import argparse\nfrom .c import *\n\n\ndef build_parser():\n"
            "    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--q', default=QQ)\n    return parser\n",
        },
    )
    registry = load("pkg.cli:build_parser", "static", base_dir=tmp_path)
    assert isinstance(arg(registry, "--q").default, Unevaluated)  # bound nowhere: said
    assert "`QQ` is not defined" in registry.diagnostics[0].message


ENUM_STATIC_UNKNOWN = {
    # auto() of an Enum mixed with another type (its values depend on that type's rules)
    "auto": "class M(str, enum.Enum):\n    A = enum.auto()\n    B = enum.auto()\n",
    "auto among values": "class M(enum.Enum):\n    A = 5\n    B = enum.auto()\n",
    "flag": "class M(enum.Flag):\n    A = 1\n    B = 2\n",
    "unknown value": "class M(enum.Enum):\n    A = os.sep\n    B = 'b'\n",
}


@pytest.mark.parametrize("kind", sorted(ENUM_STATIC_UNKNOWN))
def test_enum_members_static_reading_cannot_know_are_said_never_fewer(
    kind: str, tmp_path: Path
) -> None:
    (tmp_path / "enum_unknown_cli.py").write_text(
        "import argparse\nimport enum\nimport os\n\n"
        + ENUM_STATIC_UNKNOWN[kind]
        + "\n\ndef build_parser():\n    parser = argparse.ArgumentParser()\n"
        + "    parser.add_argument('--m', choices=[m.name for m in M])\n    return parser\n",
        encoding="utf-8",
    )
    registry = load("enum_unknown_cli:build_parser", "static", base_dir=tmp_path)
    assert isinstance(arg(registry, "--m").choices, Unevaluated)
    assert [d.message.split(":")[0] for d in registry.diagnostics] == ["--m"]


def test_an_enum_of_auto_members_is_numbered_as_python_numbers_it(
    mode: Mode, tmp_path: Path
) -> None:
    (tmp_path / "enum_auto_cli.py").write_text(
        "import argparse\nimport enum\nfrom enum import auto\n\n"
        "class M(enum.Enum):\n    A = enum.auto()\n    B = auto()\n    C = enum.auto()\n\n"
        "def build_parser():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--m', choices=[m.name for m in M])\n"
        "    parser.add_argument('--v', choices=[m.value for m in M])\n    return parser\n",
        encoding="utf-8",
    )
    registry = load("enum_auto_cli:build_parser", mode, base_dir=tmp_path)
    assert arg(registry, "--m").choices == ("A", "B", "C")
    assert arg(registry, "--v").choices == (1, 2, 3)
    assert registry.diagnostics == ()


def test_keyword_dicts_spread_into_add_argument(mode: Mode) -> None:
    registry = load("idioms_cli:build_parser", mode)
    model = arg(registry, "--model")
    assert (model.type, model.default, model.help) == (
        "str",
        "facebook/opt-125m",
        "Model name or path.",
    )
    length = arg(registry, "--max-model-len")
    assert (length.type, length.default, length.help) == ("int", None, "Context length in tokens.")


def test_percent_formatted_help(mode: Mode) -> None:
    registry = load("idioms_cli:build_parser", mode)
    # `%` runs in Python first; argparse then fills the `%(default)s` that `%%` left behind.
    assert (
        arg(registry, "--max-num-seqs").help == "Sequences per step, at most 1024 (default: 128)."
    )


def test_a_lambda_type_is_named_as_python_names_it(mode: Mode) -> None:
    registry = load("idioms_cli:build_parser", mode)
    assert arg(registry, "--served-model-name").type == "<lambda>"


def test_flags_passed_with_a_star(mode: Mode) -> None:
    registry = load("starred_flags_cli:build_parser", mode)
    assert flags_of(registry) == [("--dtype", "-d"), ("--seed",)]
    assert arg(registry, "-d").choices == ("auto", "half", "float")
