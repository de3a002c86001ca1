"""The corpus (issue 31): current releases of real command lines, each read as a user would name
it, live and statically, and compared with its framework's own view (tests/corpus_view.py, run in
the corpus environment): Click groups and commands (llm, celery, datasette, black, uvicorn), Typer
apps of several commands (fastapi-cli, huggingface_hub's `hf`, instructor) and argparse servers
(hypercorn, gunicorn), pinned in locks/corpus.txt and installed by `make corpus` into
.cache/corpus. Live equals the framework's view, every value of every subcommand; static equals
live, but for values it keeps as source text and says so, or it stops at the one located line
`STATIC` names (what static reading does not follow yet: update the line as it learns more).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from argmatrix.model.usage import typer_argument_usage
from export_values import argument_name, assert_plain_values
from helpers import REPO, TESTS, one_error_line

CORPUS = REPO / ".cache" / "corpus"
PYTHON = CORPUS / "bin" / "python"
SITE = CORPUS / "lib" / "python3.11" / "site-packages"

pytestmark = pytest.mark.corpus


@dataclass(frozen=True)
class Target:
    """A target of the corpus: its framework, the live settings a user gives it, and where
    static reading stops (`file relative to site-packages:LINE`, and what the line says), or
    None where it reads the whole registry."""

    framework: str
    static_stop: tuple[str, str] | None = None
    env: tuple[str, ...] = ()
    least: int = 10  # parameters, at least (its subcommands' included)
    subcommands: tuple[str, ...] = field(default=())  # some that must be there
    # A known gap of static reading (issue 31, item 7: it reads the registry at exit 0 but for
    # what it says here): the static test fails until it is mended, and then must be told so.
    static_gap: str | None = None


TARGETS: dict[str, Target] = {
    "llm.cli:cli": Target(
        "click",
        # its plugins add commands (the bundled OpenAI plugin adds `openai`)
        ("llm/cli.py:4107", "`pm.hook.register_commands(cli=cli)` hands a Click command"),
        least=150,
        subcommands=("prompt", "keys", "models", "templates", "embed"),
    ),
    "celery.bin.celery:celery": Target(
        "click",
        ("celery/bin/amqp.py:312", "`register_repl(amqp)` hands a Click command or group"),
        least=100,
        subcommands=("worker", "beat", "inspect", "control", "purge"),
    ),
    "datasette.cli:cli": Target(
        "click",
        # its plugins add `publish` subcommands (the bundled ones: cloudrun, heroku)
        ("datasette/cli.py:231", "`pm.hook.publish_subcommand(publish=publish)` hands"),
        least=80,
        subcommands=("serve", "inspect", "plugins", "publish", "install"),
    ),
    "black:main": Target("click", least=25),
    "uvicorn.main:main": Target("click", least=45),
    "fastapi_cli.cli:app": Target(
        "click",
        least=15,
        subcommands=("dev", "run"),
    ),
    "huggingface_hub.cli.hf:app": Target(
        "click",
        ("huggingface_hub/cli/hf.py:55", "is `typer_factory("),
        least=100,
        subcommands=("download", "upload", "auth", "repos", "cache"),
    ),
    "instructor.cli.cli:app": Target(
        "click",
        env=("OPENAI_API_KEY=not-a-key",),  # the module makes an OpenAI client when imported
        least=15,
        subcommands=("jobs", "files", "usage", "batch"),
    ),
    "hypercorn.__main__:main": Target("argparse", least=35),
    "gunicorn.app.wsgiapp:run": Target(
        "argparse",
        # its parser is built by the application object's methods, its settings registered
        # by a metaclass
        (
            "gunicorn/app/wsgiapp.py:66",
            "the first statement it does not follow is `WSGIApplication(",
        ),
        least=80,
    ),
}


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not (CORPUS / ".installed").is_file():
        pytest.fail(
            f"the corpus is not installed in {CORPUS} (fix: run `make corpus`)", pytrace=False
        )
    return CORPUS


def corpus_environment(cwd: Path) -> dict[str, str]:
    """The corpus environment's Python first on PATH, no coverage, no cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_CORE_", "COVERAGE_"))}
    env.pop("PYTHONPATH", None)
    return {
        **env,
        "PATH": f"{CORPUS / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "ARGMATRIX_NO_CACHE": "1",
    }


def export(
    target: str, settings: Target, static: bool, cwd: Path
) -> subprocess.CompletedProcess[str]:
    words = ["export", "--registry", target]
    words += ["--static"] if static else [f"--env={pair}" for pair in settings.env]
    return subprocess.run(
        [str(PYTHON), "-m", "argmatrix", *words],
        cwd=cwd,
        env=corpus_environment(cwd),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def own_view(target: str, settings: Target, cwd: Path) -> dict[str, Any]:
    env = corpus_environment(cwd)
    env.update(pair.split("=", 1) for pair in settings.env)  # type: ignore[arg-type]
    done = subprocess.run(
        [str(PYTHON), str(TESTS / "corpus_view.py"), target],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    assert found["framework"] == settings.framework
    return found["view"]


# ------------------------------------------------------------------ the model, as the view says it


def plain_text(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else value


def no_address(value: Any) -> Any:
    """A value's text without the memory address Python's repr may give an object."""
    if isinstance(value, dict) and set(value) == {"python"}:
        return {"python": re.sub(r" at 0x[0-9a-f]+", "", value["python"])}
    if isinstance(value, list):
        return [no_address(v) for v in value]
    return value


def click_model_view(registry: dict[str, Any]) -> dict[str, Any]:
    return {
        "help": plain_text(registry["description"]),
        "params": [
            {
                "flags": a["flags"],
                "dest": a["dest"],
                "required": a["required"],
                "repeatable": a["action"] in ("append", "append_const"),
                "count": a["action"] == "count",
                "nargs": a["nargs"],
                "default": None if a["required"] else a["default"],
                "envvar": a["extra"].get("envvar"),
                "help": plain_text(a["help"]),
                "hidden": a["hidden"],
                "choices": a["choices"],
                "bounds": _bounds(a),
            }
            for a in registry["arguments"]
        ],
        "commands": {
            s["name"]: {
                **click_model_view(s["registry"]),
                "hidden": s.get("hidden", False),
                "aliases": s["aliases"],
            }
            for s in registry.get("subcommands", ())
        },
    }


def _bounds(argument: dict[str, Any]) -> list[Any] | None:
    text = argument["extra"].get("range")
    if text is None or argument["action"] == "count":
        return None
    number = r"-?[0-9.e+]+"
    low = re.match(rf"({number})<", text)
    high = re.search(rf"<=?({number})$", text)
    if text.startswith("x>"):
        low = re.match(rf"x>=?({number})", text)
    return [_number(low.group(1)) if low else None, _number(high.group(1)) if high else None]


def _number(text: str) -> float | int:
    return float(text) if any(c in text for c in ".e") else int(text)


def argparse_model_view(registry: dict[str, Any]) -> dict[str, Any]:
    return {
        "help": plain_text(registry["description"]),
        "params": [
            {
                "flags": a["flags"],
                "dest": a["dest"],
                "required": a["required"],
                "nargs": a["nargs"],
                "default": a["default"],
                "choices": a["choices"],
                "hidden": a["hidden"],
                "help": plain_text(a["help"]),
            }
            for a in registry["arguments"]
        ],
        "commands": {},
    }


def model_view(registry: dict[str, Any], framework: str) -> dict[str, Any]:
    view = click_model_view(registry) if framework == "click" else argparse_model_view(registry)
    return no_address(view)  # type: ignore[no-any-return]


def view_without_addresses(view: dict[str, Any]) -> dict[str, Any]:
    params = [{**p, "default": no_address(p["default"])} for p in view["params"]]
    commands = {n: {**c, **view_without_addresses(c)} for n, c in view["commands"].items()}
    return {**view, "params": params, "commands": commands}


def count(registry: dict[str, Any]) -> int:
    return len(registry["arguments"]) + sum(
        count(s["registry"]) for s in registry.get("subcommands", ())
    )


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_live_reading_equals_the_frameworks_own_view(
    target: str, corpus: Path, tmp_path: Path
) -> None:
    settings = TARGETS[target]
    done = export(target, settings, static=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    for line in done.stderr.splitlines():  # what it says: values kept as source text only
        assert line.startswith("argmatrix: warning: ") and "kept as source text" in line, line
    live = json.loads(done.stdout)["registry"]
    assert count(live) >= settings.least
    names = {s["name"] for s in live.get("subcommands", ())}
    assert set(settings.subcommands) <= names, sorted(names)
    assert_plain_values(live, said=done.stderr)
    own = view_without_addresses(own_view(target, settings, tmp_path))
    mine = model_view(live, settings.framework)
    assert mine == own, "\n".join(differences(mine, own)[:30])
    assert not list(tmp_path.iterdir())  # live reading wrote nothing: it ran no command


def static_cases() -> list[Any]:
    return [
        pytest.param(
            target,
            marks=pytest.mark.xfail(strict=True, reason=f"static reading: {settings.static_gap}"),
        )
        if settings.static_gap
        else target
        for target, settings in sorted(TARGETS.items())
    ]


@pytest.mark.parametrize("target", static_cases())
def test_static_reading_equals_live_or_stops_at_one_located_line(
    target: str, corpus: Path, tmp_path: Path
) -> None:
    settings = TARGETS[target]
    done = export(target, settings, static=True, cwd=tmp_path)
    if settings.static_stop is not None:
        where, what = settings.static_stop
        result = type("Run", (), {"code": done.returncode, "out": done.stdout, "err": done.stderr})
        line = one_error_line(result, what)  # type: ignore[arg-type]
        if where:
            path, _, number = where.rpartition(":")
            assert f"{SITE / path}:{number}: " in line, line
        return
    assert done.returncode == 0, done.stderr[-2000:]
    static = json.loads(done.stdout)["registry"]
    assert_plain_values(static, said=done.stderr)
    live_done = export(target, settings, static=False, cwd=tmp_path)
    live = json.loads(live_done.stdout)["registry"]
    assert equal_but_said(static, live, done.stderr) == []


def typers_own_usage(static: dict[str, Any], live: dict[str, Any]) -> bool:
    """Whether a positional's metavar read live is how the installed Typer writes it in a usage
    (`{model}`, `[name]...`: Typer 0.29 writes arguments itself), of the one static reading
    gives as Click writes it (`MODEL`, or the declared metavar), which is all static reading
    can know (it never learns which Typer is installed)."""
    if static["flags"]:
        return False
    several = live["nargs"] is not None
    return any(
        live["metavar"] == typer_argument_usage(name, live["required"], several)
        for name in (live["dest"], static["metavar"])
    )


def equal_but_said(static: dict[str, Any], live: dict[str, Any], said: str) -> list[str]:
    """Where the two readings differ, but for a value static reading kept as source text and
    said so on stderr (`--flag: default kept as source text`)."""
    differences: list[str] = []
    if [a["flags"] or [a["dest"]] for a in static["arguments"]] != [
        a["flags"] or [a["dest"]] for a in live["arguments"]
    ]:
        return [f"{static['source']}: other arguments"]
    for before, after in zip(static["arguments"], live["arguments"], strict=True):
        name = argument_name(before)
        for key, value in before.items():
            if value == after[key]:
                continue
            kept = isinstance(value, dict) and "unevaluated" in value
            if kept and f"{name}: {key} kept as source text" in said:
                continue
            if key == "metavar" and typers_own_usage(before, after):
                continue
            differences.append(f"{static['source']} {name}: {key} {value!r} != {after[key]!r}")
    static_subs = {s["name"]: s for s in static.get("subcommands", ())}
    live_subs = {s["name"]: s for s in live.get("subcommands", ())}
    if set(static_subs) != set(live_subs):
        differences.append(
            f"{static['source']}: subcommands {sorted(static_subs)} != {sorted(live_subs)}"
        )
    for name in set(static_subs) & set(live_subs):
        differences += equal_but_said(
            static_subs[name]["registry"], live_subs[name]["registry"], said
        )
    return differences


def differences(mine: dict[str, Any], own: dict[str, Any], path: str = "") -> list[str]:
    """Each value where the model's view and the framework's differ, one line each."""
    found = [
        f"{path}{key}: {mine.get(key)!r} != {own.get(key)!r}"
        for key in ("help", "hidden", "aliases")
        if mine.get(key) != own.get(key)
    ]
    mine_params = {(p["flags"] or [p["dest"]])[0]: p for p in mine["params"]}
    own_params = {(p["flags"] or [p["dest"]])[0]: p for p in own["params"]}
    if list(mine_params) != list(own_params):
        found.append(f"{path}parameters {list(mine_params)} != {list(own_params)}")
    for name in mine_params.keys() & own_params.keys():
        for key, value in mine_params[name].items():
            if value != own_params[name].get(key):
                found.append(f"{path}{name} {key}: {value!r} != {own_params[name].get(key)!r}")
    if set(mine["commands"]) != set(own["commands"]):
        found.append(f"{path}commands {sorted(mine['commands'])} != {sorted(own['commands'])}")
    for name in mine["commands"].keys() & own["commands"].keys():
        found += differences(mine["commands"][name], own["commands"][name], f"{path}{name} ")
    return found
