"""A platform matrix as a short table of features (`options.features`), in the form vLLM's docs
keep by hand ("Feature x Hardware": ✅ 🟠 ❌ ❔ per feature and backend), on the fixture project:
one row per feature named in the page's options, in their order, a mark per platform variant."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import GOLDEN, append_to, copy_project, one_error_line, run_cli_in_process, tables

FEATURES = """\
  - template: platform_matrix.md.j2
    output: reference/features.md
    title: Feature x Hardware
    options:
      features:
        --backend: Kernel backend
        --dtype: Weights <dtype> | casts
        --log-format: Structured logs
        --schedule-policy: Scheduling
        --enable-metrics: Metrics
        --warmup-prompts: Warm-up
        --port: HTTP port
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    project = copy_project(tmp_path_factory.mktemp("features"))
    append_to(project / "argmatrix.yaml", FEATURES)
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    return (project / "docs" / "reference" / "features.md").read_text(encoding="utf-8")


def test_the_feature_matrix_matches_its_golden_file(page: str) -> None:
    golden = GOLDEN / "features.md"
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.write_text(page, encoding="utf-8")
    assert page == golden.read_text(encoding="utf-8")


def test_one_row_per_feature_and_a_mark_per_variant(page: str) -> None:
    (table,) = tables(page)
    assert table.header == ["Feature", "V1", "V2"]
    assert {row[0]: row[1:] for row in table.rows} == {
        "Kernel backend (--backend)": ["❌", "✅"],  # supported on V2 only
        "Weights <dtype> | casts (--dtype)": ["✅", "✅"],  # the name is escaped, never a cell
        "Structured logs (--log-format)": ["🟠", "🟠"],  # experimental: partly
        "Scheduling (--schedule-policy)": ["❌", "❌"],  # planned: not yet
        "Metrics (--enable-metrics)": ["❌", "❌"],  # not applicable
        "Warm-up (--warmup-prompts)": ["❌", "❌"],  # unsupported
        "HTTP port (--port)": ["❔", "❔"],  # the file's default: unverified
    }
    (legend,) = [line for line in page.splitlines() if line.startswith("Marks: ")]
    marks = [part.split(" ", 1)[0] for part in legend.removeprefix("Marks: ").split("; ")]
    assert marks == ["✅", "🟠", "❌", "❔"]


def test_a_feature_naming_no_flag_of_the_registry_is_refused(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    append_to(project / "argmatrix.yaml", FEATURES.replace("--port:", "--prot:"))
    line = one_error_line(
        run_cli_in_process("generate", cwd=project),
        "feature 'HTTP port' names '--prot', which is not an argument of the registry",
        "did you mean '--port'?",
    )
    assert line.startswith("argmatrix: error: argmatrix.yaml:")  # named from where it ran
    assert not (project / "docs" / "reference" / "features.md").exists()


def test_features_that_are_not_a_mapping_of_names_are_refused(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    append_to(
        project / "argmatrix.yaml",
        "  - {template: platform_matrix.md.j2, output: reference/f.md, options: {features: [--port]}}\n",
    )
    one_error_line(
        run_cli_in_process("generate", cwd=project),
        "'features' must map flags to the names of the features",
    )
