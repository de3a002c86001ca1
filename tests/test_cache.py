"""The cache never gives a result that reading the files again would not give."""

from __future__ import annotations

from pathlib import Path

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry, load_registry_and_files

BUILDER = (
    "import argparse\n\n\ndef build():\n    p = argparse.ArgumentParser()\n{body}    return p\n"
)


def _package(root: Path, body: str, extra: dict[str, str] | None = None) -> Path:
    package = root / "cachedpkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "args.py").write_text(BUILDER.format(body=body))
    for name, text in (extra or {}).items():
        (package / name).write_text(text)
    return root


def _read(root: Path) -> dict[str, object]:
    registry = load_registry(
        RegistrySpec("cachedpkg.args:build", mode="static", base_dir=root, search_path=(str(root),))
    )
    return {a.name: a.default for a in registry.arguments}


def test_another_environment_gets_its_own_registry(tmp_path: Path) -> None:
    first = _package(tmp_path / "a", '    p.add_argument("--from-a")\n')
    second = _package(tmp_path / "b", '    p.add_argument("--from-b")\n')
    assert list(_read(first)) == ["--from-a"]
    assert list(_read(second)) == ["--from-b"]
    assert list(_read(first)) == ["--from-a"]


def test_an_edit_of_the_same_size_is_seen(tmp_path: Path) -> None:
    root = _package(tmp_path, '    p.add_argument("--port", default=8000)\n')
    assert _read(root) == {"--port": 8000}
    _package(tmp_path, '    p.add_argument("--port", default=9000)\n')
    assert _read(root) == {"--port": 9000}


def test_a_module_that_appears_later_is_read(tmp_path: Path) -> None:
    body = '    from .defaults import PORT\n    p.add_argument("--port", default=PORT)\n'
    root = _package(tmp_path, body)
    assert str(_read(root)["--port"]) == "cachedpkg.defaults.PORT"  # kept as its source
    (root / "cachedpkg" / "defaults.py").write_text("PORT = 8080\n")
    assert _read(root) == {"--port": 8080}


def test_pages_follow_a_change_of_a_partial_template(tmp_path: Path) -> None:
    from argmatrix.render.formats.markdown import REGION
    from helpers import add_template_page, copy_project, run_cli_in_process

    project = copy_project(tmp_path)
    partials = project / "templates" / "partials"
    partials.mkdir(parents=True)
    (partials / "outro.md.j2").write_text("First words.\n")
    add_template_page(
        project,
        "with_outro.md.j2",
        '{% extends "argmatrix/server_arguments.md.j2" %}\n'
        '{% block outro %}{% include "partials/outro.md.j2" %}{% endblock %}\n',
        "guide/outro.md",
    )
    page = project / "docs" / "guide" / "outro.md"
    generated = REGION.generated  # the last line of a page argmatrix writes
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.read_text().endswith(f"First words.\n\n{generated}\n")
    (partials / "outro.md.j2").write_text("Other words.\n")
    assert run_cli_in_process("check", cwd=project).code == 1
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert page.read_text().endswith(f"Other words.\n\n{generated}\n")


def test_the_cache_keeps_a_bounded_number_of_entries(tmp_path: Path, monkeypatch) -> None:
    from argmatrix._runtime import cache

    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(tmp_path / "cache"))
    for number in range(cache.KEEP_PER_KIND + 5):
        assert cache.memo("probe", f"key-{number}", lambda n=number: n) == number
    assert len(list((tmp_path / "cache").glob("probe-*.pickle"))) == cache.KEEP_PER_KIND


def test_writes_abandoned_by_a_killed_process_are_cleared(tmp_path: Path, monkeypatch) -> None:
    import os
    import time

    from argmatrix._runtime import cache

    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("ARGMATRIX_CACHE_DIR", str(folder))
    abandoned, in_progress = folder / ".old.tmp", folder / ".new.tmp"
    abandoned.write_bytes(b"half")
    in_progress.write_bytes(b"half")
    two_hours_ago = time.time() - 7200
    os.utime(abandoned, (two_hours_ago, two_hours_ago))
    assert cache.memo("probe", "key", lambda: 1) == 1
    assert not abandoned.exists()
    assert in_progress.exists()  # another process may still be writing it


def test_an_environment_compiles_the_templates_as_they_were_read(tmp_path: Path) -> None:
    """Pages are cached under the templates' content; what renders them must be that content,
    even if a file changes on disk meanwhile (an editor saving under `mkdocs serve`)."""
    from argmatrix.config import Config
    from argmatrix.render.environment import project_environment
    from argmatrix.render.template_files import read_templates

    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.md.j2").write_text("as read\n")
    config = Config(
        file=None,
        root=tmp_path,
        registry=None,
        manifests=(),
        docs_dir=tmp_path / "docs",
        templates_dir=folder,
        pages=(),
    )
    templates = read_templates(folder)
    (folder / "page.md.j2").write_text("edited since\n")
    assert project_environment(config, templates).get_template("page.md.j2").render() == "as read\n"
    assert project_environment(config).get_template("page.md.j2").render() == "edited since\n"


def test_a_static_read_returns_the_files_it_used_whether_read_or_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files come back with the registry, as data: read now, reused from the cache, or read
    with the cache off. A page rendered from the registry is reused only while they are as
    they were."""
    body = '    from .defaults import PORT\n    p.add_argument("--port", default=PORT)\n'
    root = _package(tmp_path, body, {"defaults.py": "PORT = 8080\n"})
    spec = RegistrySpec(
        "cachedpkg.args:build", mode="static", base_dir=root, search_path=(str(root),)
    )
    package = root / "cachedpkg"
    read = load_registry_and_files(spec)[1]
    assert read is not None
    assert {str(package / "args.py"), str(package / "defaults.py")} <= set(read)
    reused = load_registry_and_files(spec)[1]
    assert reused is not None and set(reused) == set(read)
    monkeypatch.setenv("ARGMATRIX_NO_CACHE", "1")
    uncached = load_registry_and_files(spec)[1]
    assert uncached is not None and set(uncached) == set(read)
