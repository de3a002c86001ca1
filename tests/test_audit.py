"""`argmatrix audit`: hand-written pages about sglang 0.5.7 (tests/fixtures/handwritten/, in the
layouts of real docs sites and with their defects) against its registry, and small pages of our
own against the tiny fixture server. Every finding must name the page's file and line."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from argmatrix.adoption.audit import KINDS, audit_page
from argmatrix.adoption.audit_values import registry_kind, types_agree
from argmatrix.adoption.handwritten import Cell, parse_page, read_page, type_hint, wrapped_flags
from argmatrix.adoption.page_defaults import default_agrees
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Argument
from helpers import (
    ASCEND_COPIED,
    ASCEND_MARKS,
    FIXTURE_PAGES,
    FIXTURE_PROJECT,
    REPO,
    SERVER_ARGUMENTS,
    chdir,
    line_of,
    run_cli_in_process,
)


def audit_json(page: Path, cwd: Path = REPO) -> tuple[int, dict[str, object]]:
    result = run_cli_in_process("audit", str(page), "--format", "json", cwd=cwd)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)


def findings_of(report: dict[str, object], kind: str) -> list[dict[str, object]]:
    return [f for f in report["findings"] if f["kind"] == kind]  # type: ignore[union-attr]


def one(report: dict[str, object], kind: str, flag: str) -> dict[str, object]:
    matches = [f for f in findings_of(report, kind) if f["flag"] == flag]
    assert len(matches) == 1, (kind, flag, matches)
    return matches[0]


def table_row_lines(page: Path) -> list[str]:
    """The page's Markdown table rows that name a flag, read line by line without argmatrix."""
    return [
        line
        for line in page.read_text(encoding="utf-8").splitlines()
        if re.match(r"^\|\s*`--", line)
    ]


def cells_of(line: str) -> int:
    """How many cells a table line holds when every unescaped `|` separates two."""
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


# ------------------------------------------------------------------ √/× per variant


@pytest.fixture(scope="module")
def marks_page() -> dict[str, object]:
    code, report = audit_json(ASCEND_MARKS)
    assert code == 1
    return report


def test_marks_page_misspelled_flag_is_found_with_its_correction(
    marks_page: dict[str, object],
) -> None:
    finding = one(marks_page, "unknown-flag", "--oltp-traces-endpoint")
    assert finding["line"] == line_of(ASCEND_MARKS, "`--oltp-traces-endpoint`")
    assert finding["file"] == os.path.relpath(ASCEND_MARKS)  # as text output names it
    assert finding["fix"] == "did you mean --otlp-traces-endpoint?"


def test_marks_page_flag_that_does_not_exist_and_its_self_contradicting_type(
    marks_page: dict[str, object],
) -> None:
    line = line_of(ASCEND_MARKS, "`--crash-on-nan`")
    assert one(marks_page, "unknown-flag", "--crash-on-nan")["line"] == line
    wrong_type = one(marks_page, "wrong-type", "--crash-on-nan")
    assert wrong_type["line"] == line
    assert "Type: str" in wrong_type["message"] and "False" in wrong_type["message"]


def test_marks_page_text_lost_as_html_is_found(marks_page: dict[str, object]) -> None:
    finding = one(marks_page, "raw-html", "--oltp-traces-endpoint")
    assert "<ip>" in finding["message"] and "<port>" in finding["message"]


def test_marks_page_wrong_defaults_and_options(marks_page: dict[str, object]) -> None:
    lora_backend = one(marks_page, "wrong-default", "--lora-backend")
    assert lora_backend["line"] == line_of(ASCEND_MARKS, "`--lora-backend`")
    assert "'triton'" in lora_backend["message"] and "'csgmv'" in lora_backend["message"]
    options = one(marks_page, "wrong-options", "--nsa-prefill-backend")
    assert options["line"] == line_of(ASCEND_MARKS, "`--nsa-prefill-backend`")
    assert "flashmla_decode" in options["message"]


def test_marks_page_escaped_pipes_keep_the_lora_paths_row_intact(
    marks_page: dict[str, object],
) -> None:
    # The row writes its pipes as `\|`, which Markdown reads as text: nothing is broken there.
    assert "\\|" in ASCEND_MARKS.read_text(encoding="utf-8")
    assert findings_of(marks_page, "broken-row") == []
    assert "--lora-paths" not in {f["flag"] for f in marks_page["findings"]}  # type: ignore[union-attr]


def test_an_unescaped_pipe_in_the_lora_paths_row_is_a_broken_row(tmp_path: Path) -> None:
    text = ASCEND_MARKS.read_text(encoding="utf-8")
    line = line_of(ASCEND_MARKS, "| `--lora-paths`")
    lines = text.split("\n")
    header = next(row for row in reversed(lines[: line - 1]) if row.startswith("| Argument"))
    width = cells_of(header)
    lines[line - 1] = lines[line - 1].replace("\\|", "|")
    written = cells_of(lines[line - 1])
    assert written > width  # the pipes, unescaped, now split its description
    page = tmp_path / "ascend.md"
    page.write_text("\n".join(lines), encoding="utf-8")
    code, report = audit_json(page)
    assert code == 1
    broken = one(report, "broken-row", "--lora-paths")
    assert broken["line"] == line
    assert f"{written} cells" in broken["message"] and f"header has {width}" in broken["message"]
    # The stray pipes sit in the description: the default and options cells are still read right.
    assert [
        f
        for f in report["findings"]
        if f["flag"] == "--lora-paths"  # type: ignore[union-attr]
        and f["kind"] != "broken-row"
    ] == []


def test_marks_page_counts_match_the_findings(marks_page: dict[str, object]) -> None:
    findings = marks_page["findings"]
    counts = marks_page["counts"]
    assert isinstance(findings, list) and isinstance(counts, dict)
    assert sum(counts.values()) == len(findings)
    assert set(counts) <= set(KINDS)
    assert marks_page["layout"] == "markdown"
    assert marks_page["rows"] == len(table_row_lines(ASCEND_MARKS))
    for finding in findings:
        assert finding["file"] == os.path.relpath(ASCEND_MARKS)  # as text output names it
        assert finding["kind"] == "missing-flag" or isinstance(finding["line"], int)


def test_marks_page_missing_flags_point_at_their_section(marks_page: dict[str, object]) -> None:
    # --grpc-mode belongs to the HTTP server section, which the page has without it.
    assert "--grpc-mode" not in ASCEND_MARKS.read_text(encoding="utf-8")
    finding = one(marks_page, "missing-flag", "--grpc-mode")
    assert finding["line"] == line_of(ASCEND_MARKS, "## HTTP server")


# ------------------------------------------------------------------ a generic page


@pytest.fixture(scope="module")
def generic_page() -> dict[str, object]:
    code, report = audit_json(SERVER_ARGUMENTS)
    assert code == 1
    return report


def test_generic_page_flags_that_no_longer_exist(generic_page: dict[str, object]) -> None:
    assert one(generic_page, "unknown-flag", "--oltp-traces-endpoint")["fix"] == (
        "did you mean --otlp-traces-endpoint?"
    )
    customer = one(generic_page, "unknown-flag", "--tokenizer-metrics-allowed-customer-labels")
    assert customer["fix"] == "did you mean --tokenizer-metrics-allowed-custom-labels?"
    removed = one(generic_page, "unknown-flag", "--max-micro-batch-size")
    assert removed["line"] == line_of(SERVER_ARGUMENTS, "`--max-micro-batch-size`")
    deprecated = one(generic_page, "unknown-flag", "--enable-ep-moe")
    assert deprecated["line"] == line_of(SERVER_ARGUMENTS, "| `--enable-ep-moe`")
    assert "deprecated" in deprecated["message"]


def test_generic_page_wrong_defaults(generic_page: dict[str, object]) -> None:
    finding = one(generic_page, "wrong-default", "--sm-group-num")
    assert finding["line"] == line_of(SERVER_ARGUMENTS, "`--sm-group-num`")
    assert "'3'" in finding["message"] and "'8'" in finding["message"]
    assert (
        "x-custom-labels"
        in one(generic_page, "wrong-default", "--tokenizer-metrics-custom-labels-header")["message"]
    )


def test_generic_page_lora_paths_placeholders_vanish_as_html(
    generic_page: dict[str, object],
) -> None:
    finding = one(generic_page, "raw-html", "--lora-paths")
    assert finding["line"] == line_of(SERVER_ARGUMENTS, "| `--lora-paths`")
    assert "<PATH>" in finding["message"]


def test_generic_page_has_no_type_column_so_no_type_findings(
    generic_page: dict[str, object],
) -> None:
    assert findings_of(generic_page, "wrong-type") == []
    assert findings_of(generic_page, "wrong-options") == []


def test_generic_page_prose_and_launch_examples_are_not_rows(
    generic_page: dict[str, object],
) -> None:
    # The launch examples name --tp and --dp, which are no rows of any table: not audited.
    assert generic_page["rows"] == len(table_row_lines(SERVER_ARGUMENTS))
    flags = {f["flag"] for f in generic_page["findings"]}  # type: ignore[union-attr]
    assert "--tp" not in flags and "--dp" not in flags


# ------------------------------------------------------------------ copied text


def test_copied_text_layout_is_audited_with_lines() -> None:
    code, report = audit_json(ASCEND_COPIED)
    assert code == 1 and report["layout"] == "text"
    wrong_type = one(report, "wrong-type", "--mm-per-request-timeout")
    # The page wraps this long flag after a "-": the row starts on the flag's first line.
    assert wrong_type["line"] == line_of(ASCEND_COPIED, "--mm-per-request-")
    assert "float" in wrong_type["message"] and "int" in wrong_type["message"]
    options = one(report, "wrong-options", "--load-balance-method")
    assert options["line"] == line_of(ASCEND_COPIED, "--load-balance-method")
    assert "total_requests" in options["message"]
    assert one(report, "unknown-flag", "--oltp-traces-endpoint")["line"] == line_of(
        ASCEND_COPIED, "--oltp-traces-endpoint"
    )


# ------------------------------------------------------------------ fixture pages


def test_a_page_that_agrees_exits_0() -> None:
    result = run_cli_in_process(
        "audit", str(FIXTURE_PAGES / "tiny_reference.md"), cwd=FIXTURE_PROJECT
    )
    assert result.code == 0, result.out
    assert result.out == "argmatrix audit: the page agrees with the registry (11 rows)\n"


@pytest.fixture(scope="module")
def drifted() -> dict[str, object]:
    code, report = audit_json(FIXTURE_PAGES / "tiny_drifted.md", cwd=FIXTURE_PROJECT)
    assert code == 1
    return report


@pytest.mark.parametrize(
    ("kind", "flag", "row_text"),
    [
        ("unknown-flag", "--prot", "`--prot`"),
        ("unknown-flag", "--retired-switch", "`--retired-switch`"),
        ("wrong-type", "--retired-switch", "`--retired-switch`"),
        ("wrong-options", "--dtype", "`--dtype`"),
        ("wrong-type", "--page-size", "`--page-size`"),
        ("broken-row", "--backend", "`--backend`"),
        ("wrong-options", "--backend", "`--backend`"),
        ("wrong-default", "--log-format", "`--log-format`"),
        ("raw-html", "--enable-metrics", "`--enable-metrics`"),
        ("wrong-type", "--enable-metrics", "`--enable-metrics`"),
        ("wrong-type", "--warmup-prompts", "`--warmup-prompts`"),
        ("duplicate-flag", "--max-batch", "`--mb`"),
        ("missing-flag", "--port", "## Serving"),
        ("missing-flag", "--schedule-policy", "## Scheduling"),
        ("missing-flag", "--max-batch-size", "## Scheduling"),
    ],
)
def test_each_defect_of_the_drifted_page_is_found_at_its_line(
    drifted: dict[str, object], kind: str, flag: str, row_text: str
) -> None:
    assert one(drifted, kind, flag)["line"] == line_of(FIXTURE_PAGES / "tiny_drifted.md", row_text)


def test_the_drifted_page_has_nothing_else(drifted: dict[str, object]) -> None:
    assert len(drifted["findings"]) == 15  # type: ignore[arg-type]
    assert one(drifted, "unknown-flag", "--prot")["fix"] == "did you mean --port?"
    assert "bfloat16" in one(drifted, "wrong-options", "--dtype")["message"]
    assert "tpu" in one(drifted, "wrong-options", "--backend")["message"]


def test_text_output_is_one_line_per_finding_then_a_summary() -> None:
    result = run_cli_in_process(
        "audit", str(FIXTURE_PAGES / "tiny_drifted.md"), cwd=FIXTURE_PROJECT
    )
    assert result.code == 1
    lines = result.out.splitlines()
    assert len(lines) == 16
    drifted = FIXTURE_PAGES / "tiny_drifted.md"
    page = os.path.relpath(drifted, FIXTURE_PROJECT)  # paths read from where it runs
    assert lines[0].startswith(f"{page}:{line_of(drifted, '`--dtype`')}: ")
    assert lines[-1].startswith("argmatrix audit: 15 finding(s) on 11 rows: 1 broken-row,")


def test_audit_file_reads_the_page_then_the_configured_registry() -> None:
    from argmatrix.adoption.audit import audit_file
    from argmatrix.project import SourceOptions

    with chdir(FIXTURE_PROJECT):
        report = audit_file(FIXTURE_PAGES / "tiny_drifted.md", SourceOptions())
    assert len(report.findings) == 15 and len(report.page.rows) == 11
    assert report.counts()["broken-row"] == 1


def test_a_platform_page_may_list_a_subset_of_the_choices() -> None:
    code, report = audit_json(FIXTURE_PAGES / "npu_marks.md", cwd=FIXTURE_PROJECT)
    assert code == 1
    assert [f["flag"] for f in findings_of(report, "wrong-options")] == ["--backend"]  # tpu only
    assert "manifest" in one(report, "wrong-default", "--page-size")["fix"]


def test_a_short_row_of_the_copied_text_layout_is_broken() -> None:
    code, report = audit_json(FIXTURE_PAGES / "npu_copied.txt", cwd=FIXTURE_PROJECT)
    assert code == 1 and report["layout"] == "text"
    broken = one(report, "broken-row", "--backend")
    assert broken["line"] == line_of(FIXTURE_PAGES / "npu_copied.txt", "--backend")
    assert "3 cells" in broken["message"]


# ------------------------------------------------------------------ bad input


def test_a_missing_page_is_bad_input() -> None:
    result = run_cli_in_process("audit", str(FIXTURE_PAGES / "nowhere.md"), cwd=FIXTURE_PROJECT)
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("argmatrix: error: ") and "page not found" in result.err


def test_a_page_without_argument_tables_is_bad_input(tmp_path: Path) -> None:
    page = tmp_path / "prose.md"
    page.write_text("# Notes\n\nJust words, and `--port` once.\n", encoding="utf-8")
    result = run_cli_in_process("audit", str(page), cwd=FIXTURE_PROJECT)
    assert result.code == 2
    assert f"{page}:1: no argument table found" in result.err


# ------------------------------------------------------------------ the pieces


def argument(**fields: object) -> Argument:
    base: dict[str, object] = {"flags": ("--x",), "dest": "x"}
    base.update(fields)
    return Argument(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "fields", "agrees"),
    [
        # None is written None, null, -, or left empty; it matches only None.
        ("None", {"default": None}, True),
        ("", {"default": None}, True),
        ("`None`", {"default": None}, True),
        ("null", {"default": None}, True),
        ("-", {"default": None}, True),
        ("None", {"default": ""}, False),
        ("", {"default": ""}, False),
        ("None", {"default": False, "action": "store_true"}, False),
        ("None", {"default": 0, "type": "int"}, False),
        ("None", {"default": []}, False),
        ("{}", {"default": None}, False),
        # The empty string is quoted, or an empty code span.
        ('""', {"default": ""}, True),
        ("''", {"default": ""}, True),
        ("``", {"default": ""}, True),
        ('""', {"default": None}, False),
        # Strings: quotes and backticks are markup; case counts.
        ("'auto'", {"default": "auto"}, True),
        ('"auto"', {"default": "auto"}, True),
        ("`auto`", {"default": "auto"}, True),
        ("Auto", {"default": "auto"}, False),
        ("8", {"default": "8"}, True),
        ("{}", {"default": "{}"}, True),
        # Numbers: 1 and 1.0 are one number; a bool or a quoted text is not a number.
        ("1", {"default": 1.0, "type": "float"}, True),
        ("1.0", {"default": 1, "type": "int"}, True),
        ("1e6", {"default": 1000000, "type": "int"}, True),
        ("-1", {"default": -1, "type": "int"}, True),
        ("0", {"default": None, "type": "int"}, False),
        ("False", {"default": 0, "type": "int"}, False),
        ("'8'", {"default": 8, "type": "int"}, False),
        # Bools: True/False in any case; not 0/1, not None.
        ("False", {"default": False, "action": "store_true"}, True),
        ("false", {"default": False, "type": "str2bool"}, True),
        ("False", {"default": None, "action": "store_true"}, False),
        ("0", {"default": False, "type": "str2bool"}, False),
        ("True", {"default": False, "action": "store_true"}, False),
        # Containers, item by item with the same rule.
        ("[]", {"default": []}, True),
        ("a, b", {"default": ["a", "b"]}, True),
        ("`a`, `b`", {"default": ["a", "b"]}, True),
        ("`a`,`b`", {"default": ["a", "b"]}, True),
        ("`a`, `c`", {"default": ["a", "b"]}, False),
        ("`a`", {"default": ["a", "b"]}, False),
        ("`a, b`, `c`", {"default": ["a", "b", "c"]}, False),
        ("`a`, `b, c`", {"default": ["a", "b", "c"]}, False),
        ("`a`, `b`", {"default": ["a, b"]}, False),
        ("`1`, `2`", {"default": [1, 2]}, True),
        ("``, `a`", {"default": ["", "a"]}, True),
        ("`'a'`, `b`", {"default": ["a", "b"]}, True),
        # NaN is a number equal to NaN here, as a reader means it.
        ("nan", {"default": float("nan"), "type": "float"}, True),
        ("NaN", {"default": float("nan"), "type": "float"}, True),
        ("0.0", {"default": float("nan"), "type": "float"}, False),
        ("nan", {"default": 0.0, "type": "float"}, False),
        ("['a', 'b']", {"default": ["a", "b"]}, True),
        ("('a', 'b')", {"default": ["a", "b"]}, True),
        ("[1, 2]", {"default": ["1", "2"]}, False),
        ("a", {"default": ["a", "b"]}, False),
        ("{'k': 1}", {"default": {"k": 1}}, True),
        ("{'k': True}", {"default": {"k": 1}}, False),
        # A required argument.
        ("required", {"default": None, "required": True}, True),
        ("required", {"default": None}, False),
    ],
)
def test_defaults_are_compared_by_value_and_class(
    text: str, fields: dict[str, object], agrees: bool
) -> None:
    assert default_agrees(text, argument(**fields)) is agrees


def test_a_default_computed_at_run_time_is_not_compared() -> None:
    from argmatrix.model.registry import Unevaluated

    assert default_agrees("anything", argument(default=Unevaluated("os.cpu_count()"))) is None


@pytest.mark.parametrize(
    ("cell", "base", "many"),
    [
        ("Type: str", "str", False),
        ("Type: str'", "str", False),
        ("Type: Optional[str]", "str", False),
        ("Optional[float]", "float", False),
        ("List[int]", "int", True),
        ("Type: List[str] / JSON objects", "str", True),
        ("Type: JSON list", "json", True),
        ("bool flag (set to enable)", "bool", False),
        ("Bool flag (set to enable)", "bool", False),
        ("Type: int (value optional)", "int", False),
    ],
)
def test_type_hints_are_read(cell: str, base: str, many: bool) -> None:
    hint = type_hint(Cell(cell))
    assert hint is not None and (hint.base, hint.many) == (base, many)


@pytest.mark.parametrize("cell", ["`auto`, `slow`", "'auto', 'sglang'", "N/A", "lru, fifo"])
def test_value_lists_are_not_type_hints(cell: str) -> None:
    assert type_hint(Cell(cell)) is None


def test_json_and_str_are_one_type_to_the_command_line() -> None:
    loads = registry_kind(argument(type="loads"))
    assert loads is not None
    page = type_hint(Cell("Type: str"))
    assert page is not None and types_agree(page, loads)
    wrong = type_hint(Cell("Type: int"))
    assert wrong is not None and not types_agree(wrong, loads)


@pytest.mark.parametrize(
    ("lines", "flags"),
    [
        (("--model-path", "--model"), ("--model-path", "--model")),
        (("--model-loader-", "extra-config"), ("--model-loader-extra-config",)),
        (("--disable-overlap", "-schedule"), ("--disable-overlap-schedule",)),
        (
            ("--checkpoint-engine-", "wait-weights-", "before-ready"),
            ("--checkpoint-engine-wait-weights-before-ready",),
        ),
        (
            ("--expert-parallel-size", "--ep-size", "--ep"),
            ("--expert-parallel-size", "--ep-size", "--ep"),
        ),
        (("-1",), None),
        (("Type: int",), None),
        (("--port is the port",), None),
    ],
)
def test_wrapped_flags_of_copied_text(
    lines: tuple[str, ...], flags: tuple[str, ...] | None
) -> None:
    assert wrapped_flags(lines) == flags


def test_in_process_audit_matches_the_tiny_registry() -> None:
    registry = load_registry(
        RegistrySpec("tinyserver:ServerArgs.add_cli_args", mode="static", base_dir=FIXTURE_PROJECT)
    )
    report = audit_page(read_page(FIXTURE_PAGES / "tiny_reference.md"), registry)
    assert report.findings == ()
    page = parse_page("| Argument | Default |\n|---|---|\n| `--port` | 8001 |\n", "inline.md")
    kinds = [(f.kind, f.flag, f.line) for f in audit_page(page, registry).findings]
    assert ("wrong-default", "--port", 3) in kinds
