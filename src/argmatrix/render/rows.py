"""The registry's rows of the page model: each argument's cells (flags, description, default,
type or options, environment variable, stability, the exclusive groups it is in), escaped once
per render in the page's format however many pages and platforms show them (`Cells`), by
section, with the anchors a row and a section get."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from argmatrix.config import DisplayFacts
from argmatrix.model.registry import (
    ARGPARSE,
    Argument,
    Registry,
    Unevaluated,
)
from argmatrix.model.usage import exclusive_peers, value_form
from argmatrix.model.values import shows_default
from argmatrix.render.formats import FORMATS, OutputFormat
from argmatrix.render.formats.shared import anchor, flag_names
from argmatrix.render.formats.shared import shaped as shaped_cell
from argmatrix.render.page_model import (
    Row,
    RowParts,
)

_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


# Where a platform's cells (status, marks, note, reason) go in a `Row`, and where the registry's
# cells after them start (`replacement`: "" in a support page's row).
_PLATFORM = Row._fields.index("status")


_REPLACEMENT = Row._fields.index("replacement")


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
    and platforms show them, in one output format (Markdown unless told)."""

    def __init__(
        self, output_format: OutputFormat | None = None, display: DisplayFacts | None = None
    ) -> None:
        self.format: OutputFormat = output_format or FORMATS["markdown"]
        self.display = display  # the configuration's env vars, `types:`, computed defaults
        self._rows: dict[int, tuple[Argument, Row]] = {}
        self._values: dict[int, str] = {}  # each row's value form, as text (`unscoped`)
        self._sections: dict[int, tuple[Registry, dict[str, list[Argument]]]] = {}
        self._section_rows: dict[int, tuple[Registry, dict[str, list[Row]]]] = {}
        self._support_parts: dict[int, tuple[Registry, dict[str, list[RowParts]]]] = {}

    def sections(self, registry: Registry) -> dict[str, list[Argument]]:
        cached = self._sections.get(id(registry))
        if cached is None or cached[0] is not registry:
            titles = self.display.display.section_title() if self.display is not None else None
            cached = self._sections[id(registry)] = (registry, by_section(registry, titles))
        return cached[1]

    def section_rows(self, registry: Registry, scope: str = "") -> dict[str, list[Row]]:
        """The rows of `sections`; `scope` prefixes their anchors (a subcommand's)."""
        cached = self._section_rows.get(id(registry))
        if cached is None or cached[0] is not registry:
            rows = {
                title: [self.row(a, scope, registry) for a in arguments]
                for title, arguments in self.sections(registry).items()
            }
            cached = self._section_rows[id(registry)] = (registry, rows)
        return cached[1]

    def support_parts(self, registry: Registry, words: str = "") -> dict[str, list[RowParts]]:
        """The rows of `section_rows` cut where a platform's cells go, once per render for every
        platform's page (`support_page`); `words`: a subcommand's (`serve `), which its
        arguments' spellings (a platform's keys) start with."""
        cached = self._support_parts.get(id(registry))
        if cached is None or cached[0] is not registry:
            scope = "".join(anchor(word) for word in words.split())  # as `server_page` makes it
            parts = {
                title: [
                    RowParts(words + row.argument.name, row, row[:_PLATFORM], row[_REPLACEMENT:])
                    for row in rows
                ]
                for title, rows in self.section_rows(registry, scope).items()
            }
            cached = self._support_parts[id(registry)] = (registry, parts)
        return cached[1]

    def unscoped(self, row: Row, scope: str = "") -> Row:
        """A subcommand's row as the top command's: its anchor without the subcommand's (with
        `scope`, under that one instead: `bench` for a row the commands of `vllm bench` share)."""
        argument = row.argument
        value = self._values.get(id(argument), "")
        return row._replace(
            anchor=scoped_anchor(scope, argument.name),
            flags=self.format.flags_cell(argument, scope, value),
        )

    def row(self, argument: Argument, scope: str = "", registry: Registry | None = None) -> Row:
        """`scope` prefixes the anchor: a subcommand's `--port` is `serve--port`, its positional
        `model` `serve-model`. `registry`: the argument's own, which says how its value is
        written and which arguments exclude it (without it, neither is said)."""
        cached = self._rows.get(id(argument))
        if cached is not None and cached[0] is argument:
            return cached[1]
        fmt, display = self.format, self.display
        value = _value_form(argument, registry)
        if value:
            self._values[id(argument)] = value
        exclusive = _exclusive_note(fmt, registry, argument) if registry is not None else ""
        configured = display.help_of(argument) if display else None
        computed = display.computed_of(argument) if display else None
        helped = _help_with_computed_default(argument, computed)
        description = _description(fmt, helped, configured, shaped=True)
        plain_description = (
            _description(fmt, helped, configured) if _has_shape(helped) else description
        )
        variable = display.variable_of(argument) if display else ""
        computed_cell = fmt.FILTERS["cell"](computed) if computed else ""
        tag = display.stability_of(argument) if display else ""
        choices_text = display.choices_of(argument) if display else None
        options = (
            fmt.FILTERS["cell"](choices_text)
            if choices_text
            else fmt.type_options_cell(argument, None, display.types if display else None)
        )
        code = fmt.FILTERS.get("table_code", fmt.FILTERS["code"])
        value_cell = code(value) if value else ""
        plain = ", ".join(map(code, flag_names(argument)))
        row = Row(
            argument=argument,
            anchor=scoped_anchor(scope, argument.name),
            flags=fmt.flags_cell(argument, scope, value),
            description=_with_note(description, exclusive),
            plain_description=_with_note(plain_description, exclusive),
            default=computed_cell or _default_cell(fmt, argument, registry),
            options=options,
            env=fmt.FILTERS.get("envvar", code)(variable) if variable else "",
            computed=computed_cell,
            stability=fmt.FILTERS["cell"](tag) if tag else "",
            plain_flags=f"{plain} {value_cell}" if value_cell else plain,
            value=value_cell,
            exclusive=exclusive,
        )
        self._rows[id(argument)] = (argument, row)
        return row


def _default_cell(fmt: OutputFormat, argument: Argument, registry: Registry | None) -> str:
    """The Default cell: "required", the default, or "" where there is none to show (None, on
    every page kind and in every format; for Click, what its help shows none of either)."""
    framework = registry.framework if registry is not None else ARGPARSE
    if not argument.required and not shows_default(argument.default, framework):
        return ""
    return fmt.default_cell(argument.default, argument)


def scoped_anchor(scope: str, name: str) -> str:
    """An argument's anchor: its name's, after its subcommand's (`serve--port`; a positional's
    with a hyphen between, `serve-model`)."""
    own = anchor(name)
    if scope and not own.startswith("-"):
        return f"{scope}-{own}"
    return scope + own


def _value_form(argument: Argument, registry: Registry | None) -> str:
    """The value form the Argument cell ends with: "" without the registry (its framework
    says how it is written), for a switch, and for a positional that its name already says
    (`model`: no more than the name)."""
    if registry is None:
        return ""
    form = value_form(argument, registry.framework)
    if argument.positional and form == flag_names(argument)[0]:
        return ""
    return form


# How a page says an exclusive group of the argument's: "At most one of `--a`, `--b`."
EXCLUSIVE_TEXT = "At most one of {}."


REQUIRED_EXCLUSIVE_TEXT = "Exactly one of {} is required."


def _exclusive_note(fmt: OutputFormat, registry: Registry, argument: Argument) -> str:
    """The sentences saying which arguments exclude this one (its exclusive groups with more
    than one visible argument), escaped in the page's format."""
    if not registry.exclusive_groups:
        return ""
    cell, code = fmt.FILTERS["cell"], fmt.FILTERS["code"]
    said = []
    for group, names in exclusive_peers(registry, argument):
        if len(names) < 2:
            continue
        text = REQUIRED_EXCLUSIVE_TEXT if group.required else EXCLUSIVE_TEXT
        before, _, after = text.partition("{}")
        listed = ", ".join(code(name) for name in names)
        said.append(f"{cell(before)} {listed}{_spaced_tail(cell(after))}")
    return " ".join(said)


def _spaced_tail(text: str) -> str:
    """The words after a list of code spans: a space before a word, none before a full stop."""
    return text if not text or text[0] in ".,;" else f" {text}"


# What a help text computed when the server starts reads as, before its source (a code span):
# never the source as if it were the project's prose (`computed:` in argmatrix.yaml gives words).
COMPUTED_HELP = "Computed when the server starts:"


def _description(
    fmt: OutputFormat, argument: Argument, configured: str | None, shaped: bool = False
) -> str:
    """The Description cell: the configuration's text for a help computed at run time, a marker
    and the source as code for one without, else the help as prose; `shaped`: with its
    paragraphs, lists and kept lines (the format's line break between them)."""
    if configured:
        return fmt.FILTERS["prose"](configured)
    if isinstance(argument.help, Unevaluated):
        return f"{fmt.FILTERS['cell'](COMPUTED_HELP)} {fmt.FILTERS['code'](argument.help.source)}"
    if shaped:
        return shaped_cell(fmt.FILTERS["prose"], argument.help, fmt.LINE_BREAK)
    return fmt.FILTERS["prose"](argument.help)


def _help_with_computed_default(argument: Argument, computed: str | None) -> Argument:
    """The argument with its help saying the configuration's words for a default computed at
    run time (`computed_defaults:`) where `%(default)s` put the default's source text:
    "Workers (default: one per GPU)", as the Default cell says."""
    default, text = argument.default, argument.help
    if not computed or not isinstance(default, Unevaluated) or not isinstance(text, str):
        return argument
    source = str(default)
    return replace(argument, help=text.replace(source, computed)) if source in text else argument


def _has_shape(argument: Argument) -> bool:
    """Whether a help has lines whose shape a cell keeps (else its one line is the same)."""
    return isinstance(argument.help, str) and ("\n" in argument.help or "\r" in argument.help)


def _with_note(description: str, note: str) -> str:
    return f"{description} {note}" if description and note else (description or note)


def by_section(
    registry: Registry, titles: Mapping[str, str] | None = None
) -> dict[str, list[Argument]]:
    """Visible arguments per section, in registry order; with `titles` (`section_titles:`),
    the sections it names first, in its order and under its titles (sections given one title
    are one: the first one's arguments, then the next one's), then the others as they were."""
    sections = _by_registry_section(registry)
    if not titles:
        return sections
    shown: dict[str, list[Argument]] = {title: [] for title in titles.values()}
    for title, arguments in sections.items():
        shown.setdefault(titles.get(title, title), []).extend(arguments)
    return shown


def _by_registry_section(registry: Registry) -> dict[str, list[Argument]]:
    sections: dict[str, list[Argument]] = {title: [] for title in registry.sections}
    for argument in registry.arguments:
        if not argument.hidden:
            sections.setdefault(argument.section, []).append(argument)
    return sections


def section_anchor(title: str) -> str:
    return anchor(title.lower().replace(" ", "-"))
