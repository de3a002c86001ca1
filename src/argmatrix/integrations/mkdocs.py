"""The `argmatrix` MkDocs plugin: the configured pages as virtual files, and table directives.

    plugins:
      - search
      - argmatrix                              # argmatrix.yaml next to mkdocs.yml
      - argmatrix:                             # a second project (multiple instances are fine)
          config_file: docs/reference/argmatrix.yaml
          directives: false                    # let the first instance expand the directives

Every build renders the pages of the argmatrix configuration through `render_project` and hands
them to MkDocs in memory; nothing is written into the docs folder. A hand-written page embeds one
generated table with a directive on a line of its own (never inside a fenced code block):

    <!-- argmatrix section="LoRA" -->                      the generic reference table
    <!-- argmatrix section="LoRA" platform="ascend" -->    that section on a platform
    <!-- argmatrix schema="manifest" -->                   the keys of a JSON Schema (manifest,
                                                           config or findings)
    <!-- argmatrix page="reference/ascend.md" -->          a configured page (alone in its page)

The directives are expanded by `render/directives.py`, which the Python-Markdown extension
(`argmatrix.markdown`, for Zensical) shares. With `html: false` their tables are plain
GitHub-flavoured Markdown; by default they carry an anchor per argument for the site.

The site's stylesheet and script (shipped in the wheel, `integrations/assets.py`) are added to
`extra_css` and `extra_javascript` and served from `assets/argmatrix/`, once however many
instances are listed; `assets: false` leaves them out.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from argmatrix._runtime.files import read_page
from argmatrix.checks.drift import generate_command
from argmatrix.errors import ArgmatrixError, printable
from argmatrix.integrations.assets import ASSET_NAMES, STYLESHEET, asset_bytes, site_uri
from argmatrix.integrations.common import load_engine_project, watched_paths
from argmatrix.project import Project
from argmatrix.render.directives import DIRECTIVE, Directives, expand_directives, schema_table
from argmatrix.schema import SCHEMAS

log = get_plugin_logger(__name__)


class PluginOptions(Config):
    config_file = c.Type(str, default="argmatrix.yaml")
    directives = c.Type(bool, default=True)
    # The tables of directives carry HTML (an anchor per argument, aliases on lines of their
    # own) for a site that renders it; false: plain GitHub-flavoured Markdown.
    html = c.Type(bool, default=True)
    # The stylesheet and script the HTML needs (badges, filter, cards on a phone), added to the
    # site; false: the site brings its own.
    assets = c.Type(bool, default=True)


class ArgmatrixPlugin(BasePlugin[PluginOptions]):
    supports_multiple_instances = True

    def __init__(self) -> None:
        self.serving = False
        self.config_path: Path | None = None
        self.project: Project | None = None
        self.directives: Directives | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        base = Path(config.config_file_path or ".").resolve().parent
        path = Path(self.config.config_file)
        self.config_path = path if path.is_absolute() else base / path
        if not self.config_path.is_file():
            raise PluginError(
                f"argmatrix: configuration file not found: {self.config_path}"
                " (fix: set the plugin's config_file option)"
            )
        if self.config.assets:
            _link_assets(config)
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        assert self.config_path is not None
        docs = Path(config.docs_dir).resolve()
        self.project, self.directives = None, None
        with plugin_errors():
            project = self._load()
            pages = project.pages()
        self.project = project
        for page in pages:
            try:
                src_uri = page.path.resolve().relative_to(docs).as_posix()
            except ValueError:
                raise PluginError(
                    f"argmatrix: {project.config.line_of_page(page.spec)}: page {page.spec.output!r}"
                    f" is outside the MkDocs docs_dir {docs} (fix: make 'docs_dir' in"
                    f" {self.config_path.name} the same folder as in mkdocs.yml)"
                ) from None
            if page.spec.committed and (on_disk := _read(page.path)) != page.text:
                log.warning(_stale_committed_page(page.path, on_disk is None, self.config_path))
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, src_uri, content=page.text))
        if self.config.assets:
            _add_asset_files(files, config)
        return files

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str | None:
        if not self.config.directives or "argmatrix" not in markdown:
            return None
        where = page.file.abs_src_path or page.file.src_uri
        source = page.file.content_string
        offset = (
            source[: len(source) - len(markdown)].count("\n") if source.endswith(markdown) else 0
        )
        with plugin_errors():
            return self._directives().expand(markdown, where, offset)

    def on_serve(
        self, server: LiveReloadServer, /, *, config: MkDocsConfig, builder: Callable[..., Any]
    ) -> LiveReloadServer:
        for path in self.watched_paths():
            server.watch(str(path))
        return server

    # ------------------------------------------------------------------ helpers

    def _load(self) -> Project:
        assert self.config_path is not None
        # A diagnostic that reaches a page is MkDocs' warning: `mkdocs build --strict` fails.
        return load_engine_project(
            self.config_path,
            fresh_modules=self.serving,
            warn=lambda text: log.warning(printable(text)),
        )

    def watched_paths(self) -> list[Path]:
        """The configuration, the manifests, the project templates and the registry's files."""
        if self.project is None:
            return [self.config_path] if self.config_path else []
        return watched_paths(self.project)

    def _directives(self) -> Directives:
        """The directives of this build's project (made once per build)."""
        if self.directives is None:
            project = self.project
            assert project is not None
            self.directives = Directives(
                project.config,
                project.registry,
                project.resolved,
                SCHEMAS,
                html=bool(self.config.get("html", True)),
            )
        return self.directives

    def _table(self, attrs: dict[str, str], where: str, line: int) -> str:
        return self._directives().table(attrs, where, line)


_ASSETS_BY = "argmatrix (assets)"  # marks the asset files this plugin added in this build


def _link_assets(config: MkDocsConfig) -> None:
    """List the stylesheet in `extra_css` and the script in `extra_javascript`, unless the site
    lists them already (another instance of the plugin, or mkdocs.yml for Zensical's sake)."""
    for name in ASSET_NAMES:
        uri = site_uri(name)
        links = config.extra_css if name == STYLESHEET else config.extra_javascript
        if uri not in {str(getattr(link, "path", link)) for link in links}:
            links.append(uri)


def _add_asset_files(files: Files, config: MkDocsConfig) -> None:
    """Serve the shipped assets, replacing a copy of them in the docs folder (which may be older
    than the installed package)."""
    for name in ASSET_NAMES:
        uri = site_uri(name)
        existing = files.get_file_from_path(uri)
        if existing is not None:
            if existing.generated_by == _ASSETS_BY:
                continue  # another instance added it in this build
            files.remove(existing)
        asset = File.generated(config, uri, content=asset_bytes(name))
        asset.generated_by = _ASSETS_BY
        files.append(asset)


@contextlib.contextmanager
def plugin_errors() -> Iterator[None]:
    """Turn argmatrix's input errors into a PluginError naming file:line for each problem."""
    try:
        yield
    except ArgmatrixError as error:
        raise PluginError("\n".join(f"argmatrix: {p}" for p in error.problems)) from None


def _stale_committed_page(path: Path, missing: bool, config_path: Path) -> str:
    """The warning for a committed page (`committed: true`, the default) the build finds
    missing or out of date: a missing one is most often a page never meant to be committed.
    Paths are named from the project's root (the folder of the configuration), as `argmatrix
    check` run there names them, from whichever folder the build runs."""
    root = config_path.parent
    generate = generate_command(config_path, root)
    path = Path(os.path.relpath(path, root))
    if missing:
        return (
            f"{path} is missing: the page is marked committed (the default) (fix: run"
            f" '{generate}' and commit it, or set 'committed: false' on the page in"
            f" {config_path.name}: the plugin then builds it without writing anything into"
            " docs_dir)"
        )
    return f"{path} is out of date with its registry (fix: run '{generate}')"


def _read(path: Path) -> str | None:
    """The committed page byte for byte, as `argmatrix check` reads it (a page with CRLF line
    endings is out of date to both); None when it cannot be read as a regular UTF-8 file."""
    try:
        return read_page(path)
    except ArgmatrixError:
        return None


__all__ = [
    "DIRECTIVE",
    "ArgmatrixPlugin",
    "expand_directives",
    "schema_table",
]
