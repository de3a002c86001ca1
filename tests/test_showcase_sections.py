"""The showcases' sections read as a person titles them (issue 29): sglang declares some of its
arguments as fields of classes (`class Mm`, `class ExecMoe`), and a section found that way is
named after its class. On the generated server-arguments page of each showcase (sglang 0.5.7,
and 0.5.23 read from `make new-sglang`'s sources), every section heading is a title the
showcase's `section_titles:` gives, or a section title the registry's source writes (a comment
above its block), or a heading of the template's own; a section named after its class is never
shown under that bare name unless `section_titles:` says so. So a class name coming back, or a
new class-named section sglang adds without a title, fails here.

Which sections are class names is found from the source the registry was read from: the class
whose body holds an argument's declaration, when the argument's section is that class's name.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from argmatrix.config import load_config
from argmatrix.model.registry import Registry
from argmatrix.project import Project, project_from_config
from helpers import REPO

SGLANG_0523 = REPO / ".cache" / "sglang-0.5.23"
SHOWCASES = {
    "sglang-0.5.7": (REPO / "argmatrix.yaml", "showcase/server_arguments.md"),
    "sglang-0.5.23": (
        REPO / "showcase" / "sglang-0.5.23" / "argmatrix.yaml",
        "showcase-0.5.23/server_arguments.md",
    ),
}
# What the server-arguments template titles itself, beside the registry's sections.
TEMPLATE_HEADINGS = {"Deprecated arguments", "Removed arguments"}


def showcase(name: str) -> Project:
    if name == "sglang-0.5.23" and not (SGLANG_0523 / "sglang").is_dir():
        pytest.fail(f"sglang 0.5.23 is not in {SGLANG_0523} (fix: run `make new-sglang`)")
    config, _ = SHOWCASES[name]
    return project_from_config(load_config(config, config.parent))


@functools.cache
def classes_of(file: str) -> tuple[tuple[int, int, str], ...]:
    """(first line, last line, name) of every class of a source file."""
    tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    return tuple(
        (node.lineno, node.end_lineno or node.lineno, node.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    )


def class_named_sections(registry: Registry) -> set[str]:
    """The sections named after the class an argument of theirs is declared in."""
    found = set()
    for argument in registry.arguments:
        if argument.origin is None:
            continue
        enclosing = {
            name
            for first, last, name in classes_of(argument.origin.file)
            if first <= argument.origin.line <= last
        }
        if argument.section in enclosing:
            found.add(argument.section)
    return found


def headings(page: str) -> list[str]:
    """The text of the page's second-level headings (its sections), as markdown-it reads them."""
    tokens = MarkdownIt("commonmark").parse(page)
    return [
        tokens[index + 1].content
        for index, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag == "h2"
    ]


@pytest.mark.parametrize("name", list(SHOWCASES))
@pytest.mark.slow
def test_every_section_heading_is_a_title_never_a_class_name(name: str) -> None:
    project = showcase(name)
    registry = project.registry
    titles = project.config.display.section_title()
    from_classes = class_named_sections(registry)
    [page] = [p for p in project.pages() if p.spec.output == SHOWCASES[name][1]]
    shown = headings(page.text)
    written = set(registry.sections) - from_classes  # titles the source writes itself
    allowed = set(titles.values()) | written | TEMPLATE_HEADINGS
    assert len(shown) > 10 and set(shown) <= allowed, sorted(set(shown) - allowed)
    untitled = sorted(from_classes - set(titles))
    assert untitled == [], f"sections named after their class, with no title: {untitled}"
    bare = [h for h in shown if h in from_classes and titles.get(h) != h]
    assert bare == [], bare


@pytest.mark.slow
def test_the_class_named_sections_are_found() -> None:
    """The check above is not vacuous: sglang 0.5.23 names some sections after their class."""
    registry = showcase("sglang-0.5.23").registry
    assert {"Mm", "ExecMoe", "ExecFeatures"} <= class_named_sections(registry)
