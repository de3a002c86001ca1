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
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"  # a bare `=` key, text to PyYAML's safe loader
_MAP = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_SEQ = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG


class _Unreadable(yaml.constructor.ConstructorError):
    """A scalar YAML types (a date, say) whose text is not a valid value of that type."""


class _Builder:
    """Turns the composed node tree into `Located` containers.

    PyYAML composes the tree (libyaml parses, the resolver types each plain scalar); building the
    containers here rather than through its generic constructor halves the time a large manifest
    takes, since the constructor's bookkeeping costs more than the parsing. Scalars other than
    text still go through the constructor, so `yes`, `1e3` or dates mean what YAML says.
    """

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.done: dict[int, Any] = {}  # an anchored node used twice is built once
        self.open: set[int] = set()

    def build(self, node: yaml.Node) -> Any:
        built = self.done.get(id(node))
        if built is not None:
            return built
        if id(node) in self.open:
            raise yaml.constructor.ConstructorError(
                None, None, "an alias refers to a node that contains it", node.start_mark)
        if node.tag == _STR and isinstance(node, yaml.ScalarNode):
            return node.value
        self.open.add(id(node))
        if node.tag == _MAP and isinstance(node, yaml.MappingNode):
            built = self.mapping(node)
        elif node.tag == _SEQ and isinstance(node, yaml.SequenceNode):
            built = self.sequence(node)
        else:
            built = self.scalar(node)
        self.open.discard(id(node))
        self.done[id(node)] = built
        return built

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.YAMLError:
            raise
        except Exception as exc:  # PyYAML's own failures on e.g. 2020-13-45 or an empty !!int
            raise _Unreadable(
                None, None, f"cannot read {node.value!r}: {exc or type(exc).__name__}", node.start_mark) from None

    def mapping(self, node: yaml.MappingNode) -> Located:
        """Keys named twice are recorded (the last value wins, the first line is kept). Keys
        merged in with `<<` come first, in YAML's order of precedence; a key of the mapping's
        own then overrides one merged in, which is no repetition."""
        mapping = Located()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        mapping.duplicates = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                for source in reversed(self.merge_sources(value_node)):  # the first one wins
                    for key, value in source.items():
                        mapping[key] = value
                        mapping.key_lines[key] = source.line_of(key)
        own_keys: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                continue
            key = key_node.value if key_node.tag == _VALUE else self.build(key_node)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "found an unhashable key", key_node.start_mark) from None
            line = key_node.start_mark.line + 1
            if key in own_keys:
                mapping.duplicates.append((key, line))
            else:
                own_keys.add(key)
                mapping.key_lines[key] = line
            mapping[key] = self.build(value_node)
        return mapping

    def merge_sources(self, node: yaml.Node) -> list[Located]:
        """The mappings a `<<` key names: one, or a list of them."""
        nodes = node.value if isinstance(node, yaml.SequenceNode) else [node]
        sources = [self.build(item) if isinstance(item, yaml.MappingNode) else None
                   for item in nodes]
        if not sources or any(not isinstance(source, Located) for source in sources):
            raise yaml.constructor.ConstructorError(
                None, None, "'<<' must name a mapping or a list of mappings", node.start_mark)
        return sources  # type: ignore[return-value]

    def sequence(self, node: yaml.SequenceNode) -> LocatedList:
        items = LocatedList(self.build(child) for child in node.value)
        items.line = node.start_mark.line + 1
        items.item_lines = [child.start_mark.line + 1 for child in node.value]
        return items


def load_yaml_text(text: str, where: str) -> Any:
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            return _Builder(loader).build(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at_end = mark is not None and mark.line >= len(text.splitlines())
        if at_end and exc.context_mark is not None:
            mark = exc.context_mark  # the parser ran to the end: name where the open thing began
        line = mark.line + 1 if mark else None
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        if at_end and exc.context:
            problem = f"{problem} ({exc.context.strip()} that is never closed)"
        fix = ("quote the value to keep it as text" if isinstance(exc, _Unreadable)
               else "fix the YAML syntax")
        raise ArgmatrixError(Problem(f"malformed YAML: {problem}", where, line, fix)) from None
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
