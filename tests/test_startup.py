"""What a command imports: start-up is most of a warm run, so a command loads only what it uses.

A `check` whose inputs are all in the cache reads no YAML, compiles no template and reads no
source; `export` renders nothing; the command line alone loads none of them. Each run is a
fresh interpreter, as a user's is.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from argmatrix.cli.main import build_parser, command_named
from helpers import copy_project, loaded, run_cli_in_process, run_snippet

_RUN = """
import json, sys
from argmatrix.cli.main import main
try:
    code = main(sys.argv[1:]) if sys.argv[1:] else 0
except SystemExit as exit_:  # --help
    code = exit_.code or 0
print(json.dumps([code, sorted(sys.modules)]))
"""

# Libraries and parts of argmatrix that a run whose every input is cached never needs.
HEAVY = (
    "yaml",
    "jinja2",
    "markdown_it",
    "html.parser",
    "argmatrix._runtime.yamlparse",
    "argmatrix.loaders.static",
    "argmatrix.pagetables",
    "argmatrix.render.views",
    "argmatrix.render.environment",
    "argmatrix.checks.fix",
    # the frameworks' converters: a registry from the cache is the model already
    "argmatrix.loaders.clicks",
    "argmatrix.loaders.convert",
    "argmatrix.loaders.sections",
)


def _modules(root: Path, cache: Path, *argv: str) -> tuple[int, set[str]]:
    code, modules = run_snippet(_RUN, *argv, cwd=root, cache=cache)
    return code, set(modules)


def test_a_warm_check_loads_no_parser_renderer_or_page_reader(tmp_path: Path) -> None:
    root, cache = copy_project(tmp_path), tmp_path / "cache"
    code, cold = _modules(root, cache, "generate")
    assert code == 0
    assert {"yaml", "jinja2", "argmatrix.loaders.static.reader"} <= cold  # the first run reads
    code, warm = _modules(root, cache, "check")
    assert code == 0
    assert loaded(warm, HEAVY) == []


@pytest.mark.slow
def test_an_edited_configuration_is_read_again(tmp_path: Path) -> None:
    """The configuration comes from the cache only while its content is the same."""
    root, cache = copy_project(tmp_path), tmp_path / "cache"
    assert _modules(root, cache, "generate")[0] == 0
    assert _modules(root, cache, "check")[0] == 0
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "output: reference/npu_variants.md", "output: reference/npu_variants.md\n    title: New"
        )
    )
    code, modules = _modules(root, cache, "check")
    assert "yaml" in modules
    assert code == 1  # the page's new title: the page on disk is stale


def test_export_renders_nothing(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    code, modules = _modules(root, tmp_path / "cache", "export")
    assert code == 0
    assert loaded(modules, ("jinja2", "argmatrix.render.environment", "argmatrix.pagetables")) == []


def test_the_command_line_alone_loads_none_of_them(tmp_path: Path) -> None:
    code, modules = _modules(tmp_path, tmp_path / "cache")
    assert code == 0
    assert loaded(modules, HEAVY) == []


@pytest.mark.parametrize("argv", [("--help",), ("check", "--help"), ("export", "--help")])
def test_help_loads_no_project(tmp_path: Path, argv: tuple[str, ...]) -> None:
    code, modules = _modules(tmp_path, tmp_path / "cache", *argv)
    assert code == 0
    core = ("argmatrix.project", "argmatrix.config", "argmatrix.loaders", "argmatrix.manifests")
    assert loaded(modules, core) == []


def test_export_loads_no_check(tmp_path: Path) -> None:
    """A run builds the options of its own command only: `export` loads nothing of `check`'s
    (its output formats, the writers' lock) nor the writers of temporary files."""
    code, modules = _modules(copy_project(tmp_path), tmp_path / "cache", "export")
    assert code == 0
    assert loaded(modules, ("argmatrix.checks", "argmatrix._runtime.writer", "tempfile")) == []


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The parser's help and every command's, by command name ("" for the parser's)."""
    commands = next(a for a in parser._actions if isinstance(a.choices, dict))
    helps = {name: sub.format_help() for name, sub in commands.choices.items()}
    return {"": parser.format_help(), **helps}


def test_a_run_parses_with_what_the_whole_parser_says() -> None:
    """The parser a run builds (its command's options only) helps and errs as the whole one:
    `argmatrix --help` lists every command, `argmatrix NAME --help` is the same text."""
    whole = _helps(build_parser())
    for name in [n for n in whole if n]:
        built = build_parser(only=name)
        assert _helps(built)[""] == whole[""]
        assert _helps(built)[name] == whole[name]
    listed = build_parser(only="")
    assert list(_helps(listed)) == list(whole)
    assert _helps(listed)[""] == whole[""]


# ------------------------------------------------------------------ pages that are build outputs


def _build_outputs_only(root: Path, prose: str = "guide/*.md") -> None:
    """Every page of the fixture project made a build output (`committed: false`), as the
    showcase's are, with hand-written prose checked."""
    config = root / "argmatrix.yaml"
    text = config.read_text().replace("md}", "md, committed: false}")
    text = text.replace("platform: npu}", "platform: npu, committed: false}")
    text = text.replace(
        "options: {layout: variants}", "options: {layout: variants}\n    committed: false"
    )
    config.write_text(text + f'checks:\n  prose: ["{prose}"]\n')


def test_a_check_that_compares_no_page_renders_none(tmp_path: Path) -> None:
    """Pages that are build outputs are never compared: a cold `check` loads no template."""
    root = copy_project(tmp_path)
    _build_outputs_only(root)
    code, modules = _modules(root, tmp_path / "cache", "check")
    assert code == 0
    assert (
        loaded(modules, ("jinja2", "argmatrix.render.environment", "argmatrix.render.views")) == []
    )


def test_a_build_output_on_disk_is_still_no_prose(tmp_path: Path) -> None:
    """Not rendered, a build output is still known as generated: its flags are not prose."""
    root = copy_project(tmp_path)
    _build_outputs_only(root, prose="**/*.md")
    page = root / "docs" / "reference" / "npu.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text("Built from an older registry: --gone-flag\n")
    (root / "docs" / "guide" / "tuning.md").write_text("Use --another-gone-flag.\n")
    done = run_cli_in_process("check", "--format", "json", cwd=root)
    flags = [finding["flag"] for finding in json.loads(done.out)]
    assert (done.code, flags) == (1, ["--another-gone-flag"])


def test_where_a_build_output_goes_is_checked_without_rendering_it(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    _build_outputs_only(root)
    (root / "docs" / "reference").symlink_to(root / "capabilities")
    config = root / "argmatrix.yaml"
    config.write_text(config.read_text().replace("reference/npu.md", "reference/npu.yaml"))
    done = run_cli_in_process("check", cwd=root)
    assert done.code == 2
    assert "page output 'reference/npu.yaml' resolves to" in done.err
    assert "outside docs_dir (a symbolic link leads there)" in done.err


def test_the_command_is_the_first_word_that_is_no_option() -> None:
    """What `command_named` relies on to build the right command's parser: no option of
    `argmatrix` itself takes a value (`argmatrix --opt VALUE check` would name VALUE)."""
    parser = build_parser()
    options = [action for action in parser._actions if action.option_strings]
    assert options and all(action.nargs == 0 for action in options)
    assert command_named(["--version"]) == ""
    assert command_named(["-h", "check", "--fix"]) == "check"
