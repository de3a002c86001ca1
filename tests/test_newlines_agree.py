"""`argmatrix check` and the MkDocs plugin judge a committed page the same way, byte for byte:
a page whose content is current but whose line endings were turned into CRLF (an editor or
git's autocrlf on Windows) is out of date to both, and a page exactly as generated is current
to both."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.site import build_site, copy_hostile_project
from helpers import run_cli_in_process

COMMITTED = (
    "output: reference/npu.md, platform: npu, committed: false",
    "output: reference/npu.md, platform: npu",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_hostile_project(tmp_path)
    config = root / "argmatrix.yaml"
    config.write_text(config.read_text().replace(*COMMITTED), encoding="utf-8")
    return root


def _generated_npu_page(project: Path) -> Path:
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    page = project / "docs" / "reference" / "npu.md"
    assert page.is_file()
    return page


def _verdicts(project: Path) -> tuple[bool, bool]:
    """(check says the page is stale, the strict site build says it is out of date)."""
    check = run_cli_in_process("check", cwd=project)
    assert check.code in (0, 1), check.err
    check_stale = "npu.md" in check.out and check.code == 1
    site = build_site(project / "mkdocs.yml", project.parent / "site", strict=True)
    plugin_stale = "npu.md is out of date" in site.output
    return check_stale, plugin_stale


@pytest.mark.slow
def test_a_page_as_generated_is_current_to_check_and_to_the_plugin(project: Path) -> None:
    _generated_npu_page(project)
    assert _verdicts(project) == (False, False)


@pytest.mark.slow
def test_a_crlf_copy_of_a_current_page_is_stale_to_check_and_to_the_plugin(project: Path) -> None:
    page = _generated_npu_page(project)
    page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    assert _verdicts(project) == (True, True)
