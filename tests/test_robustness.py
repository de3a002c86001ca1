"""Inputs written by many hands: same bytes everywhere, no crash on huge or random input."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argmatrix._runtime.yamlfile import load_yaml_text
from argmatrix.adoption.handwritten import parse_page
from argmatrix.adoption.importer import import_page, manifest_text
from argmatrix.errors import ArgmatrixError
from argmatrix.manifests.load import Problems, parse_manifest
from argmatrix.model.findings import closest
from argmatrix.model.registry import Argument, Registry
from argmatrix.render.environment import normalise_newlines
from helpers import bench_synth, copy_project, run_cli_in_process, run_cli_in_subprocess, tables

# A hostile-input suite: slow by design, left out of make test-fast.
pytestmark = pytest.mark.hostile


def _generate(project: Path, **env: str) -> dict[str, bytes]:
    environment = {**os.environ, "ARGMATRIX_NO_CACHE": "1", **env}
    result = run_cli_in_subprocess("generate", cwd=project, env=environment)
    assert result.code == 0, result.err
    return {p.name: p.read_bytes() for p in sorted((project / "docs" / "reference").iterdir())}


def test_output_is_the_same_under_any_hash_seed_and_locale(tmp_path: Path) -> None:
    # The fixture has a set of choices (hash order varies with PYTHONHASHSEED).
    first = _generate(copy_project(tmp_path / "a"), PYTHONHASHSEED="0", LC_ALL="C")
    second = _generate(
        copy_project(tmp_path / "b"), PYTHONHASHSEED="4242", LC_ALL="C.UTF-8", LANG="tr_TR.UTF-8"
    )
    assert first == second
    assert len(first) == 3


def test_ten_thousand_arguments_and_a_five_megabyte_help_string(tmp_path: Path) -> None:
    project = bench_synth().write_project(tmp_path / "huge", 10_000, 2)
    registry = project / "synthetic_registry.py"
    huge = "x|<b>" * 1_000_000  # 5 MB of text that must stay inside one cell
    registry.write_text(
        registry.read_text()
        + (
            f"\n\ndef add_more(parser):\n    parser.add_argument('--huge-help', help={huge!r})\n"
        ).replace("def add_more(parser):\n", "def add_more(parser):\n    add_cli_args(parser)\n")
    )
    config = project / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace("synthetic_registry:add_cli_args", "synthetic_registry:add_more")
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    page = (project / "docs" / "server_arguments.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `--")]
    assert len(rows) == 10_001
    huge_row = rows[-1]
    # Four cells: no pipe of the help text splits the row (markdown-it checks the shape of
    # small tables elsewhere; on 5 MB it is too slow to be worth it here).
    assert len(re.split(r"(?<!\\)\|", huge_row)) == 6
    small = huge_row.replace("x\\|&lt;b&gt;" * 999_990, "")
    cells = tables("| a | b | c | d |\n| --- | --- | --- | --- |\n" + small + "\n")[0].rows[0]
    assert cells[0] == "--huge-help HUGE_HELP" and cells[1] == "x|<b>" * 10
    assert run_cli_in_process("check", cwd=project).code == 0


# ------------------------------------------------------------------ fuzzing

KEYS = st.sampled_from(
    [
        "platform",
        "title",
        "variants",
        "default",
        "sections",
        "arguments",
        "status",
        "reason",
        "options",
        "note",
        "--port",
        "--x",
        "junk",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["supported", "unsupported", "planned", "A2", "--port"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(KEYS, st.text(max_size=6)), inner, max_size=4),
    ),
    max_leaves=12,
)


def _load_manifest_text(text: str) -> None:
    data = load_yaml_text(text, "fuzz.yaml")
    problems = Problems("fuzz.yaml")
    parse_manifest(data, problems)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES)
def test_the_manifest_loader_never_crashes_on_structured_input(data: object) -> None:
    text = yaml.safe_dump(data, allow_unicode=True)
    try:
        _load_manifest_text(text)
    except ArgmatrixError as error:
        assert all(problem.file == "fuzz.yaml" for problem in error.problems)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}|>'\"#&*!%@` \n\t\x00é参")), max_size=80))
def test_the_manifest_loader_never_crashes_on_any_text(text: str) -> None:
    try:
        _load_manifest_text(text)
    except ArgmatrixError as error:
        assert all(problem.file == "fuzz.yaml" for problem in error.problems)


YAML_TOKENS = st.sampled_from(
    [
        "platform: p\n",
        "arguments:\n",
        "  --port: ",
        "  --host: ",
        "status: ",
        "note: ",
        "\n",
        "supported",
        "unsupported",
        "{",
        "}",
        "[",
        "]",
        ", ",
        ": ",
        "- ",
        "? ",
        "&a ",
        "*a",
        "<<: *a",
        "!!int ",
        "!!float ",
        "!!binary ",
        "!!timestamp ",
        "!!set ",
        "!!omap ",
        "!custom ",
        "'x'",
        "2024-13-01",
        "2024-02-30 25:61:00",
        "0x",
        "0o9",
        "1e999",
        "-.inf",
        ".nan",
        "yes",
        "~",
        "0b2",
        "12:34:56",
        "1_000",
        '"\\u00"',
        "|\n  text",
        ">-\n  folded",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(YAML_TOKENS, max_size=24).map("".join))
def test_the_manifest_loader_never_crashes_on_yaml_shaped_text(text: str) -> None:
    """Tokens YAML gives meaning to: tags, anchors, merges, dates and numbers out of range."""
    try:
        _load_manifest_text(text)
    except ArgmatrixError as error:
        assert all(problem.file == "fuzz.yaml" for problem in error.problems)


def test_a_key_overriding_a_merged_one_is_not_a_repetition() -> None:
    text = (
        "platform: p\nvariants: [A]\narguments:\n"
        "  --port: &base {status: supported, note: shared}\n"
        "  --host:\n    <<: *base\n    note: own\n"
        "  --mode:\n    <<: *base\n    note: one\n    note: two\n"
    )
    data = load_yaml_text(text, "m.yaml")
    problems = Problems("m.yaml")
    platform = parse_manifest(data, problems)
    assert platform is not None
    assert platform.arguments["--host"].note == "own"
    assert [(p.message, p.line) for p in problems.items] == [
        ("--mode: key 'note' is named twice", 11)
    ]


_REGISTRY = Registry(
    "fuzz:build",
    ("Main",),
    (
        Argument(("--port",), "port", "Main", type="int", default=8000),
        Argument(("--mode", "-m"), "mode", "Main", choices=("a", "b"), default="a"),
        Argument(("--flag",), "flag", "Main", action="store_true", default=False),
    ),
)
CELL = st.one_of(
    st.sampled_from(
        [
            "--port",
            "--mode<br>-m",
            "--flag",
            "--nope",
            "√",
            "×",
            "A2, A3",
            "Planned",
            "Special for GPU",
            "`a`, `b`",
            "Type: int",
            "",
            "|",
            "\\|",
            "<span>√</span>",
        ]
    ),
    st.text(max_size=10),
)
HEADERS = st.sampled_from(
    [
        ["Argument", "Description", "Defaults", "Options", "A2 Supported", "A3 Supported"],
        ["Argument", "Defaults", "Options", "Server supported"],
        ["Arguments", "Description", "Defaults"],
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HEADERS, st.lists(st.lists(CELL, min_size=1, max_size=7), max_size=6), st.booleans())
def test_the_page_importer_never_crashes(
    header: list[str], rows: list[list[str]], as_text: bool
) -> None:
    if as_text:  # the layout copied from a rendered site: one cell per paragraph
        body = "\n\n".join(["## Main#", *header, *[c for row in rows for c in row]])
    else:
        lines = ["## Main", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        body = "\n".join(lines)
    try:
        page = parse_page(body, "fuzz.md")
        imported = import_page(page, _REGISTRY, "fuzzplatform", None)
        text = manifest_text(imported, _REGISTRY, "fuzz.md")
    except ArgmatrixError as error:
        assert all(problem.file in ("fuzz.md", None) for problem in error.problems)
        return
    assert text.startswith(("#", "platform:"))


@given(st.lists(st.sampled_from(["\n", "\r\n", " ", "\t", "a", "|"]), max_size=60).map("".join))
def test_page_text_is_normalised_without_losing_a_line(text: str) -> None:
    """One trailing newline, no trailing blanks, never two blank lines in a row; every line with
    content kept, in order."""
    out = normalise_newlines(text)
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert "\n\n\n" not in out and " \n" not in out and "\t\n" not in out and "\r" not in out
    content = [line.rstrip(" \t") for line in text.replace("\r\n", "\n").split("\n")]
    assert [line for line in out.split("\n") if line] == [line for line in content if line]


@given(st.lists(st.sampled_from(["\n", "\r\n", "\r", " ", "\t", "a"]), max_size=60).map("".join))
def test_page_text_is_normalised_as_its_plain_definition_says(text: str) -> None:
    """The fast normalisation writes what the plain one, step by step, writes."""
    plain = re.sub(r"[ \t]+$", "", text.replace("\r\n", "\n"), flags=re.MULTILINE)
    while "\n\n\n" in plain:
        plain = plain.replace("\n\n\n", "\n\n")
    assert normalise_newlines(text) == plain.strip("\n") + "\n"


def test_a_misspelt_flag_is_still_recognised_among_thousands() -> None:
    """Suggestions for stale entries stay cheap on huge registries and still find the flag."""
    flags = [f"--{word}-{index}" for index in range(2000) for word in ("alpha", "beta")] + [
        "--max-batch-size",
        "--schedule-policy",
    ]
    assert closest("--max-batchsize", flags) == "--max-batch-size"
    assert closest("--shedule-policy", flags) == "--schedule-policy"
    assert closest("--gamma", flags) is None


MERGE_LINES = st.sampled_from(
    [
        "a: &a {x: 1, y: 2}\n",
        "b: &b {y: 3, z: 4}\n",
        "c: {<<: *a, w: 0}\n",
        "d: {<<: [*a, *b]}\n",
        "e: {<<: [*b, *a], y: 9}\n",
        "f: {<<: *a, <<: *b}\n",
        "g: &g {<<: *a, x: 5}\n",
        "h: *g\n",
        "i: {<<: *g, z: 1}\n",
        "=: eq\n",
        "j: [*a, *b]\n",
        "k: !!set {p, q}\n",
        "l: !!str 12\n",
        "m: &m {<<: &n {<<: *a, note: inner}, note: outer}\n",
        "n2: *n\n",
        "o: {<<: *m}\n",
    ]
)


TWO_MERGES = "f: {<<: *a, <<: *b}\n"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _as_yaml_says(node: yaml.Node, built: dict[int, Any]) -> Any:
    """The value of a composed node by YAML's merge rule (a mapping's own keys win over merged
    ones; in `<<: [*a, *b]` the first mapping wins), every scalar and tag as PyYAML's safe loader
    constructs it. The test's oracle: PyYAML 6.0.4 itself departs from the rule for some keys
    (it compares key strings by identity), so its loaded values cannot be the reference."""
    if id(node) in built:
        return built[id(node)]
    if isinstance(node, yaml.SequenceNode):
        value: Any = [_as_yaml_says(child, built) for child in node.value]
    elif isinstance(node, yaml.MappingNode) and node.tag == "tag:yaml.org,2002:set":
        value = {_as_yaml_says(key, built) for key, _ in node.value}
    elif isinstance(node, yaml.MappingNode):
        merged: dict[Any, Any] = {}
        own: dict[Any, Any] = {}
        for key, child in node.value:
            if key.tag == _MERGE_TAG:
                sources = child.value if isinstance(child, yaml.SequenceNode) else [child]
                for source in reversed(sources):
                    merged.update(_as_yaml_says(source, built))
            else:
                own[key.value if key.tag.endswith(":value") else _as_yaml_says(key, built)] = (
                    _as_yaml_says(child, built)
                )
        value = {**merged, **own}
    else:
        value = yaml.SafeLoader("").construct_object(node, deep=True)
    built[id(node)] = value
    return value


@settings(max_examples=300, deadline=None)
@given(st.lists(MERGE_LINES, min_size=1, max_size=10).map("".join))
def test_yaml_reads_as_yaml_merges_say(text: str) -> None:
    """The line-numbered loader gives the values YAML's merge rule gives over PyYAML's own
    reading of the text (anchors, tags and scalars), and fails where PyYAML fails. Two `<<` keys
    in one mapping, which PyYAML's releases read differently, are argmatrix's own error."""
    try:
        composed = yaml.compose(text, Loader=yaml.CSafeLoader)
        yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        with pytest.raises(ArgmatrixError):
            load_yaml_text(text, "m.yaml")
        return
    if TWO_MERGES in text:
        with pytest.raises(ArgmatrixError, match="'<<' given twice in one mapping"):
            load_yaml_text(text, "m.yaml")
        return
    assert load_yaml_text(text, "m.yaml") == _as_yaml_says(composed, {})


def test_a_merged_list_gives_the_first_mapping_named_precedence_whatever_the_keys() -> None:
    """YAML's merge rule, as argmatrix reads it on every PyYAML release: in `<<: [*a, *b]`,
    a key of `a` wins over the same key of `b` (PyYAML 6.0.4 lets `b` win for keys longer than
    one character), and a key of the mapping's own wins over both."""
    text = (
        "a: &a {status: supported, note: from a}\n"
        "b: &b {note: from b, reason: from b}\n"
        "both: {<<: [*a, *b]}\n"
        "own: {<<: [*a, *b], note: own}\n"
    )
    read = load_yaml_text(text, "m.yaml")
    assert read["both"] == {"status": "supported", "note": "from a", "reason": "from b"}
    assert read["own"] == {"status": "supported", "note": "own", "reason": "from b"}


def test_two_merge_keys_in_one_mapping_are_a_located_error() -> None:
    text = "a: &a {x: 1}\nb: &b {x: 2}\nf:\n  <<: *a\n  <<: *b\n"
    with pytest.raises(ArgmatrixError) as error:
        load_yaml_text(text, "m.yaml")
    message = str(error.value)
    assert message.startswith("m.yaml:5: malformed YAML: '<<' given twice in one mapping")
    assert "(fix: merge a list instead, `<<: [*first, *second]`" in message


def test_keys_merged_through_nested_anchors_are_no_repetition() -> None:
    text = (
        "platform: p\nvariants: [A]\narguments:\n"
        "  --c: &common {status: supported, note: shared}\n"
        "  --a: {<<: &gpu {<<: *common, note: GPU only}, status: experimental}\n"
        "  --b: *gpu\n"
    )
    problems = Problems("m.yaml")
    platform = parse_manifest(load_yaml_text(text, "m.yaml"), problems)
    assert problems.items == []
    assert platform is not None and platform.arguments["--b"].note == "GPU only"
