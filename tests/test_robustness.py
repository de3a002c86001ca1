"""Inputs written by many hands: same bytes everywhere, no crash on huge or random input."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argmatrix.errors import ArgmatrixError
from argmatrix.importer import import_page, manifest_text
from argmatrix.legacy import parse_page
from argmatrix.manifest import Problems, parse_manifest
from argmatrix.model import Argument, Registry
from argmatrix.yamlfile import load_yaml_text
from helpers import copy_project, run_cli, tables

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.synth import write_project  # noqa: E402


def _generate(project: Path, **env: str) -> dict[str, bytes]:
    environment = {**os.environ, "ARGMATRIX_NO_CACHE": "1", **env}
    subprocess.run([sys.executable, "-m", "argmatrix", "generate"], cwd=project, check=True,
                   env=environment, capture_output=True)
    return {p.name: p.read_bytes() for p in sorted((project / "docs" / "reference").iterdir())}


def test_output_is_the_same_under_any_hash_seed_and_locale(tmp_path: Path) -> None:
    # The fixture has a set of choices (hash order varies with PYTHONHASHSEED).
    first = _generate(copy_project(tmp_path / "a"), PYTHONHASHSEED="0", LC_ALL="C")
    second = _generate(copy_project(tmp_path / "b"), PYTHONHASHSEED="4242", LC_ALL="C.UTF-8",
                       LANG="tr_TR.UTF-8")
    assert first == second
    assert len(first) == 3


def test_ten_thousand_arguments_and_a_five_megabyte_help_string(tmp_path: Path) -> None:
    project = write_project(tmp_path / "huge", 10_000, 2)
    registry = project / "synthetic_registry.py"
    huge = "x|<b>" * 1_000_000  # 5 MB of text that must stay inside one cell
    registry.write_text(registry.read_text() + (
        "\n\ndef add_more(parser):\n"
        f"    parser.add_argument('--huge-help', help={huge!r})\n"
    ).replace("def add_more(parser):\n", "def add_more(parser):\n    add_cli_args(parser)\n"))
    config = project / "argmatrix.yaml"
    config.write_text(config.read_text().replace("synthetic_registry:add_cli_args",
                                                 "synthetic_registry:add_more"))
    result = run_cli("generate", cwd=project)
    assert result.code == 0, result.err
    page = (project / "docs" / "server_arguments.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| <a id=")]
    assert len(rows) == 10_001
    huge_row = rows[-1]
    # Four cells: no pipe of the help text splits the row (markdown-it checks the shape of
    # small tables elsewhere; on 5 MB it is too slow to be worth it here).
    assert len(re.split(r"(?<!\\)\|", huge_row)) == 6
    small = huge_row.replace("x\\|&lt;b&gt;" * 999_990, "")
    cells = tables("| a | b | c | d |\n| --- | --- | --- | --- |\n" + small + "\n")[0].rows[0]
    assert cells[0] == "--huge-help" and cells[1] == "x|<b>" * 10
    assert run_cli("check", cwd=project).code == 0


# ------------------------------------------------------------------ fuzzing

KEYS = st.sampled_from(["platform", "title", "variants", "default", "sections", "arguments",
                        "status", "reason", "options", "note", "--port", "--x", "junk"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=12),
                    st.sampled_from(["supported", "unsupported", "planned", "A2", "--port"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(KEYS, st.text(max_size=6)), inner,
                                                 max_size=4)), max_leaves=12)


def _load_manifest_text(text: str) -> None:
    data = load_yaml_text(text, "fuzz.yaml")
    problems = Problems("fuzz.yaml")
    parse_manifest(data, problems)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES)
def test_the_manifest_loader_never_crashes_on_structured_input(data: object) -> None:
    text = yaml.safe_dump(data, allow_unicode=True)
    try:
        _load_manifest_text(text)
    except ArgmatrixError as error:
        assert all(problem.file == "fuzz.yaml" for problem in error.problems)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}|>'\"#&*!%@` \n\t\x00é参")), max_size=80))
def test_the_manifest_loader_never_crashes_on_any_text(text: str) -> None:
    try:
        _load_manifest_text(text)
    except ArgmatrixError as error:
        assert all(problem.file == "fuzz.yaml" for problem in error.problems)


_REGISTRY = Registry("fuzz:build", ("Main",), (
    Argument(("--port",), "port", "Main", type="int", default=8000),
    Argument(("--mode", "-m"), "mode", "Main", choices=("a", "b"), default="a"),
    Argument(("--flag",), "flag", "Main", action="store_true", default=False),
))
CELL = st.one_of(st.sampled_from(["--port", "--mode<br>-m", "--flag", "--nope", "√", "×",
                                  "A2, A3", "Planned", "Special for GPU", "`a`, `b`", "Type: int",
                                  "", "|", "\\|", "<span>√</span>"]), st.text(max_size=10))
HEADERS = st.sampled_from([
    ["Argument", "Description", "Defaults", "Options", "A2 Supported", "A3 Supported"],
    ["Argument", "Defaults", "Options", "Server supported"],
    ["Arguments", "Description", "Defaults"],
])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HEADERS, st.lists(st.lists(CELL, min_size=1, max_size=7), max_size=6), st.booleans())
def test_the_page_importer_never_crashes(header: list[str], rows: list[list[str]],
                                         as_text: bool) -> None:
    if as_text:  # the layout copied from a rendered site: one cell per paragraph
        body = "\n\n".join(["## Main#", *header, *[c for row in rows for c in row]])
    else:
        lines = ["## Main", "", "| " + " | ".join(header) + " |",
                 "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        body = "\n".join(lines)
    try:
        page = parse_page(body, "fuzz.md")
        imported = import_page(page, _REGISTRY, "fuzzplatform", None)
        text = manifest_text(imported, _REGISTRY, "fuzz.md")
    except ArgmatrixError as error:
        assert all(problem.file in ("fuzz.md", None) for problem in error.problems)
        return
    assert text.startswith(("#", "platform:"))
