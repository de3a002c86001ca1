"""`argmatrix generate` and `argmatrix schema`, and the functions they call: `generate.generate`
writes every configured page (all or none) after telling each manifest entry that does not fit
the registry, `schema.schema_text` is the schema the command prints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from argmatrix.cli.main import build_parser
from argmatrix.generate import generate
from argmatrix.model.findings import Finding
from argmatrix.project import SourceOptions, load_project
from argmatrix.schema import SCHEMAS, schema_text
from helpers import append_to, copy_project, line_of, one_error_line, run_cli_in_process

PAGES = ("reference/server_arguments.md", "reference/npu.md", "reference/npu_variants.md")


def _with_a_gone_flag(tmp_path: Path) -> Path:
    """The fixture project, its manifest naming a flag the registry does not have, which
    `checks.severity` makes a warning (an error stops generate: tests/test_adopting_check.py)."""
    root = copy_project(tmp_path)
    append_to(root / "capabilities" / "npu.yaml", "  --gone-flag: supported\n")
    append_to(root / "argmatrix.yaml", "checks:\n  severity: {stale-manifest-entry: warning}\n")
    return root


def test_generate_tells_each_unfitting_entry_then_writes_every_page(tmp_path: Path) -> None:
    root = _with_a_gone_flag(tmp_path)
    told: list[Finding] = []
    written = generate(load_project(SourceOptions(), cwd=root), warn=told.append).written
    docs = (root / "docs").resolve()
    assert written == [docs / page for page in PAGES]
    assert all(path.is_file() for path in written)
    assert [(f.kind, f.flag, Path(f.file or "").name) for f in told] == [
        ("stale-manifest-entry", "--gone-flag", "npu.yaml")
    ]


def test_the_command_warns_on_stderr_and_names_each_page_written(tmp_path: Path) -> None:
    root = _with_a_gone_flag(tmp_path)
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    assert result.out.splitlines() == [f"wrote docs/{page}" for page in PAGES]
    manifest = root / "capabilities" / "npu.yaml"
    where = f"capabilities/npu.yaml:{line_of(manifest, '--gone-flag')}: "
    (warning,) = result.err.splitlines()
    assert warning.startswith(f"{where}warning[stale-manifest-entry]: --gone-flag"), warning


def test_no_pages_configured_is_one_error_line(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text[: text.index("pages:")], encoding="utf-8")
    result = run_cli_in_process("generate", cwd=root)
    one_error_line(result, "argmatrix.yaml", "no pages configured", "add a 'pages:' list")
    assert not (root / "docs" / "reference").exists()


def test_schema_prints_each_schema_as_indented_json(tmp_path: Path) -> None:
    for kind, schema in SCHEMAS.items():
        assert schema_text(kind) == json.dumps(schema, indent=2) + "\n"
        jsonschema.Draft202012Validator.check_schema(json.loads(schema_text(kind)))
        assert run_cli_in_process("schema", kind, cwd=tmp_path).out == schema_text(kind)
    assert run_cli_in_process("schema", cwd=tmp_path).out == schema_text("manifest")


def test_the_command_offers_every_schema_there_is() -> None:
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    kind = next(a for a in commands.choices["schema"]._actions if a.dest == "kind")
    assert tuple(kind.choices) == tuple(SCHEMAS)
