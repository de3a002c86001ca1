"""SGLang 0.5.7's real registry: read statically here, and compared with a live import.

The test venv has sglang installed with --no-deps, so only static reading can work here. The live
side runs in the heavy environment `make live-env` builds (CPU torch and sglang's dependencies).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry, Unevaluated, registry_to_dict
from helpers import REPO

TARGET = "sglang.srt.server_args:ServerArgs.add_cli_args"
MOCK = ("IPython", "torchvision", "sentencepiece")
SRC = REPO / "src"
DEFAULT_LIVE_PYTHON = REPO / ".cache" / "live-sglang" / "bin" / "python"

LIVE_SCRIPT = """
import json, sys
sys.path.insert(0, {src!r})
from argmatrix.model.registry import registry_to_dict
from argmatrix.loaders.load import RegistrySpec, load_registry
registry = load_registry(RegistrySpec({target!r}, mode="live", mock={mock!r}))
print(json.dumps(registry_to_dict(registry)))
"""


def server_args_file() -> Path:
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations, "sglang is not installed"
    return Path(next(iter(spec.submodule_search_locations))) / "srt" / "server_args.py"


def comment_titles(path: Path, function: str = "add_cli_args") -> list[str]:
    """The first line of every block of stand-alone comment lines in `function`'s body."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"\s*def {function}\(", line))
    indent = len(lines[start]) - len(lines[start].lstrip())
    titles: list[str] = []
    previous_was_comment = False
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and len(line) - len(line.lstrip()) <= indent:
            break  # the next definition at the same level: the body has ended
        is_comment = stripped.startswith("#")
        if is_comment and not previous_was_comment:
            titles.append(stripped.lstrip("#").strip())
        previous_was_comment = is_comment
    return titles


def unevaluated_in(value: Any) -> list[Any]:
    if isinstance(value, Unevaluated):
        return [value]
    if isinstance(value, dict):
        return [u for v in value.values() for u in unevaluated_in(v)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [u for v in value for u in unevaluated_in(v)]
    return []


@pytest.fixture(scope="module")
def static_registry() -> Registry:
    assert importlib.metadata.version("sglang") == "0.5.7"
    registry = load_registry(RegistrySpec(TARGET, mode="static"))
    assert "sglang" not in sys.modules, "static reading imported sglang"
    return registry


def test_static_registry_has_every_argument(static_registry: Registry) -> None:
    assert len(static_registry.arguments) == 313
    assert static_registry.by_flag()["--tp-size"].name == "--tensor-parallel-size"


def test_static_sections_are_the_comment_lines_of_add_cli_args(static_registry: Registry) -> None:
    expected = comment_titles(server_args_file())
    assert len(expected) == 36
    assert list(static_registry.sections) == expected
    assert static_registry.sections[:2] == ("Model and tokenizer", "HTTP server")


def test_static_registry_evaluates_everything(static_registry: Registry) -> None:
    found = [
        (argument.name, field, unevaluated)
        for argument in static_registry.arguments
        for field, value in vars(argument).items()
        for unevaluated in unevaluated_in(value)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("flag", "some_choices"),
    [
        ("--reasoning-parser", {"deepseek-r1", "qwen3", "gpt-oss", "kimi"}),
        ("--tool-call-parser", {"deepseekv3", "qwen", "llama3", "mistral", "pythonic"}),
        ("--lora-target-modules", {"q_proj", "k_proj", "v_proj", "o_proj", "all"}),
    ],
)
def test_choices_from_other_modules_are_evaluated(
    static_registry: Registry, flag: str, some_choices: set[str]
) -> None:
    choices = static_registry.by_flag()[flag].choices
    assert isinstance(choices, tuple)
    assert all(isinstance(choice, str) for choice in choices)
    assert len(set(choices)) == len(choices)
    assert some_choices <= set(choices)


def live_python() -> Path:
    path = Path(os.environ.get("ARGMATRIX_LIVE_PYTHON") or DEFAULT_LIVE_PYTHON)
    if not path.exists():
        pytest.fail(
            f"no live sglang interpreter at {path}: run `make live-env` to build it"
            " (or point ARGMATRIX_LIVE_PYTHON at a Python that can import sglang's registry)"
        )
    return path


def first_difference(live: Any, static: Any, where: str = "") -> str:
    """Where two JSON values first differ, for a readable failure message."""
    if isinstance(live, dict) and isinstance(static, dict):
        for key in [*live, *(k for k in static if k not in live)]:
            if live.get(key, "<missing>") != static.get(key, "<missing>"):
                return first_difference(live.get(key), static.get(key), f"{where}.{key}")
    if isinstance(live, list) and isinstance(static, list) and len(live) == len(static):
        for index, (a, b) in enumerate(zip(live, static, strict=True)):
            if a != b:
                return first_difference(a, b, f"{where}[{index}]")
    return f"{where or 'top'}: live={live!r} static={static!r}"


@pytest.mark.live_env  # sglang 0.5.7 imported live (make live-env)
def test_live_import_gives_the_same_model_as_static_reading(
    static_registry: Registry, tmp_path: Path
) -> None:
    python = live_python()
    script = LIVE_SCRIPT.format(src=str(SRC), target=TARGET, mock=MOCK)
    result = subprocess.run(
        [str(python), "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    live = json.loads(result.stdout)
    static = registry_to_dict(static_registry)
    assert len(live["arguments"]) == 313
    assert live == static, first_difference(live, static)
