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
import functools
import io
import os
import re
import subprocess
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING

from argmatrix.errors import ArgmatrixError, Problem
from argmatrix.loaders.load import RegistrySpec, load_registry, warnings_to
from argmatrix.loaders.target import split_subcommands
from argmatrix.model.registry import Registry

if TYPE_CHECKING:
    from argmatrix.project import RegistryWarnings

MAX_MEMBER_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024  # of sources copied out
# Of every member, as declared: sglang's largest wheel (compiled kernels) is under 100 MB.
MAX_DECLARED_BYTES = 2 * 1024 * 1024 * 1024
MAX_MEMBERS = 100_000
MAX_DEPTH = 32
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


def release_sources(folder: str | None, named: Sequence[str], cwd: Path) -> list[ReleaseSource]:
    """The releases `argmatrix history` reads: those of `folder` (`--releases`), then those
    `named` (`--release LABEL=SOURCE`); at least one, each label once."""
    sources = releases_in(cwd / folder) if folder else []
    sources += [ReleaseSource.parse(text) for text in named]
    if not sources:
        raise ArgmatrixError(
            Problem("no releases to read", fix="name them with --release or --releases")
        )
    labels = [s.label for s in sources]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ArgmatrixError(
            Problem(
                f"release {repeated[0]!r} is named twice",
                fix="give each release its own label",
            )
        )
    return sources


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
    return entry.is_dir() or entry.name.endswith((".json", ".whl", ".tar.gz", ".tgz", ".zip"))


# A version in a file or folder name: dotted numbers after the start or a separator, with
# PEP 440's suffixes (`0.5.0rc2`, `0.5.1.post1`, `0.5.1.dev0`); `llama2-server-1.0` is 1.0.
_VERSION = re.compile(
    r"(?:^|(?<=[-_]))(\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?)(?![\w])"
)


def _version_in(name: str) -> str | None:
    """The version a release's name carries (`sglang-0.5.7-py3-none-any.whl` -> `0.5.7`)."""
    for suffix in (".whl", ".tar.gz", ".tgz", ".zip", ".json"):
        name = name.removesuffix(suffix)
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
    # A development release comes before the pre-releases of its version (PEP 440).
    rank = -1 if dev is not None and pre is None and post is None else _PRE_RANK[pre]
    return (
        tuple(int(p) for p in release.split(".")),
        rank,
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


def read_release(
    source: ReleaseSource, target: str, base_dir: Path, warnings: RegistryWarnings
) -> Registry:
    """One release, read statically; its diagnostics (said by `warnings`, as every command
    says them in the project) and its errors name the archive rather than the private folder
    its sources were copied into."""
    with release_read(source, target, base_dir) as read:
        try:
            with warnings_to(None):  # said below, as the configuration says them
                registry = load_registry(read.spec)
            warnings.say(registry, target, lambda text: read.shown(text, source.source))
            return registry
        except ArgmatrixError as error:
            raise ArgmatrixError(
                *(
                    replace(
                        p,
                        file=read.shown(p.file, source.source) if p.file else p.file,
                        message=f"release {source.label}: {read.shown(p.message, source.source)}",
                    )
                    for p in error.problems
                )
            ) from None


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
    elif source.endswith(ARCHIVE_SUFFIXES) and path.is_file():
        with _unpacked(path, source) as folder:
            sdist = source.endswith((".tar.gz", ".tgz"))
            yield _static(target, _package_root(folder) if sdist else folder, base_dir), folder
    else:
        raise ArgmatrixError.at(
            f"cannot read release {release.label!r} from {source!r}",
            file=str(path),
            fix=SOURCE_FIX,
        )


def _static(target: str, folder: Path, base_dir: Path) -> RegistrySpec:
    """Static reading of the release's folder only. Its base folder is the release's too: a
    static read searches its base folder first, and the current folder (the project's working
    tree, say) would otherwise hide the release. Words after the target name the subcommands
    that lead to the registry (`pkg.cli:run serve api_server`), as in `argmatrix.yaml`."""
    target, subcommand = split_subcommands(target)
    return RegistrySpec(
        target,
        mode="static",
        base_dir=folder,
        search_path=(str(folder),),
        subcommand=subcommand,
    )


ARCHIVE_SUFFIXES = (".whl", ".zip", ".tar.gz", ".tgz")


@contextlib.contextmanager
def sources_folder(path: Path, shown: str) -> Iterator[Path]:
    """The folder to read a registry's sources from: `path` itself, or for a wheel or an sdist
    its sources copied into a private temporary folder (as `history` reads a release), removed
    on leaving."""
    if path.is_file() and path.name.endswith(ARCHIVE_SUFFIXES):
        with _unpacked(path, shown) as folder:
            yield _package_root(folder) if path.name.endswith((".tar.gz", ".tgz")) else folder
    else:
        yield path


def _package_root(folder: Path) -> Path:
    """An sdist holds its sources one or two levels down (`name-1.0/`, `name-1.0/python/`):
    the folder to search is the one whose children are the packages. (A wheel holds them at
    its top.)"""
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
    # Only the sources (a pathspec's `*` crosses folders), so a large repository's other files
    # never reach memory. A revision never starts with `-` (refused above): no option injection.
    prefix = f"{folder.rstrip('/')}/" if folder else ""
    # One pathspec for .py and .pyi (git refuses a pathspec that matches nothing).
    command = ["git", "-C", str(base_dir), "archive", "--format=tar", revision, "--"]
    command.append(f"{prefix}*.py*")
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
            _write_sources(_members(archive), root, where)
        except ArgmatrixError:
            raise
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            tarfile.TarError,
            OSError,
            EOFError,
            RuntimeError,  # an encrypted member
            NotImplementedError,  # a compression method Python does not have
            ValueError,
            zlib.error,
        ) as exc:
            shown = str(exc).replace(f"{root}{os.sep}", "")
            raise ArgmatrixError.at(
                f"cannot read the archive: {shown}", file=where, fix=SOURCE_FIX
            ) from None
        yield root


Member = tuple[str, int, Callable[[], IO[bytes]] | None]


def _members(archive: Path | bytes) -> Iterator[Member]:
    """(name, declared size, opener) of every member; only regular files can be opened (links,
    devices and folders get None), and nothing is opened unless asked (an encrypted or oddly
    compressed member that is not a source is never read)."""
    if isinstance(archive, Path) and archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as bundle:
            for info in bundle.infolist():
                regular = not info.is_dir() and (info.external_attr >> 28) in (0, 0o10)
                opener = functools.partial(bundle.open, info) if regular else None
                yield info.filename, info.file_size, opener
        return
    source = {"fileobj": io.BytesIO(archive)} if isinstance(archive, bytes) else {"name": archive}
    with tarfile.open(mode="r:*", **source) as bundle:
        for member in bundle:
            opener = functools.partial(_extracted, bundle, member) if member.isreg() else None
            yield member.name, member.size, opener


def _extracted(bundle: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    reader = bundle.extractfile(member)
    assert reader is not None  # a regular file
    return reader


def _write_sources(members: Iterator[Member], root: Path, where: str) -> None:
    """Copy the sources out, within the bounds: the declared size of every member counts
    (skipping a member of a compressed tar decompresses it), so a small file that unpacks to
    gigabytes stops at its header; so do a million members."""
    declared = written = count = 0
    for name, size, opener in members:
        count += 1
        declared += max(size, 0)
        if count > MAX_MEMBERS or declared > MAX_DECLARED_BYTES:
            _too_large(where, name)
        relative = _safe_name(name)
        if opener is None or relative is None or not relative.name.endswith(SOURCE_SUFFIXES):
            continue
        with opener() as reader:
            data = reader.read(MAX_MEMBER_BYTES + 1)
        written += len(data)
        if len(data) > MAX_MEMBER_BYTES or written > MAX_TOTAL_BYTES:
            _too_large(where, name)
        path = root.joinpath(*relative.parts)
        if path.is_dir():
            continue  # a folder of that name came first: the member cannot be a module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _too_large(where: str, name: str) -> None:
    raise ArgmatrixError.at(
        f"the archive is larger than argmatrix reads (at {name[:100]!r})",
        file=where,
        fix="point at the intended release; argmatrix reads nothing this large",
    )


def _safe_name(name: str) -> PurePosixPath | None:
    """A member name as a relative path inside the folder, or None (absolute, `..`, too deep
    or too long for a file system, odd characters)."""
    path = PurePosixPath(name.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("", ".")]
    if (
        path.is_absolute()
        or not parts
        or len(parts) > MAX_DEPTH
        or any(p == ".." or "\x00" in p or len(p.encode()) > 255 for p in parts)
    ):
        return None
    return PurePosixPath(*parts)
