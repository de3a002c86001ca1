"""`argmatrix history`: fixture releases of a small registry, written here, read from folders,
wheels, sdists and git revisions (never imported), and the facts a page needs from them."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argmatrix.adoption.history import history_dict
from argmatrix.model.registry import Argument, Registry, Subcommand
from helpers import run_cli_in_process

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
    body = RELEASES["1.0"] + '\nparser.add_argument("--home", default=os.environ.get("HOME"))'
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
