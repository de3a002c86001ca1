"""How arguments read on the pages, as the configuration says (tests/fixtures/display): an
"Environment variable" column (`environment:` a keyword of add_argument, a prefix + the dest,
or an entry per flag), converter names shown as the project's text (`types:`), and defaults
computed at run time said in words (`computed_defaults:`, and a manifest's `computed_default`).

Every format is compared byte for byte with its golden file and read back with its real parser
(markdown-it for Markdown, @mdx-js/mdx for MDX, Sphinx + myst-parser for MyST and the
directive); the fixture's environment variables and texts are hostile (pipes, backticks, HTML,
braces, emphasis, link syntax) and must read as written. `ARGMATRIX_UPDATE_GOLDEN=1` rewrites the
golden files; read the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from argmatrix.adoption.audit import audit_page
from argmatrix.adoption.handwritten import parse_page
from argmatrix.adoption.page_defaults import default_agrees
from argmatrix.config import load_config
from argmatrix.project import project_from_config
from helpers import FIXTURES, flag_of, one_error_line, run_cli_in_process, tables
from test_mdx_compiler import MdxCompiler, compiled, compiler_fixture, jsx_tables

DISPLAY = FIXTURES / "display"
GOLDEN = DISPLAY / "golden"
PAGES = (
    "server_arguments.md",
    "server_arguments.mdx",
    "server_arguments.myst.md",
    "server_arguments_column.mdx",
    "gpu.md",
    "gpu_variants.md",
    "gpu.mdx",
    "gpu.myst.md",
    "cli.md",
    "compact.md",
    "compact_plain.md",
    "compact.myst.md",
    "compact.mdx",
)
ENV = "Environment variable"
# The texts of the fixture, as a reader must see them.
HOSTILE_ENV = "CACHE_TIMEOUT|`<b>{{x}}</b>`*_[a](b)_* <!-- $y$"  # from the registry (env_name=)
PORT_ENV = "PORT|`<i>{p}</i>`"  # from the configuration (environment: arguments:)
COMPUTED = (
    "chosen from GPU memory at start-up | *not* `<b>{bold}</b>` {{ z }} {#x#}"  # computed_defaults:
)
PLATFORM_COMPUTED = "all visible devices | `<x>`"  # the manifest's computed_default
EXPECTED_ENV = {
    "--model-path": "ENV_MODEL_PATH",  # env_name= (the prefix would give the same)
    "--trust-remote-code": "TRUST_REMOTE_CODE",  # env_name= wins over the prefix
    "--mem-fraction-static": "MEM_FRACTION_STATIC",
    "--cache-timeout": HOSTILE_ENV,
    "--devices": "ENV_DEVICES",
    "--port": PORT_ENV,  # the configuration's own entry
    "--log-level": "ENV_LOG_LEVEL",  # no env_name=: the prefix + the dest
}


def copy_display(root: Path) -> Path:
    shutil.copytree(DISPLAY, root, ignore=shutil.ignore_patterns("golden", "docs", "__pycache__"))
    return root


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_display(tmp_path_factory.mktemp("display") / "display")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return root / "docs"


@pytest.fixture(scope="module")
def mdx() -> Iterator[MdxCompiler]:
    yield from compiler_fixture()


@pytest.mark.parametrize("page", PAGES)
def test_page_matches_golden_file(generated: Path, page: str) -> None:
    text = (generated / page).read_text(encoding="utf-8")
    golden = GOLDEN / page
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def rows_by_flag(found: list) -> dict[str, dict[str, str]]:  # type: ignore[type-arg]
    """Every row of every table, as {header: cell}, keyed by its first flag."""
    return {
        flag_of(row[0]): dict(zip(table.header, row, strict=True))
        for table in found
        for row in table.rows
    }


# ------------------------------------------------------------------ Markdown, read back


@pytest.mark.parametrize("page", ["server_arguments.md", "cli.md"])
def test_markdown_server_pages_show_each_variable_as_written(generated: Path, page: str) -> None:
    rows = rows_by_flag(tables((generated / page).read_text(encoding="utf-8")))
    assert {flag: row[ENV] for flag, row in rows.items()} == EXPECTED_ENV
    assert rows["--mem-fraction-static"]["Default"] == COMPUTED
    kind = "Type / options" if page == "server_arguments.md" else "Type / values"
    assert rows["--cache-timeout"][kind] == "Type: int or unlimited"  # types:
    assert rows["--trust-remote-code"][kind] == "Type: bool"  # str2bool, never its name


@pytest.mark.parametrize("page", ["gpu.md", "gpu_variants.md"])
def test_markdown_platform_pages_show_variables_and_computed_defaults(
    generated: Path, page: str
) -> None:
    found = tables((generated / page).read_text(encoding="utf-8"))
    assert all(ENV in table.header for table in found)
    # The registry's columns first, the variable's last of them, then the platform's.
    assert all(table.header.index(ENV) == table.header.index("Options") + 1 for table in found)
    rows = rows_by_flag(found)
    assert {flag: row[ENV] for flag, row in rows.items()} == EXPECTED_ENV
    assert rows["--mem-fraction-static"]["Default"] == COMPUTED
    assert rows["--devices"]["Default"] == PLATFORM_COMPUTED  # the manifest's, on this platform


@pytest.mark.parametrize("page", ["compact.md", "compact_plain.md", "compact.myst.md"])
def test_the_compact_layout_says_each_fact_after_the_help(generated: Path, page: str) -> None:
    """Two columns (three with a history): the help, then the default (when there is one: none
    is no fact), the type or the options, and the environment variable, each as written."""
    found = tables((generated / page).read_text(encoding="utf-8"))
    sections = [t for t in found if t.header[1] == "Description"]
    assert sections and all(t.header == ["Argument", "Description"] for t in sections)
    roles = ("{argmatrix-option}", "{argmatrix-envvar}")  # MyST's, read as text here
    plain = [
        [cell.replace(roles[0], "").replace(roles[1], "") for cell in row]
        for t in sections
        for row in t.rows
    ]
    described = {row[0].split()[0].rstrip(","): row[1] for row in plain}  # the flag, no value
    assert described.keys() == EXPECTED_ENV.keys()
    for flag, variable in EXPECTED_ENV.items():
        assert described[flag].endswith(f"Environment variable: {variable}"), flag
    memory = described["--mem-fraction-static"]
    assert f"Default: {COMPUTED} · Type: float · Environment variable:" in memory
    assert "Default: None" not in " ".join(described.values())
    assert "Options: info, debug ·" in described["--log-level"]
    line = "\n" if page != "compact_plain.md" else " "  # a <br>, or a space without HTML
    assert described["--log-level"].startswith(f"Log level.{line}Default: info")


@pytest.mark.engine  # the MDX compiler (node)
def test_the_compact_mdx_page_has_two_cells_a_row(generated: Path, mdx: MdxCompiler) -> None:
    found = jsx_tables(compiled(mdx, (generated / "compact.mdx").read_text(), "compact"))
    assert all(t.header == ["Argument", "Description"] for t in found)
    assert all(len(row) == 2 for t in found for row in t.rows)


def test_a_project_without_environment_keeps_its_columns(tmp_path: Path) -> None:
    """No `environment:`: no column, whatever keywords the registry carries."""
    root = copy_display(tmp_path / "display")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    start, end = text.index("environment:"), text.index("types:")
    config.write_text(text[:start] + text[end:], encoding="utf-8")
    assert run_cli_in_process("generate", cwd=root).code == 0
    for page in PAGES:
        assert ENV not in (root / "docs" / page).read_text(encoding="utf-8"), page


# ------------------------------------------------------------------ MDX, compiled


@pytest.mark.engine  # the MDX compiler (node)
def test_mdx_pages_keep_four_cells_and_say_the_variable(generated: Path, mdx: MdxCompiler) -> None:
    """SGLang's layout: four cells a row; the variable is a line of the Description cell (of
    the Argument cell where a table has no description)."""
    server = jsx_tables(compiled(mdx, (generated / "server_arguments.mdx").read_text(), "s"))
    assert all(len(t.header) == 4 and all(len(r) == 4 for r in t.rows) for t in server)
    descriptions = {flag_of(row[0]): row[1] for t in server for row in t.rows}
    for flag, variable in EXPECTED_ENV.items():
        assert descriptions[flag].endswith(f"Environment variable: {variable}"), flag
    defaults = {flag_of(row[0]): row[2] for t in server for row in t.rows}
    assert defaults["--mem-fraction-static"] == COMPUTED
    support = jsx_tables(compiled(mdx, (generated / "gpu.mdx").read_text(), "gpu"))
    first = {flag_of(row[0]): row for t in support for row in t.rows}
    for flag, variable in EXPECTED_ENV.items():  # after a <br />, and the value form
        assert first[flag][0].endswith(f"\nEnvironment variable: {variable}"), flag
    assert first["--devices"][1] == PLATFORM_COMPUTED


@pytest.mark.engine  # the MDX compiler (node)
def test_mdx_env_column_is_opt_in(generated: Path, mdx: MdxCompiler) -> None:
    found = jsx_tables(compiled(mdx, (generated / "server_arguments_column.mdx").read_text()))
    assert all(t.header == ["Argument", "Description", "Defaults", "Options", ENV] for t in found)
    assert {flag_of(row[0]): row[4] for t in found for row in t.rows} == EXPECTED_ENV
    assert all(ENV not in row[1] for t in found for row in t.rows)


# ------------------------------------------------------------------ MyST and the directive


@pytest.mark.engine  # a Sphinx build
def test_sphinx_reads_the_myst_pages_and_the_directive(tmp_path: Path) -> None:
    from test_sphinx_build import read_page, sphinx_build

    root = copy_display(tmp_path / "display")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text[: text.index("pages:")]
        + "pages:\n"
        + "  - {template: server_arguments.myst.j2, output: server.md, format: myst}\n"
        + "  - {template: platform_support.myst.j2, output: gpu.md, platform: gpu,"
        + " format: myst}\n",
        encoding="utf-8",
    )
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'project = "envserver"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n'
        'argmatrix_config = "../argmatrix.yaml"\nexclude_patterns = ["_build"]\n',
        encoding="utf-8",
    )
    (docs / "index.md").write_text(
        "# envserver\n\n```{toctree}\nserver\ngpu\ntables\n```\n", encoding="utf-8"
    )
    (docs / "tables.md").write_text(
        "# Tables\n\n```{argmatrix}\n:section: Memory\n:no-index:\n```\n\n"
        "```{argmatrix}\n:section: Memory\n:platform: gpu\n```\n\n"
        "```{argmatrix}\n:section: Serving\n:platform: gpu\n:layout: variants\n```\n",
        encoding="utf-8",
    )
    out = tmp_path / "html"
    result = sphinx_build(docs, out)
    assert result.returncode == 0, result.stderr[-3000:]
    for name in ("server", "gpu", "tables"):
        page = read_page(out / f"{name}.html")
        assert page.tables, name
        for table in page.tables:
            assert ENV in table.header, (name, table.header)
            column = table.header.index(ENV)
            rows = {flag_of(row.cells[0]): row.cells for row in table.rows}
            for flag, cells in rows.items():
                assert cells[column] == EXPECTED_ENV[flag], (name, flag)
            if "--mem-fraction-static" in rows:
                assert rows["--mem-fraction-static"][table.header.index("Default")] == COMPUTED
            if "--devices" in rows and "Options" in table.header:  # a platform's table
                assert rows["--devices"][table.header.index("Default")] == PLATFORM_COMPUTED


# ------------------------------------------------------------------ export and audit


def test_export_carries_each_arguments_variable_type_and_computed_default() -> None:
    result = run_cli_in_process("export", cwd=DISPLAY)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    shown = data["arguments"]
    assert {flag: shown[flag]["environment_variable"] for flag in shown} == EXPECTED_ENV
    assert shown["--mem-fraction-static"]["computed_default"] == COMPUTED
    assert shown["--port"]["computed_default"] is None
    assert shown["--cache-timeout"]["type"] == "int or unlimited"
    assert shown["--trust-remote-code"]["type"] == "bool"
    gpu = data["platforms"]["gpu"]["arguments"]
    assert gpu["--devices"]["computed_default"] == PLATFORM_COMPUTED
    assert gpu["--port"]["computed_default"] is None


def test_audit_accepts_a_computed_default_said_in_words(tmp_path: Path) -> None:
    project = project_from_config(load_config(DISPLAY / "argmatrix.yaml", DISPLAY))
    registry = project.registry
    computed = project.config.display.facts(registry, "argmatrix.yaml").computed
    argument = registry.by_flag()["--mem-fraction-static"]
    for said in ("`None`", "computed at start-up", "*Chosen from GPU memory at start-up*", "auto"):
        assert default_agrees(said, argument, computed[id(argument)]) is True, said
    assert default_agrees("computed at start-up", argument) is False  # not marked: a string
    page = parse_page(
        "| Argument | Description | Default |\n| --- | --- | --- |\n"
        "| `--mem-fraction-static` | Memory. | computed at start-up |\n"
        "| `--port` | Port. | computed at start-up |\n",
        "page.md",
    )
    findings = audit_page(page, registry, computed).findings
    assert [(f.kind, f.flag) for f in findings if f.kind == "wrong-default"] == [
        ("wrong-default", "--port")  # only a default the configuration marks may be words
    ]
    wrong = parse_page(
        "| Argument | Description | Default |\n| --- | --- | --- |\n"
        "| `--mem-fraction-static` | Memory. | 0.5 |\n",
        "page.md",
    )
    (finding,) = [
        f for f in audit_page(wrong, registry, computed).findings if f.kind == "wrong-default"
    ]
    assert "computed at run time" in finding.message and COMPUTED in finding.message


def test_audit_command_reads_computed_defaults_from_the_configuration(tmp_path: Path) -> None:
    root = copy_display(tmp_path / "display")
    (root / "page.md").write_text(
        "| Argument | Description | Default |\n| --- | --- | --- |\n"
        "| `--mem-fraction-static` | Memory. | determined at start-up |\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("audit", "page.md", "--format", "json", cwd=root)
    findings = json.loads(result.out)["findings"]
    assert not [f for f in findings if f["kind"] == "wrong-default"], findings


# ------------------------------------------------------------------ bad configuration


BAD_CONFIG = [
    ("environment: [env_name]", "'environment' must be a mapping"),
    ("environment: {keyword: 3}", "'keyword' must be a keyword argument's name"),
    ("environment: {keyword: env-name}", "'keyword' must be a keyword argument's name"),
    ("environment: {prefix: 'A B'}", "'prefix' must start a variable's name"),
    ("environment: {prefix: ''}", "'prefix' must start a variable's name"),
    ("environment: {from: dest}", "environment: unknown key 'from'"),
    ("environment: {arguments: {--port: ''}}", "--port must be a text on one line"),
    ("environment: {arguments: [--port]}", "'arguments' must map a flag to a text"),
    ("types: {str2bool: 3}", "str2bool must be a text on one line"),
    ("types: [str2bool]", "'types' must map a converter to a text"),
    ('computed_defaults: {--port: "a\\nb"}', "--port must be a text on one line"),
    ("computed_defaults: {--port: null}", "--port must be a text on one line"),
    ("computed_defaults: {3: text}", "3 (not a text) is not a flag"),
]


@pytest.mark.parametrize(("line", "message"), BAD_CONFIG)
def test_a_bad_setting_is_one_line_at_its_place(tmp_path: Path, line: str, message: str) -> None:
    root = copy_display(tmp_path / "display")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    start, end = text.index("environment:"), text.index("pages:")
    kept = text[:start]
    config.write_text(kept + line + "\n" + text[end:], encoding="utf-8")
    where = f"argmatrix.yaml:{kept.count(chr(10)) + 1}:"
    one_error_line(run_cli_in_process("generate", cwd=root), where, message)
    assert not (root / "docs").exists()  # nothing half-written


@pytest.mark.parametrize("key", ["computed_defaults", "environment: {arguments"])
def test_a_flag_the_registry_lacks_is_named_with_its_line(tmp_path: Path, key: str) -> None:
    root = copy_display(tmp_path / "display")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    start, end = text.index("environment:"), text.index("pages:")
    setting = f"{key}: {{--no-such-flag: text}}" + ("}" if "{" in key else "")
    config.write_text(text[:start] + setting + "\n" + text[end:], encoding="utf-8")
    line = text[:start].count("\n") + 1
    one_error_line(
        run_cli_in_process("generate", cwd=root),
        f"argmatrix.yaml:{line}:",
        "'--no-such-flag' is not an argument of the registry",
    )


BAD_MANIFEST = [
    ("{status: supported, computed_default: 3}", "'computed_default' must be a short text"),
    ("{status: supported, computed_default: ''}", "'computed_default' must be a short text"),
    (
        "{status: supported, default: 1, computed_default: at start-up}",
        "'computed_default' and 'default' say two things",
    ),
]


@pytest.mark.parametrize(("entry", "message"), BAD_MANIFEST)
def test_a_bad_manifest_entry_is_one_line(tmp_path: Path, entry: str, message: str) -> None:
    root = copy_display(tmp_path / "display")
    manifest = root / "capabilities" / "gpu.yaml"
    lines = manifest.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines) if line.strip().startswith("--devices"))
    lines[number] = f"  --devices: {entry}"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one_error_line(
        run_cli_in_process("generate", cwd=root), f"gpu.yaml:{number + 1}:", f"--devices: {message}"
    )


def test_a_project_template_reads_the_display_facts(tmp_path: Path) -> None:
    """`display` in the template context: the raw variable and computed text of an argument."""
    root = copy_display(tmp_path / "display")
    (root / "templates").mkdir()
    (root / "templates" / "vars.md.j2").write_text(
        "{% for a in registry.arguments %}"
        "{{ a.name }} {{ display.variable_of(a) | length }} {{ display.computed_of(a) is none }}\n"
        "{% endfor %}",
        encoding="utf-8",
    )
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text[: text.index("pages:")] + "pages:\n  - {template: vars.md.j2, output: vars.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    lines = (root / "docs" / "vars.md").read_text(encoding="utf-8").splitlines()[:-2]
    assert lines == [
        f"{flag} {len(variable)} {flag != '--mem-fraction-static'}"
        for flag, variable in EXPECTED_ENV.items()
    ]


@pytest.mark.parametrize(
    ("recorded", "names", "shown"),
    [
        (
            "_positive_or_unlimited",
            {"_positive_or_unlimited": "int or unlimited"},
            "int or unlimited",
        ),
        ("_from_json(cfg)", {"_from_json": "JSON object"}, "JSON object"),  # the callable
        ("_from_json(cfg)", {"_from_json(cfg)": "config"}, "config"),  # as recorded
        ("pkg.mod.parse", {"parse": "size"}, "size"),  # its last name
        ("pkg.mod.parse", {"pkg.mod.parse": "size"}, "size"),
        ("str2bool", {"other": "x"}, "bool"),  # not named: the built-in reading
        ("int", {"int": "whole number"}, "whole number"),  # the project's word wins
    ],
)
def test_types_name_a_converter(recorded: str, names: dict[str, str], shown: str) -> None:
    from argmatrix.model.registry import Argument
    from argmatrix.model.values import readable_type

    assert readable_type(Argument(flags=("--x",), dest="x", type=recorded), names) == shown


def test_a_platforms_own_default_wins_over_a_computed_one(tmp_path: Path) -> None:
    """The configuration says the default is computed; a manifest that gives the platform's
    value is what that platform's page shows. The server page keeps the computed text."""
    root = copy_display(tmp_path / "display")
    manifest = root / "capabilities" / "gpu.yaml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        + "  --mem-fraction-static: {status: supported, default: 0.8}\n",
        encoding="utf-8",
    )
    assert run_cli_in_process("generate", cwd=root).code == 0
    docs = root / "docs"
    for page in ("gpu.md", "gpu_variants.md"):
        rows = rows_by_flag(tables((docs / page).read_text(encoding="utf-8")))
        assert rows["--mem-fraction-static"]["Default"] == "0.8", page
        assert rows["--devices"]["Default"] == PLATFORM_COMPUTED, page
    server = rows_by_flag(tables((docs / "server_arguments.md").read_text(encoding="utf-8")))
    assert server["--mem-fraction-static"]["Default"] == COMPUTED
