"""The Python-Markdown extension through plain `markdown.markdown(...)`: table and page
directives, the configuration it is given, its cache, its errors, and hostile help text."""

from __future__ import annotations

import os
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown
import pytest
from hypothesis import HealthCheck, example, given, settings

from argmatrix.config import load_config
from argmatrix.integrations import markdown as extension_module
from argmatrix.markdown import ArgmatrixExtension, DirectiveError
from argmatrix.model.registry import Argument, Registry
from argmatrix.model.values import value_text
from argmatrix.project import Project
from argmatrix.render.directives import Directives
from e2e.tables import argument_tables
from helpers import flag_of
from test_table_property import HELP, SITE_EXTENSIONS, as_read, expected_text, without_markers

FIXTURE = Path(__file__).parent / "fixtures" / "zensical"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "engines"
    shutil.copytree(FIXTURE, folder, ignore=shutil.ignore_patterns("__pycache__", "site"))
    return folder


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    extension_module._CACHE.clear()


def convert(text: str, config: Path, **options: Any) -> str:
    extension = ArgmatrixExtension(config_file=str(config), **options)
    return markdown.markdown(text, extensions=["tables", extension])


def test_a_table_directive_becomes_a_table(project: Path) -> None:
    html = convert(
        'Intro\n\n<!-- argmatrix section="Model" -->\n\nAfter', project / "argmatrix.yaml"
    )
    [table] = argument_tables(html)
    assert [cell.text for cell in table[0]] == [
        "Argument",
        "Description",
        "Default",
        "Type / options",
    ]
    assert table[1][0] == ("--model-path --model MODEL_PATH", ("--model-path",))
    assert html.startswith("<p>Intro</p>") and html.endswith("<p>After</p>")


def test_html_false_gives_plain_tables(project: Path) -> None:
    html = convert('<!-- argmatrix section="Model" -->', project / "argmatrix.yaml", html=False)
    [table] = argument_tables(html)
    assert table[1][0] == ("--model-path, --model MODEL_PATH", ())
    assert "<a " not in html and "<br" not in html


def test_the_extension_is_found_by_its_entry_point_name(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)  # config_file is relative to the current directory here
    html = markdown.markdown(
        '<!-- argmatrix section="Serving" platform="npu" -->',
        extensions=["tables", "argmatrix"],
        extension_configs={"argmatrix": {"html": False}},
    )
    rows = argument_tables(html)[0]
    assert [flag_of(row[0].text) for row in rows[1:]] == ["--page-size", "--loader"]
    assert rows[1][3].text == "✓ Supported (X2)"


def test_a_page_directive_renders_the_configured_page(project: Path) -> None:
    html = convert('\n<!-- argmatrix page="reference/npu.md" -->\n\n', project / "argmatrix.yaml")
    assert "<h1>Support Features on Example NPU</h1>" in html
    assert "<h2>Not supported</h2>" in html
    assert len(argument_tables(html)) == 3  # Model, Serving, and the one not supported


def test_directives_in_fenced_code_stay_text(project: Path) -> None:
    text = '```\n<!-- argmatrix section="Nope" -->\n```\n'
    html = markdown.markdown(
        text, extensions=["fenced_code", ArgmatrixExtension(config_file=str(project / "x"))]
    )
    assert "&lt;!-- argmatrix section=&quot;Nope&quot; --&gt;" in html


def test_directives_in_indented_code_stay_text(project: Path) -> None:
    """An example of the syntax in indented code is code; one indented as a list item's or an
    admonition's content is a directive."""
    example = '<!-- argmatrix section="Nope" -->'
    for text in (
        f"Example:\n\n    {example}\n",
        f"- item\n\n    1. sub\n\n            {example}\n",
    ):
        html = markdown.markdown(
            text, extensions=[ArgmatrixExtension(config_file=str(project / "x"))]
        )
        assert '<pre><code>&lt;!-- argmatrix section="Nope" --&gt;' in html, html
    inside = convert(
        '- item\n\n    <!-- argmatrix section="Model" -->\n', project / "argmatrix.yaml"
    )
    assert len(argument_tables(inside)) == 1
    admonition = markdown.markdown(
        '!!! note\n    <!-- argmatrix section="Model" -->\n',
        extensions=[
            "admonition",
            "tables",
            ArgmatrixExtension(config_file=str(project / "argmatrix.yaml")),
        ],
    )
    assert len(argument_tables(admonition)) == 1


def test_a_page_without_directives_never_loads_the_project(tmp_path: Path) -> None:
    """Every page of a site passes through the extension: one naming argmatrix in its prose
    needs no configuration at all."""
    html = convert("argmatrix writes pages: <!-- argmatrix:begin -->", tmp_path / "missing.yaml")
    assert html.startswith("<p>argmatrix writes pages")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'a\n\n<!-- argmatrix section="Modle" -->',
            "argmatrix: <markdown>:3: unknown section 'Modle' (fix: use a registry section:"
            " Model, Serving)",
        ),
        (
            '<!-- argmatrix section="Model" platform="gpu" -->',
            "argmatrix: <markdown>:1: unknown platform 'gpu' (fix: use one of: npu)",
        ),
        (
            '# T\n<!-- argmatrix page="reference/npu.md" -->',
            "argmatrix: <markdown>:1: a page directive must be alone in its page",
        ),
        (
            '<!-- argmatrix page="reference/gpu.md" -->',
            "argmatrix: <markdown>:1: no Markdown page 'reference/gpu.md' in",
        ),
        (
            "<!-- argmatrix section=Model -->",
            "argmatrix: <markdown>:1: cannot read the directive attributes 'section=Model'",
        ),
    ],
)
def test_errors_are_one_line_naming_the_page_line_and_fix(
    project: Path, text: str, message: str
) -> None:
    with pytest.raises(DirectiveError) as caught:
        convert(text, project / "argmatrix.yaml")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert "(fix: " in str(caught.value)


def test_a_missing_configuration_names_the_option_to_set(tmp_path: Path) -> None:
    with pytest.raises(DirectiveError, match=r"missing\.yaml: argmatrix configuration file not"):
        convert('<!-- argmatrix section="Model" -->', tmp_path / "missing.yaml")


def test_the_project_is_loaded_once_and_again_when_an_input_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[Path] = []
    real = extension_module.load_engine_project

    def counting(path: Path, fresh_modules: bool = False, warn: Any = None) -> Any:
        loads.append(path)
        return real(path, fresh_modules, warn)

    monkeypatch.setattr(extension_module, "load_engine_project", counting)
    config = project / "argmatrix.yaml"
    directive = '<!-- argmatrix section="Serving" platform="npu" -->'
    for _ in range(3):
        assert "X2" in convert(directive, config, html=False)
    assert len(loads) == 1
    manifest = project / "capabilities" / "npu.yaml"
    manifest.write_text(manifest.read_text().replace("variants: [X2]", "variants: [X1]"))
    os.utime(manifest, ns=(1, 1))  # a different time, however fast the file system's clock
    rows = argument_tables(convert(directive, config, html=False))[0]
    assert len(loads) == 2
    assert rows[1][3].text == "✓ Supported (X1)"


def test_an_edit_that_keeps_the_size_and_time_stamp_is_seen(project: Path) -> None:
    """Whether an input changed is decided by its content, as the cache decides: an edit made
    within the time stamp's granularity, of the same length, still reloads the project."""
    config = project / "argmatrix.yaml"
    directive = '<!-- argmatrix section="Serving" platform="npu" -->'
    assert "X2" in convert(directive, config, html=False)
    manifest = project / "capabilities" / "npu.yaml"
    before = manifest.stat()
    manifest.write_text(manifest.read_text().replace("variants: [X2]", "variants: [X1]"))
    os.utime(manifest, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert manifest.stat().st_size == before.st_size
    rows = argument_tables(convert(directive, config, html=False))[0]
    assert rows[1][3].text == "✓ Supported (X1)"


def test_a_template_added_to_the_project_reloads_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[Path] = []
    real = extension_module.load_engine_project

    def counting(path: Path, fresh_modules: bool = False, warn: Any = None) -> Any:
        loads.append(path)
        return real(path, fresh_modules, warn)

    monkeypatch.setattr(extension_module, "load_engine_project", counting)
    config = project / "argmatrix.yaml"
    convert('<!-- argmatrix section="Model" -->', config)
    convert('<!-- argmatrix section="Model" -->', config)
    assert len(loads) == 1
    (project / "templates").mkdir(exist_ok=True)
    (project / "templates" / "extra.md.j2").write_text("{{ title }}\n")
    convert('<!-- argmatrix section="Model" -->', config)
    assert len(loads) == 2


# ------------------------------------------------------------------ hostile text


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: set[tuple[str, tuple[str, ...]]] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.add((tag, tuple(sorted(name for name, _ in attrs))))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


# A flag's permalink after its names (`<a class href title>`, render/formats/markdown.py).
PERMALINK = ("class", "href", "title")
TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "code", "br", "p"}
# The first heading of an HTML table names its columns' keys for the site's script.
COLUMN_KEYS = ("span", ("data-am-columns",))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(help_text=HELP, choice=HELP)
@example(help_text="*\t|\n", choice="")  # an item of a help with its shape (CI found it)
@pytest.mark.slow
def test_hostile_help_text_through_the_extension_stays_text(
    help_text: str, choice: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A help text and a choice of any content, through the real preprocessor and the site's
    Python-Markdown extensions: the table keeps its shape, nothing but table elements (and
    the anchor) is made, and the text reads as written."""
    base = tmp_path_factory.getbasetemp() / "hostile-config.yaml"
    base.write_text("registry: {target: x:y}\n", encoding="utf-8")
    registry = Registry(
        source="hostile:build",
        sections=("Main",),
        arguments=(
            Argument(("--alpha",), "alpha", "Main", help=help_text, default="d", type="str"),
            Argument(("--beta",), "beta", "Main", help="plain", choices=(choice, "x")),
        ),
    )
    config = load_config(None, base.parent)
    directives = Directives(config, registry, {}, html=True)
    kept = Project(load_config(base, base.parent), registry, {})
    extension_module._CACHE[(base.resolve(), True)] = extension_module._Cached(directives, kept)
    html = markdown.markdown(
        'Before\n\n<!-- argmatrix section="Main" -->\n\nAfter',
        extensions=[*SITE_EXTENSIONS, ArgmatrixExtension(config_file=str(base))],
    )
    elements = _Elements()
    elements.feed(html)
    elements.close()
    assert {tag for tag, _ in elements.found} <= TABLE_TAGS | {"a", "span"}
    assert {found for found in elements.found if found[0] == "span"} == {COLUMN_KEYS}
    # Anchors of rows and their permalinks; links are the help's own web addresses (code spans
    # and links: prose).
    links = {attrs for tag, attrs in elements.found if tag == "a"}
    assert {("id",), PERMALINK} <= links <= {("id",), ("href",), PERMALINK}
    assert {attrs for tag, attrs in elements.found if tag not in ("a", "span")} == {()}
    [table] = argument_tables(html)
    assert [len(row) for row in table] == [4, 4, 4]
    shown = " ".join(table[1][1].text.split()).replace("\u2060", "")
    expected = expected_text(as_read(help_text)).replace("\u2060", "")
    if "\n" in help_text or "\r" in help_text:  # its shape kept: an item's marker reads as a bullet
        shown, expected = without_markers(shown), without_markers(expected)
    assert shown == expected
    assert expected_text(value_text(choice)).replace("\u2060", "") in " ".join(
        table[2][3].text.split()
    ).replace("\u2060", "")
