"""Which problem `generate` reports when several inputs are broken: a manifest's before the
registry's, the registry's before a template's, and one line for each.

One process reads the manifests, then the registry, then renders: a user fixing a project sees
the problems in that order, run after run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import add_template_page, append_to, copy_project, run_cli_in_process


@pytest.mark.parametrize(
    ("broken", "reported"),
    [
        ("registry", "syntax error"),
        ("manifest", "unknown status 'works'"),
        ("both", "unknown status 'works'"),
        ("late page", "late.md.j2"),
        ("registry and a template", "syntax error"),
    ],
)
def test_the_first_problem_is_reported_on_one_line(
    tmp_path: Path, broken: str, reported: str
) -> None:
    root = copy_project(tmp_path)
    if broken in ("registry", "both", "registry and a template"):
        append_to(root / "tinyserver.py", "def broken(:\n")
    if broken in ("manifest", "both"):
        append_to(root / "capabilities" / "npu.yaml", "  --port: works\n")
    if broken == "registry and a template":
        (root / "templates" / "latin1.md.j2").write_bytes(b"caf\xe9\n")
        append_to(root / "argmatrix.yaml", "  - {template: latin1.md.j2, output: latin1.md}\n")
    if broken == "late page":
        add_template_page(root, "late.md.j2", "{{ nothing.here }}\n", "late.md")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 2
    assert len(result.err.splitlines()) == 1
    assert reported in result.err
    assert not (root / "docs" / "late.md").exists()


def test_the_registry_comes_back_with_the_files_it_was_read_from(tmp_path: Path) -> None:
    """The page cache and the engine adapters depend on what the registry was read from."""
    from argmatrix.project import load_project

    root = copy_project(tmp_path)
    project = load_project(cwd=root)
    assert project.registry_files is not None
    assert str(root / "tinyserver.py") in project.registry_files
    assert str(root / "tinyserver.py") in project.inputs().known_files()  # type: ignore[operator]
