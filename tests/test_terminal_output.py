"""Nothing an input holds reaches a terminal or a CI log as a control sequence or a command.

A flag name, a help text, a manifest entry or a page on disk may come from a pull request. What
`check` and `generate` print (text, GitHub annotations, JSON, the diff, warnings and errors)
shows control characters as visible escapes, so no terminal sequence runs, no line is faked,
and no GitHub workflow command (`::add-mask::`, `::stop-commands::`, `##[set-output]`) is read
by the runner. JSON output stays valid and holds the very same strings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from argmatrix.checks.report import _indent, emit, github_annotation, text_line
from argmatrix.checks.run import Report
from argmatrix.errors import Problem, printable
from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.model.findings import Finding
from helpers import append_to, copy_project, load, run_cli_in_process

HOSTILE_FLAG = "--x\n::add-mask::oops\x1b[31m"
HOSTILE_HELP = (
    "Port.\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \u202egnp.exe\r##[set-output x]"
)
# Never raw in output: C0 controls but tab, DEL, C1, bidirectional controls, line separators,
# lone surrogates.
UNSAFE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _safe_line(line: str, annotations: bool = False) -> None:
    """One line of output as a log shows it: no control character, no workflow command but
    argmatrix's own annotations and the group a stale page's diff is folded in."""
    assert UNSAFE.search(line) is None, line
    assert "##[" not in line, line
    stripped = line.lstrip()
    if stripped.startswith("::"):
        assert annotations, line
        assert line == stripped, line  # argmatrix's own, never indented like a diff line
        assert re.match(r"::((error|warning) file=|group::argmatrix: diff of |endgroup::$)", line)


def _safe_output(text: str, annotations: bool = False) -> None:
    for line in text.split("\n"):
        _safe_line(line, annotations)


# ------------------------------------------------------------------ printable


@given(st.text())
@example("--x\n::add-mask::oops\x1b[31m")
@example("  ::stop-commands::token")
@example("a##[set-output name=x]b")
@example("\ud800\u202e\x9b")
def test_printable_gives_one_safe_line(text: str) -> None:
    shown = printable(text)
    _safe_line(shown)
    shown.encode("utf-8")  # no lone surrogate: always printable, whatever the terminal
    if UNSAFE.search(text) is None and "::" not in text and "##[" not in text:
        assert shown == text  # ordinary text is left alone


def test_printable_shows_what_it_escaped() -> None:
    assert printable("a\nb\r\x1b[31m\u202e\x00") == "a\\nb\\r\\x1b[31m\\u202e\\x00"
    assert printable("  ::add-mask::x") == "  \\x3a:add-mask::x"
    assert printable("a::b ##[x]") == "a::b ##\\x5bx]"
    assert printable("tab\tand unicode: é 漢字 — ok") == "tab\tand unicode: é 漢字 — ok"


def test_an_error_line_stays_one_safe_line() -> None:
    problem = Problem("unknown key '\x1b[2Jx'\n::add-mask::y", "m.yaml", 3, "use \u202eone")
    shown = str(problem)
    _safe_line(shown)
    assert shown.startswith("m.yaml:3: unknown key '\\x1b[2Jx' ::add-mask::y")


def test_a_diff_line_cannot_start_a_workflow_command() -> None:
    diff = " ::add-mask::secret\n-\x1b[2Jold\n+new\n"
    shown = _indent(diff)
    assert shown.splitlines() == ["     \\x3a:add-mask::secret", "    -\\x1b[2Jold", "    +new"]


def test_text_and_annotation_lines_of_a_hostile_finding() -> None:
    finding = Finding(
        "unclassified-argument",
        f"{HOSTILE_FLAG} has no status",
        flag=HOSTILE_FLAG,
        file="docs/x\x1b[31m.md",
        line=3,
        fix=f"add '{HOSTILE_FLAG}: <status>'",
    )
    for colour in (False, True):
        line = text_line(finding, colour)
        assert "\n" not in line
        _safe_line(line.replace("\x1b[31m", "").replace("\x1b[33m", "").replace("\x1b[0m", ""))
    annotation = github_annotation(finding)
    assert "\n" not in annotation and "\r" not in annotation
    _safe_line(annotation, annotations=True)
    # The data part: '%' escaped, so GitHub's unescaping gives back what printable showed.
    percent = Finding("dead-flag", "100%0A::add-mask::x", file="a.md", line=1)
    assert github_annotation(percent).endswith("::100%250A::add-mask::x")


# ------------------------------------------------------------------ through the command line


def _hostile_project(tmp_path: Path) -> Path:
    """The fixture project read from a snapshot whose --port is renamed HOSTILE_FLAG and whose
    help text carries terminal sequences; the manifest names a flag with an escape in it."""
    root = copy_project(tmp_path)
    data = json.loads(
        snapshot_text(load("tinyserver:ServerArgs.add_cli_args", "static", base_dir=root))
    )
    port = next(a for a in data["registry"]["arguments"] if a["flags"] == ["--port"])
    port["flags"] = [HOSTILE_FLAG]
    port["help"] = HOSTILE_HELP
    (root / "registry.json").write_text(json.dumps(data))
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text().replace(
            "  target: tinyserver:ServerArgs.add_cli_args\n  mode: static\n",
            "  target: registry.json\n",
        )
    )
    manifest = root / "capabilities" / "npu.yaml"
    text = manifest.read_text().replace("default: unverified\n", "")  # --port: unclassified
    manifest.write_text(text + '  "--gone\\e]0;pwned\\a": supported\n')
    return root


def test_check_output_in_every_format_is_safe(tmp_path: Path) -> None:
    root = _hostile_project(tmp_path)
    stopped = run_cli_in_process("generate", cwd=root)  # the manifest's errors stop it
    assert stopped.code == 1, stopped
    _safe_output(stopped.err)
    assert "--gone\\x1b]0;pwned\\x07 is not an argument" in stopped.err
    append_to(root / "argmatrix.yaml", "checks:\n  severity: {stale-manifest-entry: warning}\n")
    generated = run_cli_in_process("generate", cwd=root)
    assert generated.code == 0, generated
    _safe_output(generated.out)
    _safe_output(generated.err)
    page = root / "docs" / "reference" / "server_arguments.md"
    append_to(page, "\x1b[2J\x1b]0;pwned\x07 ::add-mask::x\n")

    text = run_cli_in_process("check", cwd=root)
    assert text.code == 1
    _safe_output(text.out)
    _safe_output(text.err)
    assert "\\x1b[2J\\x1b]0;pwned\\x07 ::add-mask::x" in text.out  # the diff, escaped
    assert "--x\\n::add-mask::oops\\x1b[31m has no status" in text.out
    assert "--gone\\x1b]0;pwned\\x07 is not an argument" in text.out

    github = run_cli_in_process("check", "--format", "github", cwd=root)
    assert github.code == 1
    _safe_output(github.out, annotations=True)
    assert "::group::argmatrix: diff of docs/reference/server_arguments.md" in github.out
    assert "\\x1b[2J\\x1b]0;pwned\\x07 ::add-mask::x" in github.out  # the diff, escaped

    raw = run_cli_in_process("check", "--format", "json", cwd=root)
    assert raw.code == 1
    _safe_output(raw.out.replace("\\n", ""))
    findings = json.loads(raw.out)
    flags = {f["flag"] for f in findings}
    assert HOSTILE_FLAG in flags and "--gone\x1b]0;pwned\x07" in flags  # exact values
    diff = next(f["diff"] for f in findings if f["kind"] == "stale-page")
    assert "\x1b[2J\x1b]0;pwned\x07 ::add-mask::x" in diff


def test_json_output_escapes_what_json_leaves_raw() -> None:
    finding = Finding("dead-flag", "a\x9bb \u202e c \u2028 d ##[x] \ud800", file="f.md", line=1)
    out = _Stream()
    emit(Report((finding,), {}), "json", out)
    _safe_output(out.text)
    assert json.loads(out.text)[0]["message"] == finding.message


class _Stream:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def isatty(self) -> bool:
        return False
