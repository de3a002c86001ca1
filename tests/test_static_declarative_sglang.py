"""SGLang 0.5.23's real registry, read statically: its arguments are declared as annotated fields
of 21 msgspec namespace classes (`sglang/srt/arg_groups/fields/`), assembled into `ServerArgs`
by `msgspec.defstruct` and turned into `add_argument` calls by one generic helper.

The sources are in .cache/sglang-0.5.23, which `make new-sglang` provisions (a test installs
nothing). 531 is the count a live import of 0.5.23 gives (../shared/notes/real-registries.md);
the other facts checked here are read from sglang's source by the test itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argmatrix.loaders.snapshot import read_snapshot
from argmatrix.model.registry import Registry, registry_to_dict
from helpers import REPO, run_cli_untraced

SGLANG_DIR = REPO / ".cache" / "sglang-0.5.23"
TARGET = "sglang.srt.server_args:ServerArgs.add_cli_args"
FIELDS = Path("sglang", "srt", "arg_groups", "fields")


@pytest.fixture(scope="module")
def sglang_0523() -> Path:
    if not (SGLANG_DIR / ".installed").is_file():
        pytest.fail(
            f"sglang 0.5.23 is not installed in {SGLANG_DIR} (fix: run `make new-sglang`)",
            pytrace=False,
        )
    return SGLANG_DIR


@pytest.fixture(scope="module")
def registry(sglang_0523: Path, tmp_path_factory: pytest.TempPathFactory) -> Registry:
    """Read in a process of its own without coverage tracing, which makes this half-second
    read about three times slower and, on a busy machine, reach static reading's 4 s
    processor-time backstop (the reader's code is covered by the fixture tests)."""
    folder = tmp_path_factory.mktemp("sglang-0523")
    (folder / "argmatrix.yaml").write_text(
        f"registry: {{target: '{TARGET}', mode: static, search_path: ['{sglang_0523}']}}\n"
    )
    result = run_cli_untraced("snapshot", "-o", "registry.json", cwd=folder)
    assert result.code == 0, result.err
    assert not [name for name in sys.modules if name.split(".")[0] == "sglang"]
    return read_snapshot(folder / "registry.json")


def test_every_argument_is_read(registry: Registry) -> None:
    assert len(registry.arguments) == 531
    flags = [flag for argument in registry.arguments for flag in argument.flags]
    assert len(flags) == len(set(flags))
    assert registry.arguments[0].flags[0] == "--model-path"  # the literal field order first


@pytest.mark.parametrize(
    ("flag", "section"),
    [
        ("--page-size", "Memory and scheduling"),
        ("--tp-size", "Distributed topology and parallelism (TP, PP, DP, CP)"),
        ("--host", "HTTP server"),
    ],
)
def test_a_fields_section_is_where_it_is_declared(
    registry: Registry, flag: str, section: str
) -> None:
    assert registry.by_flag()[flag].section == section


def test_every_section_is_a_comment_title_or_a_namespace_class(
    registry: Registry, sglang_0523: Path
) -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted((sglang_0523 / FIELDS).glob("*.py"))]
    texts.append((sglang_0523 / "sglang" / "srt" / "server_args.py").read_text(encoding="utf-8"))
    comments = {line.strip() for text in texts for line in text.splitlines()}
    classes = {name for text in texts for name in re.findall(r"^class (\w+)", text, re.M)}
    for section in registry.sections:
        assert section in classes or any(section in c for c in comments if c.startswith("#"))
    # plain comments between fields are notes on a field, not titles
    assert not any(s.startswith("derived:") for s in registry.sections)


def test_choices_and_types_come_from_the_annotations(registry: Registry) -> None:
    by_flag = registry.by_flag()
    # `Optional[Literal[...]]` with `choices=Backend.ALL`, a tuple of class attributes
    assert by_flag["--cuda-graph-backend-decode"].choices == ("full", "breakable", "disabled")
    assert by_flag["--tp-size"].type == "int" and by_flag["--tp-size"].default == 1
    assert by_flag["--page-size"].default is None


def test_only_values_of_the_running_program_stay_unread(registry: Registry) -> None:
    """The 522 generated arguments are read exactly; what stays source text is said, and is
    decided at run time (parsers registered by plugins, an environment variable). The members
    of an Enum of another module are read (`--kv-canary-real-data`)."""
    unread = {d.message.split(":")[0] for d in registry.diagnostics}
    assert unread <= {"--reasoning-parser", "--tool-call-parser", "--sampling-backend"}
    assert registry.by_flag()["--kv-canary-real-data"].choices == ("none", "partial", "all")
    assert all(d.file.endswith("server_args.py") for d in registry.diagnostics)


# ------------------------------------------------------------------ static against live

LIVE_SCRIPT = """
import json, sys
sys.path.insert(0, {src!r})
from argmatrix.model.registry import registry_to_dict
from argmatrix.loaders.load import RegistrySpec, load_registry
registry = load_registry(RegistrySpec({target!r}, mode="live", mock={mock!r}))
print(json.dumps(registry_to_dict(registry)))
"""
MOCK = ("IPython", "torchvision", "sentencepiece")  # imported by sglang, never by the registry


def live_python() -> Path:
    path = Path(
        os.environ.get("ARGMATRIX_LIVE_PYTHON_0523")
        or REPO / ".cache" / "live-sglang-0.5.23" / "bin" / "python"
    )
    if not path.exists():
        pytest.fail(
            f"no Python that imports sglang 0.5.23 at {path} (fix: run `make live-env-0523`, or"
            " point ARGMATRIX_LIVE_PYTHON_0523 at one)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="module")
def live() -> dict[str, Any]:
    """The model of 0.5.23's registry imported live, in the Python that can import it."""
    script = LIVE_SCRIPT.format(src=str(REPO / "src"), target=TARGET, mock=MOCK)
    run = subprocess.run(
        [str(live_python()), "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "ARGMATRIX_CACHE": "off"},
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.live_env  # sglang 0.5.23 imported live (make live-env-0523)
def test_static_equals_live_but_where_it_says_what_it_kept_as_source(
    registry: Registry, live: dict[str, Any]
) -> None:
    static = json.loads(json.dumps(registry_to_dict(registry)))
    assert [a["flags"] for a in static["arguments"]] == [a["flags"] for a in live["arguments"]]
    said = {
        (d.message.split(":")[0], d.message.split(": ")[1].split()[0]) for d in registry.diagnostics
    }
    kept = set()
    for mine, theirs in zip(static["arguments"], live["arguments"], strict=True):
        for key, value in mine.items():
            if value == theirs[key]:
                continue
            assert isinstance(value, dict) and "unevaluated" in value, (mine["flags"], key)
            kept.add((mine["flags"][0], key))
    assert kept == said  # every value kept as source text is said, and nothing else differs
    assert len(kept) <= 8  # the hand-written arguments whose values the running program decides


@pytest.mark.live_env  # sglang 0.5.23 imported live (make live-env-0523)
def test_live_sections_are_where_each_field_is_declared_as_static_ones(
    registry: Registry, live: dict[str, Any]
) -> None:
    """Live reading places the 500-odd arguments of the generic helper where each field is
    declared, not under the comments inside the helper ("Bool → store_true")."""
    sections = {a["flags"][0]: a["section"] for a in live["arguments"]}
    assert sections["--page-size"] == "Memory and scheduling"
    assert sections["--tp-size"] == "Distributed topology and parallelism (TP, PP, DP, CP)"
    assert sections["--host"] == "HTTP server"
    assert live["sections"] == list(registry.sections)
    assert sections == {a.flags[0]: a.section for a in registry.arguments}
    helper = (SGLANG_DIR / "sglang" / "srt" / "arg_groups" / "arg_utils.py").read_text("utf-8")
    assert "# Bool → store_true" in helper and "Bool → store_true" not in live["sections"]
