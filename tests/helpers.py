"""The tests' shared helpers, one of each: where things are, the fixture registries, running the
command line, editing a project's files, the static reader's sandbox and reading Markdown tables.

A plain module, imported as `from helpers import ...`; conftest.py holds the fixtures only.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from markdown_it import MarkdownIt

from argmatrix.cli.main import main
from argmatrix.loaders.load import Mode, RegistrySpec, load_registry
from argmatrix.model.registry import Registry, registry_to_dict

# ------------------------------------------------------------------ where things are

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
FIXTURE_PROJECT = FIXTURES / "project"  # a small project: tinyserver.py, one manifest, 3 pages
FIXTURE_PAGES = FIXTURES / "pages"  # hand-written pages about tinyserver, for audit and import
REGISTRIES = FIXTURES / "registries"
BROKEN = FIXTURES / "broken"
HOSTILE = FIXTURES / "hostile"
GOLDEN = TESTS / "golden"

# Hand-written pages about real registries, in the layouts of real docs sites, with the defects
# of real pages kept on purpose (tests/fixtures/handwritten/README.md lists them).
HANDWRITTEN = FIXTURES / "handwritten"
ASCEND_MARKS = HANDWRITTEN / "ascend_marks.md"  # sglang 0.5.7, Markdown, √/× per Ascend variant
SERVER_ARGUMENTS = HANDWRITTEN / "server_arguments.md"  # sglang 0.5.7, no support columns
ASCEND_COPIED = HANDWRITTEN / "ascend_copied.txt"  # sglang 0.5.7, a support page copied as text
RTP_PAGE = HANDWRITTEN / "rtp_server_args.md"  # RTP-LLM, kebab-case and snake_case rows mixed

# RTP-LLM's real source lies beside the repository, not in it (third-party code); tests marked
# real_rtp are skipped where it is absent.
RTP_SOURCE = REPO.parent / "shared" / "real-registries" / "rtp-llm-server-args-4b8d39cd5.tgz"


def bench_synth() -> ModuleType:
    """bench/synth.py, the synthetic registries and projects of the benchmarks (bench/ is no
    installed package: it is imported from the repository)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return importlib.import_module("bench.synth")


# ------------------------------------------------------------------ the fixture registries

DEMO_SERVER = "demo_server.server_args:ServerArgs.add_cli_args"
HEAVY_MODULE = "nonexistent_gpu_lib"

# Every fixture that both loaders can read completely, with the mock its live import needs.
PARITY_TARGETS: dict[str, tuple[str, ...]] = {
    DEMO_SERVER: (HEAVY_MODULE,),
    "grouped_cli:build_parser": (),
    "subcommands_cli:build_parser": (),
    "env_cli:make_parser": (),
    "control_flow_cli:build_parser": (),
    "classmethod_cli:Args.add_cli_args": (),
    "custom_action_cli:b": (),
    "comment_notes_cli:build_parser": (),
}


def load(
    target: str, mode: Mode = "live", mock: Sequence[str] = (), base_dir: Path = REGISTRIES
) -> Registry:
    return load_registry(
        RegistrySpec(target=target, mode=mode, mock=tuple(mock), base_dir=base_dir)
    )


def load_dict(
    target: str, mode: Mode = "live", mock: Sequence[str] = (), base_dir: Path = REGISTRIES
) -> dict[str, Any]:
    return registry_to_dict(load(target, mode, mock, base_dir))


def fixture_modules() -> list[str]:
    """Modules imported from the fixture folders (or stand-ins of the heavy module)."""
    names = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(str(FIXTURES)) or name.split(".")[0] == HEAVY_MODULE:
            names.append(name)
    return names


# ------------------------------------------------------------------ running the command line


@dataclass
class Run:
    code: int
    out: str
    err: str


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli_in_process(*argv: str, cwd: Path | None = None) -> Run:
    """`argmatrix ARGV` in this process (fast; the test can patch argmatrix's modules)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), chdir(cwd or Path.cwd()):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse usage errors
            code = int(exit_.code or 0)
    return Run(code, out.getvalue(), err.getvalue())


def signals_as_a_shell_starts_them() -> None:
    """For `preexec_fn`: Ctrl-C (SIGINT) at its default, as a shell starts a command in the
    foreground. A test run started in the background by a shell without job control inherits
    SIGINT ignored, and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli_in_subprocess(
    *argv: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> Run:
    """`python -m argmatrix ARGV` in a process of its own, as a user runs it: for a live import
    (this process may hold another test's module of the same name), a crash, a signal or a
    lock. `env` is the whole environment (None: this process's)."""
    done = subprocess.run(
        [sys.executable, "-m", "argmatrix", *argv],
        cwd=cwd,
        env=None if env is None else dict(env),
        preexec_fn=signals_as_a_shell_starts_them,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def run_cli_untraced(*argv: str, cwd: Path, timeout: float = 300) -> Run:
    """`run_cli_in_subprocess` without coverage tracing (no COV_CORE_*/COVERAGE_* variables):
    for a read of a real registry that takes most of a second, which tracing makes about three
    times slower and a busy machine slower still, past static reading's 4 s processor-time
    backstop. What it covers is measured by the tests of the parts it runs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))}
    return run_cli_in_subprocess(*argv, cwd=cwd, env=env, timeout=timeout)


def one_error_line(result: Run, *fragments: str) -> str:
    """The one line of a refusal: exit 2, one line on stderr, no traceback, every fragment in
    that line."""
    assert result.code == 2, (result.code, result.out[-500:], result.err[-500:])
    lines = result.err.splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------ a project's files


def copy_project(tmp_path: Path) -> Path:
    """A fresh copy of the fixture project (its generated pages left out), at tmp_path/project."""
    target = tmp_path / "project"
    shutil.copytree(
        FIXTURE_PROJECT, target, ignore=shutil.ignore_patterns("__pycache__", "reference")
    )
    return target


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the first line of `path` containing `text`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


def append_to(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace the first `old` of the file, which must be there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_template_page(root: Path, template: str, source: str, output: str) -> None:
    """Write templates/`template` and add a page rendered from it to argmatrix.yaml."""
    (root / "templates" / template).write_text(source, encoding="utf-8")
    append_to(root / "argmatrix.yaml", f"  - {{template: {template}, output: {output}}}\n")


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (symbolic links as their target's name), for before/after.

    Python's own bytecode caches are left out: importing a live registry writes them wherever
    `PYTHONDONTWRITEBYTECODE` is unset (most developers' machines), and they are the
    interpreter's, not anything argmatrix wrote."""
    found: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.relative_to(folder).parts:
            continue
        if path.is_symlink():
            found[str(path.relative_to(folder))] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def git_lines(*args: str) -> list[str]:
    """The lines `git ARGS` prints in the repository (it must succeed)."""
    done = subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def git_ignores(path: Path) -> bool:
    """Whether git would leave a new file at `path` (inside the repository) untracked."""
    done = subprocess.run(
        ["git", "check-ignore", "--quiet", "--no-index", str(path)],
        cwd=REPO,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: not ignored; anything else: no answer
    return done.returncode == 0


# ------------------------------------------------------------------ the static reader's sandbox
# A registry module read with a canary file on disk and a canary secret in the environment (the
# fixture `static_canary_environment` sets it), through the real command line; every read is
# checked for what the sandbox promises (tests/test_static_sandbox.py says what that is).

SANDBOX_MODULE = "hostile_registry"
SECRET = "s3cr3t-7d41c9e0b2"  # the canary environment variable's value
FILE_SECRET = "f1le-s3cr3t-a83f55"  # what the canary file holds
LEAKS = re.compile(r" at 0x[0-9a-f]+|<(?:class|function|module|built-in|bound method) ")
TIME_LIMIT = 5.0  # seconds of processor time: the budget stops any read within about 2.5 s
# Coverage tracing (`make test`) makes the interpreter about three times slower, and the static
# reader's processor-time backstop widens by its TRACED_SLOWDOWN while traced. The limit is there
# to catch work the budget does not count (an order of magnitude), so it scales with the tracing
# as the backstop does rather than loosening. It is measured in this process's processor time
# (`time.process_time`), as the budget is, so a busy machine cannot make it fail.


def processor_seconds() -> float:
    """The processor time of this process and of its children that have ended: what a bound on
    work measures (a busy machine stretches the clock, not this)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


# A bound on waiting: a test of something that must never block (a FIFO, /dev/zero) fails when
# it takes this long, which only a wait or an endless read can, however busy the machine.
HANG_SECONDS = 60.0


def time_limit() -> float:
    """TIME_LIMIT, scaled when coverage traces this process."""
    try:
        from coverage import Coverage
    except ImportError:
        return TIME_LIMIT
    from argmatrix.loaders.static.python.budget import TRACED_SLOWDOWN

    return TIME_LIMIT * TRACED_SLOWDOWN if Coverage.current() is not None else TIME_LIMIT


SANDBOX_CONFIG = """\
registry: {{target: "{module}:build", mode: static}}
docs_dir: docs
pages:
  - {{template: server_arguments.md.j2, output: reference.md}}
"""


@dataclass
class Outcome:
    export: Run
    generate: Run | None
    page: str
    seconds: float

    @property
    def registry(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.export.out)["registry"]
        return data

    def argument(self, flag: str) -> dict[str, Any]:
        found = [a for a in self.registry["arguments"] if flag in a["flags"]]
        assert found, f"{flag} is missing: {[a['flags'] for a in self.registry['arguments']]}"
        return found[0]

    def warnings(self) -> list[str]:
        return [line for line in self.export.err.splitlines() if "warning:" in line]


class Link:
    """A symbolic link to write in the project instead of a file."""

    def __init__(self, target: str | Path) -> None:
        self.target = str(target)


def _disk(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under `root` with its content (pages and writer state left out)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("project/docs") or path.name.startswith(".argmatrix"):
            continue
        found[relative] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return found


def _process_state() -> tuple[Any, ...]:
    """What a registry's code would change in this process if it ran (modules argmatrix imports
    for the first time during a read may appear; none may go or be replaced)."""
    return (
        dict(os.environ),
        {name: id(loaded) for name, loaded in sys.modules.items()},
        argparse._os,  # type: ignore[attr-defined]
        argparse._sys,  # type: ignore[attr-defined]
        dict(vars(argparse)),
    )


def _same_process(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    modules_before, modules_after = before[1], after[1]
    kept = all(modules_after.get(name) == ident for name, ident in modules_before.items())
    return (
        kept
        and SANDBOX_MODULE not in modules_after
        and before[::2] == after[::2]
        and (before[3] == after[3])
    )


def _check_outputs(outcome: Outcome) -> None:
    runs = [r for r in (outcome.export, outcome.generate) if r is not None]
    texts = [outcome.page, *(r.out for r in runs), *(r.err for r in runs)]
    for text in texts:
        assert SECRET not in text and FILE_SECRET not in text, "a canary reached the output"
        assert not LEAKS.search(text), f"a Python repr reached the output: {LEAKS.search(text)}"
    for run in runs:
        assert run.code in (0, 2), run.err
        for line in run.err.splitlines():
            assert line.startswith(("argmatrix: error: ", "argmatrix: warning: ")), line
            assert line.isprintable(), f"a raw control character on stderr: {line!r}"
    if outcome.export.code == 0:
        assert outcome.generate is None or outcome.generate.code == 0, outcome.generate.err
        json.loads(outcome.export.out)
    limit = time_limit()
    assert outcome.seconds < limit, f"took {outcome.seconds:.1f} s (limit {limit:g} s)"


def read_hostile_tree(
    tmp_path: Path, files: dict[str, str | Link], target: str, generate: bool = True
) -> Outcome:
    """Write a project of several files (and links), read `target` statically with `export`
    (and `generate` when that succeeds), and check every invariant of the sandbox."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    canary = tmp_path / "canary.txt"
    canary.write_text(FILE_SECRET)
    for name, content in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        else:
            path.write_text(content.replace("{canary!r}", repr(str(canary))))
    module_name = target.partition(":")[0]
    (project / "argmatrix.yaml").write_text(SANDBOX_CONFIG.format(module=module_name))
    (project / "docs").mkdir()
    before, state = _disk(tmp_path), _process_state()
    start = time.process_time()
    export = run_cli_in_process("export", "--registry", target, "--static", cwd=project)
    made = run_cli_in_process("generate", cwd=project) if generate and export.code == 0 else None
    seconds = time.process_time() - start
    page_file = project / "docs" / "reference.md"
    outcome = Outcome(export, made, page_file.read_text() if page_file.exists() else "", seconds)
    assert _disk(tmp_path) == before, "the read changed files on disk"
    assert _same_process(state, _process_state()), "the read changed this process"
    assert canary.read_text() == FILE_SECRET
    _check_outputs(outcome)
    return outcome


def read_hostile(tmp_path: Path, source: str, generate: bool = True) -> Outcome:
    """read_hostile_tree of the one module `hostile_registry.py` holding `source`."""
    files: dict[str, str | Link] = {f"{SANDBOX_MODULE}.py": source}
    return read_hostile_tree(tmp_path, files, f"{SANDBOX_MODULE}:build", generate)


def refused(outcome: Outcome, file: str, words: str) -> str:
    """The one error line of a refused read: exit 2, naming `file` and saying `words`."""
    assert outcome.export.code == 2, outcome.export.out[-500:]
    lines = outcome.export.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert file in lines[0] and words in lines[0], lines[0]
    return lines[0]


def stopped(outcome: Outcome, which: str = "") -> str:
    """The one error line of a read of hostile_registry.py stopped by its budget (or refused):
    exit 2, file:line."""
    return refused(outcome, f"{SANDBOX_MODULE}.py:", which)


def unevaluated(outcome: Outcome, flag: str, field: str) -> str:
    """The source text a field was kept as, after checking a warning names it."""
    value = outcome.argument(flag)[field]
    assert isinstance(value, dict) and set(value) == {"unevaluated"}, value
    assert any(f"{flag}: {field} " in w for w in outcome.warnings()), outcome.warnings()
    return str(value["unevaluated"])


# ------------------------------------------------------------------ Markdown tables

_markdown = MarkdownIt("commonmark").enable("table")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]  # plain text of every cell


def tables(markdown: str) -> list[Table]:
    """Every table of a Markdown text, cells as the plain text a reader sees."""
    result: list[Table] = []
    current: list[list[str]] = []
    row: list[str] = []
    tokens = _markdown.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            current = []
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and tokens[index - 1].type in ("th_open", "td_open"):
            row.append(plain_text(token))
        elif token.type == "tr_close":
            current.append(row)
        elif token.type == "table_close":
            result.append(Table(current[0], current[1:]))
    return result


def flag_of(cell: str) -> str:
    """The first name of an Argument cell as a reader sees it: `--max-batch, --mb MAX_BATCH`
    (its aliases, then the value form a user types) is `--max-batch`."""
    return re.split(r"[ ,\n]", cell.strip(), maxsplit=1)[0]


def plain_text(inline) -> str:  # type: ignore[no-untyped-def]
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "html_inline" and child.content.startswith("<br"):
            parts.append("\n")
    return "".join(parts)


def html_inline(markdown: str) -> list[str]:
    """Every piece of raw HTML in the Markdown (ours: anchors and line breaks only)."""
    found = []
    for token in _markdown.parse(markdown):
        if token.type == "html_block":
            found.append(token.content)
        for child in token.children or []:
            if child.type == "html_inline":
                found.append(child.content)
    return found


def run_snippet(code: str, *args: str, cwd: Path, cache: Path) -> Any:
    """What a Python snippet run in a fresh interpreter (as a user's run is) prints as JSON on
    its last line, with the argmatrix cache in `cache`."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "ARGMATRIX_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules among `modules` that are one of `names` or inside one of them."""
    return sorted(m for m in modules for n in names if m == n or m.startswith(n + "."))
