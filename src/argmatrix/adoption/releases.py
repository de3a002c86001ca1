"""Where the releases of a registry come from, for `argmatrix history`: a snapshot, a folder of
sources (a `pip install --no-deps --target` folder), a wheel or an sdist on disk, or a git
revision of the project's own repository.

Archives and revisions are never installed or checked out: their Python sources (`.py`, `.pyi`)
are copied into a private temporary folder, which static reading then reads like any folder.
Only regular files with relative names that stay inside the folder are copied (no links, no
`..`, no absolute paths), each at most `MAX_MEMBER_BYTES` and all together at most
`MAX_TOTAL_BYTES`, so a hostile archive can neither write outside the folder nor fill the disk.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import RegistrySpec

MAX_MEMBER_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024
SOURCE_SUFFIXES = (".py", ".pyi")
SOURCE_FIX = "name a snapshot (.json), a folder, a wheel (.whl), an sdist (.tar.gz) or git:REVISION"


@dataclass(frozen=True)
class ReleaseSource:
    """One release as the command line names it: `LABEL=SOURCE`."""

    label: str
    source: str

    @classmethod
    def parse(cls, text: str) -> ReleaseSource:
        label, equals, source = text.partition("=")
        if not equals or not label.strip() or not source.strip():
            raise ArgmatrixError.at(
                f"cannot read the release {text!r}",
                file="<command line>",
                fix="write LABEL=SOURCE, e.g. 0.5.7=releases/sglang-0.5.7",
            )
        return cls(label.strip(), source.strip())


def releases_in(folder: Path) -> list[ReleaseSource]:
    """Every release in a folder: its snapshots, wheels, sdists and sub-folders, labelled by the
    version in their names and ordered by it (`sglang-0.5.10` after `sglang-0.5.9`)."""
    if not folder.is_dir():
        raise ArgmatrixError.at(
            "the releases folder does not exist",
            file=str(folder),
            fix="create it, or name each release with --release LABEL=SOURCE",
        )
    found = [
        ReleaseSource(version, str(entry))
        for entry in folder.iterdir()
        if (version := _version_in(entry.name)) is not None and _is_release(entry)
    ]
    return sorted(found, key=lambda r: (_version_key(r.label), r.source))


def _is_release(entry: Path) -> bool:
    return entry.is_dir() or entry.name.endswith((".json", ".whl", ".tar.gz", ".zip"))


_VERSION = re.compile(r"(\d+(?:\.\d+)*(?:(?:a|b|rc|\.post|\.dev)\d+)?)")


def _version_in(name: str) -> str | None:
    """The version a file or folder name carries: the first dotted number after the package
    name (`sglang-0.5.7-py3-none-any.whl` -> `0.5.7`)."""
    match = _VERSION.search(name)
    return match.group(1) if match else None


_PARTS = re.compile(r"(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?")
_PRE_RANK = {"a": 0, "b": 1, "rc": 2, None: 3}


def _version_key(version: str) -> tuple[tuple[int, ...], int, int, int, int]:
    """Release order: `0.5.0rc2` < `0.5.0` < `0.5.0.post1` < `0.5.1`; `0.5.10` after `0.5.9`."""
    match = _PARTS.fullmatch(version)
    if match is None:
        return ((), 0, 0, 0, 0)
    release, pre, pre_number, post, dev = match.groups()
    return (
        tuple(int(p) for p in release.split(".")),
        _PRE_RANK[pre],
        int(pre_number or 0),
        int(post) if post is not None else -1,
        int(dev) if dev is not None else 1 << 30,
    )


@dataclass(frozen=True)
class ReleaseRead:
    """How to read one release, and the private folder its sources were copied into (whose
    name means nothing to a reader: diagnostics name the archive instead)."""

    spec: RegistrySpec
    unpacked: Path | None = None

    def shown(self, text: str, source: str) -> str:
        """`text` with the private folder written as `SOURCE!` (as in `release.whl!pkg/mod.py`)."""
        if self.unpacked is None:
            return text
        return text.replace(f"{self.unpacked}{os.sep}", f"{source}!")


@contextlib.contextmanager
def release_read(release: ReleaseSource, target: str, base_dir: Path) -> Iterator[ReleaseRead]:
    """How to read one release statically (a snapshot as it is)."""
    with _release_spec(release, target, base_dir) as (spec, unpacked):
        yield ReleaseRead(spec, unpacked)


@contextlib.contextmanager
def _release_spec(
    release: ReleaseSource, target: str, base_dir: Path
) -> Iterator[tuple[RegistrySpec, Path | None]]:
    source = release.source
    if source.startswith("git:"):
        subfolder = source[4:].partition(":")[2]
        inside = _safe_name(subfolder) if subfolder else PurePosixPath()
        if inside is None:
            raise ArgmatrixError.at(
                f"cannot read the folder {subfolder!r} of a revision",
                file="<command line>",
                fix="name a folder inside the repository, e.g. git:v0.5.7:python",
            )
        with _unpacked(_git_archive(source[4:], base_dir), source) as folder:
            yield _static(target, folder.joinpath(*inside.parts), base_dir), folder
        return
    path = (base_dir / source).resolve()
    if source.endswith(".json"):
        yield RegistrySpec(str(path), mode="snapshot", base_dir=base_dir), None
    elif path.is_dir():
        yield _static(target, path, base_dir), None
    elif source.endswith((".whl", ".zip", ".tar.gz", ".tgz")) and path.is_file():
        with _unpacked(path, source) as folder:
            yield _static(target, _package_root(folder), base_dir), folder
    else:
        raise ArgmatrixError.at(
            f"cannot read release {release.label!r} from {source!r}",
            file=str(path),
            fix=SOURCE_FIX,
        )


def _static(target: str, folder: Path, base_dir: Path) -> RegistrySpec:
    return RegistrySpec(target, mode="static", base_dir=base_dir, search_path=(str(folder),))


def _package_root(folder: Path) -> Path:
    """An sdist holds its sources one or two levels down (`name-1.0/`, `name-1.0/python/`):
    the folder to search is the one whose children are the packages."""
    entries = [e for e in folder.iterdir() if e.is_dir()]
    if len(entries) == 1 and not (entries[0] / "__init__.py").exists():
        inner = entries[0]
        for candidate in (inner / "src", inner / "python", inner):
            if candidate.is_dir() and any(c.is_dir() for c in candidate.iterdir()):
                return candidate
    return folder


# ------------------------------------------------------------------ copying sources out safely


def _git_archive(revision_and_folder: str, base_dir: Path) -> bytes:
    """A tar of the sources at a revision (`REV` or `REV:FOLDER`), made by git without touching
    the working tree."""
    revision, _, folder = revision_and_folder.partition(":")
    if not revision or revision.startswith("-"):
        raise ArgmatrixError.at(
            f"cannot read the git revision {revision_and_folder!r}",
            file="<command line>",
            fix="write git:REVISION or git:REVISION:FOLDER, e.g. git:v0.5.7:python",
        )
    command = ["git", "-C", str(base_dir), "archive", "--format=tar", revision]
    if folder:
        command += ["--", folder]
    try:
        done = subprocess.run(command, capture_output=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ArgmatrixError.at(
            f"cannot run git: {exc}", file=str(base_dir), fix="install git, or name a folder"
        ) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ArgmatrixError.at(
            f"git cannot archive {revision_and_folder!r}: {message[-1] if message else ''}",
            file=str(base_dir),
            fix="name a revision of this repository (a tag, branch or commit)",
        )
    return done.stdout


@contextlib.contextmanager
def _unpacked(archive: Path | bytes, where: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="argmatrix-release-") as folder:
        root = Path(folder)
        try:
            members = _members(archive)
            _write_sources(members, root, where)
        except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as exc:
            raise ArgmatrixError.at(
                f"cannot read the archive: {exc}", file=where, fix=SOURCE_FIX
            ) from None
        yield root


def _members(archive: Path | bytes) -> Iterator[tuple[str, int, io.BufferedIOBase | None]]:
    """(name, declared size, reader) of every regular file; links and devices get no reader."""
    if isinstance(archive, Path) and archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as bundle:
            for info in bundle.infolist():
                regular = not info.is_dir() and (info.external_attr >> 28) in (0, 0o10)
                yield info.filename, info.file_size, bundle.open(info) if regular else None  # type: ignore[misc]
        return
    source = {"fileobj": io.BytesIO(archive)} if isinstance(archive, bytes) else {"name": archive}
    with tarfile.open(mode="r:*", **source) as bundle:
        for member in bundle:
            reader = bundle.extractfile(member) if member.isreg() else None
            yield member.name, member.size, reader  # type: ignore[misc]


def _write_sources(
    members: Iterator[tuple[str, int, io.BufferedIOBase | None]], root: Path, where: str
) -> None:
    total = 0
    for name, size, reader in members:
        relative = _safe_name(name)
        if reader is None or relative is None or not relative.name.endswith(SOURCE_SUFFIXES):
            continue
        data = reader.read(MAX_MEMBER_BYTES + 1)
        total += len(data)
        if len(data) > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES or size > MAX_MEMBER_BYTES:
            raise ArgmatrixError.at(
                f"the archive's sources are larger than argmatrix reads ({name})",
                file=where,
                fix="point at the intended release; argmatrix reads nothing this large",
            )
        path = root.joinpath(*relative.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _safe_name(name: str) -> PurePosixPath | None:
    """A member name as a relative path inside the folder, or None (absolute, `..`, odd)."""
    path = PurePosixPath(name.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("", ".")]
    if path.is_absolute() or not parts or any(p == ".." or "\x00" in p for p in parts):
        return None
    return PurePosixPath(*parts)
