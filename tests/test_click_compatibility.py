"""The compatibility gate holds Click's facts (issue 31, item 10): an environment variable no
longer read (`envvar=` or `auto_envvar_prefix` removed), a range narrowed (`IntRange`, Typer's
`max=`), positionals swapped, a switch (`count=True`, `is_flag=True`) that now needs a value, a
case-insensitive Choice made case-sensitive; and a widening (`str` -> a path) is no break. Each
case is a release of a Click command and the next, read live and statically, the first through
a snapshot as a baseline is."""

from __future__ import annotations

from pathlib import Path

import pytest

from argmatrix.checks.compatibility import command_line_breaks
from argmatrix.loaders.load import Mode, RegistrySpec, load_registry
from argmatrix.model.registry import Registry, registry_from_dict, registry_to_dict
from helpers import chdir

HEAD = "import pathlib\n\nimport click\n\n\n"
BODY = "def serve(**kwargs):\n    open('ran.txt', 'w').write('ran')\n"

# (what changed, the command's decorators before, after, the breaks: (kind, name))
CASES = [
    (
        "envvar removed",
        '@click.command()\n@click.option("--port", type=int, default=80, envvar="SERVE_PORT")\n',
        '@click.command()\n@click.option("--port", type=int, default=80)\n',
        [("removed-envvar", "--port")],
    ),
    (
        "one of two envvars removed",
        '@click.command()\n@click.option("--host", envvar=["SERVE_HOST", "HOST"])\n',
        '@click.command()\n@click.option("--host", envvar=["SERVE_HOST"])\n',
        [("removed-envvar", "--host")],
    ),
    (
        "auto_envvar_prefix removed",
        '@click.command(context_settings={"auto_envvar_prefix": "APP"})\n'
        '@click.option("--port", type=int, default=80)\n@click.option("--host")\n',
        '@click.command()\n@click.option("--port", type=int, default=80)\n'
        '@click.option("--host")\n',
        [("removed-envvar", "--port"), ("removed-envvar", "--host")],
    ),
    (
        "range narrowed",
        '@click.command()\n@click.option("--workers", type=click.IntRange(1, 64), default=1)\n',
        '@click.command()\n@click.option("--workers", type=click.IntRange(1, 8), default=1)\n',
        [("rejected-value", "--workers")],
    ),
    (
        "range widened",
        '@click.command()\n@click.option("--workers", type=click.IntRange(1, 64), default=1)\n',
        '@click.command()\n@click.option("--workers", type=click.IntRange(0, 128), default=1)\n',
        [],
    ),
    (
        "range bound made open",
        '@click.command()\n@click.option("--ratio", type=click.FloatRange(0, 1), default=0.5)\n',
        "@click.command()\n"
        '@click.option("--ratio", type=click.FloatRange(0, 1, min_open=True), default=0.5)\n',
        [("rejected-value", "--ratio")],
    ),
    (
        "positionals swapped",
        '@click.command()\n@click.argument("model")\n@click.argument("config")\n',
        '@click.command()\n@click.argument("config")\n@click.argument("model")\n',
        [("moved-positional", "model"), ("moved-positional", "config")],
    ),
    (
        "positional renamed in its place",
        '@click.command()\n@click.argument("model")\n',
        '@click.command()\n@click.argument("model_path")\n',
        [],
    ),
    (
        "count switch now takes a value",
        '@click.command()\n@click.option("-v", "--verbose", count=True)\n',
        '@click.command()\n@click.option("-v", "--verbose", type=int, default=0)\n',
        [("rejected-value", "--verbose")],
    ),
    (
        "flag now takes a value",
        '@click.command()\n@click.option("--stream", is_flag=True)\n',
        '@click.command()\n@click.option("--stream", type=bool, default=False)\n',
        [("rejected-value", "--stream")],
    ),
    (
        "choice made case-sensitive",
        "@click.command()\n"
        '@click.option("--tier", type=click.Choice(["gold", "silver"], case_sensitive=False))\n',
        '@click.command()\n@click.option("--tier", type=click.Choice(["gold", "silver"]))\n',
        [("rejected-value", "--tier")],
    ),
    (
        "text now a path",
        '@click.command()\n@click.option("--out")\n@click.option("--log")\n',
        '@click.command()\n@click.option("--out", type=click.Path())\n'
        '@click.option("--log", type=pathlib.Path)\n',
        [],
    ),
]


def read(folder: Path, source: str, mode: Mode) -> Registry:
    folder.mkdir(exist_ok=True)
    (folder / "server.py").write_text(HEAD + source + BODY, encoding="utf-8")
    with chdir(folder):
        return load_registry(RegistrySpec("server:serve", mode, base_dir=folder, search_path=()))


@pytest.mark.parametrize("mode", ["live", "static"])
@pytest.mark.parametrize(("case", "before", "after", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_click_change_breaks_what_it_breaks(
    case: str, before: str, after: str, expected: list[tuple[str, str]], mode: Mode, tmp_path: Path
) -> None:
    baseline = registry_from_dict(registry_to_dict(read(tmp_path / "old", before, mode)))
    now = read(tmp_path / "new", after, mode)
    found = [(b.kind, b.name) for b in command_line_breaks(baseline, now)]
    assert sorted(found) == sorted(expected)
    assert not list(tmp_path.glob("*/ran.txt"))


def test_a_break_says_what_no_longer_works(tmp_path: Path) -> None:
    found = {}
    for case, before, after, _ in CASES:
        if case in ("envvar removed", "range narrowed", "choice made case-sensitive"):
            old = read(tmp_path / "old", before, "static")
            [one] = command_line_breaks(old, read(tmp_path / "new", after, "static"))
            found[case] = one.message
    assert found["envvar removed"] == (
        "--port: the environment variable SERVE_PORT is no longer read: a deployment setting it"
        " now runs otherwise"
    )
    assert found["range narrowed"] == (
        "--workers now takes 1<=x<=8 where it took 1<=x<=64: values outside now fail"
    )
    assert "in their own case only" in found["choice made case-sensitive"]


@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_hidden_subcommand_removed_is_no_break(mode: Mode, tmp_path: Path) -> None:
    group = (
        "@click.group()\ndef serve():\n    pass\n\n\n"
        "@serve.command(hidden={hidden})\ndef debug():\n    pass\n\n\n"
        "@serve.command()\ndef run():\n    pass\n"
    )
    old = tmp_path / "old"
    old.mkdir()
    (old / "server.py").write_text(HEAD + group.format(hidden=True), encoding="utf-8")
    new = tmp_path / "new"
    new.mkdir()
    (new / "server.py").write_text(
        HEAD + group.format(hidden=True).replace("debug", "other"), encoding="utf-8"
    )

    def load(folder: Path) -> Registry:
        with chdir(folder):
            return load_registry(
                RegistrySpec("server:serve", mode, base_dir=folder, search_path=())
            )

    baseline = registry_from_dict(registry_to_dict(load(old)))
    assert [(s.name, s.hidden) for s in baseline.subcommands] == [("debug", True), ("run", False)]
    assert command_line_breaks(baseline, load(new)) == []


def test_a_typer_range_narrowed_breaks(tmp_path: Path) -> None:
    """Typer's `min=`/`max=` is a range as Click's IntRange is (read statically: Typer itself
    is not installed here; tests/test_typer_registry.py reads Typer live)."""
    app = (
        "import typer\n\napp = typer.Typer()\n\n\n@app.command()\n"
        "def serve(workers: int = typer.Option(1, min=1, max={high})):\n    pass\n"
    )
    registries = []
    for name, high in (("old", 64), ("new", 8)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "server.py").write_text(app.format(high=high), encoding="utf-8")
        with chdir(folder):
            registries.append(
                load_registry(RegistrySpec("server:app", "static", base_dir=folder, search_path=()))
            )
    old, new = registries
    assert old.by_flag()["--workers"].extra["range"] == "1<=x<=64"
    found = [(b.kind, b.name) for b in command_line_breaks(old, new)]
    assert found == [("rejected-value", "--workers")]
