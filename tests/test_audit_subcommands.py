"""`argmatrix audit` and `argmatrix import` of a hand-written page about a program with
subcommands (issue 30): a subcommand's flag is matched in the spelling the configuration uses
(`serve --port`), a flag two subcommands share by the heading its row sits under, and where the
page cannot tell, one finding naming both spellings, never a guess.

The registries are tests/fixtures/audit/subcommands/sub_server.py (argparse) and its Click twin
sub_click.py: `serve` and `bench` share `--port` with other defaults (8000 and 30000). The pages
are written here in each layout audit reads: Markdown, MyST and MDX pages of pipe tables, and
text copied from a rendered site; each test says what a maintainer's page looks like."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from argmatrix.adoption.audit import audit_page
from argmatrix.adoption.handwritten import parse_page
from argmatrix.adoption.importer import import_page, manifest_text
from argmatrix.manifests.load import load_manifest
from argmatrix.manifests.resolve import resolve_platform
from argmatrix.model.registry import Registry
from argmatrix.model.spelling import scopes
from helpers import FIXTURES, load, run_cli_in_process

SUBCOMMANDS = FIXTURES / "audit" / "subcommands"
TARGETS = {"argparse": "sub_server:build_parser", "click": "sub_click:cli"}

Found = tuple[str, str | None, int | None]


@pytest.fixture(scope="module", params=sorted(TARGETS))
def registry(request: pytest.FixtureRequest) -> Registry:
    return load(TARGETS[request.param], mode="static", base_dir=SUBCOMMANDS)


def line(text: str, needle: str) -> int:
    """The 1-based line of `text` holding `needle` (once)."""
    found = [n for n, row in enumerate(text.split("\n"), start=1) if needle in row]
    assert len(found) == 1, (needle, found)
    return found[0]


def findings(text: str, registry: Registry, file: str = "cli.md") -> list[Found]:
    report = audit_page(parse_page(text, file), registry)
    return [(f.kind, f.flag, f.line) for f in report.findings]


# ------------------------------------------------------------------ the page, in each layout

# A maintainer's CLI page: the top level's options, then a heading per subcommand (`## serve`
# written as the command a user types), each row's flag bare. Its defects: a wrong default on a
# row of `serve` and on a row of `bench` (the shared --port: bench's is 30000), a row for a flag
# no command has, and bench's --requests left out.
MARKDOWN = """\
# llmserve command line

## Global options

| Argument | Description | Default |
| --- | --- | --- |
| `--log-level` | How much to log. | `info` |

## `llmserve serve`

### Model

| Argument | Description | Default |
| --- | --- | --- |
| `--model` | The model to serve. | required |
| `--revision` | The model's revision. | `main` |

### HTTP

| Argument | Description | Default |
| --- | --- | --- |
| `--host` | The address to bind. | `0.0.0.0` |
| `--port` | The port to listen on. | `8000` |
| `--workers` | Worker processes. | `1` |

## bench

| Argument | Description | Default |
| --- | --- | --- |
| `--url` | The server to measure. | `http://localhost` |
| `--port` | The port of the server measured. | `8000` |
"""

# The same page as a Sphinx + MyST project writes it: a target label before each subcommand's
# heading, an admonition in a fence.
MYST = MARKDOWN.replace(
    "## `llmserve serve`", "(serve-options)=\n## `llmserve serve`\n\n:::{note}\nRestart.\n:::"
).replace("## bench", "(bench-options)=\n## bench")

# The same page as Mintlify's MDX: front matter, an import and a JSX component.
MDX = (
    '---\ntitle: "Command line"\n---\n\nimport Note from "/snippets/note.mdx";\n\n'
    + MARKDOWN.replace("## bench", "<Note>Run it beside the server.</Note>\n\n## bench")
)


def copied_text(markdown: str) -> str:
    """The page as text copied from its rendered site: each heading ends in the header-link
    character, each cell is a paragraph, the column headers come before every table."""
    paragraphs = []
    for row in markdown.split("\n"):
        if row.startswith("#"):
            paragraphs.append(row.lstrip("# ").replace("`", "") + "#")
        elif row.startswith("| ---"):
            continue
        elif row.startswith("|"):
            paragraphs.extend(cell.strip().strip("`") for cell in row.strip("|").split(" | "))
    return "\n\n".join(paragraphs) + "\n"


LAYOUTS = {
    "markdown": MARKDOWN,
    "myst": MYST,
    "mdx": MDX,
    "copied": copied_text(MARKDOWN),
}


def expected(text: str) -> list[Found]:
    """One finding per broken row, at the row's line (a copied row's is its flag's), in the
    page's order, then the missing flag at the heading of its subcommand."""
    port_rows = [n for n, row in enumerate(text.split("\n"), start=1) if "--port" in row]
    copied = "| " not in text
    return [
        ("wrong-default", "serve --host", line(text, "--host")),
        ("unknown-flag", "--workers", line(text, "--workers")),
        ("wrong-default", "bench --port", port_rows[-1]),  # the second --port row: bench's
        ("missing-flag", "bench --requests", line(text, "bench#" if copied else "## bench")),
    ]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_broken_row_is_one_finding_in_the_subcommand_spelling(
    registry: Registry, layout: str
) -> None:
    text = LAYOUTS[layout]
    assert findings(text, registry) == expected(text)


def test_the_shared_flag_is_compared_with_the_default_of_the_subcommand_it_sits_under(
    registry: Registry,
) -> None:
    report = audit_page(parse_page(MARKDOWN, "cli.md"), registry)
    (bench,) = [f for f in report.findings if f.flag == "bench --port"]
    assert bench.message == (
        "bench --port: the page says the default is '8000', the registry says '30000'"
    )
    assert bench.fix == "write '30000'"
    # serve's --port row says 8000, serve's default: no finding, and neither --port is missing.
    assert {f.flag for f in report.findings} == {
        "serve --host",
        "--workers",
        "bench --port",
        "bench --requests",
    }


def test_the_missing_flag_names_its_subcommand_and_section(registry: Registry) -> None:
    report = audit_page(parse_page(MARKDOWN, "cli.md"), registry)
    (missing,) = [f for f in report.findings if f.kind == "missing-flag"]
    section = scopes(registry)
    bench = next(s for s in section if s.words == "bench ").registry
    assert missing.message == "bench --requests is in the registry but not on the page"
    assert missing.fix == f"add a row for it under '{bench.arguments[0].section}' of 'bench'"


def test_a_page_that_cannot_tell_which_subcommand_is_one_finding_naming_both(
    registry: Registry,
) -> None:
    """No heading names a subcommand, and the page documents both (--host is serve's, --url is
    bench's): its --port row is a finding naming both spellings, and neither is compared."""
    text = (
        "# Options\n\n| Argument | Default |\n| --- | --- |\n| `--host` | `127.0.0.1` |\n"
        "| `--url` | `http://localhost` |\n| `--port` | `1` |\n"
    )
    report = audit_page(parse_page(text, "flat.md"), registry)
    port = [f for f in report.findings if f.line == line(text, "--port")]
    assert [(f.kind, f.flag) for f in port] == [("ambiguous-flag", "--port")]
    assert port[0].message == (
        "--port is an argument of several subcommands ('serve --port', 'bench --port'): the page"
        " does not say which one the row documents"
    )
    assert port[0].fix == (
        "put the row under a heading naming its subcommand (e.g. '## serve'), or write"
        " 'serve --port' in its cell"
    )
    assert not [f for f in report.findings if f.flag and f.flag.endswith(" --port")]


def test_the_subcommand_written_in_the_cell_places_the_row(registry: Registry) -> None:
    text = (
        "# Options\n\n| Argument | Default |\n| --- | --- |\n| `serve --host` | `127.0.0.1` |\n"
        "| `llmserve bench --port` | `1` |\n| `serve --port` | `8000` |\n"
    )
    assert [(k, f) for k, f, _ in findings(text, registry) if k != "missing-flag"] == [
        ("wrong-default", "bench --port")
    ]


def test_a_page_about_one_subcommand_reads_the_shared_flag_as_its_own(registry: Registry) -> None:
    """A `serve` page with no heading naming it: its other rows are serve's, so is --port; the
    other subcommand is not missing from it."""
    text = (
        "# Serving\n\n| Argument | Default |\n| --- | --- |\n| `--model` | required |\n"
        "| `--revision` | `main` |\n| `--host` | `127.0.0.1` |\n| `--port` | `8001` |\n"
    )
    assert findings(text, registry) == [
        ("wrong-default", "serve --port", line(text, "--port")),
        ("missing-flag", "--log-level", None),
    ]


def test_a_row_under_another_subcommand_than_its_only_one_still_documents_it(
    registry: Registry,
) -> None:
    text = "## serve\n\n| Argument | Default |\n| --- | --- |\n| `--requests` | `10` |\n"
    assert ("wrong-default", "bench --requests", 5) in findings(text, registry)


def test_a_typo_suggests_the_flag_in_its_spelling(registry: Registry) -> None:
    text = "## serve\n\n| Argument | Default |\n| --- | --- |\n| `--hots` | `127.0.0.1` |\n"
    report = audit_page(parse_page(text, "typo.md"), registry)
    (typo,) = [f for f in report.findings if f.kind == "unknown-flag"]
    assert typo.fix == "did you mean serve --host?"


def test_two_rows_of_one_subcommand_flag_are_a_duplicate(registry: Registry) -> None:
    text = MARKDOWN + "\n## serve again\n\n| Argument | Default |\n| --- | --- |\n"
    text += "| `serve --port` | `8000` |\n"
    found = findings(text, registry)
    assert ("duplicate-flag", "serve --port", line(text, "`serve --port`")) in found


@pytest.mark.parametrize("target", sorted(TARGETS.values()))
def test_audit_command_prints_the_findings_with_the_page_lines(tmp_path: Path, target: str) -> None:
    module = target.partition(":")[0]
    shutil.copy(SUBCOMMANDS / f"{module}.py", tmp_path)
    (tmp_path / "cli.md").write_text(MARKDOWN, encoding="utf-8")
    result = run_cli_in_process(
        "audit", "cli.md", "--registry", target, "--static", "--format", "json", cwd=tmp_path
    )
    assert result.code == 1, result.err
    report = json.loads(result.out)
    assert [(f["kind"], f["flag"], f["line"]) for f in report["findings"]] == expected(MARKDOWN)
    assert report["counts"] == {"unknown-flag": 1, "wrong-default": 2, "missing-flag": 1}


# ------------------------------------------------------------------ import

# A support page for one platform, a table per command under a heading naming it.
SUPPORT = """\
# Supported features on Example NPU

## Global options

| Argument | Supported |
| --- | --- |
| `--log-level` | Supported |

## serve

| Argument | Supported | Default |
| --- | --- | --- |
| `--host` | Supported | `0.0.0.0` |
| `--port` | Supported | `8000` |
| `--workers` | Supported | `1` |

## bench

| Argument | Supported |
| --- | --- |
| `--port` | Not supported |
| `--url` | Supported |
"""


def test_import_writes_each_entry_in_the_subcommand_spelling(
    registry: Registry, tmp_path: Path
) -> None:
    imported = import_page(parse_page(SUPPORT, "npu.md"), registry, "npu", None)
    text = manifest_text(imported, registry, "npu.md")
    sections = {s.words: s.registry.arguments[-1].section for s in scopes(registry)}
    assert text.splitlines()[3:] == [
        "platform: npu",
        "title: Example NPU",
        "default: unverified",
        "arguments:",
        f"  # {sections['']}",
        "  --log-level: supported",
        f"  # serve {sections['serve ']}",
        "  serve --host: {status: supported, default: 0.0.0.0, review: needed}",
        "  serve --port: supported",
        f"  # bench {sections['bench ']}",
        "  bench --url: supported",
        "  bench --port: {status: unsupported, reason: marked unsupported on the imported page,"
        " review: needed}",
    ]
    assert [(n.message, n.line) for n in imported.notes] == [
        (
            "serve --host: platform default '0.0.0.0' taken from the page (the registry's is"
            " '127.0.0.1')",
            line(SUPPORT, "--host"),
        ),
        ("--workers is not an argument of the registry; left out", line(SUPPORT, "--workers")),
    ]
    # The manifest names every entry as the registry has it: nothing stale, each fact in place.
    output = tmp_path / "npu.yaml"
    output.write_text(text, encoding="utf-8")
    resolved = resolve_platform(load_manifest(output), registry)
    assert [f.message for f in resolved.findings] == []
    serve, bench = (next(s for s in scopes(registry) if s.words == w) for w in ("serve ", "bench "))
    port = {s.words: s.registry.by_flag()["--port"] for s in (serve, bench)}
    assert resolved.of(port["serve "], "serve ").status == "supported"
    host = serve.registry.by_flag()["--host"]
    assert resolved.of(host, "serve ").default == "0.0.0.0"
    assert resolved.of(port["bench "], "bench ").status == "unsupported"


def test_import_leaves_out_a_shared_flag_the_page_does_not_place(registry: Registry) -> None:
    text = (
        "# Supported features on Example NPU\n\n| Argument | Supported |\n| --- | --- |\n"
        "| `--host` | Supported |\n| `--url` | Supported |\n| `--port` | Supported |\n"
    )
    imported = import_page(parse_page(text, "npu.md"), registry, "npu", None)
    assert list(imported.entries) == ["serve --host", "bench --url"]
    (note,) = imported.notes
    assert (note.message, note.line) == (
        "--port is an argument of several subcommands ('serve --port', 'bench --port') and the"
        " page does not say which one the row is about; left out",
        line(text, "--port"),
    )
