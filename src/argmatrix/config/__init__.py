"""`argmatrix.yaml`: where the registry, the manifests and the pages are.

One module per part of the file, each over the ones below it (import-linter holds the order):
`load` (finding and loading the file, the project folder, `docs_dir`, `templates_dir`,
`manifests`), `checks` (`checks:`), `pages` (`pages:`) and `registry` (`registry:`), `spec`
(the values: `Config`, `PageSpec`, `CoverageSpec`), `display` (how arguments are shown:
`environment:`, `types:`, `computed_defaults:`), `compatibility` (`checks.compatibility` and
`stability:`), `fields` (checks of fields they share).
"""

from __future__ import annotations

from argmatrix.config.checks import (
    CHECK_KEYS,
    CHECK_KINDS,
    COVERAGE_KEYS,
    MAX_COLUMNS,
    SEVERITIES,
)
from argmatrix.config.compatibility import (
    COMPATIBILITY_KEYS,
    STABILITY_KEYS,
    STABILITY_TAGS,
    Accepted,
    CompatibilitySpec,
    Stability,
    Tagged,
)
from argmatrix.config.display import (
    COMPUTED_FIELDS,
    ENVIRONMENT_KEYS,
    Display,
    DisplayFacts,
    Environment,
    Named,
)
from argmatrix.config.load import (
    CONFIG_NAME,
    TOP_KEYS,
    find_config,
    load_config,
    other_configurations,
    project_folder,
)
from argmatrix.config.pages import PAGE_KEYS
from argmatrix.config.registry import REGISTRY_KEYS
from argmatrix.config.spec import (
    AllowedFlag,
    Config,
    CoverageSpec,
    PageSpec,
)

__all__ = [
    "CHECK_KEYS",
    "CHECK_KINDS",
    "COMPATIBILITY_KEYS",
    "COMPUTED_FIELDS",
    "CONFIG_NAME",
    "COVERAGE_KEYS",
    "ENVIRONMENT_KEYS",
    "MAX_COLUMNS",
    "PAGE_KEYS",
    "REGISTRY_KEYS",
    "SEVERITIES",
    "STABILITY_KEYS",
    "STABILITY_TAGS",
    "TOP_KEYS",
    "Accepted",
    "AllowedFlag",
    "CompatibilitySpec",
    "Config",
    "CoverageSpec",
    "Display",
    "DisplayFacts",
    "Environment",
    "Named",
    "PageSpec",
    "Stability",
    "Tagged",
    "find_config",
    "load_config",
    "other_configurations",
    "project_folder",
]
