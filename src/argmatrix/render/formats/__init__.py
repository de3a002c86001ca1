"""Output formats: one module per format, holding everything that depends on the syntax of
the page being written, and `FORMATS`, the one list of them.

A format module declares what it is: its name (`NAME`, the value of a page's `format:`), who
reads it (`DESCRIPTION`), the outputs that are of that format without `format:`
(`OUTPUT_SUFFIXES`), the escaping filters templates use (`FILTERS`: `cell`, `prose`, `code`,
`anchor`, `code_block`), the table cells the page model is built from (`flags_cell`,
`default_cell`, `type_options_cell`, `status_cell`), how a table cell holds a second line
(`LINE_BREAK`), the name of its bundled table macros (`TABLE_MACROS`, which write out the tables
of `render/tables.py`), how an in-place region is marked in a hand-written page (`REGION`) and
what of a whole page such a region holds (`embedded`). There are three: `markdown` (MkDocs and
any CommonMark site), `mdx` (Mintlify and any MDX site) and `myst` (Sphinx with myst-parser). The
cells are written once, in `shared.CellWriter`, with each format's escaping.

A new format is a module beside them, registered below, and its bundled templates in
`render/templates/`. The configuration reads `FORMATS` (a page's `format:`, the default by
extension, the JSON Schema), so this package is a layer below `config/`: it imports only the
model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any, Protocol, cast

from argmatrix.model.platform import Resolved
from argmatrix.model.registry import Argument
from argmatrix.render.formats import markdown, mdx, myst
from argmatrix.render.formats.shared import RegionSyntax


class OutputFormat(Protocol):
    """What the configuration and the render path need of a format module."""

    NAME: str
    DESCRIPTION: str
    OUTPUT_SUFFIXES: tuple[str, ...]
    FILTERS: dict[str, Callable[..., str]]
    LINE_BREAK: str
    TABLE_MACROS: str
    REGION: RegionSyntax

    def flags_cell(self, argument: Argument, scope: str = "", value: str = "") -> str: ...

    def default_cell(self, value: Any, argument: Argument | None = None) -> str: ...

    def type_options_cell(
        self,
        argument: Argument,
        options: Iterable[Any] | None = None,
        names: Mapping[str, str] | None = None,
    ) -> str: ...

    def status_cell(self, resolved: Resolved, variants: tuple[str, ...]) -> str: ...

    def embedded(self, page: str) -> str: ...


_MEMBERS = (
    *OutputFormat.__annotations__,
    *(name for name, value in vars(OutputFormat).items() if callable(value) and name[0] != "_"),
)

# The page formats, by name: what a page's `format:` may say.
FORMATS: dict[str, OutputFormat] = {}
# A page whose output no format claims (by `OUTPUT_SUFFIXES`) and that has no `format:`.
DEFAULT_FORMAT = "markdown"


def register(module: ModuleType) -> OutputFormat:
    """Make `module` the writer of the pages of its format (`module.NAME`). A module that lacks
    a name the render path reads is refused here, when argmatrix starts, not when a page of
    its format first renders."""
    missing = [name for name in _MEMBERS if not hasattr(module, name)]
    if missing:
        raise TypeError(f"format module {module.__name__} lacks {', '.join(missing)}")
    output_format = cast(OutputFormat, module)
    FORMATS[output_format.NAME] = output_format
    return output_format


register(markdown)
register(mdx)
register(myst)


def format_of(output: str) -> str:
    """The format of a page without `format:`: the first whose `OUTPUT_SUFFIXES` end its output
    (any case), else Markdown."""
    lowered = output.lower()
    for name, output_format in FORMATS.items():
        if output_format.OUTPUT_SUFFIXES and lowered.endswith(output_format.OUTPUT_SUFFIXES):
            return name
    return DEFAULT_FORMAT


def described() -> str:
    """The formats and who reads each, in words (for the JSON Schema): "markdown (MkDocs, ...),
    mdx (...) or myst (...)"."""
    each = [f"{name} ({output_format.DESCRIPTION})" for name, output_format in FORMATS.items()]
    return " or ".join([", ".join(each[:-1]), each[-1]] if len(each) > 1 else each)


def default_rule() -> str:
    """How `format_of` decides, in words (for an error's fix): "an .mdx output is mdx and any
    other is markdown"."""
    claims = [
        f"an {suffix} output is {name}"
        for name, output_format in FORMATS.items()
        for suffix in output_format.OUTPUT_SUFFIXES
    ]
    return " and ".join([*claims, f"any other is {DEFAULT_FORMAT}"])
