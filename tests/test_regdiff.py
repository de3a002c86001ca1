"""`argmatrix diff`: sglang 0.5.2 -> 0.5.7 (both read statically), and small registries built here.

sglang 0.5.2's sources are in .cache/sglang-0.5.2, which `make old-sglang` provisions (a
prerequisite of `make test` and `make test-fast`); the facts asserted were checked by reading both
releases' server_args.py, and the test re-checks them in the files.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from argmatrix.adoption.registry_diff import diff_dict, diff_markdown, diff_registries
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.model.registry import Argument, Registry
from helpers import REGISTRIES, REPO, chdir, run_cli_in_process

OLD_DIR = REPO / ".cache" / "sglang-0.5.2"
TARGET = "sglang.srt.server_args:ServerArgs.add_cli_args"


@pytest.fixture(scope="session")
def sglang_052() -> Path:
    """sglang 0.5.2's sources, as `make old-sglang` installs them (a test installs nothing)."""
    if not (OLD_DIR / ".installed").is_file():
        pytest.fail(
            f"sglang 0.5.2 is not installed in {OLD_DIR} (fix: run `make old-sglang`)",
            pytrace=False,
        )
    assert (OLD_DIR / "sglang" / "srt" / "server_args.py").is_file()
    return OLD_DIR


@pytest.fixture(scope="session")
def sglang_057() -> Path:
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations, "sglang 0.5.7 is not installed"
    folder = Path(next(iter(spec.submodule_search_locations))).parent
    assert (folder / "sglang-0.5.7.dist-info").is_dir()
    return folder


@pytest.fixture(scope="session")
def snapshots(
    sglang_052: Path, sglang_057: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("snapshots")
    paths = []
    for name, search in (("sglang-0.5.2.json", sglang_052), ("sglang-0.5.7.json", sglang_057)):
        registry = load_registry(RegistrySpec(TARGET, mode="static", search_path=(str(search),)))
        path = folder / name
        path.write_text(snapshot_text(registry), encoding="utf-8")
        paths.append(path)
    assert "sglang" not in sys.modules, "static reading imported sglang"
    return paths[0], paths[1]


@pytest.fixture(scope="session")
def sglang_diff(snapshots: tuple[Path, Path]) -> dict[str, Any]:
    old, new = snapshots
    result = run_cli_in_process("diff", str(old), str(new), "--format", "json", cwd=REPO)
    assert result.code == 0, result.err
    return json.loads(result.out)


def server_args(folder: Path) -> str:
    return (folder / "sglang" / "srt" / "server_args.py").read_text(encoding="utf-8")


def changes_of(diff: dict[str, Any], flag: str) -> dict[str, Any]:
    matches = [c["changes"] for c in diff["changed"] if c["name"] == flag]
    assert len(matches) == 1, flag
    return matches[0]


# ------------------------------------------------------------------ sglang 0.5.2 -> 0.5.7


def test_the_facts_are_in_the_two_releases_sources(sglang_052: Path, sglang_057: Path) -> None:
    old, new = server_args(sglang_052), server_args(sglang_057)
    assert '"--otlp-traces-endpoint"' not in old and '"--otlp-traces-endpoint"' in new
    assert '"--enable-ep-moe"' in old and '"--enable-ep-moe"' not in new
    assert old.index("# Deprecated arguments") < old.index('"--enable-ep-moe"')
    assert "sm_group_num: int = 3" in old and "sm_group_num: int = 8" in new
    assert 'lora_backend: str = "triton"' in old and 'lora_backend: str = "csgmv"' in new
    assert 'LORA_BACKEND_CHOICES = ["triton", "csgmv", "ascend", "torch_native"]' in new


def test_an_added_argument(sglang_diff: dict[str, Any]) -> None:
    added = {a["name"]: a for a in sglang_diff["added"]}
    assert added["--otlp-traces-endpoint"]["default"] == "localhost:4317"
    assert added["--otlp-traces-endpoint"]["type"] == "str"
    assert "--otlp-traces-endpoint" not in {a["name"] for a in sglang_diff["removed"]}


def test_a_removed_argument(sglang_diff: dict[str, Any]) -> None:
    removed = {a["name"]: a for a in sglang_diff["removed"]}
    assert removed["--enable-ep-moe"]["action"] == "store_true"
    assert "--enable-ep-moe" not in {a["name"] for a in sglang_diff["added"]}


def test_changed_defaults_choices_and_types(sglang_diff: dict[str, Any]) -> None:
    assert changes_of(sglang_diff, "--sm-group-num") == {"default": {"old": 3, "new": 8}}
    lora = changes_of(sglang_diff, "--lora-backend")
    assert lora["default"] == {"old": "triton", "new": "csgmv"}
    assert lora["choices"] == {"old": None, "new": ["triton", "csgmv", "ascend", "torch_native"]}
    sampling = changes_of(sglang_diff, "--preferred-sampling-params")
    assert sampling == {"type": {"old": "str", "new": "loads"}}


def test_counts_are_the_lists(sglang_diff: dict[str, Any]) -> None:
    counts = sglang_diff["counts"]
    assert counts == {
        key: len(sglang_diff[key]) for key in ("added", "removed", "renamed", "changed")
    }
    assert counts["renamed"] == 0  # nothing kept its dest under a new flag in this release


def test_markdown_release_notes(snapshots: tuple[Path, Path]) -> None:
    old, new = snapshots
    result = run_cli_in_process(
        "diff",
        str(old),
        str(new),
        "--old-label",
        "sglang 0.5.2",
        "--new-label",
        "sglang 0.5.7",
        cwd=REPO,
    )
    assert result.code == 0, result.err
    text = result.out
    assert text.startswith("## Argument changes\n\nFrom `sglang 0.5.2` to `sglang 0.5.7`: ")
    assert "- `--otlp-traces-endpoint` (Logging): default `localhost:4317`\n" in text
    assert "- `--enable-ep-moe` (Deprecated arguments)\n" in text
    assert "- `--sm-group-num`: default `3` → `8`\n" in text
    assert "- `--lora-backend`: default `triton` → `csgmv`\n" in text
    assert (
        "- `--preferred-sampling-params`: type `str` → `JSON` (converter `str` → `loads`)\n" in text
    )
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert headings[:2] == ["### Added", "### Removed"]
    again = run_cli_in_process(
        "diff",
        str(old),
        str(new),
        "--old-label",
        "sglang 0.5.2",
        "--new-label",
        "sglang 0.5.7",
        cwd=REPO,
    )
    assert again.out == text


def test_reading_the_sources_directly_gives_the_same_diff(
    sglang_052: Path, sglang_057: Path, sglang_diff: dict[str, Any]
) -> None:
    result = run_cli_in_process(
        "diff",
        TARGET,
        TARGET,
        "--format",
        "json",
        "--old-path",
        str(sglang_052),
        "--new-path",
        str(sglang_057),
        cwd=REPO,
    )
    assert result.code == 0, result.err
    direct = json.loads(result.out)
    assert direct["old"] == f"{TARGET} ({sglang_052})"
    for key in ("counts", "added", "removed", "renamed", "changed"):
        assert direct[key] == sglang_diff[key], key


# ------------------------------------------------------------------ small registries


def arg(*flags: str, dest: str, **fields: Any) -> Argument:
    return Argument(flags=flags, dest=dest, section="Main", **fields)


OLD = Registry(
    "old",
    ("Main",),
    (
        arg("--alpha", dest="alpha", type="int", default=1),
        arg("--beta", "-b", dest="beta"),
        arg("--old-name", dest="gamma", default="x"),
        arg("--gone", dest="gone", action="store_true", default=False),
        arg("--mode", dest="mode", default="a", choices=("a", "b")),
        arg("--items", dest="items", nargs="+"),
        arg("--twin-a", dest="twin"),
        arg("--twin-b", dest="twin"),
    ),
)
NEW = Registry(
    "new",
    ("Main",),
    (
        arg("--fresh", dest="fresh", default=0, type="int"),
        arg("--alpha", dest="alpha", type="float", default=2.5),
        arg("--beta", "--bb", dest="beta"),
        arg("--new-name", dest="gamma", default="y"),
        arg("--mode", dest="mode", default="a", choices=("a", "c")),
        arg("--items", dest="items", nargs="*", action="append"),
        arg("--twin-c", dest="twin"),
    ),
)


def test_pairing_by_name_alias_and_dest() -> None:
    diff = diff_registries(OLD, NEW, "v1", "v2")
    assert [a.name for a in diff.added] == ["--fresh", "--twin-c"]
    # Two old arguments share the dest `twin`: which one became --twin-c is unknowable.
    assert [a.name for a in diff.removed] == ["--gone", "--twin-a", "--twin-b"]
    assert [(p.old.name, p.new.name) for p in diff.renamed] == [("--old-name", "--new-name")]
    assert [c.field for c in diff.renamed[0].changes] == ["default"]
    assert {p.new.name: [c.field for c in p.changes] for p in diff.changed} == {
        "--alpha": ["default", "type"],
        "--beta": ["flags"],
        "--mode": ["choices"],
        "--items": ["nargs", "action"],
    }


def test_markdown_of_small_registries_is_exact() -> None:
    assert (
        diff_markdown(diff_registries(OLD, NEW, "v1", "v2"))
        == """\
## Argument changes

From `v1` to `v2`: 2 added, 3 removed, 1 renamed, 4 changed.

### Added

- `--fresh` (Main): default `0`
- `--twin-c` (Main): default `None`

### Removed

- `--gone` (Main)
- `--twin-a` (Main)
- `--twin-b` (Main)

### Renamed

- `--old-name` → `--new-name`; default `x` → `y`

### Changed aliases

- `--beta`: aliases added `--bb`; aliases removed `-b`

### Changed defaults

- `--alpha`: default `1` → `2.5`

### Changed choices

- `--mode`: choices added `c`; choices removed `b`

### Changed types

- `--alpha`: type `int` → `float`

### Changed nargs

- `--items`: nargs `+` → `*`

### Changed actions

- `--items`: action `store` → `append`
"""
    )


def test_json_of_small_registries() -> None:
    data = diff_dict(diff_registries(OLD, NEW, "v1", "v2"))
    assert data["counts"] == {"added": 2, "removed": 3, "renamed": 1, "changed": 4}
    assert data["renamed"] == [
        {
            "old": "--old-name",
            "new": "--new-name",
            "dest": "gamma",
            "changes": {"default": {"old": "x", "new": "y"}},
        }
    ]
    beta = next(c for c in data["changed"] if c["name"] == "--beta")
    assert beta["changes"] == {"flags": {"old": ["--beta", "-b"], "new": ["--beta", "--bb"]}}
    json.dumps(data)  # JSON-safe throughout


def test_a_registry_compared_with_itself_has_no_changes() -> None:
    diff = diff_registries(OLD, OLD, "v1", "v1")
    assert diff.empty
    assert diff_markdown(diff).endswith("0 changed.\n\nNo argument changed.\n")


def test_a_missing_snapshot_is_bad_input(tmp_path: Path) -> None:
    result = run_cli_in_process(
        "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), cwd=tmp_path
    )
    assert result.code == 2 and result.out == ""
    assert "snapshot file not found" in result.err


def test_a_path_option_with_a_snapshot_is_bad_input(tmp_path: Path) -> None:
    snapshot = tmp_path / "a.json"
    snapshot.write_text(snapshot_text(OLD), encoding="utf-8")
    result = run_cli_in_process(
        "diff", str(snapshot), str(snapshot), "--old-path", str(tmp_path), cwd=tmp_path
    )
    assert result.code == 2
    assert "only apply to module:callable targets" in result.err


def test_a_side_read_from_folders_is_static_and_named_after_them(tmp_path: Path) -> None:
    from argmatrix.adoption.registry_diff import DiffSide

    side = DiffSide("pkg.args:build", ("old", "more"))
    assert side.shown == "pkg.args:build (old, more)"
    assert DiffSide("pkg.args:build", ("old",), "v1").shown == "v1"
    spec = side.spec(static=False, mock=("torch",), cwd=tmp_path)
    folders = (str(tmp_path / "old"), str(tmp_path / "more"))
    assert (spec.mode, spec.base_dir, spec.search_path, spec.mock) == (
        "static",
        tmp_path / "old",
        folders,
        ("torch",),
    )
    plain = DiffSide("pkg.args:build").spec(static=False, mock=(), cwd=tmp_path)
    assert (plain.mode, plain.base_dir, plain.search_path) == ("live", tmp_path, None)


def test_diff_sides_reads_both_and_labels_them(tmp_path: Path) -> None:
    from argmatrix.adoption.registry_diff import DiffSide, diff_sides, diff_text

    for name, registry in (("old.json", OLD), ("new.json", NEW)):
        (tmp_path / name).write_text(snapshot_text(registry), encoding="utf-8")
    with chdir(tmp_path):
        diff = diff_sides(
            DiffSide("old.json", label="v1"), DiffSide("new.json"), False, (), verbose=False
        )
    assert (diff.old_label, diff.new_label) == ("v1", "new.json")
    assert diff_text(diff, "markdown") == diff_markdown(diff_registries(OLD, NEW, "v1", "new.json"))
    assert json.loads(diff_text(diff, "json")) == diff_dict(diff)


def test_a_change_inside_a_subcommand_is_reported(tmp_path: Path) -> None:
    from argmatrix.adoption.registry_diff import diff_registries
    from argmatrix.loaders.load import RegistrySpec, load_registry

    source = (REGISTRIES / "subcommands_cli.py").read_text()
    (tmp_path / "subcommands_next.py").write_text(
        source.replace('"--max-requests"', '"--max-reqs"')
    )
    old = load_registry(RegistrySpec("subcommands_cli:build_parser", "static", base_dir=REGISTRIES))
    new = load_registry(RegistrySpec("subcommands_next:build_parser", "static", base_dir=tmp_path))
    diff = diff_registries(old, new, "old", "new")
    assert [a.name for a in diff.added] == ["serve --max-reqs"]
    assert [a.name for a in diff.removed] == ["serve --max-requests"]


def test_a_new_destination_for_the_same_flags_is_a_rename() -> None:
    """sglang moved `--tensor-parallel-size` to the destination `tp_size`: code reading
    `args.tensor_parallel_size` breaks, so this is a rename, not "aliases reordered"."""
    old = Registry(
        "old",
        ("Main",),
        (arg("--tensor-parallel-size", "--tp-size", dest="tensor_parallel_size", default=1),),
    )
    new = Registry(
        "new", ("Main",), (arg("--tp-size", "--tensor-parallel-size", dest="tp_size", default=1),)
    )
    diff = diff_registries(old, new, "v1", "v2")
    assert diff.counts() == {"added": 0, "removed": 0, "renamed": 1, "changed": 0}
    [renamed] = diff.renamed
    assert [c.field for c in renamed.changes] == ["dest"]
    assert (
        "- `--tensor-parallel-size` → `--tp-size`; destination `tensor_parallel_size` → `tp_size`"
        in (diff_markdown(diff))
    )
    data = diff_dict(diff)["renamed"]
    assert data == [
        {
            "old": "--tensor-parallel-size",
            "new": "--tp-size",
            "dest": "tp_size",
            "changes": {"dest": {"old": "tensor_parallel_size", "new": "tp_size"}},
        }
    ]


def test_a_new_destination_under_the_same_name_keeps_its_other_changes() -> None:
    old = Registry("old", ("Main",), (arg("--port", dest="port", default=1),))
    new = Registry("new", ("Main",), (arg("--port", "-p", dest="server_port", default=2),))
    [renamed] = diff_registries(old, new, "v1", "v2").renamed
    assert [c.field for c in renamed.changes] == ["dest", "flags", "default"]
    text = diff_markdown(diff_registries(old, new, "v1", "v2"))
    assert (
        "- `--port`: destination `port` → `server_port`; aliases added `-p`; default `1` → `2`"
        in text
    )


def test_exclusive_groups_changed_are_release_notes() -> None:
    """An argument joining (or leaving) an exclusive group, in a subcommand too."""
    from argmatrix.model.registry import ExclusiveGroup, Subcommand

    def serve(*groups: ExclusiveGroup) -> Registry:
        arguments = (Argument(("--a",), "a"), Argument(("--b",), "b"))
        return Registry("t", ("General",), arguments, exclusive_groups=groups)

    def top(sub: Registry) -> Registry:
        return Registry("t", (), (), (Subcommand("serve", (), "", sub),))

    pair = ExclusiveGroup(("--a", "--b"), required=True)
    diff = diff_registries(top(serve()), top(serve(pair)), "1.0", "2.0")
    assert [(p.new.name, [c.field for c in p.changes]) for p in diff.changed] == [
        ("serve --a", ["exclusive"]),
        ("serve --b", ["exclusive"]),
    ]
    text = diff_markdown(diff)
    assert "### Changed exclusive groups" in text
    assert "- `serve --b`: excludes nothing → `serve --a (required)`" in text
    assert diff_dict(diff)["changed"][0]["changes"] == {
        "exclusive": {"old": [], "new": ["serve --b (required)"]}
    }
    back = diff_registries(top(serve(pair)), top(serve()), "2.0", "3.0")
    assert "- `serve --a`: excludes `serve --b (required)` → nothing" in diff_markdown(back)
    unknown = Registry("t", ("General",), serve().arguments, framework="")  # format version 1
    assert diff_registries(unknown, serve(pair), "1.0", "2.0").empty


def test_a_changed_value_form_is_a_release_note() -> None:
    """A metavar changed (what a user types after the flag: `--dist-init-addr HOST:PORT`) is
    told, in a subcommand too, as the value forms before and after; the command lines it takes
    are the same, so `check` finds no break."""
    from argmatrix.checks.compatibility import command_line_breaks
    from argmatrix.model.registry import Subcommand

    def top(*arguments: Argument) -> Registry:
        serve = Registry("t", ("Main",), arguments, framework="argparse")
        return Registry("t", (), (), (Subcommand("serve", (), "", serve),), framework="argparse")

    before = top(
        arg("--dist-init-addr", dest="dist_init_addr"),
        arg("--ssl", dest="ssl", nargs=2, metavar=("FILE", "FILE")),
        arg("--tp", dest="tp", metavar="N"),
    )
    after = top(
        arg("--dist-init-addr", dest="dist_init_addr", metavar="HOST:PORT"),
        arg("--ssl", dest="ssl", nargs=2, metavar=("CERT", "KEY")),
        arg("--tp", dest="tp", metavar="N"),
    )
    diff = diff_registries(before, after, "1.0", "2.0")
    assert [(p.new.name, [c.field for c in p.changes]) for p in diff.changed] == [
        ("serve --dist-init-addr", ["metavar"]),
        ("serve --ssl", ["metavar"]),
    ]
    text = diff_markdown(diff)
    assert "### Changed value forms" in text
    assert (
        "- `serve --dist-init-addr`: value form derived (`DIST_INIT_ADDR`) → `HOST:PORT`\n" in text
    )
    assert "- `serve --ssl`: value form `FILE FILE` → `CERT KEY`\n" in text
    assert diff_dict(diff)["changed"][1]["changes"] == {
        "metavar": {"old": ["FILE", "FILE"], "new": ["CERT", "KEY"]}
    }
    assert command_line_breaks(before, after) == []
