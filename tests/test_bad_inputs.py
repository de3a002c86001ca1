"""Every bad input a user can cause: exit 2, one line naming the file and line, nothing touched.

The table under "Bad inputs" in README.md lists the same cases; keep them in step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import (
    append_to,
    copy_project,
    files_under,
    line_of,
    one_error_line,
    replace_in,
    run_cli_in_process,
)


@dataclass(frozen=True)
class Case:
    name: str
    mutate: Callable[[Path], None]
    says: str  # a fragment of the one-line message
    file: str  # the file the message names
    line: str | int | None  # the line it names: a number, or text found on that line


def _append(relative: str, text: str) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        append_to(root / relative, text)

    return mutate


def _replace(relative: str, old: str, new: str) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        replace_in(root / relative, old, new)

    return mutate


def _write(relative: str, content: str | bytes) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        (root / relative).write_bytes(data)

    return mutate


def _both(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        for step in steps:
            step(root)

    return mutate


MANIFEST = "capabilities/npu.yaml"
CONFIG = "argmatrix.yaml"
# Longer than a file system allows (errno 36): a name of 300 bytes; a path of 20 folders of 240.
LONG_NAME = "n" * 300
LONG_PATH = ("f" * 240 + "/") * 20
REGISTRY = "tinyserver.py"
# A program whose two subcommands take the same flag.
HUB = (
    "import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
    "    commands = parser.add_subparsers()\n"
    "    for name in ('serve', 'download'):\n"
    "        commands.add_parser(name).add_argument('--revision', default='main')\n"
    "    return parser\n"
)

CASES = [
    Case(
        "malformed YAML",
        _append(MANIFEST, "  --port: {status: supported\n"),
        "malformed YAML",
        "npu.yaml",
        "--port: {status: supported",
    ),
    Case(
        "a value YAML types but cannot read (a date past December)",
        _append(MANIFEST, "  --port: {status: supported, note: 2024-13-01}\n"),
        "cannot read '2024-13-01'",
        "npu.yaml",
        "2024-13-01",
    ),
    Case(
        "an alias inside the node it names",
        _append(MANIFEST, "  --port: &loop {status: supported, note: *loop}\n"),
        "an alias refers to a node that contains it",
        "npu.yaml",
        "&loop",
    ),
    Case(
        "unknown top-level key",
        _append(MANIFEST, "colour: blue\n"),
        "unknown key 'colour'",
        "npu.yaml",
        "colour: blue",
    ),
    Case(
        "unknown entry key",
        _append(MANIFEST, "  --port: {status: supported, colour: red}\n"),
        "--port: unknown key 'colour'",
        "npu.yaml",
        "--port:",
    ),
    Case(
        "wrong type of options",
        _append(MANIFEST, "  --port: {status: supported, options: 8}\n"),
        "'options' must be a list",
        "npu.yaml",
        "--port:",
    ),
    Case(
        "unknown status",
        _append(MANIFEST, "  --port: works\n"),
        "--port: unknown status 'works'",
        "npu.yaml",
        "--port:",
    ),
    Case(
        "unknown variant",
        _append(MANIFEST, "  --port: {status: supported, variants: [V9]}\n"),
        "--port: unknown variant 'V9'",
        "npu.yaml",
        "--port:",
    ),
    Case(
        "a flag named twice",
        _append(MANIFEST, "  --dtype: supported\n"),
        "flag '--dtype' is named twice",
        "npu.yaml",
        "--dtype: supported",
    ),
    Case(
        "a status without its reason",
        _append(MANIFEST, "  --port: unsupported\n"),
        "--port: status 'unsupported' needs a 'reason'",
        "npu.yaml",
        "--port:",
    ),
    Case(
        "malformed configuration",
        _append(CONFIG, "pages: [\n"),
        "malformed YAML",
        "argmatrix.yaml",
        None,
    ),
    Case(
        "unknown key in the configuration",
        _append(CONFIG, "colour: blue\n"),
        "unknown key 'colour'",
        "argmatrix.yaml",
        "colour: blue",
    ),
    Case(
        "unknown platform in pages",
        _append(CONFIG, "  - {template: platform_support.md.j2, output: x.md, platform: gpu}\n"),
        "unknown platform 'gpu'",
        "argmatrix.yaml",
        "platform: gpu",
    ),
    Case(
        "an unknown layout of a server page",
        _append(
            CONFIG,
            "  - {template: server_arguments.md.j2, output: x.md, options: {layout: cards}}\n",
        ),
        "unknown layout 'cards' (fix: use one of: table, compact",
        "argmatrix.yaml",
        "layout: cards",
    ),
    Case(
        "an unknown usage of a server page",
        _append(
            CONFIG,
            "  - {template: server_arguments.md.j2, output: x.md, options: {usage: brief}}\n",
        ),
        "unknown usage 'brief' (fix: use full (argparse's own usage, the default), short",
        "argmatrix.yaml",
        "usage: brief",
    ),
    Case(
        "an unknown layout of a platform page",
        _append(
            CONFIG,
            "  - {template: platform_support.md.j2, output: x.md, platform: npu,"
            " options: {layout: grid}}\n",
        ),
        "unknown layout 'grid' (fix: use one of: status, variants)",
        "argmatrix.yaml",
        "layout: grid",
    ),
    Case(
        "a page whose output is a folder",
        _both(
            _write("docs/folder/keep.md", "kept\n"),
            _append(CONFIG, "  - {template: server_arguments.md.j2, output: folder}\n"),
        ),
        "the output is a folder",
        "folder",
        None,
    ),
    Case(
        "a page output outside docs_dir",
        _append(CONFIG, "  - {template: server_arguments.md.j2, output: ../../x.md}\n"),
        "is not a file inside docs_dir",
        "argmatrix.yaml",
        "../../x.md",
    ),
    Case(
        "a page output whose name is longer than a file system allows",
        _append(CONFIG, f"  - {{template: server_arguments.md.j2, output: {LONG_NAME}.md}}\n"),
        "more than a file system allows",
        "argmatrix.yaml",
        LONG_NAME,
    ),
    Case(
        "a page output whose path is longer than a file system allows",
        _append(CONFIG, f"  - {{template: server_arguments.md.j2, output: {LONG_PATH}x.md}}\n"),
        "more than a file system allows",
        "argmatrix.yaml",
        LONG_PATH,
    ),
    Case(
        "a docs_dir whose name is longer than a file system allows",
        _replace(CONFIG, "docs_dir: docs", f"docs_dir: {LONG_NAME}"),
        "'docs_dir' '",
        "argmatrix.yaml",
        "docs_dir:",
    ),
    Case(
        "a templates_dir whose name is longer than a file system allows",
        _append(CONFIG, f"templates_dir: {LONG_NAME}\n"),
        "'templates_dir' '",
        "argmatrix.yaml",
        "templates_dir:",
    ),
    Case(
        "a coverage page whose name is longer than a file system allows",
        _append(CONFIG, f"checks:\n  coverage:\n    - page: {LONG_NAME}.md\n"),
        "checks: coverage: page '",
        "argmatrix.yaml",
        LONG_NAME,
    ),
    Case(
        "a template that does not exist",
        _append(CONFIG, "  - {template: nowhere.md.j2, output: x.md}\n"),
        "template 'nowhere.md.j2' not found",
        "argmatrix.yaml",
        "nowhere.md.j2",
    ),
    Case(
        "a template that fails to render",
        _both(
            _write("templates/broken.md.j2", "# {{ no_such_thing.title }}\n"),
            _append(CONFIG, "  - {template: broken.md.j2, output: x.md}\n"),
        ),
        "template 'broken.md.j2' failed to render",
        "argmatrix.yaml",
        "broken.md.j2",
    ),
    Case(
        "a template that is not UTF-8",
        _both(
            _write("templates/broken.md.j2", b"# caf\xe9\n"),
            _append(CONFIG, "  - {template: broken.md.j2, output: x.md}\n"),
        ),
        "template 'broken.md.j2' is not UTF-8 text",
        "broken.md.j2",
        None,
    ),
    Case(
        "arguments declared as fields of a class whose base static reading cannot see",
        _write(
            "tinyserver.py",
            "import argparse\nimport dataclasses\n\nfrom settings_lib import BaseSettings\n\n\n"
            "@dataclasses.dataclass\nclass ServerArgs(BaseSettings):\n    port: int = 80\n\n"
            "    @staticmethod\n    def add_cli_args(parser: argparse.ArgumentParser) -> None:\n"
            "        for field in dataclasses.fields(ServerArgs):\n"
            '            parser.add_argument("--" + field.name, default=field.default)\n',
        ),
        "cannot be followed statically",
        "tinyserver.py",
        "for field in dataclasses.fields(ServerArgs):",
    ),
    Case(
        "a statement adding arguments that static reading cannot follow",
        _replace(
            REGISTRY,
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n',
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n'
            "        from othertool import extra_arguments\n"
            "        extra_arguments(parser)\n",
        ),
        "static reading stopped: `extra_arguments(...)` is handed a parser",
        "tinyserver.py",
        "extra_arguments(parser)",
    ),
    Case(
        "code given as text in a builder (exec, eval, compile)",
        _replace(
            REGISTRY,
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n',
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n'
            "        exec(\"parser.add_argument('--hidden')\")\n",
        ),
        "static reading stopped: `exec(...)` runs code given as text",
        "tinyserver.py",
        "exec(",
    ),
    Case(
        "a parser kept in an object static reading does not follow",
        _replace(
            REGISTRY,
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n',
            '        parser.add_argument("--port", type=int, default=ServerArgs.port, help="HTTP port.")\n'
            "        from othertool import Holder\n"
            "        holder = Holder()\n"
            "        holder.parser = parser\n",
        ),
        "static reading stopped: `holder.parser` keeps a parser in an object",
        "tinyserver.py",
        "holder.parser = parser",
    ),
    Case(
        "a page format argmatrix does not write",
        _append(CONFIG, "  - {template: server_arguments.md.j2, output: x.rst, format: rst}\n"),
        "page: unknown format 'rst'",
        "argmatrix.yaml",
        "format: rst",
    ),
    Case(
        "a page's history facts that are not JSON",
        _both(
            _write("history.json", "{not json"),
            _append(
                CONFIG,
                "  - {template: server_arguments.md.j2, output: h.md, history: history.json}\n",
            ),
        ),
        "the history facts file is not JSON",
        "history.json",
        None,
    ),
    Case(
        "a page's history facts written by something else",
        _both(
            _write("history.json", '{"format": "other"}'),
            _append(
                CONFIG,
                "  - {template: server_arguments.md.j2, output: h.md, history: history.json}\n",
            ),
        ),
        "not an argmatrix history file",
        "history.json",
        None,
    ),
    Case(
        "an environment variable prefix that cannot start a variable",
        _append(CONFIG, "environment: {prefix: 'SG LANG'}\n"),
        "environment: 'prefix' must start a variable's name",
        "argmatrix.yaml",
        "environment:",
    ),
    Case(
        "a computed default for a flag the registry does not have",
        _append(CONFIG, "computed_defaults:\n  --no-such-flag: chosen at start-up\n"),
        "computed_defaults: '--no-such-flag' is not an argument of the registry",
        "argmatrix.yaml",
        "--no-such-flag",
    ),
    Case(
        "a program's name that is not a text on one line",
        _append(CONFIG, "prog: [llmserve]\n"),
        "'prog' must be the program's name on one line",
        "argmatrix.yaml",
        "prog:",
    ),
    Case(
        "a manifest's computed default that is not a text",
        _append(MANIFEST, "  --port: {status: supported, computed_default: [a]}\n"),
        "--port: 'computed_default' must be a short text on one line",
        "npu.yaml",
        "computed_default: [a]",
    ),
    Case(
        "a template with a syntax error",
        _both(
            _write("templates/broken.md.j2", "line one\n{% for %}\n"),
            _append(CONFIG, "  - {template: broken.md.j2, output: x.md}\n"),
        ),
        "template syntax error",
        "broken.md.j2",
        2,
    ),
    Case(
        "a registry that raises while building",
        _both(
            _replace(
                REGISTRY,
                "    def add_cli_args(parser: argparse.ArgumentParser) -> None:\n",
                "    def add_cli_args(parser: argparse.ArgumentParser) -> None:\n"
                "        raise RuntimeError('half-finished refactor')\n",
            ),
            _replace(CONFIG, "  mode: static\n", "  mode: live\n"),
        ),
        "raised RuntimeError: half-finished refactor",
        "tinyserver.py",
        "half-finished",
    ),
    Case(
        "a distribution the registry asks the version of that is not installed (live)",
        _both(
            _replace(
                REGISTRY,
                "    def add_cli_args(parser: argparse.ArgumentParser) -> None:\n",
                "    def add_cli_args(parser: argparse.ArgumentParser) -> None:\n"
                "        import importlib.metadata\n"
                "        importlib.metadata.version('no-such-gpu-lib')\n",
            ),
            _replace(CONFIG, "  mode: static\n", "  mode: live\n"),
        ),
        "asked importlib.metadata for the distribution 'no-such-gpu-lib', which is not installed",
        "tinyserver.py",
        "no-such-gpu-lib",
    ),
    Case(
        "a version of a stood-in distribution that YAML reads as a number",
        _replace(CONFIG, "  mode: static\n", "  mode: live\n  versions: {torch: 2.10}\n"),
        "registry: 'versions' must map distribution names to versions written as text",
        "argmatrix.yaml",
        "versions:",
    ),
    Case(
        "a feature matrix naming a flag the registry does not have",
        _append(
            CONFIG,
            "  - template: platform_matrix.md.j2\n"
            "    output: reference/features.md\n"
            "    options: {features: {--no-such-flag: Something}}\n",
        ),
        "feature 'Something' names '--no-such-flag', which is not an argument of the registry",
        "argmatrix.yaml",
        "template: platform_matrix.md.j2",
    ),
    Case(
        "a registry with a syntax error",
        _append(REGISTRY, "def broken(:\n"),
        "syntax error",
        "tinyserver.py",
        "def broken(:",
    ),
    Case(
        "a parser class that is no ArgumentParser (static)",
        _replace(
            CONFIG, "  mode: static\n", "  mode: static\n  parser_class: tinyserver:ServerArgs\n"
        ),
        "parser_class 'tinyserver:ServerArgs' is not a subclass of argparse.ArgumentParser",
        "tinyserver.py",
        "class ServerArgs",
    ),
    Case(
        "a registry of zero arguments",
        _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "empty_registry:build"),
        "has no arguments",
        "",
        None,
    ),
    Case(
        "Click options without a command (static)",
        _both(
            _write(
                "bare_click.py",
                "import click\n\n\n@click.option('--port', type=int)\ndef serve(port):\n    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "bare_click:serve"),
        ),
        "has @click.option decorators but no @click.command",
        "bare_click.py",
        "def serve",
    ),
    Case(
        "a Click command run while the registry is imported (live)",
        _both(
            _write(
                "click_usage.py",
                "import click\n\n\n@click.command()\n@click.option('--port', type=int)\n"
                "def serve(port):\n    pass\n\n\nserve(['--no-such-option'])\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "click_usage:serve"),
            _replace(CONFIG, "  mode: static\n", "  mode: live\n"),
        ),
        "importing 'click_usage' runs the Click command 'serve'",
        "click_usage.py",
        "serve(['--no-such-option'])",
    ),
    Case(
        "a Click decorator static reading does not follow (static)",
        _both(
            _write(
                "shared_options.py",
                "import click\nfrom elsewhere import common_options\n\n\n@click.command()\n"
                "@common_options\n@click.option('--port', type=int)\ndef serve(port, **kw):\n"
                "    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "shared_options:serve"),
        ),
        "static reading stopped: the decorator `common_options` is not one static reading",
        "shared_options.py",
        "@common_options",
    ),
    Case(
        "a Click keyword deciding what an option is that static reading cannot compute (static)",
        _both(
            _write(
                "guess_click.py",
                "import os\nimport click\n\n\n@click.command()\n"
                "@click.option('--x', required=os.cpu_count() > 1)\ndef serve(x):\n    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "guess_click:serve"),
        ),
        "static reading stopped: --x: `required=` cannot be computed statically",
        "guess_click.py",
        "@click.option('--x'",
    ),
    Case(
        "a Click option Click refuses when the module is imported (static)",
        _both(
            _write(
                "refused_click.py",
                "import click\n\n\n@click.command()\n@click.option('model')\n"
                "def serve(model):\n    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "refused_click:serve"),
        ),
        "Click refuses the option 'model': no option names",
        "refused_click.py",
        "@click.option('model')",
    ),
    Case(
        "a Typer parameter Typer refuses when the app is built (static)",
        _both(
            _write(
                "refused_typer.py",
                "from typing import Annotated\n\nimport typer\n\napp = typer.Typer()\n\n\n"
                "@app.command()\ndef serve(\n"
                "    port: Annotated[int, typer.Option(), typer.Option()] = 1,\n) -> None:\n"
                "    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "refused_typer:app"),
        ),
        "Typer refuses the parameter `port`: more than one typer.Option or Argument",
        "refused_typer.py",
        "    port: Annotated",
    ),
    Case(
        "a Click group handed to code static reading does not follow, a plugin hook (static)",
        _both(
            _write(
                "hooked_click.py",
                "import click\nfrom plugins import hook\n\n\n@click.group()\ndef cli():\n"
                "    pass\n\n\nhook.register_commands(cli=cli)\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "hooked_click:cli"),
        ),
        "static reading stopped: `hook.register_commands(cli=cli)` hands a Click command",
        "hooked_click.py",
        "hook.register_commands",
    ),
    Case(
        "a Click command changed once made in a statement static reading does not follow (static)",
        _both(
            _write(
                "changed_click.py",
                "import click\n\n\n@click.command()\ndef serve():\n    pass\n\n\n"
                "serve.hidden = True\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "changed_click:serve"),
        ),
        "static reading stopped: `serve.hidden` changes the Click command 'serve'",
        "changed_click.py",
        "serve.hidden = True",
    ),
    Case(
        "a Typer app handed to code static reading does not follow, a plugin hook (static)",
        _both(
            _write(
                "hooked_typer.py",
                "import typer\nfrom plugins import hook\n\napp = typer.Typer()\n\n\n"
                "@app.command()\ndef serve(port: int = 1):\n    pass\n\n\n"
                "hook.register_commands(app=app)\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "hooked_typer:app"),
        ),
        "static reading stopped: `hook.register_commands(app=app)` hands a Typer app",
        "hooked_typer.py",
        "hook.register_commands",
    ),
    Case(
        "a target function that builds no parser static reading can follow (static)",
        _both(
            _write(
                "runs_app.py",
                "class Application:\n    def run(self):\n        pass\n\n\n"
                "def run():\n    Application().run()\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "runs_app:run"),
        ),
        "runs_app:run does not build an argparse.ArgumentParser that static reading can follow:"
        " the first statement it does not follow is `Application().run()`",
        "runs_app.py",
        "    Application().run()",
    ),
    Case(
        "a Click command registered under what is not a text (live)",
        _both(
            _write(
                "numbered_click.py",
                "import click\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
                "@cli.command(name=2)\ndef serve():\n    pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "numbered_click:cli"),
            _replace(CONFIG, "  mode: static\n", "  mode: live\n"),
        ),
        "the Click group 'cli' registers a command under 2, which is not a name",
        "numbered_click.py",
        "@cli.command(name=2)",
    ),
    Case(
        "a command defined in two branches of an if static reading cannot decide (static)",
        _both(
            _write(
                "branches_click.py",
                "import sys\nimport click\n\nif sys.platform.startswith('linux'):\n\n"
                "    @click.command()\n    def serve():\n        pass\n\nelse:\n\n"
                "    @click.command()\n    def serve():\n        pass\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "branches_click:serve"),
        ),
        "static reading stopped: `serve` is bound in more than one alternative of `if",
        "branches_click.py",
        "if sys.platform",
    ),
    Case(
        "a function running a command imported from a module static reading does not read (static)",
        _both(
            _write(
                "runner_click.py",
                "def main():\n    from some_other_distribution.cli import app\n\n    app()\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "runner_click:main"),
        ),
        "static reading stopped: runner_click:main runs `app()`, imported from",
        "runner_click.py",
        "    app()",
    ),
    Case(
        "a target bound to an object made by a call that is no Click command or Typer app (static)",
        _both(
            _write(
                "factory_click.py",
                "import click\nfrom factories import make_group\n\ncli = make_group('x')\n",
            ),
            _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "factory_click:cli"),
        ),
        "static reading stopped: factory_click:cli is `make_group('x')`, which static reading"
        " does not read as a Click command",
        "factory_click.py",
        "cli = make_group",
    ),
    Case(
        "module:__main__ of a module without a __main__ block (static)",
        _replace(CONFIG, "tinyserver:ServerArgs.add_cli_args", "tinyserver:__main__"),
        'has no `if __name__ == "__main__":` block to read',
        "tinyserver.py",
        None,
    ),
    Case(
        "a truncated snapshot",
        _both(
            _write("snap.json", '{"format": "argmatrix-snapshot", "version": 1, "regi'),
            _replace(
                CONFIG,
                "  target: tinyserver:ServerArgs.add_cli_args\n  mode: static\n",
                "  target: snap.json\n",
            ),
        ),
        "not valid JSON",
        "snap.json",
        1,
    ),
    Case(
        "a snapshot with a wrong field type",
        _both(
            _write(
                "snap.json",
                '{"format": "argmatrix-snapshot", "version": 1, "registry":'
                ' {"source": "s", "sections": ["A"], "arguments":'
                ' [{"flags": [5], "dest": "x"}]}}',
            ),
            _replace(
                CONFIG,
                "  target: tinyserver:ServerArgs.add_cli_args\n  mode: static\n",
                "  target: snap.json\n",
            ),
        ),
        "'flags' is not a list of text",
        "snap.json",
        None,
    ),
    Case(
        "a snapshot of another version",
        _both(
            _write("snap.json", '{"format": "argmatrix-snapshot", "version": 99}'),
            _replace(
                CONFIG,
                "  target: tinyserver:ServerArgs.add_cli_args\n  mode: static\n",
                "  target: snap.json\n",
            ),
        ),
        "snapshot schema version 99 is not supported",
        "snap.json",
        None,
    ),
    Case(
        "compatibility accept entries as a list",
        _both(
            _write("compat/baseline.json", "{}"),
            _append(
                CONFIG,
                "checks:\n  compatibility:\n    baseline: compat/baseline.json\n"
                "    accept: [--old-flag]\n",
            ),
        ),
        "checks: compatibility: 'accept' must map each argument to the reason its break is"
        " accepted",
        CONFIG,
        "accept: [--old-flag]",
    ),
    Case(
        "a compatibility accept entry without a reason",
        _both(
            _write("compat/baseline.json", "{}"),
            _append(
                CONFIG,
                "checks:\n  compatibility:\n    baseline: compat/baseline.json\n"
                "    accept:\n      --old-flag:\n",
            ),
        ),
        "checks: compatibility: accept: '--old-flag' needs a reason",
        CONFIG,
        "--old-flag:",
    ),
    Case(
        "a bare flag two subcommands share",
        _both(
            _write("hub.py", HUB),
            _write(
                CONFIG,
                "registry: {target: 'hub:build', mode: static}\ndocs_dir: docs\npages:\n"
                "  - {template: server_arguments.md.j2, output: reference/server_arguments.md}\n"
                "computed_defaults: {--revision: the newest}\n",
            ),
        ),
        "computed_defaults: '--revision' is an argument of several subcommands ('serve"
        " --revision', 'download --revision') (fix: name the subcommand",
        CONFIG,
        "--revision: the newest",
    ),
    Case(
        "an unknown stability tag",
        _append(CONFIG, "stability:\n  arguments:\n    --port: experimental\n"),
        "stability: '--port': unknown tag 'experimental' (fix: use one of: stable, beta,"
        " prototype, deprecated)",
        CONFIG,
        "--port: experimental",
    ),
]


def _empty_registry(root: Path) -> None:
    (root / "empty_registry.py").write_text(
        "import argparse\n\n\ndef build():\n    return argparse.ArgumentParser(add_help=False)\n"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_exits_2_with_one_line_and_touches_nothing(tmp_path: Path, case: Case) -> None:
    root = copy_project(tmp_path)
    _empty_registry(root)
    assert run_cli_in_process("generate", cwd=root).code == 0
    case.mutate(root)
    before = files_under(root / "docs")
    for command in ("generate", "check"):
        said = one_error_line(run_cli_in_process(command, cwd=root), case.says, case.file)
        line = case.line
        if isinstance(line, str):
            line = line_of(next(p for p in root.rglob(case.file) if p.is_file()), line)
        if line is not None:
            assert re.search(rf"{re.escape(case.file)}:{line}:", said), said
        assert files_under(root / "docs") == before  # no page touched, no temporary file left


def test_every_problem_of_a_manifest_is_reported_at_once(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    _append(MANIFEST, "  --port: works\n  --host: {status: unsupported}\ncolour: blue\n")(root)
    result = run_cli_in_process("export", cwd=root)
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 3
    numbers = [int(re.search(r"npu\.yaml:(\d+):", line).group(1)) for line in lines]
    text = (root / MANIFEST).read_text().splitlines()
    assert numbers == [
        text.index("  --port: works") + 1,
        text.index("  --host: {status: unsupported}") + 1,
        text.index("colour: blue") + 1,
    ]  # in file order


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli_in_process("frobnicate").code == 2
    assert run_cli_in_process("check", "--format", "xml").code == 2
    assert run_cli_in_process("check", "--config", "a.yaml", "--no-config").code == 2
