"""Diagnostics of a registry reach whoever can act on them, and only those (issue 21, item 11).

tests/fixtures/registries/kept_source.py has a help text static reading keeps as source text
(lmdeploy's `--tool-call-parser`: it reaches the page) and a keyword argparse does not know,
`bind_to=`, kept as source text for two arguments (RTP-LLM's: no page shows it). The command line
says the first and not the second (`--verbose` says both; so does a project whose
`environment: {keyword: bind_to}` shows that keyword); the Sphinx extension, the MkDocs plugin and
the Python-Markdown extension log the first as their engine's warning, so a strict build fails.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from e2e.site import build_site
from helpers import REGISTRIES, Run, run_cli_in_process

SOURCE = REGISTRIES / "kept_source.py"
HELP = "--tool-parser: help kept as source text"
BIND_TO = "bind_to kept as source text"
CONFIG = (
    "registry:\n  target: kept_source:build_parser\n  mode: static\ndocs_dir: docs\n"
    "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n"
)


def write_project(root: Path, extra: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCE, root / "kept_source.py")
    (root / "argmatrix.yaml").write_text(CONFIG + extra, encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["generate", "check", "export"])
def test_the_command_line_says_only_what_reaches_an_output(tmp_path: Path, command: str) -> None:
    result = run_cli_in_process(command, cwd=write_project(tmp_path / "p"))
    said = result.out if command == "check" else result.err  # check: one of its findings
    assert HELP in said and "say it in words in argmatrix.yaml: 'computed:" in said
    assert BIND_TO not in said


def test_check_counts_the_warnings_and_annotates_them(tmp_path: Path) -> None:
    """check reports a registry's warning once, as a finding: in its summary, as a GitHub
    annotation, in JSON, with the setting that answers it; never also on stderr."""
    root = write_project(tmp_path / "p")
    assert run_cli_in_process("generate", cwd=root).code == 0
    text = run_cli_in_process("check", cwd=root)
    assert text.code == 0 and text.err == "", text.err
    warned = [line for line in text.out.splitlines() if "registry-warning" in line]
    assert len(warned) == 1 and HELP in warned[0] and warned[0].startswith("kept_source.py:")
    assert text.out.splitlines()[-1] == "argmatrix check: 0 error(s), 1 warning(s)"
    github = run_cli_in_process("check", "--format", "github", cwd=root)
    (annotation,) = github.out.splitlines()
    assert annotation.startswith("::warning file=kept_source.py,line=")
    assert "title=argmatrix registry-warning::" in annotation and HELP in annotation
    found = json.loads(run_cli_in_process("check", "--format", "json", cwd=root).out)
    assert [(f["kind"], f["severity"], f["file"]) for f in found] == [
        ("registry-warning", "warning", "kept_source.py")
    ]
    assert "computed: {--tool-parser: {help: ...}}" in found[0]["fix"]
    answered = write_project(
        tmp_path / "q", "computed: {--tool-parser: {help: Chosen when the server starts.}}\n"
    )
    assert run_cli_in_process("generate", cwd=answered).code == 0
    quiet = run_cli_in_process("check", cwd=answered)
    assert quiet.out == "argmatrix check: everything agrees\n" and quiet.err == ""


def test_verbose_says_every_diagnostic(tmp_path: Path) -> None:
    result = run_cli_in_process("generate", "--verbose", cwd=write_project(tmp_path / "p"))
    assert HELP in result.err
    assert "--port and 1 other arguments: bind_to kept as source text" in result.err


def test_a_keyword_a_page_shows_is_said(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", "environment: {keyword: bind_to}\n")
    result = run_cli_in_process("generate", cwd=root)
    assert HELP in result.err
    assert BIND_TO in result.err


def test_the_snapshot_keeps_what_a_diagnostic_is_about(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    result = run_cli_in_process("snapshot", "-o", "snap.json", cwd=root)
    assert result.code == 0, result.err
    assert '"attribute": "bind_to"' in (root / "snap.json").read_text(encoding="utf-8")


@pytest.mark.engine  # a MkDocs build
def test_mkdocs_strict_fails_on_a_value_kept_as_source_text(tmp_path: Path) -> None:
    root = write_project(tmp_path / "site")
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: kept\nplugins:\n  - argmatrix\n", encoding="utf-8")
    build = build_site(root / "mkdocs.yml", tmp_path / "out", strict=True)
    assert build.code != 0
    assert HELP in build.output and BIND_TO not in build.output


@pytest.mark.engine  # a MkDocs build running the Python-Markdown extension
def test_the_markdown_extension_warns_under_mkdocs_strict(tmp_path: Path) -> None:
    root = write_project(tmp_path / "site")
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text(
        '# Home\n\n<!-- argmatrix section="options" -->\n', encoding="utf-8"
    )
    (root / "mkdocs.yml").write_text(
        "site_name: kept\nmarkdown_extensions:\n  - tables\n  - argmatrix:\n"
        "      config_file: argmatrix.yaml\n",
        encoding="utf-8",
    )
    build = build_site(root / "mkdocs.yml", tmp_path / "out", strict=True)
    assert build.code != 0, build.output
    assert HELP in build.output and BIND_TO not in build.output


@pytest.mark.engine  # a Sphinx build
def test_sphinx_w_fails_on_a_value_kept_as_source_text(tmp_path: Path) -> None:
    from test_sphinx_build import sphinx_build

    root = write_project(tmp_path / "project")
    config = root / "argmatrix.yaml"
    config.write_text(
        CONFIG.replace(
            "server_arguments.md.j2, output: args.md",
            "server_arguments.myst.j2, output: args.md, format: myst",
        ),
        encoding="utf-8",
    )
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'project = "kept"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\nexclude_patterns = ["_build"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text("# kept\n\n```{toctree}\nargs\n```\n", encoding="utf-8")
    result = sphinx_build(docs, tmp_path / "html")
    assert result.returncode != 0
    assert HELP in result.stderr and BIND_TO not in result.stderr
    # said at the generated page that shows the argument
    assert f"{docs / 'args.md'}: WARNING: argmatrix: " in result.stderr, result.stderr
    (docs / "conf.py").write_text(
        (docs / "conf.py").read_text() + 'suppress_warnings = ["argmatrix.registry"]\n',
        encoding="utf-8",
    )
    assert sphinx_build(docs, tmp_path / "html2").returncode == 0


# ------------------------------------------------------------------ source text on a page (item 12)


def row_of(root: Path, flag: str) -> str:
    page = (root / "docs" / "args.md").read_text(encoding="utf-8")
    return next(line for line in page.splitlines() if line.startswith(f"| `{flag}`"))


def test_a_help_kept_as_source_text_is_marked_as_computed(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    assert run_cli_in_process("generate", cwd=root).code == 0
    assert row_of(root, "--tool-parser").startswith(
        "| `--tool-parser` `TOOL_PARSER` | Computed when the server starts:"
        " `f\"One of {os.listdir('.')}.\"` |"
    )


def test_the_configuration_gives_the_text_and_the_diagnostic_is_not_said(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        "computed:\n  --tool-parser: {help: 'A *parser* of `tools`.', choices: the installed ones,"
        " default: auto at start-up}\n"
        "computed_defaults:\n  --host: the machine's name\n",
    )
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    assert HELP not in result.err
    assert row_of(root, "--tool-parser") == (
        "| `--tool-parser` `TOOL_PARSER` | A \\*parser\\* of `tools`. | auto at start-up"
        " | the installed ones |"
    )
    assert "| the machine's name |" in row_of(root, "--host")  # computed_defaults still works
    assert HELP in run_cli_in_process("generate", "--verbose", cwd=root).err


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("computed: [--tool-parser]", "'computed' must map a flag to its texts"),
        ("computed: {--tool-parser: text}", "must map help, choices or default to a text"),
        ("computed: {--tool-parser: {help: 3}}", "computed: --tool-parser: help must be a text"),
        ("computed: {--tool-parser: {colour: x}}", "unknown key 'colour'"),
        ("computed: {--nope: {help: x}}", "computed: '--nope' is not an argument of the registry"),
    ],
)
def test_a_bad_computed_entry_is_one_located_line(tmp_path: Path, entry: str, says: str) -> None:
    root = write_project(tmp_path / "p", entry + "\n")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 2
    [line] = [n for n in result.err.splitlines() if "error:" in n]
    assert says in line and f"argmatrix.yaml:{CONFIG.count(chr(10)) + 1}:" in line, line
    assert not (root / "docs").exists()


TARGET = "kept_source:build_parser"
COMMANDS = {
    "generate": ("generate",),
    "check": ("check",),
    "export": ("export",),
    "snapshot": ("snapshot", "-o", "snap.json"),
    "audit": ("audit", "docs/args.md"),
    "import": ("import", "docs/args.md", "--platform", "x", "-o", "x.yaml"),
    # the commands naming their registries themselves: the configured target, or a snapshot
    # written of it
    "diff-targets": ("diff", "--static", TARGET, TARGET),
    "diff-snapshots": ("diff", "snap.json", "snap.json"),
    "history": ("history", "--target", TARGET, "--release", "1=snap.json", "--release", "2=."),
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_every_command_says_the_same_warnings(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A value kept as source text is said by every command alike, and by none once the
    configuration answers it (`computed:`)."""
    root = write_project(tmp_path / "p")
    assert run_cli_in_process("generate", cwd=root).code == 0
    _snapshot(root)

    def told(run: Run) -> str:  # what the user reads: check's findings, else stderr
        return run.out if command[0] == "check" else run.err

    said = told(run_cli_in_process(*command, cwd=root))
    assert said.count(HELP) == 1 and BIND_TO not in said, said
    answered = write_project(
        tmp_path / "q", "computed: {--tool-parser: {help: Chosen when the server starts.}}\n"
    )
    assert run_cli_in_process("generate", cwd=answered).code == 0
    _snapshot(answered)
    quiet = told(run_cli_in_process(*command, cwd=answered))
    assert "kept as source text" not in quiet, quiet


def _snapshot(root: Path) -> None:
    """The snapshot `diff` and `history` read (the baseline a release writes)."""
    made = run_cli_in_process("snapshot", "-o", "snap.json", cwd=root)
    assert made.code == 0, made.err


def test_diff_takes_the_answers_for_the_configured_registry_only(tmp_path: Path) -> None:
    """`computed:` answers the configured registry's warning: `diff` of another target (the
    same source under another name) still says it, and so does `--no-config`, as `export
    --registry` of another target does."""
    root = write_project(
        tmp_path / "q", "computed: {--tool-parser: {help: Chosen when the server starts.}}\n"
    )
    shutil.copy(SOURCE, root / "other_source.py")
    other = "other_source:build_parser"
    said = run_cli_in_process("diff", "--static", other, other, cwd=root)
    assert said.code == 0 and said.err.count(HELP) == 1, said.err
    exported = run_cli_in_process("export", "--registry", other, "--static", cwd=root)
    assert exported.err == said.err
    unread = run_cli_in_process("diff", "--no-config", "--static", TARGET, TARGET, cwd=root)
    assert unread.err.count(HELP) == 1, unread.err
    quiet = run_cli_in_process("diff", "--static", TARGET, TARGET, cwd=root)
    assert quiet.err == "", quiet.err


def test_a_configured_snapshot_named_from_a_subfolder_keeps_its_answers(tmp_path: Path) -> None:
    """The configuration reads a snapshot whose warning `computed:` answers: named by any path
    to it (`../snap.json` from `docs/`), it is the configured registry, and nothing is said."""
    root = write_project(
        tmp_path / "q", "computed: {--tool-parser: {help: Chosen when the server starts.}}\n"
    )
    _snapshot(root)
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "  target: kept_source:build_parser\n  mode: static\n", "  target: snap.json\n"
        ),
        encoding="utf-8",
    )
    (root / "docs").mkdir()
    (root / ".git").mkdir()  # the project without its configuration (--no-config) is the repository
    for command in (
        ("export", "--registry", "../snap.json"),
        ("diff", "../snap.json", "../snap.json"),
    ):
        run = run_cli_in_process(*command, cwd=root / "docs")
        assert (run.code, run.err) == (0, ""), command
    other = run_cli_in_process(
        "diff", "--no-config", "../snap.json", "../snap.json", cwd=root / "docs"
    )
    assert other.err.count(HELP) == 1 and "../kept_source.py:" in other.err, other.err
