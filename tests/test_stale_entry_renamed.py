"""A manifest entry for a flag that was renamed since the compatibility baseline: `generate` and
`check` say what it became and how to keep the platform's fact, never just "remove" it."""

from __future__ import annotations

from pathlib import Path

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


def test_without_a_baseline_the_closest_spelling_is_offered(tmp_path: Path) -> None:
    root = project(tmp_path)
    config = root / "argmatrix.yaml"
    config.write_text(config.read_text().split("checks:")[0], encoding="utf-8")
    result = run_cli_in_process("check", cwd=root)
    (line,) = [x for x in result.out.splitlines() if "error[stale-manifest-entry]" in x]
    assert "renamed" not in line
