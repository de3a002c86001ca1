"""YAML reading that keeps line numbers, so every problem can name `file:line`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import ArgmatrixError, Problem, read_user_file


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


# libyaml's parser where PyYAML was built with it: ten times faster on large manifests.
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> Located:
    loader.flatten_mapping(node)
    mapping = Located()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    mapping.duplicates = []
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "found an unhashable key", key_node.start_mark
            ) from None
        line = key_node.start_mark.line + 1
        if key in mapping:
            mapping.duplicates.append((key, line))
        mapping.key_lines.setdefault(key, line)
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode, deep: bool = False) -> LocatedList:
    items = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    items.line = node.start_mark.line + 1
    items.item_lines = [child.start_mark.line + 1 for child in node.value]
    return items


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml_text(text: str, where: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at_end = mark is not None and mark.line >= len(text.splitlines())
        if at_end and exc.context_mark is not None:
            mark = exc.context_mark  # the parser ran to the end: name where the open thing began
        line = mark.line + 1 if mark else None
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        if at_end and exc.context:
            problem = f"{problem} ({exc.context.strip()} that is never closed)"
        raise ArgmatrixError(
            Problem(f"malformed YAML: {problem}", where, line, "fix the YAML syntax")
        ) from None
    except yaml.YAMLError as exc:
        raise ArgmatrixError(Problem(f"malformed YAML: {exc}", where, None)) from None


def load_yaml_file(path: Path) -> Any:
    text = read_user_file(path, "file", "check the path in argmatrix.yaml or on the command line")
    return load_yaml_text(text, str(path))


def line_of(container: Any, key: Any = None) -> int | None:
    if isinstance(container, Located):
        return container.line_of(key) if key is not None else container.line
    if isinstance(container, LocatedList):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return None
