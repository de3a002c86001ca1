"""`make bench`, vLLM 0.33 read without torch (issue 32) beside the read where CPU torch is
installed: the whole `vllm` program and `vllm serve` as the showcase configures them
(showcase/vllm-0.33/), each a fresh `argmatrix export`, its wall time, processor time and peak
memory (the largest process of the read: argmatrix forks one that imports vLLM)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
SHOWCASE = ROOT / "showcase" / "vllm-0.33"
NOTORCH = ROOT / ".cache" / "vllm-notorch" / "bin" / "python"
TORCH = ROOT / ".cache" / "live-vllm" / "bin" / "python"
TITLE = "## vLLM 0.33 without torch, beside CPU torch"


def _counts(python: Path, config: Path, cwd: Path) -> tuple[int, int]:
    """(commands, arguments) of one read, every level of subcommands counted."""
    done = subprocess.run(
        [str(python), "-m", "argmatrix", "export", "--config", str(config)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=True,
    )

    def walk(registry: dict[str, Any]) -> tuple[int, int]:
        commands, arguments = 0, len(registry["arguments"])
        for sub in registry.get("subcommands", ()):
            below = walk(sub["registry"])
            commands, arguments = commands + 1 + below[0], arguments + below[1]
        return commands, arguments

    return walk(json.loads(done.stdout)["registry"])


def section(run: Callable[..., Any], repeat: int) -> list[str]:
    """The Markdown of the section. `run(command, cwd, env)` times one command (bench/run.py)."""
    missing = [f"`{p}`" for p in (NOTORCH, TORCH) if not p.exists()]
    lines = [TITLE, ""]
    if missing:
        return [
            *lines,
            f"Not measured: no {', '.join(missing)} (`make vllm-notorch live-env-vllm`).",
            "",
        ]
    with tempfile.TemporaryDirectory(prefix="argmatrix-bench-vllm-") as folder:
        torch_configs = {}
        for name in ("argmatrix.yaml", "cli.yaml"):  # the same reads, `mock: auto` where torch is
            settings = yaml.safe_load((SHOWCASE / name).read_text(encoding="utf-8"))["registry"]
            torch_configs[name] = Path(folder) / name
            torch_configs[name].write_text(
                yaml.safe_dump({"registry": {**settings, "mock": "auto"}}), encoding="utf-8"
            )
        lines += [
            "| read | environment | commands / arguments | median time (processor) | peak memory |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        env = {"PYTHONPATH": str(ROOT / "src")}
        reads = [
            ("the `vllm` program", "cli.yaml"),
            ("`vllm serve`", "argmatrix.yaml"),
        ]
        measured: dict[str, tuple[float, float]] = {}  # the program's: (processor, memory)
        for what, name in reads:
            for label, python, config, cwd in (
                (
                    "vLLM, no torch (`make vllm-notorch`), `mock: [auto, vllm.ir]`",
                    NOTORCH,
                    SHOWCASE / name,
                    SHOWCASE,
                ),
                (
                    "CPU torch (`make live-env-vllm`), `mock: auto`",
                    TORCH,
                    torch_configs[name],
                    Path(folder),
                ),
            ):
                command = [str(python), "-m", "argmatrix", "export", "--config", str(config)]
                figures = []
                for _ in range(repeat):  # interleaving would not help: each read is seconds long
                    figures.append(run(command, cwd, env))
                seconds = statistics.median(f.seconds for f in figures)
                cpu = statistics.median(f.cpu for f in figures)
                peak = max(f.peak_mb for f in figures)
                commands, arguments = _counts(python, config, cwd)
                if name == "cli.yaml":
                    measured["notorch" if python == NOTORCH else "torch"] = (cpu, peak)
                lines.append(
                    f"| {what} | {label} | {commands} / {arguments} | {seconds * 1000:.0f} ms"
                    f" ({cpu * 1000:.0f} ms) | {peak:.0f} MB |"
                )
    load = os.getloadavg()
    lines += [
        "",
        f"Median of {repeat} fresh `argmatrix export` runs each; load average {load[0]:.1f}"
        f" (1 minute), {load[1]:.1f} (5 minutes) at the end. Both reads give the same command"
        " line, argument for argument (`tests/test_vllm_notorch.py`). Without torch, importing"
        " vLLM's code meets stand-ins instead of torch and its GPU stack: the program is read in"
        f" {measured['torch'][0] / measured['notorch'][0]:.1f}× less processor time and"
        f" {measured['torch'][1] / measured['notorch'][1]:.1f}× less memory (wall times grow with"
        " the machine's load; processor times do not).",
        "",
    ]
    return lines
