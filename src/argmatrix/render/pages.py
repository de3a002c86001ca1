"""Render pages from the resolved model with Jinja2: the one render path.

`generate` writes what `render_project` returns, `check` compares it with the disk, and the MkDocs
plugin serves it; none of them renders on its own.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

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
    from argmatrix.render.page_model import ServerPage
    from argmatrix.render.rows import Cells

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
    only: str | None = None,
) -> list[RenderedPage]:
    """Every configured page (or only the one whose output is `only`; the others are still
    what its links point to), rendered in memory. Nothing is written here.

    Rendering is a pure function of its inputs: with `inputs` (every file the registry, the
    manifests and the configuration were read from) pages rendered from the very same files,
    templates and argmatrix code before are reused. In-place pages also depend on the page on
    disk: those are always rendered.
    """
    templates = read_templates(config.templates_dir)
    if inputs is None or any(p.inplace for p in config.pages):
        return _render_pages(config, registry, platforms, read_existing, templates, only)
    digest = fingerprint((repr(config), templates.digest, only), inputs)
    return memo(
        "pages", digest, lambda: _render_pages(config, registry, platforms, None, templates, only)
    )


def server_arguments_link(pages: Sequence[PageSpec], page: PageSpec) -> str:
    """The relative link from `page` to the project's Server Arguments page (the first page of
    a bundled `server_arguments` template, in the same format), for a platform page's intro and
    its flags; "" when the project has none. Percent-encoded: an output path is text."""
    for other in pages:
        if (
            other.platform is None
            and posixpath.basename(other.template).startswith("server_arguments.")
            and other.output_format == page.output_format
            and other is not page
        ):
            start = posixpath.dirname(page.output) or "."
            return quote(posixpath.relpath(other.output, start))
    return ""


def platform_links(pages: Sequence[PageSpec], page: PageSpec) -> dict[str, str]:
    """Each platform's support page (its first, in the status layout, in the same format) as a
    relative, percent-encoded link from `page`: where the matrix's reasons are written."""
    links: dict[str, str] = {}
    start = posixpath.dirname(page.output) or "."
    for other in pages:
        if (
            other.platform is not None
            and other.platform not in links
            and other.options.get("layout", "status") == "status"
            and other.output_format == page.output_format
            and other is not page
        ):
            links[other.platform] = quote(posixpath.relpath(other.output, start))
    return links


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
    only: str | None = None,
) -> list[RenderedPage]:
    # Jinja2 and the page model are imported here, when a page renders: a run whose pages are
    # all in the cache never loads them.
    from argmatrix.render.environment import project_environment, render_template
    from argmatrix.render.formats import FORMATS
    from argmatrix.render.inplace import splice
    from argmatrix.render.rows import Cells
    from argmatrix.render.views import page_context, server_page

    where = str(config.file or "argmatrix.yaml")
    specs = tuple(p for p in config.pages if only is None or p.output == only)
    by_format = pages_by_format(specs)
    formats: dict[str, _Format] = {}
    display = config.display.facts(registry, where)
    for name in by_format:
        cells = Cells(FORMATS[name], display)
        env = project_environment(config, templates, name)
        formats[name] = _Format(env, cells, server_page(registry, cells))

    histories = read_histories(config)

    pages = []
    for page in specs:
        env, cells, server = formats[page.output_format]
        history = histories.get(config.history_file(page))
        context = page_context(page, registry, platforms, where, server, cells, history)
        context["server_arguments_page"] = server_arguments_link(config.pages, page)
        context["platform_pages"] = platform_links(config.pages, page)
        path = config.docs_dir / page.output
        if page.inplace:
            text = splice(path, env, page, context, read_existing)
        else:
            text = render_template(env, page.template, context, where, page.line)
            marker = FORMATS[page.output_format].REGION.generated
            text = f"{text}\n{marker}\n" if marker else text
        pages.append(RenderedPage(page, path, text))
    return pages
