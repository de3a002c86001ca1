"""`argmatrix check` names every drift with its kind, file and line, and exits 1; fixed, 0."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from argmatrix.schema import FINDINGS_SCHEMA
from helpers import append_to, copy_project, line_of, replace_in, run_cli_in_process

CLASSIFY_REST = """  --model-path: supported
  --port: supported
  --max-batch-size: planned
  --debug-dump: unverified
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project with every argument classified and no file default, pages fresh."""
    root = copy_project(tmp_path)
    manifest = root / "capabilities" / "npu.yaml"
    replace_in(manifest, "default: unverified\n", "")
    append_to(manifest, CLASSIFY_REST)
    assert run_cli_in_process("generate", cwd=root).code == 0
    return root


def _findings(root: Path) -> tuple[int, list[dict]]:
    result = run_cli_in_process("check", "--format", "json", cwd=root)
    assert "error" not in result.err
    findings = json.loads(result.out)
    jsonschema.validate(findings, FINDINGS_SCHEMA)
    return result.code, findings


def _kinds(findings: list[dict]) -> set[tuple]:
    return {(f["kind"], f["flag"], Path(f["file"]).name, f["line"]) for f in findings}


def test_a_fresh_project_passes(project: Path) -> None:
    code, findings = _findings(project)
    assert (code, findings) == (0, [])


def test_every_mutation_is_named(project: Path) -> None:
    registry = project / "tinyserver.py"
    manifest = project / "capabilities" / "npu.yaml"
    prose = project / "docs" / "guide" / "tuning.md"
    # The registry changes: a new flag, a renamed flag, a changed default, a dropped choice.
    replace_in(
        registry,
        '        parser.add_argument("--port"',
        '        parser.add_argument("--grace-period", type=int, default=5, help="Drain time.")\n'
        '        parser.add_argument("--port"',
    )
    replace_in(registry, '"--log-format"', '"--log-style"')
    replace_in(registry, "    port: int = 8000", "    port: int = 9000")
    replace_in(registry, 'choices=["auto", "float16", "bfloat16"]', 'choices=["auto", "float16"]')
    # The manifest gains a typo; the tutorial names a flag that does not exist.
    append_to(manifest, "  --shedule-policy: planned\n")
    append_to(prose, "Then try `--max-batchsize 64`.\n")

    code, findings = _findings(project)
    assert code == 1
    server_page = project / "docs" / "reference" / "server_arguments.md"
    kinds = _kinds(findings)
    assert ("unclassified-argument", "--grace-period", "npu.yaml", None) in kinds
    assert ("unclassified-argument", "--log-style", "npu.yaml", None) in kinds
    assert (
        "stale-manifest-entry",
        "--log-format",
        "npu.yaml",
        line_of(manifest, "--log-format:"),
    ) in kinds
    assert (
        "stale-manifest-entry",
        "--shedule-policy",
        "npu.yaml",
        line_of(manifest, "--shedule-policy:"),
    ) in kinds
    assert ("impossible-entry", "--dtype", "npu.yaml", line_of(manifest, "--dtype:")) in kinds
    assert (
        "dead-flag",
        "--max-batchsize",
        "tuning.md",
        line_of(prose, "--max-batchsize"),
    ) in kinds
    # The first line that differs: the usage synopsis, where the --dtype choices changed.
    assert (
        "stale-page",
        None,
        "server_arguments.md",
        line_of(server_page, "[--dtype {"),
    ) in kinds
    by_flag = {f["flag"]: f for f in findings}
    assert by_flag["--shedule-policy"]["fix"] == "did you mean --schedule-policy?"
    assert by_flag["--max-batchsize"]["fix"] == "did you mean --max-batch-size?"
    assert "bfloat16" in by_flag["--dtype"]["message"]
    stale = [f for f in findings if f["kind"] == "stale-page"]
    assert {Path(f["file"]).name for f in stale} == {
        "server_arguments.md",
        "npu.md",
        "npu_variants.md",
    }
    assert "+| `--grace-period` `GRACE_PERIOD` |" in stale[0]["diff"]

    # Regenerate, classify the new flags, fix the typos: everything agrees again.
    assert (
        run_cli_in_process("check", "--fix", cwd=project).code == 1
    )  # pages fixed; manifest still stale
    replace_in(manifest, "  --log-format: experimental\n", "  --log-style: experimental\n")
    replace_in(manifest, "  --shedule-policy: planned\n", "  --grace-period: supported\n")
    replace_in(manifest, "options: [auto, bfloat16]", "options: [auto]")
    replace_in(prose, "--max-batchsize", "--max-batch-size")
    assert (
        run_cli_in_process("check", cwd=project).code == 1
    )  # the platform pages follow the manifest
    assert run_cli_in_process("check", "--fix", cwd=project).code == 0
    assert run_cli_in_process("check", cwd=project).code == 0


def test_text_and_github_formats(project: Path) -> None:
    manifest = project / "capabilities" / "npu.yaml"
    append_to(manifest, "  --shedule-policy: planned\n")
    line = line_of(manifest, "--shedule-policy:")
    text = run_cli_in_process("check", cwd=project)
    assert text.code == 1
    assert (
        f"npu.yaml:{line}: error[stale-manifest-entry]: --shedule-policy is not an argument"
        in text.out
    )
    github = run_cli_in_process("check", "--format", "github", cwd=project)
    assert github.out.startswith("::error file=")
    assert f",line={line},title=argmatrix stale-manifest-entry::--shedule-policy" in github.out


def test_severity_is_configurable(project: Path) -> None:
    manifest = project / "capabilities" / "npu.yaml"
    append_to(manifest, "  --shedule-policy: planned\n")
    config = project / "argmatrix.yaml"
    append_to(config, "checks:\n  severity:\n    stale-manifest-entry: warning\n")
    code, findings = _findings(project)
    assert code == 0 and [f["severity"] for f in findings] == ["warning"]
    config.write_text(
        config.read_text().replace("stale-manifest-entry: warning", "stale-manifest-entry: off")
    )
    assert _findings(project) == (0, [])


def test_default_override_equal_to_registry_is_a_warning(project: Path) -> None:
    manifest = project / "capabilities" / "npu.yaml"
    replace_in(manifest, "  --port: supported\n", "  --port: {status: supported, default: 8000}\n")
    assert run_cli_in_process("generate", cwd=project).code == 0
    code, findings = _findings(project)
    assert code == 0
    assert [(f["kind"], f["severity"], f["flag"]) for f in findings] == [
        ("impossible-entry", "warning", "--port")
    ]


def test_prose_at_the_top_of_docs_is_checked_and_other_tools_flags_can_be_allowed(
    project: Path,
) -> None:
    (project / "docs" / "index.md").write_text(
        "Install with `pip install --upgrade tiny`, then pass `--max-batchsize`.\n"
    )
    code, findings = _findings(project)
    assert code == 1
    assert {(f["flag"], Path(f["file"]).name) for f in findings} == {
        ("--upgrade", "index.md"),
        ("--max-batchsize", "index.md"),
    }
    config = project / "argmatrix.yaml"
    append_to(config, "checks:\n  ignore_flags: [--upgrade]\n")
    code, findings = _findings(project)
    assert [f["flag"] for f in findings] == ["--max-batchsize"]


def test_a_misspelt_check_setting_is_an_error_not_ignored(project: Path) -> None:
    config = project / "argmatrix.yaml"
    append_to(config, "checks:\n  severity:\n    dead-flags: off\n")
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert "unknown kind 'dead-flags'" in result.err and "argmatrix.yaml:" in result.err


def test_generate_keeps_the_mode_of_a_page(project: Path) -> None:
    page = project / "docs" / "reference" / "npu.md"
    page.chmod(0o640)
    page.write_text("stale\n")
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.stat().st_mode & 0o777 == 0o640
