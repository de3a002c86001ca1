"""A manifest entry for a flag that was renamed since the compatibility baseline: `generate` and
`check` say what it became and how to keep the platform's fact, never just "remove" it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli_in_process

BEFORE = (
    "import argparse\n\n\ndef build():\n    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--tp-size', dest='tp_size', type=int, default=1)\n"
    "    p.add_argument('--port', type=int, default=8000)\n    return p\n"
)
AFTER = BEFORE.replace("'--tp-size'", "'--tensor-parallel-size'")


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    (root / "srv.py").write_text(BEFORE, encoding="utf-8")
    (root / "tpx.yaml").write_text(
        "platform: tpx\ntitle: TPX\narguments:\n  --tp-size: {status: supported, default: 8}\n"
        "  --port: supported\n",
        encoding="utf-8",
    )
    (root / "argmatrix.yaml").write_text(
        "registry: {target: 'srv:build', mode: static}\nmanifests: [tpx.yaml]\ndocs_dir: docs\n"
        "pages:\n  - {template: platform_support.md.j2, output: tpx.md, platform: tpx}\n"
        "checks:\n  compatibility: {baseline: baseline.json}\n",
        encoding="utf-8",
    )
    made = run_cli_in_process("snapshot", "-o", "baseline.json", cwd=root)
    assert made.code == 0, made.err
    (root / "srv.py").write_text(AFTER, encoding="utf-8")
    return root


def test_a_renamed_flag_is_named_by_generate_and_check(tmp_path: Path) -> None:
    root = project(tmp_path)
    generated = run_cli_in_process("generate", cwd=root)
    assert generated.code == 1  # nothing written: the manifest disagrees with the registry
    (line,) = [x for x in generated.err.splitlines() if "error[stale-manifest-entry]" in x]
    assert "tpx.yaml:4:" in line and "it was renamed --tensor-parallel-size" in line
    assert "write --tensor-parallel-size instead" in line and "remove" not in line
    checked = run_cli_in_process("check", cwd=root)
    assert checked.code == 1
    stale = [x for x in checked.out.splitlines() if "error[stale-manifest-entry]" in x]
    assert len(stale) == 1 and "write --tensor-parallel-size instead" in stale[0]


def test_without_a_record_of_the_rename_no_new_spelling_is_claimed(tmp_path: Path) -> None:
    root = project(tmp_path)
    config = root / "argmatrix.yaml"
    config.write_text(config.read_text().split("checks:")[0], encoding="utf-8")
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1
    (line,) = [x for x in result.out.splitlines() if "error[stale-manifest-entry]" in x]
    assert "tpx.yaml:4:" in line and "it was renamed --" not in line
    # the advice still says how to keep the platform's fact, not only to drop it
    assert "write the flag it was renamed to, if it was (the fact is kept)" in line


def test_the_closest_spelling_is_offered(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "tpx.yaml").write_text(
        "platform: tpx\ntitle: TPX\narguments:\n  --prot: supported\n", encoding="utf-8"
    )
    result = run_cli_in_process("check", cwd=root)
    (line,) = [x for x in result.out.splitlines() if "error[stale-manifest-entry]" in x]
    assert "tpx.yaml:4:" in line and "did you mean --port?" in line


def with_history(root: Path) -> None:
    """No baseline; the history facts of the server page record the old spelling."""
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text().split("checks:")[0]
        + "  - {template: server_arguments.md.j2, output: args.md, history: history.json}\n",
        encoding="utf-8",
    )
    history = {
        "format": "argmatrix-history/1",
        "target": "srv:build",
        "releases": ["1.0", "2.0"],
        "arguments": [
            {
                "name": "--tensor-parallel-size",
                "flags": ["--tensor-parallel-size", "--tp-size"],
                "added": "1.0",
                "removed": None,
            },
            {"name": "--port", "flags": ["--port"], "added": "1.0", "removed": None},
        ],
    }
    (root / "history.json").write_text(json.dumps(history), encoding="utf-8")


def test_the_history_facts_name_a_renamed_flag(tmp_path: Path) -> None:
    root = project(tmp_path)
    with_history(root)
    checked = run_cli_in_process("check", cwd=root)
    assert checked.code == 1
    (line,) = [x for x in checked.out.splitlines() if "error[stale-manifest-entry]" in x]
    assert "tpx.yaml:4:" in line and "it was renamed --tensor-parallel-size" in line
    assert "the history facts history.json have --tp-size" in line and "remove" not in line


@pytest.mark.parametrize("record", ["baseline", "history"])
def test_check_fix_writes_the_entry_under_its_new_spelling(tmp_path: Path, record: str) -> None:
    root = project(tmp_path)
    if record == "history":
        with_history(root)
    manifest = root / "tpx.yaml"
    before = manifest.read_text(encoding="utf-8")
    fixed = run_cli_in_process("check", "--fix", cwd=root)
    assert "stale-manifest-entry" not in fixed.out, fixed.out
    assert "tpx.yaml: renamed --tp-size to --tensor-parallel-size" in fixed.err
    # only the key changed: the entry's fact is kept, every other byte too
    assert manifest.read_text(encoding="utf-8") == before.replace(
        "  --tp-size: {", "  --tensor-parallel-size: {"
    )
    page = (root / "docs" / "tpx.md").read_text(encoding="utf-8")
    row = next(r for r in page.splitlines() if r.startswith("| `--tensor-parallel-size`"))
    assert "| `8` |" in row  # the platform's default, from the entry carried over
    again = run_cli_in_process("check", cwd=root)
    assert "stale" not in again.out
    # what is left is the break itself, which a person accepts (the baseline's record only)
    assert again.code == (1 if record == "baseline" else 0), again.out


def test_check_fix_leaves_an_entry_with_no_record_of_a_rename(tmp_path: Path) -> None:
    root = project(tmp_path)
    config = root / "argmatrix.yaml"
    config.write_text(config.read_text().split("checks:")[0], encoding="utf-8")
    manifest = root / "tpx.yaml"
    before = manifest.read_text(encoding="utf-8")
    fixed = run_cli_in_process("check", "--fix", cwd=root)
    assert fixed.code == 1 and "renamed" not in fixed.err
    assert manifest.read_text(encoding="utf-8") == before
