"""A project: the configuration with command-line overrides, its registry and its platforms.

Every front end (CLI commands, the MkDocs plugin, tests) builds one of these and reads the same
resolved model from it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from .cache import MISSING, cached, lookup
from .config import Config, find_config, load_config
from .errors import ArgmatrixError, Problem
from .manifest import load_manifest
from .model import Platform, Registry, json_value
from .parallel import can_fork, in_background
from .registry import (
    RegistrySpec,
    adopt_input_files,
    export_dict,
    guess_mode,
    input_files,
    load_registry,
    load_registry_and_files,
    mock_list,
    needs_reading,
)
from .resolve import ResolvedPlatform, resolve_platform


@dataclass
class Project:
    config: Config
    registry: Registry
    platforms: dict[str, Platform]

    @cached_property
    def resolved(self) -> dict[str, ResolvedPlatform]:
        return {name: resolve_platform(p, self.registry) for name, p in self.platforms.items()}

    @cached_property
    def input_files(self) -> list[str] | None:
        """Every file the project was read from; None when that cannot be known (live mode)."""
        assert self.config.registry is not None
        registry_files = input_files(self.config.registry)
        if registry_files is None:
            return None
        config_file = [str(self.config.file)] if self.config.file else []
        return [*registry_files, *(str(m) for m in self.config.manifests), *config_file]

    def pages(self) -> list[Any]:
        """Every configured page, rendered (or reused, when every input is as before), with
        the file it goes to resolved (symbolic links included) and checked before any page is
        read or rendered: see `outputs.resolve_outputs`."""
        from .render import render_project

        paths = self.output_paths()
        pages = render_project(self.config, self.registry, self.resolved, inputs=self.input_files)
        return [replace(page, path=path) for page, path in zip(pages, paths, strict=True)]

    def output_paths(self) -> list[Path]:
        """Where each page of the configuration goes: inside docs_dir, never an input."""
        from .outputs import project_inputs, resolve_outputs

        assert self.config.registry is not None
        registry_files = input_files(self.config.registry)
        inputs = project_inputs(self.config, registry_files)
        return resolve_outputs(self.config, self.config.pages, inputs)

    def export(self) -> dict[str, Any]:
        return export_dict(
            self.registry,
            {
                name: platform_export(resolved, self.registry)
                for name, resolved in self.resolved.items()
            },
        )


def platform_export(resolved: ResolvedPlatform, registry: Registry) -> dict[str, Any]:
    platform = resolved.platform
    arguments: dict[str, Any] = {}
    for argument in registry.arguments:
        capability = resolved.of(argument)
        arguments[argument.name] = {
            "status": capability.status,
            "variants": list(capability.variants),
            "options": json_value(list(capability.options))
            if capability.options is not None
            else None,
            "default": json_value(capability.effective_default(argument)),
            "note": capability.note,
            "reason": capability.reason,
        }
    return {"title": platform.title, "variants": list(platform.variants), "arguments": arguments}


def config_from_args(args: argparse.Namespace, cwd: Path | None = None) -> Config:
    """The configuration file, overridden by the command line's source options."""
    cwd = cwd or Path.cwd()
    config = load_config(find_config(getattr(args, "config", None), cwd), cwd)
    registry = config.registry
    target = getattr(args, "registry", None)
    mock = mock_list(getattr(args, "mock", None))
    if target:
        mode = guess_mode(target, bool(getattr(args, "static", False)))
        registry = RegistrySpec(target=target, mode=mode, mock=mock, base_dir=cwd)
    elif registry is not None:
        if getattr(args, "static", False) and registry.mode == "live":
            registry = replace(registry, mode="static")
        if mock:
            registry = replace(registry, mock=mock)
    if registry is None:
        raise ArgmatrixError.at(
            "no registry given",
            fix="pass --registry MODULE:CALLABLE (or a snapshot .json), or write argmatrix.yaml",
        )
    manifests = config.manifests
    if getattr(args, "manifest", None):
        manifests = tuple(cwd / m for m in args.manifest)
    return replace(config, registry=registry, manifests=manifests)


def _manifest_and_files(path: Path) -> tuple[Platform, list[str]]:
    return load_manifest(path), [str(path)]


def load_platforms(
    paths: tuple[Path, ...], read: dict[Path, Platform] | None = None
) -> dict[str, Platform]:
    """The manifests, in order; `read` holds those already read (from the cache)."""
    platforms: dict[str, Platform] = {}
    problems: list[Problem] = []
    for path in paths:
        try:
            platform = (read or {}).get(path) or cached(
                "manifest", (str(path),), partial(_manifest_and_files, path)
            )
        except ArgmatrixError as error:
            problems.extend(error.problems)
            continue
        if platform.name in platforms:
            problems.append(
                Problem(
                    f"platform {platform.name!r} is defined twice",
                    str(path),
                    1,
                    "give each manifest its own 'platform' name",
                )
            )
        platforms[platform.name] = platform
    if problems:
        raise ArgmatrixError(*problems)
    return platforms


def load_project(args: argparse.Namespace, cwd: Path | None = None) -> Project:
    config = config_from_args(args, cwd)
    return project_from_config(config, verbose=bool(getattr(args, "verbose", False)))


def project_from_config(config: Config, verbose: bool = False) -> Project:
    """The registry and the manifests; a manifest's problems are reported before the registry's.

    A static registry not in the cache is read in a forked process (the `argmatrix` command
    only) while this one reads the manifests and compiles the templates."""
    spec = config.registry
    assert spec is not None
    manifests = config.manifests
    known = {
        path: found
        for path in manifests
        if (found := lookup("manifest", (str(path),))) is not MISSING
    }
    if can_fork() and needs_reading(spec):
        from .render import compile_templates

        reading = in_background(lambda: load_registry_and_files(spec, verbose))
        try:
            platforms = load_platforms(manifests, known)
            compile_templates(config)
        except BaseException:
            reading.cancel()
            raise
        registry, files = reading.result()
        adopt_input_files(spec, files)
    else:
        platforms = load_platforms(manifests, known)
        registry = load_registry(spec, verbose=verbose)
    return Project(config, registry, platforms)


def load_registry_only(args: argparse.Namespace) -> Registry:
    config = config_from_args(args)
    assert config.registry is not None
    return load_registry(config.registry, verbose=bool(getattr(args, "verbose", False)))
