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
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from argmatrix._runtime.files import read_page
from argmatrix.config import PageSpec, load_config
from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import RegistrySpec
from argmatrix.loaders.static.reader import find_module_file
from argmatrix.project import Project, project_from_config
from argmatrix.render.environment import environment
from argmatrix.render.formats.markdown import cell, code
from argmatrix.render.inplace import ATTRIBUTE, fragment, parse_attributes
from argmatrix.render.views import page_context
from argmatrix.schema import SCHEMAS

log = get_plugin_logger(__name__)

DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)<!--\s*argmatrix\s(?P<attrs>[^>]*)-->[ \t]*$")
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})")
PLACEHOLDERS = {"sections": "<section>", "arguments": "<flag>"}


class PluginOptions(Config):
    config_file = c.Type(str, default="argmatrix.yaml")
    directives = c.Type(bool, default=True)


class ArgmatrixPlugin(BasePlugin[PluginOptions]):
    supports_multiple_instances = True

    def __init__(self) -> None:
        self.serving = False
        self.config_path: Path | None = None
        self.project: Project | None = None
        self._context: dict[str, Any] | None = None
        self._env: jinja2.Environment | None = None

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
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        assert self.config_path is not None
        docs = Path(config.docs_dir).resolve()
        self.project, self._context, self._env = None, None, None
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
            if page.spec.committed and _read(page.path) != page.text:
                log.warning(
                    f"{page.path} is out of date with its registry (fix: run 'argmatrix"
                    f" generate --config {os.path.relpath(self.config_path)}')"
                )
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, src_uri, content=page.text))
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
            return expand_directives(
                markdown,
                lambda attrs, line: self._table(attrs, where, line, page.file.src_uri),
                where,
                offset,
            )

    def on_serve(
        self, server: LiveReloadServer, /, *, config: MkDocsConfig, builder: Callable[..., Any]
    ) -> LiveReloadServer:
        for path in self.watched_paths():
            server.watch(str(path))
        return server

    # ------------------------------------------------------------------ helpers

    def _load(self) -> Project:
        assert self.config_path is not None
        settings = load_config(self.config_path, self.config_path.parent)
        if settings.registry is None:
            raise ArgmatrixError.at(
                "no 'registry' configured",
                file=str(self.config_path),
                fix="add 'registry: {target: module:callable}'",
            )
        if self.serving and settings.registry.mode == "live":
            # A rebuild after the registry's module changed must import it afresh.
            sys.modules.pop(settings.registry.target.partition(":")[0], None)
        return project_from_config(settings)

    def watched_paths(self) -> list[Path]:
        """The configuration, the manifests, the project templates and the registry's source."""
        if self.project is None:
            return [self.config_path] if self.config_path else []
        settings = self.project.config
        paths = [p for p in (settings.file, *settings.manifests) if p is not None]
        if settings.templates_dir.is_dir():
            paths.append(settings.templates_dir)
        source = registry_source(settings.registry) if settings.registry else None
        if source is not None:
            paths.append(source)
        return [p.resolve() for p in paths]

    def _table(self, attrs: dict[str, str], where: str, line: int, src_uri: str) -> str:
        if "schema" in attrs:
            return schema_directive(attrs, where, line)
        parse_attributes(" ".join(f'{k}="{v}"' for k, v in attrs.items()), where, line)
        if "section" not in attrs:
            raise ArgmatrixError.at(
                "an argmatrix directive needs a section (or a schema)",
                file=where,
                line=line,
                fix='write e.g. <!-- argmatrix section="LoRA" platform="ascend" -->',
            )
        assert self.project is not None
        if self._context is None or self._env is None:
            project = self.project
            spec = PageSpec(template="server_arguments.md.j2", output=src_uri)
            self._context = page_context(
                spec, project.registry, project.resolved, str(project.config.file)
            )
            self._env = environment(project.config.templates_dir)
        return fragment(self._env, self._context, attrs, "server_arguments.md.j2", where, line)


@contextlib.contextmanager
def plugin_errors() -> Iterator[None]:
    """Turn argmatrix's input errors into a PluginError naming file:line for each problem."""
    try:
        yield
    except ArgmatrixError as error:
        raise PluginError("\n".join(f"argmatrix: {p}" for p in error.problems)) from None


def expand_directives(
    markdown: str,
    table: Callable[[dict[str, str], int], str],
    where: str = "<page>",
    offset: int = 0,
) -> str:
    """Replace each directive line (outside fenced code) with `table(attributes, line number)`.

    `offset` is the number of source lines before `markdown` (front matter MkDocs removed).
    """
    out: list[str] = []
    fence: str | None = None
    for number, text in enumerate(markdown.split("\n"), start=offset + 1):
        opening = FENCE.match(text)
        if fence is not None:
            if (
                opening
                and opening["fence"][0] == fence[0]
                and len(opening["fence"]) >= len(fence)
                and not text.strip()[len(opening["fence"]) :].strip()
            ):
                fence = None
            out.append(text)
            continue
        if opening:
            fence = opening["fence"]
            out.append(text)
            continue
        match = DIRECTIVE.match(text)
        if match is None:
            out.append(text)
            continue
        raw = match["attrs"]
        attrs = dict(ATTRIBUTE.findall(raw))
        if ATTRIBUTE.sub("", raw).strip():
            raise ArgmatrixError.at(
                f"cannot read the directive attributes {raw.strip()!r}",
                file=where,
                line=number,
                fix='write name="value" pairs',
            )
        indent = match["indent"]
        body = table(attrs, number)
        out.extend(["", *(indent + row if row else row for row in body.split("\n")), ""])
    return "\n".join(out)


def registry_source(spec: RegistrySpec) -> Path | None:
    """The file a registry is read from: the snapshot, or the target's module file."""
    if spec.mode == "snapshot":
        path = Path(spec.target)
        return path if path.is_absolute() else spec.base_dir / path
    module = spec.target.partition(":")[0]
    search = [str(spec.base_dir), *(spec.search_path if spec.search_path is not None else sys.path)]
    found = find_module_file(module, search)
    if found is None and spec.mode == "live":
        try:
            origin = getattr(importlib.util.find_spec(module), "origin", None)
        except (ImportError, ValueError):
            origin = None
        found = Path(origin) if origin and origin.endswith(".py") else None
    return found


def _read(path: Path) -> str | None:
    """The committed page byte for byte, as `argmatrix check` reads it (a page with CRLF line
    endings is out of date to both); None when it cannot be read as a regular UTF-8 file."""
    try:
        return read_page(path)
    except ArgmatrixError:
        return None


# ------------------------------------------------------------------ JSON Schema tables


def schema_directive(attrs: dict[str, str], where: str, line: int) -> str:
    name = attrs["schema"]
    extra = sorted(set(attrs) - {"schema"})
    if name not in SCHEMAS or extra:
        raise ArgmatrixError.at(
            f"unknown schema {name!r}"
            if name not in SCHEMAS
            else f"a schema directive takes no {', '.join(extra)}",
            file=where,
            line=line,
            fix=f'write <!-- argmatrix schema="NAME" --> with NAME one of: {", ".join(SCHEMAS)}',
        )
    return schema_table(SCHEMAS[name])


def schema_table(schema: dict[str, Any]) -> str:
    """A Markdown table of every key a JSON Schema allows, with its type and meaning."""
    rows: list[tuple[str, dict[str, Any], bool]] = []
    _schema_rows(schema, "", False, rows)
    lines = ["| Key | Type | Required | Meaning |", "| --- | --- | --- | --- |"]
    for path, node, required in rows:
        lines.append(
            f"| {code(path)} | {_schema_type(node)} | {'yes' if required else ''} |"
            f" {_schema_meaning(node)} |"
        )
    return "\n".join(lines)


def _schema_rows(
    node: dict[str, Any], path: str, required: bool, rows: list[tuple[str, dict[str, Any], bool]]
) -> None:
    if path:
        rows.append((path, node, required))
    branch = next((b for b in node.get("oneOf", ()) if b.get("type") == "object"), node)
    needed = set(branch.get("required", ()))
    for key, sub in branch.get("properties", {}).items():
        _schema_rows(sub, f"{path}.{key}" if path else key, key in needed, rows)
    items = branch.get("items")
    if branch.get("type") == "array" and isinstance(items, dict) and "properties" in items:
        _schema_rows(items, f"{path}[]", False, rows)
    extra = branch.get("additionalProperties")
    if isinstance(extra, dict) and (extra.get("oneOf") or extra.get("properties")):
        name = PLACEHOLDERS.get(path.rsplit(".", 1)[-1], "<name>")
        _schema_rows(extra, f"{path}.{name}", False, rows)


def _schema_type(node: dict[str, Any]) -> str:
    shorthand = _shorthand(node)
    if shorthand is not None:
        return f"a {code(shorthand)} value, or mapping"
    if "oneOf" in node:
        return " or ".join(_schema_type(branch) for branch in node["oneOf"])
    if "enum" in node:
        return "one of " + ", ".join(code(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        return f"list of {_schema_type(items)}" if isinstance(items, dict) else "list"
    if kind == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "enum" in extra:
            return "mapping to " + _schema_type(extra)
        return "mapping"
    if isinstance(kind, list):
        return " or ".join(cell(k) for k in kind)
    return cell(kind) if kind else "any value"


def _shorthand(node: dict[str, Any]) -> str | None:
    """The key of the object branch that a oneOf's scalar branch stands for (`status`)."""
    branches = node.get("oneOf", ())
    objects = [b for b in branches if b.get("type") == "object"]
    scalars = [b for b in branches if b.get("type") != "object"]
    if len(objects) != 1 or len(scalars) != 1:
        return None
    return next(
        (key for key, sub in objects[0].get("properties", {}).items() if sub == scalars[0]), None
    )


def _schema_meaning(node: dict[str, Any]) -> str:
    parts = [cell(node["description"])] if node.get("description") else []
    shorthand = _shorthand(node)
    if shorthand is not None:
        parts.append(f"Write the {code(shorthand)} alone, or a mapping with the keys below.")
    if node.get("pattern"):
        parts.append(f"Matches {code(node['pattern'])}.")
    if node.get("uniqueItems"):
        parts.append("No repeats.")
    return " ".join(parts)


__all__ = ["ArgmatrixPlugin", "expand_directives", "registry_source", "schema_table"]
