"""`registry:` of the configuration: the target, the mode, mocks, and the settings of a live
import (parser class, environment, argv, arguments, subcommands), as a `RegistrySpec`."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from argmatrix._runtime.files import within
from argmatrix._runtime.yamlfile import line_of
from argmatrix.config.fields import _shown, _unknown_keys
from argmatrix.errors import Problem, has_control
from argmatrix.loaders.load import AUTO_MOCK, RegistrySpec, split_mock
from argmatrix.loaders.modes import LOADERS, MODES, mode_named_by
from argmatrix.loaders.target import split_subcommands

REGISTRY_KEYS = (
    "target",
    "mode",
    "mock",
    "search_path",
    "parser_class",
    "env",
    "argv",
    "args",
    "kwargs",
    "versions",
    "subcommand",
)


def _registry(
    raw: Any, root: Path, project: Path, where: str, line: int | None, problems: list[Problem]
) -> RegistrySpec | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = {"target": raw}
    if not isinstance(raw, dict):
        problems.append(Problem("'registry' must be a mapping with 'target'", where, line))
        return None
    _unknown_keys(raw, REGISTRY_KEYS, "registry: ", where, problems)
    target = raw.get("target")
    if not isinstance(target, str) or not target:
        problems.append(
            Problem(
                "registry: 'target' is missing",
                where,
                line,
                fix="write 'target: module:callable' or a snapshot path",
            )
        )
        return None
    mode = raw.get("mode", mode_named_by(target))
    if mode not in MODES:
        problems.append(
            Problem(
                f"registry: unknown mode {mode!r}",
                where,
                line_of(raw, "mode"),
                f"use one of: {', '.join(MODES)}",
            )
        )
        return None
    if has_control(target):
        problems.append(
            Problem(
                f"registry: target {target!r} contains a NUL or control character",
                where,
                line_of(raw, "target") or line,
                "write a plain module:callable or file path",
            )
        )
        return None
    loader = LOADERS[mode]
    if loader.target_is_file and not within(os.path.realpath(root / target), project):
        problems.append(
            Problem(
                f"registry: {mode} {target!r} is outside the project ({project})",
                where,
                line_of(raw, "target") or line,
                "keep the snapshot inside the project",
            )
        )
        return None
    mock = raw.get("mock", [])
    if mock == AUTO_MOCK:
        mock = [AUTO_MOCK]
    if not isinstance(mock, list) or not all(isinstance(m, str) for m in mock):
        problems.append(
            Problem(
                "registry: 'mock' must be a list of module names, or 'auto'",
                where,
                line_of(raw, "mock"),
                "write 'mock: [torch, triton]', or 'mock: auto' for every module that fails to"
                " import",
            )
        )
        mock = []
    search = raw.get("search_path")
    search_path = None
    if search is not None:
        if not isinstance(search, list) or not all(isinstance(s, str) for s in search):
            problems.append(
                Problem(
                    "registry: 'search_path' must be a list of folders",
                    where,
                    line_of(raw, "search_path"),
                )
            )
        else:
            search_path = tuple(str(root / s) for s in search)
    mock_names, auto_mock = split_mock(mock)
    live = _live_settings(raw, where, problems)
    target, words = split_subcommands(target) if loader.subcommand_words else (target, ())
    if words and live.get("subcommand"):
        problems.append(
            Problem(
                "registry: subcommands are named both after the target and in 'subcommand'",
                where,
                line_of(raw, "subcommand"),
                "name them in one place",
            )
        )
    live["subcommand"] = words or live.get("subcommand", ())
    return RegistrySpec(
        target=target,
        mode=mode,
        mock=mock_names,
        base_dir=root,
        search_path=search_path,
        auto_mock=auto_mock,
        **live,
    )


def _live_settings(raw: dict[str, Any], where: str, problems: list[Problem]) -> dict[str, Any]:
    """`parser_class`, `env`, `argv`, `args`, `kwargs` and `subcommand` of `registry:`,
    checked; each bad value is one problem at its line."""
    settings: dict[str, Any] = {}

    def bad(key: str, message: str, fix: str) -> None:
        problems.append(Problem(f"registry: {message}", where, line_of(raw, key), fix))

    if "parser_class" in raw:
        value = raw["parser_class"]
        if _is_module_name(value):
            settings["parser_class"] = value
        else:
            bad(
                "parser_class",
                f"'parser_class' {_shown(value)} is not of the form module:Class",
                "name the class like 'vllm.utils.argparse_utils:FlexibleArgumentParser'",
            )
    if "env" in raw:
        env = _env(raw["env"])
        if env is None:
            bad(
                "env",
                "'env' must map variable names to text or numbers",
                "write it like 'env: {VLLM_TARGET_DEVICE: cpu}' (quote true/false/on/off)",
            )
        else:
            settings["env"] = env
    if "argv" in raw:
        argv = _words(raw["argv"])
        if argv is None:
            bad(
                "argv",
                "'argv' must be a list of command-line words",
                "write the words after the program name, like 'argv: [serve, --help]'",
            )
        else:
            settings["argv"] = argv
    if "args" in raw:
        if isinstance(raw["args"], list):
            settings["args"] = tuple(_plain(v) for v in raw["args"])
        else:
            bad("args", "'args' must be a list of values", "write it like 'args: [7, text]'")
    if "kwargs" in raw:
        kwargs = raw["kwargs"]
        if isinstance(kwargs, dict) and all(
            isinstance(k, str) and k.isidentifier() for k in kwargs
        ):
            settings["kwargs"] = tuple((k, _plain(v)) for k, v in kwargs.items())
        else:
            bad(
                "kwargs",
                "'kwargs' must map parameter names to values",
                "write it like 'kwargs: {configs: {call: 'pkg.config:Configs'}}'",
            )
    if "versions" in raw:
        versions = _versions(raw["versions"])
        if versions is None:
            bad(
                "versions",
                "'versions' must map distribution names to versions written as text",
                "write it like 'versions: {torch: \"2.14.0\"}' (quote a version such as 2.10,"
                " which YAML reads as a number)",
            )
        else:
            settings["versions"] = versions
    if "subcommand" in raw:
        value = raw["subcommand"]
        words = tuple(value.split()) if isinstance(value, str) else _words(value)
        if words is None or not all(w and not has_control(w) for w in words):
            bad(
                "subcommand",
                "'subcommand' must be a list of subcommand names",
                "write the path from the target's parser, like 'subcommand: [serve, api_server]'",
            )
        else:
            settings["subcommand"] = words
    return settings


def _is_module_name(value: Any) -> bool:
    """`module.path:Name.attr`: dotted Python names on both sides of one colon."""
    if not isinstance(value, str):
        return False
    module, sep, attr = value.partition(":")
    return bool(sep) and all(
        part.isidentifier() for half in (module, attr) for part in half.split(".")
    )


def _env(value: Any) -> tuple[tuple[str, str], ...] | None:
    if not isinstance(value, dict):
        return None
    env: list[tuple[str, str]] = []
    for name, setting in value.items():
        if (
            not isinstance(name, str)
            or not name
            or "=" in name
            or "\0" in name
            or isinstance(setting, bool)
            or not isinstance(setting, (str, int, float))
            or "\0" in str(setting)
        ):
            return None
        env.append((name, str(setting)))
    return tuple(env)


def _versions(value: Any) -> tuple[tuple[str, str], ...] | None:
    """`{torch: 2.14.0}`: names of distributions and their versions, as text (a float is
    refused: YAML reads 2.10 as 2.1)."""
    if not isinstance(value, dict):
        return None
    found: list[tuple[str, str]] = []
    for name, version in value.items():
        if (
            not isinstance(name, str)
            or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name)
            or isinstance(version, bool)
            or not isinstance(version, (str, int))
            or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*", str(version))
        ):
            return None
        found.append((name, str(version)))
    return tuple(found)


def _words(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(
        isinstance(w, (str, int, float)) and not isinstance(w, bool) for w in value
    ):
        return None
    words = tuple(str(w) for w in value)
    return None if any("\0" in w for w in words) else words


def _plain(value: Any) -> Any:
    """A YAML value as plain Python data (the loader's mappings and lists carry line numbers)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
