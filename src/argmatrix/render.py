"""Render pages from the resolved model with Jinja2: the one render path.

`generate` writes what `render_project` returns, `check` compares it with the disk, and the MkDocs
plugin serves it; none of them renders on its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

import jinja2

from .cache import cache_dir, fingerprint, jinja_bytecode_cache, memo
from .config import Config, PageSpec
from .errors import ArgmatrixError
from .markdown import anchor, cell, code, code_block, value_text
from .model import (
    Argument,
    Capability,
    Diagnostic,
    Opaque,
    Platform,
    Registry,
    Resolved,
    Subcommand,
    Unevaluated,
)
from .parallel import can_fork, in_background
from .resolve import Finding, ResolvedPlatform
from .template_sandbox import (
    PageSandbox,
    SaltedBytecodeCache,
    TemplateLimit,
    page_budget,
    template_frame,
)

SUPPORT_LAYOUTS = ("status", "variants")
STATUS_LABELS = {
    "supported": "Supported",
    "experimental": "Experimental",
    "planned": "Planned",
    "unsupported": "Not supported",
    "not-applicable": "Not applicable",
    "unverified": "Unverified",
    "unclassified": "Not classified",
}
_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


def bundled_templates() -> Path:
    spec = importlib.util.find_spec("argmatrix.templates")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if (Path(location) / "server_arguments.md.j2").is_file():
                return Path(location)
    return Path(__file__).resolve().parents[2] / "templates"


TemplateFiles = dict[str, tuple[bytes, str]]  # name -> (content, file it was read from)


class Templates(NamedTuple):
    """The project's templates and the bundled ones, read once: an environment made from them
    compiles exactly what a page cache key was computed from."""

    project: TemplateFiles
    bundled: TemplateFiles

    @property
    def digest(self) -> str:
        return hashlib.blake2b(repr((sorted(self.project.items()), sorted(self.bundled.items())))
                               .encode(), digest_size=16).hexdigest()


def read_templates(project_templates: Path | None) -> Templates:
    return Templates(_read_folder(project_templates), _read_folder(bundled_templates()))


# What a template file's name ends with; nothing else in the templates folder is read (with
# `templates_dir: .` the folder is the whole repository).
TEMPLATE_SUFFIXES = (".j2", ".jinja", ".jinja2")
MAX_TEMPLATE_BYTES = 1 << 20


def _read_folder(folder: Path | None) -> TemplateFiles:
    """Every template file below `folder`, by its name relative to it.

    Hidden folders and files are skipped, and so is a symbolic link that leads out of the folder
    (a link to a folder is never followed). Only regular files are read, at most
    MAX_TEMPLATE_BYTES each."""
    if folder is None or not folder.is_dir():
        return {}
    root = Path(os.path.realpath(folder))
    found: TemplateFiles = {}
    for relative, path in _template_paths(folder, root, ""):
        found[relative] = (_read_template(path), str(path))
    return dict(sorted(found.items()))


def _template_paths(folder: Path, root: Path, prefix: str) -> Iterable[tuple[str, Path]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            yield from _template_paths(path, root, f"{prefix}{entry.name}/")
        elif entry.name.endswith(TEMPLATE_SUFFIXES) and not entry.is_dir():
            if entry.is_symlink() and not _inside(Path(os.path.realpath(path)), root):
                continue
            yield prefix + entry.name, path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _read_template(path: Path) -> bytes:
    """A template file's bytes: a regular file of at most MAX_TEMPLATE_BYTES (a FIFO or a device
    named like a template is never opened for reading)."""
    target = Path(os.path.realpath(path))
    try:
        descriptor = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ArgmatrixError.at(f"cannot read the template: {exc.strerror}", file=str(path),
                                fix="make it a readable file") from None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ArgmatrixError.at("a template must be a regular file", file=str(path),
                                    fix="replace it with a file or remove it")
        content = stream.read(MAX_TEMPLATE_BYTES + 1)
    if len(content) > MAX_TEMPLATE_BYTES:
        raise ArgmatrixError.at(
            f"template file is larger than {MAX_TEMPLATE_BYTES // 1024} KiB", file=str(path),
            fix="split it into smaller templates with {% include %} or {% import %}")
    return content


class _SnapshotLoader(jinja2.BaseLoader):
    def __init__(self, files: TemplateFiles) -> None:
        self.files = files

    def get_source(self, environment: jinja2.Environment, template: str
                   ) -> tuple[str, str, Callable[[], bool]]:
        if template not in self.files:
            raise jinja2.TemplateNotFound(template)
        content, filename = self.files[template]
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArgmatrixError.at(f"template {template!r} is not UTF-8 text ({exc.reason})",
                                    file=filename, fix="save it as UTF-8") from None
        return text, filename, lambda: True

    def list_templates(self) -> list[str]:
        return sorted(self.files)


def environment(project_templates: Path | None, templates: Templates | None = None
                ) -> jinja2.Environment:
    """Project templates first, then the bundled ones; `argmatrix/NAME` is always the bundled one.

    A sandbox (see `template_sandbox`): a project template may come from a pull request."""
    templates = templates or read_templates(project_templates)
    bundled = _SnapshotLoader(templates.bundled)
    loaders: list[jinja2.BaseLoader] = []
    if templates.project:
        loaders.append(_SnapshotLoader(templates.project))
    loaders += [bundled, jinja2.PrefixLoader({"argmatrix": bundled})]
    bytecode = jinja_bytecode_cache()
    env = PageSandbox(
        readable=PAGE_MODEL_TYPES,
        filters={"cell": cell, "code": code, "anchor": anchor, "code_block": code_block},
        loader=jinja2.ChoiceLoader(loaders),
        bytecode_cache=SaltedBytecodeCache(bytecode) if bytecode is not None else None,
        autoescape=False,  # Markdown output; every input string goes through `cell` or `code`
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # the templates are a snapshot: nothing to look at again
    )
    env.template_files = frozenset(
        filename for files in templates for _, filename in files.values())
    return env


_ENVIRONMENTS: dict[tuple[str, str], jinja2.Environment] = {}


def project_environment(config: Config, templates: Templates | None = None) -> jinja2.Environment:
    """The environment of the project's templates as they are now, with what it compiled.

    Reused within a process until a template changes (an edit under `mkdocs serve` gets a
    fresh one), so templates compiled ahead by `compile_templates` are not compiled again."""
    templates = templates or read_templates(config.templates_dir)
    key = (str(cache_dir()), templates.digest)
    env = _ENVIRONMENTS.get(key)
    if env is None:
        _ENVIRONMENTS.clear()  # one set of templates at a time
        env = _ENVIRONMENTS[key] = environment(config.templates_dir, templates)
    return env


def compile_templates(config: Config) -> None:
    """Compile the pages' templates ahead, while the registry is read in another process.
    Only a head start: whatever goes wrong here happens again, in its turn, when the page
    that uses the template renders, and is reported there."""
    with contextlib.suppress(Exception):
        _compile_each(project_environment(config), config.pages)


def _compile_each(env: jinja2.Environment, pages: Sequence[PageSpec]) -> None:
    for page in pages:
        with contextlib.suppress(Exception):  # reported when the page renders
            env.get_template(page.template)


# ------------------------------------------------------------------ views of the model


class Row(NamedTuple):
    """One table row, every cell already escaped. A NamedTuple: pages have 10^5 of them."""

    argument: Argument
    anchor: str
    flags: str
    description: str
    default: str
    options: str
    status: str = ""
    marks: tuple[str, ...] = ()
    note: str = ""
    reason: str = ""
    replacement: str = ""


@dataclass(frozen=True)
class SectionView:
    title: str
    anchor: str
    rows: tuple[Row, ...]
    has_notes: bool = False
    # A subcommand's section: the commands (names as written) whose section is the same, title
    # and rows, this one's included.
    shared_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReasonGroup:
    reason: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class SubcommandView:
    name: str
    aliases: str
    help: str
    page: ServerPage


@dataclass(frozen=True)
class ServerPage:
    sections: tuple[SectionView, ...]
    deprecated: tuple[Row, ...]
    subcommands: tuple[SubcommandView, ...] = ()
    description: str = ""
    # The subcommands' sections that several commands share, each once, in command order.
    shared_sections: tuple[SectionView, ...] = ()


@dataclass(frozen=True)
class SupportPage:
    title: str
    platform: str
    variants: tuple[str, ...]
    layout: str
    sections: tuple[SectionView, ...]
    not_supported: tuple[ReasonGroup, ...]
    description: str = ""
    counts: dict[str, int] = field(default_factory=dict)


def flags_cell(argument: Argument, scope: str = "") -> str:
    names = argument.flags or (argument.metavar if isinstance(argument.metavar, str)
                               else argument.dest,)
    return f'<a id="{scope}{anchor(argument.name)}"></a>' + "<br>".join(code(f) for f in names)


def default_cell(value: Any, argument: Argument | None = None) -> str:
    if argument is not None and argument.required and value is None:
        return "required"
    return code(value_text(value))


def type_options_cell(argument: Argument, options: Iterable[Any] | None = None) -> str:
    """Options: the platform's subset, else the choices, else a description of the value."""
    if options is not None:
        return ", ".join(code(value_text(o)) for o in options)
    if argument.choices is not None:
        if isinstance(argument.choices, tuple):
            return ", ".join(code(value_text(c)) for c in argument.choices)
        return code(value_text(argument.choices)) + " (computed)"
    return cell(value_description(argument))


def value_description(argument: Argument) -> str:
    kind = argument.type or "str"
    action = argument.action
    if action == "store_true":
        return "bool flag (set to enable)"
    if action == "store_false":
        return "bool flag (set to disable)"
    if action == "boolean_optional":
        return "bool flag (" + " / ".join(argument.flags) + ")"
    if action == "count":
        return "count (repeatable flag)"
    if action in ("store_const", "append_const"):
        return "flag (stores a constant)"
    if action == "version":
        return "flag (prints the version)"
    nargs = argument.nargs
    if nargs == 0:  # a custom Action that takes no value
        return "flag (takes no value)"
    if action in ("append", "extend") or nargs in ("+", "*") or (
        isinstance(nargs, int) and nargs > 1
    ):
        return f"List[{kind}]"
    if nargs == "?":
        return f"Type: {kind} (value optional)"
    return f"Type: {kind}"


def replacement_of(argument: Argument, registry: Registry) -> str:
    """A deprecated argument's replacement: the first other flag its help names."""
    text = argument.help if isinstance(argument.help, str) else ""
    known = registry.by_flag()
    for flag in _FLAG_IN_TEXT.findall(text):
        target = known.get(flag)
        if target is not None and target is not argument:
            return str(flag)
    return ""


class Cells:
    """The registry's own cells of each argument, escaped once per render however many pages
    and platforms show them."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[Argument, Row]] = {}
        self._sections: dict[int, tuple[Registry, dict[str, list[Argument]]]] = {}
        self._section_rows: dict[int, tuple[Registry, dict[str, list[Row]]]] = {}

    def sections(self, registry: Registry) -> dict[str, list[Argument]]:
        cached = self._sections.get(id(registry))
        if cached is None or cached[0] is not registry:
            cached = self._sections[id(registry)] = (registry, by_section(registry))
        return cached[1]

    def section_rows(self, registry: Registry) -> dict[str, list[Row]]:
        """The rows of `sections`, top-level scope."""
        cached = self._section_rows.get(id(registry))
        if cached is None or cached[0] is not registry:
            rows = {title: [self.row(a) for a in arguments]
                    for title, arguments in self.sections(registry).items()}
            cached = self._section_rows[id(registry)] = (registry, rows)
        return cached[1]

    def row(self, argument: Argument, scope: str = "") -> Row:
        """`scope` prefixes the anchor: a subcommand's `--port` is `serve--port`."""
        cached = self._rows.get(id(argument))
        if cached is not None and cached[0] is argument:
            return cached[1]
        row = Row(
            argument=argument,
            anchor=scope + anchor(argument.name),
            flags=flags_cell(argument, scope),
            description=cell(argument.help),
            default=default_cell(argument.default, argument),
            options=type_options_cell(argument),
        )
        self._rows[id(argument)] = (argument, row)
        return row


def by_section(registry: Registry) -> dict[str, list[Argument]]:
    """Visible arguments per section, in registry order."""
    sections: dict[str, list[Argument]] = {title: [] for title in registry.sections}
    for argument in registry.arguments:
        if not argument.hidden:
            sections.setdefault(argument.section, []).append(argument)
    return sections


def section_anchor(title: str) -> str:
    return anchor(title.lower().replace(" ", "-"))


def server_page(registry: Registry, cells: Cells | None = None, scope: str = "") -> ServerPage:
    cells = cells or Cells()
    sections = []
    for title, arguments in cells.sections(registry).items():
        rows = tuple(cells.row(a, scope) for a in arguments if not a.deprecated)
        if rows:
            sections.append(SectionView(cell(title), section_anchor(title), rows))
    deprecated = tuple(
        cells.row(a, scope)._replace(replacement=code(replacement) if replacement else "")
        for a in registry.arguments if a.deprecated and not a.hidden
        for replacement in (replacement_of(a, registry),)
    )
    subcommands = tuple(
        SubcommandView(
            name=code(sub.name),
            aliases=", ".join(code(a) for a in sub.aliases),
            help=cell(sub.help),
            page=server_page(sub.registry, cells, f"{scope}{anchor(sub.name)}"),
        )
        for sub in registry.subcommands
    )
    subcommands, shared = _shared_sections(registry.subcommands, subcommands)
    return ServerPage(tuple(sections), deprecated, subcommands, cell(registry.description),
                      shared)


def _section_key(section: SectionView) -> tuple[Any, ...]:
    """What makes two commands' sections the same: the title and every row as shown."""
    return (section.title, tuple((row.argument.flags, row.description, row.default, row.options)
                                 for row in section.rows))


def _shared_sections(
    subs: Sequence[Subcommand], views: tuple[SubcommandView, ...]
) -> tuple[tuple[SubcommandView, ...], tuple[SectionView, ...]]:
    """Each subcommand section told which commands have the same one; the shared ones, once."""
    if not views:
        return views, ()
    commands: dict[tuple[Any, ...], list[str]] = {}
    for sub, view in zip(subs, views, strict=True):
        for section in view.page.sections:
            commands.setdefault(_section_key(section), []).append(sub.name)
    marked: list[SubcommandView] = []
    shared: dict[tuple[Any, ...], SectionView] = {}
    for view in views:
        sections = []
        for section in view.page.sections:
            key = _section_key(section)
            section = dataclasses.replace(section, shared_by=tuple(commands[key]))
            if len(section.shared_by) > 1:
                shared.setdefault(key, section)
            sections.append(section)
        marked.append(dataclasses.replace(
            view, page=dataclasses.replace(view.page, sections=tuple(sections))))
    return tuple(marked), tuple(shared.values())


def status_cell(resolved: Resolved, variants: tuple[str, ...]) -> str:
    status = resolved.status
    if status == "supported":
        return cell(", ".join(resolved.variants)) if variants else "Supported"
    if status == "experimental":
        label = "Experimental"
        return f"{label} ({cell(', '.join(resolved.variants))})" if (
            variants and resolved.variants != variants) else label
    if status == "not-applicable":
        return cell(resolved.reason or "Not applicable")
    return STATUS_LABELS[status]


def variant_marks(resolved: Resolved, variants: tuple[str, ...]) -> tuple[str, ...]:
    marks = []
    for variant in variants:
        if resolved.status == "supported" and variant in resolved.variants:
            marks.append("✓")
        elif resolved.status == "experimental" and variant in resolved.variants:
            marks.append("✓ (experimental)")
        elif resolved.status == "planned":
            marks.append("Planned")
        elif resolved.status in ("unverified", "unclassified"):
            marks.append(STATUS_LABELS[resolved.status])
        else:
            marks.append("✗")
    return tuple(marks)


def _platform_cells(
    resolved: Resolved, variants: tuple[str, ...], layout: str
) -> tuple[str, tuple[str, ...], str, str]:
    """The cells a platform adds to a row: status, per-variant marks, note, reason."""
    notes = [resolved.note] if resolved.note else []
    if layout == "variants" and resolved.reason:
        notes.insert(0, resolved.reason)  # no status column to carry the reason
    return (
        status_cell(resolved, variants),
        variant_marks(resolved, variants),
        cell("; ".join(notes)) if notes else "",
        cell(resolved.reason) if resolved.reason else "",
    )


def _support_row(base: Row, resolved: Resolved, platform_cells: tuple[Any, ...]) -> Row:
    """The registry's cells of `base`, the platform's after them. Built 10^5 times on a large
    project: a tuple concatenation unless the platform overrides the default or the options."""
    if not resolved.default_overridden and resolved.options is None:
        return Row._make(base[:6] + platform_cells + ("",))
    argument = base.argument
    return Row._make((
        argument, base.anchor, base.flags, base.description,
        default_cell(resolved.default, argument) if resolved.default_overridden else base.default,
        type_options_cell(argument, resolved.options) if resolved.options is not None
        else base.options,
        *platform_cells, "",
    ))


def support_page(
    registry: Registry, platform: ResolvedPlatform, layout: str = "status",
    title: str | None = None, cells: Cells | None = None,
) -> SupportPage:
    cells = cells or Cells()
    variants = platform.platform.variants
    sections = []
    groups: dict[str, list[Row]] = {}
    counts: dict[str, int] = {}
    platform_cells: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # few distinct ones
    by_argument = platform.by_argument
    for section, bases in cells.section_rows(registry).items():
        rows = []
        for base in bases:
            resolved = by_argument[base.argument.name]
            counts[resolved.status] = counts.get(resolved.status, 0) + 1
            key = (resolved.status, resolved.variants, resolved.note, resolved.reason)
            extra = platform_cells.get(key)
            if extra is None:
                extra = platform_cells[key] = _platform_cells(resolved, variants, layout)
            row = _support_row(base, resolved, extra)
            if layout != "variants" and resolved.status == "unsupported":
                groups.setdefault(resolved.reason or "", []).append(row)
            else:
                rows.append(row)
        if rows:
            sections.append(SectionView(cell(section), section_anchor(section), tuple(rows),
                                        any(r.note for r in rows)))
    return SupportPage(
        title=cell(title or f"Support Features on {platform.platform.title}"),
        platform=platform.platform.name,
        variants=tuple(cell(v) for v in variants),
        layout=layout,
        sections=tuple(sections),
        not_supported=tuple(ReasonGroup(cell(reason), tuple(rows))
                            for reason, rows in groups.items()),
        description=platform.platform.description,
        counts=dict(sorted(counts.items())),
    )


# ------------------------------------------------------------------ pages


@dataclass(frozen=True)
class RenderedPage:
    spec: PageSpec
    path: Path
    text: str


def page_context(
    page: PageSpec, registry: Registry, platforms: dict[str, ResolvedPlatform], where: str,
    server: ServerPage | None = None, cells: Cells | None = None,
) -> dict[str, Any]:
    cells = cells or Cells()
    context: dict[str, Any] = {
        "registry": registry,
        "server": server or server_page(registry, cells),
        "title": cell(page.title) if page.title else page.title,
        "options": read_only(page.options),
        "platforms": MappingProxyType(platforms),
        "matrix_columns": matrix_columns(platforms),
        "status_labels": _STATUS_LABELS,
    }
    if page.platform is not None:
        if page.platform not in platforms:
            known = ", ".join(sorted(platforms)) or "none loaded"
            raise ArgmatrixError.at(
                f"page {page.output!r} names unknown platform {page.platform!r}", file=where,
                line=page.line, fix=f"use a platform of the loaded manifests ({known})",
            )
        layout = str(page.options.get("layout", "status"))
        if layout not in SUPPORT_LAYOUTS:
            raise ArgmatrixError.at(
                f"page {page.output!r}: unknown layout {layout!r}", file=where, line=page.line,
                fix=f"use one of: {', '.join(SUPPORT_LAYOUTS)}",
            )
        context["support"] = support_page(registry, platforms[page.platform], layout, page.title,
                                          cells)
        context["platform"] = platforms[page.platform]
    return context


_STATUS_LABELS = MappingProxyType(STATUS_LABELS)


def read_only(value: Any) -> Any:
    """A page's `options` as templates see them: mappings and lists that cannot be changed."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: read_only(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(read_only(item) for item in value)
    return value


class MatrixColumn(NamedTuple):
    """A column of the platform matrix: one variant of a platform (None: it has no variants)."""

    resolved: ResolvedPlatform
    variant: str | None

    def status_of(self, argument: Argument) -> str:
        """The argument's status in this column: supported or experimental only on a variant
        the manifest lists for it."""
        status, variants = self.resolved.by_argument[argument.name][:2]
        if self.variant is not None and self.variant not in variants and status in (
                "supported", "experimental"):
            return "unsupported"
        return status


class MatrixColumns(tuple[MatrixColumn, ...]):
    """The platform matrix's columns: each variant of each platform, a platform without
    variants once."""

    def statuses(self, argument: Argument) -> tuple[str, ...]:
        """One row of the matrix: the argument's status in each column."""
        return tuple(column.status_of(argument) for column in self)


def matrix_columns(platforms: Mapping[str, ResolvedPlatform]) -> MatrixColumns:
    return MatrixColumns(MatrixColumn(resolved, variant) for resolved in platforms.values()
                         for variant in (resolved.platform.variants or (None,)))


# What templates may read attributes of, besides plain data and Jinja's own helpers.
PAGE_MODEL_TYPES: tuple[type, ...] = (
    Registry, Argument, Subcommand, Platform, Capability, Resolved, Opaque, Unevaluated,
    Diagnostic, ResolvedPlatform, Finding, Row, SectionView, ReasonGroup, SubcommandView,
    ServerPage, SupportPage, MatrixColumn,
)


def render_template(env: jinja2.Environment, name: str, context: dict[str, Any], where: str,
                    line: int | None) -> str:
    try:
        template = env.get_template(name)
    except jinja2.TemplateNotFound:
        raise ArgmatrixError.at(
            f"template {name!r} not found", file=where, line=line,
            fix="put it in the project's templates folder (a file ending in .j2, .jinja or"
            " .jinja2) or use a bundled one (server_arguments.md.j2, platform_support.md.j2)",
        ) from None
    except jinja2.TemplateSyntaxError as exc:
        raise ArgmatrixError.at(f"template syntax error: {exc.message}",
                                file=exc.filename or name, line=exc.lineno) from None
    except ArgmatrixError:
        raise
    except Exception as exc:  # the compiler on input it does not expect (a 10**6-digit number)
        raise ArgmatrixError.at(f"template {name!r} cannot be compiled: {_reason(exc)}",
                                file=where, line=line, fix="fix the template") from None
    try:
        with page_budget(env):
            text = template.render(**context)
    except ArgmatrixError:
        raise
    except jinja2.exceptions.SecurityError as exc:
        raise _located(exc, env, where, line, f"template {name!r} tried an unsafe operation:"
                       f" {str(exc).rstrip('.')}", _unsafe_fix(exc)) from None
    except jinja2.TemplateError as exc:
        raise ArgmatrixError.at(f"template {name!r} failed to render: {exc}", file=where,
                                line=line, fix="fix the template") from None
    except Exception as exc:  # a division by zero, a recursion without end, ...
        raise _located(exc, env, where, line, f"template {name!r} failed to render:"
                       f" {_reason(exc)}", "fix the template") from None
    return normalise_newlines(text)


def _reason(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _unsafe_fix(error: BaseException) -> str:
    if isinstance(error, TemplateLimit):
        return "a page renders within the sandbox's limits; build smaller values"
    return ("a template reads only the values argmatrix passes in (registry, server, support,"
            " platforms, options, ...) and changes none of them")


def _located(error: BaseException, env: jinja2.Environment, where: str, line: int | None,
             message: str, fix: str) -> ArgmatrixError:
    """The error at the template line it happened on (else at the page's configuration)."""
    frame = template_frame(error, env)
    if frame is not None:
        return ArgmatrixError.at(message, file=frame[0], line=frame[1], fix=fix)
    return ArgmatrixError.at(message, file=where, line=line, fix=fix)


_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)


def normalise_newlines(text: str) -> str:
    """One trailing newline, no trailing spaces, at most one blank line in a row.

    Pages can be megabytes: substring searches (fast) instead of regular expressions
    (a step per character) wherever the common case allows.
    """
    text = text.replace("\r\n", "\n")
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = _TRAILING_SPACE.sub("", text)
    while "\n\n\n" in text:  # each pass shortens every run of blank lines by a third or more
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n") + "\n"


# Pages with this many rows in all are rendered in two processes (the `argmatrix` command only).
PARALLEL_ROWS = 50_000


def render_project(
    config: Config, registry: Registry, platforms: dict[str, ResolvedPlatform],
    read_existing: Any = None, inputs: Sequence[str] | None = None,
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
    return memo("pages", digest,
                lambda: _render_pages(config, registry, platforms, None, templates))


def _render_pages(
    config: Config, registry: Registry, platforms: dict[str, ResolvedPlatform],
    read_existing: Any, templates: Templates,
) -> list[RenderedPage]:
    from .inplace import splice

    env = project_environment(config, templates)
    where = str(config.file or "argmatrix.yaml")
    cells = Cells()
    server = server_page(registry, cells)

    def render(specs: Sequence[PageSpec]) -> list[RenderedPage]:
        pages = []
        for page in specs:
            context = page_context(page, registry, platforms, where, server, cells)
            path = config.docs_dir / page.output
            if page.inplace:
                text = splice(path, env, page, context, read_existing)
            else:
                text = render_template(env, page.template, context, where, page.line)
            pages.append(RenderedPage(page, path, text))
        return pages

    specs = config.pages
    # A live registry's imports (torch, say) may have started native threads, which fork
    # does not copy and `can_fork` cannot see: render in this process then.
    live = config.registry is not None and config.registry.mode == "live"
    if (len(specs) < 2 or len(registry.arguments) * len(specs) < PARALLEL_ROWS or live
            or not can_fork()):
        return render(specs)
    cells.section_rows(registry)  # shared by both halves: built before the fork
    _compile_each(env, specs)  # once, before the fork
    half = (len(specs) + 1) // 2
    later = in_background(lambda: render(specs[half:]))
    try:
        first = render(specs[:half])
    except BaseException:
        later.cancel()
        raise
    return first + later.result()
