"""Output formats: one module per format, holding everything that depends on the syntax of
the page being written.

A format module provides the escaping filters templates use (`FILTERS`: `cell`, `code`,
`anchor`, `code_block`), the table cells the page model is built from (`flags_cell`,
`default_cell`, `type_options_cell`, `status_cell`), the name of its bundled table macros
(`TABLE_MACROS`), how an in-place region is marked in a hand-written page (`REGION`) and what of a
whole page such a region holds (`embedded`). There are three: `markdown` (MkDocs and any
CommonMark site), `mdx` (Mintlify and any MDX site) and `myst` (Sphinx with myst-parser). The
cells are written once, in `shared.CellWriter`, with each format's escaping. A new format is a
module beside them with the same names, an entry in `FORMATS` and in `config.PAGE_FORMATS`, and
its bundled templates in `render/templates/`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any, Protocol, cast

from argmatrix.config import PAGE_FORMATS
from argmatrix.model.platform import Resolved
from argmatrix.model.registry import Argument
from argmatrix.render.formats import markdown, mdx, myst
from argmatrix.render.formats.shared import RegionSyntax


class OutputFormat(Protocol):
    """What the render path needs of a format module."""

    FILTERS: dict[str, Callable[..., str]]
    TABLE_MACROS: str
    REGION: RegionSyntax

    def flags_cell(self, argument: Argument, scope: str = "") -> str: ...

    def default_cell(self, value: Any, argument: Argument | None = None) -> str: ...

    def type_options_cell(
        self,
        argument: Argument,
        options: Iterable[Any] | None = None,
        names: Mapping[str, str] | None = None,
    ) -> str: ...

    def status_cell(self, resolved: Resolved, variants: tuple[str, ...]) -> str: ...

    def embedded(self, page: str) -> str: ...


def _as_format(module: ModuleType) -> OutputFormat:
    return cast(OutputFormat, module)


FORMATS: dict[str, OutputFormat] = {
    "markdown": _as_format(markdown),
    "mdx": _as_format(mdx),
    "myst": _as_format(myst),
}
assert tuple(FORMATS) == PAGE_FORMATS  # the configuration accepts exactly these
