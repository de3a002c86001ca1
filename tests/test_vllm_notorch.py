"""vLLM 0.33.0's whole `vllm` command line read live WITHOUT torch (issue 32), as a documentation
machine reads it: in the Python `make vllm-notorch` builds (vLLM --no-deps and its pure-Python
requirements, locks/vllm-notorch-0.33.0.txt, no torch), with the showcase's own configuration
(showcase/vllm-0.33/: `mock: [auto, vllm.ir]`, nothing else).

Every subcommand of the torch-free read equals, argument for argument and field for field
(flags, dest, type, default, choices, nargs, metavar, help, section, ...), the read where CPU
torch is installed (`make live-env-vllm`), with nothing stood in for but the modules that
environment lacks (`mock: auto`); that read has vLLM's own subcommands and arguments
(tests/live/vllm_serve_parser.py --all: vLLM's entry point stopped where it parses). One default
differs from run to run in vLLM itself: `vllm bench serve --request-id-prefix` is "bench-" and
eight random hex digits; it is compared by its form."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import REPO
from test_live_vllm import ORACLE, finish, start

pytestmark = pytest.mark.live_env  # the torch-free and the CPU-torch vLLM environments

NOTORCH = REPO / ".cache" / "vllm-notorch" / "bin" / "python"
TORCH = REPO / ".cache" / "live-vllm" / "bin" / "python"
SHOWCASE = REPO / "showcase" / "vllm-0.33"
SRC = {"PYTHONPATH": str(REPO / "src")}
# The subcommands of vLLM 0.33.0's `vllm` under `vllm bench --help` (bench's own are built only
# when `bench` is on the command line), as vLLM adds them.
SUBCOMMANDS = [
    "",
    "chat",
    "complete",
    "serve",
    "launch",
    "launch render",
    "bench",
    "bench forward",
    "bench latency",
    "bench mm-processor",
    "bench serve",
    "bench startup",
    "bench sweep",
    "bench sweep serve",
    "bench sweep serve_workload",
    "bench sweep startup",
    "bench sweep plot",
    "bench sweep plot_pareto",
    "bench throughput",
    "collect-env",
    "download-kernels",
    "preload",
    "run-batch",
    "snapshot",
    "snapshot create",
    "snapshot inspect",
    "snapshot restore",
]
RANDOM_DEFAULT = ("bench serve", "request_id_prefix", re.compile(r"bench-[0-9a-f]{8}-"))


def python(variable: str, default: Path, fix: str) -> Path:
    path = Path(os.environ.get(variable) or default)
    if not path.exists():
        pytest.fail(f"no Python at {path} (fix: {fix}, or point {variable} at one)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def notorch() -> Path:
    return python("ARGMATRIX_VLLM_NOTORCH_PYTHON", NOTORCH, "run `make vllm-notorch`")


@pytest.fixture(scope="module")
def torch() -> Path:
    return python("ARGMATRIX_LIVE_PYTHON_VLLM", TORCH, "run `make live-env-vllm`")


def tree(registry: dict[str, Any], words: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Every registry of an export, keyed by its subcommands' words ("" for the program)."""
    found = {" ".join(words): registry}
    for sub in registry.get("subcommands", ()):
        found.update(tree(sub["registry"], (*words, sub["name"])))
    return found


@pytest.fixture(scope="module")
def reads(
    notorch: Path, torch: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """The three reads of the `vllm` program, at once (each takes seconds): without torch as the
    showcase configures it, with CPU torch (`mock: auto` only), and vLLM's own parsers."""
    settings = yaml.safe_load((SHOWCASE / "cli.yaml").read_text(encoding="utf-8"))["registry"]
    assert settings["mock"] == ["auto", "vllm.ir"]
    folder = tmp_path_factory.mktemp("torch")
    (folder / "argmatrix.yaml").write_text(
        yaml.safe_dump({"registry": {**settings, "mock": "auto"}}), encoding="utf-8"
    )
    without = start(
        [str(notorch), "-m", "argmatrix", "export", "--config", str(SHOWCASE / "cli.yaml")],
        SHOWCASE,
        SRC,
    )
    with_torch = start([str(torch), "-m", "argmatrix", "export"], folder, SRC)
    own = start(
        [str(torch), str(ORACLE), "--all", "--", *settings["argv"]],
        folder,
        {"VLLM_TARGET_DEVICE": "cpu"},
    )
    return {
        "notorch": tree(json.loads(finish(without))["registry"]),
        "torch": tree(json.loads(finish(with_torch))["registry"]),
        "vllm": json.loads(finish(own)),
    }


def test_the_docs_environment_has_no_torch(notorch: Path, torch: Path) -> None:
    probe = "import importlib.util, importlib.metadata as m; print(importlib.util.find_spec('torch') is None, m.version('vllm'))"
    for executable, expected in ((notorch, "True 0.33.0"), (torch, "False 0.33.0")):
        done = subprocess.run(
            [str(executable), "-c", probe], capture_output=True, text=True, check=True
        )
        assert done.stdout.strip() == expected, executable


def test_the_subcommands_are_vllms(reads: dict[str, dict[str, Any]]) -> None:
    assert list(reads["vllm"]) == SUBCOMMANDS
    assert list(reads["torch"]) == SUBCOMMANDS
    assert list(reads["notorch"]) == SUBCOMMANDS
    assert len(reads["notorch"]["serve"]["arguments"]) == 321  # --model included


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=lambda words: words or "vllm")
def test_each_subcommand_without_torch_is_the_cpu_torch_read(
    reads: dict[str, dict[str, Any]], words: str
) -> None:
    notorch, torch = reads["notorch"][words], reads["torch"][words]
    for read in (notorch, torch):
        if words == RANDOM_DEFAULT[0]:
            (argument,) = [a for a in read["arguments"] if a["dest"] == RANDOM_DEFAULT[1]]
            assert RANDOM_DEFAULT[2].fullmatch(argument["default"]), argument["default"]
            argument["default"] = "bench-<random>-"
        read.pop("subcommands", None)  # each is compared on its own
        read.pop("source", None)  # the target's words, not what the parser holds
    assert [a["dest"] for a in notorch["arguments"]] == [a["dest"] for a in torch["arguments"]]
    for mine, theirs in zip(notorch["arguments"], torch["arguments"], strict=True):
        assert mine == theirs
    assert notorch == torch  # sections, description: the whole registry


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=lambda words: words or "vllm")
def test_each_subcommand_of_the_cpu_torch_read_has_vllms_own_arguments(
    reads: dict[str, dict[str, Any]], words: str
) -> None:
    """The reference itself, against the parsers vLLM builds: the same subcommands (above), each
    with the same arguments in the same order, by flags and dest. Field by field, `vllm serve`
    is held to vLLM's own parser in tests/test_live_vllm.py; here argmatrix's conventions (a
    missing help is "", argparse's default groups are one "General" section, `inf` is a Python
    value) would be all the other fields differ by."""
    real = reads["vllm"][words]["arguments"]
    exported = reads["torch"][words]["arguments"]
    assert [(a["flags"], a["dest"]) for a in exported] == [(a["flags"], a["dest"]) for a in real]


def test_export_in_the_showcase_prints_vllm_serve_exact(
    notorch: Path, reads: dict[str, dict[str, Any]]
) -> None:
    """`argmatrix export` where the showcase is (its argmatrix.yaml: `vllm serve`)."""
    done = subprocess.run(
        [str(notorch), "-m", "argmatrix", "export"],
        cwd=SHOWCASE,
        env={**os.environ, **SRC},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    serve = json.loads(done.stdout)["registry"]
    assert serve["source"] == "vllm.entrypoints.cli.main:main serve"
    expected = reads["torch"]["serve"]
    assert serve["arguments"] == expected["arguments"]
    assert serve["sections"] == expected["sections"]
    assert serve["description"] == expected["description"]


@pytest.mark.parametrize("config", ["argmatrix.yaml", "cli.yaml"])
def test_check_passes_on_the_showcase_without_torch(notorch: Path, config: str) -> None:
    done = subprocess.run(
        [str(notorch), "-m", "argmatrix", "check", "--config", config],
        cwd=SHOWCASE,
        env={**os.environ, **SRC},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr[-3000:]


def test_without_vllm_ir_stood_in_the_read_stops_where_vllm_registers_torch_ops(
    notorch: Path, tmp_path: Path
) -> None:
    """Why the showcase stands in for vllm.ir by name: importing it registers torch's custom ops
    and asserts each one exists, which no stand-in of torch can make true. `mock: auto` alone
    stops there, at vLLM's line, said as vLLM's own error (not argmatrix's)."""
    settings = yaml.safe_load((SHOWCASE / "argmatrix.yaml").read_text(encoding="utf-8"))
    (tmp_path / "argmatrix.yaml").write_text(
        yaml.safe_dump({"registry": {**settings["registry"], "mock": "auto"}}), encoding="utf-8"
    )
    done = subprocess.run(
        [str(notorch), "-m", "argmatrix", "export"],
        cwd=tmp_path,
        env={**os.environ, **SRC},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert re.match(r"argmatrix: error: \S+/site-packages/vllm/ir/\S+\.py:\d+: ", line), line
    assert "raised AssertionError" in line and "the registry's own code" in line


def test_static_reading_of_the_program_stops_at_one_located_line(notorch: Path) -> None:
    """Static reading of vLLM is not there yet: it stops at one line of vLLM's source, with a
    fix, and never returns part of the command line."""
    site = next(notorch.parent.parent.glob("lib/python3*/site-packages"))
    done = subprocess.run(
        [
            str(notorch),
            "-m",
            "argmatrix",
            "export",
            "--static",
            "--registry",
            "vllm.entrypoints.cli.main:main",
        ],
        cwd=site,
        env={**os.environ, **SRC},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stdout[:500]
    (line,) = done.stderr.strip().splitlines()
    assert re.match(r"argmatrix: error: vllm/\S+\.py:\d+: ", line)  # named from where it ran
    assert "static reading stopped" in line and "(fix: " in line
