"""Where the modules of a registry's package are, found on the search path without importing
anything (`find_module_file`): a package's folder or a module's file, a stub beside it, a
compiled module or a namespace package said as such, never a file outside the search folders."""

from __future__ import annotations

import importlib.machinery
import os
from collections.abc import Sequence
from pathlib import Path

# What one read found of a package on its search path, by dotted name (see `find_module_file`):
# its folder, or why the name stops there (not found, or not a package).
Packages = dict[str, list[str] | str]


_NOT_FOUND, _NOT_A_PACKAGE = "not found", "not a package"


def find_module_file(
    name: str,
    search_path: Sequence[str],
    missing: list[str] | None = None,
    packages: Packages | None = None,
) -> Path | None:
    """The source file of a dotted module, found on the path without importing any package.

    `packages`: what earlier lookups of the same read found of the packages on the way (kept
    there): `pkg.a` and `pkg.b` look for `pkg` once. Where it is not found, the files that
    would have been it are added to `missing`. A name that is not a dotted Python name (`..`,
    `a/b`) is never looked for. A package without `__init__.py` is followed in the folder it is
    first found in only: Python would join the folders of that name everywhere on the path, and
    a pull request could name its own package after a folder elsewhere to have static reading
    publish what a module there assigns.
    """
    locations: list[str] | None = list(search_path)
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        prefix = ".".join(parts[: index + 1])
        found = packages.get(prefix) if packages is not None and not last else None
        if found is None:
            spec = importlib.machinery.PathFinder.find_spec(part, locations)
            if spec is not None and missing is not None:
                missing += _shadowing(part, locations or (), spec)
            if spec is None:
                found = _NOT_FOUND
            elif last:
                return _source_of(spec.origin)
            else:
                found = list(spec.submodule_search_locations or [])[:1] or _NOT_A_PACKAGE
            if packages is not None and not last:
                packages[prefix] = found
        if found == _NOT_FOUND:
            if missing is not None and index > 0:  # inside a package: where it would appear
                for location in locations or ():
                    missing += [f"{location}/{part}.py", f"{location}/{part}/__init__.py"]
            return None
        if found == _NOT_A_PACKAGE:
            return None
        assert not isinstance(found, str)
        locations = found
    return None


def _source_of(origin: str | None) -> Path | None:
    """The Python source a module is loaded from: its `.py` file, or the `.py` file mypyc
    compiled a compiled module from, which its wheel ships beside it (`black/__init__.py` beside
    `black/__init__.cpython-311-x86_64-linux-gnu.so`); None for a compiled module without one."""
    if not origin:
        return None
    if origin.endswith(".py"):
        return Path(origin)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if origin.endswith(suffix):
            source = Path(origin[: -len(suffix)] + ".py")
            return source if source.is_file() else None
    return None


def _shadowing(
    part: str, locations: Sequence[str], spec: importlib.machinery.ModuleSpec
) -> list[str]:
    """The files that would be found instead of the module or package `spec` found for `part`,
    were they to appear: its name in each folder of `locations` before the one it was found in
    and, in that folder, a package of the name, to which a module file yields (a namespace
    package yields to a module anywhere). They must still be missing for a read to be reused."""
    if spec.origin is None or spec.origin == "namespace":  # a namespace package
        where = None
    elif spec.submodule_search_locations:  # a package: .../part/__init__.py
        where = os.path.dirname(os.path.dirname(spec.origin))
    else:
        where = os.path.dirname(spec.origin)
    shadowing: list[str] = []
    for location in locations:
        same = where is not None and os.path.abspath(location or ".") == os.path.abspath(where)
        if same and spec.submodule_search_locations:
            break  # in its own folder, a package yields to nothing
        shadowing.append(f"{location}/{part}/__init__.py")
        if same:  # a source module yields to a package and to a compiled extension there
            shadowing += [f"{location}/{part}{s}" for s in importlib.machinery.EXTENSION_SUFFIXES]
            break
        shadowing += [f"{location}/{part}{suffix}" for suffix in importlib.machinery.all_suffixes()]
    return shadowing


def inside_search_folder(path: Path, search_path: Sequence[str]) -> Path | None:
    """The real file behind a module file found on the search path, if it lies inside the
    folder it was found in and not in a hidden folder there; None if a link (of the file or of
    a folder on the way) leads elsewhere.

    A pull request may add `settings.py -> /home/runner/.config/app/settings.py`, or a link to
    `.git/config` (where a CI checkout may keep its token): static reading would publish what
    such a file assigns. A link to another module of the folder is fine.
    """
    path = Path(os.path.abspath(path))
    parents = set(path.parents)  # a set: looked up once per folder of the search path
    folders = [Path(os.path.abspath(entry or ".")) for entry in search_path]
    found = [folder for folder in folders if folder in parents]
    if not found:
        return None
    folder = max(found, key=lambda f: len(f.parts))  # site-packages inside the project's .venv
    real, real_folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    if real_folder not in set(real.parents):
        return None
    hidden = any(part.startswith(".") for part in real.relative_to(real_folder).parts)
    return None if hidden else real
