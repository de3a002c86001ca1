"""The model and the pages come out the same, byte for byte, on every supported Python.

argparse itself writes some things differently from one version to the next (3.10's
BooleanOptionalAction adds " (default: %(default)s)" to its help, 3.11 changed how IntEnum
members read, 3.13 added `deprecated`), and Python prints sets in an order and objects with an
address that change from run to run. A page generated on one Python must not be stale on another.

`make test` builds one virtual environment per other supported Python (.cache/py3.X, argmatrix
installed editable) and names their interpreters in ARGMATRIX_PYTHONS (separated by the path
separator). Without it the tests fail; they are marked `pythons`, which `make test-fast` leaves
out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REGISTRIES, REPO, load_dict

pytestmark = pytest.mark.pythons  # the other supported Pythons (make pythons)

PYTHONS_VARIABLE = "ARGMATRIX_PYTHONS"
FIXTURE = REGISTRIES / "python_versions_cli.py"
# (what is read, how): live imports the module; static reads its source.
EXPORTS = {
    "live": ("python_versions_cli:build_parser",),
    "static": ("python_versions_cli:build_parser", "--static"),
    "static, deprecated=": ("python_versions_cli:build_deprecated_parser", "--static"),
    "subcommands, live": ("subcommands_cli:build_parser",),
    "subcommands, static": ("subcommands_cli:build_parser", "--static"),
    "a Click command, static": ("click_server:serve", "--static"),
    "a Click group, static": ("click_group_cli:cli", "--static"),
    "a Typer app, static": ("typer_app_cli:app", "--static"),
    # the command line's shape (issue 29): usage facts, exclusive groups, every nargs, Click's
    # metavars; live reading of shape_server.py differs on 3.13 by design (`deprecated=True`)
    "the shape of a command line, static": ("shape_server:build_parser", "--static"),
    "the shape of a Click command line, static": ("shape_click:cli", "--static"),
    "a script's __main__, static": ("worker_script:__main__", "--static"),
}


@pytest.fixture(scope="module")
def pythons() -> list[str]:
    """The other supported Pythons' interpreters, each with argmatrix installed."""
    value = os.environ.get(PYTHONS_VARIABLE, "").strip()
    if not value:
        message = (
            f"{PYTHONS_VARIABLE} is not set, so pages cannot be compared across Python"
            " versions (fix: run 'make test', which builds .cache/py3.10, .cache/py3.12"
            " and .cache/py3.13 and sets it)"
        )
        pytest.fail(message, pytrace=False)
    found = [p for p in value.split(os.pathsep) if p]
    missing = [p for p in found if not Path(p).is_file()]
    assert missing == [], f"{PYTHONS_VARIABLE} names interpreters that do not exist: {missing}"
    return found


def version_of(python: str) -> tuple[int, int]:
    out = subprocess.run(
        [python, "-c", "import sys; print(*sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    major, minor = out.split()
    return int(major), int(minor)


def oldest_supported() -> tuple[int, int]:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'requires-python\s*=\s*">=\s*(\d+)\.(\d+)"', text)
    assert found is not None
    return int(found.group(1)), int(found.group(2))


def argmatrix(python: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "ARGMATRIX_NO_CACHE": "1", "PYTHONHASHSEED": "random"}
    return subprocess.run(
        [python, "-m", "argmatrix", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=180,
        check=False,
    )


def test_the_interpreters_cover_the_oldest_supported_python_and_another_one(
    pythons: list[str],
) -> None:
    versions = {version_of(p) for p in pythons}
    assert oldest_supported() in versions, versions
    assert versions - {sys.version_info[:2]}, "no Python other than the running one"


@pytest.mark.parametrize("name", list(EXPORTS))
def test_export_gives_the_same_bytes_on_every_python(pythons: list[str], name: str) -> None:
    target, *mode = EXPORTS[name]
    expected = argmatrix(sys.executable, "export", "--registry", target, *mode, cwd=REGISTRIES)
    assert expected.returncode == 0, expected.stderr.decode()
    for python in pythons:
        result = argmatrix(python, "export", "--registry", target, *mode, cwd=REGISTRIES)
        assert result.returncode == 0, (python, result.stderr.decode())
        assert result.stdout == expected.stdout, f"{name}: {python} differs from {sys.executable}"


def test_what_pythons_write_differently_is_exported_in_one_form() -> None:
    """The comparison above means something only if the fixture has what argparse and Python
    write differently; here, on this Python, each such value comes out in the one form every
    Python must give."""
    exported = {
        a["flags"][0]: a for a in load_dict("python_versions_cli:build_parser")["arguments"]
    }
    assert exported["--cache"]["help"] == "Keep a cache."  # no suffix from 3.10
    assert exported["--echo"]["help"] == "Said twice (default: True)"  # not said three times
    assert exported["--level"]["default"] == {"python": "Level.HIGH"}  # IntEnum: 3.11 changed
    assert exported["--level"]["help"] == "Level 2 (<Level.HIGH: 2>, 2)."
    assert exported["--access"]["default"] == {"python": "Access.READ|WRITE"}  # IntFlag
    assert exported["--mode"]["default"] == {"python": "Mode.FAST|SAFE"}  # Flag
    assert exported["--shape"]["help"] == "Shape Shape.ROUND."  # a str mix-in, 3.11 changed
    assert exported["--format"]["choices"] == ["csv", "ini", "json", "toml", "tsv", "yaml"]
    assert exported["--format"]["help"] == "One of csv, ini, json, toml, tsv, yaml."  # a set
    assert exported["--formats"]["default"] == ["csv", "ini", "json", "toml", "tsv", "yaml"]
    marker = {"python": "<python_versions_cli.Marker object>"}  # no memory address
    assert exported["--marker"]["default"] == marker
    assert (exported["--surrogate"]["default"], exported["--surrogate"]["help"]) == (
        "\ufffd",
        "Half a pair: \ufffd.",
    )
    deprecated = load_dict("python_versions_cli:build_deprecated_parser", "static")
    assert [(a["flags"], a["deprecated"], a["help"]) for a in deprecated["arguments"]] == [
        (["--old"], True, "Old (deprecated: True)."),  # `deprecated=` exists from 3.13 on
        (["--new"], False, "New (deprecated: False)."),
    ]


def test_generated_pages_are_the_same_bytes_on_every_python(
    pythons: list[str],
    tmp_path: Path,
) -> None:
    pages = {}
    for python in [sys.executable, *pythons]:
        project = tmp_path / f"py{len(pages)}"
        (project / "templates").mkdir(parents=True)
        shutil.copy(FIXTURE, project / FIXTURE.name)
        (project / "argmatrix.yaml").write_text(
            "registry: {target: python_versions_cli:build_parser, mode: live}\n"
            "docs_dir: docs\n"
            "pages:\n"
            "  - {template: server_arguments.md.j2, output: server.md}\n"
            "  - {template: cli_reference.md.j2, output: cli.md, options: {prog: versions}}\n",
            encoding="utf-8",
        )
        result = argmatrix(python, "generate", cwd=project)
        assert result.returncode == 0, (python, result.stderr.decode())
        pages[python] = {
            name: (project / "docs" / name).read_bytes() for name in ("server.md", "cli.md")
        }
    expected = pages[sys.executable]
    assert b"| Keep a cache. |" in expected["server.md"]  # no suffix from 3.10
    assert "Half a pair: \ufffd.".encode() in expected["server.md"]  # the lone surrogate
    for python, found in pages.items():
        assert found == expected, f"{python} writes other pages than {sys.executable}"


SHAPE_PAGES = {
    "server.md": "server_arguments.md.j2",
    "server.myst.md": "server_arguments.myst.j2",
    "server.mdx": "server_arguments.mdx.j2",
    "cli.md": "cli_reference.md.j2",
    "cli.myst.md": "cli_reference.myst.j2",
    "cli.mdx": "cli_reference.mdx.j2",
}


def test_usages_and_value_forms_are_the_same_bytes_on_every_python(
    pythons: list[str], tmp_path: Path
) -> None:
    """The usage synopses, value forms and exclusive groups of the issue 29 fixture, in every
    format: derived from the model, never from the running argparse, whose usage differs from
    one version to the next."""
    pages = {}
    for python in [sys.executable, *pythons]:
        project = tmp_path / f"py{len(pages)}"
        project.mkdir()
        shutil.copy(REGISTRIES / "shape_server.py", project / "shape_server.py")
        listed = "".join(
            f"  - {{template: {template}, output: {name}, format: {_format(name)}}}\n"
            for name, template in SHAPE_PAGES.items()
        )
        (project / "argmatrix.yaml").write_text(
            "registry: {target: 'shape_server:build_parser', mode: static}\n"
            f"docs_dir: docs\npages:\n{listed}",
            encoding="utf-8",
        )
        result = argmatrix(python, "generate", cwd=project)
        assert result.returncode == 0, (python, result.stderr.decode())
        pages[python] = {name: (project / "docs" / name).read_bytes() for name in SHAPE_PAGES}
    expected = pages[sys.executable]
    assert b"[--enable-prefix-caching | --disable-prefix-caching]" in expected["server.md"]
    for python, found in pages.items():
        assert found == expected, f"{python} writes other pages than {sys.executable}"


def _format(name: str) -> str:
    return "myst" if name.endswith(".myst.md") else "mdx" if name.endswith(".mdx") else "markdown"


# Parsers whose usage each Python's argparse prints (run in that Python), and what argmatrix
# derives from them: equal on 3.13, whose rules the pages follow; on 3.10 to 3.12 equal but for
# two exclusive groups side by side, which argparse before 3.13 joins into one bracket.
USAGE_PROBE = """
import argparse, functools, json, sys
sys.path.insert(0, sys.argv[1])
import shape_server
from argmatrix.loaders.convert import registry_from_parser
from argmatrix.model.usage import usage_parts

def adjacent():
    wide = functools.partial(argparse.HelpFormatter, width=10_000)
    parser = argparse.ArgumentParser(prog="p", formatter_class=wide)
    first = parser.add_mutually_exclusive_group(required=True)  # made first, used second
    second = parser.add_mutually_exclusive_group()
    second.add_argument("--a", action="store_true")
    second.add_argument("--b", action="store_true")
    first.add_argument("--c", nargs="*", metavar=("X", "Y"))
    first.add_argument("--d", action=argparse.BooleanOptionalAction)
    return parser

def parsers():
    top = shape_server.build_parser()
    [sub] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return [("top", top), ("serve", sub.choices["serve"]), ("bench", sub.choices["bench"]),
            ("adjacent", adjacent())]

found = {}
for name, parser in parsers():
    registry = registry_from_parser(parser, "x", {}, lambda path: None)
    found[name] = [parser.format_usage().split()[1:], " ".join(usage_parts(registry, registry.prog)).split()]
print(json.dumps([sys.version_info[:2], found]))
"""


def test_the_usage_is_each_pythons_own_but_where_3_13_fixed_it(pythons: list[str]) -> None:
    import json

    seen = set()
    for python in [sys.executable, *pythons]:
        out = subprocess.run(
            [python, "-c", USAGE_PROBE, str(REGISTRIES)],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        version, found = json.loads(out)
        seen.add(tuple(version))
        for name, (printed, derived) in found.items():
            if name == "adjacent" and tuple(version) < (3, 13):
                assert printed != derived  # 3.11: `[--a | --b  --c [X [Y ...]] | --d | --no-d)`
                assert derived == [
                    "p",
                    "[-h]",
                    "[--a",
                    "|",
                    "--b]",
                    "(--c",
                    "[X",
                    "[Y",
                    "...]]",
                    "|",
                    "--d",
                    "|",
                    "--no-d)",
                ]
                continue
            assert printed == derived, (python, name)
    assert (3, 13) in seen and oldest_supported() in seen
