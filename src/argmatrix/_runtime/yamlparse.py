"""YAML parsing that keeps line numbers, so every problem can name `file:line`: PyYAML's part
of `yamlfile`, imported when a file is parsed (a run that finds every YAML file in the cache
never imports PyYAML).

A manifest may come from a stranger's pull request, so reading one is bounded: values are built
here from libyaml's event stream, one event at a time and without recursion, counting nesting
depth and the nodes aliases stand for as they come. An alias bomb (an alias of an alias of ...
of a list, a few hundred bytes naming billions of nodes) or a file nested thousands of levels
deep (which overflows the C stack of PyYAML's own composer) stops with a located error as soon
as a limit is passed.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

from argmatrix._runtime.located import MAX_ALIAS_NODES, MAX_DEPTH, Located, LocatedList
from argmatrix.errors import ArgmatrixError, Problem

# libyaml's parser where PyYAML was built with it: ten times faster on large manifests.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"  # a bare `=` key, text to PyYAML's safe loader
_MAP = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_SEQ = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG

_DEPTH_FIX = "flatten the structure; a manifest needs a few levels"
_ALIAS_FIX = "write the repeated values out, or use fewer aliases"

# Python refuses to write an integer of more digits than this in decimal (3.11+, and security
# releases of 3.10): such a value could be read but never shown, so it is refused on reading.
_MAX_DIGITS: int = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300
_PRINTABLE_BITS = int(_MAX_DIGITS * 3.32)  # fewer bits than this: fewer digits than the limit
# Longer integer text is refused unread: `1:2:3:...` (base 60) takes time quadratic in its length.
_LONGEST_INT_TEXT = 2 * _MAX_DIGITS + 10  # room for a `_` between every two digits
_INT = "tag:yaml.org,2002:int"


class _Unreadable(yaml.constructor.ConstructorError):
    """A scalar YAML types (a date, say) whose text is not a valid value of that type."""


class _TooLarge(yaml.MarkedYAMLError):
    """A bound above was passed; `fix` says what to change."""

    def __init__(self, problem: str, mark: Any, fix: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.fix = fix


class _TwoMerges(yaml.MarkedYAMLError):
    """Two `<<` keys in one mapping: a key given twice, whose meaning PyYAML's releases do not
    agree on (6.0.3: the last wins; 6.0.4: the first, for some keys). argmatrix refuses it and
    says how to write what was meant; `<<: [*a, *b]` is defined (the first mapping wins)."""

    fix = "merge a list instead, `<<: [*first, *second]`, where the first mapping named wins"

    def __init__(self, mark: Any) -> None:
        super().__init__(problem="'<<' given twice in one mapping", problem_mark=mark)


class _Tagged(Exception):
    """A collection with an explicit tag (`!!set`, `!!omap`): PyYAML's constructor builds those,
    from PyYAML's composed nodes."""


def _too_deep(mark: Any) -> _TooLarge:
    return _TooLarge(f"nesting deeper than {MAX_DEPTH} levels", mark, _DEPTH_FIX)


def _too_many(mark: Any) -> _TooLarge:
    return _TooLarge(f"aliases expand to more than {MAX_ALIAS_NODES} nodes", mark, _ALIAS_FIX)


def _shown(value: str) -> str:
    """A scalar's text for a message: a value of thousands of characters is cut short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(value)} characters)"


def _printable(value: int) -> bool:
    """Whether Python can write the integer in decimal."""
    if value.bit_length() < _PRINTABLE_BITS:
        return True
    try:
        str(value)
    except ValueError:
        return False
    return True


def _too_long_an_integer(node: yaml.Node) -> _Unreadable:
    return _Unreadable(
        None,
        None,
        f"cannot read {_shown(str(node.value))}: an integer of more than {_MAX_DIGITS} digits",
        node.start_mark,
    )


def _construct_scalar(loader: Any, node: yaml.Node) -> Any:
    """A scalar that is not plain text (`yes`, `1e3`, a date), as YAML says it reads."""
    if node.tag == _INT and len(node.value) > _LONGEST_INT_TEXT:
        raise _too_long_an_integer(node)
    try:
        value = loader.construct_object(node, deep=True)
    except yaml.YAMLError:
        raise
    except Exception as exc:  # PyYAML's own failures on e.g. 2020-13-45 or an empty !!int
        reason = str(exc).split(";")[0] or type(exc).__name__  # without Python's own advice
        raise _Unreadable(
            None, None, f"cannot read {_shown(str(node.value))}: {reason}", node.start_mark
        ) from None
    if type(value) is int and not _printable(value):  # 0x... of thousands of digits
        raise _too_long_an_integer(node)
    return value


Key = tuple[Any, int, str | None, Any]  # a key's value, line, tag and mark


def _assemble_mapping(line: int, pairs: list[tuple[Key, Any, Any]]) -> Located:
    """The mapping of some (key, value, mark of the value) pairs.

    Keys named twice are recorded (the last value wins, the first line is kept). Keys merged in
    with `<<` come first, in YAML's order of precedence; a key of the mapping's own then
    overrides one merged in, which is no repetition."""
    mapping = Located()
    mapping.line = line
    key_lines: dict[Any, int] = {}
    mapping.key_lines = key_lines
    mapping.duplicates = []
    merges = [(value, mark) for (_, _, tag, mark), value, _ in pairs if tag == _MERGE]
    if len(merges) > 1:
        raise _TwoMerges(merges[1][1])
    for (_, _, key_tag, _), value, value_mark in pairs:
        if key_tag == _MERGE:
            for source in reversed(_merge_sources(value, value_mark)):  # the first one wins
                for key, merged in source.items():
                    mapping[key] = merged
                    key_lines[key] = source.line_of(key)
    own_keys: set[Any] = set()
    for (key, key_line, key_tag, key_mark), value, _ in pairs:
        if key_tag == _MERGE:
            continue
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "found an unhashable key", key_mark
            ) from None
        if key in own_keys:
            mapping.duplicates.append((key, key_line))
        else:
            own_keys.add(key)
            key_lines[key] = key_line
        mapping[key] = value
    return mapping


def _merge_sources(value: Any, mark: Any) -> list[Located]:
    """The mappings a `<<` key names: one, or a list of them."""
    sources = value if isinstance(value, LocatedList) else [value]
    if not sources or not all(isinstance(source, Located) for source in sources):
        raise yaml.constructor.ConstructorError(
            None, None, "'<<' must name a mapping or a list of mappings", mark
        )
    return sources


def _implicit_resolvers() -> dict[str, list[tuple[str, Any]]]:
    """PyYAML's implicit resolvers by first character, joined once with the catch-all ones."""
    table = _Loader.yaml_implicit_resolvers
    anywhere = table.get(None, [])
    return {first: [*found, *anywhere] for first, found in table.items() if first is not None}


_IMPLICIT = _implicit_resolvers()
_ANYWHERE: list[tuple[str, Any]] = _Loader.yaml_implicit_resolvers.get(None, [])


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """The tag of an untagged scalar, as PyYAML's resolver gives it (the safe loader has no path
    resolvers), without joining its lists anew for every scalar."""
    if implicit[0]:
        for tag, pattern in _IMPLICIT.get(value[:1], _ANYWHERE):
            if pattern.match(value):
                return tag
    return _STR


_NO_KEY: Any = object()
_OPEN: Any = object()  # an anchor whose collection is still being read


class _Collection:
    """A mapping or sequence being read: what it holds so far, and how many nodes that is."""

    __slots__ = (
        "anchor",
        "is_map",
        "item_lines",
        "items",
        "key",
        "line",
        "mark",
        "pairs",
        "size",
    )

    def __init__(self, is_map: bool, mark: Any, anchor: str | None) -> None:
        self.is_map = is_map
        self.mark = mark
        self.line: int = mark.line + 1
        self.anchor = anchor
        self.size = 1
        self.items: list[Any] = []
        self.item_lines: list[int] = []
        self.pairs: list[tuple[Key, Any, Any]] = []
        self.key: Key = _NO_KEY

    def close(self) -> Any:
        if self.is_map:
            return _assemble_mapping(self.line, self.pairs)
        items = LocatedList(self.items)
        items.line = self.line
        items.item_lines = self.item_lines
        return items


class _EventBuilder:
    """Builds `Located` containers from the event stream, with the same values PyYAML's safe
    loader gives (merges, anchors and scalar types included).

    Building here rather than through PyYAML's composer and generic constructor also halves the
    time a large manifest takes: their bookkeeping costs more than the parsing. Scalars other
    than text still go through the constructor, so `yes`, `1e3` or dates mean what YAML says.
    """

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        # anchor -> (value, line, tag, nodes it stands for, mark), or _OPEN
        self.anchors: dict[str, Any] = {}
        self.expanded = 0  # nodes that aliases stand for, so far

    def single_document(self) -> Any:
        get_event = self.loader.get_event
        get_event()  # the stream's start
        first = get_event()
        if type(first) is yaml.StreamEndEvent:
            return None
        value = self.document()
        after = get_event()
        if type(after) is not yaml.StreamEndEvent:
            raise yaml.composer.ComposerError(
                "expected a single document in the stream",
                first.start_mark,
                "but found another document",
                after.start_mark,
            )
        return value

    def document(self) -> Any:
        """The events of one document's nodes, up to and including its end.

        The hot loop of reading a manifest (one pass per event): kept flat on purpose."""
        get_event = self.loader.get_event
        anchors = self.anchors
        stack: list[_Collection] = []
        top: _Collection | None = None  # stack[-1]
        root: Any = None
        while True:
            event = get_event()
            kind = type(event)
            mark = event.start_mark
            if kind is yaml.ScalarEvent:
                value = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    tag = _resolve(value, event.implicit)
                if tag != _STR and not (
                    tag in (_MERGE, _VALUE)
                    and top is not None
                    and top.is_map
                    and top.key is _NO_KEY
                ):
                    value = _construct_scalar(
                        self.loader, yaml.ScalarNode(tag, value, mark, event.end_mark, event.style)
                    )
                line = mark.line + 1
                size = 1
                if event.anchor is not None:
                    self.name(event.anchor, (value, line, tag, 1, mark), mark)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                is_map = kind is yaml.MappingStartEvent
                if event.tag not in (None, "!", _MAP if is_map else _SEQ):
                    raise _Tagged
                if len(stack) >= MAX_DEPTH:
                    raise _too_deep(mark)
                if event.anchor is not None:
                    self.name(event.anchor, _OPEN, mark)
                top = _Collection(is_map, mark, event.anchor)
                stack.append(top)
                continue
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                done = stack.pop()
                top = stack[-1] if stack else None
                value, line, tag, size, mark = done.close(), done.line, None, done.size, done.mark
                if done.anchor is not None:
                    anchors[done.anchor] = (value, line, None, size, mark)
            elif kind is yaml.AliasEvent:
                value, line, tag, size = self.alias(event)
            else:  # the document's end
                return root
            if top is None:
                root = value
            elif not top.is_map:
                top.size += size
                top.items.append(value)
                top.item_lines.append(line)
            elif top.key is _NO_KEY:
                top.size += size
                top.key = (value, line, tag, mark)
            else:
                top.size += size
                top.pairs.append((top.key, value, mark))
                top.key = _NO_KEY

    def name(self, anchor: str, entry: Any, mark: Any) -> None:
        known = self.anchors.get(anchor)
        if known is not None:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"found duplicate anchor {anchor!r} (first on line {known[4].line + 1})",
                mark,
            )
        self.anchors[anchor] = entry if entry is not _OPEN else (_OPEN, 0, None, 1, mark)

    def alias(self, event: Any) -> tuple[Any, int, str | None, int]:
        known = self.anchors.get(event.anchor)
        if known is None:
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {event.anchor!r}", event.start_mark
            )
        value, line, tag, size, _ = known
        if value is _OPEN:
            raise yaml.constructor.ConstructorError(
                None, None, "an alias refers to a node that contains it", event.start_mark
            )
        self.expanded += size
        if self.expanded > MAX_ALIAS_NODES:
            raise _too_many(event.start_mark)
        return value, line, tag, size


def _check_limits(text: str, loader: Any = _Loader) -> None:
    """Nesting depth and alias expansion, counted on the event stream alone: what PyYAML's own
    composer may be given (it recurses, and builds every alias)."""
    depth = 0
    open_sizes: list[int] = [0]
    open_anchors: list[str | None] = [None]
    sizes: dict[str, int] = {}
    expanded = 0
    events: Any = yaml.parse(text, Loader=loader)
    for event in events:
        kind = type(event)
        if kind is yaml.ScalarEvent:
            open_sizes[-1] += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(event.start_mark)
            open_sizes.append(1)
            open_anchors.append(event.anchor)
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            depth -= 1
            size = open_sizes.pop()
            anchor = open_anchors.pop()
            if anchor is not None:
                sizes[anchor] = size
            open_sizes[-1] += size
        elif kind is yaml.AliasEvent:
            size = sizes.get(event.anchor, 1)  # an unknown one is the composer's to report
            expanded += size
            if expanded > MAX_ALIAS_NODES:
                raise _too_many(event.start_mark)
            open_sizes[-1] += size


class _NodeBuilder:
    """Turns PyYAML's composed node tree into `Located` containers: for the rare file with an
    explicitly tagged collection, once `_check_limits` has bounded what composing costs."""

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
                None, None, "an alias refers to a node that contains it", node.start_mark
            )
        if node.tag == _STR and isinstance(node, yaml.ScalarNode):
            return node.value
        self.open.add(id(node))
        if node.tag == _MAP and isinstance(node, yaml.MappingNode):
            built = self.mapping(node)
        elif node.tag == _SEQ and isinstance(node, yaml.SequenceNode):
            built = self.sequence(node)
        else:
            built = _construct_scalar(self.loader, node)
        self.open.discard(id(node))
        self.done[id(node)] = built
        return built

    def mapping(self, node: yaml.MappingNode) -> Located:
        pairs: list[tuple[Key, Any, Any]] = []
        for key_node, value_node in node.value:
            tag = key_node.tag
            key = key_node.value if tag in (_VALUE, _MERGE) else self.build(key_node)
            pairs.append(
                (
                    (key, key_node.start_mark.line + 1, tag, key_node.start_mark),
                    self.build(value_node),
                    value_node.start_mark,
                )
            )
        return _assemble_mapping(node.start_mark.line + 1, pairs)

    def sequence(self, node: yaml.SequenceNode) -> LocatedList:
        items = LocatedList(self.build(child) for child in node.value)
        items.line = node.start_mark.line + 1
        items.item_lines = [child.start_mark.line + 1 for child in node.value]
        return items


def _build(text: str) -> Any:
    loader = _Loader(text)
    try:
        return _EventBuilder(loader).single_document()
    except _Tagged:
        pass
    finally:
        loader.dispose()
    _check_limits(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        return _NodeBuilder(loader).build(node) if node is not None else None
    finally:
        loader.dispose()


def _argmatrix_limit_or(exc: yaml.MarkedYAMLError, text: str) -> yaml.MarkedYAMLError:
    """The error to report for a file libyaml refused: argmatrix's own bound where the file
    passes it before the point of the refusal, else libyaml's error.

    libyaml (PyYAML 6.0.4 and later) has limits of its own, met while it scans ahead of the
    events argmatrix counts: 1,000 open flow collections stop it before argmatrix's depth bound
    is reached. The pure-Python scanner has no such limit and looks ahead a bounded 1,024
    characters, so counting its events finds argmatrix's bound first: the message and its fix
    do not depend on the PyYAML release installed. Only files that fail pay for this."""
    if _Loader is yaml.SafeLoader or isinstance(exc, _TooLarge | _Unreadable | _TwoMerges):
        return exc
    try:
        _check_limits(text, yaml.SafeLoader)
    except _TooLarge as limit:
        return limit
    except yaml.YAMLError:
        pass
    return exc


def load_yaml_text(text: str, where: str) -> Any:
    try:
        try:
            return _build(text)
        except yaml.MarkedYAMLError as refused:
            raise _argmatrix_limit_or(refused, text) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at_end = mark is not None and mark.line >= len(text.splitlines())
        if at_end and exc.context_mark is not None:
            mark = exc.context_mark  # the parser ran to the end: name where the open thing began
        line = mark.line + 1 if mark else None
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        if at_end and exc.context:
            problem = f"{problem} ({exc.context.strip()} that is never closed)"
        fix = (
            "quote the value to keep it as text"
            if isinstance(exc, _Unreadable)
            else exc.fix
            if isinstance(exc, _TooLarge | _TwoMerges)
            else "fix the YAML syntax"
        )
        raise ArgmatrixError(Problem(f"malformed YAML: {problem}", where, line, fix)) from None
    except yaml.YAMLError as exc:
        raise ArgmatrixError(Problem(f"malformed YAML: {exc}", where, None)) from None
