"""The site's bundled templates: the platform matrix and the CLI reference, rendered in memory."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from argmatrix.config import PageSpec, load_config
from argmatrix.model.platform import STATUS_LABELS
from argmatrix.project import Project, project_from_config
from argmatrix.render.pages import render_project
from e2e.site import copy_hostile_project

BADGE = re.compile(r'<span class="am-badge am-([a-z-]+)">([^<]*)</span>')


def render(project: Project, page: PageSpec) -> str:
    config = replace(project.config, pages=(page,))
    return render_project(config, project.registry, project.resolved)[0].text


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = copy_hostile_project(tmp_path)
    (folder / "capabilities" / "cpu.yaml").write_text(
        "platform: cpu\ntitle: CPU\ndefault: planned\narguments:\n"
        "  --loader: {status: experimental}\n",
        encoding="utf-8",
    )
    config = folder / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "manifests: [capabilities/npu.yaml]",
            "manifests: [capabilities/npu.yaml, capabilities/cpu.yaml]",
        ),
        encoding="utf-8",
    )
    return folder


def rows(text: str) -> dict[str, list[str]]:
    """Each matrix row's first flag and the statuses of its badges."""
    found = {}
    for line in text.splitlines():
        flag = re.match(r'\| <a id="([^"]+)"></a>', line)
        if flag:
            found[flag.group(1)] = [status for status, _ in BADGE.findall(line)]
    return found


def test_the_matrix_has_a_column_per_variant_of_every_platform(hostile: Path) -> None:
    project = project_from_config(load_config(hostile / "argmatrix.yaml", hostile))
    text = render(project, PageSpec("platform_matrix.md.j2", "matrix.md"))
    header = next(line for line in text.splitlines() if line.startswith("| Argument |"))
    assert header.endswith(  # a word joiner keeps `</script>` from ending an element
        "NPU X1 | &lt;script&gt;window.\\_\\_pwned=5&lt;\u2060/script&gt;NPU X2 | CPU |"
    )
    assert rows(text) == {
        "--page-size": ["unsupported", "supported", "planned"],  # supported on X2 only
        "--loader": ["not-applicable", "not-applicable", "experimental"],
        "--a-very-long-flag-name-that-must-wrap-inside-its-table-cell-without-breaking-the-layout": [
            "unverified",
            "unverified",
            "planned",
        ],
        "--odd": ["unsupported", "unsupported", "planned"],
    }
    for status, label in BADGE.findall(text):
        assert label.split(" ", 1)[1] == STATUS_LABELS[status]
    assert "<script>" not in text


def test_the_matrix_without_manifests_says_so(hostile: Path) -> None:
    config = load_config(hostile / "argmatrix.yaml", hostile)
    project = project_from_config(replace(config, manifests=()))
    text = render(project, PageSpec("platform_matrix.md.j2", "matrix.md", title="Matrix"))
    assert text.startswith("# Matrix\n")
    assert "No platform manifest is configured" in text and "<form" not in text


def test_the_cli_reference_renders_a_program_without_subcommands(hostile: Path) -> None:
    project = project_from_config(load_config(hostile / "argmatrix.yaml", hostile))
    text = render(project, PageSpec("cli_reference.md.j2", "cli.md", options={"prog": "hostile"}))
    assert "\nhostile [options]\n" in text and "## Commands" not in text
    assert '| <a id="--page-size"></a>`--page-size` |' in text
    assert "<script>" not in text
