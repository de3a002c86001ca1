"""`make bench`: how fast argmatrix is, as ratios measured in one run, written to RESULTS.md.

The machine is shared (a CI runner, a developer's laptop, several engineers on two cores), so
wall times alone say little: each target is measured interleaved with `python -c pass` in the
same run, round after round, and given as the ratio of the two medians, with the load average
of the moment. Every figure is the median of several runs of a fresh process; peak memory is
the child's maximum resident set. "Cold" runs start from an empty argmatrix cache (a fresh
ARGMATRIX_CACHE_DIR each, as on a new CI machine: everything is read, rendered and cached);
"warm" ones reuse what an earlier run cached (a CI job run again, a developer's machine).

`python bench/run.py --targets` measures the targets alone and prints them (nothing written).
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argmatrix.config import load_config  # noqa: E402
from bench.notorch import TITLE as VLLM_TITLE  # noqa: E402
from bench.notorch import section as vllm_section  # noqa: E402
from bench.projects import real_projects  # noqa: E402
from bench.registries import section as registries_section  # noqa: E402
from bench.synth import write_project  # noqa: E402

VENV_BIN = Path(sys.executable).parent
ARGMATRIX = str(VENV_BIN / "argmatrix")
LIVE_PYTHON = os.environ.get("ARGMATRIX_LIVE_PYTHON", str(ROOT / ".cache/live-sglang/bin/python"))
SGLANG_TARGET = "sglang.srt.server_args:ServerArgs.add_cli_args"
SGLANG_MOCK = ("IPython", "torchvision", "sentencepiece")
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
LIVE_REPEAT = int(os.environ.get("BENCH_LIVE_REPEAT", "3"))  # a live import of vLLM takes ~10 s
SCALES = (1000, 5000, 10000)
PLATFORMS = 20
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))  # interleaved rounds of the ratio targets
SCALE_ROUNDS = int(os.environ.get("BENCH_SCALE_ROUNDS", "3"))
# The targets, as multiples of `python -c pass` measured in the same run.
WARM_CHECK_LIMIT, COLD_CHECK_LIMIT, COLD_EXPORT_LIMIT = 5.0, 10.0, 8.0
SCALE_LIMIT_SECONDS = 3.0

# Runs one command and reports its wall time and peak memory, from a process of its own so
# RUSAGE_CHILDREN sees only that command.
_RUNNER = """
import json, resource, subprocess, sys, time
command, cwd = json.loads(sys.argv[1]), sys.argv[2]
start = time.perf_counter()
done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([wall, used.ru_maxrss / 1024, done.returncode, done.stdout.decode()[-400:],
                  done.stderr.decode()[-400:], used.ru_utime + used.ru_stime]))
"""

# Times only the registry extraction inside one process (imports of the registry included).
_EXTRACT = """
import json, sys, time
sys.path.insert(0, {src!r})
start = time.perf_counter()
from argmatrix.loaders.load import RegistrySpec, load_registry
registry = load_registry(RegistrySpec({target!r}, mode={mode!r}, mock={mock!r}))
print(json.dumps([time.perf_counter() - start, len(registry.arguments)]))
"""


@dataclass
class Figure:
    seconds: float
    peak_mb: float
    stdout: str = ""
    cpu: float = 0.0  # processor seconds of the command (and of any process it waited for)


def run(command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> Figure:
    environment = {**os.environ, **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps(command), str(cwd)],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    ).stdout
    wall, peak, code, stdout, stderr, cpu = json.loads(out)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{stdout}\n{stderr}")
    return Figure(wall, peak, stdout, cpu)


def median(
    command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, repeat: int = REPEAT
) -> Figure:
    figures = [run(command, cwd, env) for _ in range(repeat)]
    return Figure(statistics.median(f.seconds for f in figures), max(f.peak_mb for f in figures))


def extraction(python: str, mode: str, repeat: int = REPEAT) -> tuple[float, float, int]:
    code = _EXTRACT.format(
        src=str(ROOT / "src"),
        target=SGLANG_TARGET,
        mode=mode,
        mock=SGLANG_MOCK if mode == "live" else (),
    )
    times, peaks, count = [], [], 0
    for _ in range(repeat):
        figure = run([python, "-c", code], env={"ARGMATRIX_NO_CACHE": "1"})
        seconds, count = json.loads(figure.stdout.strip().splitlines()[-1])
        times.append(seconds)
        peaks.append(figure.peak_mb)
    return statistics.median(times), max(peaks), count


@contextmanager
def fresh_cache() -> Iterator[dict[str, str]]:
    """The environment of a cold run: an argmatrix cache folder of its own, empty."""
    folder = tempfile.mkdtemp(prefix="argmatrix-bench-cold-")
    try:
        yield {"ARGMATRIX_CACHE_DIR": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cold(command: list[str], cwd: Path = ROOT) -> Callable[[], Figure]:
    def once() -> Figure:
        with fresh_cache() as env:
            return run(command, cwd, env)

    return once


def again(command: list[str], cwd: Path, env: dict[str, str]) -> Callable[[], Figure]:
    return lambda: run(command, cwd, env)


def interleaved(cases: dict[str, Callable[[], Figure]], rounds: int) -> dict[str, list[Figure]]:
    """Each case once per round, the order turned by one every round, so that a change in the
    machine's load falls on every case alike."""
    names = list(cases)
    found: dict[str, list[Figure]] = {name: [] for name in names}
    for number in range(rounds):
        turn = number % len(names)
        for name in names[turn:] + names[:turn]:
            found[name].append(cases[name]())
    return found


def middle(figures: list[Figure]) -> float:
    return statistics.median(f.seconds for f in figures)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 minute), {five:.1f} (5 minutes)"


def met(ok: bool) -> str:
    return "met" if ok else "missed"


@dataclass
class Section:
    lines: list[str]
    targets: list[str]


# The modules a cold showcase export imports from outside argmatrix (the standard library,
# PyYAML), found by running one in this interpreter: printed one per line.
_OUTSIDE_IMPORTS = """
import os, sys
before = set(sys.modules)
sys.argv = ["argmatrix", "export"]
stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
from argmatrix.cli.main import run
run()
sys.stdout = stdout
names = set(sys.modules) - before
print("\\n".join(sorted(n for n in names if n.split(".")[0] != "argmatrix")))
"""
# Imports each module named, in the order given, skipping any that cannot be imported alone
# (an alias such as `os.path` imports fine; a platform's private module may not).
_IMPORT_THEM = """
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
"""


def outside_imports() -> list[str]:
    """What a cold showcase export imports besides argmatrix itself: the floor no change to
    argmatrix's own code can go below while it uses argparse, PyYAML and the standard library."""
    with fresh_cache() as env:
        out = subprocess.run(
            [sys.executable, "-c", _OUTSIDE_IMPORTS],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **env},
        )
    return out.stdout.split()


def sglang_server_args() -> Path:
    """The showcase's registry module, found without importing sglang."""
    import importlib.machinery

    spec = importlib.machinery.PathFinder.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not installed: run `make install` first")
    return Path(next(iter(spec.submodule_search_locations))) / "srt" / "server_args.py"


def targets_section(rounds: int = ROUNDS) -> Section:
    """The start-up targets on the showcase (sglang 0.5.7, read statically), as ratios."""
    showcase = load_config(ROOT / "argmatrix.yaml", ROOT)
    warm_cache = tempfile.mkdtemp(prefix="argmatrix-bench-warm-")
    warm = {"ARGMATRIX_CACHE_DIR": warm_cache}
    run([ARGMATRIX, "check"], env=warm)  # fills the cache
    floor = outside_imports()
    parse = f"import ast; tree = ast.parse(open({str(sglang_server_args())!r}, 'rb').read())"
    started = load()
    rounds_run = itertools.count()
    found = interleaved(
        {
            "pass": lambda: run([sys.executable, "-c", "pass"]),
            "floor": lambda: run([sys.executable, "-c", _IMPORT_THEM, *floor]),
            "floor and parse": lambda: run(
                [sys.executable, "-c", f"{_IMPORT_THEM}\n{parse}", *floor]
            ),
            "warm check": lambda: run([ARGMATRIX, "check"], env=warm),
            # A new environment each run: no earlier outcome to replay, every input cached.
            "warm check, not replayed": lambda: run(
                [ARGMATRIX, "check"], env={**warm, "ARGMATRIX_BENCH_RUN": str(next(rounds_run))}
            ),
            "cold check": cold([ARGMATRIX, "check"]),
            "cold export": cold([ARGMATRIX, "export"]),
        },
        rounds,
    )
    ended = load()
    shutil.rmtree(warm_cache, ignore_errors=True)
    base = middle(found["pass"])
    rows = [
        ("`python -c pass`", "pass", None),
        (
            "Python importing what a cold export imports from outside argmatrix, nothing run"
            " (the floor, see below)",
            "floor",
            None,
        ),
        ("the same, and parsing sglang's `server_args.py` (223 KB) once", "floor and parse", None),
        (
            "`argmatrix check`, warm cache (the earlier outcome replayed)",
            "warm check",
            WARM_CHECK_LIMIT,
        ),
        (
            "`argmatrix check`, warm cache, not replayed (a new environment)",
            "warm check, not replayed",
            None,
        ),
        ("`argmatrix check`, cold (empty cache)", "cold check", COLD_CHECK_LIMIT),
        (
            "`argmatrix export`, cold (sglang 0.5.7 read statically)",
            "cold export",
            COLD_EXPORT_LIMIT,
        ),
    ]
    lines = [
        f"## Start-up: the showcase (sglang 0.5.7, 313 arguments, read statically; Ascend manifest;"
        f" {len(showcase.pages)} pages)",
        "",
        f"{rounds} rounds, each running every command once (in turn), in one run; load average"
        f" {started} at the start, {ended} at the end.",
        "",
        "| command | median time | peak memory | × `python -c pass` (medians) | target |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    targets = []
    for label, name, limit in rows:
        seconds, ratio = middle(found[name]), middle(found[name]) / base
        peak = max(f.peak_mb for f in found[name])
        lines.append(
            f"| {label} | {seconds * 1000:.0f} ms | {peak:.0f} MB | {ratio:.1f} |"
            f" {f'≤ {limit:g}×' if limit else ''} |"
        )
        if limit is not None:
            targets.append(
                f"| {label} ≤ {limit:g}× `python -c pass` | {ratio:.1f}× | {met(ratio <= limit)} |"
            )
    floor_ratio, parsed_ratio = (
        middle(found["floor"]) / base,
        middle(found["floor and parse"]) / base,
    )
    lines += floor_lines(floor, floor_ratio, parsed_ratio)
    lines.append("")
    return Section(lines, targets)


def floor_lines(floor: list[str], imports: float, parsed: float) -> list[str]:
    """What the floor rows are, and what the cold targets leave for argmatrix's own work."""
    packages = sorted({name.split(".")[0] for name in floor if not name.startswith("_")})
    return [
        "",
        f"The floor: a cold export imports {len(floor)} modules from outside argmatrix"
        f" ({', '.join(packages)}); a process that imports them and does nothing else takes"
        f" {imports:.1f}× `python -c pass`, and {parsed:.1f}× if it also parses the registry's"
        " module once, as static reading does. The cold targets leave argmatrix's own modules"
        f" and work {COLD_CHECK_LIMIT - parsed:.1f}× (check) and"
        f" {COLD_EXPORT_LIMIT - parsed:.1f}× (export) above that.",
    ]


def real_projects_section(rounds: int = REPEAT) -> Section:
    """`check` on projects over the real registries, cold and warm, as ratios: what one process
    does on the registries servers ship."""
    lines = [
        "## Real registries: `check` on a project over each (one manifest, two pages)",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="argmatrix-bench-projects-") as folder:
        projects = real_projects(Path(folder))
        started = load()
        lines += [
            "| registry | cold | warm | cold × `python -c pass` | warm × `python -c pass` |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for project in projects:
            options = list(project.options)
            subprocess.run(
                [ARGMATRIX, "generate", *options], cwd=project.cwd, check=True, capture_output=True
            )
            with fresh_cache() as warm:
                run([ARGMATRIX, "check", *options], project.cwd, warm)
                found = interleaved(
                    {
                        "pass": lambda: run([sys.executable, "-c", "pass"]),
                        "cold": cold([ARGMATRIX, "check", *options], project.cwd),
                        "warm": again([ARGMATRIX, "check", *options], project.cwd, warm),
                    },
                    rounds,
                )
            base = middle(found["pass"])
            lines.append(
                f"| {project.name} | {middle(found['cold']) * 1000:.0f} ms |"
                f" {middle(found['warm']) * 1000:.0f} ms | {middle(found['cold']) / base:.1f} |"
                f" {middle(found['warm']) / base:.1f} |"
            )
        lines += [
            "",
            f"{rounds} interleaved rounds per project; load average {started} at the start,"
            f" {load()} at the end. Each project reads its registry statically and has a"
            " manifest classifying every third argument; the sglang ones are the repository's"
            ' showcases. "Warm": the same check again, which replays the earlier outcome'
            " after looking at every file it read again.",
            "",
        ]
    return Section(lines, [])


def scale_section(rounds: int = SCALE_ROUNDS) -> Section:
    """Synthetic registries: generate + check from an empty cache, and how that grows."""
    lines = [
        f"## Scale: synthetic registries, {PLATFORMS} platform manifests, every page",
        "",
        "| arguments | generate, cold | check after it | generate + check, cold (processor)"
        " | generate, warm | check, warm | peak memory |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    started = load()
    totals: dict[int, float] = {}
    processor: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="argmatrix-bench-scale-") as folder:
        projects = {
            size: write_project(Path(folder) / str(size), size, PLATFORMS) for size in SCALES
        }
        runs: dict[int, list[tuple[Figure, Figure]]] = {size: [] for size in SCALES}
        warm: dict[int, list[tuple[Figure, Figure]]] = {size: [] for size in SCALES}
        for _ in range(rounds):
            for size in SCALES:  # the sizes interleaved, as the ratios are
                with fresh_cache() as env:
                    generate = run([ARGMATRIX, "generate"], projects[size], env)
                    check = run([ARGMATRIX, "check"], projects[size], env)
                    runs[size].append((generate, check))
                    warm[size].append(
                        (
                            run([ARGMATRIX, "generate"], projects[size], env),
                            run([ARGMATRIX, "check"], projects[size], env),
                        )
                    )
        for size in SCALES:
            total = statistics.median(g.seconds + c.seconds for g, c in runs[size])
            totals[size] = total
            processor[size] = statistics.median(g.cpu + c.cpu for g, c in runs[size])
            peak = max(f.peak_mb for pair in runs[size] + warm[size] for f in pair)
            lines.append(
                f"| {size:,} | {statistics.median(g.seconds for g, _ in runs[size]):.2f} s |"
                f" {statistics.median(c.seconds for _, c in runs[size]):.2f} s | {total:.2f} s"
                f" ({processor[size]:.2f} s) |"
                f" {statistics.median(g.seconds for g, _ in warm[size]):.2f} s |"
                f" {statistics.median(c.seconds for _, c in warm[size]):.2f} s | {peak:.0f} MB |"
            )
    small, middle_size, large = SCALES
    # Linearity in processor time: the wall time of a run grows with whatever else the machine
    # does meanwhile, which changes from one size to the next.
    growth = [(processor[b] - processor[a]) / (b - a) * 1000 for a, b in itertools.pairwise(SCALES)]
    steepening = growth[1] / growth[0]
    doubling = processor[large] / processor[middle_size]
    lines += [
        "",
        f"Median of {rounds} rounds, the sizes interleaved; load average {started} at the start,"
        f' {load()} at the end. "Cold": an empty cache folder, so every source file is parsed,',
        "every manifest read by PyYAML and every page rendered, then `check` runs in the cache",
        '`generate` filled (a CI job that runs both). "Warm": inputs unchanged since an earlier',
        "run, so the parsed registry, manifests and pages are reused. One process does the work,",
        "so its processor time is its wall time on an idle machine; on a shared one the wall time",
        "grows with the load and the processor time does not.",
        "",
        f"Growth of cold generate + check in processor time per 1,000 added arguments:"
        f" {growth[0]:.3f} s from {small:,} to {middle_size:,}, {growth[1]:.3f} s from"
        f" {middle_size:,} to {large:,} ({steepening:.2f}×; a cost growing with the square of the"
        f" size would make it about 2.5×); {large:,} arguments take {doubling:.2f}× the processor"
        f" time of {middle_size:,}.",
        "",
    ]
    targets = [
        f"| {large:,} arguments, {PLATFORMS} manifests: generate + check, cold,"
        f" < {SCALE_LIMIT_SECONDS:g} s of processor time (the wall time of an idle machine:"
        f" one process) | {processor[large]:.2f} s ({totals[large]:.2f} s wall) |"
        f" {met(processor[large] < SCALE_LIMIT_SECONDS)} |",
        f"| linear: the cost of 1,000 more arguments from {middle_size:,} to {large:,} at most"
        f" 1.5× that from {small:,} to {middle_size:,} (quadratic: 2.5×) | {steepening:.2f}× |"
        f" {met(steepening <= 1.5)} |",
    ]
    return Section(lines, targets)


def extraction_section() -> Section:
    static_time, static_peak, static_count = extraction(sys.executable, "static")
    lines = [
        "## Registry extraction: sglang 0.5.7 (no cache)",
        "",
        "| mode | arguments | median time | peak memory |",
        "| --- | ---: | ---: | ---: |",
        f"| static (source read, nothing imported) | {static_count} |"
        f" {static_time * 1000:.0f} ms | {static_peak:.0f} MB |",
    ]
    targets = []
    if Path(LIVE_PYTHON).exists():
        live_time, live_peak, live_count = extraction(LIVE_PYTHON, "live", repeat=LIVE_REPEAT)
        ratio = live_time / static_time
        lines += [
            f"| live (imports sglang and torch, CPU build) | {live_count} |"
            f" {live_time * 1000:.0f} ms | {live_peak:.0f} MB |",
            "",
            f"Static extraction is **{ratio:.0f}×** faster than live import.",
        ]
        targets.append(
            f"| static extraction ≥ 20× faster than live import | {ratio:.0f}× | {met(ratio >= 20)} |"
        )
    else:
        lines += [
            "",
            f"Live import not measured: no heavy environment at {LIVE_PYTHON} (`make live-env`).",
        ]
    lines.append("")
    return Section(lines, targets)


def compile_argmatrix() -> None:
    # As installed from a wheel (pip byte-compiles it): this machine sets PYTHONDONTWRITEBYTECODE,
    # so an editable install would otherwise compile argmatrix's modules on every run.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "src" / "argmatrix")], check=True
    )
    subprocess.run([ARGMATRIX, "generate"], cwd=ROOT, check=True, capture_output=True)


def targets_table(targets: list[str]) -> list[str]:
    return [
        "## Targets (issue: speed from doing less; speed, scale and hostile input)",
        "",
        "| target | measured | |",
        "| --- | ---: | --- |",
        *targets,
        "",
    ]


CORPUS_TITLE = "## The corpus of real command lines"


def corpus_section() -> list[str]:
    """Each target of the corpus (tests/test_corpus.py, in .cache/corpus: `make corpus`), read
    live and statically: how many parameters and commands, and how static reading fares."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_corpus as corpus  # the one list of the corpus's targets

    lines = [
        CORPUS_TITLE,
        "",
        "Current releases pinned in `locks/corpus.txt`, each read as a user names it; live equals"
        " the framework's own view in every value of every subcommand (`tests/test_corpus.py`,"
        " marker `corpus`), static equals live or stops at one located line.",
        "",
        "| target | framework | parameters (commands) | static | live |",
        "| --- | --- | ---: | --- | --- |",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for target, settings in corpus.TARGETS.items():
            done = corpus.export(target, settings, static=False, cwd=Path(folder))
            live = json.loads(done.stdout)["registry"]
            counted = f"{corpus.count(live)} ({_commands(live)})"
            framework = _framework(
                target, {"click": "Click", "argparse": "argparse"}[settings.framework]
            )
            lines.append(
                f"| `{target}` | {framework} | {counted} |"
                f" {_static(corpus, target, settings)} | equal to {framework}'s view |"
            )
    return [*lines, ""]


def _framework(target: str, framework: str) -> str:
    typer_apps = ("fastapi_cli", "huggingface_hub", "instructor")
    return "Typer" if target.startswith(typer_apps) else framework


def _commands(registry: dict[str, Any]) -> int:
    subs = registry.get("subcommands", ())
    return len(subs) + sum(_commands(s["registry"]) for s in subs)


def _static(corpus: Any, target: str, settings: Any) -> str:
    if settings.static_stop is not None:
        where, what = settings.static_stop
        return f"stops at `{where}`: {what}" if where else f"stops: {what}"
    if settings.static_gap:
        return f"reads it all but for a known gap: {settings.static_gap}"
    with tempfile.TemporaryDirectory() as folder:
        done = corpus.export(target, settings, static=True, cwd=Path(folder))
    kept = sum("kept as source text" in line for line in done.stderr.splitlines())
    return f"equal to live, {kept} values kept as source text (said)" if kept else "equal to live"


def write_corpus_section() -> None:
    """Replace the corpus's section of RESULTS.md (or add it at the end)."""
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text(encoding="utf-8")
    section = "\n".join(corpus_section())
    start = text.find(CORPUS_TITLE)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(CORPUS_TITLE))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    path.write_text(text, encoding="utf-8")


def write_vllm_section() -> None:
    """The vLLM-without-torch section alone, in place in RESULTS.md (`--vllm`)."""
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text(encoding="utf-8")
    section = "\n".join(vllm_section(run, LIVE_REPEAT))
    start = text.find(VLLM_TITLE)
    if start < 0:
        anchor = text.find("\n## Real registries")
        text = text[: anchor + 1] + section + "\n" + text[anchor + 1 :]
    else:
        end = text.find("\n## ", start + len(VLLM_TITLE))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    path.write_text(text, encoding="utf-8")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python bench/run.py",
        description="Measure argmatrix (make bench) and write bench/RESULTS.md.",
    )
    parser.add_argument(
        "--targets",
        action="store_true",
        help="Measure the start-up and scale targets alone and print them (nothing written).",
    )
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="Read the corpus of real command lines (.cache/corpus) and write its table alone.",
    )
    parser.add_argument(
        "--vllm",
        action="store_true",
        help="Read vLLM 0.33 without torch and with CPU torch and write that table alone.",
    )
    options = parser.parse_args()
    if options.corpus:
        write_corpus_section()
        return
    if options.vllm:
        write_vllm_section()
        return
    if options.targets:
        compile_argmatrix()
        sections = [targets_section(), scale_section()]
        print("\n".join(line for s in sections for line in s.lines))
        print("\n".join(targets_table([t for s in sections for t in s.targets])))
        return
    load_at_start = os.getloadavg()[0]
    compile_argmatrix()
    start_up = targets_section()
    extraction = extraction_section()
    registry_lines, registry_targets = registries_section(REPEAT, LIVE_REPEAT)
    vllm = Section(vllm_section(run, LIVE_REPEAT), [])
    real = real_projects_section()
    scale = scale_section()
    sections = [start_up, extraction, Section(registry_lines, registry_targets), vllm, real, scale]
    lines = [line for section in sections for line in section.lines]
    lines += targets_table([target for section in sections for target in section.targets])
    header = [
        "# Benchmark results",
        "",
        f"Measured {datetime.date.today().isoformat()} on {platform.machine()},"
        f" {os.cpu_count()} cores, Python {platform.python_version()},"
        f" {platform.system()} {platform.release()}. Reproduce with `make bench`.",
        "argmatrix's modules are byte-compiled first, as a wheel install would have them.",
        f"Load average (1 minute) when the run started: {load_at_start:.1f}, when it ended:"
        f" {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores: the machine is shared, so each",
        "target is a ratio to `python -c pass` measured in the same rounds, and each section",
        "gives the load of its own moment. Other work makes wall times longer than on an idle",
        "machine; the ratios less so, and processor times, where given, not at all.",
        "",
    ]
    lines += corpus_section()
    text = "\n".join(header + lines) + "\n"
    (ROOT / "bench" / "RESULTS.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
