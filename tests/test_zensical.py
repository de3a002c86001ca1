"""One mkdocs.yml, two engines: a real `zensical build` and a real `mkdocs build --strict` of the
fixture project in tests/fixtures/zensical/, both through the Python-Markdown extension
(`markdown_extensions: - argmatrix`), give the same tables; errors stop both builds with the
page and line."""

from __future__ import annotations

import html as html_module
import re
import shutil
import sys
from pathlib import Path

import pytest

from e2e.site import Build, build_site, build_zensical
from e2e.tables import argument_tables, cell_elements, tables_of

# An external engine (sphinx-build, Zensical, ProperDocs or the MDX compiler).
pytestmark = pytest.mark.engine

FIXTURE = Path(__file__).parent / "fixtures" / "zensical"
PAGES = ("guide", "reference/server_arguments", "reference/npu", "reference/npu_variants")


def copy_fixture(target: Path) -> Path:
    project = target / "engines"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", "site"))
    return project


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Build, Build]:
    project = copy_fixture(tmp_path_factory.mktemp("engines"))
    zensical = build_zensical(project / "mkdocs.yml", project / "site-zensical")
    mkdocs = build_site(project / "mkdocs.yml", project / "site-mkdocs", strict=True)
    return zensical, mkdocs


def html(build: Build, page: str) -> str:
    return (build.site / page / "index.html").read_text(encoding="utf-8")


def test_both_engines_build_and_write_nothing_into_docs(builds: tuple[Build, Build]) -> None:
    for build in builds:
        assert build.code == 0, build.output
        assert build.docs_changed == ()
    assert builds[1].warnings == []


@pytest.mark.parametrize("page", PAGES)
def test_zensical_and_mkdocs_give_the_same_tables(builds: tuple[Build, Build], page: str) -> None:
    zensical, mkdocs = (argument_tables(html(build, page)) for build in builds)
    assert zensical == mkdocs
    assert zensical, f"no argmatrix table on {page}"
    for table in zensical:
        assert len({len(row) for row in table}) == 1, table  # every row as wide as the header


def test_the_page_directive_renders_the_configured_page(builds: tuple[Build, Build]) -> None:
    for build in builds:
        server = argument_tables(html(build, "reference/server_arguments"))
        # The page's own options: plain GitHub-flavoured Markdown, no anchors.
        assert [row[0] for row in server[0][1:]] == [
            ("--model-path, --model MODEL_PATH", ()),
            ("--dtype {auto,float16,bfloat16}", ()),
        ]
        npu = html(build, "reference/npu")
        assert "Support Features on Example NPU" in npu
        assert "argmatrix page=" not in npu
        variants = argument_tables(html(build, "reference/npu_variants"))
        assert variants[0][0][-2:] == [("X1", ()), ("X2", ())]


def test_directive_tables_carry_anchors_by_default(
    builds: tuple[Build, Build],
) -> None:
    for build in builds:
        guide = argument_tables(html(build, "guide"))
        assert [row[0].ids for row in guide[0][1:]] == [("--page-size",), ("--loader",)]
        # <br> between the flags, then the value form
        assert guide[1][1][0] == ("--model-path --model MODEL_PATH", ("--model-path",))


def test_table_directives_expand_outside_code_only(builds: tuple[Build, Build]) -> None:
    for build in builds:
        guide = html(build, "guide")
        assert len(tables_of(guide)) - len(argument_tables(guide)) <= 1  # a theme's own
        assert len(argument_tables(guide)) == 2
        shown = html_module.unescape(re.sub(r"<[^>]+>", "", guide))
        assert '<!-- argmatrix section="No such section" -->' in shown
        assert '<!-- argmatrix section="Indented example" -->' in shown  # indented code


def test_hostile_help_text_stays_text_in_both_engines(builds: tuple[Build, Build]) -> None:
    for build in builds:
        for page in PAGES:
            text = html(build, page)
            assert "<script>window.__pwned" not in text
            assert "<img src=x" not in text and "<b>bold" not in text
            assert 'href="javascript:' not in text and "onclick" not in text.lower().replace(
                "{: onclick=alert(3) }", ""
            )
            assert set(cell_elements(text)) <= {"a", "br", "code", "span"}, page
            # The one span: a table's first heading names its columns' keys for the script.
            in_tables = "".join(re.findall(r"<table.*?</table>", text, re.DOTALL))
            assert in_tables.count("<span") == in_tables.count('<span data-am-columns="'), page
        guide = argument_tables(html(build, "guide"))
        page_size = next(row for row in guide[0] if row[0].text == "--page-size PAGE_SIZE")
        assert page_size[-1].text == "<b>bold</b> only 128 is tuned"
        server = argument_tables(html(build, "reference/server_arguments"))
        row = next(r for r in server[1] if r[0].text == "--page-size PAGE_SIZE")
        assert row[1].text == (
            "<script>window.__pwned=1<\u2060/script> Tokens per page | not a cell break."
        )


def break_guide(project: Path) -> Path:
    guide = project / "docs" / "guide.md"
    guide.write_text(
        '---\ntitle: Guide\n---\n\n# Guide\n\n<!-- argmatrix section="Modle" -->\n',
        encoding="utf-8",
    )
    return guide


def test_a_bad_directive_fails_both_builds_naming_page_line_and_fix(tmp_path: Path) -> None:
    project = copy_fixture(tmp_path)
    break_guide(project)
    message = "guide.md:7: unknown section 'Modle' (fix: use a registry section: Model, Serving)"
    zensical = build_zensical(project / "mkdocs.yml", project / "site-zensical")
    assert zensical.code != 0
    assert f"ERROR - argmatrix: docs/{message}" in zensical.output.splitlines()
    mkdocs = build_site(project / "mkdocs.yml", project / "site-mkdocs")
    assert mkdocs.code != 0
    assert f"ERROR   -  argmatrix: {project / 'docs'}/{message}" in mkdocs.output.splitlines()
    assert "Traceback" not in mkdocs.output


def test_a_page_directive_among_prose_is_an_error(tmp_path: Path) -> None:
    project = copy_fixture(tmp_path)
    stub = project / "docs" / "reference" / "npu.md"
    stub.write_text('# NPU\n\n<!-- argmatrix page="reference/npu.md" -->\n', encoding="utf-8")
    mkdocs = build_site(project / "mkdocs.yml", project / "site-mkdocs")
    assert mkdocs.code != 0
    assert f"argmatrix: {stub}:1: a page directive must be alone in its page" in mkdocs.output


def test_the_zensical_binary_is_the_one_of_this_environment() -> None:
    """The builds above ran the pinned Zensical of .venv, not one found on PATH."""
    from e2e.site import ZENSICAL

    assert ZENSICAL.parent == Path(sys.executable).parent and ZENSICAL.is_file()
