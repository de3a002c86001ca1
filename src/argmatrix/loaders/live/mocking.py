"""Stand-ins for heavy modules that are not installed, so a docs machine needs no GPU stack.

Only modules that really are missing get a stand-in: a module named in `mock` that is installed is
imported for real, so the mock can never hide a real bug.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any


class Stub:
    """Anything a module-level import of a missing package may touch: call, subclass, index."""

    def __init__(self, name: str = "stub") -> None:
        object.__setattr__(self, "_stub_name", name)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self._stub_name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Used as a bare decorator (`@torch.compile`): hand the decorated object back unchanged.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return Stub(f"{self._stub_name}()")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (type(self._stub_name.rsplit(".", 1)[-1], (), {}),)

    def __getitem__(self, key: Any) -> Any:
        return Stub(f"{self._stub_name}[]")

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __or__(self, other: Any) -> Any:
        return self

    __ror__ = __or__

    def __repr__(self) -> str:
        return f"<stand-in {self._stub_name}>"

    def __str__(self) -> str:
        return str(self._stub_name)

    def __hash__(self) -> int:
        return hash(self._stub_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stub) and other._stub_name == self._stub_name


class StubModule(types.ModuleType):
    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self.__name__}.{attr}")


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = StubModule(spec.name)
        module.__path__ = []  # a package, so any submodule can be imported too
        module.__version__ = "0.0.0"  # type: ignore[attr-defined]  # real modules have one
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class StubFinder(importlib.abc.MetaPathFinder):
    def __init__(self, roots: Iterable[str]) -> None:
        self.roots = frozenset(roots)
        self.loader = _StubLoader()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".", 1)[0] not in self.roots:
            return None
        return importlib.machinery.ModuleSpec(fullname, self.loader, is_package=True)


def missing(names: Iterable[str]) -> list[str]:
    """The top-level packages among `names` that are not installed."""
    result = []
    for name in names:
        root = name.split(".", 1)[0]
        if root in sys.modules:
            continue
        if importlib.util.find_spec(root) is None:
            result.append(root)
    return list(dict.fromkeys(result))


@contextmanager
def stand_ins(names: Iterable[str]) -> Iterator[list[str]]:
    """Install stand-ins for the missing ones of `names` while the block runs; afterwards the
    stand-in modules leave `sys.modules`. Modules imported meanwhile stay imported, and may
    still hold stand-ins they were given."""
    roots = missing(names)
    if not roots:
        yield []
        return
    finder = StubFinder(roots)
    before = set(sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield roots
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if name.split(".", 1)[0] in finder.roots:
                del sys.modules[name]
