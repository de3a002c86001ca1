"""Rendered pages of the fixture project, byte for byte, in both support layouts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argmatrix.model.platform import STATUS_LABELS
from helpers import GOLDEN, copy_project, flag_of, html_inline, run_cli_in_process, tables

PAGES = ("server_arguments.md", "npu.md", "npu_variants.md")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("golden"))
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    return project / "docs" / "reference"


@pytest.mark.parametrize("page", PAGES)
def test_page_matches_golden_file(generated: Path, page: str) -> None:
    text = (generated / page).read_text(encoding="utf-8")
    golden = GOLDEN / page
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_support_page_puts_unsupported_arguments_under_their_reason(generated: Path) -> None:
    text = (generated / "npu.md").read_text(encoding="utf-8")
    main_part, not_supported = text.split("## Not supported")
    assert "`--warmup-prompts`" not in main_part
    assert "### Needs the GPU sampler" in not_supported
    found = tables(not_supported)
    assert [row[0] for row in found[0].rows] == [
        "--warmup-prompts WARMUP_PROMPTS [WARMUP_PROMPTS ...]",  # with the value form (issue 29)
        "--max-batch, --mb MAX_BATCH",
    ]


def test_support_page_statuses(generated: Path) -> None:
    rows = {
        flag_of(row[0]): row for t in tables((generated / "npu.md").read_text()) for row in t.rows
    }
    # options narrowed; the section's status, as its symbol, its word and the variants
    assert rows["--dtype"][2:] == ["auto, bfloat16", "✓ Supported (V1, V2)"]
    assert rows["--backend"][2:4] == ["npu", "✓ Supported (V2)"]
    assert rows["--page-size"][1] == "128" and rows["--page-size"][4] == "Only 128 is tuned"
    assert rows["--enable-metrics"][3] == "– Not applicable (Special for GPU)"
    assert rows["--schedule-policy"][3] == "◷ Planned"
    assert rows["--log-format"][3] == "◐ Experimental"
    assert rows["--port"][3] == "? Unverified"  # the file default
    assert "--debug-dump" not in rows  # hidden with argparse.SUPPRESS


def test_variant_layout_has_a_column_per_variant(generated: Path) -> None:
    found = tables((generated / "npu_variants.md").read_text())
    assert found[0].header == ["Argument", "Description", "Default", "Options", "V1", "V2"]
    rows = {flag_of(row[0]): row for t in found for row in t.rows}
    assert rows["--backend"][4:6] == ["✗", "✓"]
    assert rows["--warmup-prompts"][4:6] == ["✗", "✗"]
    # The matrix's symbol of each status, one per status: not applicable is not "not
    # supported", and words never mix with symbols in the variant columns.
    assert rows["--schedule-policy"][4:6] == ["◷", "◷"]
    assert rows["--port"][4:6] == ["?", "?"]
    assert rows["--log-format"][4:6] == ["◐", "◐"]
    assert rows["--enable-metrics"][4:6] == ["–", "–"]
    assert rows["--enable-metrics"][6] == "Special for GPU"  # the reason, in the note column


def test_variant_layout_has_one_legend_with_a_distinct_symbol_per_status(generated: Path) -> None:
    text = (generated / "npu_variants.md").read_text()
    (legend,) = [line for line in text.splitlines() if line.startswith("Statuses: ")]
    entries = legend.removeprefix("Statuses: ").rstrip(".").split(", ")
    symbols = [entry.split(" ", 1)[0] for entry in entries]
    assert [entry.split(" ", 1)[1] for entry in entries] == list(STATUS_LABELS.values())
    assert len(set(symbols)) == len(symbols), legend


def test_server_page_sections_and_deprecated_table(generated: Path) -> None:
    text = (generated / "server_arguments.md").read_text()
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## Model",
        "## Serving",
        "## Scheduling",
        "## Deprecated arguments",
    ]
    deprecated = tables(text)[-1]
    assert deprecated.rows == [
        ["--max-batch-size MAX_BATCH_SIZE", "--max-batch", "Deprecated: use --max-batch instead."]
    ]


@pytest.mark.parametrize("page", PAGES)
def test_default_pages_are_plain_github_markdown(generated: Path, page: str) -> None:
    """No html_block or html_inline token (no anchors, no <br>, no <small>): GitHub, MkDocs 2.0
    and any CommonMark renderer show the page as it is meant."""
    assert html_inline((generated / page).read_text(encoding="utf-8")) == []


def test_help_text_html_is_shown_as_text(generated: Path) -> None:
    text = (generated / "server_arguments.md").read_text()
    assert html_inline(text) == []
    rows = {flag_of(row[0]): row for t in tables(text) for row in t.rows}
    # The tag is text; the backticks are a code span (the table reader shows its text).
    assert rows["--enable-metrics"][1] == "Expose <b>Prometheus</b> metrics at /metrics."
    assert "metrics at `/metrics`." in text
    assert rows["--page-size"][1] == "Tokens per KV-cache page | must be a power of two."


def test_generate_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    first = copy_project(tmp_path / "a")
    second = copy_project(tmp_path / "b")
    assert run_cli_in_process("generate", cwd=first).code == 0
    assert run_cli_in_process("generate", cwd=second).code == 0
    for page in PAGES:
        a = (first / "docs" / "reference" / page).read_bytes()
        assert a == (second / "docs" / "reference" / page).read_bytes()


def test_a_platform_page_links_to_the_server_arguments_page_of_its_format() -> None:
    from argmatrix.config import PageSpec
    from argmatrix.render.pages import server_arguments_link

    server = PageSpec("server_arguments.md.j2", "reference/args (all).md")
    mdx = PageSpec("server_arguments.mdx.j2", "reference/args.mdx")
    platform = PageSpec("platform_support.md.j2", "hardware/npu.md", platform="npu")
    mdx_platform = PageSpec("platform_support.mdx.j2", "hardware/npu.mdx", platform="npu")
    # Relative to the platform page, percent-encoded: a path with a space or a ')' is one link.
    assert (
        server_arguments_link([mdx, server, platform], platform)
        == "../reference/args%20%28all%29.md"
    )
    assert server_arguments_link([mdx, server], mdx_platform) == "../reference/args.mdx"
    assert server_arguments_link([platform], platform) == ""


def test_the_matrix_links_a_reason_to_the_status_page_of_its_platform() -> None:
    from argmatrix.config import PageSpec
    from argmatrix.render.pages import platform_links

    matrix = PageSpec("platform_matrix.md.j2", "overview/matrix.md")
    variants = PageSpec(
        "platform_support.md.j2", "npu/variants.md", platform="npu", options={"layout": "variants"}
    )
    status = PageSpec("platform_support.md.j2", "npu/status page.md", platform="npu")
    mdx = PageSpec("platform_support.mdx.j2", "npu/status.mdx", platform="gpu")
    # The status layout says why; a page of another format is not linked from a Markdown page.
    assert platform_links([variants, mdx, status, matrix], matrix) == {
        "npu": "../npu/status%20page.md"
    }
