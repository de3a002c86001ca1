"""Stand-ins as values a registry handles (issue 32): what vLLM's argument helpers do with
torch's values when torch is not installed, on a fixture of our own
(tests/fixtures/registries/versioned/: `gpu_values_cli`, whose tensor library is not installed
and whose own metadata pins it), and the stand-ins themselves.

- deep-copied, copied, pickled, hashed, checked with isinstance/issubclass, subclassed;
- `stand-in | Literal[...]` keeps the Literal (its choices reach the page);
- `importlib.metadata.version()` answers a stood-in distribution from the registry's own pins or
  from `registry.versions`, for the registry's code only; a distribution nobody pins is said to
  be missing as a distribution, at the registry's line;
- an error is located at the registry's own innermost frame, and a defect of argmatrix's
  stand-ins is never blamed on the registry."""

from __future__ import annotations

import copy
import importlib.metadata
import pickle
import shutil
import typing
from pathlib import Path
from typing import Any, Literal, Optional, Union, get_args

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.live import mocking
from argmatrix.loaders.live.mocking import Stub, StubModule, stand_ins
from argmatrix.loaders.live.versions import Versions
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.model.registry import Registry
from helpers import REGISTRIES, line_of

VERSIONED = REGISTRIES / "versioned"
CLI = VERSIONED / "gpu_values_cli" / "cli.py"
TENSOR_LIB = "not_installed_tensor_lib"


def live(target: str, base_dir: Path = VERSIONED, **settings: Any) -> Registry:
    return load_registry(RegistrySpec(target=target, base_dir=base_dir, mock=("auto",), **settings))


def refusal(target: str, base_dir: Path = VERSIONED, **settings: Any) -> str:
    with pytest.raises(ArgmatrixError) as caught:
        live(target, base_dir, **settings)
    (line,) = str(caught.value).splitlines()
    return line


def defaults(registry: Registry) -> dict[str, Any]:
    return {a.flags[0]: a.default for a in registry.arguments}


# ------------------------------------------------------------------ the stand-in as a value


def test_a_stand_in_is_copied_pickled_and_hashed_as_the_same_value() -> None:
    dtype = Stub("torch.float16")
    holder = {"dtype": dtype, "sizes": [dtype]}
    assert copy.copy(dtype) is dtype and copy.deepcopy(dtype) is dtype
    assert copy.deepcopy(holder) == holder
    unpickled = pickle.loads(pickle.dumps(holder))
    assert unpickled == holder and isinstance(unpickled["dtype"], Stub)
    assert str(unpickled["dtype"]) == str(dtype)  # still marked as a stand-in's text
    assert {dtype: 1}[Stub("torch.float16")] == 1 and hash(dtype) == hash(Stub("torch.float16"))
    assert Stub("torch.float16") != Stub("torch.bfloat16")


def test_a_stand_in_in_class_checks_and_as_a_base() -> None:
    tensor = Stub("torch.Tensor")
    assert not isinstance(3, tensor) and not issubclass(int, tensor)
    assert not isinstance(3, (tensor, str))
    assert not issubclass(tensor, int) and not issubclass(tensor, (dict, tensor))
    assert not isinstance(tensor, int) and isinstance(tensor, object)

    class Layer(Stub("torch.nn.Module")):  # type: ignore[misc]
        def __init__(self, width: int) -> None:
            super().__init__()
            self.width = width

    class Other(Stub("torch.nn.Module")):  # type: ignore[misc]
        pass

    assert Layer(4).width == 4
    assert Layer.__mro__[1] is Other.__mro__[1]  # one class per stand-in
    assert copy.deepcopy(Layer(2)).width == 2
    assert issubclass(Layer, Layer.__mro__[1]) and not issubclass(Layer, tensor)


@pytest.mark.parametrize(
    ("built", "members"),
    [
        (lambda s: s | Literal["auto", "bf16"], lambda s: (s, Literal["auto", "bf16"])),
        (lambda s: Literal["auto", "bf16"] | s, lambda s: (Literal["auto", "bf16"], s)),
        (lambda s: s | None, lambda s: (s, type(None))),
        (lambda s: int | s, lambda s: (int, s)),
    ],
    ids=["stand-in | Literal", "Literal | stand-in", "stand-in | None", "int | stand-in"],
)
def test_a_stand_in_in_a_union_keeps_the_real_side(built: Any, members: Any) -> None:
    """As typing's own `|` keeps a stand-in on the right (`Literal[...] | torch.dtype`), a
    stand-in on the left keeps the real side: the Literal's choices, the None."""
    dtype = Stub("torch.dtype")
    union = built(dtype)
    assert typing.get_origin(union) is Union
    assert get_args(union) == members(dtype)
    assert Optional[dtype] == dtype | None  # noqa: UP045  (typing.Optional of a stand-in)


def test_a_stand_in_ored_with_a_value_is_a_stand_in() -> None:
    assert isinstance(Stub("os.O_DIRECT") | 4, Stub) and isinstance(4 | Stub("os.O_DIRECT"), Stub)


def test_a_number_where_one_must_be_is_zero() -> None:
    long_max = Stub("torch.iinfo().max")
    assert (int(long_max), float(long_max), [1, 2][long_max]) == (0, 0.0, 1)


def test_a_stand_in_module_says_its_version_when_named_and_not_when_probed() -> None:
    module = StubModule("torch")
    module._stand_in_version = "2.14.0"
    assert module.__version__ == "2.14.0"  # `torch.__version__` written in the code
    assert getattr(module, "__version__", "N/A") == "N/A"  # probed by name


# ------------------------------------------------------------------ versions of distributions


@pytest.mark.slow
def test_the_registry_s_own_pins_answer_for_stood_in_distributions() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(VERSIONED))
        versions = Versions({}, ["gpu_values_cli"], lambda package: package == TENSOR_LIB)
        assert versions.pins() == {"not-installed-tensor-lib": "2.14.0"}  # no extra, no range
        assert versions.of("not_installed_tensor_lib") == "2.14.0"
        assert versions.of("Not-Installed-Tensor-Lib") == "2.14.0"
        assert versions.of("not-installed-accel-lib") is None  # a range, not a pin
        unstood = Versions({}, ["gpu_values_cli"])
        assert unstood.of("not-installed-tensor-lib") is None  # not stood in for: not answered
        table = Versions({"Not_Installed.Tensor-Lib": "2.11"}, ["gpu_values_cli"])
        assert table.of("not-installed-tensor-lib") == "2.11"  # the table wins, whoever asks


def test_importlib_metadata_answers_the_registry_and_no_other_library() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(VERSIONED))
        with stand_ins([TENSOR_LIB], owners=["gpu_values_cli"]):
            import not_installed_tensor_lib  # noqa: F401  (stood in for)

            namespace: dict[str, Any] = {"__name__": "gpu_values_cli.probe"}
            exec(
                "import importlib.metadata as m\nv = m.version('not-installed-tensor-lib')",
                namespace,
            )
            assert namespace["v"] == "2.14.0"
            with pytest.raises(importlib.metadata.PackageNotFoundError):
                importlib.metadata.version("not-installed-tensor-lib")  # asked by the tests
            assert not any(
                d.metadata["Name"] == "not-installed-tensor-lib"
                for d in importlib.metadata.distributions()
            )
        # afterwards, nothing is answered
        with pytest.raises(importlib.metadata.PackageNotFoundError):
            exec(
                "import importlib.metadata as m\nm.version('not-installed-tensor-lib')",
                dict(namespace),
            )


# ------------------------------------------------------------------ a registry read live


def test_a_registry_handles_stand_in_values_as_it_handles_real_ones() -> None:
    registry = live("gpu_values_cli.cli:add_cli_args")
    arguments = {a.flags[0]: a for a in registry.arguments}
    assert arguments["--dtype"].choices == ("auto", "bfloat16", "float16")
    assert defaults(registry) == {
        "--dtype": "auto",
        "--kernel": "fused",  # torch-like 2.14.0, as the registry's own metadata pins it
        "--library-version": "2.14.0",
        "--probe": "absent",  # another library's probe finds no such distribution
        "--kinds": 2,
    }
    assert registry.diagnostics == ()


def test_the_table_of_versions_wins_over_the_pins() -> None:
    registry = live(
        "gpu_values_cli.cli:add_cli_args", versions=(("not-installed-tensor-lib", "2.11.0"),)
    )
    assert defaults(registry)["--kernel"] == "eager"
    assert defaults(registry)["--library-version"] == "2.11.0"


def test_a_distribution_nobody_pins_is_said_missing_as_a_distribution() -> None:
    line = refusal("gpu_values_cli.cli:add_unpinned_args")
    at = line_of(CLI, '"not-installed-accel-lib"')
    assert line.startswith(f"{CLI}:{at}: building the parser with gpu_values_cli.cli:")
    assert "the distribution 'not-installed-accel-lib', which is not installed" in line
    assert "versions: {not-installed-accel-lib: X.Y}" in line
    assert "needs 'not-installed-accel-lib'" not in line  # not a missing module


@pytest.mark.slow
def test_a_stood_in_distribution_without_a_pin_says_so(tmp_path: Path) -> None:
    """The issue's first case: torch stood in for, `importlib.metadata.version("torch")` asked,
    no version known (no pins beside the package): the distribution is named, not the module."""
    for name in ("gpu_values_cli", "probe_lib.py", "checked_lib.py"):
        source = VERSIONED / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    line = refusal("gpu_values_cli.cli:add_cli_args", base_dir=tmp_path)
    cli = tmp_path / "gpu_values_cli" / "cli.py"
    assert line.startswith(f"{cli}:{line_of(cli, 'default=importlib.metadata.version(')}: ")
    assert (
        "the distribution 'not-installed-tensor-lib', which is not installed (a stand-in takes"
        " the place of its package)" in line
    )


def test_an_error_is_located_at_the_registry_s_own_innermost_frame() -> None:
    """checked_lib (another library) raises two frames below the registry's call: the call is
    the place, as for pydantic refusing a default (tests/test_live_pydantic.py)."""
    line = refusal("gpu_values_cli.cli:add_checked_args")
    assert line.startswith(f"{CLI}:{line_of(CLI, 'checked_lib.validated(-1)')}: ")
    assert "raised ValueError: -1 is not a count" in line
    assert "an error in the registry's own code" in line


def test_a_defect_of_the_stand_ins_is_argmatrix_s_not_the_registry_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stand-in that fails by a fault of its own (here its attribute lookup breaks, as its
    deep copy once recursed without end) is said to be argmatrix's, at the registry's line."""
    monkeypatch.setattr(mocking, "_PROXY_DEPTH", None)  # range(None) in the attribute lookup
    line = refusal("gpu_values_cli.cli:add_cli_args")
    assert line.startswith(f"{CLI}:{line_of(CLI, 'from not_installed_tensor_lib import nn')}: ")
    assert "argmatrix's stand-in failed with TypeError" in line
    assert "a defect of argmatrix, not of the registry's code" in line
    assert "an error in the registry's own code" not in line


def test_a_stand_in_refusing_a_probed_attribute_is_not_argmatrix_s_defect() -> None:
    with stand_ins([TENSOR_LIB]):
        import not_installed_tensor_lib as tl

        with pytest.raises(AttributeError) as caught:
            getattr(tl, "cuda")  # noqa: B009  (asked by name: probing)
    assert not mocking.failed_in_stand_in(caught.value)
