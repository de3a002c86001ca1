"""What a YAML file is read into: mappings and lists that remember the line of each entry, and
the bounds of reading. No PyYAML here: the configuration's modules import `line_of` on every
run, and a parsed file comes back from the cache in these containers.
"""

from __future__ import annotations

from typing import Any


class Located(dict):  # type: ignore[type-arg]
    """A mapping that remembers the line of each key (1-based) and of itself."""

    line: int = 0
    key_lines: dict[Any, int]
    duplicates: list[tuple[Any, int]]

    def line_of(self, key: Any) -> int:
        return self.key_lines.get(key, self.line)


class LocatedList(list):  # type: ignore[type-arg]
    line: int = 0
    item_lines: list[int]


# Real manifests and configurations nest 4 or 5 levels and use an alias a few times.
MAX_DEPTH = 64
MAX_ALIAS_NODES = 100_000


def line_of(container: Any, key: Any = None) -> int | None:
    if isinstance(container, Located):
        return container.line_of(key) if key is not None else container.line
    if isinstance(container, LocatedList):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return None
