"""The Sphinx extension (`argmatrix.sphinx`): the configured pages at build time, a table
directive, and every argument an option of the program.

    # conf.py
    extensions = ["myst_parser", "argmatrix.sphinx"]
    argmatrix_config = "argmatrix.yaml"      # relative to conf.py
    argmatrix_program = "sglang"             # optional: the program the options belong to

When the builder starts, the pages of the argmatrix configuration are rendered through
`Project.pages()` (the one render path) and the ones whose text changed are written into the
source folder, all or none (`_runtime/writer.py`): Sphinx reads documents from files only, and
unchanged files keep Sphinx's incremental build. Pages of format `myst` write each flag as the
role `{argmatrix-option}`, defined here.

The directive embeds one section's table in a hand-written page, from MyST or reST:

    ```{argmatrix}
    :section: LoRA
    :platform: ascend
    ```

    .. argmatrix::
       :section: LoRA

It builds docutils nodes from the page model's tables (`render/tables.py`, the layouts every
format writes out, with the cells of `render/formats/tree.py`); no text is parsed again, so a
help text is shown as text whatever it holds. Every flag it shows, and every flag the role
shows, is registered in Sphinx's standard domain as an option of the program (the page's
`program` directive, else `argmatrix_program`, else none), with the id Sphinx's own `option`
directive would give it: `{option}`--page-size`` and `:option:`--page-size`` link to its row.
A table with `:no-index:` registers nothing (the first registration of an option wins, as in
Sphinx).

Column headings and argmatrix's own labels (statuses, "required") go through Sphinx's gettext
(the catalog `argmatrix`, looked up in the project's `locale_dirs`). A problem in the configuration stops the build (exit code 2) with one
line naming the file and line; a problem in a directive is a warning at the directive's line (an
error under `-W`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, cast

from docutils import nodes
from docutils.nodes import Node
from docutils.parsers.rst import directives
from docutils.parsers.rst.states import Inliner
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment
from sphinx.locale import _ as sphinx_text
from sphinx.locale import get_translation
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging, ws_re
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_id

from argmatrix import __version__
from argmatrix._runtime.files import read_page
from argmatrix._runtime.writer import write_all
from argmatrix.errors import ArgmatrixError, printable
from argmatrix.integrations.assets import SCRIPT, SPHINX_STYLESHEET, STYLESHEET, assets_folder
from argmatrix.integrations.common import load_engine_project, watched_paths
from argmatrix.model.platform import STATUS_ICONS, STATUS_LABELS
from argmatrix.model.spelling import find_section, section_spellings
from argmatrix.project import Project
from argmatrix.render.formats import OutputFormat
from argmatrix.render.formats import tree as tree_cells
from argmatrix.render.formats.myst import ENVVAR_ROLE, ROLE
from argmatrix.render.formats.shared import CODE, LINK, flag_names
from argmatrix.render.page_model import Row, SectionView
from argmatrix.render.rows import Cells
from argmatrix.render.support_pages import support_page as build_support_page
from argmatrix.render.tables import SERVER_LAYOUTS, Column, Table, TableLayouts
from argmatrix.render.views import SUPPORT_LAYOUTS, sections_of, server_page

CATALOG = "argmatrix"
_ = get_translation(CATALOG)
logger = logging.getLogger(__name__)

# The loaded project of each configuration file (absolute path), for this build process.
_PROJECTS: dict[str, Project] = {}
# The documents of generated pages about a platform: their flags are shown, not registered (the
# registry's own reference is where an option reference goes).
_PLATFORM_DOCS: set[str] = set()
# The documents of the generated pages argmatrix wrote all of the text of (not in-place ones).
_GENERATED_DOCS: set[str] = set()


def _stop(problems: list[str]) -> NoReturn:
    """End the build on an input error: each problem as one logged line naming its file and line,
    then exit code 2, as the `argmatrix` command does. (A raised exception would be printed by
    sphinx-build with its traceback and a request to report a bug in Sphinx.)"""
    for problem in problems:
        logger.error("argmatrix: %s", problem)
    raise SystemExit(2)


# ------------------------------------------------------------------ the project and its pages


def _config_path(config: SphinxConfig) -> str | None:
    value = config.argmatrix_config
    return str(value) if value else None


def _resolve_config_path(app: Sphinx, config: SphinxConfig) -> None:
    """`argmatrix_config` made absolute (it is relative to conf.py), and the `argmatrix`
    message catalog looked up in the project's `locale_dirs`."""
    if config.argmatrix_config:
        config.argmatrix_config = str((Path(app.confdir) / config.argmatrix_config).resolve())
    locale_dirs = [Path(app.srcdir) / d for d in config.locale_dirs]
    init_locale(locale_dirs, config.language, CATALOG)


def _registry_warning(text: str, docname: str | None = None) -> None:
    """A diagnostic of the registry that reaches a page (a value kept as source text): a Sphinx
    warning at the generated page that shows it, so `sphinx-build -W` fails on it
    (`suppress_warnings = ["argmatrix.registry"]` accepts it)."""
    logger.warning(
        "argmatrix: %s",
        printable(text),
        type="argmatrix",
        subtype="registry",
        location=docname,
    )


def _load(path: str, warnings: list[str] | None = None) -> Project:
    """The project; its registry's warnings logged at once, or kept in `warnings` (to be logged
    at the page that shows them)."""
    warn = warnings.append if warnings is not None else _registry_warning
    try:
        project = load_engine_project(Path(path), warn=warn)
    except ArgmatrixError as error:
        _stop([str(problem) for problem in error.problems])
    _PROJECTS[path] = project
    return project


def project_of(config: SphinxConfig) -> Project:
    """The project `argmatrix_config` names, loaded once per build."""
    path = _config_path(config)
    if path is None:
        raise ArgmatrixError.at(
            "no argmatrix configuration", file="conf.py", fix="set argmatrix_config in conf.py"
        )
    return _PROJECTS.get(path) or _load(path)


def generate_pages(app: Sphinx) -> None:
    """Render the configured pages and write those whose text changed into the source folder."""
    path = _config_path(app.config)
    if path is None:
        return
    warnings: list[str] = []
    project = _load(path, warnings)  # afresh on every build: the registry may have changed
    srcdir = Path(app.srcdir).resolve()
    _PLATFORM_DOCS.clear()
    _GENERATED_DOCS.clear()
    try:
        pages = project.pages()
    except ArgmatrixError as error:
        _stop([str(problem) for problem in error.problems])
    changed = []
    for page in pages:
        if not page.path.resolve().is_relative_to(srcdir):
            _stop(
                [
                    f"{project.config.line_of_page(page.spec)}: page {page.spec.output!r} is"
                    f" outside the Sphinx source folder {srcdir} (fix: make 'docs_dir' in"
                    f" {Path(path).name} the Sphinx source folder or a folder inside it)"
                ]
            )
        docname = page.path.resolve().relative_to(srcdir).with_suffix("").as_posix()
        if not page.spec.inplace:  # a hand-written page's prose around its regions is not ours
            _GENERATED_DOCS.add(docname)
        if page.spec.platform is not None:
            _PLATFORM_DOCS.add(docname)
        if _read(page.path) != page.text:
            changed.append((page.path, page.text))
    config = project.config
    try:
        written = write_all(changed, state_dir=config.project, inside=config.docs_dir)
    except ArgmatrixError as error:
        _stop([str(problem) for problem in error.problems])
    for written_path in written:
        logger.info("argmatrix: wrote %s", written_path.relative_to(srcdir))
    # A server-arguments page shows every argument: the registry's warnings are said there.
    shown_at = [
        page.path.resolve().relative_to(srcdir).with_suffix("").as_posix()
        for page in pages
        if page.spec.platform is None
    ]
    _PENDING[:] = [(text, shown_at[0] if shown_at else None) for text in warnings]


# The registry's warnings of this build and the page each is said at: logged once Sphinx has
# found the documents (`env-before-read-docs`), so the page is named by its own file.
_PENDING: list[tuple[str, str | None]] = []


def log_registry_warnings(app: Sphinx, env: object, docnames: list[str]) -> None:
    for text, docname in _PENDING:
        _registry_warning(text, docname)
    _PENDING.clear()


def _read(path: Path) -> str | None:
    try:
        return read_page(path)
    except ArgmatrixError:
        return None


# ------------------------------------------------------------------ options of the program


def program_of(env: BuildEnvironment, scope: str = "") -> str | None:
    """The program an option belongs to: the page's `program` directive, else
    `argmatrix_program`, else none; a subcommand's name after it, as Sphinx names it."""
    base = env.ref_context.get("std:program") or env.config.argmatrix_program or ""
    base = ws_re.sub("-", str(base).strip())
    return "-".join(part for part in (base, scope) if part) or None


def register_option(
    env: BuildEnvironment,
    document: nodes.document,
    program: str | None,
    flag: str,
    node: nodes.Element,
    index: bool = True,
) -> str:
    """Give `node` the id Sphinx's `option` directive gives `flag`, and, with `index`, make it
    the target of `option` references to `flag` of `program` (a search result too) and an entry
    of the general index, as that directive does. Returns the id."""
    prefixes = ["cmdoption"]
    if program:
        prefixes.append(program)
    if not flag.startswith(("-", "/")):
        prefixes.append("arg")
    node_id = make_id(env, document, "-".join(prefixes), flag)
    node["ids"].append(node_id)
    document.set_id(node)
    if index:
        cast(StandardDomain, env.get_domain("std")).add_program_option(
            program, flag, env.docname, node_id
        )
    return node_id


def option_index(program: str | None, flag: str, node_id: str) -> addnodes.index:
    """The general index's entries for an option, worded as Sphinx's `option` directive words
    them (in Sphinx's own catalog): "command line option; --port" and the pair's other half."""
    if program:
        described = sphinx_text("%s command line option") % program
    else:
        described = sphinx_text("command line option")
    return addnodes.index(entries=[("pair", f"{described}; {flag}", node_id, "", None)])


def register_envvar(
    env: BuildEnvironment, document: nodes.document, name: str, node: nodes.Element
) -> addnodes.index | None:
    """Make `node` the target of `envvar` references to `name`, a search result and an entry
    of the general index, as Sphinx's `envvar` directive does; the first one named wins (a
    variable shown twice is no duplicate description). None when it is already registered."""
    domain = cast(StandardDomain, env.get_domain("std"))
    if ("envvar", name) in domain.objects:
        return None
    node_id = make_id(env, document, "envvar", name)
    node["ids"].append(node_id)
    document.set_id(node)
    domain.note_object("envvar", name, node_id, location=node)
    return addnodes.index(
        entries=[
            ("single", name, node_id, "", None),
            ("single", sphinx_text("environment variable; %s") % name, node_id, "", None),
        ]
    )


# A literal whose flag is a target: the id its permalink goes to (`FlagPermalinks`).
PERMALINK = "argmatrix_permalink"


def option_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Inliner,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[Node], list[nodes.system_message]]:
    """`{argmatrix-option}`--flag`` (or `serve --flag`, a subcommand's): the flag as code,
    registered as an option of the program, in the index, with a permalink."""
    document = inliner.document
    env: BuildEnvironment = document.settings.env
    *scope, flag = text.split() or [""]
    node = nodes.literal(rawtext, flag, classes=["option", "argmatrix-option"])
    if not flag:
        return [node], []
    program = program_of(env, "-".join(scope))
    indexed = env.docname not in _PLATFORM_DOCS
    node_id = register_option(env, document, program, flag, node, indexed)
    node[PERMALINK] = node_id
    return ([option_index(program, flag, node_id), node] if indexed else [node]), []


def envvar_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Inliner,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[Node], list[nodes.system_message]]:
    """`{argmatrix-envvar}`NAME``: an argument's environment variable as code, the target of
    `{envvar}` references and an entry of the index (not on a platform's page)."""
    document = inliner.document
    env: BuildEnvironment = document.settings.env
    variable = text.strip()
    node = nodes.literal(rawtext, variable, classes=["argmatrix-envvar"])
    if not variable or env.docname in _PLATFORM_DOCS:
        return [node], []
    entry = register_envvar(env, document, variable, node)
    return ([entry, node] if entry is not None else [node]), []


class FlagPermalinks(SphinxPostTransform):
    """A permalink (the theme's `html_permalinks_icon`, ¶) after each flag that is a target,
    shown as Sphinx shows one after a heading or an option: HTML builders only, so the doctree
    (shared with other builders) holds none."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        if not self.config.html_permalinks:
            return
        icon = self.config.html_permalinks_icon
        title = sphinx_text("Link to this definition")
        for literal in list(self.document.findall(nodes.literal)):
            target = literal.get(PERMALINK)
            if not target or literal.parent is None:
                continue
            link = (
                f'<a class="headerlink argmatrix-permalink" href="#{target}"'
                f' title="{title}">{icon}</a>'
            )
            literal.parent.insert(
                literal.parent.index(literal) + 1, nodes.raw("", link, format="html")
            )


class GeneratedText(SphinxTransform):
    """What argmatrix writes reads as written: smartquotes never rewrites the text of a
    generated page, nor of an argument table in a hand-written one (an in-place region), so
    "bool flag (--a / --no-a)" keeps its dashes and `"auto"` its quotes. Argument tables (whose
    first column holds options, and every table of a generated page) get the class
    `argmatrix-table`, which the stylesheet and script lay out.
    Runs before Sphinx's SmartQuotes (priority 750)."""

    default_priority = 740

    def apply(self, **kwargs: Any) -> None:
        generated = self.env.docname in _GENERATED_DOCS
        if generated:
            self.document["support_smartquotes"] = False
        for table in self.document.findall(nodes.table):
            if generated or "argmatrix-table" in table["classes"] or _holds_options(table):
                table["support_smartquotes"] = False
                if "argmatrix-table" not in table["classes"]:
                    table["classes"].append("argmatrix-table")


def _holds_options(table: nodes.table) -> bool:
    return any("argmatrix-option" in literal["classes"] for literal in table.findall(nodes.literal))


# ------------------------------------------------------------------ the table directive

_TREE = cast(OutputFormat, tree_cells)  # the page model's cells as plain text and code parts
_LAYOUTS = TableLayouts(tree_cells.LINE_BREAK)


def _paragraphs(text: str) -> list[nodes.paragraph]:
    """A cell's lines (`LINE_BREAK`: a help's paragraphs, items and kept lines, a compact
    row's facts after its help), a paragraph each; one paragraph for an empty cell."""
    lines = [line for line in text.split(tree_cells.LINE_BREAK) if line]
    return [_paragraph(line) for line in lines] or [_paragraph("")]


def _paragraph(text: str) -> nodes.paragraph:
    paragraph = nodes.paragraph()
    for part, kind in tree_cells.spans(text):
        if kind == CODE:
            paragraph += nodes.literal(part, part)
        elif kind == LINK:
            paragraph += nodes.reference(part, part, refuri=part)
        else:
            paragraph += nodes.Text(part)
    return paragraph


def _table_node(columns: tuple[Column, ...], rows: list[nodes.row]) -> nodes.table:
    """A table of the page model; each heading carries its column's key (`am-column-KEY`),
    which the site's script reads to tell a status column from the others."""
    table = nodes.table(classes=["argmatrix-table"])
    group = nodes.tgroup(cols=len(columns))
    table += group
    for _column in columns:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    heading_row = nodes.row()
    for column in columns:
        heading_row += nodes.entry(
            "", nodes.paragraph(text=_heading(column)), classes=[f"am-column-{column.key}"]
        )
    head += heading_row
    body = nodes.tbody()
    body.extend(rows)
    group += head
    group += body
    return table


class ArgmatrixDirective(SphinxDirective):
    """One section's table, of the registry or on a platform."""

    has_content = False
    option_spec = {  # noqa: RUF012 (docutils reads it from the class)
        "section": directives.unchanged_required,
        "platform": directives.unchanged_required,
        "layout": directives.unchanged_required,
        "no-index": directives.flag,
    }

    def run(self) -> list[Node]:
        try:
            return self._run()
        except ArgmatrixError as error:
            for problem in error.problems:
                self._warn(f"{problem.message}" + (f" (fix: {problem.fix})" if problem.fix else ""))
            return []

    def _warn(self, message: str) -> None:
        logger.warning(
            f"argmatrix: {message}",
            location=(self.env.docname, self.lineno),
            type="argmatrix",
            subtype="directive",
        )

    def _run(self) -> list[Node]:
        project = project_of(self.config)
        for path in watched_paths(project):
            if path.is_file():
                self.env.note_dependency(str(path))
        section = self.options.get("section")
        registry = project.registry
        found = find_section(registry, section) if section else None
        if found is None:
            shown = f"unknown section {section!r}" if section else "no :section: given"
            known = ", ".join(section_spellings(registry))
            self._warn(f"{shown} (fix: use a registry section: {known})")
            return []
        scope, title = found
        code = _TREE.FILTERS["code"]
        platform = self.options.get("platform")
        config = project.config
        cells = Cells(_TREE, config.display.facts(registry, str(config.file or "argmatrix.yaml")))
        if platform is None:
            layout = self.options.get("layout", "table")
            if layout not in SERVER_LAYOUTS:
                shown = ", ".join(SERVER_LAYOUTS)
                self._warn(f"unknown layout {layout!r} (fix: use one of: {shown})")
                return []
            server = server_page(registry, cells)
            views = [s for s in sections_of(server, scope.words, code) if _of(s, title)]
            return [self._table(_LAYOUTS.server(views[0].rows, layout=layout))] if views else []
        if platform not in project.resolved:
            known = ", ".join(sorted(project.resolved)) or "no manifests loaded"
            self._warn(f"unknown platform {platform!r} (fix: use one of: {known})")
            return []
        layout = self.options.get("layout", "status")
        if layout not in SUPPORT_LAYOUTS:
            self._warn(f"unknown layout {layout!r} (fix: use one of: {', '.join(SUPPORT_LAYOUTS)})")
            return []
        page = build_support_page(registry, project.resolved[platform], layout, cells=cells)
        views = [s for s in sections_of(page, scope.words, code) if _of(s, title)]
        return [self._table(_LAYOUTS.support(views[0], page))] if views else []

    def _flags(self, row: Row, table_row: nodes.row) -> nodes.paragraph:
        """The flags of a row, each registered as an option; the row is the first one's
        target, so a reference to the argument lands on its row."""
        paragraph = nodes.paragraph()
        program = program_of(self.env)
        index = "no-index" not in self.options and "platform" not in self.options
        for number, flag in enumerate(flag_names(row.argument)):
            if number:
                paragraph += nodes.Text(", ")
            literal = nodes.literal(flag, flag, classes=["option"])
            target = table_row if number == 0 else literal
            node_id = register_option(self.env, self.state.document, program, flag, target, index)
            literal[PERMALINK] = node_id
            if index:
                paragraph += option_index(program, flag, node_id)
            paragraph += literal
        for value, _kind in tree_cells.spans(row.value):  # what a user types after the flag
            paragraph += nodes.Text(" ")
            paragraph += nodes.literal(value, value, classes=["argmatrix-value"])
        return paragraph

    def _envvars(self, row: Row) -> nodes.paragraph:
        """A row's environment variables, each a target of `envvar` references and an entry
        of the index (not on a platform's table, nor with `:no-index:`)."""
        paragraph = nodes.paragraph()
        index = "no-index" not in self.options and "platform" not in self.options
        for number, (variable, _kind) in enumerate(tree_cells.spans(row.env)):
            if number:
                paragraph += nodes.Text(", ")
            for name_number, name in enumerate(variable.split(", ")):
                if name_number:
                    paragraph += nodes.Text(", ")
                literal = nodes.literal(name, name, classes=["argmatrix-envvar"])
                entry = (
                    register_envvar(self.env, self.state.document, name, literal) if index else None
                )
                if entry is not None:
                    paragraph += entry
                paragraph += literal
        return paragraph

    def _table(self, table: Table) -> nodes.table:
        rows = [
            self._body_row(row, table.columns, cells)
            for row, cells in zip(table.rows, table.cells, strict=True)
        ]
        return _table_node(table.columns, rows)

    def _body_row(self, row: Row, columns: tuple[Column, ...], cells: tuple[str, ...]) -> nodes.row:
        table_row = nodes.row()
        for column, text in zip(columns, cells, strict=True):
            if column.key == "argument":
                table_row += nodes.entry("", self._flags(row, table_row))
            elif column.key == "env" and row.env:
                table_row += nodes.entry("", self._envvars(row))
            else:
                table_row += nodes.entry("", *_paragraphs(_label(text) if column.label else text))
        return table_row


def _heading(column: Column) -> str:
    """A column's heading, translated unless it is a platform variant's name (the catalog's
    messages are the headings of `render/tables.py` and `_LABELS`)."""
    return column.heading if column.key == "variant" else str(_(column.heading))


# Cells that are one of argmatrix's own labels (a status, a variant's mark): translated.
_LABELS = frozenset({*STATUS_LABELS.values(), "required"})


def _label(text: str) -> str:
    """A label cell translated: a label, or a status's symbol and word (`✓ Supported (A2)`),
    whose word is translated and what follows kept."""
    if text in _LABELS:
        return str(_(text))
    icon, _space, rest = text.partition(" ")
    for label in STATUS_LABELS.values():
        if icon in _ICONS and (rest == label or rest.startswith(label + " (")):
            return f"{icon} {_(label)}{rest[len(label) :]}"
    return text


_ICONS = frozenset(STATUS_ICONS.values())


def _of(section: SectionView, name: str) -> bool:
    return bool(section.rows) and section.rows[0].argument.section == name


# ------------------------------------------------------------------ setup


def _add_assets(app: Sphinx) -> None:
    """The site's stylesheets and script (HTML builders): argument tables that fit the theme's
    text column, flags never broken inside, cards on a phone or where a table would not fit."""
    if app.builder.format != "html":
        return
    folder = assets_folder()
    if folder not in app.config.html_static_path:
        app.config.html_static_path.append(folder)
    app.add_css_file(STYLESHEET)
    app.add_css_file(SPHINX_STYLESHEET)
    app.add_js_file(SCRIPT, defer="defer")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("argmatrix_config", None, "env", types=frozenset({str, type(None)}))
    app.add_config_value("argmatrix_program", None, "env", types=frozenset({str, type(None)}))
    app.add_directive("argmatrix", ArgmatrixDirective)
    app.add_role(ROLE, option_role)
    app.add_role(ENVVAR_ROLE, envvar_role)
    app.add_transform(GeneratedText)
    app.add_post_transform(FlagPermalinks)
    app.connect("config-inited", _resolve_config_path)
    app.connect("builder-inited", generate_pages)
    app.connect("builder-inited", _add_assets)
    app.connect("env-before-read-docs", log_registry_warnings)
    return {
        "version": __version__,
        "env_version": 2,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }


__all__ = [
    "ArgmatrixDirective",
    "envvar_role",
    "option_role",
    "register_envvar",
    "register_option",
    "setup",
]
