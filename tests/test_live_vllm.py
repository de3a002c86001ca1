"""vLLM 0.33.0's `vllm serve` arguments read live through `make_arg_parser` (a filler that needs
vLLM's own parser class, `VLLM_TARGET_DEVICE=cpu`, and `--help` on the command line for vLLM to
write its help texts), with the settings the configuration guide gives, in the Python that
`make live-env-vllm` builds (CPU torch, vLLM --no-deps; no xgrammar, no llguidance).

The oracle is vLLM itself: its own entry point, run in another process of that Python, builds the
parser `vllm serve` parses with (tests/live/vllm_serve_parser.py dumps it). Every argument must be
argmatrix's, field by field: flags, dest, section, action, type, default, choices, nargs,
required, metavar, help (with its placeholders filled as argparse fills them) and the keywords
vLLM's own action keeps (`negative_option_strings`). Static reading of the same target must
give the same arguments or stop with one line naming where in vLLM's source it cannot follow."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import REPO

DEFAULT_PYTHON = REPO / ".cache" / "live-vllm" / "bin" / "python"
ORACLE = REPO / "tests" / "live" / "vllm_serve_parser.py"
CONFIG = """\
registry:
  target: vllm.entrypoints.common.cli_args:make_arg_parser
  parser_class: vllm.utils.argparse_utils:FlexibleArgumentParser
  env: {{VLLM_TARGET_DEVICE: cpu}}
  argv: {argv}
  mock: {mock}
"""

pytestmark = pytest.mark.live_env  # the heavy vLLM environment (make live-env-vllm)


@pytest.fixture(scope="module")
def vllm_python() -> Path:
    path = Path(os.environ.get("ARGMATRIX_LIVE_PYTHON_VLLM") or DEFAULT_PYTHON)
    if not path.exists():
        pytest.fail(
            f"no Python that imports vLLM 0.33.0 at {path} (fix: run `make live-env-vllm`, or"
            " point ARGMATRIX_LIVE_PYTHON_VLLM at one)",
            pytrace=False,
        )
    return path


def matches(exported: Any, real: Any) -> bool:
    """Whether argmatrix's JSON value is vLLM's (as the oracle writes it)."""
    if isinstance(real, dict) and set(real) == {"enum"}:  # a member, as Class.MEMBER
        return exported == {"python": real["enum"]}
    if isinstance(real, dict) and set(real) == {"str", "repr"}:  # any other object, by its text
        return isinstance(exported, dict) and exported.get("python") in real.values()
    if isinstance(real, list):
        return (
            isinstance(exported, list)
            and len(exported) == len(real)
            and all(matches(e, r) for e, r in zip(exported, real, strict=True))
        )
    if isinstance(real, dict):
        return (
            isinstance(exported, dict)
            and set(exported) == set(real)
            and all(matches(exported[k], real[k]) for k in real)
        )
    return type(exported) is type(real) and exported == real


def differences(exported: list[dict[str, Any]], real: list[dict[str, Any]]) -> list[str]:
    found = []
    for mine, theirs in zip(exported, real, strict=True):
        for field, value in theirs.items():
            if field == "default" and value == "==SUPPRESS==":
                value = None  # argparse.SUPPRESS: no default, exported as none
            if not matches(mine.get(field), value):
                found.append(f"{theirs['flags'] or theirs['dest']} {field}: {mine.get(field)!r}")
                found.append(f"{' ' * len(str(theirs['flags']))}  vLLM: {value!r}")
    return found


def start(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> str:
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr[-3000:]
    return stdout


@pytest.mark.parametrize(
    ("argv", "mock", "oracle"),
    [
        # what `vllm serve --help` shows (vLLM leaves --model out of it)
        ("[serve, --help]", "[xgrammar, llguidance]", ["--", "serve", "--help"]),
        # every argument `vllm serve` takes, --model too, with the help `--help` would show
        ("[--help]", "auto", ["--help-texts", "--", "serve", "facebook/opt-125m"]),
    ],
    ids=["serve --help", "serve"],
)
def test_live_export_is_vllms_own_parser(
    vllm_python: Path, tmp_path: Path, argv: str, mock: str, oracle: list[str]
) -> None:
    (tmp_path / "argmatrix.yaml").write_text(CONFIG.format(argv=argv, mock=mock))
    # both at once: two processes of about ten seconds each
    export = start(
        [str(vllm_python), "-m", "argmatrix", "export"],
        tmp_path,
        {"PYTHONPATH": str(REPO / "src")},
    )
    built = start([str(vllm_python), str(ORACLE), *oracle], tmp_path, {"VLLM_TARGET_DEVICE": "cpu"})
    exported = json.loads(finish(export))["registry"]
    real = json.loads(finish(built))
    assert real["prog"] == "vllm serve"
    assert [a["dest"] for a in exported["arguments"]] == [a["dest"] for a in real["arguments"]]
    assert differences(exported["arguments"], real["arguments"]) == []
    assert all(a["help"] for a in real["arguments"])  # vLLM wrote every help text
    flags = {f for a in real["arguments"] for f in a["flags"]}
    assert ("--model" in flags) is (argv == "[--help]")
    assert len(real["arguments"]) == (321 if argv == "[--help]" else 320)  # as vLLM 0.33.0 has


def test_static_reading_equals_it_or_says_where_it_stops(vllm_python: Path, tmp_path: Path) -> None:
    """Static reading (argmatrix's own Python, vLLM's source only): the same arguments, or one
    line naming the file and line of vLLM's source it cannot follow, exit 2."""
    site = next(vllm_python.parent.parent.glob("lib/python3*/site-packages"))
    (tmp_path / "argmatrix.yaml").write_text(
        "registry:\n"
        "  target: vllm.entrypoints.common.cli_args:make_arg_parser\n"
        "  parser_class: vllm.utils.argparse_utils:FlexibleArgumentParser\n"
        "  mode: static\n"
        f"  search_path: [{json.dumps(str(site))}]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "argmatrix", "export"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode == 0:
        built = start(
            [str(vllm_python), str(ORACLE), "--help-texts", "--", "serve", "facebook/opt-125m"],
            tmp_path,
            {"VLLM_TARGET_DEVICE": "cpu"},
        )
        real = json.loads(finish(built))["arguments"]
        exported = json.loads(done.stdout)["registry"]["arguments"]
        assert [a["dest"] for a in exported] == [a["dest"] for a in real]
        assert differences(exported, real) == []
        return
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert re.match(rf"argmatrix: error: {re.escape(str(site / 'vllm'))}/\S+\.py:\d+: ", line), line
    assert "(fix: " in line
