"""`make bench`: argmatrix projects over the real registries, as a team would set one up.

Each has the registry read statically (the reading a CI job does), a capability manifest that
classifies every third argument, the server-arguments page and that platform's support page.
The 0.5.7 and 0.5.23 sglang showcases are the repository's own configurations; RTP-LLM's and
lmdeploy's are written into a scratch folder.
"""

from __future__ import annotations

import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
SHARED = ROOT.parent / "shared" / "real-registries"
STATUSES = ("supported", "experimental", "unverified")


@dataclass(frozen=True)
class RealProject:
    """A project over a real registry: where to run argmatrix, and the options it needs."""

    name: str
    cwd: Path
    options: tuple[str, ...] = ()


def _unpack(archive: Path, folder: Path) -> Path:
    with tarfile.open(archive) as opened:
        if hasattr(tarfile, "data_filter"):
            opened.extractall(folder, filter="data")
        else:
            opened.extractall(folder)
    return folder


def _manifest(flags: list[str], name: str) -> str:
    lines = [f"platform: {name}", f"title: Platform {name}", "default: unverified", "arguments:"]
    for index, flag in enumerate(flags[::3]):
        lines.append(f"  {json.dumps(flag)}: {STATUSES[index % len(STATUSES)]}")
    return "\n".join(lines) + "\n"


def _write(root: Path, registry: dict[str, object], flags: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "capabilities").mkdir(exist_ok=True)
    (root / "capabilities" / "npu.yaml").write_text(_manifest(flags, "npu"))
    config = {
        "registry": registry,
        "manifests": ["capabilities/npu.yaml"],
        "docs_dir": "docs",
        "pages": [
            {"template": "server_arguments.md.j2", "output": "server_arguments.md"},
            {"template": "platform_support.md.j2", "output": "npu.md", "platform": "npu"},
        ],
    }
    (root / "argmatrix.yaml").write_text(json.dumps(config, indent=2) + "\n")  # JSON is YAML
    return root


def _flags(registry: dict[str, object], cwd: Path) -> list[str]:
    from argmatrix.loaders.load import RegistrySpec, load_registry

    settings = dict(registry)
    settings.pop("mode")
    search = tuple(str(cwd / p) for p in settings.pop("search_path"))  # type: ignore[attr-defined]
    subcommand = tuple(settings.pop("subcommand", ()))  # type: ignore[call-overload]
    spec = RegistrySpec(
        str(settings.pop("target")), mode="static", search_path=search, subcommand=subcommand
    )
    return [a.flags[0] for a in load_registry(spec).arguments if a.flags]


def real_projects(scratch: Path) -> list[RealProject]:
    """The projects whose inputs are on this machine (`make bench` builds them)."""
    found = [RealProject("sglang 0.5.7 (the showcase)", ROOT)]
    if (CACHE / "sglang-0.5.23").is_dir():
        found.append(
            RealProject(
                "sglang 0.5.23", ROOT, ("--config", "showcase/sglang-0.5.23/argmatrix.yaml")
            )
        )
    archives = sorted(SHARED.glob("rtp-llm-*.tgz"))
    if archives:
        root = scratch / "rtp-llm"
        _unpack(archives[-1], root / "src")
        registry: dict[str, object] = {
            "target": "rtp_llm.server.server_args.server_args:setup_args",
            "mode": "static",
            "search_path": ["src"],
        }
        found.append(RealProject("RTP-LLM", _write(root, registry, _flags(registry, root))))
    if (CACHE / "lmdeploy-0.18.0").is_dir():
        root = scratch / "lmdeploy"
        registry = {
            "target": "lmdeploy.cli.entrypoint:run",
            "mode": "static",
            "subcommand": ["serve", "api_server"],
            "search_path": [str(CACHE / "lmdeploy-0.18.0")],
        }
        found.append(RealProject("lmdeploy 0.18.0", _write(root, registry, _flags(registry, root))))
    return found
