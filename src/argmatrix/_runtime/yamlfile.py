"""YAML reading that keeps line numbers, so every problem can name `file:line`.

A manifest may come from a stranger's pull request, so reading one is bounded (`yamlparse`: the
depth of nesting and the nodes aliases stand for are counted as they come). PyYAML is imported
when a file is parsed, not before: the configuration is parsed once per content and then comes
from the cache (`load_cached_yaml_file`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argmatrix._runtime.cache import cached, note_read
from argmatrix._runtime.files import read_user_file
from argmatrix._runtime.located import MAX_ALIAS_NODES, MAX_DEPTH, Located, LocatedList, line_of

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "Located",
    "LocatedList",
    "line_of",
    "load_cached_yaml_file",
    "load_yaml_file",
    "load_yaml_text",
]


def load_yaml_text(text: str, where: str) -> Any:
    from argmatrix._runtime.yamlparse import load_yaml_text as parse

    return parse(text, where)


def load_yaml_file(path: Path) -> Any:
    text = read_user_file(path, "file", "check the path in argmatrix.yaml or on the command line")
    note_read(path, text)  # what was read, for the cache, whatever the file holds by then
    return load_yaml_text(text, str(path))


def load_cached_yaml_file(path: Path) -> Any:
    """`load_yaml_file`, reused while the file holds the same content."""
    return cached("yaml", (str(path),), lambda: (load_yaml_file(path), [str(path)]))
