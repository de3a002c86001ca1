"""The Click server's showcase (showcase/click-server/): the pages of our Click fixture, rendered
with the bundled templates (reference, platform page, matrix, MDX) and committed. `check` keeps
them true, and reading the server live gives the same pages but for the one default read from
the environment: static reading states the fact ("`/tmp/profiles`, or `$MS_PROFILE_DIR` when
set"), live reading of a Click command the value its own environment gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers import REPO, replace_in, run_cli_in_subprocess

SHOWCASE = REPO / "showcase" / "click-server"
PAGES = ("server_arguments.md", "npu.md", "matrix.md", "server_arguments.mdx")


def test_the_committed_pages_are_current() -> None:
    result = run_cli_in_subprocess("check", "--config", str(SHOWCASE / "argmatrix.yaml"), cwd=REPO)
    assert result.code == 0, result.out + result.err
    assert result.err == ""  # a default read from the environment is a fact, not a warning


def test_the_pages_read_the_click_facts_naturally() -> None:
    page = (SHOWCASE / "docs" / "server_arguments.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| `--port`"))
    assert "`30000`" in row and "Type: int, 1&lt;=x&lt;=65535" in row
    assert "`MODELSERVER_PORT`" in row  # auto_envvar_prefix
    assert (
        "| `--host` `TEXT` | Address to listen on. | `127.0.0.1` | Type: str | `MS_HOST, HOST` |"
        in page
    )
    assert "List[str]" in next(x for x in page.splitlines() if "`--served-model-name`" in x)
    assert "bool flag (--enable-metrics / --disable-metrics)" in page
    assert "```console\nmodelserver serve [OPTIONS] MODEL_PATH\n```" in page  # Click's usage
    assert "| `--port`, `-p` `INTEGER RANGE` |" in page  # the value as Click's help names it
    assert "`--api-key`" not in page  # hidden=True
    mdx = (SHOWCASE / "docs" / "server_arguments.mdx").read_text(encoding="utf-8")
    assert "Environment variable: <code>MODELSERVER_PORT</code>" in mdx
    assert "<td>Type: int, 1&lt;=x&lt;=65535</td>" in mdx


def test_live_reading_gives_the_same_pages(tmp_path: Path) -> None:
    project = tmp_path / "click-server"
    shutil.copytree(SHOWCASE, project)
    registries = REPO / "tests" / "fixtures" / "registries"
    replace_in(project / "argmatrix.yaml", "mode: static", "mode: live")
    replace_in(
        project / "argmatrix.yaml",
        "search_path: [../../tests/fixtures/registries]",
        f"search_path: [{registries}]",
    )
    shutil.copy(registries / "click_server.py", project / "click_server.py")
    (project / ".git").mkdir()  # the project's root, as the repository is the showcase's
    env = {**os.environ, "MS_PROFILE_DIR": "/srv/p"}
    result = run_cli_in_subprocess("generate", cwd=project, env=env)
    assert result.code == 0, result.err
    for name in PAGES:
        live = (project / "docs" / name).read_text(encoding="utf-8")
        static = (SHOWCASE / "docs" / name).read_text(encoding="utf-8")
        fact = "`/tmp/profiles`, or `$MS_PROFILE_DIR` when set"
        if name.endswith(".mdx"):
            fact = "<code>/tmp/profiles</code>, or <code>\\$MS_PROFILE_DIR</code> when set"
        assert live.replace("`/srv/p`", fact).replace("<code>/srv/p</code>", fact) == static
    assert not (project / "click_server_ran.txt").exists()
