"""Stand-ins for modules that are not installed, so a docs machine needs no GPU stack.

Only packages that really are missing get a stand-in: a package named in `mock` that is installed
is imported for real, so the mock can never hide a real bug. A submodule named in `mock`
(`rtp_llm.ops`) is the exception: a part of an installed package its author asks to stand in for
(its `__init__` looks for a library built with CUDA, say). With `mock: auto` every import the
registry's own code makes that fails gets one: a package that is not installed, and a compiled
submodule of an installed package that is absent or cannot be loaded.

Stand-ins are honest about what they are not:

- An attribute named in the code (`torch.nn.Module`, `from torch import dtype`) is a stand-in
  too, so module-level code runs; an attribute asked for by name at run time (`hasattr(torch,
  "npu")`, `getattr(x, name, None)`) is not there. Code that probes for an optional backend
  finds none, as on a machine without it. `importlib.util.find_spec` finds no stand-in either.
  A lazy proxy module (vLLM's `LazyLoader`) forwards a lookup from its `__getattr__`: the code
  that asked the proxy decides whether the name was written or probed.
- A stand-in can be a base class (each one names one class, shared by every subclass, which
  pydantic accepts as a field type), a type annotation (of a pydantic model too: any value), an
  argument of `isinstance` and `issubclass` (nothing is an instance or a subclass of it, and it
  is a subclass of nothing), one member of a union (`torch.dtype | Literal[...]` keeps the
  Literal, as `Literal[...] | torch.dtype` does through typing), and a value a registry copies,
  deep-copies, pickles or hashes (it holds nothing but its name: a copy is the same stand-in).
  Where a number must be (`int()`, an index, pydantic's `Field(le=...)`) it is zero.
- Its text (`str()`, an f-string) is marked, so a help text or a value built from one is
  reported as unresolved instead of showing `mmengine.Registry().module_dict.keys()`.
- `torch.__version__` written in the code reads the version `versions.py` answers for the
  package's distribution (the registry's own pin of it, or `registry.versions`); probed by name
  it is not there.
- An error raised inside these stand-ins by a fault of their own is argmatrix's
  (`failed_in_stand_in`); a refusal they make on purpose (`StandInRefusal`) is not.
"""

from __future__ import annotations

import dis
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import traceback
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from argmatrix.loaders.live import versions as _versions
from argmatrix.loaders.live.versions import VersionFinder, Versions

# A stand-in's text is wrapped in two private-use characters: nothing a registry writes holds
# them, so a text that does was built from a stand-in.
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"
STAND_IN_TEXT = re.compile(f"{MARK_OPEN}([^{MARK_CLOSE}]*){MARK_CLOSE}|<stand-in ([^>]*)>")

# The instructions by which code names an attribute in its own text (`a.b`, `from a import b`):
# those get a stand-in. Any other way of asking (hasattr, getattr, from C code) gets none.
_NAMED_ACCESS = frozenset(
    dis.opmap[name]
    for name in ("LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM", "LOAD_SUPER_ATTR")
    if name in dis.opmap
)


def _named_in_code(depth: int) -> bool:
    """Whether the attribute lookup that called us was written as `x.name` in the caller. A
    proxy's `__getattr__` that forwards the lookup (`getattr(self._module, item)`: vLLM's
    LazyLoader) asks for what its own caller asked for, so its caller decides."""
    frame: Any = sys._getframe(depth + 1)
    for _ in range(_PROXY_DEPTH):
        if frame.f_code.co_name == "_handle_fromlist":  # `from stand_in import name`
            return True
        code = frame.f_code.co_code
        lasti = frame.f_lasti
        if 0 <= lasti < len(code) and code[lasti] in _NAMED_ACCESS:
            return True
        if frame.f_code.co_name != "__getattr__" or frame.f_back is None:
            return False
        frame = frame.f_back
    return False


_PROXY_DEPTH = 4  # proxies of proxies followed, at most


_base_classes: dict[str, type] = {}


def _any_value_schema(owner: Any, source: Any, handler: Any) -> Any:
    """pydantic-core's schema of a field that takes any value, for pydantic asking a stand-in."""
    from pydantic_core import core_schema  # type: ignore[import-not-found,unused-ignore]

    return core_schema.any_schema()


def _base_class(name: str) -> type:
    """The one class a stand-in is as a base: `class A(nn.Module)` and `class B(nn.Module)` share it."""
    if name not in _base_classes:
        _base_classes[name] = type(
            name.rsplit(".", 1)[-1],
            (),
            {
                "__module__": "stand-in",
                # what a subclass may do with its base: parametrise it (`Base[K, V]`), call its
                # __init__ with the base's arguments, pass class keywords
                "__class_getitem__": classmethod(lambda cls, item: cls),
                "__init__": lambda self, *args, **kwargs: None,
                "__init_subclass__": classmethod(lambda cls, **kwargs: None),
                # a field typed with it (or a subclass) takes any value, as one typed with the
                # stand-in itself does
                "__get_pydantic_core_schema__": classmethod(_any_value_schema),
            },
        )
    return _base_classes[name]


class StandInRefusal(AttributeError):
    """A stand-in has no such attribute, on purpose: the code asked for it by name at run time
    (probing), or it is a special name a stand-in does not pretend to have."""


def failed_in_stand_in(exc: BaseException) -> bool:
    """Whether an error was raised inside argmatrix's stand-ins by a fault of their own (a
    defect of argmatrix), rather than by the registry's code or a refusal they make on purpose."""
    if isinstance(exc, StandInRefusal):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename in _STAND_IN_FILES


class Stub:
    """Anything module-level code of a missing package may touch: call, subclass, index."""

    def __init__(self, name: str = "stub") -> None:
        object.__setattr__(self, "_stub_name", name)

    def __getattr__(self, attr: str) -> Any:
        if attr == "_stub_name":  # made without __init__ (copy, pickle): not a stand-in's name
            raise StandInRefusal(attr)
        if (attr.startswith("__") and attr.endswith("__")) or not _named_in_code(1):
            raise StandInRefusal(f"{self._stub_name} (a stand-in) has no attribute {attr!r}")
        return Stub(f"{self._stub_name}.{attr}")

    # A value a registry may copy, pickle or compare: a stand-in holds nothing but its name, so
    # a copy is the same stand-in, and unpickled it is one again (never a half-made object).
    def __copy__(self) -> Stub:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Stub:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Stub, (self._stub_name,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Used as a bare decorator (`@torch.compile`): hand the decorated object back unchanged.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return Stub(f"{self._stub_name}()")

    # `issubclass(stand_in, SomeClass)`: Python takes an object with a tuple of bases for a
    # class; a stand-in has none, so it is a subclass of nothing (a TypeError otherwise).
    __bases__: tuple[type, ...] = ()

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (_base_class(self._stub_name),)

    def __instancecheck__(self, instance: Any) -> bool:
        return False

    def __subclasscheck__(self, subclass: Any) -> bool:
        return False

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        """A field annotated with a stand-in takes any value (pydantic asks this)."""
        return _any_value_schema(self, source, handler)

    def __getitem__(self, key: Any) -> Any:
        return Stub(f"{self._stub_name}[]")

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __index__(self) -> int:
        """A number where one must be (pydantic's `Field(le=torch.iinfo(torch.long).max)`,
        `int()`, `float()`): zero, as a stand-in's length and truth are."""
        return 0

    # In a type (`torch.dtype | Literal["auto", "bf16"]`) a stand-in is one more member of the
    # union, as `Literal[...] | torch.dtype` already is through typing's own `|`: the real side
    # is kept (its choices, its None). Anything else (`flags | stand_in`) is a stand-in.
    def __or__(self, other: Any) -> Any:
        return _union(self, other)

    def __ror__(self, other: Any) -> Any:
        return _union(other, self)

    def _combined(self, other: Any) -> Stub:
        return Stub(f"{self._stub_name}(...)")

    # Arithmetic and text built with a stand-in (`op_name + schema`) is a stand-in too: its text
    # stays marked, so a help built from it is still reported as unresolved.
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _combined
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _combined

    def __repr__(self) -> str:
        return f"<stand-in {self._stub_name}>"

    def __str__(self) -> str:
        return f"{MARK_OPEN}{self._stub_name}{MARK_CLOSE}"

    def __hash__(self) -> int:
        return hash(self._stub_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stub) and other._stub_name == self._stub_name


def _union(left: Any, right: Any) -> Any:
    stand_in = left if isinstance(left, Stub) else right
    if not (_type_form(left) and _type_form(right)):  # a value on the other side: `flags | x`
        return Stub(f"{stand_in._stub_name}(...)")
    return typing.Union[left, right]  # noqa: UP007  (`|` would call back here)


def _type_form(value: Any) -> bool:
    """Whether `value` can be a member of a union: a class, None, a stand-in, a form of
    `typing` (Literal[...], Optional[...], a TypeVar), `list[int]`, or a forward reference.
    Decided here, as typing's own check differs between Python versions."""
    return (
        value is None
        or isinstance(value, (type, Stub, str, types.GenericAlias, types.UnionType))
        or type(value).__module__ == "typing"
    )


def is_stand_in(value: Any) -> bool:
    return isinstance(value, (Stub, StubModule))


def stand_in_names(text: str) -> list[str]:
    """The stand-ins a text was built from, by name (empty: none)."""
    return [m.group(1) or m.group(2) for m in STAND_IN_TEXT.finditer(text)]


def unmarked(text: str) -> str:
    """The text with each stand-in's mark replaced by the name it stands for."""
    return STAND_IN_TEXT.sub(lambda m: m.group(1) or m.group(2), text)


class StubModule(types.ModuleType):
    _stand_in_version = "0.0.0"  # a package's: the version its distribution is answered with

    def __getattr__(self, attr: str) -> Any:
        named = _named_in_code(1)
        if attr == "__version__" and named:  # `torch.__version__` written in the code
            return self._stand_in_version
        if (attr.startswith("__") and attr.endswith("__")) or not named:
            raise StandInRefusal(f"{self.__name__} (a stand-in) has no attribute {attr!r}")
        return Stub(f"{self.__name__}.{attr}")


class _StubLoader(importlib.abc.Loader):
    def __init__(self, versions: Versions | None = None) -> None:
        self.versions = versions

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = StubModule(spec.name)
        module.__path__ = []  # a package, so any submodule can be imported too
        # `torch.__version__` in the code reads the version the distribution is answered with;
        # asked by name (`getattr(torch, "__version__", None)`: probing) it is not there
        known = self.versions.of(spec.name) if self.versions and "." not in spec.name else None
        if known:
            module._stand_in_version = known
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def _importer() -> str | None:
    """The module whose `import` statement (or `importlib.import_module` call) the import system
    is looking for a module for; None when code is only probing whether one exists
    (`importlib.util.find_spec`)."""
    frame: Any = sys._getframe(2)
    importing = False
    while frame is not None:
        code = frame.f_code
        if code.co_name == "find_spec" and "importlib" in code.co_filename:  # importlib.util's
            return None
        if code.co_name == "_find_and_load_unlocked":
            importing = True
        elif importing and not _import_machinery(code.co_filename):
            return str(frame.f_globals.get("__name__", ""))
        frame = frame.f_back
    return None


def _import_machinery(filename: str) -> bool:
    return filename.startswith("<frozen importlib") or filename.endswith(
        ("importlib/__init__.py", "importlib\\__init__.py")
    )


class StubFinder(importlib.abc.MetaPathFinder):
    """Stand-ins for the packages in `roots` (placed first), or, with `roots` None, for any
    module no other finder finds that the registry's own packages (`owners`) import, or that is
    in a package already stood in for (placed last: `mock: auto`). An optional import of another
    library (`try: import simplejson`) is left to fail, as it would without argmatrix."""

    def __init__(
        self, roots: Iterable[str] | None, owners: Iterable[str] = (), exact: bool = False
    ) -> None:
        self.roots = frozenset(roots) if roots is not None else None
        self.owners = frozenset(owners)
        self.exact = exact  # roots are dotted modules: stand in for them even if present
        self.loader = _StubLoader()
        self.made: list[str] = []

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        root = fullname.split(".", 1)[0]
        if self.exact:
            if not any(fullname == r or fullname.startswith(r + ".") for r in self.roots or ()):
                return None
        elif self.roots is not None and root not in self.roots:
            return None
        importer = _importer()
        if importer is None:
            return None
        if self.roots is None and not self._stands_in_for(root, importer):
            return None
        self.made.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, self.loader, is_package=True)

    def _stands_in_for(self, root: str, importer: str) -> bool:
        if importer.split(".", 1)[0] in self.owners:
            return True
        return isinstance(sys.modules.get(root), StubModule)


class _FallibleExtensionLoader(importlib.abc.Loader):
    """A compiled module's loader that hands back a stand-in when the module cannot load."""

    def __init__(self, real: importlib.abc.Loader, made: list[str]) -> None:
        self.real = real
        self.made = made

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        try:
            return self.real.create_module(spec)
        except (ImportError, OSError):
            self.made.append(spec.name)
            return _StubLoader().create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        if not isinstance(module, StubModule):
            self.real.exec_module(module)


class CompiledModuleGuard(importlib.abc.MetaPathFinder):
    """`mock: auto`, placed first: a compiled module that is there but fails to load (a CUDA
    library missing) becomes a stand-in instead of failing the import."""

    def __init__(self, made: list[str], owners: Iterable[str]) -> None:
        self.made = made
        self.owners = frozenset(owners)
        self._busy = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        importer = _importer()
        if self._busy or importer is None or importer.split(".", 1)[0] not in self.owners:
            return None
        self._busy = True
        try:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        finally:
            self._busy = False
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        spec.loader = _FallibleExtensionLoader(spec.loader, self.made)
        return spec


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
def stand_ins(
    names: Iterable[str],
    auto: bool = False,
    owners: Iterable[str] = (),
    versions: Mapping[str, str] | None = None,
) -> Iterator[list[str]]:
    """Install stand-ins for the missing ones of `names` (with `auto`, for every module that
    the packages `owners` fail to import) while the block runs; the list it gives names every
    module stood in for. The distribution of a package stood in for has the version `versions`
    names, else the one the owners' own distributions pin (`loaders/live/versions.py`).
    Afterwards the stand-in modules leave `sys.modules`. Modules imported meanwhile stay
    imported, and may still hold stand-ins they were given."""
    names = list(names)
    owners = list(owners)
    roots = missing(names)
    submodules = [n for n in names if "." in n and n.split(".", 1)[0] not in roots]
    made: list[str] = []

    def stood_in(package: str) -> bool:
        return package in roots or package in made

    known = Versions(versions or {}, owners, stood_in)
    loader = _StubLoader(known)
    finders: list[importlib.abc.MetaPathFinder] = []
    if submodules:  # `mock: [rtp_llm.ops]`: that part of an installed package, by request
        exact = StubFinder(submodules, exact=True)
        exact.made, exact.loader = made, loader
        sys.meta_path.insert(0, exact)
        finders.append(exact)
    if roots:
        named = StubFinder(roots)
        named.made, named.loader = made, loader
        sys.meta_path.insert(0, named)
        finders.append(named)
    if auto:
        guard, fallback = CompiledModuleGuard(made, owners), StubFinder(None, owners)
        fallback.made, fallback.loader = made, loader
        sys.meta_path.insert(0, guard)
        sys.meta_path.append(fallback)
        finders += [guard, fallback]
    if roots or auto or versions:  # last: an installed distribution is found first
        versions_finder = VersionFinder(known)
        sys.meta_path.append(versions_finder)
        finders.append(versions_finder)
    before = set(sys.modules)
    try:
        yield made
    finally:
        for finder in finders:
            sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if isinstance(sys.modules[name], StubModule):
                del sys.modules[name]


# The files of argmatrix's stand-ins: an error raised there (not a refusal) is argmatrix's own.
_STAND_IN_FILES = frozenset({__file__, _versions.__file__})
