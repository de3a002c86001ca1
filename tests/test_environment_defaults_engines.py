"""Defaults read from environment variables, through every docs engine: the MkDocs plugin
(`mkdocs build --strict`), Zensical through the Python-Markdown extension (`zensical build`),
and the Sphinx extension (`sphinx-build -W`, MyST pages) give each argument of
tests/fixtures/registries/env_defaults_cli.py the same row as the Markdown page: the fact as its
Default ("d, or $X when set", "unset, or $X", "$X (must be set)"), the help with `%(default)s`
saying the same, and the variable in the Environment variable column; no engine warns.

Both the generated page and a table directive are read in each engine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from e2e.site import build_site, build_zensical
from helpers import REGISTRIES
from test_environment_defaults import LAUNCHER, expected, rows
from test_sphinx_build import sphinx_build

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine


def configuration(page: str) -> str:
    return (
        f"registry: {{target: '{LAUNCHER}', mode: static}}\ndocs_dir: docs\n"
        "environment: {prefix: MYSRV_}\npages:\n" + page
    )


def project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    shutil.copy(REGISTRIES / "env_defaults_cli.py", root)
    (root / "docs" / "reference").mkdir(parents=True)
    return root


def markdown_site(root: Path) -> Path:
    """One docs folder built two ways: mkdocs.yml with the plugin, zensical.yml with the
    Python-Markdown extension (Zensical ignores plugins); a stub page and a table directive."""
    project(root)
    (root / "argmatrix.yaml").write_text(
        configuration(
            "  - {template: server_arguments.md.j2, output: reference/server.md,"
            " committed: false}\n"
        ),
        encoding="utf-8",
    )
    docs = root / "docs"
    (docs / "reference" / "server.md").write_text(
        '<!-- argmatrix page="reference/server.md" -->\n', encoding="utf-8"
    )
    (docs / "index.md").write_text(
        '# Home\n\n<!-- argmatrix section="General" -->\n', encoding="utf-8"
    )
    site = "site_name: env\nsite_dir: !ENV [ARGMATRIX_SITE_DIR, site]\n"
    (root / "mkdocs.yml").write_text(
        site + "plugins: [argmatrix]\nmarkdown_extensions: [tables]\n", encoding="utf-8"
    )
    (root / "zensical.yml").write_text(
        site + "markdown_extensions:\n  - tables\n  - argmatrix\n", encoding="utf-8"
    )
    return root


def sphinx_project(root: Path) -> Path:
    project(root)
    (root / "argmatrix.yaml").write_text(
        configuration(
            "  - {template: server_arguments.myst.j2, output: reference/server.md,"
            " format: myst, committed: false}\n"
        ),
        encoding="utf-8",
    )
    docs = root / "docs"
    (docs / "conf.py").write_text(
        'project = "env"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\nexclude_patterns = ["_build"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\nreference/server\n```\n\n"
        "```{argmatrix}\n:section: General\n:no-index:\n```\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The HTML of the reference page and of the page with the directive, by engine."""
    root = markdown_site(tmp_path_factory.mktemp("engines") / "project")
    built: dict[str, dict[str, str]] = {}
    mkdocs = build_site(root / "mkdocs.yml", root / "site-mkdocs", strict=True)
    zensical = build_zensical(root / "zensical.yml", root / "site-zensical", strict=True)
    for name, build in (("mkdocs", mkdocs), ("zensical", zensical)):
        assert build.code == 0 and build.warnings == [], build.output
        assert build.docs_changed == (), build.docs_changed  # nothing written into docs/
        built[name] = {
            page: (build.site / path).read_text(encoding="utf-8")
            for page, path in (
                ("reference", "reference/server/index.html"),
                ("directive", "index.html"),
            )
        }
    sphinx = sphinx_project(tmp_path_factory.mktemp("sphinx") / "project")
    out = sphinx / "_build" / "html"
    result: subprocess.CompletedProcess[str] = sphinx_build(sphinx / "docs", out)
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    built["sphinx"] = {
        page: (out / path).read_text(encoding="utf-8")
        for page, path in (("reference", "reference/server.html"), ("directive", "index.html"))
    }
    return built


@pytest.mark.parametrize("engine", ["mkdocs", "zensical", "sphinx"])
@pytest.mark.parametrize("page", ["reference", "directive"])
def test_every_engine_states_the_fact(
    sites: dict[str, dict[str, str]], engine: str, page: str
) -> None:
    assert rows(sites[engine][page]) == expected()
