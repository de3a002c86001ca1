"""Static reading of real registries, two source trees interleaved: is a change slower?

    python bench/ab_static.py ROUNDS SRC_BEFORE SRC_AFTER

Each SRC is a copy of `src/` (for example `git archive <commit> src | tar -x -C /tmp/before`).
After one read each that writes the trees' bytecode, round after round, each registry is read
statically by each tree in a fresh process from an empty cache (the time includes importing
argmatrix), so both meet the same load; the medians of
processor time (what a busy machine changes least) and of wall time are printed with the load
average. Reads sglang 0.5.7 (the showcase, installed in .venv), 0.5.23 (`make new-sglang`) and
lmdeploy 0.18.0's `serve api_server` (`make lmdeploy-cli`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = next((ROOT / ".venv" / "lib").glob("python3*/site-packages"))
SGLANG = "sglang.srt.server_args:ServerArgs.add_cli_args"
REGISTRIES = {
    "sglang 0.5.7": (SGLANG, SITE, ()),
    "sglang 0.5.23": (SGLANG, ROOT / ".cache" / "sglang-0.5.23", ()),
    "lmdeploy 0.18.0": (
        "lmdeploy.cli.entrypoint:run",
        ROOT / ".cache" / "lmdeploy-0.18.0",
        ("serve", "api_server"),
    ),
}
# One cold read in a fresh process: [wall seconds, processor seconds, arguments].
_READ = """
import json, resource, sys, time
def processor():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
sys.path.insert(0, {src!r})
start, start_processor = time.perf_counter(), processor()
from argmatrix.loaders.load import RegistrySpec, load_registry
spec = RegistrySpec({target!r}, mode="static", search_path=({path!r},), subcommand={words!r})
registry = load_registry(spec)
print(json.dumps([time.perf_counter() - start, processor() - start_processor,
                  len(registry.arguments)]))
"""


def read_once(src: str, target: str, path: Path, words: tuple[str, ...]) -> list[float]:
    code = _READ.format(src=src, target=target, path=str(path), words=words)
    # Each tree's bytecode is written once and reused, as an installed package's is: a tree
    # compiled at every run would be measured compiling.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="argmatrix-ab-") as cache:
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**environment, "ARGMATRIX_CACHE_DIR": cache},
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir(),
            check=True,
        )
    result: list[float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    rounds, trees = int(sys.argv[1]), sys.argv[2:]
    runs: dict[tuple[str, str], list[list[float]]] = {}
    for target, path, words in REGISTRIES.values():  # not measured: the bytecode is written
        for tree in trees:
            read_once(tree, target, path, words)
    for _ in range(rounds):
        for name, (target, path, words) in REGISTRIES.items():
            for tree in trees:
                runs.setdefault((name, tree), []).append(read_once(tree, target, path, words))
    for (name, tree), found in runs.items():
        cpu = statistics.median(run[1] for run in found) * 1000
        wall = statistics.median(run[0] for run in found) * 1000
        print(
            f"{name:16} {tree:32} processor {cpu:5.0f} ms, wall {wall:5.0f} ms"
            f" ({int(found[0][2])} arguments, {len(found)} runs)"
        )
    print("load average at the end:", " ".join(f"{load:.2f}" for load in os.getloadavg()))


if __name__ == "__main__":
    main()
