"""The command-line reference of a program whose subcommands have subcommands of their own
(`vllm bench latency`, `vllm bench sweep plot`; tests/fixtures/registries/nested_cli.py): every
command at every level gets its heading, usage and options; a group lists its commands and shows
the options they share once; two different shared groups of the same title get anchors of their
own; every link of the page reaches an anchor on it, and no anchor is there twice."""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from helpers import GOLDEN, REGISTRIES, html_inline, run_cli_in_process, tables

ID = re.compile(r'<a id="([^"]+)"></a>')
LINK = re.compile(r"\]\(#([^)]+)\)")
CONFIG = """\
registry: {{target: nested_cli:build_parser, mode: static}}
docs_dir: docs
pages:
  - {{template: cli_reference.md.j2, output: cli.md, options: {{prog: tool, html: {html}}}}}
"""


def page(folder: Path, html: bool) -> str:
    shutil.copy(REGISTRIES / "nested_cli.py", folder / "nested_cli.py")
    (folder / "argmatrix.yaml").write_text(CONFIG.format(html=str(html).lower()))
    result = run_cli_in_process("generate", cwd=folder)
    assert result.code == 0, result.err
    return (folder / "docs" / "cli.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> str:
    return page(tmp_path_factory.mktemp("nested"), html=True)


def test_the_nested_reference_matches_its_golden_file(html: str) -> None:
    golden = GOLDEN / "cli_nested.md"
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.write_text(html, encoding="utf-8")
    assert html == golden.read_text(encoding="utf-8")


def test_every_command_at_every_level_has_its_heading_and_usage(html: str) -> None:
    headings = re.findall(r"^## <a id=\"([^\"]+)\"></a>(.*)$", html, re.M)
    assert headings == [
        ("serve", "tool serve"),
        ("bench", "tool bench"),
        ("bench-latency", "tool bench latency"),
        ("bench-throughput", "tool bench throughput"),
        ("bench-startup", "tool bench startup"),
        ("bench-sweep", "tool bench sweep"),
        ("bench-sweep-plot", "tool bench sweep plot"),
    ]
    assert "\ntool bench [-h] {latency,throughput,startup,sweep} ...\n" in html  # argparse's
    assert "\ntool bench sweep plot [-h] [--format {png,svg}] folder\n" in html
    assert "| [`latency`](#bench-latency) | Measure the latency. |" in html
    assert "| [`plot`](#bench-sweep-plot) | Plot a sweep&#x27;s results. |" in html or (
        "| [`plot`](#bench-sweep-plot) | Plot a sweep's results. |" in html
    )


def test_options_shared_within_a_group_are_shown_once_with_anchors_of_their_own(html: str) -> None:
    assert html.count("Tokens per block.") == 2  # two cache groups: 16 (two commands), 32 (two)
    assert html.count("Weights.") == 2  # serve's engine group, and the bench commands' one
    assert '#### <a id="bench-engine-options"></a>Engine' in html
    assert '#### <a id="bench-cache-options"></a>Cache' in html
    assert '#### <a id="bench-cache-2-options"></a>Cache' in html
    latency = html.split('<a id="bench-latency"></a>')[1].split("\n## ")[0]
    startup = html.split('<a id="bench-startup"></a>')[1].split("\n## ")[0]
    assert "Takes the [Cache](#bench-cache-options) options." in latency
    assert "Takes the [Cache](#bench-cache-2-options) options." in startup
    assert "Takes the [Engine](#bench-engine-options) options." in startup
    # argparse's own group (`options`) is "the shared options", never "the [options] options".
    assert "Takes the shared [options](#bench-options-options)." in latency
    assert "[options](#bench-options-options) options" not in html


def test_no_anchor_twice_and_every_link_reaches_one(html: str) -> None:
    ids = Counter(ID.findall(html))
    assert [i for i, count in ids.items() if count > 1] == []
    assert sorted(set(LINK.findall(html)) - set(ids)) == []


def test_the_plain_nested_reference_is_github_markdown(tmp_path: Path) -> None:
    text = page(tmp_path, html=False)
    assert html_inline(text) == []
    found = tables(text)
    assert found and all(len(row) == len(t.header) for t in found for row in t.rows)
    assert "## tool bench sweep plot" in text
