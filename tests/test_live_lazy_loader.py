"""A stand-in reached through a lazy proxy module (vLLM's `LazyLoader` for xgrammar and
llguidance): what the code names through the proxy is there, what it probes for is not."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry
from helpers import REGISTRIES

TARGET = "lazy_loader_cli:add_cli_args"


def read(**settings: Any) -> Registry:
    try:
        return load_registry(RegistrySpec(target=TARGET, base_dir=REGISTRIES, **settings))
    finally:
        sys.modules.pop("lazy_loader_cli", None)


@pytest.mark.parametrize(
    "settings", [{"auto_mock": True}, {"mock": ("not_installed_grammar_lib",)}], ids=str
)
@pytest.mark.slow
def test_an_attribute_named_through_a_lazy_proxy_is_a_stand_in(settings: dict[str, Any]) -> None:
    (argument,) = read(**settings).arguments
    assert argument.help == "Backend for the GrammarState of each request."


@pytest.mark.parametrize(
    "settings", [{"auto_mock": True}, {"mock": ("not_installed_grammar_lib",)}], ids=str
)
@pytest.mark.slow
def test_a_probe_through_a_lazy_proxy_finds_nothing(settings: dict[str, Any]) -> None:
    (argument,) = read(**settings).arguments
    assert argument.choices == ("guided",)  # hasattr(proxy, "npu_kernels") is False


def test_without_a_stand_in_the_missing_library_is_named() -> None:
    from argmatrix.errors import ArgmatrixError

    with pytest.raises(ArgmatrixError, match="not_installed_grammar_lib"):
        read()
