"""`argmatrix history`: fixture releases of a small registry, written here, read from folders,
wheels, sdists and git revisions (never imported), and the facts a page needs from them."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argmatrix.adoption.history import history_dict
from argmatrix.model.registry import Argument, Registry, Subcommand
from helpers import REPO, flag_of, run_cli_in_process, run_cli_untraced

TARGET = "relserver.args:build"

# Four releases of one registry. What each changes is written next to it, and each test checks
# exactly one of these facts.
RELEASES = {
    "1.0": """
        parser.add_argument("--alpha", type=int, default=1)
        parser.add_argument("--old-name", dest="gamma", default="x")
        parser.add_argument("--gone", action="store_true")
        parser.add_argument("--tensor-parallel-size", "--tp-size", dest="tensor_parallel_size", type=int, default=1)
    """,
    # --alpha's default changes; --old-name becomes --new-name (same dest); --fresh arrives
    "1.1": """
        parser.add_argument("--alpha", type=int, default=2)
        parser.add_argument("--new-name", dest="gamma", default="x")
        parser.add_argument("--gone", action="store_true")
        parser.add_argument("--tensor-parallel-size", "--tp-size", dest="tensor_parallel_size", type=int, default=1)
        parser.add_argument("--fresh", default=None)
    """,
    # --gone leaves; --tensor-parallel-size now sets tp_size (a rename by destination)
    "1.9": """
        parser.add_argument("--alpha", type=int, default=2)
        parser.add_argument("--new-name", dest="gamma", default="x")
        parser.add_argument("--tp-size", "--tensor-parallel-size", dest="tp_size", type=int, default=1)
        parser.add_argument("--fresh", default=None)
    """,
    # --gone comes back; --fresh gets a default
    "1.10": """
        parser.add_argument("--alpha", type=int, default=2)
        parser.add_argument("--new-name", dest="gamma", default="x")
        parser.add_argument("--tp-size", "--tensor-parallel-size", dest="tp_size", type=int, default=1)
        parser.add_argument("--fresh", default="on")
        parser.add_argument("--gone", action="store_true")
    """,
}


def module_source(body: str) -> str:
    lines = "\n".join("    " + line.strip() for line in body.strip().splitlines())
    return f"import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n{lines}\n    return parser\n"


def write_release(folder: Path, body: str) -> Path:
    package = folder / "relserver"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "args.py").write_text(module_source(body))
    return folder


def history_of(tmp_path: Path, *args: str) -> dict[str, Any]:
    result = run_cli_in_process("history", "--target", TARGET, *args, cwd=tmp_path)
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def by_name(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in data["arguments"]}


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    releases = tmp_path / "releases"
    for label, body in RELEASES.items():
        write_release(releases / f"relserver-{label}", body)
    return releases


@pytest.fixture
def facts(tmp_path: Path, folders: Path) -> dict[str, dict[str, Any]]:
    data = history_of(tmp_path, "--releases", "releases")
    assert data["releases"] == ["1.0", "1.1", "1.9", "1.10"]  # 1.10 after 1.9, not before
    assert "relserver" not in sys.modules, "history imported the registry"
    return by_name(data)


def test_an_argument_present_from_the_start(facts: dict[str, dict[str, Any]]) -> None:
    assert facts["--alpha"]["added"] == "1.0"
    assert facts["--alpha"]["removed"] is None


def test_an_argument_added_later(facts: dict[str, dict[str, Any]]) -> None:
    assert facts["--fresh"]["added"] == "1.1"


def test_a_default_change_by_release(facts: dict[str, dict[str, Any]]) -> None:
    assert facts["--alpha"]["defaults"] == [
        {"release": "1.0", "value": 1},
        {"release": "1.1", "value": 2},
    ]
    assert facts["--fresh"]["defaults"] == [
        {"release": "1.1", "value": None},
        {"release": "1.10", "value": "on"},
    ]


def test_a_new_flag_for_the_same_destination_is_a_rename(
    facts: dict[str, dict[str, Any]],
) -> None:
    entry = facts["--new-name"]
    assert "--old-name" not in facts
    assert entry["added"] == "1.0"
    assert entry["renamed"] == [
        {
            "release": "1.1",
            "from": "--old-name",
            "to": "--new-name",
            "from_dest": "gamma",
            "dest": "gamma",
        }
    ]


def test_a_new_destination_for_the_same_flags_is_a_rename(
    facts: dict[str, dict[str, Any]],
) -> None:
    entry = facts["--tp-size"]
    assert entry["added"] == "1.0"
    assert entry["flags"] == ["--tp-size", "--tensor-parallel-size"]
    assert entry["renamed"] == [
        {
            "release": "1.9",
            "from": "--tensor-parallel-size",
            "to": "--tp-size",
            "from_dest": "tensor_parallel_size",
            "dest": "tp_size",
        }
    ]


def test_an_argument_that_left_and_came_back(facts: dict[str, dict[str, Any]]) -> None:
    assert facts["--gone"]["added"] == "1.0"
    assert facts["--gone"]["missing"] == ["1.9"]
    assert facts["--gone"]["removed"] is None


def test_a_removed_argument_names_the_release_it_left_in(tmp_path: Path, folders: Path) -> None:
    data = by_name(
        history_of(
            tmp_path,
            "--release",
            "a=releases/relserver-1.0",
            "--release",
            "b=releases/relserver-1.9",
        )
    )
    assert data["--gone"]["removed"] == "b"
    assert [
        e["name"]
        for e in history_of(
            tmp_path,
            "--release",
            "a=releases/relserver-1.0",
            "--release",
            "b=releases/relserver-1.9",
        )["arguments"]
    ][-1] == "--gone"


def test_the_facts_file_holds_no_help_text(tmp_path: Path) -> None:
    write_release(
        tmp_path / "r1", 'parser.add_argument("--port", help="SECRET-HELP-TEXT", default=1)'
    )
    text = run_cli_in_process("history", "--target", TARGET, "--release", "1=r1", cwd=tmp_path).out
    assert "SECRET-HELP-TEXT" not in text and "--port" in text


def test_output_is_deterministic_and_written_atomically(tmp_path: Path, folders: Path) -> None:
    args = ("history", "--target", TARGET, "--releases", "releases", "--output", "facts.json")
    first = run_cli_in_process(*args, cwd=tmp_path)
    assert first.code == 0, first.err
    text = (tmp_path / "facts.json").read_text()
    assert run_cli_in_process(*args, cwd=tmp_path).code == 0
    assert (tmp_path / "facts.json").read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.json", "releases"]


# ------------------------------------------------------------------ archives and revisions


def wheel(path: Path, body: str, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("relserver/__init__.py", "")
        bundle.writestr("relserver/args.py", module_source(body))
        bundle.writestr("relserver-1.0.dist-info/METADATA", "Name: relserver\n")
        for name, data in (extra or {}).items():
            bundle.writestr(name, data)
    return path


def sdist(path: Path, body: str) -> Path:
    with tarfile.open(path, "w:gz") as bundle:
        for name, text in (
            ("relserver-1.1/src/relserver/__init__.py", ""),
            ("relserver-1.1/src/relserver/args.py", module_source(body)),
            ("relserver-1.1/setup.py", "raise SystemExit('never run')\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            bundle.addfile(info, io.BytesIO(data))
    return path


def test_wheels_and_sdists_are_read_without_installing(tmp_path: Path) -> None:
    releases = tmp_path / "releases"
    releases.mkdir()
    wheel(releases / "relserver-1.0-py3-none-any.whl", RELEASES["1.0"])
    sdist(releases / "relserver-1.1.tar.gz", RELEASES["1.1"])
    data = history_of(tmp_path, "--releases", "releases")
    assert data["releases"] == ["1.0", "1.1"]
    assert by_name(data)["--fresh"]["added"] == "1.1"
    assert by_name(data)["--new-name"]["renamed"][0]["from"] == "--old-name"


def test_a_hostile_wheel_writes_nothing_outside_its_folder(tmp_path: Path) -> None:
    hostile = {
        "../escaped.py": b"x = 1\n",
        "/tmp/absolute_escape.py": b"x = 1\n",
        "relserver/../../up.py": b"x = 1\n",
    }
    path = wheel(tmp_path / "relserver-1.0-py3-none-any.whl", RELEASES["1.0"], hostile)
    with zipfile.ZipFile(path, "a") as bundle:  # a symbolic link member pointing out
        info = zipfile.ZipInfo("relserver/link.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        bundle.writestr(info, "/etc/passwd")
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    data = history_of(tmp_path, "--release", f"1.0={path.name}")
    assert by_name(data)["--alpha"]["added"] == "1.0"
    assert not (tmp_path / "escaped.py").exists() and not Path("/tmp/absolute_escape.py").exists()
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before


def test_git_revisions_are_read_without_a_checkout(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=repo,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    for label in ("1.0", "1.1"):
        target = repo / "python" / "relserver"
        target.mkdir(parents=True, exist_ok=True)
        (target / "__init__.py").write_text("")
        (target / "args.py").write_text(module_source(RELEASES[label]))
        git("add", "-A")
        git("commit", "-q", "-m", label)
        git("tag", f"v{label}")
    (repo / "python" / "relserver" / "args.py").write_text("uncommitted edit\n")
    result = run_cli_in_process(
        "history",
        "--target",
        TARGET,
        "--release",
        "1.0=git:v1.0:python",
        "--release",
        "1.1=git:v1.1:python",
        cwd=repo,
    )
    assert result.code == 0, result.err
    assert by_name(json.loads(result.out))["--fresh"]["added"] == "1.1"
    assert (repo / "python" / "relserver" / "args.py").read_text() == "uncommitted edit\n"


# ------------------------------------------------------------------ bad input: one located line


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--release", "no-equals-sign"), "write LABEL=SOURCE"),
        (("--release", "1=missing-folder"), "cannot read release '1'"),
        (("--release", "1=r1", "--release", "1=r1"), "release '1' is named twice"),
        (("--releases", "nowhere"), "the releases folder does not exist"),
        (("--release", "1=git:-x"), "write git:REVISION"),
        (("--release", "1=git:HEAD:../.."), "name a folder inside the repository"),
        ((), "no releases to read"),
    ],
)
def test_bad_releases_are_one_error_line(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    write_release(tmp_path / "r1", RELEASES["1.0"])
    result = run_cli_in_process("history", "--target", TARGET, *args, cwd=tmp_path)
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], lines


def test_a_broken_archive_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "relserver-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", "1=relserver-1.0-py3-none-any.whl", cwd=tmp_path
    )
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "cannot read the archive" in lines[0], lines


# ------------------------------------------------------------------ the model, directly


def test_subcommand_arguments_are_named_by_their_path() -> None:
    def registry(sub_flag: str) -> Registry:
        inner = Registry(
            "serve", ("Main",), (Argument(flags=(sub_flag,), dest="port", section="Main"),)
        )
        return Registry("p", ("Main",), (), (Subcommand("serve", (), "", inner),))

    data = history_dict([("1", registry("--port")), ("2", registry("--listen-port"))], "t")
    [entry] = data["arguments"]
    assert entry["name"] == "serve --listen-port" and entry["added"] == "1"
    assert entry["renamed"][0]["from"] == "serve --port"


def test_repeated_labels_are_refused_by_the_model() -> None:
    one = Registry("p", ("Main",), (Argument(flags=("--a",), dest="a", section="Main"),))
    with pytest.raises(ValueError, match="labels must differ"):
        history_dict([("1", one), ("1", one)])


def test_diagnostics_name_the_archive_not_a_private_folder(tmp_path: Path) -> None:
    body = RELEASES["1.0"] + '\nparser.add_argument("--home", default=os.cpu_count())'
    path = tmp_path / "relserver-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("relserver/__init__.py", "")
        bundle.writestr("relserver/args.py", "import os\n" + module_source(body))
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", f"1.0={path.name}", cwd=tmp_path
    )
    assert result.code == 0, result.err
    [warning] = result.err.strip().splitlines()
    assert f"{path.name}!relserver/args.py:" in warning and "--home" in warning, warning
    assert "argmatrix-release-" not in result.err


def test_errors_name_the_archive_not_a_private_folder(tmp_path: Path) -> None:
    path = tmp_path / "relserver-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("relserver/__init__.py", "")
        bundle.writestr("relserver/args.py", "def build(:\n")
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", f"1.0={path.name}", cwd=tmp_path
    )
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert f"{path.name}!relserver/args.py:1" in line and "argmatrix-release-" not in line, line


def test_release_sources_take_the_folder_first_then_the_named(
    tmp_path: Path, folders: Path
) -> None:
    from argmatrix.adoption.releases import ReleaseSource, release_sources

    named = ["2.0=elsewhere"]
    sources = release_sources("releases", named, tmp_path)
    assert [s.label for s in sources] == ["1.0", "1.1", "1.9", "1.10", "2.0"]
    assert sources[-1] == ReleaseSource("2.0", "elsewhere")
    assert release_sources(None, named, tmp_path) == sources[-1:]


def test_read_release_sends_its_warnings_with_the_archive_named(tmp_path: Path) -> None:
    from argmatrix.adoption.releases import ReleaseSource, read_release
    from argmatrix.config import load_config
    from argmatrix.project import RegistryWarnings

    body = RELEASES["1.0"] + '\nparser.add_argument("--home", default=os.cpu_count())'
    path = tmp_path / "relserver-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("relserver/__init__.py", "")
        bundle.writestr("relserver/args.py", "import os\n" + module_source(body))
    told: list[str] = []
    source = ReleaseSource("1.0", path.name)
    warnings = RegistryWarnings(load_config(None, tmp_path), told.append)
    registry = read_release(source, TARGET, tmp_path, warnings)
    assert "--home" in registry.all_flags()
    [warning] = told
    assert warning.startswith(f"{path.name}!relserver/args.py:") and "--home" in warning


def test_releases_are_ordered_as_versions(tmp_path: Path) -> None:
    from argmatrix.adoption.releases import releases_in

    names = [
        "p-0.5.10",
        "p-0.5.1",
        "p-0.5.0rc2",
        "p-0.5.0",
        "p-0.5.1rc0",
        "p-0.5.0.post1",
        "p-0.5.9",
    ]
    for name in names:
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("not a release")
    assert [r.label for r in releases_in(tmp_path)] == [
        "0.5.0rc2",
        "0.5.0",
        "0.5.0.post1",
        "0.5.1rc0",
        "0.5.1",
        "0.5.9",
        "0.5.10",
    ]


# ------------------------------------------------------------------ pages: "Added in", removed


def history_project(tmp_path: Path, fmt: str = "markdown") -> Path:
    """The newest release as the project's registry, the facts of all four in a file, and a
    server-arguments page that names the facts."""
    project = tmp_path / "project"
    write_release(project, RELEASES["1.10"])
    releases = tmp_path / "releases"
    for label, body in RELEASES.items():
        write_release(releases / f"relserver-{label}", body)
    result = run_cli_in_process(
        "history",
        "--target",
        TARGET,
        "--releases",
        "../releases",
        "--output",
        "facts.json",
        cwd=project,
    )
    assert result.code == 0, result.err
    template, output = (
        ("server_arguments.myst.j2", "ref.md")
        if fmt == "myst"
        else ("server_arguments.md.j2", "ref.md")
    )
    (project / "argmatrix.yaml").write_text(
        f"registry: {{target: '{TARGET}', mode: static, search_path: ['.']}}\n"
        "docs_dir: docs\n"
        f"pages:\n  - {{template: {template}, output: {output}, format: {fmt},"
        " history: facts.json}\n"
    )
    (project / "docs").mkdir()
    return project


def page_rows(text: str) -> dict[str, list[str]]:
    from helpers import tables

    return {flag_of(row[0]): row for table in tables(text) for row in table.rows}


def test_a_page_shows_when_each_argument_arrived(tmp_path: Path) -> None:
    project = history_project(tmp_path)
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    text = (project / "docs" / "ref.md").read_text()
    assert "| Argument | Description | Default | Type / options | Added in |" in text
    rows = page_rows(text)
    assert rows["--alpha"][-1] == "1.0"
    assert rows["--fresh"][-1] == "1.1"
    assert rows["--tp-size"][-1] == "1.0"  # renamed in 1.9, there since 1.0
    assert rows["--new-name"][-1] == "1.0"
    assert rows["--gone"][-1] == "1.0"


def test_a_page_lists_the_arguments_since_removed(tmp_path: Path) -> None:
    project = history_project(tmp_path)
    # The newest release as the registry, but facts that end at 1.9: --gone was removed then.
    facts = json.loads((project / "facts.json").read_text())
    facts["releases"] = facts["releases"][:3]
    for entry in facts["arguments"]:
        if entry["name"] == "--gone":
            entry["removed"], entry["missing"] = "1.9", []
    (project / "facts.json").write_text(json.dumps(facts))
    assert run_cli_in_process("generate", cwd=project).code == 0
    text = (project / "docs" / "ref.md").read_text()
    removed = text.split("## Removed arguments")[1]
    assert "| `--gone` | 1.0 | 1.9 |" in removed


def test_a_page_without_history_has_no_such_column(tmp_path: Path) -> None:
    project = history_project(tmp_path)
    config = project / "argmatrix.yaml"
    config.write_text(config.read_text().replace(", history: facts.json", ""))
    assert run_cli_in_process("generate", cwd=project).code == 0
    text = (project / "docs" / "ref.md").read_text()
    assert "Added in" not in text and "Removed arguments" not in text


def test_myst_pages_show_it_too(tmp_path: Path) -> None:
    project = history_project(tmp_path, "myst")
    assert run_cli_in_process("generate", cwd=project).code == 0
    text = (project / "docs" / "ref.md").read_text()
    assert "| Type / options | Added in |" in text
    assert "| 1.1 |" in text


def test_changed_facts_make_the_page_stale(tmp_path: Path) -> None:
    project = history_project(tmp_path)
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert run_cli_in_process("check", cwd=project).code == 0
    facts = project / "facts.json"
    facts.write_text(facts.read_text().replace('"added": "1.1"', '"added": "1.0"'))
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 1 and "stale-page" in result.out, result.out


@pytest.mark.parametrize(
    ("facts", "words"),
    [
        ("{not json", "the history facts file is not JSON"),
        ('{"format": "other"}', "not an argmatrix history file"),
        (
            '{"format": "argmatrix-history/1", "releases": ["1"]}',
            "needs 'releases' and 'arguments'",
        ),
        (
            '{"format": "argmatrix-history/1", "releases": ["1"], "arguments": [{"name": "--a",'
            ' "flags": ["--a"], "added": "9"}]}',
            "history entry '--a'",
        ),
    ],
)
def test_a_bad_facts_file_is_one_located_error(tmp_path: Path, facts: str, words: str) -> None:
    project = history_project(tmp_path)
    (project / "facts.json").write_text(facts)
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "facts.json" in line and words in line and "(fix: " in line, line
    assert not (project / "docs" / "ref.md").exists()


def test_a_missing_facts_file_is_one_located_error(tmp_path: Path) -> None:
    project = history_project(tmp_path)
    (project / "facts.json").unlink()
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "facts.json" in line and "not found" in line, line


# ------------------------------------------------------------------ found by review


def test_the_current_folder_never_hides_a_release(tmp_path: Path) -> None:
    """A static read searches its base folder first: with the working tree's package in the
    current folder, every release used to read the working tree."""
    write_release(tmp_path, 'parser.add_argument("--working-tree-only")')
    wheel(tmp_path / "relserver-1.0-py3-none-any.whl", RELEASES["1.0"])
    data = history_of(tmp_path, "--release", "1.0=relserver-1.0-py3-none-any.whl")
    assert "--working-tree-only" not in by_name(data) and "--alpha" in by_name(data)


def test_diff_paths_are_not_hidden_by_the_current_folder(tmp_path: Path) -> None:
    write_release(tmp_path, 'parser.add_argument("--working-tree-only")')
    write_release(tmp_path / "old", RELEASES["1.0"])
    write_release(tmp_path / "new", RELEASES["1.1"])
    result = run_cli_in_process(
        "diff",
        TARGET,
        TARGET,
        "--old-path",
        "old",
        "--new-path",
        "new",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert result.code == 0, result.err
    assert [a["name"] for a in json.loads(result.out)["added"]] == ["--fresh"]


def test_a_default_changing_kind_is_recorded(tmp_path: Path) -> None:
    """0, False and 0.0 are equal in Python but not the same default."""
    for label, value in (("1.0", "0"), ("1.1", "False"), ("1.2", "0.0")):
        write_release(
            tmp_path / f"relserver-{label}", f'parser.add_argument("--x", default={value})'
        )
    data = history_of(
        tmp_path,
        "--release",
        "1.0=relserver-1.0",
        "--release",
        "1.1=relserver-1.1",
        "--release",
        "1.2=relserver-1.2",
    )
    assert by_name(data)["--x"]["defaults"] == [
        {"release": "1.0", "value": 0},
        {"release": "1.1", "value": False},
        {"release": "1.2", "value": 0.0},
    ]


def test_a_release_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    write_release(tmp_path / "r1", RELEASES["1.0"])
    (tmp_path / "r2").mkdir()  # the package is missing
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", "1=r1", "--release", "2=r2", cwd=tmp_path
    )
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "release 2:" in line, line


def test_control_characters_never_reach_the_terminal(tmp_path: Path) -> None:
    write_release(tmp_path / "r1", 'parser.add_argument("--x", default="\\u009b2J\\u202eevil")')
    result = run_cli_in_process("history", "--target", TARGET, "--release", "1=r1", cwd=tmp_path)
    assert result.code == 0, result.err
    assert "\u009b" not in result.out and "\u202e" not in result.out
    assert json.loads(result.out)["arguments"][0]["defaults"][0]["value"] == "\u009b2J\u202eevil"


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        (["llama2-server-1.0", "llama2-server-1.1"], ["1.0", "1.1"]),
        (["py3server-0.5.0"], ["0.5.0"]),
        (["p-0.5.1", "p-0.5.1.dev0", "p-0.5.1rc0"], ["0.5.1.dev0", "0.5.1rc0", "0.5.1"]),
    ],
)
def test_labels_come_from_the_version_not_other_digits(
    tmp_path: Path, names: list[str], labels: list[str]
) -> None:
    from argmatrix.adoption.releases import releases_in

    for name in names:
        (tmp_path / name).mkdir()
    assert [r.label for r in releases_in(tmp_path)] == labels


def test_sdists_named_tgz_are_releases_too(tmp_path: Path) -> None:
    releases = tmp_path / "releases"
    releases.mkdir()
    sdist(releases / "relserver-1.1.tgz", RELEASES["1.1"])
    assert history_of(tmp_path, "--releases", "releases")["releases"] == ["1.1"]


def _zip_with_method(path: Path, name: str, method: int) -> None:
    """A stored member whose compression method is then set to one Python does not have."""
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("relserver/__init__.py", "")
        bundle.writestr("relserver/args.py", module_source(RELEASES["1.0"]))
        bundle.writestr(name, "x = 1\n")
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(encoded)] == encoded:
                data[start + offset : start + offset + 2] = method.to_bytes(2, "little")
            start += 4
    path.write_bytes(bytes(data))


def test_an_odd_member_that_is_no_source_is_never_opened(tmp_path: Path) -> None:
    path = tmp_path / "relserver-1.0-py3-none-any.whl"
    _zip_with_method(path, "relserver-1.0.dist-info/RECORD", 99)
    assert "--alpha" in by_name(history_of(tmp_path, "--release", f"1.0={path.name}"))


def test_a_source_python_cannot_decompress_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "relserver-1.0-py3-none-any.whl"
    _zip_with_method(path, "relserver/extra.py", 99)
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", f"1.0={path.name}", cwd=tmp_path
    )
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "cannot read the archive" in line and path.name in line, line


def test_a_member_declaring_gigabytes_stops_at_its_header(tmp_path: Path) -> None:
    """Skipping a member of a compressed tar decompresses it: a small file can unpack to
    gigabytes. The declared sizes are added up first."""
    header = tarfile.TarInfo("relserver-1.0/data.bin")
    header.size = 3 * 1024**3
    path = tmp_path / "relserver-1.0.tar.gz"
    import gzip

    path.write_bytes(gzip.compress(header.tobuf() + b"\0" * 512))
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", f"1.0={path.name}", cwd=tmp_path
    )
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "larger than argmatrix reads" in line and path.name in line, line


def test_too_many_members_stop_the_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from argmatrix.adoption import releases

    monkeypatch.setattr(releases, "MAX_MEMBERS", 5)
    path = wheel(
        tmp_path / "relserver-1.0-py3-none-any.whl",
        RELEASES["1.0"],
        {f"relserver/m{i}.py": b"" for i in range(10)},
    )
    result = run_cli_in_process(
        "history", "--target", TARGET, "--release", f"1.0={path.name}", cwd=tmp_path
    )
    assert result.code == 2 and "larger than argmatrix reads" in result.err


def test_escaping_members_land_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The private folder is made under the temporary folder: make that one of this test's, so
    an escape by `..` would be seen."""
    temporary = tmp_path / "tmp" / "deeper"
    temporary.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    path = wheel(
        tmp_path / "relserver-1.0-py3-none-any.whl",
        RELEASES["1.0"],
        {"../escaped.py": b"x = 1\n", "../../up.py": b"x = 1\n", "a/" * 40 + "deep.py": b""},
    )
    data = history_of(tmp_path, "--release", f"1.0={path.name}")
    assert "--alpha" in by_name(data)
    assert sorted(p.name for p in (tmp_path / "tmp").rglob("*")) == ["deeper"]


# ------------------------------------------------------------------ the sglang 0.5.23 showcase

NEW_SGLANG = REPO / ".cache" / "sglang-0.5.23"
SHOWCASE_0523 = REPO / "showcase" / "sglang-0.5.23"


@pytest.fixture(scope="module")
def sglang_0523() -> Path:
    if not (NEW_SGLANG / ".installed").is_file():
        pytest.fail(
            f"sglang 0.5.23 is not installed in {NEW_SGLANG} (fix: run `make new-sglang`)",
            pytrace=False,
        )
    return NEW_SGLANG


@pytest.fixture(scope="module")
def showcase_0523(sglang_0523: Path, tmp_path_factory: Any) -> Path:
    """A copy of the 0.5.23 showcase's project, its pages generated (in its folder's docs/)."""
    root = tmp_path_factory.mktemp("showcase-0523")
    config = SHOWCASE_0523 / "argmatrix.yaml"
    docs = root / "docs"
    text = config.read_text().replace("docs_dir: ../../docs", f"docs_dir: {docs}")
    (root / "argmatrix.yaml").write_text(
        text.replace("../../.cache/sglang-0.5.23", str(sglang_0523)).replace(
            "history: history.json", f"history: {SHOWCASE_0523 / 'history.json'}"
        )
    )
    result = run_cli_untraced("generate", cwd=root)
    assert result.code == 0, result.err
    return root


@pytest.mark.slow
def test_the_showcase_page_shows_added_in_for_every_flag(showcase_0523: Path) -> None:
    """The committed facts cover every release since 0.5.0 and every flag of 0.5.23: each row
    of the generated page names the release its flag arrived in."""
    facts = json.loads((SHOWCASE_0523 / "history.json").read_text())
    assert facts["releases"][0] == "0.5.0rc2" and facts["releases"][-1] == "0.5.23"
    assert "help" not in json.dumps(facts)  # flag names, defaults, releases: no help text
    from helpers import tables

    page = (showcase_0523 / "docs" / "showcase-0.5.23" / "server_arguments.md").read_text()
    shown = [t for t in tables(page) if t.header[-1] == "Added in"]
    rows = [row for table in shown for row in table.rows]
    export = json.loads(run_cli_untraced("export", cwd=showcase_0523).out)["registry"]
    listed = [a for a in export["arguments"] if not a["hidden"] and not a["deprecated"]]
    assert len(rows) == len(listed) > 500  # every argument a reader can use has a row
    assert all(row[-1] in facts["releases"] for row in rows), [r for r in rows if not r[-1]][:3]


@pytest.mark.slow
def test_the_showcase_page_opens_with_a_usage_a_person_reads(showcase_0523: Path) -> None:
    """sglang's own usage names each of its hundreds of flags (433 lines): the showcase's
    (`usage: short`) is the program, each required option with its value, and `[options]`,
    on a few lines before the first table."""
    page = (showcase_0523 / "docs" / "showcase-0.5.23" / "server_arguments.md").read_text()
    start = page.index("```console\n") + len("```console\n")
    usage = page[start : page.index("\n```", start)]
    assert page.index("```console") < page.index("| Argument")
    export = json.loads(run_cli_untraced("export", cwd=showcase_0523).out)["registry"]
    required = [a for a in export["arguments"] if a["required"] and not a["hidden"]]
    assert required  # --model-path
    words = usage.split()
    assert words[:3] == ["python", "-m", "sglang.launch_server"] and words[-1] == "[options]"
    for argument in required:
        assert argument["flags"][0] in words, argument["flags"]
    assert len(usage.splitlines()) <= 3


def test_both_sglang_showcases_shorten_the_usage() -> None:
    """The 0.5.7 showcase (./argmatrix.yaml) and the 0.5.23 one set `usage: short` on their
    server-arguments page, which the test above reads for 0.5.23."""
    from argmatrix.config import load_config

    for config in (REPO / "argmatrix.yaml", SHOWCASE_0523 / "argmatrix.yaml"):
        pages = load_config(config, config.parent).pages
        [server] = [p for p in pages if p.template.startswith("server_arguments")]
        assert server.options.get("usage") == "short", config


@pytest.mark.slow
def test_diff_of_057_and_0523_names_the_tp_size_rename(sglang_0523: Path, tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.find_spec("sglang")
    assert spec is not None and spec.submodule_search_locations
    old = Path(next(iter(spec.submodule_search_locations))).parent
    target = "sglang.srt.server_args:ServerArgs.add_cli_args"
    result = run_cli_untraced(
        "diff",
        target,
        target,
        "--old-path",
        str(old),
        "--new-path",
        str(sglang_0523),
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert result.code == 0, result.err
    renamed = {r["old"]: r for r in json.loads(result.out)["renamed"]}
    assert renamed["--tensor-parallel-size"]["new"] == "--tp-size"
    assert renamed["--tensor-parallel-size"]["changes"]["dest"] == {
        "old": "tensor_parallel_size",
        "new": "tp_size",
    }
