"""Hand-written prose survives regeneration: through template blocks, and between markers."""

from __future__ import annotations

from pathlib import Path

from helpers import append_to, copy_project, flag_of, run_cli_in_process, tables

HAND_WRITTEN = """# Serving guide

Some words a person wrote, with a table of their own:

| Setting | Meaning |
| --- | --- |
| a | b |

<!-- argmatrix:begin section="Serving" -->
stale content that will be replaced
<!-- argmatrix:end -->

More words in between.

<!-- argmatrix:begin section="Scheduling" platform="npu" -->
<!-- argmatrix:end -->

Closing words.
"""


def test_a_project_template_extends_the_bundled_one(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    append_to(
        project / "argmatrix.yaml",
        "  - {template: guide_reference.md.j2, output: guide/reference.md}\n",
    )
    assert run_cli_in_process("generate", cwd=project).code == 0
    text = (project / "docs" / "guide" / "reference.md").read_text()
    assert text.startswith("# Tiny server reference\n\nHand-written introduction")
    closing = "## Troubleshooting\n\nHand-written closing words.\n\n[//]: # (argmatrix:generated"
    assert closing in text  # the page's last line says argmatrix wrote it
    assert len(tables(text)) == 4  # three sections and the deprecated table


def test_marker_regions_are_regenerated_and_the_rest_is_kept(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    page = project / "docs" / "guide" / "serving.md"
    page.write_text(HAND_WRITTEN)
    append_to(
        project / "argmatrix.yaml",
        "  - {template: server_arguments.md.j2, output: guide/serving.md, inplace: true}\n",
    )
    assert run_cli_in_process("generate", cwd=project).code == 0
    text = page.read_text()
    assert "stale content" not in text
    outside = [
        part.split("<!-- argmatrix:end -->")[-1] for part in text.split("<!-- argmatrix:begin")
    ]
    assert outside[0] == HAND_WRITTEN.split("<!-- argmatrix:begin")[0]
    assert "More words in between." in outside[1] and outside[2] == "\n\nClosing words.\n"
    found = tables(text)
    assert found[0].header == ["Setting", "Meaning"]
    assert [flag_of(row[0]) for row in found[1].rows] == [
        "--port",
        "--page-size",
        "--backend",
        "--log-format",
        "--enable-metrics",
        "--warmup-prompts",
    ]
    assert found[2].header == ["Argument", "Default", "Options", "Server supported"]
    assert [flag_of(row[0]) for row in found[2].rows] == ["--schedule-policy", "--max-batch-size"]
    # Regenerating changes nothing, and check agrees.
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.read_text() == text
    assert run_cli_in_process("check", cwd=project).code == 0
    # A hand edit inside a region is drift; outside a region it is the author's business.
    page.write_text(
        text.replace("Closing words.", "Closing words, edited.").replace("| `8000` |", "| `8001` |")
    )
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 1 and "serving.md" in result.out


def test_a_page_without_markers_is_an_error(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    (project / "docs" / "guide" / "plain.md").write_text("# No markers here\n")
    append_to(
        project / "argmatrix.yaml",
        "  - {template: server_arguments.md.j2, output: guide/plain.md, inplace: true}\n",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "plain.md" in result.err and "no <!-- argmatrix:begin --> marker" in result.err
    assert not (project / "docs" / "reference").exists()  # nothing written when a page fails


def test_a_page_with_windows_line_endings_keeps_them(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    page = project / "docs" / "guide" / "serving.md"
    page.write_bytes(HAND_WRITTEN.replace("\n", "\r\n").encode())
    append_to(
        project / "argmatrix.yaml",
        "  - {template: server_arguments.md.j2, output: guide/serving.md, inplace: true}\n",
    )
    assert run_cli_in_process("generate", cwd=project).code == 0
    data = page.read_bytes()
    assert data.startswith(HAND_WRITTEN.split("<!--")[0].replace("\n", "\r\n").encode())
    assert data.endswith(b"\r\n\r\nClosing words.\r\n")
    assert run_cli_in_process("check", cwd=project).code == 0
