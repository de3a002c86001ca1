"""Render pages from the resolved model with Jinja2: the one render path.

`generate` writes what `render_project` returns, `check` compares it with the disk, and the MkDocs
plugin serves it; none of them renders on its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from argmatrix._runtime.cache import fingerprint, memo
from argmatrix._runtime.files import read_user_file
from argmatrix.config import Config, PageSpec
from argmatrix.errors import ArgmatrixError
from argmatrix.render.template_files import Templates, pages_by_format, read_templates

if TYPE_CHECKING:
    import jinja2

    from argmatrix.manifests.resolve import ResolvedPlatform
    from argmatrix.model.history import History
    from argmatrix.model.registry import Registry
    from argmatrix.render.views import Cells, ServerPage

# ------------------------------------------------------------------ pages


@dataclass(frozen=True)
class RenderedPage:
    spec: PageSpec
    path: Path
    text: str


def render_project(
    config: Config,
    registry: Registry,
    platforms: dict[str, ResolvedPlatform],
    read_existing: Any = None,
    inputs: Sequence[str] | None = None,
) -> list[RenderedPage]:
    """Every configured page, rendered in memory. Nothing is written here.

    Rendering is a pure function of its inputs: with `inputs` (every file the registry, the
    manifests and the configuration were read from) pages rendered from the very same files,
    templates and argmatrix code before are reused. In-place pages also depend on the page on
    disk: those are always rendered.
    """
    templates = read_templates(config.templates_dir)
    if inputs is None or any(p.inplace for p in config.pages):
        return _render_pages(config, registry, platforms, read_existing, templates)
    digest = fingerprint((repr(config), templates.digest), inputs)
    return memo(
        "pages", digest, lambda: _render_pages(config, registry, platforms, None, templates)
    )


def read_histories(config: Config) -> dict[Path | None, History]:
    """The history facts every page names, read once each."""
    from argmatrix.model.history import FIX, history_from_dict

    found: dict[Path | None, History] = {}
    for path in config.history_files():
        text = read_user_file(path, "the history facts file", FIX)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ArgmatrixError.at(
                f"the history facts file is not JSON: {exc}", file=str(path), fix=FIX
            ) from None
        found[path] = history_from_dict(data, str(path))
    return found


class _Format(NamedTuple):
    """What the pages of one output format render with: its environment, its cells and the
    server page built from them."""

    env: jinja2.Environment
    cells: Cells
    server: ServerPage


def _render_pages(
    config: Config,
    registry: Registry,
    platforms: dict[str, ResolvedPlatform],
    read_existing: Any,
    templates: Templates,
) -> list[RenderedPage]:
    # Jinja2 and the page model are imported here, when a page renders: a run whose pages are
    # all in the cache never loads them.
    from argmatrix.render.environment import project_environment, render_template
    from argmatrix.render.formats import FORMATS
    from argmatrix.render.inplace import splice
    from argmatrix.render.views import Cells, page_context, server_page

    where = str(config.file or "argmatrix.yaml")
    by_format = pages_by_format(config.pages)
    formats: dict[str, _Format] = {}
    display = config.display.facts(registry, where)
    for name in by_format:
        cells = Cells(FORMATS[name], display)
        env = project_environment(config, templates, name)
        formats[name] = _Format(env, cells, server_page(registry, cells))

    histories = read_histories(config)

    pages = []
    for page in config.pages:
        env, cells, server = formats[page.output_format]
        history = histories.get(config.history_file(page))
        context = page_context(page, registry, platforms, where, server, cells, history)
        path = config.docs_dir / page.output
        if page.inplace:
            text = splice(path, env, page, context, read_existing)
        else:
            text = render_template(env, page.template, context, where, page.line)
        pages.append(RenderedPage(page, path, text))
    return pages
