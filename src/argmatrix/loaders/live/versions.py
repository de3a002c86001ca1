"""The versions of stood-in distributions, for `importlib.metadata` while a registry is built.

A registry that checks what it runs on (`importlib.metadata.version("torch") >= "2.12"`, or
`torch.__version__`) finds no distribution where a stand-in takes the package's place, and
would take the branch of a machine without it, or fail. While the registry is imported and built,
a distribution that is not installed is answered with a version when one is known:

- the table `registry.versions` of argmatrix.yaml (`{torch: 2.14.0}`), for any distribution
  named there;
- else, for a package stood in for, the exact pin (`torch==2.14.0`) in the requirements of the
  registry's own installed distribution (vLLM's wheel pins the torch it is built for): the
  project's lock, as its docs machine would read it from its requirement files.

Nothing else: an installed distribution is always the real one, a distribution nobody pins is
not found (as without argmatrix), and `importlib.metadata.distributions()` (every distribution,
no name) lists none of these.
"""

from __future__ import annotations

import importlib.abc
import importlib.metadata
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import PurePosixPath
from typing import Any

# `name==1.2.3` with optional extras and a marker: an exact pin of a requirement.
_PIN = re.compile(
    r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*===?\s*([^\s,;()*]+)\s*\)?\s*"
)


def normalized(name: str) -> str:
    """A distribution's name as the packaging rules compare it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


class StandInDistribution(importlib.metadata.Distribution):
    """A distribution that exists only as its name and version: no files, no entry points."""

    def __init__(self, name: str, version: str) -> None:
        self._text = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"

    def read_text(self, filename: str) -> str | None:
        return self._text if filename in ("METADATA", "PKG-INFO") else None

    def locate_file(self, path: Any) -> Any:  # no file is there: a path that names none
        return PurePosixPath("<stand-in>") / str(path)


class Versions:
    """What `importlib.metadata` answers for a distribution that is not installed: the table of
    argmatrix.yaml, else the registry's own pin of it if `stood_in` says its package is stood in
    for (the pins read once, when first needed)."""

    def __init__(
        self,
        table: Mapping[str, str],
        owners: Iterable[str],
        stood_in: Callable[[str], bool] = lambda package: False,
    ) -> None:
        self.table = {normalized(name): version for name, version in table.items()}
        self.owners = tuple(owners)
        self.stood_in = stood_in
        self._pins: dict[str, str] | None = None

    def of(self, name: str) -> str | None:
        """The version answered for the distribution `name`; None: it is not found."""
        key = normalized(name)
        if key in self.table:
            return self.table[key]
        if not self.stood_in(key.replace("-", "_")):
            return None
        return self.pins().get(key)

    def pins(self) -> dict[str, str]:
        if self._pins is None:
            self._pins = {}
            for owner in _distributions_of(self.owners):
                for name, version in _exact_pins(owner).items():
                    self._pins.setdefault(name, version)
        return self._pins


def _distributions_of(packages: Iterable[str]) -> list[importlib.metadata.Distribution]:
    """The installed distributions that provide these top-level packages (vllm -> vllm)."""
    provided = importlib.metadata.packages_distributions()
    found: list[importlib.metadata.Distribution] = []
    for package in packages:
        for name in dict.fromkeys(provided.get(package, ())):
            try:
                found.append(importlib.metadata.distribution(name))
            except importlib.metadata.PackageNotFoundError:
                continue
    return found


def _exact_pins(distribution: importlib.metadata.Distribution) -> dict[str, str]:
    """`name==version` requirements of a distribution that hold here (no extra; a marker is
    evaluated where `packaging` is installed, and such a pin is left out where it is not)."""
    pins: dict[str, str] = {}
    for line in distribution.requires or ():
        requirement, _, marker = line.partition(";")
        match = _PIN.fullmatch(requirement)
        if match is None or not _holds(marker.strip()):
            continue
        pins.setdefault(normalized(match.group(1)), match.group(2))
    return pins


def _holds(marker: str) -> bool:
    if not marker:
        return True
    try:
        from packaging.markers import Marker  # type: ignore[import-not-found,unused-ignore]

        return bool(Marker(marker).evaluate({"extra": ""}))
    except Exception:  # no packaging, or a marker it cannot read: the pin is not known to hold
        return False


class VersionFinder(importlib.abc.MetaPathFinder):
    """On `sys.meta_path` (last, so an installed distribution wins): a named distribution that
    `versions` knows, found by `importlib.metadata.version()`, `distribution()`, `metadata()`."""

    def __init__(self, versions: Versions) -> None:
        self.versions = versions

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        return None

    def find_distributions(self, context: Any = None) -> Iterator[StandInDistribution]:
        name = getattr(context, "name", None)
        if not isinstance(name, str) or not name or not self._asked_by_owner():
            return iter(())
        version = self.versions.of(name)
        if version is None:
            return iter(())
        return iter((StandInDistribution(name, version),))

    def _asked_by_owner(self) -> bool:
        """Whether the code that asked `importlib.metadata` is the registry's own. Another
        library probing for an optional dependency (transformers' `is_torch_available()`) is
        told what it would be told without argmatrix: not installed."""
        frame: Any = sys._getframe(2)
        while frame is not None and _metadata_machinery(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None:
            return False
        module = str(frame.f_globals.get("__name__", ""))
        return module.split(".", 1)[0] in self.versions.owners


def _metadata_machinery(filename: str) -> bool:
    """A frame of `importlib.metadata` (or its backport), which asks the finders for whoever
    called it."""
    path = filename.replace("\\", "/")
    return "/importlib/metadata/" in path or "/importlib_metadata/" in path
