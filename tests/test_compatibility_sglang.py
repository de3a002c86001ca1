"""The worked example of docs/guide/compatibility.md, run: sglang 0.5.7 checked against a
baseline of sglang 0.5.2, both read statically (0.5.2 from .cache/sglang-0.5.2, which `make
old-sglang` provisions; 0.5.7 installed). The page's configuration, its output and its accept
list are read from the page itself, so the page cannot say what argmatrix does not print.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from argmatrix.adoption.registry_diff import diff_registries
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.snapshot import read_snapshot, snapshot_text
from helpers import REPO, run_cli_in_process

GUIDE = REPO / "docs" / "guide" / "compatibility.md"
OLD_DIR = REPO / ".cache" / "sglang-0.5.2"
TARGET = "sglang.srt.server_args:ServerArgs.add_cli_args"
RUN = "$ git checkout v0.5.7 && argmatrix check"
SOURCE = "python/sglang/srt/server_args.py"  # where the file is in sglang's repository


@pytest.fixture(scope="module")
def sglang_057() -> Path:
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations, "sglang 0.5.7 is not installed"
    folder = Path(next(iter(spec.submodule_search_locations))).parent
    assert (folder / "sglang-0.5.7.dist-info").is_dir()
    return folder


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The snapshot of sglang 0.5.2, as `argmatrix snapshot` writes it at that release."""
    if not (OLD_DIR / ".installed").is_file():
        pytest.fail(
            f"sglang 0.5.2 is not installed in {OLD_DIR} (fix: run `make old-sglang`)",
            pytrace=False,
        )
    registry = load_registry(RegistrySpec(TARGET, mode="static", search_path=(str(OLD_DIR),)))
    path = tmp_path_factory.mktemp("baseline") / "baseline.json"
    path.write_text(snapshot_text(registry), encoding="utf-8")
    return path


def guide_blocks(language: str) -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


def sglang_config(accepting: bool) -> str:
    """The guide's argmatrix.yaml for sglang, with or without its accept list."""
    blocks = [b for b in guide_blocks("yaml") if TARGET in b and ("accept:" in b) == accepting]
    assert len(blocks) == 1
    return blocks[0]


def project(tmp_path: Path, config: str, baseline: Path, sglang: Path) -> Path:
    """The guide's configuration in a checkout of sglang: `python` is where 0.5.7 is."""
    root = tmp_path / "sglang"
    (root / "compat").mkdir(parents=True)
    (root / "compat" / "baseline.json").write_bytes(baseline.read_bytes())
    assert "search_path: [python]" in config
    (root / "argmatrix.yaml").write_text(
        config.replace("search_path: [python]", f"search_path: [{sglang}]"), encoding="utf-8"
    )
    return root


def as_in_the_repository(output: str) -> str:
    """The report with sglang's source named as in its repository, not as installed here."""
    return re.sub(r"^\S*sglang/srt/server_args\.py:", f"{SOURCE}:", output, flags=re.MULTILINE)


def test_the_guide_shows_what_check_prints(
    tmp_path: Path, baseline: Path, sglang_057: Path
) -> None:
    root = project(tmp_path, sglang_config(accepting=False), baseline, sglang_057)
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1, result.err
    shown = [block for block in guide_blocks("console") if RUN in block]
    assert len(shown) == 1
    expected = shown[0].split(RUN + "\n", 1)[1]
    assert as_in_the_repository(result.out) == expected


def test_the_guides_accept_list_lets_check_pass(
    tmp_path: Path, baseline: Path, sglang_057: Path
) -> None:
    root = project(tmp_path, sglang_config(accepting=True), baseline, sglang_057)
    result = run_cli_in_process("check", cwd=root)
    assert (result.code, result.out) == (0, "argmatrix check: everything agrees\n"), result.out


def test_the_guides_account_of_the_diff(baseline: Path, sglang_057: Path) -> None:
    """The counts the guide gives, and the six deprecated arguments whose removal is no
    finding."""
    old = read_snapshot(baseline)
    new = load_registry(RegistrySpec(TARGET, mode="static", search_path=(str(sglang_057),)))
    diff = diff_registries(old, new, "0.5.2", "0.5.7")
    counts = diff.counts()
    text = " ".join(GUIDE.read_text(encoding="utf-8").split())
    assert (
        f"({counts['added']} arguments added, {counts['removed']} removed,"
        f" {counts['changed']} changed)"
    ) in text
    assert counts["renamed"] == 0
    deprecated = [a.name for a in diff.removed if a.deprecated]
    assert len(deprecated) == 6 and "six other removed arguments" in text
    assert all(name in text for name in deprecated[:2])
    kept = sorted(a.name for a in diff.removed if not a.deprecated)
    assert kept == ["--debug-tensor-dump-prefill-only", "--max-micro-batch-size"]
