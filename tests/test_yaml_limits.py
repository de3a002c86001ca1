"""A manifest from a stranger's pull request cannot make argmatrix hang, crash or run out of
memory: alias bombs, deep nesting and huge numbers stop with one located line, exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from argmatrix._runtime.yamlfile import MAX_ALIAS_NODES, MAX_DEPTH, Located, load_yaml_text
from argmatrix.errors import ArgmatrixError
from helpers import (
    FIXTURES,
    REPO,
    TIME_LIMIT,
    Run,
    copy_project,
    one_error_line,
    processor_seconds,
    run_cli_in_process,
    run_cli_in_subprocess,
    time_limit,
)

MANIFEST = "capabilities/npu.yaml"
# Of processor time, a generous bound: each of these took minutes, or crashed, before; scaled as
# the suite's other bounds are while coverage traces the run (`make test`: 2.16 s was seen).
SECONDS = 2.0 * time_limit() / TIME_LIMIT


def _alias_bomb(levels: int = 9, width: int = 9) -> list[str]:
    """`&a [x, x, ...]`, then `&b [*a, *a, ...]` and so on: width ** levels nodes in all."""
    lines = [f"  --bomb-a: {{status: supported, options: &a [{', '.join(['x'] * width)}]}}"]
    names = "abcdefghijklmnopqrstuvwxyz"
    for level in range(1, levels):
        previous, name = names[level - 1], names[level]
        items = ", ".join([f"*{previous}"] * width)
        lines.append(f"  --bomb-{name}: {{status: supported, options: &{name} [{items}]}}")
    return lines


def _in_manifest(root: Path, lines: list[str]) -> int:
    """Appends the lines to the manifest's arguments; the number of the first one."""
    path = root / MANIFEST
    before = path.read_text()
    path.write_text(before + "\n".join(lines) + "\n")
    return len(before.splitlines()) + 1


def _one_located_line(result: Run, file: str) -> tuple[str, int]:
    line = one_error_line(result)
    found = re.search(rf"{re.escape(file)}:(\d+): ", line)
    assert found, line
    return line, int(found.group(1))


def test_an_alias_bomb_in_a_manifest_stops_at_once(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    first = _in_manifest(root, _alias_bomb())
    assert len((root / MANIFEST).read_bytes()) < 2000  # a few hundred bytes of bomb
    for command in ("check", "generate"):
        started = processor_seconds()
        result = run_cli_in_process(command, cwd=root)
        assert processor_seconds() - started < SECONDS
        line, number = _one_located_line(result, "npu.yaml")
        assert f"aliases expand to more than {MAX_ALIAS_NODES} nodes" in line
        assert "(fix: " in line
        assert first < number < first + 9  # the alias that passed the bound
    assert not (root / "docs" / "reference").exists()


def test_aliases_used_as_manifests_use_them_are_read() -> None:
    text = (
        "\n".join(
            [
                "platform: p",
                "arguments:",
                "  --a: &common {status: supported, options: [x, y, z]}",
                *[f"  --f{n}: *common" for n in range(300)],
            ]
        )
        + "\n"
    )
    data = load_yaml_text(text, "m.yaml")
    assert data["arguments"]["--f299"] == {"status": "supported", "options": ["x", "y", "z"]}


def test_the_alias_bound_counts_nodes_not_alias_uses() -> None:
    """Just under the bound reads; one alias more of the same node does not."""
    width = 1000
    block = "[" + ", ".join(["x"] * (width - 1)) + "]"  # a list of `width` nodes
    uses = MAX_ALIAS_NODES // width
    text = f"a: &a {block}\nb: [{', '.join(['*a'] * uses)}]\n"
    assert len(load_yaml_text(text, "m.yaml")["b"]) == uses
    more = f"a: &a {block}\nb: [{', '.join(['*a'] * (uses + 1))}]\n"
    with pytest.raises(ArgmatrixError, match="aliases expand to more than"):
        load_yaml_text(more, "m.yaml")


def _nested(levels: int, block: bool) -> str:
    if block:
        return "".join(f"{'  ' * n}k{n}:\n" for n in range(levels)) + f"{'  ' * levels}leaf\n"
    return "x: " + "[" * (levels - 1) + "1" + "]" * (levels - 1) + "\n"


@pytest.mark.parametrize("block", [False, True], ids=["flow", "block"])
def test_nesting_up_to_the_bound_reads_and_beyond_is_a_located_error(block: bool) -> None:
    deepest = load_yaml_text(_nested(MAX_DEPTH, block), "m.yaml")
    for _ in range(MAX_DEPTH):
        deepest = next(iter(deepest.values())) if isinstance(deepest, dict) else deepest[0]
    assert deepest in (1, "leaf")
    with pytest.raises(ArgmatrixError) as error:
        load_yaml_text(_nested(MAX_DEPTH + 1, block), "m.yaml")
    message = str(error.value)
    assert f"nesting deeper than {MAX_DEPTH} levels" in message
    assert re.match(r"m\.yaml:\d+: ", message)


@pytest.mark.parametrize("levels", [300, 40_000])
def test_deep_nesting_is_a_located_error_not_a_crash(tmp_path: Path, levels: int) -> None:
    """300 levels were a RecursionError, 40,000 a segmentation fault: run in a process of its
    own, so a crash is a failed test rather than a dead test run."""
    root = copy_project(tmp_path)
    first = _in_manifest(
        root, ["  --deep: {status: supported, default: " + "[" * levels + "]" * levels + "}"]
    )
    started = processor_seconds()
    result = run_cli_in_subprocess("check", cwd=root, timeout=60)
    assert processor_seconds() - started < 5 * SECONDS  # a fresh interpreter starts first
    one_error_line(result, f"npu.yaml:{first}: malformed YAML: nesting deeper than")


def test_real_manifests_stay_far_below_the_bounds() -> None:
    for path in [REPO / "capabilities" / "ascend.yaml", *FIXTURES.glob("**/*.yaml")]:
        depth = deepest = 0
        for event in yaml.parse(path.read_text(), Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        assert deepest * 8 <= MAX_DEPTH, path
        assert isinstance(load_yaml_text(path.read_text(), str(path)), Located)


@pytest.mark.parametrize(
    "value",
    ["1" + "0" * 5000, "-" + "9" * 4400, "0x" + "f" * 4000, "1" + ":59" * 500_000],
    ids=["decimal", "negative", "hexadecimal", "base 60"],
)
def test_an_integer_python_cannot_show_is_a_short_located_error(value: str) -> None:
    """Each is refused at once (`1:59:59:...` took time quadratic in its length)."""
    text = f"platform: p\narguments:\n  --x: {{status: supported, default: {value}}}\n"
    started = processor_seconds()
    with pytest.raises(ArgmatrixError) as error:
        load_yaml_text(text, "m.yaml")
    assert processor_seconds() - started < SECONDS
    message = str(error.value)
    assert message.startswith("m.yaml:3: malformed YAML: cannot read ")
    assert "(fix: quote the value to keep it as text)" in message
    assert len(message) < 300  # the value is cut short, not printed whole
    assert "set_int_max_str_digits" not in message  # Python's advice is not the user's fix
    quoted = text.replace(value, f'"{value}"')
    assert load_yaml_text(quoted, "m.yaml")["arguments"]["--x"]["default"] == value


def test_a_huge_integer_in_a_manifest_is_a_located_error_from_the_cli(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    first = _in_manifest(root, ["  --huge: {status: supported, default: 1" + "0" * 5000 + "}"])
    line, number = _one_located_line(run_cli_in_process("check", cwd=root), "npu.yaml")
    assert number == first and "cannot read '1000" in line and len(line) < 400


def test_a_tagged_collection_is_bounded_too() -> None:
    """A file with `!!set` is composed by PyYAML itself; the bounds are checked before."""
    tagged = "s: !!set {a, b}\n"
    assert load_yaml_text(tagged, "m.yaml") == {"s": {"a", "b"}}
    bomb = "\n".join(line.replace("  --bomb-", "b") for line in _alias_bomb())
    started = processor_seconds()
    with pytest.raises(ArgmatrixError, match="aliases expand to more than"):
        load_yaml_text(tagged + bomb + "\n", "m.yaml")
    with pytest.raises(ArgmatrixError, match="nesting deeper than"):
        load_yaml_text(tagged + "x: " + "[" * 50_000 + "]" * 50_000 + "\n", "m.yaml")
    assert processor_seconds() - started < SECONDS


def test_anchor_mistakes_name_the_anchor_and_its_line() -> None:
    with pytest.raises(ArgmatrixError) as error:
        load_yaml_text("a: &x 1\nb: &x 2\n", "m.yaml")
    assert str(error.value).startswith(
        "m.yaml:2: malformed YAML: found duplicate anchor 'x' (first on line 1)"
    )
    with pytest.raises(ArgmatrixError) as error:
        load_yaml_text("a: 1\nb: *nowhere\n", "m.yaml")
    assert str(error.value).startswith("m.yaml:2: malformed YAML: found undefined alias 'nowhere'")


# Values with shared parts: PyYAML's dumper writes each shared part once, as an anchor, and
# aliases it after, so the texts below carry anchors and aliases at every depth and position.
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(
        [
            "yes",
            "No",
            "~",
            "1e3",
            "0o17",
            "0x1F",
            "2001-12-14",
            "1:20",
            "<<",
            "=",
            ".inf",
            "-.NaN",
            "",
        ]
    ),
)


def _with_sharing(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    lists = st.lists(children, max_size=4)
    maps = st.dictionaries(st.text(max_size=5), children, max_size=4)
    shared = st.one_of(lists, maps).flatmap(
        lambda part: st.sampled_from([[part, part], {"one": part, "two": [part]}])
    )
    return st.one_of(lists, maps, shared)


_VALUES = st.recursive(_SCALARS, _with_sharing, max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.sampled_from([None, True, False]))
@pytest.mark.slow
def test_yaml_with_anchors_at_any_depth_reads_as_pyyaml_reads_it(
    value: object, flow: bool | None
) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True)
    try:
        expected = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        with pytest.raises(ArgmatrixError):
            load_yaml_text(text, "m.yaml")
        return
    assert load_yaml_text(text, "m.yaml") == expected
