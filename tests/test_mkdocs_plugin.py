"""The MkDocs plugin: virtual pages, no writes into docs, directives, errors with file:line, watch."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from mkdocs.exceptions import PluginError

from argmatrix.cli import main as cli_main
from argmatrix.errors import ArgmatrixError
from argmatrix.integrations.mkdocs import (
    ArgmatrixPlugin,
    expand_directives,
    plugin_errors,
    schema_table,
)
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.manifests.load import ENTRY_KEYS, SECTION_ENTRY_KEYS, TOP_KEYS
from argmatrix.schema import CONFIG_SCHEMA, MANIFEST_SCHEMA
from e2e.site import build_site, copy_hostile_project
from helpers import HANG_SECONDS, files_under


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_hostile_project(tmp_path)


def build(project: Path, strict: bool = True):  # type: ignore[no-untyped-def]
    return build_site(project / "mkdocs.yml", project.parent / "site", strict=strict)


def html(result: Any, page: str) -> str:
    return (result.site / page / "index.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------ building


@pytest.mark.slow
def test_build_generates_pages_in_memory_and_writes_nothing_into_docs(project: Path) -> None:
    result = build(project)
    assert result.code == 0, result.output
    assert result.warnings == []
    assert result.docs_changed == ()
    assert not (project / "docs" / "reference").exists()
    for page in ("reference/server_arguments", "reference/npu", "reference/matrix"):
        assert 'id="--page-size"' in html(result, page)


@pytest.mark.slow
def test_help_text_markup_is_escaped_in_every_page(project: Path) -> None:
    result = build(project)
    assert result.code == 0, result.output
    for page in ("reference/server_arguments", "reference/npu", "reference/matrix", "guide"):
        text = html(result, page)
        assert "<script>window.__pwned" not in text
        assert "onerror=window" not in text.replace("&lt;img src=x onerror=window", "")
    # A word joiner keeps `</script>` from ending an element (pages' <title> among them).
    assert "&lt;script&gt;window.__pwned=1&lt;\u2060/script&gt;" in html(
        result, "reference/server_arguments"
    )


@pytest.mark.slow
def test_a_generated_page_replaces_a_stale_copy_on_disk_without_touching_it(project: Path) -> None:
    stale = project / "docs" / "reference" / "npu.md"
    stale.parent.mkdir()
    stale.write_text("# STALE COPY\n", encoding="utf-8")
    result = build(project)
    assert result.code == 0, result.output
    assert "STALE COPY" not in html(result, "reference/npu")
    assert stale.read_text(encoding="utf-8") == "# STALE COPY\n"


@pytest.mark.slow
def test_a_stale_committed_page_fails_a_strict_build(project: Path) -> None:
    config = project / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "output: reference/npu.md, platform: npu, committed: false",
            "output: reference/npu.md, platform: npu",
        ),
        encoding="utf-8",
    )
    (project / "docs" / "reference").mkdir()
    (project / "docs" / "reference" / "npu.md").write_text("# old\n", encoding="utf-8")
    result = build(project)
    assert result.code != 0
    # named from the project's root, with the command that regenerates it there (`argmatrix
    # generate` finds argmatrix.yaml by itself: no --config)
    assert (
        "argmatrix: docs/reference/npu.md is out of date with its registry (fix: run"
        " 'argmatrix generate')\n" in result.output
    )


@pytest.mark.slow
def test_a_missing_committed_page_is_named_missing_with_the_way_out(project: Path) -> None:
    """Issue 23: a page left at the default `committed: true` whose file was never written is
    said to be missing (not "out of date"), and `committed: false` is offered."""
    config = project / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "output: reference/npu.md, platform: npu, committed: false",
            "output: reference/npu.md, platform: npu",
        ),
        encoding="utf-8",
    )
    result = build(project)
    assert result.code != 0
    assert "npu.md is missing: the page is marked committed (the default)" in result.output
    assert "set 'committed: false' on the page in argmatrix.yaml" in result.output
    assert "out of date" not in result.output
    assert result.docs_changed == ()


@pytest.mark.slow
def test_directives_expand_outside_code_and_stay_literal_inside_fences(project: Path) -> None:
    result = build(project)
    assert result.code == 0, result.output
    guide = html(result, "guide")
    assert guide.count("<table>") == 2
    assert "&lt;!-- argmatrix section=&quot;No such section&quot; --&gt;" in guide
    assert 'id="--page-size"' in guide


def test_a_bad_manifest_stops_the_build_with_file_and_line(project: Path) -> None:
    manifest = project / "capabilities" / "npu.yaml"
    lines = manifest.read_text(encoding="utf-8").splitlines()
    lines[-1] = "  --odd: suported"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = build(project)
    assert result.code != 0
    assert f"argmatrix: {manifest}:{len(lines)}:" in result.output
    assert "suported" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_a_bad_directive_names_the_page_and_its_line_after_front_matter(project: Path) -> None:
    guide = project / "docs" / "guide.md"
    guide.write_text(
        '---\ntitle: Guide\n---\n\n# Guide\n\n<!-- argmatrix section="Modle" -->\n',
        encoding="utf-8",
    )
    result = build(project)
    assert result.code != 0
    assert f"{guide}:7: unknown section 'Modle'" in result.output
    assert "Traceback" not in result.output


def test_a_missing_config_file_is_a_plugin_error(project: Path) -> None:
    (project / "argmatrix.yaml").unlink()
    result = build(project)
    assert result.code != 0
    assert "configuration file not found" in result.output


# ------------------------------------------------------------------ serve: what is watched


class FakeServer:
    def __init__(self) -> None:
        self.watched: list[str] = []

    def watch(self, path: str) -> None:
        self.watched.append(path)


def test_serve_watches_config_manifests_templates_and_registry_source(project: Path) -> None:
    (project / "templates").mkdir()
    plugin = ArgmatrixPlugin()
    plugin.config_path = project / "argmatrix.yaml"
    plugin.project = plugin._load()
    server = FakeServer()
    plugin.on_serve(server, config=None, builder=lambda: None)  # type: ignore[arg-type]
    assert set(server.watched) == {
        str(p.resolve())
        for p in (
            project / "argmatrix.yaml",
            project / "capabilities" / "npu.yaml",
            project / "templates",
            project / "hostile_cli.py",
        )
    }


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def wait_for_text(url: str, text: str) -> str:
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        page = fetch(url)
        if page is not None and text in page:
            return page
        time.sleep(0.3)
    raise AssertionError(f"{text!r} did not appear at {url} within {HANG_SECONDS:g} s")


@pytest.mark.slow
def test_mkdocs_serve_regenerates_when_a_manifest_or_the_registry_changes(project: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    docs_before = files_under(project / "docs")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        base = f"http://127.0.0.1:{port}/reference/"
        wait_for_text(base + "npu/", "Never")
        manifest = project / "capabilities" / "npu.yaml"
        manifest.write_text(manifest.read_text().replace("reason: Never", "reason: Gone for good"))
        wait_for_text(base + "npu/", "Gone for good")
        registry = project / "hostile_cli.py"
        registry.write_text(registry.read_text().replace("A long flag.", "A longer flag."))
        wait_for_text(base + "server_arguments/", "A longer flag.")
    finally:
        server.terminate()
        server.wait(timeout=HANG_SECONDS)
    assert files_under(project / "docs") == docs_before


def watched_by_serve(config: Path) -> set[str]:
    plugin = ArgmatrixPlugin()
    plugin.config_path = config
    plugin.project = plugin._load()
    server = FakeServer()
    plugin.on_serve(server, config=None, builder=lambda: None)  # type: ignore[arg-type]
    return set(server.watched)


def test_serve_watches_the_registry_file_of_each_mode(tmp_path: Path) -> None:
    """A snapshot: the snapshot; a registry imported live: its target's module (what else it
    imported is not known, and may be a whole installed environment)."""
    config = tmp_path / "argmatrix.yaml"
    config.write_text("registry: argmatrix.cli.main:build_parser\ndocs_dir: docs\npages: []\n")
    assert watched_by_serve(config) == {str(config), str(Path(cli_main.__file__).resolve())}
    registry = load_registry(RegistrySpec("argmatrix.cli.main:build_parser"))
    (tmp_path / "snap.json").write_text(snapshot_text(registry))
    config.write_text("registry: snap.json\ndocs_dir: docs\npages: []\n")
    assert watched_by_serve(config) == {str(config), str(tmp_path / "snap.json")}


# ------------------------------------------------------------------ directives


def fake_table(attrs: dict[str, str], line: int) -> str:
    return f"| {attrs.get('section')} | {line} |\n| --- | --- |"


def test_expand_directives_keeps_indentation_and_blank_lines_around_tables() -> None:
    text = 'intro\n    <!-- argmatrix section="LoRA" platform="ascend" -->\nafter'
    assert expand_directives(text, fake_table) == (
        "intro\n\n    | LoRA | 2 |\n    | --- | --- |\n\nafter"
    )


def test_expand_directives_skips_fenced_code_of_any_fence() -> None:
    directive = '<!-- argmatrix section="X" -->'
    text = "\n".join(
        ["````md", "```", directive, "```", directive, "````", "~~~", directive, "~~~", directive]
    )
    out = expand_directives(text, fake_table).split("\n")
    assert out.count(directive) == 3
    assert "| X | 10 |" in out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Example:\n\n    {d}\n\n{d}", 1),  # indented code after a blank line, then a directive
        ("Example:\n\n\t{d}\n\n        {d}\n", 2),  # a tab is four columns; code goes on
        ("- item\n\n    {d}\n", 0),  # a list item's content
        ("1. item\n\n        {d}\n", 1),  # four past the item's content: code in the item
        ("!!! note\n\n    {d}\n", 0),  # an admonition's content
        ("text\n    {d}\n", 0),  # a paragraph goes on: no code block
        ("- item\n\n{d}\n\n    {d}\n", 1),  # the list ended: the next indented one is code
    ],
)
def test_expand_directives_skips_indented_code(text: str, kept: int) -> None:
    directive = '<!-- argmatrix section="X" -->'
    out = expand_directives(text.format(d=directive), fake_table).split("\n")
    assert sum(directive in line for line in out) == kept, out


def test_expand_directives_counts_lines_from_the_source_file() -> None:
    assert "| X | 13 |" in expand_directives(
        'a\n<!-- argmatrix section="X" -->', fake_table, offset=11
    )


def test_a_directive_with_unreadable_attributes_is_an_error_with_its_line() -> None:
    with pytest.raises(ArgmatrixError) as caught:
        expand_directives("a\n\n<!-- argmatrix section=LoRA -->", fake_table, "docs/t.md")
    assert str(caught.value.problems[0]).startswith("docs/t.md:3: cannot read")


def test_plugin_errors_become_plugin_errors_with_every_problem(project: Path) -> None:
    plugin = ArgmatrixPlugin()
    plugin.config_path = project / "argmatrix.yaml"
    plugin.project = plugin._load()
    needs_section = r"guide\.md:4: an argmatrix directive needs a section"
    with pytest.raises(PluginError, match=needs_section), plugin_errors():
        plugin._table({"platform": "npu"}, "guide.md", 4)


# ------------------------------------------------------------------ schema tables


def test_the_manifest_schema_table_lists_every_key() -> None:
    table = schema_table(MANIFEST_SCHEMA)
    for key in TOP_KEYS:
        assert f"| `{key}` |" in table
    for key in ENTRY_KEYS:
        assert f"| `arguments.<flag>.{key}` |" in table
    for key in SECTION_ENTRY_KEYS:
        assert f"| `sections.<section>.{key}` |" in table
    assert "| `platform` | string | yes |" in table


def test_the_config_schema_table_lists_every_key() -> None:
    table = schema_table(CONFIG_SCHEMA)
    for key in CONFIG_SCHEMA["properties"]["pages"]["items"]["properties"]:
        assert f"| `pages[].{key}` |" in table
    for key in CONFIG_SCHEMA["properties"]["registry"]["properties"]:
        assert f"| `registry.{key}` |" in table


def test_the_plugin_expands_a_page_directive_through_the_shared_path(project: Path) -> None:
    """A stub page for Zensical (a page directive alone) reads the same under MkDocs."""
    plugin = ArgmatrixPlugin()
    plugin.config_path = project / "argmatrix.yaml"
    plugin.project = plugin._load()
    text = plugin._directives().expand('\n<!-- argmatrix page="reference/npu.md" -->\n', "stub.md")
    generated = {page.spec.output: page.text for page in plugin.project.pages()}
    assert text == generated["reference/npu.md"]
    with pytest.raises(ArgmatrixError, match=r"stub\.md:1: a page directive must be alone"):
        plugin._directives().expand('# Stub\n<!-- argmatrix page="reference/npu.md" -->', "stub.md")
