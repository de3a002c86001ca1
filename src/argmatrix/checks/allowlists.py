"""The allowlists of checks.coverage, and the accept list of checks.compatibility, edited in
argmatrix.yaml's own text, for `check --fix`.

Only the stale entries go: every other byte of the file (comments, quoting, line endings) is
kept as a person wrote it. The text is read again with PyYAML's composer, which keeps the
position of every node.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import yaml

from argmatrix.errors import ArgmatrixError

if TYPE_CHECKING:
    from argmatrix.checks.coverage import StaleEntry


def shrink_allowlists(text: str, stale: Iterable[StaleEntry], file: str) -> str:
    """argmatrix.yaml's text without the stale entries, every other byte as it was: a block
    list item goes with its whole line (and its comment), a flow list item with its comma."""
    wanted: dict[int, set[int]] = {}
    for entry in stale:
        wanted.setdefault(entry.page, set()).add(entry.entry)
    if not wanted:
        return text
    spans: list[tuple[int, int]] = []
    for page, sequence in _allowlist_nodes(text, file):
        remove = wanted.get(page)
        if remove:
            spans.extend(_item_spans(text, sequence, remove))
    return _cut(text, spans)


def _allowlist_nodes(text: str, file: str) -> list[tuple[int, yaml.SequenceNode]]:
    """(index in checks.coverage, the node of its allow_undocumented list). The file was read
    with the bounded reader already; PyYAML's composer, which keeps every position, reads it
    again (aliases are not expanded in nodes)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ArgmatrixError.at(f"cannot read it again to edit it: {exc}", file=file) from None
    coverage = _value(_value(root, "checks"), "coverage")
    if not isinstance(coverage, yaml.SequenceNode):
        return []
    found = []
    for index, item in enumerate(coverage.value):
        allowed = _value(item, "allow_undocumented")
        if isinstance(allowed, yaml.SequenceNode):
            found.append((index, allowed))
    # A list two pages share through an anchor and an alias is left as it is: an entry stale for
    # one page may hold back a finding on the other.
    shared = {id(node) for _, node in found if sum(n is node for _, n in found) > 1}
    return [(index, node) for index, node in found if id(node) not in shared]


def _value(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value in reversed(node.value):  # a key named twice: the last one counts
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value if isinstance(value, yaml.Node) else None
    return None


def _item_spans(text: str, sequence: yaml.SequenceNode, remove: set[int]) -> list[tuple[int, int]]:
    items = sequence.value
    if sequence.flow_style:
        return _flow_spans(items, remove, len(items))
    spans = []
    for index in sorted(remove):
        if index < len(items):
            spans.append(_block_item_lines(text, items[index]))
    return spans


def _block_item_lines(text: str, item: yaml.Node) -> tuple[int, int]:
    """The whole lines of a block list item (`  - --flag  # why`), its newline included."""
    start = text.rfind("\n", 0, item.start_mark.index) + 1
    end = text.find("\n", item.end_mark.index)
    return start, len(text) if end < 0 else end + 1


def _flow_spans(items: list[yaml.Node], remove: set[int], count: int) -> list[tuple[int, int]]:
    """In `[--a, --b, --c]`: an item up to the next one's start; the last one from the end of
    the item kept before it; all of them, everything between the brackets."""
    kept = [i for i in range(count) if i not in remove]
    if not kept:
        return [(items[0].start_mark.index, items[-1].end_mark.index)]
    spans = []
    for index in sorted(i for i in remove if i < count):
        if index < count - 1:
            spans.append((items[index].start_mark.index, items[index + 1].start_mark.index))
        else:
            before = max(i for i in kept if i < index)
            spans.append((items[before].end_mark.index, items[index].end_mark.index))
    return spans


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    pieces, position = [], 0
    for start, end in merged:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


# ------------------------------------------------------------------ checks.compatibility.accept


def shrink_accepts(text: str, stale: Iterable[str], file: str) -> str:
    """argmatrix.yaml's text without the `checks.compatibility.accept` entries named `stale`,
    every other byte as it was: a block entry goes with its whole lines (and its comment), a
    flow entry with its comma."""
    names = set(stale)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ArgmatrixError.at(f"cannot read it again to edit it: {exc}", file=file) from None
    accept = _value(_value(_value(root, "checks"), "compatibility"), "accept")
    if not isinstance(accept, yaml.MappingNode) or not names:
        return text
    entries = accept.value
    remove = {
        index
        for index, (key, _) in enumerate(entries)
        if isinstance(key, yaml.ScalarNode) and key.value in names
    }
    if accept.flow_style:
        spans = _flow_entry_spans(entries, remove)
    else:
        spans = [_block_entry_lines(text, *entries[index]) for index in sorted(remove)]
    return _cut(text, spans)


def _block_entry_lines(text: str, key: yaml.Node, value: yaml.Node) -> tuple[int, int]:
    """The whole lines of a block mapping entry, from its key to the end of its value."""
    start = text.rfind("\n", 0, key.start_mark.index) + 1
    end = value.end_mark.index
    if end > 0 and text[end - 1] == "\n":  # a block scalar ends after its newline
        return start, end
    newline = text.find("\n", end)
    return start, len(text) if newline < 0 else newline + 1


def _flow_entry_spans(
    entries: list[tuple[yaml.Node, yaml.Node]], remove: set[int]
) -> list[tuple[int, int]]:
    """In `{--a: x, --b: y}`: an entry up to the next one's key; the last one from the end of
    the value kept before it; all of them, everything between the braces."""
    kept = [i for i in range(len(entries)) if i not in remove]
    if not kept:
        return [(entries[0][0].start_mark.index, entries[-1][1].end_mark.index)]
    spans = []
    for index in sorted(remove):
        if index < len(entries) - 1:
            spans.append(
                (entries[index][0].start_mark.index, entries[index + 1][0].start_mark.index)
            )
        else:
            before = max(i for i in kept if i < index)
            spans.append((entries[before][1].end_mark.index, entries[index][1].end_mark.index))
    return spans
