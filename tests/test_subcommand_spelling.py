"""One spelling for a subcommand's argument everywhere: `serve --revision` in `environment:`,
`computed_defaults:`, `computed:`, `stability:`, a manifest (and `serve LoRA` for a section), an
in-place region and the Sphinx directive. A bare flag names the top level's argument, else the
one subcommand argument that has it; a bare flag two subcommands share is a located error that
names both spellings (`tests/fixtures/registries/revision_cli.py`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import REGISTRIES, line_of, one_error_line, run_cli_in_process

MANIFEST = """\
platform: tpx
title: TPX
arguments:
  --verbose: supported
  serve --revision: supported
  serve --port: {status: unsupported, reason: No network on TPX}
  --cache-dir: supported
  download --revision: {status: not-applicable, reason: Models come preinstalled}
sections:
  serve LoRA: experimental
"""


def project(tmp_path: Path, config: str = "", manifest: str = MANIFEST) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "revision_cli.py").write_text((REGISTRIES / "revision_cli.py").read_text())
    (root / "tpx.yaml").write_text(manifest, encoding="utf-8")
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'revision_cli:build_parser', mode: static}\n"
        "manifests: [tpx.yaml]\n"
        "docs_dir: docs\n"
        "pages:\n"
        "  - {template: server_arguments.md.j2, output: reference.md}\n"
        "  - {template: platform_support.md.j2, output: tpx.md, platform: tpx}\n" + config,
        encoding="utf-8",
    )
    return root


def row(page: str, flag: str, after: str) -> str:
    """The row of `flag` in the part of the page after the heading `after`."""
    rest = page[page.index(after) :]
    return next(line for line in rest.splitlines() if line.startswith(f"| `{flag}`"))


CONFIGURED = """\
environment:
  arguments: {serve --revision: HUB_SERVE_REVISION, download --revision: HUB_REVISION}
computed_defaults: {serve --port: the first free port}
computed:
  download --cache-dir: {help: Where models are kept., default: the cache folder}
stability: {arguments: {serve --lora-rank: beta, --max-loras: prototype}}
"""


def test_every_key_takes_a_subcommands_spelling(tmp_path: Path) -> None:
    root = project(tmp_path, CONFIGURED)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    page = (root / "docs" / "reference.md").read_text(encoding="utf-8")
    assert row(page, "--revision", "Subcommand `serve`").endswith(
        "| `HUB_SERVE_REVISION` | stable |"
    )
    assert row(page, "--revision", "Subcommand `download`").endswith("| `HUB_REVISION` | stable |")
    assert "| the first free port |" in row(page, "--port", "Subcommand `serve`")
    cache = row(page, "--cache-dir", "Subcommand `download`")
    assert "Where models are kept." in cache and "the cache folder" in cache
    assert "beta" in row(page, "--lora-rank", "Subcommand `serve`")
    assert "prototype" in row(page, "--max-loras", "Subcommand `serve`")  # bare, one subcommand
    assert run_cli_in_process("check", cwd=root).code == 0


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ("environment: {arguments: {--revision: HUB_REVISION}}\n", "environment: arguments: "),
        ("computed_defaults: {--revision: the newest}\n", "computed_defaults: "),
        ("computed: {--revision: {help: Which revision.}}\n", "computed: "),
        ("stability: {arguments: {--revision: beta}}\n", "stability: "),
    ],
)
def test_a_bare_flag_two_subcommands_share_is_an_error_naming_both(
    tmp_path: Path, config: str, key: str
) -> None:
    root = project(tmp_path, config)
    for command in ("generate", "check", "export"):
        said = one_error_line(
            run_cli_in_process(command, cwd=root),
            f"{key}'--revision' is an argument of several subcommands",
            "'serve --revision', 'download --revision'",
            "name the subcommand",
        )
        line = line_of(root / "argmatrix.yaml", "--revision")
        assert re.search(rf"argmatrix\.yaml:{line}:", said), said


def test_a_misspelled_subcommand_argument_gets_its_spelling_suggested(tmp_path: Path) -> None:
    root = project(tmp_path, "computed_defaults: {serve --lora-rnak: up to 64}\n")
    one_error_line(
        run_cli_in_process("generate", cwd=root),
        "computed_defaults: 'serve --lora-rnak' is not an argument of the registry",
        "did you mean 'serve --lora-rank'?",
    )


def test_a_manifest_names_subcommands_arguments_and_sections(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    page = (root / "docs" / "tpx.md").read_text(encoding="utf-8")
    assert "## Subcommand `serve`" in page and "### LoRA" in page
    assert "Supported" in row(page, "--revision", "Subcommand `serve`")
    assert "No network on TPX" in row(page, "--port", "Subcommand `serve`")
    assert "Experimental" in row(page, "--lora-rank", "Subcommand `serve`")  # its section's
    assert "Models come preinstalled" in row(page, "--revision", "Subcommand `download`")
    assert "Supported" in row(page, "--cache-dir", "Subcommand `download`")  # bare, unique
    exported = json.loads(run_cli_in_process("export", cwd=root).out)
    statuses = exported["platforms"]["tpx"]["arguments"]
    assert statuses["--verbose"]["status"] == "supported"
    check = run_cli_in_process("check", cwd=root)
    assert check.code == 0, check.out


def test_a_manifests_bare_shared_flag_is_a_finding_naming_both(tmp_path: Path) -> None:
    manifest = MANIFEST.replace("  serve --revision: supported\n", "  --revision: supported\n")
    root = project(tmp_path, manifest=manifest)
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1
    [line] = [x for x in result.out.splitlines() if "stale-manifest-entry" in x]
    assert f"tpx.yaml:{line_of(root / 'tpx.yaml', '--revision: supported')}:" in line
    assert "several subcommands (serve --revision, download --revision)" in line


def test_a_region_embeds_a_subcommands_section(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(
        '# Guide\n\n<!-- argmatrix:begin section="serve LoRA" -->\n<!-- argmatrix:end -->\n\n'
        '<!-- argmatrix:begin section="serve LoRA" platform="tpx" -->\n'
        "<!-- argmatrix:end -->\n",
        encoding="utf-8",
    )
    with (root / "argmatrix.yaml").open("a", encoding="utf-8") as config:
        config.write("  - {template: server_arguments.md.j2, output: guide.md, inplace: true}\n")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    guide = (root / "docs" / "guide.md").read_text(encoding="utf-8")
    assert guide.count("| `--lora-rank` `LORA_RANK` |") == 2 and "Experimental" in guide
    assert "`--revision`" not in guide


def test_an_unknown_section_lists_the_subcommands_sections(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(
        '<!-- argmatrix:begin section="bench LoRA" -->\n<!-- argmatrix:end -->\n',
        encoding="utf-8",
    )
    with (root / "argmatrix.yaml").open("a", encoding="utf-8") as config:
        config.write("  - {template: server_arguments.md.j2, output: guide.md, inplace: true}\n")
    one_error_line(
        run_cli_in_process("generate", cwd=root),
        "unknown section 'bench LoRA'",
        "serve LoRA",
        "download Model",
    )


@pytest.mark.engine  # sphinx-build
def test_the_sphinx_directive_embeds_a_subcommands_section(tmp_path: Path) -> None:
    """`.. argmatrix::` with `:section: serve LoRA`: one subcommand's section, spelled as the
    configuration and manifests spell it."""
    from test_sphinx_build import read_page, sphinx_build

    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "srv.py").write_text(
        "import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser(prog='srv')\n"
        "    commands = parser.add_subparsers(dest='command')\n"
        "    serve = commands.add_parser('serve')\n"
        "    lora = serve.add_argument_group('LoRA')\n"
        "    lora.add_argument('--lora-rank', type=int, default=8, help='Rank.')\n"
        "    bench = commands.add_parser('bench')\n"
        "    bench.add_argument_group('LoRA').add_argument('--lora-paths', help='Adapters.')\n"
        "    return parser\n",
        encoding="utf-8",
    )
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'srv:build', mode: static}\ndocs_dir: docs\npages:\n"
        "  - {template: server_arguments.myst.j2, output: reference.md, format: myst,"
        " committed: false}\n",
        encoding="utf-8",
    )
    (root / "docs" / "conf.py").write_text(
        "project = 'srv'\nextensions = ['myst_parser', 'argmatrix.sphinx']\n"
        "argmatrix_config = '../argmatrix.yaml'\n",
        encoding="utf-8",
    )
    (root / "docs" / "index.rst").write_text(
        "srv\n===\n\n.. toctree::\n\n   reference\n\n"
        ".. argmatrix::\n   :section: serve LoRA\n   :no-index:\n",
        encoding="utf-8",
    )
    result = sphinx_build(root / "docs", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    table = read_page(tmp_path / "out" / "index.html").tables[-1]
    flags = [row.cells[0] for row in table.rows]
    assert len(flags) == 1 and flags[0].startswith("--lora-rank"), flags
