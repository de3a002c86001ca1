"""Warnings about what reaches a page, once: `diff` reading one source for both sides says each
once; a subcommand the target leaves out (`build serve`) is warned about by no command; and a
default the configuration says in words (`computed_defaults:`) is said so by `%(default)s` in
the help too."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli_in_process

SERVER = """\
import argparse
import os


def build():
    parser = argparse.ArgumentParser(prog="mysrv")
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser("serve")
    serve.add_argument("--workers", type=int, default=os.cpu_count(), help="Workers (default: %(default)s).")
    bench = commands.add_parser("bench")
    bench.add_argument("--report", type=argparse.FileType("w"), help="Report file.")
    return parser
"""


def project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    (root / "srv.py").write_text(SERVER, encoding="utf-8")
    if config:
        (root / "argmatrix.yaml").write_text(config, encoding="utf-8")
    return root


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("argmatrix: warning:")]


def test_diff_of_one_source_says_each_warning_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run_cli_in_process("diff", "srv:build", "srv:build", "--static", cwd=root)
    assert result.code == 0, result.err
    said = warnings(result.err)
    assert len(said) == 2 and len(set(said)) == 2, said  # --workers and --report, once each


def test_a_subcommand_left_out_of_the_target_is_not_warned_about(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run_cli_in_process("export", "--registry", "srv:build serve", "--static", cwd=root)
    assert result.code == 0, result.err
    (said,) = warnings(result.err)
    assert "--workers: default kept as source text" in said
    assert "computed: {--workers: {default: ...}}" in said  # serve is the whole registry


def test_a_default_said_in_words_is_said_in_the_help_too(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        "registry: {target: 'srv:build serve', mode: static}\ndocs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n"
        "computed_defaults: {--workers: one per GPU}\n",
    )
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0 and warnings(result.err) == [], result.err
    page = (root / "docs" / "args.md").read_text(encoding="utf-8")
    assert "| Workers (default: one per GPU). | one per GPU |" in page
    assert "cpu_count" not in page


def test_the_fix_names_the_configuration_in_use(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "argmatrix-cli.yaml").write_text(
        "registry: {target: 'srv:build serve', mode: static}\ndocs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n",
        encoding="utf-8",
    )
    generated = run_cli_in_process("generate", "--config", "argmatrix-cli.yaml", cwd=root)
    (said,) = warnings(generated.err)
    assert "say it in words in argmatrix-cli.yaml: 'computed: {--workers:" in said
    checked = run_cli_in_process("check", "--config", "argmatrix-cli.yaml", cwd=root)
    assert "say it in words in argmatrix-cli.yaml" in checked.out, checked.out
