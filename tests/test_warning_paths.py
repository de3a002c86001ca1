"""Where a warning points, however the registry was read and from whichever folder: relative to
the current folder, normalised (never `proj/../srv/...`), the same for a static read and for a
snapshot of it; an export names the project's files as a snapshot does, never the machine's
absolute path."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli_in_process

SERVER = (
    "import argparse\nimport os\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--workers', type=int, default=os.cpu_count())\n"
    "    return parser\n"
)
MESSAGE = "--workers: default kept as source text"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "srv").mkdir()
    (root / "srv" / "server_args.py").write_text(SERVER, encoding="utf-8")
    (root / "docs" / "guide").mkdir(parents=True)
    return root


def warning_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("argmatrix: warning:")]


def test_a_warning_names_the_file_from_the_current_folder(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = ("--registry", "srv.server_args:build", "--static")
    at_root = run_cli_in_process("export", *target, cwd=root)
    assert at_root.code == 0, at_root.err
    assert warning_lines(at_root.err) == [
        f"argmatrix: warning: srv/server_args.py:7: {MESSAGE}: `os.cpu_count()` (calls"
        " `os.cpu_count`, which static reading does not run) (fix: say it in words in"
        " argmatrix.yaml: 'computed: {--workers: {default: ...}}')"
    ]
    snapshot = root / "registry.json"
    made = run_cli_in_process("snapshot", *target, "-o", str(snapshot), cwd=root)
    assert made.code == 0 and warning_lines(made.err) == warning_lines(at_root.err)
    below = root / "docs" / "guide"
    from_snapshot = run_cli_in_process("export", "--registry", "../../registry.json", cwd=below)
    assert from_snapshot.code == 0, from_snapshot.err
    (line,) = warning_lines(from_snapshot.err)
    assert line.startswith("argmatrix: warning: ../../srv/server_args.py:7: ")
    assert "/.." not in line.partition("../../")[2] and str(tmp_path) not in line


def test_an_export_names_the_files_as_a_snapshot_does(tmp_path: Path) -> None:
    root = project(tmp_path)
    target = ("--registry", "srv.server_args:build", "--static")
    exported = run_cli_in_process("export", *target, cwd=root)
    run_cli_in_process("snapshot", *target, "-o", "registry.json", cwd=root)
    from_snapshot = run_cli_in_process("export", "--registry", "registry.json", cwd=root)
    files = [
        [d["file"] for d in json.loads(run.out)["registry"]["diagnostics"]]
        for run in (exported, from_snapshot)
    ]
    assert files == [["srv/server_args.py"], ["srv/server_args.py"]]
    assert str(tmp_path) not in exported.out


def test_diff_and_history_name_a_snapshots_files_as_export_does(tmp_path: Path) -> None:
    """From a subfolder, `diff` and `history` of a snapshot name the registry's file from the
    current folder, as `export` of it does (they named it from the project's root)."""
    root = project(tmp_path)
    target = ("--registry", "srv.server_args:build", "--static")
    made = run_cli_in_process("snapshot", *target, "-o", "registry.json", cwd=root)
    assert made.code == 0, made.err
    below = root / "docs" / "guide"
    snapshot = "../../registry.json"
    exported = run_cli_in_process("export", "--registry", snapshot, cwd=below)
    (expected,) = warning_lines(exported.err)
    assert expected.startswith("argmatrix: warning: ../../srv/server_args.py:7: ")
    runs = {
        "diff": run_cli_in_process("diff", snapshot, snapshot, cwd=below),
        "history": run_cli_in_process(
            "history", "--target", "srv.server_args:build", "--release", f"1={snapshot}", cwd=below
        ),
    }
    for command, run in runs.items():
        assert run.code == 0, run.err
        assert warning_lines(run.err) == [expected], command
