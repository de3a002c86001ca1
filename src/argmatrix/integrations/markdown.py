"""The Python-Markdown extension: argmatrix directives expanded at render time.

    markdown_extensions:                     # mkdocs.yml, read by Zensical, MkDocs, ProperDocs
      - argmatrix:
          config_file: argmatrix.yaml        # relative to mkdocs.yml's folder (else the
                                             # current directory)

    markdown.markdown(text, extensions=[ArgmatrixExtension(config_file="argmatrix.yaml")])

It expands the same directives as the MkDocs plugin, through the same code
(`render/directives.py`): a table directive on a line of its own, and a page directive
(`<!-- argmatrix page="reference/ascend.md" -->`) in an otherwise empty page, which becomes the
configured page. This is what Zensical runs: it reads `mkdocs.yml` and runs every Python-Markdown
extension, but ignores MkDocs plugins it does not know.

The project is loaded once and kept per configuration file while none of its inputs changes (a
build renders many pages; `serve` rebuilds after an edit). An error stops the build with one
line naming the page, the line and the fix: under MkDocs it is a `PluginError` (MkDocs prints
the line and aborts), elsewhere an exception whose message is that line.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from argmatrix.errors import ArgmatrixError, printable
from argmatrix.integrations.common import current_state, load_engine_project
from argmatrix.project import Project
from argmatrix.render.directives import DIRECTIVE, Directives, outside_fences
from argmatrix.schema import SCHEMAS

try:  # MkDocs prints a PluginError as one line and aborts the build; other engines need none.
    from mkdocs.exceptions import PluginError as _EngineError
except ImportError:  # pragma: no cover - the markdown extra without MkDocs
    _EngineError = Exception  # type: ignore[assignment,misc]

# Before the raw-HTML stash (priority 20), which would hide the directive comments, and after
# whitespace normalisation (30).
PRIORITY = 25


class DirectiveError(_EngineError):
    """A directive that cannot be expanded: one line per problem, `argmatrix: file:line: ...`."""


class _Cached:
    __slots__ = ("directives", "project", "state")

    def __init__(self, directives: Directives, project: Project) -> None:
        self.directives = directives
        self.project = project
        self.state = current_state(project)


_CACHE: dict[tuple[Path, bool], _Cached] = {}
_LOCK = threading.Lock()


# A diagnostic of the registry that reaches a page, as a warning of MkDocs' plugins (so
# `mkdocs build --strict` fails on it when MkDocs runs the extension) and of Python's logging.
_LOG = logging.getLogger("mkdocs.plugins.argmatrix.markdown")


def _registry_warning(text: str) -> None:
    _LOG.warning(printable(f"argmatrix: {text}"))


def directives_for(config_path: Path, html: bool) -> Directives:
    """The directives of the project at `config_path`, loaded once and reloaded only when the
    content of one of its inputs (configuration, manifests, templates, the registry's files)
    changed."""
    key = (config_path, html)
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is None or current_state(cached.project) != cached.state:
            project = load_engine_project(
                config_path, fresh_modules=cached is not None, warn=_registry_warning
            )
            directives = Directives(
                project.config, project.registry, project.resolved, SCHEMAS, html=html
            )
            cached = _CACHE[key] = _Cached(directives, project)
        return cached.directives


class _Page:
    """Where the page being converted comes from, as far as the engine tells."""

    def __init__(self, where: str, source: Path | None, base: Path | None, zensical: bool) -> None:
        self.where = where
        self.source = source  # the page's file, to count the lines an engine removed
        self.base = base  # the folder of mkdocs.yml
        self.zensical = zensical


def page_of(md: Markdown) -> _Page:
    """MkDocs registers a tree processor holding the page's file and the configuration;
    Zensical a preprocessor holding the page and the configuration. Plain Python-Markdown
    knows neither."""
    if "relpath" in md.treeprocessors:
        relpath: Any = md.treeprocessors["relpath"]
        file = getattr(relpath, "file", None)
        config = getattr(relpath, "config", None)
        if file is not None:
            source = Path(file.abs_src_path) if file.abs_src_path else None
            config_file = config.get("config_file_path") if config is not None else None
            base = Path(config_file).parent if config_file else None
            return _Page(str(source or file.src_uri), source, base, False)
    if "rendering_context" in md.preprocessors:
        context: Any = md.preprocessors["rendering_context"]
        page, config = getattr(context, "page", None), getattr(context, "config", None) or {}
        if page is not None:
            docs = Path(config.get("docs_dir") or ".")
            source = docs / page.path
            base = Path(config["root_dir"]) if config.get("root_dir") else None
            return _Page(str(source), source, base, True)
    return _Page("<markdown>", None, None, False)


def lines_before(source: Path | None, markdown: str) -> int:
    """How many lines of the page's file come before `markdown` (front matter the engine took
    off), so errors name the line of the file."""
    if source is None:
        return 0
    try:
        text = source.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except (OSError, UnicodeError):
        return 0
    body = markdown.rstrip("\n")
    end = text.rstrip("\n")
    return end[: len(end) - len(body)].count("\n") if body and end.endswith(body) else 0


class DirectivePreprocessor(Preprocessor):
    def __init__(self, md: Markdown, extension: ArgmatrixExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if not any(DIRECTIVE.match(line) for line in lines if "argmatrix" in line) or not any(
            DIRECTIVE.match(line) for _, _, line in outside_fences(lines)
        ):
            return lines  # most pages, and examples in code: the project is not even loaded
        page = page_of(self.md)
        try:
            directives = directives_for(
                self.extension.config_path(page.base), bool(self.extension.getConfig("html"))
            )
            expanded = directives.expand(text, page.where, lines_before(page.source, text))
        except ArgmatrixError as error:
            message = "\n".join(f"argmatrix: {p}" for p in error.problems)
            if page.zensical:  # Zensical shows a traceback: the line goes first, on its own
                print(f"ERROR - {message}", file=sys.stderr)
            raise DirectiveError(message) from None
        return expanded.split("\n") if expanded is not text else lines


class ArgmatrixExtension(Extension):
    """`markdown_extensions: [argmatrix]`: expands argmatrix directives in every page."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "config_file": [
                "argmatrix.yaml",
                "the argmatrix configuration, relative to the folder of mkdocs.yml (else the"
                " current directory)",
            ],
            "html": [
                True,
                "tables carry an anchor per argument (HTML); false: plain GitHub-flavoured"
                " Markdown",
            ],
        }
        super().__init__(**kwargs)

    def config_path(self, base: Path | None) -> Path:
        """The configuration file, made absolute; a missing one is a located error."""
        path = Path(str(self.getConfig("config_file")))
        if not path.is_absolute():
            path = (base or Path.cwd()) / path
        path = path.resolve()
        if not path.is_file():
            raise ArgmatrixError.at(
                "argmatrix configuration file not found",
                file=str(path),
                fix="set the extension's config_file (markdown_extensions: - argmatrix:"
                " {config_file: PATH}), relative to mkdocs.yml",
            )
        return path

    def extendMarkdown(self, md: Markdown) -> None:
        md.registerExtension(self)
        md.preprocessors.register(DirectivePreprocessor(md, self), "argmatrix", PRIORITY)


def makeExtension(**kwargs: Any) -> ArgmatrixExtension:
    return ArgmatrixExtension(**kwargs)


__all__ = ["ArgmatrixExtension", "DirectiveError", "directives_for", "makeExtension"]
