"""The coverage check of hand-maintained pages (`checks.coverage`), on the hand-maintained
variant of the Mintlify project (tests/fixtures/mintlify/hand-maintained): an `.mdx` page of JSX
tables with four cells a row, and the same reference as a Markdown page of pipe tables, both
covering a small SGLang-style registry (aliases, a custom deprecated action, `deprecated=True`,
a hidden argument) with an allowlist of two flags.

Each test mutates a copy (the registry's source, a page, argmatrix.yaml) and reads what
`argmatrix check` says: a new flag, a stale allowlist entry, a removed or renamed flag, a
misshapen row; `--fix` shrinking the allowlists byte for byte; the JSON and GitHub formats.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from argmatrix._runtime.yamlfile import load_yaml_text
from argmatrix.pagetables import FLAG_TOKEN, read_tables
from argmatrix.schema import CONFIG_SCHEMA, FINDINGS_SCHEMA
from helpers import FIXTURES, Run, line_of, one_error_line, replace_in, run_cli_in_process

HAND = FIXTURES / "mintlify" / "hand-maintained"
MDX_PAGE = Path("docs/advanced_features/server_arguments.mdx")
MD_PAGE = Path("docs/reference/server_arguments.md")
REGISTRY = Path("registry/launch_args.py")
CONFIG = Path("argmatrix.yaml")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "hand"
    shutil.copytree(HAND, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def check(root: Path, *args: str) -> Run:
    return run_cli_in_process("check", *args, cwd=root)


def findings(root: Path) -> list[dict[str, Any]]:
    """The findings of `check --format json`, checked against the published schema."""
    result = check(root, "--format", "json")
    assert result.code in (0, 1), result.err
    items: list[dict[str, Any]] = json.loads(result.out)
    jsonschema.validate(items, FINDINGS_SCHEMA)
    assert result.code == (1 if items else 0)
    return items


def where(item: dict[str, Any]) -> tuple[str, str, int]:
    """A finding as (kind, file relative to the project, line)."""
    return item["kind"], Path(item["file"]).name, item["line"]


def mdx_row(root: Path, flag: str) -> int:
    """The line of the `<tr>` of the .mdx page's row of `flag` (its first cell is the next)."""
    return line_of(root / MDX_PAGE, f"<td>`{flag}`") - 1


def add_flag(root: Path, line: str) -> None:
    """Add an argument to the registry's source, after --log-level."""
    anchor = '        parser.add_argument("--log-level", default="info", help="Logging level.")\n'
    replace_in(root / REGISTRY, anchor, anchor + f"        {line}\n")


# ------------------------------------------------------------------ the fixture agrees


def test_the_hand_maintained_pages_cover_the_registry(root: Path) -> None:
    result = check(root)
    assert (result.code, result.out) == (0, "argmatrix check: everything agrees\n"), result.out
    assert CONFIG_SCHEMA["properties"]["checks"]["properties"]["coverage"]
    jsonschema.validate(
        load_yaml_text((root / CONFIG).read_text(), "argmatrix.yaml"), CONFIG_SCHEMA
    )


# ------------------------------------------------------------------ each failure


def test_a_new_flag_without_a_row_fails_on_each_page_at_the_row_before_it(root: Path) -> None:
    add_flag(root, 'parser.add_argument("--enable-lora", action="store_true", help="LoRA.")')
    found = findings(root)
    assert [where(f) for f in found] == [
        ("undocumented-flag", MDX_PAGE.name, mdx_row(root, "--log-level")),
        ("undocumented-flag", MD_PAGE.name, line_of(root / MD_PAGE, "| `--log-level` |")),
    ]
    assert {f["flag"] for f in found} == {"--enable-lora"}
    assert found[0]["fix"] == (
        "add a row for it after the row of --log-level, or list it under allow_undocumented"
        " at argmatrix.yaml:14"
    )
    assert "allow_undocumented at argmatrix.yaml:19" in found[1]["fix"]


def test_an_allow_listed_flag_that_is_documented_now_is_a_stale_entry(root: Path) -> None:
    row = "    <tr>\n      <td>`--host`</td>"
    documented = row.replace("--host", "--debug-dump-folder", 1)
    replace_in(
        root / MDX_PAGE,
        row,
        documented + "\n      <td>Dumps.</td>\n      <td></td>\n      <td></td>\n    </tr>\n" + row,
    )
    found = findings(root)
    assert [where(f) for f in found] == [
        ("stale-allowlist-entry", "argmatrix.yaml", line_of(root / CONFIG, "- --debug-dump-folder"))
    ]
    row_line = mdx_row(root, "--debug-dump-folder")
    assert f"but advanced_features/server_arguments.mdx:{row_line} has a row" in found[0]["message"]
    assert "argmatrix check --fix" in found[0]["fix"]


def test_a_removed_flag_leaves_its_rows_and_its_allowlist_entries_stale(root: Path) -> None:
    replace_in(root / REGISTRY, '"--port", type=int', '"--listen-port", type=int')
    replace_in(root / REGISTRY, '"--enable-nan-detection"', '"--enable-nan-detections"')
    found = findings(root)
    port_rows = [
        ("unregistered-row", MDX_PAGE.name, mdx_row(root, "--port")),
        ("unregistered-row", MD_PAGE.name, line_of(root / MD_PAGE, "| `--port` |")),
    ]
    assert [where(f) for f in found if f["kind"] == "unregistered-row"] == port_rows
    # --port and --listen-port are not alike enough for a guess.
    assert {f["fix"] for f in found if f["kind"] == "unregistered-row"} == {
        "remove it, or write the flag that replaced it"
    }
    assert [f["flag"] for f in found if f["kind"] == "undocumented-flag"] == [
        "--listen-port",
        "--enable-nan-detections",
    ] * 2
    stale = [f for f in found if f["kind"] == "stale-allowlist-entry"]
    assert [(f["flag"], f["line"]) for f in stale] == [
        ("--enable-nan-detection", line_of(root / CONFIG, "- --enable-nan-detection")),
        ("--enable-nan-detection", line_of(root / CONFIG, "[--debug-dump-folder, --enable-")),
    ]
    assert stale[0]["fix"].startswith("did you mean --enable-nan-detections? Otherwise remove it")


def test_a_renamed_flag_gets_a_did_you_mean_only_when_close(root: Path) -> None:
    replace_in(root / REGISTRY, '"--log-level", default', '"--log-levels", default')
    found = [f for f in findings(root) if f["kind"] == "unregistered-row"]
    assert [(f["flag"], f["fix"]) for f in found] == [
        ("--log-level", "did you mean --log-levels?")
    ] * 2


def test_a_row_with_a_cell_too_many_or_too_few_is_misshapen(root: Path) -> None:
    replace_in(root / MDX_PAGE, "<td>Type: int</td>", "<td>Type: int</td>\n      <td>x</td>")
    replace_in(root / MD_PAGE, "| `--host` | The address", "| `--host` | The | address")
    replace_in(root / MD_PAGE, "| `--port` | The port to listen on. | `30000` |", "| `--port` |")
    found = findings(root)
    assert [(*where(f), f["message"]) for f in found] == [
        (
            "misshapen-row",
            MDX_PAGE.name,
            mdx_row(root, "--port"),
            "the row of --port has 5 cells; the page's 'columns:' says 4",
        ),
        (
            "misshapen-row",
            MD_PAGE.name,
            line_of(root / MD_PAGE, "| `--host` |"),
            "the row of --host has 5 cells; its table's header says 4",
        ),
        (
            "misshapen-row",
            MD_PAGE.name,
            line_of(root / MD_PAGE, "| `--port` |"),
            "the row of --port has 2 cells; its table's header says 4",
        ),
    ]


def test_deprecated_and_hidden_arguments_need_no_row_nor_an_allowlist_entry(root: Path) -> None:
    """--disable-radix-tree (a Deprecated* action) has a row; --max-num-seqs (deprecated=True)
    and --rank-hint (hidden) have none: all agree. Dropping the row still agrees; listing them
    is a stale entry, since it holds nothing back."""
    text = (root / MDX_PAGE).read_text()
    start = text.index("    <tr>\n      <td>`--disable-radix-tree`</td>")
    end = text.index("</tr>\n", start) + len("</tr>\n")
    (root / MDX_PAGE).write_text(text[:start] + text[end:])
    assert findings(root) == []
    replace_in(
        root / CONFIG, "[--debug-dump-folder,", "[--max-num-seqs, --rank-hint, --debug-dump-folder,"
    )
    found = findings(root)
    assert [(f["flag"], f["message"].split(",")[0]) for f in found] == [
        ("--max-num-seqs", "--max-num-seqs is deprecated"),
        ("--rank-hint", "--rank-hint is hidden from --help"),
    ]


def test_any_alias_covers_an_argument_on_a_page_and_on_the_allowlist(root: Path) -> None:
    replace_in(root / MDX_PAGE, "<td>`--tp-size`</td>", "<td>`--tensor-parallel-size`</td>")
    replace_in(root / MDX_PAGE, "<td>`--model-path`<br />`--model`</td>", "<td>`--model`</td>")
    assert findings(root) == []
    replace_in(root / MD_PAGE, "| `--tensor-parallel-size` |", "| `--tensor-parallel-sizes` |")
    found = findings(root)
    assert [(f["kind"], f["flag"]) for f in found] == [
        ("unregistered-row", "--tensor-parallel-sizes"),
        ("undocumented-flag", "--tp-size"),
    ]
    # The row of --tp-size now names --debug-dump-folder: its values are the wrong argument's
    # (the value comparisons say so: tests/test_coverage_values.py); its flags are the point here.
    replace_in(root / MD_PAGE, "| `--tensor-parallel-sizes` |", "| `--debug-dump-folder` |")
    replace_in(root / CONFIG, "[--debug-dump-folder, ", "[--tensor-parallel-size, ")
    values = ("wrong-default", "wrong-options", "wrong-type")
    assert [f for f in findings(root) if f["kind"] not in values] == []
    replace_in(root / CONFIG, "[--tensor-parallel-size, ", "[--tensor-parallel-size, --tp-size, ")
    assert [f["message"] for f in findings(root) if f["kind"] not in values] == [
        "--tp-size is allow-listed twice for reference/server_arguments.md (as"
        " --tensor-parallel-size)"
    ]


def test_a_flag_in_a_code_block_or_an_mdx_comment_is_no_row(root: Path) -> None:
    """The .md page holds a two-cell '| `--port` |' line in a fence, the .mdx page a row of
    --speculative-algorithm in a comment: neither is read (or the check would fail)."""
    assert "--speculative-algorithm" in (root / MDX_PAGE).read_text()
    assert "| `--port` | a table in a code block" in (root / MD_PAGE).read_text()
    assert findings(root) == []


# ------------------------------------------------------------------ check --fix

SHRUNK = """\
    - page: advanced_features/server_arguments.mdx
      columns: 4
      # Undocumented on purpose; this list may only shrink.
      allow_undocumented:
        - --enable-nan-detection
    # The same reference as a Markdown page of pipe tables; each row as wide as its header.
    - page: reference/server_arguments.md
      allow_undocumented: [--enable-nan-detection]
"""


def test_fix_removes_stale_entries_and_keeps_every_other_byte(root: Path) -> None:
    replace_in(root / REGISTRY, '"--debug-dump-folder"', '"--debug-dump-dir"')
    replace_in(root / MDX_PAGE, "<td>`--host`</td>", "<td>`--host`<br />`--debug-dump-dir`</td>")
    replace_in(root / MD_PAGE, "| `--host` |", "| `--host`<br>`--debug-dump-dir` |")
    before = (root / CONFIG).read_text()
    assert check(root).code == 1
    result = check(root, "--fix")
    assert result.code == 0, result.out
    assert "removed --debug-dump-folder, --debug-dump-folder from allow_undocumented" in result.err
    after = (root / CONFIG).read_text()
    assert after == before[: before.index("    - page: advanced")] + SHRUNK
    assert check(root).code == 0


def test_fix_empties_a_list_and_keeps_crlf_line_endings(root: Path) -> None:
    replace_in(root / REGISTRY, '"--debug-dump-folder"', '"--debug-dump-dir"')
    replace_in(root / REGISTRY, '"--enable-nan-detection"', '"--enable-nan-checks"')
    for name in ("--debug-dump-dir", "--enable-nan-checks"):
        replace_in(root / MDX_PAGE, "<td>`--host`", f"<td>`--host`<br />`{name}`")
        replace_in(root / MD_PAGE, "| `--host`", f"| `--host`<br>`{name}`")
    text = (root / CONFIG).read_text().replace("\n", "\r\n")
    (root / CONFIG).write_bytes(text.encode())
    assert check(root, "--fix").code == 0
    after = (root / CONFIG).read_bytes().decode()
    expected = (
        text.replace("        - --debug-dump-folder  # a developer's switch\r\n", "")
        .replace("        - --enable-nan-detection\r\n", "")
        .replace("[--debug-dump-folder, --enable-nan-detection]", "[]")
    )
    assert after == expected


def test_fix_never_adds_an_entry_and_leaves_a_silenced_kind_alone(root: Path) -> None:
    add_flag(root, 'parser.add_argument("--enable-lora", action="store_true", help="LoRA.")')
    before = (root / CONFIG).read_text()
    assert check(root, "--fix").code == 1
    assert (root / CONFIG).read_text() == before
    replace_in(root / REGISTRY, '"--debug-dump-folder"', '"--debug-dump-dir"')
    replace_in(root / CONFIG, "checks:\n", "checks:\n  severity: {stale-allowlist-entry: off}\n")
    before = (root / CONFIG).read_text()
    check(root, "--fix")
    assert (root / CONFIG).read_text() == before


def test_fix_leaves_a_list_two_pages_share_through_an_alias(root: Path) -> None:
    replace_in(root / CONFIG, "allow_undocumented:\n", "allow_undocumented: &shared\n")
    replace_in(
        root / CONFIG,
        "allow_undocumented: [--debug-dump-folder, --enable-nan-detection]",
        "allow_undocumented: *shared",
    )
    replace_in(root / REGISTRY, '"--debug-dump-folder"', '"--debug-dump-dir"')
    replace_in(root / MDX_PAGE, "<td>`--host`", "<td>`--host`<br />`--debug-dump-dir`")
    replace_in(root / MD_PAGE, "| `--host`", "| `--host`<br>`--debug-dump-dir`")
    before = (root / CONFIG).read_text()
    assert [f["kind"] for f in findings(root)] == ["stale-allowlist-entry"] * 2
    assert check(root, "--fix").code == 1
    assert (root / CONFIG).read_text() == before


# ------------------------------------------------------------------ output formats


def test_text_and_github_formats_name_file_and_line(root: Path) -> None:
    add_flag(root, 'parser.add_argument("--enable-lora", action="store_true", help="LoRA.")')
    line = mdx_row(root, "--log-level")
    text = check(root)
    assert text.out.splitlines()[0].startswith(
        f"{MDX_PAGE}:{line}: error[undocumented-flag]: --enable-lora has no row on the page ("
    )
    github = check(root, "--format", "github")
    assert github.code == 1
    assert github.out.splitlines()[0].startswith(
        f"::error file={MDX_PAGE},line={line},title=argmatrix undocumented-flag::--enable-lora"
    )
    replace_in(root / CONFIG, "checks:\n", "checks:\n  severity: {undocumented-flag: warning}\n")
    assert check(root).code == 0
    assert "warning[undocumented-flag]" in check(root).out


# ------------------------------------------------------------------ what the reader sees


@pytest.mark.engine  # the MDX compiler (node)
def test_the_reader_finds_what_the_mdx_compiler_parses(root: Path) -> None:
    """The JSX tables as our reader reads them are the tables the real MDX compiler parses:
    the same rows, the same number of cells, the same flags in the first cell."""
    from test_mdx_compiler import MdxCompiler, compiled, jsx_tables

    compiler = MdxCompiler()
    try:
        source = (root / MDX_PAGE).read_text()
        theirs = jsx_tables(compiled(compiler, source, str(MDX_PAGE)))
    finally:
        compiler.close()
    ours = read_tables(source, str(MDX_PAGE), "mdx")
    assert [[row.width for row in t.body] for t in ours] == [
        [len(row) for row in t.rows] for t in theirs
    ]
    assert [[row.cells[0].flags() for row in t.body] for t in ours] == [
        [tuple(FLAG_TOKEN.findall(row[0])) for row in t.rows] for t in theirs
    ]
    assert len(theirs) == 3 and sum(len(t.rows) for t in theirs) == 11


# ------------------------------------------------------------------ bad configuration

BAD_CONFIGS = [
    ("  coverage: {page: x.md}\n", 8, "checks: 'coverage' must be a list of pages"),
    ("  coverage: [x.md]\n", 8, "checks: coverage: an entry is a mapping with 'page'"),
    ("  coverage:\n    - page: x.md\n      allowlist: []\n", 10, "unknown key 'allowlist'"),
    ("  coverage:\n    - columns: 4\n", 9, "checks: coverage: 'page' must be a file path"),
    ("  coverage:\n    - page: ../x.md\n", 9, "page '../x.md' is not a plain file path inside"),
    (
        "  coverage:\n    - page: x.md\n      allow_undocumented: --a\n",
        10,
        "'allow_undocumented' must be a list of flags",
    ),
    (
        "  coverage:\n    - page: x.md\n      allow_undocumented:\n        - --a\n        - 42\n",
        12,
        "42 (not a text) in 'allow_undocumented' is not a flag",
    ),
    (
        "  coverage:\n    - page: x.md\n      allow_undocumented: [port]\n",
        10,
        "'port' in 'allow_undocumented' is not a flag",
    ),
    ("  coverage:\n    - page: x.md\n      columns: 0\n", 10, "'columns' must be a number"),
    ("  coverage:\n    - page: x.md\n      columns: true\n", 10, "'columns' must be a number"),
    ("  coverage:\n    - page: x.md\n      format: html\n", 10, "unknown format 'html'"),
    (
        "  coverage:\n    - page: x.md\n    - page: ./x.md\n",
        10,
        "page './x.md' is listed twice (first at line 9)",
    ),
]


@pytest.mark.parametrize(("checks", "line", "says"), BAD_CONFIGS)
def test_a_bad_coverage_setting_is_one_located_error(
    tmp_path: Path, checks: str, line: int, says: str
) -> None:
    """argmatrix.yaml's first seven lines name the registry; `checks:` is line 7."""
    config = (
        "registry:\n  target: launch_args:LaunchArgs.add_cli_args\n  mode: static\n"
        "  search_path: [registry]\ndocs_dir: docs\n# the checks\nchecks:\n" + checks
    )
    (tmp_path / "argmatrix.yaml").write_text(config)
    error = one_error_line(check(tmp_path), f"argmatrix.yaml:{line}: ", says, "(fix: ")
    assert error.startswith("argmatrix: error: ")


def test_a_missing_page_or_a_page_without_an_argument_table_is_one_located_error(
    root: Path,
) -> None:
    replace_in(root / CONFIG, "page: reference/server_arguments.md", "page: reference/gone.md")
    one_error_line(
        check(root),
        "argmatrix.yaml:18: coverage page 'reference/gone.md' not found",
        "(fix: give the page's path relative to docs_dir",
    )
    replace_in(root / CONFIG, "page: reference/gone.md", "page: reference/server_arguments.md")
    (root / MD_PAGE).write_text("# Server arguments\n\n| Name | Meaning |\n| - | - |\n| a | b |\n")
    one_error_line(check(root), "server_arguments.md:1: no argument table found", "(fix: ")


@pytest.mark.parametrize("kind", ["folder", "fifo", "link out"])
def test_a_page_that_is_no_regular_file_inside_the_project_is_refused_unread(
    root: Path, tmp_path: Path, kind: str
) -> None:
    page = root / MD_PAGE
    page.unlink()
    if kind == "folder":
        page.mkdir()
        says = "it is a folder, not a regular file"
    elif kind == "fifo":
        os.mkfifo(page)
        says = "it is a FIFO, not a regular file"
    else:
        secret = tmp_path / "secret.md"
        secret.write_text("| Argument |\n| - |\n| `--s3cr3t` |\n")
        page.symlink_to(secret)
        says = "argmatrix.yaml:18: checks: coverage: page 'reference/server_arguments.md' is"
    line = one_error_line(check(root), says)
    assert "s3cr3t" not in line


def test_an_mdx_expression_that_never_closes_is_one_located_error(root: Path) -> None:
    replace_in(
        root / MDX_PAGE, "<td>The port to listen on.</td>", "<td>The port {to listen on.</td>"
    )
    line = line_of(root / MDX_PAGE, "The port {to")
    one_error_line(
        check(root),
        f"server_arguments.mdx:{line}: an MDX expression '{{' opened here is never closed",
        "(fix: close it with '}', or write '\\{' for a brace as text)",
    )


# ------------------------------------------------------------------ the generated showcase page


@pytest.mark.slow  # generates the whole showcase as MDX
def test_the_check_passes_on_the_generated_showcase_page_and_catches_a_lost_row(
    tmp_path: Path,
) -> None:
    """The .mdx page argmatrix generates for the showcase registry (tests/fixtures/mintlify),
    held to the same rules as a hand-maintained one: it covers every flag, and a row taken out
    is found."""
    from test_mdx_mintlify import SERVER_PAGE, generated_copy

    root = generated_copy(tmp_path)
    (root / "argmatrix.yaml").write_text(
        (root / "argmatrix.yaml").read_text()
        + f"checks:\n  coverage:\n    - page: {SERVER_PAGE}\n      columns: 4\n"
    )
    assert check(root).code == 0, check(root).out
    page = root / "docs" / SERVER_PAGE
    text = page.read_text()
    start = text.index('    <tr>\n      <td><a id="--port"></a>')
    end = text.index("</tr>\n", start) + len("</tr>\n")
    page.write_text(text[:start] + text[end:])
    found = findings(root)
    assert [(f["kind"], f["flag"]) for f in found if f["kind"] != "stale-page"] == [
        ("undocumented-flag", "--port")
    ]


# ------------------------------------------------------------------ MyST list tables


def _as_list_tables(markdown: str, fence: str) -> str:
    """The Markdown page with each pipe table written as a MyST `{list-table}` (header row
    first), as a Sphinx + MyST project writes its reference by hand."""
    out: list[str] = []
    table: list[list[str]] = []
    for line in [*markdown.split("\n"), ""]:
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            table.append([cell.strip().replace("\\|", "|") for cell in cells])
            continue
        if line.startswith("| ---"):
            continue
        if table:
            out += [f"{fence}{{list-table}}", ":header-rows: 1", ""]
            for row in table:
                out += [f"* - {row[0]}", *(f"  - {cell}" for cell in row[1:])]
            out += [fence]
            table = []
        out.append(line)
    return "\n".join(out)


@pytest.fixture(params=["```", ":::"])
def myst_root(root: Path, request: pytest.FixtureRequest) -> Path:
    page = root / "docs" / "reference" / "server_arguments.md"
    text = page.read_text(encoding="utf-8")
    text = text.replace("```text\n| `--port` |", "```text\n- `--port` |")  # keep the example
    page.write_text(_as_list_tables(text, request.param), encoding="utf-8")
    assert "| --- |" not in page.read_text(encoding="utf-8")
    return root


def test_myst_list_tables_are_read_as_tables(myst_root: Path) -> None:
    result = check(myst_root)
    assert (result.code, result.out) == (0, "argmatrix check: everything agrees\n"), result.out


def test_a_new_flag_without_a_list_table_row_is_found_at_the_row_before_it(
    myst_root: Path,
) -> None:
    add_flag(myst_root, 'parser.add_argument("--enable-lora", action="store_true", help="L.")')
    found = [where(f) for f in findings(myst_root) if f["file"].endswith(MD_PAGE.name)]
    assert found == [
        ("undocumented-flag", MD_PAGE.name, line_of(myst_root / MD_PAGE, "* - `--log-level`"))
    ]


def test_a_list_table_row_with_a_cell_too_few_is_misshapen(myst_root: Path) -> None:
    page = myst_root / MD_PAGE
    row = line_of(page, "* - `--port`")
    lines = page.read_text(encoding="utf-8").split("\n")
    del lines[row]  # the row's Description cell
    page.write_text("\n".join(lines), encoding="utf-8")
    found = [where(f) for f in findings(myst_root)]
    assert ("misshapen-row", MD_PAGE.name, row) in found


def test_list_tables_read_as_myst_parser_builds_them(myst_root: Path) -> None:
    """The rows and cells read here are the ones myst-parser (docutils) builds from the page
    (their text compared without white space: the reader spaces code apart from the text)."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser

    text = (myst_root / MD_PAGE).read_text(encoding="utf-8")
    tree = publish_doctree(
        text,
        parser=Parser(),
        settings_overrides={"myst_enable_extensions": ["colon_fence"], "report_level": 5},
    )
    for raw in list(tree.findall(nodes.raw)):  # `<br>`: markup, a space as text
        raw.parent.replace(raw, nodes.Text(" "))
    built = [
        ["".join(entry.astext().split()) for entry in row.findall(nodes.entry)]
        for table in tree.findall(nodes.table)
        for row in table.findall(nodes.row)
    ]
    read = [
        ["".join(cell.text.split()) for cell in row.cells]
        for table in read_tables(text, str(MD_PAGE), "markdown")
        for row in table.rows
    ]
    assert len(built) > 10
    assert read == built


TRICKY_LIST_TABLES = """\
# Examples and real tables

````markdown
```{list-table}
* - `--ghost`
  - only an example of how to write one
```
````

    ```{list-table}
    * - `--ghost2`
      - an indented code block
    ```

```{list-table}
---
header-rows: 1
---
* - Flag
  - Help
* - `--a`
  - A
```

```{list-table}
* - `--b`
  - A cell with a fence inside:

    ```
    --not-a-row
    ```
* - `--c`
  - C
```

:::{note}
```{list-table}
:header-rows: 1
* - Flag
  - Help
* - `--in-note`
  - N
```
:::

- item

  ```{list-table}
  * - `--in-list`
    - X
  ```

```{list-table}
:header-rows: 1

A paragraph before the list: myst-parser builds no table.
* - `--rejected`
  - R
```

::::{list-table}
:header-rows: 1
* - Flag
  - Help
* - `--colon`
  - C
::::

````{note}
:class: tip

```{list-table}
* - `--in-backtick-note`
  - inside a directive whose content is MyST
```
````

````{code-block} markdown
```{list-table}
* - `--in-code-block`
  - an example inside a code directive
```
````
"""


def test_tricky_list_tables_read_as_myst_parser_builds_them() -> None:
    """Examples in code are no tables; a cell may hold a fence; options as `:key:` lines or a
    `---` block; tables inside a note or a list item count; a directive myst-parser refuses
    builds no table."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser

    tree = publish_doctree(
        TRICKY_LIST_TABLES,
        parser=Parser(),
        settings_overrides={"myst_enable_extensions": ["colon_fence"], "report_level": 5},
    )

    def first_words(entry: Any) -> str:  # a cell's first paragraph: a fence in it is no row
        return "".join(entry.children[0].astext().split()) if entry.children else ""

    built = [
        (
            sum(len(head.children) for head in table.findall(nodes.thead)),
            [
                [first_words(entry) for entry in row.findall(nodes.entry)]
                for row in table.findall(nodes.row)
            ],
        )
        for table in tree.findall(nodes.table)
    ]
    read = [
        (
            sum(1 for row in table.rows if row.header),
            [["".join(cell.text.split()) for cell in row.cells] for row in table.rows],
        )
        for table in read_tables(TRICKY_LIST_TABLES, "tricky.md", "markdown")
    ]
    assert read == built
    flags = {row[0] for _, rows in read for row in rows}
    assert {"--a", "--b", "--c", "--in-note", "--in-list", "--colon", "--in-backtick-note"} <= flags
    assert not flags & {"--ghost", "--ghost2", "--rejected", "--not-a-row", "--in-code-block"}
