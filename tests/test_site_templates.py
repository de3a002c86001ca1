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
from helpers import flag_of, html_inline, tables

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
    text = render(project, PageSpec("platform_matrix.md.j2", "matrix.md", options={"html": True}))
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
    spec = PageSpec("cli_reference.md.j2", "cli.md", options={"prog": "hostile", "html": True})
    text = render(project, spec)
    assert "\nhostile [-h] [--page-size PAGE_SIZE]\n" in text and "## Commands" not in text
    assert (
        '| <a id="--page-size"></a>`--page-size`<a class="headerlink am-permalink"'
        ' href="#--page-size" title="Permanent link"></a> `PAGE_SIZE` |'
    ) in text
    assert "<script>" not in text


@pytest.mark.parametrize(
    ("template", "options"),
    [
        ("platform_matrix.md.j2", {}),
        ("cli_reference.md.j2", {"prog": "hostile"}),
        ("server_arguments.md.j2", {}),
        ("platform_support.md.j2", {}),
    ],
)
def test_every_bundled_markdown_template_is_plain_github_markdown_by_default(
    hostile: Path, template: str, options: dict[str, str]
) -> None:
    """No raw HTML (markdown-it finds no html_block/html_inline token) and the tables intact:
    what GitHub, MkDocs 2.0 and any CommonMark renderer show as meant."""
    project = project_from_config(load_config(hostile / "argmatrix.yaml", hostile))
    platform = "npu" if template == "platform_support.md.j2" else None
    text = render(project, PageSpec(template, "page.md", platform=platform, options=options))
    assert html_inline(text) == []
    assert "<small>" not in text and "{:" not in text
    found = tables(text)
    assert found and all(len(row) == len(t.header) for t in found for row in t.rows)
    first_cells = [flag_of(row[0]) for t in found for row in t.rows]
    assert "--page-size" in first_cells


def test_the_plain_matrix_names_each_status_in_words(hostile: Path) -> None:
    project = project_from_config(load_config(hostile / "argmatrix.yaml", hostile))
    text = render(project, PageSpec("platform_matrix.md.j2", "matrix.md"))
    row = next(r for t in tables(text) for r in t.rows if r[0] == "--page-size")
    labels = STATUS_LABELS
    assert row[1:] == [
        f"✗ {labels['unsupported']}",
        f"✓ {labels['supported']}",
        f"◷ {labels['planned']}",
    ]
    assert f"Statuses: ✓ {labels['supported']}," in text and "<form" not in text
