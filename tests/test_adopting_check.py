"""What a maintainer adopting argmatrix meets in CI (issue 23): `check --format github` marks
every changed region of a stale page and shows its diff; every format names files alike;
`generate` writes only the pages that changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import copy_project, run_cli_in_process

PAGE = Path("docs/reference/server_arguments.md")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_project(tmp_path)
    assert run_cli_in_process("generate", cwd=root).code == 0
    return root


def _edit_lines(page: Path, numbers: tuple[int, ...]) -> None:
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    for number in numbers:
        lines[number - 1] = f"edited by hand {number}\n"
    page.write_text("".join(lines), encoding="utf-8")


# ------------------------------------------------------------------ point 7: GitHub output


def test_github_output_marks_each_changed_region_at_its_line(project: Path) -> None:
    page = project / PAGE
    last = len(page.read_text(encoding="utf-8").splitlines())
    assert last > 20
    _edit_lines(page, (3, last - 1))
    result = run_cli_in_process("check", "--format", "github", cwd=project)
    assert result.code == 1
    annotations = [line for line in result.out.splitlines() if "stale-page" in line]
    assert annotations == [
        f"::error file={PAGE},line=3,title=argmatrix stale-page::generated page differs from"
        " what generate would write now (region 1 of 2) (run 'argmatrix generate' (or"
        " 'argmatrix check --fix'))",
        f"::error file={PAGE},line={last - 1},title=argmatrix stale-page::generated page differs"
        " from what generate would write now (region 2 of 2) (run 'argmatrix generate' (or"
        " 'argmatrix check --fix'))",
    ]


def test_github_output_folds_the_diff_in_a_group(project: Path) -> None:
    _edit_lines(project / PAGE, (3,))
    out = run_cli_in_process("check", "--format", "github", cwd=project).out.splitlines()
    start = out.index(f"::group::argmatrix: diff of {PAGE}")
    end = out.index("::endgroup::", start)
    diff = [line.strip() for line in out[start + 1 : end]]
    assert "-edited by hand 3" in diff
    assert any(line.startswith("@@ -1,") for line in diff)
    assert sum(line.startswith("::error") and "stale-page" in line for line in out) == 1


def test_a_page_changed_in_one_place_is_one_annotation(project: Path) -> None:
    _edit_lines(project / PAGE, (5, 7))  # closer than the diff's context: one region
    out = run_cli_in_process("check", "--format", "github", cwd=project).out
    stale = [line for line in out.splitlines() if "stale-page" in line]
    assert len(stale) == 1 and ",line=5," in stale[0] and "region" not in stale[0]


def test_every_format_names_files_alike(project: Path) -> None:
    _edit_lines(project / PAGE, (3, 30))
    manifest = project / "capabilities" / "npu.yaml"
    manifest.write_text(manifest.read_text() + "  --shedule-policy: planned\n")
    text = run_cli_in_process("check", cwd=project).out
    github = run_cli_in_process("check", "--format", "github", cwd=project).out
    found = json.loads(run_cli_in_process("check", "--format", "json", cwd=project).out)
    files = {f["file"] for f in found}
    assert files == {str(PAGE), os.path.join("capabilities", "npu.yaml")}
    for file in files:
        assert f"{file}:" in text and f"file={file}," in github
    stale = next(f for f in found if f["kind"] == "stale-page")
    assert stale["regions"] == [3, 30] and stale["line"] == 3


# ------------------------------------------------------------------ point 8: generate


def test_generate_writes_only_the_pages_that_changed(project: Path) -> None:
    pages = sorted((project / "docs" / "reference").glob("*.md"))
    assert len(pages) == 3
    past = 1_000_000_000  # 2001: a time no write leaves
    for page in pages:
        os.utime(page, (past, past))
    again = run_cli_in_process("generate", cwd=project)
    assert again.code == 0, again.err
    assert again.out.splitlines() == [
        "unchanged: 3 pages (docs/reference/server_arguments.md, docs/reference/npu.md,"
        " docs/reference/npu_variants.md)"
    ]
    assert all(page.stat().st_mtime == past for page in pages)

    _edit_lines(project / PAGE, (3,))
    third = run_cli_in_process("generate", cwd=project)
    assert third.out.splitlines() == [
        f"wrote {PAGE}",
        "unchanged: 2 pages (docs/reference/npu.md, docs/reference/npu_variants.md)",
    ]
    assert (project / PAGE).stat().st_mtime != past
    assert "edited by hand" not in (project / PAGE).read_text(encoding="utf-8")
    assert run_cli_in_process("check", cwd=project).code == 0


# ------------------------------------------------------------------ point 9: one finding, one wording


def _misspell(project: Path) -> Path:
    """A misspelled section and flag in the manifest (`Scheduling`, `--schedule-policy`)."""
    manifest = project / "capabilities" / "npu.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert "  Model: supported\n" in text and "--schedule-policy: planned" in text
    text = text.replace("  Model: supported\n", "  Model: supported\n  Schduling: supported\n")
    manifest.write_text(text.replace("--schedule-policy:", "--shedule-policy:"), encoding="utf-8")
    return manifest


def test_generate_and_check_say_a_misspelling_alike(project: Path) -> None:
    _misspell(project)
    before = {p: p.read_bytes() for p in (project / "docs").rglob("*.md")}
    generated = run_cli_in_process("generate", cwd=project)
    checked = run_cli_in_process("check", cwd=project)
    lines = [line for line in checked.out.splitlines() if "stale-manifest-entry" in line]
    assert [line for line in lines if "did you mean" in line] == lines
    assert any("did you mean 'Scheduling'?" in line for line in lines)
    assert any("did you mean --schedule-policy?" in line for line in lines)
    # generate says the very same lines, and an error stops it before anything is written
    assert generated.err.splitlines()[:-1] == lines
    assert generated.code == 1 and "nothing written" in generated.err.splitlines()[-1]
    assert generated.out == ""
    assert {p: p.read_bytes() for p in (project / "docs").rglob("*.md")} == before


@pytest.mark.parametrize("level", ["warning", "off"])
def test_one_severity_setting_for_generate_and_check(project: Path, level: str) -> None:
    _misspell(project)
    config = project / "argmatrix.yaml"
    config.write_text(
        config.read_text() + f"checks:\n  severity: {{stale-manifest-entry: {level}}}\n"
    )
    generated = run_cli_in_process("generate", cwd=project)
    checked = run_cli_in_process("check", cwd=project)
    assert generated.code == 0 and checked.code == 0, (generated, checked)
    said = [line for line in generated.err.splitlines() if "stale-manifest-entry" in line]
    reported = [line for line in checked.out.splitlines() if "stale-manifest-entry" in line]
    assert said == reported
    assert len(said) == (2 if level == "warning" else 0)
    assert all(f"{level}[stale-manifest-entry]" in line for line in said)


# ------------------------------------------------------------------ point 5: review: needed


def test_what_import_could_not_know_stays_unreviewed_until_a_person_edits_it(
    project: Path,
) -> None:
    from helpers import FIXTURE_PAGES, line_of

    manifest = project / "capabilities" / "npu.yaml"
    imported = run_cli_in_process(
        "import", str(FIXTURE_PAGES / "npu_marks.md"), "--platform", "npu", "-o", str(manifest),
        cwd=project,
    )  # fmt: skip
    assert imported.code == 0, imported.err
    text = manifest.read_text(encoding="utf-8")
    # a reason the page never gave, and a default the page says otherwise than the registry
    # (which `audit` of the same page calls a wrong default)
    assert "  --port: {status: unsupported, reason: marked unsupported on the imported page," \
        " review: needed}\n" in text  # fmt: skip
    assert "  --page-size: {status: supported, default: 128, review: needed}\n" in text
    audit = run_cli_in_process("audit", str(FIXTURE_PAGES / "npu_marks.md"), cwd=project)
    assert "error[wrong-default]: --page-size" in audit.out

    generated = run_cli_in_process("generate", cwd=project)
    assert generated.code == 0, generated.err
    page = (project / "docs" / "reference" / "npu.md").read_text(encoding="utf-8")
    assert (
        "### marked unsupported on the imported page (not reviewed: imported, to be checked)"
        in page
    )
    assert (
        "| `--page-size` `PAGE_SIZE` | `128` | Type: int | ✓ Supported (V1, V2) | Not reviewed:"
        " imported, to be checked |" in page
    )

    checked = run_cli_in_process("check", cwd=project)
    assert checked.code == 1
    found = [line for line in checked.out.splitlines() if "needs-review" in line]
    assert found == [
        f"capabilities/npu.yaml:{line_of(manifest, '--port:')}: error[needs-review]: --port"
        " (argument entry, unsupported) was imported and is not reviewed (check the entry"
        " against the platform, correct it, and delete its 'review: needed')",
        f"capabilities/npu.yaml:{line_of(manifest, '--page-size:')}: error[needs-review]:"
        " --page-size (argument entry, supported) was imported and is not reviewed (check the"
        " entry against the platform, correct it, and delete its 'review: needed')",
    ]
    # A person reviews both: a real reason, the default confirmed; the marks go.
    manifest.write_text(
        text.replace("reason: marked unsupported on the imported page, review: needed", "reason: Needs the GPU server")
        .replace("default: 128, review: needed", "default: 128"),
        encoding="utf-8",
    )  # fmt: skip
    assert run_cli_in_process("generate", cwd=project).code == 0
    checked = run_cli_in_process("check", cwd=project)
    assert checked.code == 0, checked.out
    assert "review" not in (project / "docs" / "reference" / "npu.md").read_text().lower()


def test_review_takes_only_needed(project: Path) -> None:
    from helpers import line_of, one_error_line

    manifest = project / "capabilities" / "npu.yaml"
    manifest.write_text(
        manifest.read_text().replace("--log-format: experimental", "--log-format: {status: experimental, review: done}")
    )  # fmt: skip
    result = run_cli_in_process("check", cwd=project)
    one_error_line(
        result,
        f"npu.yaml:{line_of(manifest, 'review: done')}:",
        "--log-format: 'review' can only be 'needed', not 'done'",
    )
