"""vLLM 0.33.0's command line read statically (`make_arg_parser`, the builder `vllm serve` uses):
either the whole registry, equal to the live read of the same target, or exit 2 naming the file
and line of vLLM's source where static reading stops and why. Never part of a registry with
exit 0.

The sources are those of .cache/live-vllm, which `make live-env-vllm` provisions (a test
installs nothing); the live read runs in that environment's Python, with the settings vLLM
needs (its parser class, `VLLM_TARGET_DEVICE=cpu`, stand-ins for what CPU wheels lack)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, run_cli_in_process

pytestmark = pytest.mark.slow

LIVE_VLLM = REPO / ".cache" / "live-vllm"
TARGET = "vllm.entrypoints.common.cli_args:make_arg_parser"
PARSER_CLASS = "vllm.utils.argparse_utils:FlexibleArgumentParser"
LIVE_SCRIPT = """
import json, sys
sys.path.insert(0, {src!r})
from argmatrix.model.registry import registry_to_dict
from argmatrix.loaders.load import RegistrySpec, load_registry
spec = RegistrySpec({target!r}, mode="live", auto_mock=True, parser_class={parser_class!r},
                    env=(("VLLM_TARGET_DEVICE", "cpu"),))
print(json.dumps(registry_to_dict(load_registry(spec))))
"""
LOCATED = re.compile(r"^argmatrix: error: (?P<file>[^:]+\.py):(?P<line>\d+): .+ \(fix: .+\)$")


@pytest.fixture(scope="module")
def site_packages() -> Path:
    found = sorted(LIVE_VLLM.glob("lib/python3.*/site-packages"))
    if not (LIVE_VLLM / ".installed").is_file() or not found:
        pytest.fail(
            f"vLLM 0.33.0 is not installed in {LIVE_VLLM} (fix: run `make live-env-vllm`)",
            pytrace=False,
        )
    return found[0]


def live_read(site_packages: Path) -> dict[str, object]:
    script = LIVE_SCRIPT.format(src=str(REPO / "src"), target=TARGET, parser_class=PARSER_CLASS)
    done = subprocess.run(
        [str(LIVE_VLLM / "bin" / "python"), "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_static_vllm_is_whole_or_stops_where_it_cannot_follow(
    site_packages: Path, tmp_path: Path
) -> None:
    (tmp_path / "argmatrix.yaml").write_text(
        f"registry: {{target: '{TARGET}', mode: static, search_path: ['{site_packages}']}}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("export", cwd=tmp_path)
    assert not [name for name in sys.modules if name.split(".")[0] == "vllm"]
    if result.code == 0:  # the whole registry: it must be the one vLLM builds
        static = json.loads(result.out)["registry"]
        live = live_read(site_packages)
        assert static["sections"] == live["sections"]
        assert static["arguments"] == live["arguments"]
        return
    assert result.code == 2, result.err[-2000:]
    assert result.out == ""  # nothing half-read on stdout
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, lines
    located = LOCATED.match(lines[0])
    assert located, lines[0]
    source = Path(located["file"])
    assert source.is_relative_to(site_packages / "vllm"), source
    assert 1 <= int(located["line"]) <= len(source.read_text(encoding="utf-8").splitlines())
