"""`argmatrix import`: hand-written support pages become manifests that reproduce their facts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from argmatrix.adoption.handwritten import parse_page
from argmatrix.adoption.importer import import_page, manifest_text, scalar, status_of_cell
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.manifests.load import load_manifest
from argmatrix.manifests.resolve import resolve_platform
from argmatrix.project import load_project
from argmatrix.render.pages import render_project
from helpers import (
    ASCEND_COPIED,
    ASCEND_MARKS,
    FIXTURE_PAGES,
    FIXTURE_PROJECT,
    REPO,
    chdir,
    line_of,
    run_cli_in_process,
)
from support_page_text import copied_page_rows

# Rows of tests/fixtures/handwritten/ascend_marks.md for flags sglang 0.5.7 does not have.
NOT_IN_THE_REGISTRY = ("--crash-on-nan", "--oltp-traces-endpoint")


def import_cli(page: Path, output: Path, *extra: str, cwd: Path = REPO) -> str:
    result = run_cli_in_process(
        "import",
        str(page),
        "--platform",
        "ascend" if cwd == REPO else "npu",
        "-o",
        str(output),
        *extra,
        cwd=cwd,
    )
    assert result.code == 0, result.err
    assert result.out == ""
    return result.err


def exported(manifest: Path, cwd: Path = REPO) -> dict[str, Any]:
    result = run_cli_in_process("export", "--manifest", str(manifest), cwd=cwd)
    assert result.code == 0, result.err
    platforms = json.loads(result.out)["platforms"]
    assert len(platforms) == 1
    return next(iter(platforms.values()))["arguments"]


def variant_marks(text: str) -> dict[str, tuple[bool, bool]]:
    """Flag -> (A2 √, A3 √), read straight from the table lines, independently of argmatrix."""
    marks: dict[str, tuple[bool, bool]] = {}
    for line in text.splitlines():
        match = re.match(r"^\|\s*`(--[\w-]+)`", line)
        if not match:
            continue
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        a2, a3 = ("√" in cell for cell in cells[-2:])
        marks.setdefault(match.group(1), (a2, a3))
    return marks


# ------------------------------------------------------------------ √/× per variant


@pytest.fixture(scope="module")
def marks_import(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    output = tmp_path_factory.mktemp("import") / "ascend.yaml"
    notes = import_cli(ASCEND_MARKS, output)
    return output, notes


def test_marks_page_import_then_export_reproduces_every_mark(
    marks_import: tuple[Path, str],
) -> None:
    manifest, _ = marks_import
    arguments = exported(manifest)
    marks = variant_marks(ASCEND_MARKS.read_text(encoding="utf-8"))
    checked = 0
    for flag, (a2, a3) in marks.items():
        if flag not in arguments:
            continue  # not an argument of sglang 0.5.7: left out of the manifest
        expected = [v for v, ok in (("A2", a2), ("A3", a3)) if ok]
        entry = arguments[flag]
        if expected:
            assert (entry["status"], entry["variants"]) == ("supported", expected), flag
        else:
            assert entry["status"] == "unsupported", flag
            assert entry["reason"] == "marked unsupported on the imported page"
        checked += 1
    assert set(NOT_IN_THE_REGISTRY) <= set(marks)
    assert checked == len(marks) - len(NOT_IN_THE_REGISTRY)  # every other row of the page
    assert {flag for flag, (a2, a3) in marks.items() if a2 != a3} == {"--model-impl"}
    assert arguments["--model-impl"]["variants"] == ["A3"]


def test_marks_page_flags_the_registry_lacks_are_left_out_and_reported(
    marks_import: tuple[Path, str],
) -> None:
    manifest, notes = marks_import
    text = manifest.read_text(encoding="utf-8")
    assert "--oltp-traces-endpoint" not in text and "--crash-on-nan" not in text
    line = line_of(ASCEND_MARKS, "`--oltp-traces-endpoint`")
    assert (
        f"argmatrix: note: {ASCEND_MARKS}:{line}: --oltp-traces-endpoint is not an argument of"
        " the registry; left out (fix: did you mean --otlp-traces-endpoint?)"
    ) in notes
    assert "--crash-on-nan is not an argument of the registry; left out" in notes


def test_marks_page_manifest_loads_cleanly_with_subsets_and_defaults(
    marks_import: tuple[Path, str],
) -> None:
    manifest, _ = marks_import
    platform = load_manifest(manifest)
    assert (platform.name, platform.title, platform.variants) == (
        "ascend",
        "Ascend NPU",
        ("A2", "A3"),
    )
    assert platform.default == "unverified"
    dtype = platform.arguments["--dtype"]
    assert dtype.options == ("auto", "float16", "bfloat16")  # a strict subset of six choices
    page_size = platform.arguments["--page-size"]
    assert page_size.has_default and page_size.default == 128  # the registry says None
    assert platform.arguments["--soft-watchdog-timeout"].default == 300.0
    assert "--expert-parallel-size" in platform.arguments
    assert not platform.arguments["--expert-parallel-size"].has_default  # "tp-size" is no int


def test_marks_page_manifest_is_in_registry_order_with_section_comments(
    marks_import: tuple[Path, str],
) -> None:
    manifest, _ = marks_import
    lines = manifest.read_text(encoding="utf-8").splitlines()
    keys = [line.split(":")[0].strip() for line in lines if line.startswith("  --")]
    project = load_project(cwd=REPO)
    order = [a.name for a in project.registry.arguments]
    assert keys == sorted(keys, key=order.index)
    comments = [line.strip() for line in lines if line.startswith("  # ")]
    assert comments[:3] == [
        "# Model and tokenizer",
        "# HTTP server",
        "# Quantization and data type",
    ]


def test_importing_twice_gives_the_same_bytes(
    marks_import: tuple[Path, str], tmp_path: Path
) -> None:
    manifest, _ = marks_import
    again = tmp_path / "again.yaml"
    import_cli(ASCEND_MARKS, again)
    assert again.read_bytes() == manifest.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["again.yaml"]  # no temporary file left


def test_a_broken_row_still_gives_its_marks(tmp_path: Path) -> None:
    lines = ASCEND_MARKS.read_text(encoding="utf-8").split("\n")
    row = line_of(ASCEND_MARKS, "| `--lora-paths`")
    pipes = lines[row - 1].count("\\|")
    assert pipes  # the row writes its pipes escaped; unescaped, each adds a cell
    lines[row - 1] = lines[row - 1].replace("\\|", "|")
    page = tmp_path / "ascend.md"
    page.write_text("\n".join(lines), encoding="utf-8")
    notes = import_cli(page, tmp_path / "out.yaml")
    header = next(line for line in reversed(lines[: row - 1]) if line.startswith("| Argument"))
    width = len(re.split(r"(?<!\\)\|", header.strip().strip("|")))
    assert f"{page}:{row}: --lora-paths: the row has {width + pipes} cells" in notes
    assert exported(tmp_path / "out.yaml")["--lora-paths"]["status"] == "supported"


# ------------------------------------------------------------------ copied text


def test_copied_page_statuses_reasons_and_subsets(tmp_path: Path) -> None:
    output = tmp_path / "ascend.yaml"
    notes = import_cli(ASCEND_COPIED, output)
    platform = load_manifest(output)
    entries = platform.arguments
    assert platform.variants == ("A2", "A3")
    assert entries["--model-path"].status == "supported"
    assert entries["--model-path"].variants is None  # "A2, A3" is every variant
    rows = copied_page_rows()
    on_page = {row.flags[0]: row.supported for row in rows}
    # Both spellings the page uses ("Special for GPU", "Special For GPU") give one reason.
    spellings = {on_page["--quantization-param-path"], on_page["--kv-events-config"]}
    assert spellings == {"Special For GPU", "Special for GPU"}
    for flag in ("--quantization-param-path", "--kv-events-config"):
        assert (entries[flag].status, entries[flag].reason) == ("not-applicable", "Special for GPU")
    assert entries["--speculative-ngram-capacity"].status == "experimental"
    assert entries["--enable-multimodal"].status in ("supported", "planned")
    planned = [flag for flag, entry in entries.items() if entry.status == "planned"]
    assert set(planned) == {flag for flag, status in on_page.items() if status == "Planned"}
    assert planned
    # The tables under "Other Params" have no status column: each group of arguments is not
    # supported, for the reason the paragraph before its table gives.
    text = ASCEND_COPIED.read_text(encoding="utf-8")
    other_params = text.splitlines()[line_of(ASCEND_COPIED, "Other Params#") :]
    other = entries["--checkpoint-engine-wait-weights-before-ready"]
    assert other.status == "unsupported" and other.reason in other_params
    assert "NPU" in (other.reason or "")
    assert entries["--tool-server"].status == "unsupported"
    assert entries["--tool-server"].reason in other_params
    assert entries["--tool-server"].reason != other.reason  # the second group has its own
    assert entries["--load-format"].options == ("auto", "safetensors")
    assert entries["--load-balance-method"].options == ("round_robin",)
    assert "total_requests, total_tokens are not among the registry's choices" in notes
    assert "--oltp-traces-endpoint" not in entries and "--otlp-traces-endpoint" not in entries


# ------------------------------------------------------------------ fixture pages


def manifest_facts(path: Path) -> dict[str, tuple[Any, ...]]:
    return {
        flag: (e.status, e.variants, e.options, e.default if e.has_default else "-", e.reason)
        for flag, e in load_manifest(path).arguments.items()
    }


def test_per_variant_marks_of_a_fixture_page(tmp_path: Path) -> None:
    output = tmp_path / "npu.yaml"
    notes = import_cli(FIXTURE_PAGES / "npu_marks.md", output, cwd=FIXTURE_PROJECT)
    assert manifest_facts(output) == {
        "--model-path": ("supported", None, None, "-", None),
        "--dtype": ("supported", None, ("auto", "bfloat16"), "-", None),
        "--port": ("unsupported", None, None, "-", "marked unsupported on the imported page"),
        "--page-size": ("supported", None, None, 128, None),
        "--backend": ("supported", ("V2",), ("npu",), "-", None),
        "--log-format": ("experimental", None, None, "-", None),
        "--warmup-prompts": ("planned", None, None, "-", None),
        "--max-batch": ("supported", ("V1",), None, "-", None),  # the page used --mb
        "--schedule-policy": ("supported", None, ("fcfs", "lpm"), "-", None),
    }
    assert "--graph-capture is not an argument of the registry; left out" in notes
    assert "--backend: tpu is not among the registry's choices" in notes
    assert "--backend: the row has 7 cells but its header has 6" in notes


def test_import_file_writes_the_manifest_and_returns_what_it_left_out(tmp_path: Path) -> None:
    from argmatrix.adoption.importer import import_file
    from argmatrix.project import SourceOptions

    output = tmp_path / "npu.yaml"
    with chdir(FIXTURE_PROJECT):
        imported = import_file(FIXTURE_PAGES / "npu_marks.md", SourceOptions(), "npu", None, output)
    assert imported.platform == "npu" and len(imported.entries) == 9
    assert manifest_facts(output)["--port"][0] == "unsupported"
    assert any("--graph-capture is not an argument" in str(note) for note in imported.notes)


def test_copied_text_of_a_fixture_page(tmp_path: Path) -> None:
    output = tmp_path / "npu.yaml"
    import_cli(
        FIXTURE_PAGES / "npu_copied.txt",
        output,
        "--title",
        "Example NPU (copied)",
        cwd=FIXTURE_PROJECT,
    )
    reason = "The arguments below need the GPU sampler, which this device lacks."
    assert manifest_facts(output) == {
        "--model-path": ("supported", None, None, "-", None),
        "--dtype": ("supported", None, ("auto", "bfloat16"), "-", None),
        "--port": ("unsupported", None, None, "-", reason),
        "--page-size": ("supported", ("V2",), None, 128, None),
        "--log-format": ("experimental", None, None, "-", None),
        "--enable-metrics": ("not-applicable", None, None, "-", "Special for GPU"),
        "--warmup-prompts": ("planned", None, None, "-", None),
        "--max-batch": ("unsupported", None, None, "-", reason),
        "--schedule-policy": ("supported", ("V1",), ("fcfs", "lpm"), "-", None),
    }
    assert load_manifest(output).title == "Example NPU (copied)"


def test_a_generated_status_page_imports_back_to_the_same_resolved_facts(tmp_path: Path) -> None:
    project = load_project(cwd=FIXTURE_PROJECT)
    page = next(
        p
        for p in render_project(project.config, project.registry, project.resolved)
        if p.spec.platform == "npu" and not p.spec.options
    )
    imported = import_page(parse_page(page.text, "npu.md"), project.registry, "npu", None)
    output = tmp_path / "npu.yaml"
    output.write_text(manifest_text(imported, project.registry, "npu.md"), encoding="utf-8")
    again = resolve_platform(load_manifest(output), project.registry)
    original = project.resolved["npu"]
    for argument in project.registry.arguments:
        if argument.hidden:
            continue
        before, after = original.of(argument), again.of(argument)
        assert (after.status, after.variants, after.options, after.default, after.reason) == (
            before.status,
            before.variants,
            before.options,
            before.default,
            before.reason,
        ), argument.name


# ------------------------------------------------------------------ refusals


def test_a_page_without_support_columns_is_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    output = tmp_path / "npu.yaml"
    result = run_cli_in_process(
        "import",
        str(FIXTURE_PAGES / "tiny_reference.md"),
        "--platform",
        "npu",
        "-o",
        str(output),
        cwd=FIXTURE_PROJECT,
    )
    assert result.code == 2
    assert "no support columns" in result.err
    assert not output.exists()


def test_a_bad_platform_name_leaves_an_existing_file_alone(tmp_path: Path) -> None:
    output = tmp_path / "npu.yaml"
    output.write_text("platform: keep-me\n", encoding="utf-8")
    result = run_cli_in_process(
        "import",
        str(FIXTURE_PAGES / "npu_marks.md"),
        "--platform",
        "no spaces",
        "-o",
        str(output),
        cwd=FIXTURE_PROJECT,
    )
    assert result.code == 2
    assert "--platform 'no spaces' is not a platform name" in result.err
    assert output.read_text(encoding="utf-8") == "platform: keep-me\n"


# ------------------------------------------------------------------ the pieces


@pytest.mark.parametrize(
    ("cell", "status", "variants", "reason"),
    [
        ("A2, A3", "supported", ("A2", "A3"), None),
        ("A3", "supported", ("A3",), None),
        ("Special For GPU", "not-applicable", None, "Special for GPU"),
        ("Planned", "planned", None, None),
        ("Experimental", "experimental", None, None),
        ("Experimental (A2)", "experimental", ("A2",), None),
        ("Not supported", "unsupported", None, "marked unsupported on the imported page"),
    ],
)
def test_status_cells(
    cell: str, status: str, variants: tuple[str, ...] | None, reason: str | None
) -> None:
    entry, _ = status_of_cell(cell)
    assert entry is not None
    assert (entry.status, entry.variants, entry.reason) == (status, variants, reason)


@pytest.mark.parametrize("cell", ["Unverified", "?", "", "Partial", "Works on most models"])
def test_unknown_status_cells_give_no_entry(cell: str) -> None:
    assert status_of_cell(cell) == (None, ())


def test_an_unreadable_status_is_left_out_with_a_note() -> None:
    registry = load_registry(
        RegistrySpec("tinyserver:ServerArgs.add_cli_args", mode="static", base_dir=FIXTURE_PROJECT)
    )
    text = (
        "| Argument | Server supported |\n|---|---|\n| `--port` | Partial |\n| `--dtype` | V1 |\n"
    )
    imported = import_page(parse_page(text, "p.md"), registry, "npu", None)
    assert list(imported.entries) == ["--dtype"]
    assert imported.variants == ("V1",)
    assert [(n.line, n.message) for n in imported.notes] == [
        (3, "--port: the status 'Partial' is not understood; left out")
    ]


_VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)


@given(_VALUES)
def test_scalars_read_back_as_written_in_a_flow_mapping(value: Any) -> None:
    loaded = yaml.safe_load("{k: " + scalar(value) + ", other: 1}")
    assert loaded == {"k": value, "other": 1}


def test_argmatrix_own_status_symbols_read_back_as_marks() -> None:
    """A per-variant page argmatrix wrote marks variants with the matrix's symbols
    (model.platform.STATUS_ICONS): import reads each back as the status it stands for."""
    from argmatrix.adoption.handwritten import (
        EXPERIMENTAL,
        NO,
        PLANNED,
        UNKNOWN,
        YES,
        mark_of,
    )
    from argmatrix.model.platform import STATUS_ICONS

    expected = {
        "supported": YES,
        "experimental": EXPERIMENTAL,
        "planned": PLANNED,
        "unsupported": NO,
        "unverified": UNKNOWN,
        "unclassified": UNKNOWN,
    }
    for status, mark in expected.items():
        assert mark_of(STATUS_ICONS[status]) == mark, status
