"""The repository's site: builds strictly, writes nothing into docs/, anchors, matrix, CLI page."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import pytest

from argmatrix.config import load_config
from argmatrix.manifests.load import TOP_KEYS
from argmatrix.model.platform import STATUS_LABELS
from argmatrix.project import Project, project_from_config
from e2e.site import DOCS_PYTHON, Build, showcase_site, showcase_zensical_site
from e2e.tables import tables_of
from helpers import REPO, git_ignores, git_lines, run_cli_in_process

SHOWCASE_PAGES = (
    "showcase/server_arguments",
    "showcase/ascend",
    "showcase/ascend_variants",
    "showcase/matrix",
)
ID = re.compile(r'\sid="([^"]+)"')
# The whole site, built in the docs environment as `make docs` builds it (the vLLM showcase read
# live there, without torch, twice): a long build.
SITE = pytest.mark.slow


@pytest.fixture(scope="module")
def site() -> Build:
    result = showcase_site()
    assert result.code == 0, result.output
    return result


@pytest.fixture(scope="module")
def showcase() -> Project:
    return project_from_config(load_config(REPO / "argmatrix.yaml", REPO))


def page(site: Build, name: str) -> str:
    return (site.site / name / "index.html").read_text(encoding="utf-8")


@SITE
def test_the_site_builds_strictly_without_warnings(site: Build) -> None:
    assert site.warnings == []


@SITE
def test_the_build_writes_nothing_into_docs(site: Build) -> None:
    assert site.docs_changed == ()


@SITE
def test_every_nav_page_is_built(site: Build) -> None:
    nav = re.findall(r":\s+([\w/.-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(), re.M)
    assert len(nav) >= 12
    for source in nav:
        built = "" if source == "index.md" else source.removesuffix(".md") + "/"
        assert (site.site / built / "index.html").is_file(), source


@SITE
def test_every_visible_argument_has_one_anchor_on_every_showcase_page(
    site: Build, showcase: Project
) -> None:
    names = [a.name for a in showcase.registry.arguments if not a.hidden]
    for name in SHOWCASE_PAGES:
        ids = Counter(ID.findall(page(site, name)))
        assert [n for n in names if ids[n] != 1] == [], name
        assert [i for i, count in ids.items() if count > 1] == [], f"duplicate ids on {name}"


@SITE
def test_the_matrix_has_a_column_per_variant_and_a_labelled_badge_per_cell(
    site: Build, showcase: Project
) -> None:
    text = page(site, "showcase/matrix")
    columns = sum(max(1, len(p.variants)) for p in showcase.platforms.values())
    rows = sum(1 for a in showcase.registry.arguments if not a.hidden)
    badges = re.findall(r'<span class="am-badge am-([a-z-]+)">([^<]*)</span>', text)
    assert len(badges) == rows * columns + len(STATUS_LABELS)  # the cells and the legend
    assert all(label.split(" ", 1)[1] == STATUS_LABELS[status] for status, label in badges)
    assert "<th>Ascend NPU A2</th>" in text and "<th>Ascend NPU A3</th>" in text
    assert "data-am-matrix-filter" in text and "assets/argmatrix/argmatrix.js" in text


@SITE
def test_search_index_holds_the_flags(site: Build) -> None:
    index = json.loads((site.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = [d["location"] for d in index["docs"] if "--page-size" in d["text"]]
    assert any(loc.startswith("showcase/ascend/") for loc in locations)


@SITE
def test_the_manifest_page_has_the_schema_table(site: Build) -> None:
    text = page(site, "guide/manifests")
    for key in TOP_KEYS:
        assert f"<code>{key}</code>" in text
    assert "<code>arguments.&lt;flag&gt;.reason</code>" in text


@SITE
def test_the_tutorial_embeds_current_tables(site: Build, showcase: Project) -> None:
    text = page(site, "tutorials/lora-on-ascend")
    for argument in showcase.registry.in_section("LoRA"):
        assert f'id="{argument.name}"' in text
    assert "&lt;!-- argmatrix" in text  # the directive syntax shown in prose stays as text


def test_the_committed_cli_reference_is_current() -> None:
    result = run_cli_in_process("check", "--config", "docs/reference/argmatrix.yaml", cwd=REPO)
    assert result.code == 0, result.out + result.err


@SITE
def test_the_cli_reference_documents_every_command_and_option(site: Build) -> None:
    from argmatrix.cli.main import build_parser

    text = (REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    for name, sub in commands.choices.items():
        assert f'<a id="{name}"></a>argmatrix {name}' in text
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}`" in text, (name, flag)
    ids = Counter(ID.findall(page(site, "reference/cli")))
    assert [i for i, count in ids.items() if count > 1] == []


@SITE
def test_the_vllm_showcase_is_built_without_torch(site: Build) -> None:
    """vLLM's pages, read live in the docs environment, where vLLM is and torch is not: the
    Feature x Hardware table in vLLM's own form, `vllm serve` with an anchor per argument, and
    every `vllm` command (bench's own commands too)."""
    probe = "import importlib.util; print(importlib.util.find_spec('torch') is None)"
    done = subprocess.run([str(DOCS_PYTHON), "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "True"
    (features,) = tables_of(page(site, "showcase-vllm/features"))
    assert [cell.text for cell in features[0]] == [
        "Feature",
        "Volta",
        "Turing",
        "Ampere",
        "Ada",
        "Hopper",
        "CPU",
        "AMD",
        "Intel GPU",
    ]
    rows = {row[0].text: [cell.text for cell in row[1:]] for row in features[1:]}
    assert rows["Chunked prefill (--enable-chunked-prefill)"] == ["❌", *["✅"] * 7]
    assert rows["CUDA graphs (--cudagraph-capture-sizes)"] == [*["✅"] * 5, "❌", "✅", "❌"]
    assert rows["Prompt embeddings (--enable-prompt-embeds)"] == [*["✅"] * 6, "❔", "✅"]
    serve = Counter(ID.findall(page(site, "showcase-vllm/serve")))
    assert serve["--lora-dtype"] == serve["--enable-lora"] == serve["model_tag"] == 1
    assert [i for i, count in serve.items() if count > 1] == []
    commands = page(site, "showcase-vllm/cli")
    for command in ("chat", "complete", "serve", "run-batch", "bench-latency", "bench-serve"):
        assert f'id="{command}"' in commands, command
    assert [i for i, count in Counter(ID.findall(commands)).items() if count > 1] == []


def test_showcase_pages_are_build_outputs_only(showcase: Project) -> None:
    """They hold sglang's help text: built into the site, never in the repository, and
    `argmatrix check` passes without them."""
    pages = [showcase.config.docs_dir / page.output for page in showcase.config.pages]
    assert git_lines("ls-files", "--", *map(str, pages)) == []
    assert all(git_ignores(page) for page in pages)
    result = run_cli_in_process("check", cwd=REPO)
    assert result.code == 0, result.out + result.err


# ------------------------------------------------------------------ the same site by Zensical


@pytest.fixture(scope="module")
def zensical_site() -> Build:
    result = showcase_zensical_site()
    assert result.code == 0, result.output
    return result


@pytest.mark.engine  # Zensical
def test_zensical_builds_every_nav_page_of_the_same_mkdocs_yml(zensical_site: Build) -> None:
    nav = re.findall(r":\s+([\w/.-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(), re.M)
    for source in nav:
        built = "" if source == "index.md" else source.removesuffix(".md") + "/"
        assert (zensical_site.site / built / "index.html").is_file(), source
    assert zensical_site.docs_changed == ()


@pytest.mark.engine  # Zensical
@pytest.mark.parametrize(
    "name",
    [
        "tutorials/lora-on-ascend",  # table directives, through the Markdown extension
        "guide/manifests",  # a schema directive
        "showcase/ascend",
        "showcase/matrix",
        "reference/cli",
    ],
)
@SITE
def test_zensical_and_mkdocs_show_the_same_tables(
    site: Build, zensical_site: Build, name: str
) -> None:
    mkdocs_tables = tables_of(page(site, name))
    assert mkdocs_tables, name
    assert tables_of((zensical_site.site / name / "index.html").read_text()) == mkdocs_tables
