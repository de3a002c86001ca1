"""Two command lines in one project, each documented by a configuration of its own: neither
configuration's prose check reads the other's generated pages (each page's last line says
argmatrix wrote it, in its format's comment syntax), nor the regions of an in-place page; a flag
a prose line names twice is one finding. Prose may name the flags of every command line: each
configuration's check reads the registries of the others beside it (`argmatrix-*.yaml`),
whatever and wherever their pages are."""

from __future__ import annotations

from pathlib import Path

import pytest

from argmatrix.render.formats import FORMATS
from helpers import REGISTRIES, line_of, one_error_line, run_cli_in_process

SERVER = (
    "import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--port', type=int, default=8000)\n"
    "    parser.add_argument('--api-key')\n    return parser\n"
)


def project(tmp_path: Path) -> Path:
    """A server (`argmatrix.yaml`) and a management CLI (`argmatrix-cli.yaml`, a Click group)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "server.py").write_text(SERVER, encoding="utf-8")
    (root / "manage.py").write_text((REGISTRIES / "click_group_cli.py").read_text())
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'server:build', mode: static}\ndocs_dir: docs\npages:\n"
        "  - {template: server_arguments.md.j2, output: reference/server.md}\n"
        "  - {template: server_arguments.md.j2, output: reference/server.myst.md,"
        " format: myst}\n",
        encoding="utf-8",
    )
    (root / "argmatrix-cli.yaml").write_text(
        "registry: {target: 'manage:cli', mode: static}\ndocs_dir: docs\npages:\n"
        "  - {template: server_arguments.md.j2, output: reference/cli.md, title: manage}\n"
        "  - {template: server_arguments.mdx.j2, output: reference/cli.mdx}\n",
        encoding="utf-8",
    )
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text(
        "# Home\n\nThe server and its management command line.\n", encoding="utf-8"
    )
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        generated = run_cli_in_process("generate", "--config", config, cwd=root)
        assert generated.code == 0, generated.err
    return root


def test_each_configuration_checks_without_reading_the_others_pages(tmp_path: Path) -> None:
    root = project(tmp_path)
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        assert result.code == 0, result.out + result.err
        assert result.out.strip() == "argmatrix check: everything agrees"


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_generated_page_ends_with_the_line_that_says_so(tmp_path: Path, name: str) -> None:
    root = project(tmp_path)
    marker = FORMATS[name].REGION.generated
    assert marker and "argmatrix:generated" in marker
    pages = {"markdown": "server.md", "myst": "server.myst.md", "mdx": "cli.mdx"}
    text = (root / "docs" / "reference" / pages[name]).read_text(encoding="utf-8")
    assert text.endswith(f"\n\n{marker}\n")


def test_prose_is_still_checked_and_a_flag_named_twice_is_one_finding(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "docs" / "index.md").write_text(
        "# Home\n\nSet `--prot 9000` (`--prot` is the port).\n", encoding="utf-8"
    )
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1
    dead = [line for line in result.out.splitlines() if "dead-flag" in line]
    assert len(dead) == 1 and "docs/index.md:3:" in dead[0] and "did you mean --port?" in dead[0]


def test_the_regions_of_an_in_place_page_are_not_prose(tmp_path: Path) -> None:
    """The CLI's configuration fills a region of a hand-written page; the server's configuration
    checks that page's prose, but not the region."""
    root = project(tmp_path)
    guide = root / "docs" / "guide.md"
    guide.write_text(
        "# Guide\n\nRun the server with `--api-key`.\n\n"
        "<!-- argmatrix:begin -->\n<!-- argmatrix:end -->\n",
        encoding="utf-8",
    )
    with (root / "argmatrix-cli.yaml").open("a", encoding="utf-8") as config:
        config.write("  - {template: server_arguments.md.j2, output: guide.md, inplace: true}\n")
    assert run_cli_in_process("generate", "--config", "argmatrix-cli.yaml", cwd=root).code == 0
    assert "argmatrix:generated" not in guide.read_text(encoding="utf-8")  # no churn in place
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        assert result.code == 0, result.out  # the server's flag: documented by its own pages
    guide.write_text(guide.read_text().replace("`--api-key`", "`--api-kye`"), encoding="utf-8")
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        dead = [line for line in result.out.splitlines() if "dead-flag" in line]
        assert len(dead) == 1 and "guide.md:3:" in dead[0] and "--api-kye" in dead[0], result.out


def test_prose_may_name_the_flags_of_every_command_line_of_the_project(tmp_path: Path) -> None:
    """A home page introducing both command lines: each configuration's check knows the other's
    flags from the pages the other generated; a misspelled one is still dead to both."""
    root = project(tmp_path)
    home = root / "docs" / "index.md"
    home.write_text(
        "# Home\n\nServe on `--port 9000`; manage with `manage --profile prod`.\n",
        encoding="utf-8",
    )
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        assert result.out == "argmatrix check: everything agrees\n", result.out
    home.write_text("# Home\n\nManage with `--proflie prod`.\n", encoding="utf-8")
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        assert result.code == 1 and "index.md:3:" in result.out and "--proflie" in result.out


def test_a_generated_page_out_of_date_says_regenerate_with_its_configuration(
    tmp_path: Path,
) -> None:
    """The CLI loses a flag its generated page still names: the server's check passes over the
    page (not prose); the CLI's check says to regenerate it with its own configuration, never
    to remove the flag."""
    root = project(tmp_path)
    manage = root / "manage.py"
    source = manage.read_text(encoding="utf-8")
    assert "--watch" in source
    manage.write_text(source.replace("--watch", "--refresh"), encoding="utf-8")
    server = run_cli_in_process("check", cwd=root)
    assert server.code == 0, server.out + server.err
    cli = run_cli_in_process("check", "--config", "argmatrix-cli.yaml", cwd=root)
    assert cli.code == 1
    stale = [line for line in cli.out.splitlines() if "stale-page" in line]
    assert stale and all(
        "argmatrix generate --config argmatrix-cli.yaml" in line for line in stale
    ), cli.out
    assert "dead-flag" not in cli.out and "remove" not in cli.out


def test_only_the_last_line_marks_a_page_generated(tmp_path: Path) -> None:
    """A hand-written page quoting the marker is still prose."""
    root = project(tmp_path)
    marker = FORMATS["markdown"].REGION.generated
    (root / "docs" / "index.md").write_text(
        f"# Home\n\n```\n{marker}\n```\n\nSet `--prot`.\n", encoding="utf-8"
    )
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1 and "docs/index.md:7:" in result.out, result.out


# How the other configuration may write its pages, none of which leaves a generated page in
# this configuration's docs_dir: built by a docs engine (`committed: false`), MDX only, or
# into a docs_dir of its own.
OTHER_PAGES = {
    "built by the MkDocs plugin": (
        "docs_dir: docs\npages:\n"
        "  - {template: server_arguments.md.j2, output: reference/cli.md, committed: false}\n"
    ),
    "MDX only": "docs_dir: docs\npages:\n"
    "  - {template: server_arguments.mdx.j2, output: reference/cli.mdx}\n",
    "outside this docs_dir": "docs_dir: cli-docs\npages:\n"
    "  - {template: server_arguments.md.j2, output: cli.md}\n",
}


def project_with_other(tmp_path: Path, pages: str) -> Path:
    root = project(tmp_path)
    for page in ("cli.md", "cli.mdx"):
        (root / "docs" / "reference" / page).unlink()
    (root / "argmatrix-cli.yaml").write_text(
        "registry: {target: 'manage:cli', mode: static}\n" + pages, encoding="utf-8"
    )
    if "committed: false" not in pages:  # else only the MkDocs build makes them, in memory
        generated = run_cli_in_process("generate", "--config", "argmatrix-cli.yaml", cwd=root)
        assert generated.code == 0, generated.err
    return root


@pytest.mark.parametrize("how", sorted(OTHER_PAGES))
def test_prose_may_name_the_flags_of_a_command_line_whose_pages_are_elsewhere(
    tmp_path: Path, how: str
) -> None:
    """The server's check knows the management CLI's flags from its configuration
    (`argmatrix-cli.yaml` beside `argmatrix.yaml`), not from pages on disk: prose naming them
    is not dead, however and wherever the CLI's pages are written; a misspelled one is dead,
    with the CLI's spelling suggested."""
    root = project_with_other(tmp_path, OTHER_PAGES[how])
    assert not (root / "docs" / "reference" / "cli.md").exists()
    home = root / "docs" / "index.md"
    home.write_text(
        "# Home\n\nServe on `--port 9000`; manage with `manage --profile prod --watch`.\n",
        encoding="utf-8",
    )
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        result = run_cli_in_process("check", "--config", config, cwd=root)
        assert (result.code, result.out, result.err) == (
            0,
            "argmatrix check: everything agrees\n",
            "",
        ), config
    home.write_text("# Home\n\nManage with `--proflie prod`.\n", encoding="utf-8")
    result = run_cli_in_process("check", cwd=root)
    dead = [line for line in result.out.splitlines() if "dead-flag" in line]
    assert result.code == 1 and len(dead) == 1, result.out
    assert "docs/index.md:3:" in dead[0] and "did you mean --profile?" in dead[0]


def test_a_live_command_line_is_not_run_by_a_static_check(tmp_path: Path) -> None:
    """The CLI's configuration reads it live; the server's check (static) reads the CLI's
    flags statically: no code of the project runs in a static check."""
    root = project_with_other(tmp_path, OTHER_PAGES["built by the MkDocs plugin"])
    config = root / "argmatrix-cli.yaml"
    config.write_text(config.read_text().replace("mode: static", "mode: live"), encoding="utf-8")
    ran = root / "ran.txt"
    manage = root / "manage.py"
    manage.write_text(
        manage.read_text(encoding="utf-8") + f"\nopen({str(ran)!r}, 'w').close()\n",
        encoding="utf-8",
    )
    (root / "docs" / "index.md").write_text("# Home\n\nManage with `--profile`.\n")
    result = run_cli_in_process("check", cwd=root)
    assert (result.code, result.out) == (0, "argmatrix check: everything agrees\n"), result.err
    assert not ran.exists()


def test_a_broken_other_configuration_is_a_located_error(tmp_path: Path) -> None:
    """Prose names a flag the server lacks and the CLI's configuration cannot be read: the
    error names the CLI configuration's file and line (or its registry's file), and why the
    server's check read it."""
    root = project_with_other(tmp_path, OTHER_PAGES["MDX only"])
    config = root / "argmatrix-cli.yaml"
    written = config.read_text(encoding="utf-8")
    config.write_text(written + "page: {}\n", encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Home\n\nManage with `--profile`.\n")
    result = run_cli_in_process("check", cwd=root)
    line = line_of(config, "page:")
    why = "(reading argmatrix-cli.yaml, another configuration of this project, for the flags"
    one_error_line(result, f"argmatrix-cli.yaml:{line}: unknown key 'page'", why, "(fix: ")
    config.write_text(written.replace("manage:cli", "manage:clii"), encoding="utf-8")
    result = run_cli_in_process("check", cwd=root)
    one_error_line(result, "manage.py: ", "'clii'", why, "(fix: ")
    # the server's check needs the CLI's flags only for a flag the server lacks
    (root / "docs" / "index.md").write_text("# Home\n\nServe on `--port`.\n")
    result = run_cli_in_process("check", cwd=root)
    assert (result.code, result.out) == (0, "argmatrix check: everything agrees\n"), result.err
