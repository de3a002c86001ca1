"""Synthetic registries and manifests at any scale, for the benchmark and the robustness tests."""

from __future__ import annotations

from pathlib import Path

STATUSES = ("supported", "experimental", "planned", "unverified")


def registry_source(arguments: int, sections: int = 20, help_size: int = 60) -> str:
    """A registry module in SGLang's style: comment-marked sections, choices, f-string help."""
    lines = [
        '"""A synthetic registry written by argmatrix\'s benchmark."""',
        "",
        "import argparse",
        "",
        'MODES = ["fast", "balanced", "careful"]',
        "",
        "",
        "def add_cli_args(parser: argparse.ArgumentParser) -> None:",
    ]
    per_section = max(1, -(-arguments // sections))
    filler = ("word " * (help_size // 5 + 1))[:help_size].strip()
    for index in range(arguments):
        if index % per_section == 0:
            lines += ["", f"    # Section {index // per_section:03d}"]
        kind = index % 4
        flag = f"--option-{index:05d}"
        if kind == 0:
            lines.append(
                f'    parser.add_argument("{flag}", type=int, default={index}, '
                f'help="Count {index}: {filler}")'
            )
        elif kind == 1:
            lines.append(
                f'    parser.add_argument("{flag}", action="store_true", '
                f'help=f"Switch {index} ({{MODES[0]}}): {filler}")'
            )
        elif kind == 2:
            lines.append(
                f'    parser.add_argument("{flag}", default="fast", choices=MODES, '
                f'help="Mode {index}: {filler}")'
            )
        else:
            lines.append(
                f'    parser.add_argument("{flag}", "--o{index}", type=float, '
                f'default=0.5, help="Ratio {index}: {filler}")'
            )
    return "\n".join(lines) + "\n"


def manifest_source(name: str, arguments: int, seed: int) -> str:
    lines = [
        f"platform: {name}",
        f"title: Platform {name}",
        "variants: [V1, V2]",
        "default: unverified",
        "arguments:",
    ]
    for index in range(0, arguments, 3):
        status = STATUSES[(index + seed) % len(STATUSES)]
        if status == "supported" and index % 2:
            lines.append(f"  --option-{index:05d}: {{status: supported, variants: [V2]}}")
        else:
            lines.append(f"  --option-{index:05d}: {status}")
    return "\n".join(lines) + "\n"


def write_project(root: Path, arguments: int, platforms: int, help_size: int = 60) -> Path:
    """A complete argmatrix project: registry, manifests, config with every page."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "synthetic_registry.py").write_text(registry_source(arguments, help_size=help_size))
    manifests = root / "capabilities"
    manifests.mkdir(exist_ok=True)
    pages = ["  - {template: server_arguments.md.j2, output: server_arguments.md}"]
    names = []
    for number in range(platforms):
        name = f"p{number:02d}"
        names.append(f"  - capabilities/{name}.yaml")
        (manifests / f"{name}.yaml").write_text(manifest_source(name, arguments, number))
        pages.append(
            f"  - {{template: platform_support.md.j2, output: {name}.md, platform: {name}}}"
        )
    (root / "argmatrix.yaml").write_text(
        "\n".join(
            [
                "registry: {target: 'synthetic_registry:add_cli_args', mode: static}",
                "manifests:",
                *names,
                "docs_dir: docs",
                "pages:",
                *pages,
            ]
        )
        + "\n"
    )
    return root
