"""`make bench`, the registries LLM servers ship today: each read statically and live, timed.

Each row is the median of several fresh processes, timing the registry's extraction inside the
process (argmatrix's own import included). Static reading is cached by the content of every file
it read: "cold" starts from an empty cache folder of its own, "warm" reuses a cache an earlier run
filled. Live reading runs
the registry's code every time and is never cached, so it has one figure. A registry that a mode
cannot read is reported with the one line argmatrix gives.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
SHARED = ROOT.parent / "shared" / "real-registries"

# Times the extraction of one registry inside one process; prints [seconds, arguments, processor
# seconds (of the process and any it waited for)] or [null, the error line].
_EXTRACT = """
import json, resource, sys, time
def processor():
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in used)
sys.path.insert(0, {src!r})
start, start_processor = time.perf_counter(), processor()
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import RegistrySpec, load_registry
settings = json.loads({settings!r})
for key in ("mock", "search_path", "subcommand", "argv", "args"):
    if key in settings:
        settings[key] = tuple(settings[key])
if "env" in settings:
    settings["env"] = tuple(tuple(pair) for pair in settings["env"])
if "base_dir" in settings:
    from pathlib import Path
    settings["base_dir"] = Path(settings["base_dir"])
try:
    registry = load_registry(RegistrySpec(**settings))
except ArgmatrixError as error:
    print(json.dumps([None, str(error)]))
else:
    cpu = processor() - start_processor
    print(json.dumps([time.perf_counter() - start, len(registry.arguments), cpu]))
"""


@dataclass
class Mode:
    """One way of reading a registry: the Python that reads it, and the RegistrySpec's fields."""

    python: Path
    settings: dict[str, Any]
    cwd: Path = ROOT
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Row:
    registry: str
    static: Mode | None
    live: Mode | None
    needs: str  # what builds the inputs when they are missing


@dataclass
class Figure:
    seconds: float | None
    arguments: int = 0
    error: str = ""
    cpu: float = 0.0


def extract(mode: Mode, env: dict[str, str]) -> Figure:
    code = _EXTRACT.format(src=str(ROOT / "src"), settings=json.dumps(mode.settings))
    done = subprocess.run(
        [str(mode.python), "-c", code],
        cwd=mode.cwd,
        env={**os.environ, **mode.env, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return Figure(None, error=(done.stderr.strip().splitlines() or ["no output"])[-1])
    seconds, result, *cpu = json.loads(lines[-1])
    if seconds is None:
        return Figure(None, error=result.replace(str(ROOT) + os.sep, ""))
    return Figure(seconds, result, cpu=cpu[0])


def cold_extract(mode: Mode) -> Figure:
    with tempfile.TemporaryDirectory(prefix="argmatrix-bench-cold-") as folder:
        return extract(mode, {"ARGMATRIX_CACHE_DIR": folder})


def median(mode: Mode, env: dict[str, str] | None, repeat: int) -> Figure:
    """The median of `repeat` runs; with `env` None, each from an empty cache."""
    figures = [extract(mode, env) if env is not None else cold_extract(mode) for _ in range(repeat)]
    failed = [f for f in figures if f.seconds is None]
    if failed:
        return failed[0]
    return Figure(
        statistics.median(f.seconds or 0.0 for f in figures),
        figures[0].arguments,
        cpu=statistics.median(f.cpu for f in figures),
    )


def unpack_rtp(folder: Path) -> Path | None:
    archives = sorted(SHARED.glob("rtp-llm-*.tgz"))
    if not archives:
        return None
    with tarfile.open(archives[-1]) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, filter="data")
        else:
            archive.extractall(folder)
    return folder


def rows(scratch: Path) -> list[Row]:
    venv = Path(sys.executable)
    sglang = "sglang.srt.server_args:ServerArgs.add_cli_args"
    vllm = "vllm.entrypoints.common.cli_args:make_arg_parser"
    lmdeploy = CACHE / "lmdeploy-0.18.0"
    vllm_python = CACHE / "live-vllm" / "bin" / "python"
    vllm_site = sorted((CACHE / "live-vllm" / "lib").glob("python3*/site-packages"))
    rtp = unpack_rtp(scratch / "rtp")
    rtp_target = "rtp_llm.server.server_args.server_args:setup_args"
    result = [
        Row(
            "sglang 0.5.23 (`ServerArgs.add_cli_args`)",
            Mode(
                venv,
                {"target": sglang, "mode": "static", "search_path": [str(CACHE / "sglang-0.5.23")]},
            ),
            Mode(
                CACHE / "live-sglang-0.5.23" / "bin" / "python",
                {"target": sglang, "mock": ["IPython", "torchvision", "sentencepiece"]},
            ),
            "make new-sglang live-env-0523",
        ),
        Row(
            "vLLM 0.33.0 (`make_arg_parser`, `vllm serve`)",
            Mode(
                venv,
                {
                    "target": vllm,
                    "mode": "static",
                    "parser_class": "vllm.utils.argparse_utils:FlexibleArgumentParser",
                    "search_path": [str(p) for p in vllm_site],
                },
            ),
            Mode(
                vllm_python,
                {
                    "target": vllm,
                    "parser_class": "vllm.utils.argparse_utils:FlexibleArgumentParser",
                    "env": [["VLLM_TARGET_DEVICE", "cpu"]],
                    "argv": ["--help"],
                    "auto_mock": True,
                },
            ),
            "make live-env-vllm",
        ),
        Row(
            "lmdeploy 0.18.0 (`run`, `serve api_server`)",
            Mode(
                venv,
                {
                    "target": "lmdeploy.cli.entrypoint:run",
                    "mode": "static",
                    "subcommand": ["serve", "api_server"],
                    "search_path": [str(lmdeploy)],
                },
            ),
            Mode(
                venv,
                {
                    "target": "lmdeploy.cli.entrypoint:run",
                    "auto_mock": True,
                    "subcommand": ["serve", "api_server"],
                    "base_dir": str(lmdeploy),
                },
            ),
            "make lmdeploy-cli",
        ),
    ]
    if rtp is not None:
        result.append(
            Row(
                "RTP-LLM (`setup_args`, source subset)",
                Mode(
                    venv,
                    {"target": rtp_target, "mode": "static", "search_path": [str(rtp)]},
                    cwd=rtp,
                ),
                Mode(
                    venv,
                    {
                        "target": rtp_target,
                        "auto_mock": True,
                        "mock": ["rtp_llm.ops"],
                        "base_dir": str(rtp),
                    },
                    cwd=rtp,
                ),
                f"an archive rtp-llm-*.tgz in {SHARED}",
            )
        )
    return result


# "Well under a second", cold, in processor time: on a machine shared with other work (as a CI
# runner is) the wall time of a single-threaded read grows with the load, its processor time not.
STATIC_LIMIT = 1.0


def _cell(figure: Figure | None, cpu: bool = False) -> str:
    if figure is None:
        return "—"
    if figure.seconds is None:
        return "stops (see below)"
    if cpu:
        return f"{figure.seconds * 1000:.0f} ms ({figure.cpu * 1000:.0f} ms)"
    return f"{figure.seconds * 1000:.0f} ms"


def _count(*figures: Figure | None) -> str:
    counts = [f"{f.arguments}" for f in figures if f is not None and f.seconds is not None]
    return " / ".join(dict.fromkeys(counts)) or "—"


def section(repeat: int, live_repeat: int) -> tuple[list[str], list[str]]:
    """The Markdown of the section, and its lines for the table of targets."""
    lines: list[str] = []
    targets: list[str] = []
    notes: list[str] = []
    say = lines.append
    say("## Registries LLM servers ship today: static and live (no pages, extraction only)")
    say("")
    say(
        "| registry | arguments (static / live) | static, cold (processor) | static, warm"
        " | live (processor) |"
    )
    say("| --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="argmatrix-bench-registries-") as folder:
        scratch = Path(folder)
        for row in rows(scratch):
            cold = warm = live = None
            if row.static is not None:
                cold = median(row.static, None, repeat)
                cache = {"ARGMATRIX_CACHE_DIR": str(scratch / "cache")}
                if cold.seconds is not None:
                    extract(row.static, cache)  # fills the cache
                    warm = median(row.static, cache, repeat)
                else:
                    notes.append(f"- {row.registry}, static: {cold.error}")
                    warm = None
            if row.live is not None:
                if not Path(row.live.python).exists():
                    notes.append(
                        f"- {row.registry}, live: not measured, no {row.live.python}"
                        f" (`{row.needs}`)"
                    )
                else:
                    live = median(row.live, {}, live_repeat)
                    if live.seconds is None:
                        notes.append(f"- {row.registry}, live: {live.error}")
            say(
                f"| {row.registry} | {_count(cold, live)} | {_cell(cold, cpu=True)} |"
                f" {_cell(warm)} | {_cell(live, cpu=True)} |"
            )
            if cold is not None and cold.seconds is not None:
                met = cold.cpu < STATIC_LIMIT
                targets.append(
                    f"| {row.registry}: static < {STATIC_LIMIT:g} s of processor time, cold |"
                    f" {cold.cpu:.2f} s ({cold.seconds:.2f} s wall) | {'met' if met else 'missed'} |"
                )
    say("")
    say(
        f"Median of {repeat} runs (static) and {live_repeat} (live), each a fresh process; the time"
    )
    say("includes importing argmatrix. Live runs each registry's own code under the settings of")
    say("its test (tests/test_live_*.py): CPU torch where the registry needs it, `mock: auto`")
    say("for the rest. Live reading is never cached, so it has no warm figure.")
    if notes:
        say("")
        say("Where a mode stops, argmatrix's one line (exit 2 from the command line):")
        say("")
        lines.extend(notes)
    say("")
    return lines, targets
