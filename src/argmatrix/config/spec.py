"""The values a configuration is read into: `Config`, `PageSpec`, `CoverageSpec` and
`AllowedFlag`. A page's output format is one of `render.formats.FORMATS`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from argmatrix.config.compatibility import CompatibilitySpec, Stability
from argmatrix.config.display import Display
from argmatrix.loaders.load import RegistrySpec
from argmatrix.render.formats import format_of


@dataclass(frozen=True)
class PageSpec:
    """A page of `pages:`: its template, where it goes (`output`, relative to docs_dir) and
    how it is rendered and checked."""

    template: str
    output: str  # relative to docs_dir
    platform: str | None = None
    title: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    inplace: bool = False
    line: int | None = None
    committed: bool = True  # False: a build output (git-ignored); check does not compare it
    output_line: int | None = None  # the line of 'output:', where errors about it point
    format: str | None = None  # a key of FORMATS; None: from the output's extension
    # An `argmatrix history` facts file (relative to the configuration): an "Added in" column.
    history: str | None = None

    @property
    def output_format(self) -> str:
        """The page's format: as configured, else by the output's extension."""
        return self.format or format_of(self.output)


@dataclass(frozen=True)
class AllowedFlag:
    """An entry of a coverage page's `allow_undocumented` list, and its line."""

    flag: str
    line: int | None


@dataclass(frozen=True)
class CoverageSpec:
    """A hand-maintained page whose tables must have a row for every flag of the registry
    (`checks.coverage` in argmatrix.yaml; checks/coverage.py checks it)."""

    page: str  # as written, relative to docs_dir
    path: Path  # docs_dir / page
    allowed: tuple[AllowedFlag, ...] = ()
    columns: int | None = None  # cells every row must have; None: its table's header's
    format: str = "markdown"  # a key of FORMATS: how the page is read
    line: int | None = None  # the line of the entry
    page_line: int | None = None  # the line of 'page:'
    allow_line: int | None = None  # the line of 'allow_undocumented:'
    # What each row is compared with the registry on, as `argmatrix audit` does (`compare:`).
    compare: tuple[str, ...] = ("defaults", "options", "types")


@dataclass(frozen=True)
class Config:
    """argmatrix.yaml, read and checked: where the registry, the manifests and the pages are,
    and what `check` reports."""

    file: Path | None
    root: Path
    registry: RegistrySpec | None
    manifests: tuple[Path, ...]
    docs_dir: Path
    templates_dir: Path
    pages: tuple[PageSpec, ...]
    severity: dict[str, str] = field(default_factory=dict)
    prose_globs: tuple[str, ...] = ("**/*.md",)
    ignore_flags: tuple[str, ...] = ()  # flags of other tools that prose may mention
    docs_dir_line: int | None = None  # where argmatrix.yaml names docs_dir, for its errors
    project_dir: Path | None = None  # see `project_folder`; None: `root`
    coverage: tuple[CoverageSpec, ...] = ()  # hand-maintained pages `check` holds to the registry
    display: Display = field(default_factory=lambda: Display())  # env vars, types, computed
    # checks.compatibility: the command line held to a baseline snapshot.
    compatibility: CompatibilitySpec | None = None

    @property
    def stability(self) -> Stability | None:
        """`stability:`, which the pages show and the compatibility check holds to."""
        return self.display.stability

    @property
    def project(self) -> Path:
        """The folder nothing is read from or written to outside of (symbolic links resolved)."""
        return self.project_dir or Path(os.path.realpath(self.root))

    def for_another_registry(self) -> Config:
        """This configuration for a registry the command line names instead of the configured
        one (`--registry` of another target): none of the settings that name the configured
        registry's flags or sections (its manifests, `computed_defaults:`, `computed:`,
        `stability:`, `section_titles:`, `environment: arguments`, `checks.compatibility`,
        `checks.coverage`); the pages, `types:` and how variables are named stay."""
        display = self.display
        return replace(
            self,
            manifests=(),
            coverage=(),
            compatibility=None,
            display=replace(
                display,
                environment=replace(display.environment, arguments=()),
                computed=(),
                computed_help=(),
                computed_choices=(),
                stability=None,
                section_titles=(),
            ),
        )

    def history_file(self, page: PageSpec) -> Path | None:
        """Where a page's history facts are read from: relative to the configuration."""
        return self.root / page.history if page.history else None

    def history_files(self) -> list[Path]:
        return sorted({path for page in self.pages if (path := self.history_file(page))})

    def line_of_page(self, page: PageSpec) -> str:
        return f"{self.file}:{page.line}" if self.file and page.line else str(self.file or "")
