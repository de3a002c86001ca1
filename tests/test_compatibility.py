"""The compatibility gate of `check` (`checks.compatibility`): a registry at two releases.

`tests/fixtures/registries/compat/` holds servecli 1.0 (the baseline is its snapshot) and 2.0,
where each change is one kind of break, or one that is not a break, as the comment above it
says. The project under test is 2.0, read statically, live or from a snapshot.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from argmatrix.checks.compatibility import command_line_breaks
from argmatrix.loaders.convert import registry_from_parser
from argmatrix.loaders.load import RegistrySpec, load_registry
from argmatrix.loaders.snapshot import snapshot_text
from argmatrix.model.registry import Argument, ExclusiveGroup, Registry, Subcommand, Unevaluated
from helpers import REGISTRIES, line_of, run_cli_in_process, run_cli_in_subprocess

COMPAT = REGISTRIES / "compat"
V1, V2 = COMPAT / "v1", COMPAT / "v2"
TARGET = "servecli:build_parser"
SOURCE = "servecli.py"

# Every break from 1.0 to 2.0 (kind, name as check names it), and the text of the line of
# servecli 2.0 its finding points at.
BREAKS = [
    ("narrowed-choices", "--log-level", '"--log-level"'),
    ("removed-subcommand", "run", 'model.add_argument("model"'),
    ("renamed-argument", "serve --tp", '"--tensor-parallel-size"'),
    ("renamed-argument", "serve --max-batch", '"--max-batch-size"'),
    ("changed-default", "serve --workers", '"--workers"'),
    ("narrowed-choices", "serve --dtype", '"--dtype"'),
    ("narrowed-choices", "serve --quantization", '"--quantization"'),
    ("rejected-value", "serve --stream", '"--stream"'),
    ("rejected-value", "serve --seed", '"--seed"'),
    ("rejected-value", "serve --profile", '"--profile"'),
    ("removed-argument", "serve --old-flag", '"--api-key", default=None'),  # the next one kept
    ("new-required-argument", "serve --device", '"--device"'),
    ("changed-default", "bench --rounds", '"--rounds"'),
    ("removed-argument", "bench --dataset", '"--rounds"'),  # the one before it
    ("removed-subcommand", "export", '"--rounds"'),  # the subcommand before it
]
NOT_BREAKS = [
    "--verbose",  # unchanged
    "serve --port",  # unchanged
    "serve --cache-size",  # int -> float takes every value int took
    "serve --legacy-scheduler",  # deprecated in 1.0, then removed
    "serve --debug-dump",  # hidden in 1.0, then removed
    "serve --api-key",  # now deprecated, still there
    "serve --chat-template",  # help changed
    "serve --api-key-file",  # added
    "s",  # the alias of serve that is kept
]


def snapshot_of(folder: Path, path: Path) -> Path:
    registry = load_registry(RegistrySpec(TARGET, mode="static", search_path=(str(folder),)))
    path.write_text(snapshot_text(registry), encoding="utf-8")
    return path


def write_config(root: Path, checks: str = "", top: str = "", registry: str = "") -> Path:
    """argmatrix.yaml for servecli 2.0 with its baseline, `checks` and `top` added under
    checks.compatibility and at the top."""
    registry = registry or f"  target: {TARGET}\n  mode: static\n"
    path = root / "argmatrix.yaml"
    path.write_text(
        f"registry:\n{registry}pages: []\nchecks:\n  compatibility:\n"
        f"    baseline: compat/baseline.json\n{checks}{top}",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """servecli 2.0 as a project, its baseline the snapshot of 1.0."""
    root = tmp_path / "project"
    (root / "compat").mkdir(parents=True)
    shutil.copy(V2 / SOURCE, root / SOURCE)
    snapshot_of(V1, root / "compat" / "baseline.json")
    write_config(root)
    return root


def findings(root: Path, *options: str) -> list[dict[str, Any]]:
    result = run_cli_in_process("check", "--format", "json", *options, cwd=root)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)


def kinds(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f["kind"], f["flag"]) for f in found]


def file_of(finding: dict[str, Any], root: Path) -> str:
    """The finding's file relative to the project (JSON holds it relative to the folder
    `check` ran in, the project's here)."""
    return (root / finding["file"]).resolve().relative_to(root.resolve()).as_posix()


def test_each_break_is_one_finding_at_the_line_that_changed(project: Path) -> None:
    found = findings(project)
    assert kinds(found) == [(kind, name) for kind, name, _ in BREAKS]
    for finding, (_, _, text) in zip(found, BREAKS, strict=True):
        assert file_of(finding, project) == SOURCE
        assert finding["line"] == line_of(project / SOURCE, text), finding
        assert finding["severity"] == "error"
        assert f"'{finding['flag']}: <reason>'" in finding["fix"]
    names = {f["flag"] for f in found}
    assert not names & set(NOT_BREAKS)


def test_findings_say_what_broke(project: Path) -> None:
    said = {(f["kind"], f["flag"]): f["message"] for f in findings(project)}
    assert said["renamed-argument", "serve --tp"] == (
        "serve --tp was renamed serve --tensor-parallel-size: command lines passing serve --tp"
        " now fail"
    )
    assert said["renamed-argument", "serve --max-batch"].startswith(
        "serve --max-batch was renamed serve --max-batch-size"
    )
    assert said["changed-default", "serve --workers"] == (
        "serve --workers: the default changed from 1 to 4: command lines without it now run"
        " otherwise"
    )
    assert said["narrowed-choices", "serve --dtype"] == "serve --dtype no longer accepts 'fp32'"
    assert said["narrowed-choices", "serve --quantization"] == (
        "serve --quantization now accepts only 'fp8', 'awq': it took any value"
    )
    assert said["rejected-value", "serve --stream"] == (
        "serve --stream takes one value where it took no value: the flag alone now fails"
    )
    assert said["rejected-value", "serve --seed"].startswith(
        "serve --seed reads its value as positive_int where it read int"
    )
    assert said["rejected-value", "serve --profile"] == (
        "serve --profile takes one value where it took an optional value: the flag alone now fails"
    )
    assert said["new-required-argument", "serve --device"].startswith(
        "serve --device is new and required"
    )
    assert said["removed-subcommand", "run"].startswith(
        "subcommand alias 'run' (of 'serve') was removed"
    )
    assert said["removed-subcommand", "export"].startswith("subcommand 'export' was removed")


def test_github_annotations_point_at_the_lines_that_changed(project: Path) -> None:
    result = run_cli_in_process("check", "--format", "github", cwd=project)
    assert result.code == 1
    lines = result.out.splitlines()
    assert len(lines) == len(BREAKS)
    for line, (kind, name, text) in zip(lines, BREAKS, strict=True):
        number = line_of(project / SOURCE, text)
        assert line.startswith(f"::error file={SOURCE},line={number},title=argmatrix {kind}::")
        assert f"add '{name}: <reason>' to checks.compatibility.accept" in line


def test_the_text_report_names_file_and_line(project: Path) -> None:
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 1
    number = line_of(project / SOURCE, '"--workers"')
    assert f"{SOURCE}:{number}: error[changed-default]: serve --workers: the default" in result.out
    assert result.out.endswith(f"argmatrix check: {len(BREAKS)} error(s), 0 warning(s)\n")


def test_an_accept_entry_silences_its_argument_by_any_of_its_names(project: Path) -> None:
    write_config(
        project,
        "    accept:\n"
        "      serve --old-flag: removed in 2.0, it had no effect\n"
        "      serve --tensor-parallel-size: --tp is gone, say --tensor-parallel-size\n"
        "      export: use 'servecli serve --export'\n",
    )
    left = kinds(findings(project))
    assert ("removed-argument", "serve --old-flag") not in left
    assert ("renamed-argument", "serve --tp") not in left
    assert ("removed-subcommand", "export") not in left
    assert len(left) == len(BREAKS) - 3
    assert not [kind for kind, _ in left if kind == "stale-accept-entry"]


def test_an_accept_entry_with_nothing_to_accept_is_a_finding(project: Path) -> None:
    config = write_config(
        project,
        "    accept:\n"
        "      serve --port: nothing changed\n"
        "      serve --old-flag: removed in 2.0\n"
        "      --no-such-flag: a typo\n",
    )
    stale = [f for f in findings(project) if f["kind"] == "stale-accept-entry"]
    assert [(f["flag"], file_of(f, project), f["line"]) for f in stale] == [
        ("serve --port", "argmatrix.yaml", line_of(config, "serve --port:")),
        ("--no-such-flag", "argmatrix.yaml", line_of(config, "--no-such-flag:")),
    ]
    assert stale[0]["message"] == (
        "accept entry 'serve --port' matches no breaking change against the baseline"
        " compat/baseline.json"
    )


def test_check_fix_removes_stale_accept_entries_and_never_accepts_a_break(project: Path) -> None:
    config = write_config(
        project,
        "    accept:\n"
        "      # reviewed in #123\n"
        "      serve --port: nothing changed\n"
        "      serve --old-flag: removed in 2.0  # kept\n",
    )
    before = config.read_text()
    result = run_cli_in_process("check", "--fix", cwd=project)
    assert result.code == 1  # the breaks are still findings: a person accepts them
    assert "wrote argmatrix.yaml: removed serve --port from checks.compatibility.accept" in (
        result.err
    )
    assert config.read_text() == before.replace("      serve --port: nothing changed\n", "")
    after = kinds(findings(project))
    assert after == [(k, n) for k, n, _ in BREAKS if n != "serve --old-flag"]
    again = run_cli_in_process("check", "--fix", cwd=project)
    assert again.code == 1 and "wrote" not in again.err
    assert config.read_text() == before.replace("      serve --port: nothing changed\n", "")


def test_check_fix_shrinks_a_flow_accept_list(project: Path) -> None:
    config = write_config(
        project, "    accept: {serve --port: x, serve --old-flag: y, --verbose: 'z'}\n"
    )
    assert run_cli_in_process("check", "--fix", cwd=project).code == 1
    assert config.read_text().endswith("    accept: {serve --old-flag: y}\n")


def test_stability_holds_only_stable_arguments(project: Path) -> None:
    write_config(
        project,
        "    accept:\n      serve --old-flag: removed in 2.0\n",
        "stability:\n"
        "  default: beta\n"
        "  sections: {Model: stable}\n"
        "  arguments:\n"
        "    serve --workers: stable\n"
        "    serve --dtype: prototype\n"
        "    serve --tensor-parallel-size: deprecated\n",
    )
    assert kinds(findings(project)) == [
        # a section's tag, for the arguments of the Model section but --dtype and --tp
        ("changed-default", "serve --workers"),
        ("narrowed-choices", "serve --quantization"),
        # --old-flag is beta now (the default): its accept entry holds nothing back
        ("stale-accept-entry", "serve --old-flag"),
    ]


def test_a_project_without_stability_tags_holds_every_argument(project: Path) -> None:
    write_config(project, "", "stability:\n  default: stable\n")
    assert kinds(findings(project)) == [(kind, name) for kind, name, _ in BREAKS]


def test_a_stability_entry_naming_no_argument_is_refused(project: Path) -> None:
    config = write_config(project, "", "stability:\n  arguments:\n    serve --wrokers: beta\n")
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert result.err.strip() == (
        f"argmatrix: error: argmatrix.yaml:{line_of(config, '--wrokers')}: stability: 'serve --wrokers'"
        " is not an argument of the registry (fix: did you mean 'serve --workers'?)"
    )


def test_severity_applies_to_the_new_kinds(project: Path) -> None:
    write_config(
        project,
        "  severity: {changed-default: warning, narrowed-choices: 'off'}\n",
    )
    found = findings(project)
    assert not [f for f in found if f["kind"] == "narrowed-choices"]
    assert {f["severity"] for f in found if f["kind"] == "changed-default"} == {"warning"}


def test_no_finding_against_its_own_snapshot(project: Path) -> None:
    snapshot_of(V2, project / "compat" / "baseline.json")
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 0, result.out
    assert result.out == "argmatrix check: everything agrees\n"


def test_every_registry_kind_gives_the_same_breaks(project: Path) -> None:
    """Static (above), live, and a snapshot of 2.0: the same breaks; live reading knows the
    lines too, a snapshot does not (its findings point at the baseline in argmatrix.yaml)."""
    static = findings(project)
    live_config = write_config(project, registry=f"  target: {TARGET}\n  mode: live\n")
    live = run_cli_in_subprocess("check", "--format", "json", cwd=project)
    assert live.code == 1, live.err
    assert json.loads(live.out) == static
    snapshot_of(V2, project / "current.json")
    (project / SOURCE).unlink()
    write_config(project, registry="  target: current.json\n")
    from_snapshot = findings(project)
    assert kinds(from_snapshot) == kinds(static)
    baseline_line = line_of(live_config, "baseline:")
    assert {(file_of(f, project), f["line"]) for f in from_snapshot} == {
        ("argmatrix.yaml", baseline_line)
    }


# ------------------------------------------------------------------ the rules, one by one


def registry(*arguments: Argument, subcommands: tuple[Subcommand, ...] = ()) -> Registry:
    return Registry("t", ("General",), tuple(arguments), subcommands)


def breaks(old: Registry, new: Registry) -> list[tuple[str, str]]:
    return [(b.kind, b.name) for b in command_line_breaks(old, new)]


def test_a_deprecated_argument_still_there_is_not_removed() -> None:
    old = registry(Argument(("--x",), "x"))
    assert breaks(old, registry(Argument(("--x",), "x", deprecated=True))) == []
    assert breaks(old, registry()) == [("removed-argument", "--x")]


def test_a_subcommand_renamed_with_its_old_name_as_alias_still_runs() -> None:
    port = Argument(("--port",), "port", default=1)
    old = registry(subcommands=(Subcommand("serve", (), "", registry(port)),))
    new = registry(subcommands=(Subcommand("launch", ("serve",), "", registry(port)),))
    assert breaks(old, new) == []
    changed = registry(
        subcommands=(Subcommand("launch", ("serve",), "", registry(Argument(("--port",), "port"))),)
    )
    assert breaks(old, changed) == [("changed-default", "serve --port")]


@pytest.mark.parametrize(
    ("before", "after", "broken"),
    [
        ({"nargs": None}, {"nargs": "?"}, False),  # one value -> an optional one
        ({"nargs": "?"}, {"nargs": None}, True),
        ({"nargs": "+"}, {"nargs": "*"}, False),
        ({"nargs": "*"}, {"nargs": "+"}, True),
        ({"nargs": 2}, {"nargs": "+"}, False),
        ({"nargs": "+"}, {"nargs": 2}, True),
        ({"nargs": None}, {"nargs": 0, "action": "store_true", "default": False}, True),
        ({"nargs": None, "action": "append"}, {"nargs": None}, False),
        ({"nargs": Unevaluated("N")}, {"nargs": Unevaluated("N")}, False),
        ({"nargs": Unevaluated("N")}, {"nargs": Unevaluated("M")}, True),
        ({"type": None}, {"type": "int"}, True),
        ({"type": "int"}, {"type": None}, False),
        ({"type": "int"}, {"type": "float"}, False),
        ({"type": "float"}, {"type": "int"}, True),
        ({"type": "int", "nargs": 0}, {"type": "float", "nargs": 0}, False),
    ],
)
def test_values_a_flag_takes(before: dict[str, Any], after: dict[str, Any], broken: bool) -> None:
    old = registry(Argument(("--x",), "x", **before))
    new = registry(Argument(("--x",), "x", **after))
    assert [kind for kind, _ in breaks(old, new)] == (["rejected-value"] if broken else [])


@pytest.mark.parametrize(
    ("before", "after", "broken"),
    [
        (None, ("a",), True),
        (("a", "b"), None, False),
        (("a", "b"), ("b", "a", "c"), False),
        (("a", "b"), ("a",), True),
        ((0, 1), (False, True), True),  # 0 and False are not the same choice
        (Unevaluated("MODES"), Unevaluated("MODES"), False),
        (Unevaluated("MODES"), Unevaluated("NEW_MODES"), True),
    ],
)
def test_choices(before: Any, after: Any, broken: bool) -> None:
    old = registry(Argument(("--x",), "x", choices=before))
    new = registry(Argument(("--x",), "x", choices=after))
    assert [kind for kind, _ in breaks(old, new)] == (["narrowed-choices"] if broken else [])


def test_defaults_compare_by_kind() -> None:
    old = registry(Argument(("--x",), "x", default=0))
    assert breaks(old, registry(Argument(("--x",), "x", default=False))) == [
        ("changed-default", "--x")
    ]
    assert breaks(old, registry(Argument(("--x",), "x", default=0))) == []
    # a required argument has no default to keep
    assert breaks(old, registry(Argument(("--x",), "x", default=1, required=True))) == [
        ("new-required-argument", "--x")
    ]


def test_a_new_positional_is_a_new_required_argument_and_an_optional_one_is_not() -> None:
    old = registry(Argument(("--x",), "x"))
    required = Argument((), "path", required=True)
    optional = Argument((), "path", nargs="?")
    assert breaks(old, registry(Argument(("--x",), "x"), required)) == [
        ("new-required-argument", "path")
    ]
    assert breaks(old, registry(Argument(("--x",), "x"), optional)) == []


@pytest.mark.parametrize("nargs", ["*", "..."])
def test_a_positional_a_command_line_may_leave_out_then_must_give_is_newly_required(
    nargs: str,
) -> None:
    """argparse marks a `*` or REMAINDER positional required, yet a command line may leave it
    out: read from the parser (as the registry is), `nargs` `+` is newly required, as `?` to
    `+` is; the same `nargs` on both sides is no break."""

    def read(value: str) -> Registry:
        parser = argparse.ArgumentParser(prog="p")
        parser.add_argument("models", nargs=value)
        return registry_from_parser(parser, "p:build", {}, lambda _: None)

    assert ("new-required-argument", "models") in breaks(read(nargs), read("+"))
    assert breaks(read(nargs), read(nargs)) == []


def test_a_baseline_that_is_not_a_snapshot_is_refused_at_its_line(project: Path) -> None:
    (project / "compat" / "baseline.json").write_text('{"format": "argmatrix-snap', "utf-8")
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert "baseline.json:1: snapshot is not valid JSON" in result.err
    assert len(result.err.splitlines()) == 1


def test_a_baseline_outside_the_project_is_refused(project: Path) -> None:
    (project / ".git").mkdir()
    snapshot_of(V1, project.parent / "outside.json")
    config = write_config(project)
    config.write_text(config.read_text().replace("compat/baseline.json", "../outside.json"))
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert f"argmatrix.yaml:{line_of(config, 'baseline:')}: checks: compatibility: baseline" in (
        result.err
    )
    assert "is outside the project" in result.err


def test_a_missing_baseline_is_refused_at_its_line_by_check_alone(project: Path) -> None:
    """`snapshot` and `generate` need no baseline: the first one is written with the
    configuration already naming it."""
    (project / "compat" / "baseline.json").unlink()
    config = project / "argmatrix.yaml"
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert result.err.strip() == (
        f"argmatrix: error: argmatrix.yaml:{line_of(config, 'baseline:')}: checks: compatibility:"
        " baseline 'compat/baseline.json' not found (fix: write it at a release with"
        " 'argmatrix snapshot -o compat/baseline.json', or correct the path)"
    )
    written = run_cli_in_process("snapshot", "-o", "compat/baseline.json", cwd=project)
    assert written.code == 0, written.err
    assert run_cli_in_process("check", cwd=project).code == 0


def test_stability_is_checked_without_the_gate_too(project: Path) -> None:
    config = project / "argmatrix.yaml"
    text = f"registry:\n  target: {TARGET}\n  mode: static\npages: []\nstability:\n"
    config.write_text(text + "  sections: {Runtime: beta}\n", encoding="utf-8")
    assert run_cli_in_process("check", cwd=project).code == 0
    config.write_text(text + "  sections: {Runtimes: beta}\n", encoding="utf-8")
    result = run_cli_in_process("check", cwd=project)
    assert result.code == 2
    assert (
        f"error: argmatrix.yaml:{line_of(config, 'Runtimes')}: stability: 'Runtimes' is not a section of the registry (fix: did you mean"
        " 'Runtime'?)" in result.err
    )


def test_pages_show_the_stability_tags(project: Path) -> None:
    config = project / "argmatrix.yaml"
    config.write_text(
        f"registry:\n  target: {TARGET}\n  mode: static\ndocs_dir: docs\n"
        "pages:\n  - {template: server_arguments.md.j2, output: args.md}\n"
        "stability:\n  sections: {Model: beta}\n"
        "  arguments: {serve --workers: prototype, --verbose: deprecated}\n",
        encoding="utf-8",
    )
    assert run_cli_in_process("generate", cwd=project).code == 0
    page = (project / "docs" / "args.md").read_text(encoding="utf-8")
    assert "| Argument | Description | Default | Type / options | Stability |" in page
    assert "| `--verbose` |  | `False` | bool flag (set to enable) | deprecated |" in page
    assert "| `--tensor-parallel-size` `TP_SIZE` |  | `1` | Type: int | beta |" in page
    assert "| `--workers` `WORKERS` |  | `4` | Type: int | prototype |" in page
    assert "| `--port` `PORT` |  | `30000` | Type: int | stable |" in page
    config.write_text(config.read_text().split("stability:")[0], encoding="utf-8")
    assert run_cli_in_process("generate", cwd=project).code == 0
    assert "Stability" not in (project / "docs" / "args.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ exclusive groups (issue 29)


def grouped(*groups: ExclusiveGroup, framework: str = "argparse") -> Registry:
    arguments = (Argument(("--a",), "a"), Argument(("--b",), "b"), Argument(("--c",), "c"))
    return Registry("t", ("General",), arguments, exclusive_groups=groups, framework=framework)


def test_an_argument_joining_an_exclusive_group_breaks_command_lines_passing_both() -> None:
    assert breaks(grouped(), grouped(ExclusiveGroup(("--a", "--b")))) == [("new-exclusion", "--b")]
    found = command_line_breaks(grouped(), grouped(ExclusiveGroup(("--a", "--b", "--c"))))
    assert [b.message for b in found] == [
        "--b now excludes --a: command lines passing both now fail",
        "--c now excludes --a, --b: command lines passing both now fail",
    ]
    joined = grouped(ExclusiveGroup(("--a", "--b", "--c")))
    assert breaks(grouped(ExclusiveGroup(("--a", "--b"))), joined) == [("new-exclusion", "--c")]


def test_a_group_kept_or_loosened_breaks_nothing() -> None:
    pair = ExclusiveGroup(("--a", "--b"))
    assert breaks(grouped(pair), grouped(pair)) == []
    assert breaks(grouped(pair), grouped()) == []  # free to give both now
    assert breaks(grouped(ExclusiveGroup(("--a", "--b"), required=True)), grouped(pair)) == []


def test_a_group_made_required_breaks_command_lines_without_any_of_them() -> None:
    pair = ExclusiveGroup(("--a", "--b"))
    required = ExclusiveGroup(("--a", "--b"), required=True)
    found = command_line_breaks(grouped(pair), grouped(required))
    assert [(b.kind, b.name, b.message) for b in found] == [
        (
            "new-required-argument",
            "--a",
            "one of --a, --b is now required: command lines without any of them now fail",
        )
    ]
    assert breaks(grouped(required), grouped(required)) == []


def test_a_baseline_that_does_not_know_its_groups_is_held_to_none() -> None:
    """A snapshot of format version 1 has no groups: its registry's are not new."""
    old = grouped(framework="")
    assert breaks(old, grouped(ExclusiveGroup(("--a", "--b"), required=True))) == []


def test_the_gate_reads_a_version_1_baseline(tmp_path: Path) -> None:
    """A baseline snapshot written before snapshots held the command line's shape (format
    version 1, by argmatrix before issue 29) is read, and the registry's exclusive groups are
    not breaks against it."""
    shutil.copy(REGISTRIES / "shape_server.py", tmp_path / "shape_server.py")
    shutil.copy(REGISTRIES.parent / "snapshots" / "shape_server.v1.json", tmp_path / "base.json")
    (tmp_path / "argmatrix.yaml").write_text(
        "registry: {target: 'shape_server:build_parser', mode: static}\n"
        "docs_dir: docs\npages: []\nchecks:\n  compatibility: {baseline: base.json}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("check", "--format", "json", cwd=tmp_path)
    # Its defaults read from the environment, kept as source text in version 1, are the facts
    # static reading reads now: no `changed-default` either.
    found = [f["kind"] for f in json.loads(result.out) if f["kind"] != "registry-warning"]
    assert found == [] and result.code == 0, result.out + result.err


def test_a_version_1_baseline_holds_a_default_read_from_the_environment(tmp_path: Path) -> None:
    """Each form version 1 kept as source text is read as the fact it states; a default that
    really changed (its fallback, or its variable) is still a change."""
    forms = {
        "--host": (
            'os.environ.get("APP_HOST", "0.0.0.0")',
            'os.environ.get("APP_HOST", "0.0.0.0")',
        ),
        "--port": ('int(os.environ.get("APP_PORT", "8000"))', 'int(os.getenv("APP_PORT", "8000"))'),
        "--key": ('os.environ["APP_KEY"]', 'os.environ["APP_KEY"]'),
        "--user": ('os.getenv("APP_USER") or "admin"', 'os.getenv("APP_USER") or "admin"'),
        "--seed": ('int(os.environ.get("APP_SEED", "0"))', 'int(os.environ.get("APP_SEED", "1"))'),
        "--zone": ('os.environ.get("APP_ZONE")', 'os.environ.get("APP_REGION")'),
    }
    source = "import argparse\nimport os\n\n\ndef build():\n    p = argparse.ArgumentParser()\n"
    for flag, (_, now) in forms.items():
        source += f"    p.add_argument({flag!r}, default={now})\n"
    (tmp_path / "srv.py").write_text(source + "    return p\n", encoding="utf-8")
    arguments = [
        {"flags": [flag], "dest": flag[2:], "default": {"unevaluated": before}}
        for flag, (before, _) in forms.items()
    ]
    baseline = {
        "format": "argmatrix-snapshot",
        "version": 1,
        "registry": {"source": "srv:build", "sections": ["General"], "arguments": arguments},
    }
    (tmp_path / "base.json").write_text(json.dumps(baseline), encoding="utf-8")
    (tmp_path / "argmatrix.yaml").write_text(
        "registry: {target: 'srv:build', mode: static}\n"
        "docs_dir: docs\npages: []\nchecks:\n  compatibility: {baseline: base.json}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("check", "--format", "json", cwd=tmp_path)
    found = sorted((f["kind"], f["flag"]) for f in json.loads(result.out))
    assert found == [("changed-default", "--seed"), ("changed-default", "--zone")], result.out


def test_a_default_now_read_from_the_environment_keeps_its_value_when_unset() -> None:
    """A baseline holding the value a live read found (format version 1 read the environment:
    the fallback, the variable being unset), or a fixed default, against a default now read
    from a variable: only a different fallback is a change."""
    from argmatrix.model.registry import FromEnvironment

    def port(default: Any) -> Registry:
        return registry(Argument(("--port",), "port", default=default))

    assert breaks(port(8000), port(FromEnvironment("APP_PORT", 8000))) == []
    assert breaks(port(8000), port(FromEnvironment("APP_PORT", 9000))) == [
        ("changed-default", "--port")
    ]
    assert breaks(port(FromEnvironment("APP_PORT", 8000)), port(FromEnvironment("PORT", 8000))) == [
        ("changed-default", "--port")
    ]


def test_a_subcommands_flag_joining_an_exclusive_group_fails_check(tmp_path: Path) -> None:
    """`argmatrix check` against a baseline snapshot of the release before: `serve
    --disable-prefix-caching` now excludes `serve --enable-prefix-caching` (it joined its
    exclusive group), so a command line passing both fails. One error at the flag's line, exit
    1, the fix naming the accept entry."""
    source = (REGISTRIES / "shape_server.py").read_text(encoding="utf-8")
    joined = 'prefix.add_argument(\n        "--disable-prefix-caching"'
    assert joined in source
    before = tmp_path / "before"
    before.mkdir()
    (before / "shape_server.py").write_text(
        source.replace(joined, joined.replace("prefix.", "cache.")), encoding="utf-8"
    )
    root = tmp_path / "project"
    root.mkdir()
    (root / "shape_server.py").write_text(source, encoding="utf-8")
    target = "shape_server:build_parser"
    old = load_registry(RegistrySpec(target, mode="static", search_path=(str(before),)))
    (root / "base.json").write_text(snapshot_text(old), encoding="utf-8")
    (root / "argmatrix.yaml").write_text(
        # live: static reading would warn of the fixture's `sys.version_info` test
        f"registry: {{target: '{target}', mode: live}}\n"
        "pages: []\nchecks:\n  compatibility: {baseline: base.json}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("check", cwd=root)
    assert result.code == 1, result.out + result.err
    # The line of the `add_argument(` call that declares the flag (its name is on the next).
    line = line_of(root / "shape_server.py", '"--disable-prefix-caching"') - 1
    assert "add_argument(" in source.splitlines()[line - 1]
    assert result.out.splitlines() == [
        f"shape_server.py:{line}: error[new-exclusion]: serve --disable-prefix-caching now"
        " excludes serve --enable-prefix-caching: command lines passing both now fail (take"
        " --disable-prefix-caching out of the exclusive group, or deprecate one of them first,"
        " or accept the break: add 'serve --disable-prefix-caching: <reason>' to"
        " checks.compatibility.accept)",
        "argmatrix check: 1 error(s), 0 warning(s)",
    ]
    config = root / "argmatrix.yaml"
    accept = "accept: {serve --disable-prefix-caching: both never made sense}}"
    config.write_text(config.read_text(encoding="utf-8").replace("json}", f"json, {accept}"))
    assert run_cli_in_process("check", cwd=root).code == 0
