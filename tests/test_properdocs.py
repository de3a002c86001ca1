"""The MkDocs plugin under ProperDocs, which continues MkDocs 1.x and finds plugins under its own
entry-point group (`properdocs.plugins`): a real `properdocs build` in a venv without MkDocs
(`make properdocs` provisions .cache/properdocs) gives the same generated pages as MkDocs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from helpers import FIXTURE_PROJECT, REPO, copy_project, tables

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

PROPERDOCS = REPO / ".cache" / "properdocs"


@pytest.fixture(scope="module")
def properdocs() -> Path:
    executable = PROPERDOCS / "bin" / "properdocs"
    if not (PROPERDOCS / ".installed").is_file() or not executable.is_file():
        pytest.fail(
            f"ProperDocs is not installed in {PROPERDOCS} (fix: run `make properdocs`)",
            pytrace=False,
        )
    return executable


def build(executable: Path, project: Path, config: str) -> subprocess.CompletedProcess[str]:
    (project / "properdocs.yml").write_text(config)
    return subprocess.run(
        [str(executable), "build", "--strict", "-q"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_the_plugin_generates_the_pages_under_properdocs(properdocs: Path, tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    # The fixture's committed page, as `argmatrix generate` writes it; the copy leaves the
    # generated pages out, so only the plugin can bring them into the site.
    expected = tables((FIXTURE_PROJECT / "docs" / "reference" / "server_arguments.md").read_text())
    assert not (project / "docs" / "reference").exists()
    result = build(
        properdocs, project, "site_name: t\ntheme: {name: mkdocs}\nplugins: [argmatrix]\n"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    html = (project / "site" / "reference" / "server_arguments" / "index.html").read_text()
    for table in expected:
        for row in table.rows:
            assert row[0].split(",")[0] in html, row[0]
    assert not (project / "docs" / "reference").exists(), "pages are served, never written"


def test_a_bad_directive_fails_the_build_with_its_line(properdocs: Path, tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    (project / "docs" / "page.md").write_text('# Page\n\n<!-- argmatrix section="Nope" -->\n')
    result = build(
        properdocs, project, "site_name: t\ntheme: {name: mkdocs}\nplugins: [argmatrix]\n"
    )
    assert result.returncode != 0
    assert "page.md:3" in result.stdout + result.stderr
