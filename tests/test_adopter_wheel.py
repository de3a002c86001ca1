"""The adopter's second day (issue 30), end to end: argmatrix as a user has it, a wheel built
from the repository and installed outside it, in a project as a maintainer writes it on day
one with no prose settings: an argparse server with subcommands and defaults read from
environment variables, a Click management command line documented by a second configuration
and a second instance of the MkDocs plugin, one platform manifest naming a subcommand's flags.

`generate` and `check` for each configuration, `mkdocs build --strict`, `check` from a
subfolder, `export --registry` of the other target, and `snapshot` from two folders
(byte-identical): all green, and not one warning. Then the pages from before argmatrix: `audit`
of a hand-written page about the subcommands (a flag two share told apart by its heading) and
`import` of a support page into a manifest the project can use.

The wheel is built and installed (`pip install --no-deps --target`) once per content of the
sources, into `.cache/adopter-wheel/<key>/`; the project's commands run .venv's Python with only
that folder in front of its path (the docs engine, MkDocs Material, comes from .venv)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO

pytestmark = pytest.mark.slow  # builds and installs a wheel when the sources changed

CACHE = REPO / ".cache" / "adopter-wheel"
PIP = (sys.executable, "-m", "pip")

SERVER_ARGS = '''\
"""mysrv's command line."""

import argparse
import os

DEFAULT_PORT = int(os.environ.get("MYSRV_PORT", "8000"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mysrv", description="A model server.")
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser("serve", help="Serve a model.")
    serve.add_argument("--model", required=True, help="The model to serve.")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help="Port (default: %(default)s).")
    serve.add_argument("--api-key", default=os.environ.get("MYSRV_API_KEY"), help="API key.")
    serve.add_argument("--revision", default="main", help="The model's revision.")
    serve.add_argument("--cuda-graph", action="store_true", help="Capture CUDA graphs.")
    bench = commands.add_parser("bench", help="Measure throughput.")
    bench.add_argument("--revision", default="main", help="The model's revision.")
    bench.add_argument("--requests", type=int, default=os.cpu_count(), help="How many at once.")
    return parser
'''

CLI = '''\
"""mysrv-admin: manage a mysrv deployment."""

import click


@click.group()
@click.option("--verbose", is_flag=True, help="Say more.")
def cli(verbose: bool) -> None:
    """Manage a mysrv deployment."""


@cli.command()
@click.option("--host", default="localhost", envvar="MYSRV_ADMIN_HOST", help="Server to manage.")
@click.option("--timeout", type=click.IntRange(1, 600), default=30, help="Seconds to wait.")
def status(host: str, timeout: int) -> None:
    """Show the server's health."""


@cli.command()
@click.argument("name")
@click.option("--force", is_flag=True, help="Even while serving.")
def unload(name: str, force: bool) -> None:
    """Unload a model."""
'''

FILES = {
    "mysrv/__init__.py": "",
    "mysrv/server_args.py": SERVER_ARGS,
    "mysrv/cli.py": CLI,
    "argmatrix.yaml": """\
registry:
  target: mysrv.server_args:build_parser
  mode: static
manifests: [capabilities/tpx.yaml]
docs_dir: docs
pages:
  - {template: server_arguments.md.j2, output: reference/server_arguments.md}
  - {template: platform_support.md.j2, output: reference/tpx.md, platform: tpx}
computed:
  bench --requests: {default: one per CPU}
stability: {arguments: {serve --cuda-graph: beta}}
""",
    "argmatrix-cli.yaml": """\
registry:
  target: mysrv.cli:cli
  mode: static
docs_dir: docs
pages:
  - {template: server_arguments.md.j2, output: reference/cli.md, title: mysrv-admin}
""",
    "capabilities/tpx.yaml": """\
platform: tpx
title: TPX accelerator
default: unverified
arguments:
  serve --port: supported
  serve --api-key: supported
  serve --cuda-graph: {status: not-applicable, reason: No CUDA graphs on TPX}
  bench --requests: planned
""",
    "mkdocs.yml": """\
site_name: mysrv
docs_dir: docs
theme: {name: material}
plugins:
  - search
  - argmatrix
  - argmatrix:
      config_file: argmatrix-cli.yaml
      directives: false
nav:
  - Home: index.md
  - Reference:
      - Server arguments: reference/server_arguments.md
      - TPX: reference/tpx.md
      - Admin command line: reference/cli.md
""",
    "docs/index.md": """\
# mysrv

Start it with `mysrv serve --model m --port 9000` (`--api-key` from `$MYSRV_API_KEY`), and manage
it with `mysrv-admin status --host h --timeout 60`.

<!-- argmatrix section="serve General" platform="tpx" -->
""",
}


def source_key() -> str:
    """What the wheel is built from: every file of the package's sources, its metadata."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in (REPO / "src").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    for path in [*files, REPO / "pyproject.toml", REPO / "README.md"]:
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def installed_wheel() -> Path:
    """The folder argmatrix's wheel is installed in, built when the sources changed since (one
    build at a time; older builds removed)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    key = source_key()
    lib = CACHE / key / "lib"
    with (CACHE / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (CACHE / key / ".installed").exists():
            for old in CACHE.iterdir():
                if old.is_dir():
                    shutil.rmtree(old)
            work = CACHE / key
            source = work / "source"
            shutil.copytree(
                REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__")
            )
            for name in ("pyproject.toml", "README.md"):
                shutil.copy2(REPO / name, source / name)
            wheels = work / "wheels"
            build = ["wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
            _pip(*build, str(source))
            (wheel,) = wheels.glob("argmatrix-*.whl")
            _pip("install", "-q", "--no-deps", "--target", str(lib), str(wheel))
            shutil.rmtree(source)
            (work / ".installed").write_text(key, encoding="utf-8")
    return lib


def _pip(*args: str) -> None:
    subprocess.run([*PIP, *args], check=True, capture_output=True, timeout=600)


class User:
    """The user's shell: .venv's Python with the installed wheel in front of its path."""

    def __init__(self, lib: Path, cache: Path) -> None:
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("COV_CORE_", "COVERAGE_", "ARGMATRIX_"))
        }
        self.env.update(
            PYTHONPATH=str(lib),
            NO_MKDOCS_2_WARNING="1",
            NO_COLOR="1",
            ARGMATRIX_CACHE_DIR=str(cache),  # the user's cache, in this test's own folder
        )

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def argmatrix(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        done = self.run("-m", "argmatrix", *args, cwd=cwd)
        assert done.returncode == 0, f"argmatrix {' '.join(args)}:\n{done.stdout}{done.stderr}"
        assert "warning" not in done.stderr, done.stderr
        return done


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> tuple[User, Path]:
    lib = installed_wheel()
    home = tmp_path_factory.mktemp("adopter")
    project = home / "mysrv-project"
    for name, text in FILES.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (project / ".git").mkdir()  # the project's repository: where a configuration is looked for
    shell = User(lib, home / "cache")
    where = shell.run("-c", "import argmatrix; print(argmatrix.__file__)", cwd=project)
    assert Path(where.stdout.strip()).is_relative_to(lib), where  # the wheel, not the sources
    return shell, project


AGREES = "argmatrix check: everything agrees\n"


def test_the_second_day_of_an_adopter(user: tuple[User, Path]) -> None:
    shell, project = user
    docs = project / "docs"
    wrote = shell.argmatrix("generate", cwd=project)
    assert "reference/server_arguments.md" in wrote.stdout + wrote.stderr
    shell.argmatrix("generate", "--config", "argmatrix-cli.yaml", cwd=project)
    server = (docs / "reference" / "server_arguments.md").read_text(encoding="utf-8")
    # defaults read from the environment, as facts, in the Default column and in %(default)s
    assert "| `8000`, or `$MYSRV_PORT` when set |" in server
    assert "Port (default: 8000, or $MYSRV_PORT when set)." in server
    assert "unset, or `$MYSRV_API_KEY`" in server and "os.environ" not in server
    assert "one per CPU" in server  # computed: said in words, for a subcommand's flag
    tpx = (docs / "reference" / "tpx.md").read_text(encoding="utf-8")
    assert "– Not applicable (No CUDA graphs on TPX)" in tpx and "✓ Supported" in tpx
    for config in ("argmatrix.yaml", "argmatrix-cli.yaml"):
        assert shell.argmatrix("check", "--config", config, cwd=project).stdout == AGREES
        assert shell.argmatrix("check", "--config", f"../{config}", cwd=docs).stdout == AGREES
    assert shell.argmatrix("check", cwd=docs / "reference").stdout == AGREES  # found above

    built = shell.run("-m", "mkdocs", "build", "--strict", cwd=project)
    assert built.returncode == 0, built.stdout + built.stderr
    site = project / "site"
    for page in ("reference/server_arguments", "reference/tpx", "reference/cli"):
        assert (site / page / "index.html").is_file(), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "--cuda-graph" in home  # the directive's table, serve's section on TPX

    other = shell.argmatrix("export", "--registry", "mysrv.cli:cli", "--static", cwd=project)
    assert '"source": "mysrv.cli:cli"' in other.stdout and "--timeout" in other.stdout

    shell.argmatrix("snapshot", "-o", "compat/baseline.json", cwd=project)
    shell.argmatrix("snapshot", "-o", "../../compat/again.json", cwd=docs / "reference")
    first = (project / "compat" / "baseline.json").read_bytes()
    assert first == (project / "compat" / "again.json").read_bytes()
    assert str(project).encode() not in first and b"/tmp" not in first


# The maintainer's hand-written page from before argmatrix, kept outside docs/ while they move:
# a heading per subcommand, flags bare, `--revision` in both (serve's and bench's).
OLD_PAGE = """\
# mysrv command line

## serve

| Argument | Description | Default |
| --- | --- | --- |
| `--model` | The model to serve. | required |
| `--revision` | The model's revision. | `main` |
| `--cuda-graph` | Capture CUDA graphs. | `True` |
| `--max-tokens` | The longest answer. | `256` |

## bench

| Argument | Description | Default |
| --- | --- | --- |
| `--revision` | The model's revision. | `v1` |
| `--requests` | How many at once. | one per CPU |
"""

OLD_SUPPORT = """\
# Supported features on TPX accelerator

## serve

| Argument | Supported |
| --- | --- |
| `--port` | Supported |
| `--revision` | Supported |

## bench

| Argument | Supported |
| --- | --- |
| `--revision` | Planned |
"""


def test_the_adopter_audits_and_imports_old_pages_of_subcommands(user: tuple[User, Path]) -> None:
    """`audit` of the old page names each broken row once, in the configuration's spelling of a
    subcommand's flag; `import` of the old support page writes entries in that spelling, which
    the registry resolves (the shared --revision told apart by the heading it sits under)."""
    shell, project = user
    legacy = project / "legacy"
    legacy.mkdir(exist_ok=True)
    (legacy / "cli.md").write_text(OLD_PAGE, encoding="utf-8")
    audited = shell.run("-m", "argmatrix", "audit", "legacy/cli.md", cwd=project)
    assert audited.returncode == 1 and audited.stderr == "", audited.stderr
    assert audited.stdout.splitlines()[:-1] == [
        "legacy/cli.md:9: error[wrong-default]: serve --cuda-graph: the page says the default is"
        " 'True', the registry says 'False' (write 'False')",
        "legacy/cli.md:10: error[unknown-flag]: --max-tokens is not an argument of the registry"
        " (remove the row, or update it to the argument that replaced it)",
        "legacy/cli.md:16: error[wrong-default]: bench --revision: the page says the default is"
        " 'v1', the registry says 'main' (write 'main')",
        "legacy/cli.md:3: error[missing-flag]: serve --port is in the registry but not on the"
        " page (add a row for it under 'General' of 'serve')",
        "legacy/cli.md:3: error[missing-flag]: serve --api-key is in the registry but not on the"
        " page (add a row for it under 'General' of 'serve')",
    ]
    assert audited.stdout.splitlines()[-1] == (
        "argmatrix audit: 5 finding(s) on 6 rows: 1 unknown-flag, 2 wrong-default, 2 missing-flag"
    )
    (legacy / "tpx.md").write_text(OLD_SUPPORT, encoding="utf-8")
    imported = shell.argmatrix(
        "import", "legacy/tpx.md", "--platform", "tpx", "-o", "legacy/tpx.yaml", cwd=project
    )
    assert imported.stderr == "argmatrix import: wrote legacy/tpx.yaml with 3 entries; 0 note(s)\n"
    manifest = (legacy / "tpx.yaml").read_text(encoding="utf-8")
    assert manifest.partition("arguments:\n")[2].splitlines() == [
        "  # serve General",
        "  serve --port: supported",
        "  serve --revision: supported",
        "  # bench General",
        "  bench --revision: planned",
    ]
    # The manifest works as the project's: in a copy of the project, in place of the one written
    # by hand, every entry resolves (a stale one would be an error of `generate` and `check`).
    moved = project.with_name("mysrv-imported")
    shutil.copytree(project, moved, ignore=shutil.ignore_patterns("site", "compat"))
    (moved / "capabilities" / "tpx.yaml").write_text(manifest, encoding="utf-8")
    shell.argmatrix("generate", cwd=moved)
    assert shell.argmatrix("check", cwd=moved).stdout == AGREES
