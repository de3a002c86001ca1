"""A template cannot build a value that is small in memory but huge written out.

Lists, tuples and dicts a template builds hold other values by reference: `[x, x]` in a loop of
sixty makes a handful of objects that `hash`, `==`, `pprint` or printing walk 2^60 times, inside
C code no clock can stop. Each such value is measured as if written out when it is built (list,
tuple and dict displays too), and a namespace, which can be changed after it is made, prints
without its contents. Each attack runs in its own process, so a regression fails on the timeout
instead of hanging the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import (
    HANG_SECONDS,
    Run,
    add_template_page,
    copy_project,
    processor_seconds,
    run_cli_in_subprocess,
)

# A hostile-input suite: slow by design, left out of make test-fast.
pytestmark = pytest.mark.hostile

UNSAFE = "tried an unsafe operation"
DOUBLED = "{% for i in range(60) %}{% set h.v = STEP %}{% endfor %}"
ATTACKS = [
    ("a wide JSON indent", "{{ (range(100000) | list) | tojson(indent=100000) | length }}"),
    ("lists summed", "{{ ([[1] * 3999] * 3999) | sum(start=[]) | length }}"),
    ("mapped lists summed", "{{ ([[1] * 1999] * 1999) | map('list') | sum(start=[]) | length }}"),
    (
        "a tuple doubled, then hashed",
        "{% set h = namespace(v=(1,)) %}"
        + DOUBLED.replace("STEP", "(h.v, h.v)")
        + "{{ {h.v: 1} | length }}",
    ),
    (
        "two lists doubled, then compared",
        "{% set h = namespace(v=[1], w=[1]) %}{% for i in range(60) %}"
        "{% set h.v = [h.v, h.v] %}{% set h.w = [h.w, h.w] %}{% endfor %}{{ h.v == h.w }}",
    ),
    ("a list of a list, many times, printed", "{{ ([[1] * 10000] * 10000) | pprint | length }}"),
    (
        "a cycler's items doubled, then hashed",
        "{% set h = namespace(v=cycler(1)) %}"
        + DOUBLED.replace("STEP", "cycler(h.v.items, h.v.items)")
        + "{{ {h.v.items: 1} | length }}",
    ),
    (
        "groupby's tuples doubled",
        "{% set h = namespace(v=[[1, 2]]) %}"
        + DOUBLED.replace("STEP", "(h.v | groupby(0)) + (h.v | groupby(0))")
        + "{{ h.v | tojson | length }}",
    ),
    (
        "nested without end",
        "{% set h = namespace(v=[]) %}"
        + DOUBLED.replace("STEP", "[h.v]").replace("60", "5000")
        + "{{ h.v }}",
    ),
]


def generate(root: Path, template: str) -> Run:
    source = "# A page\n{# the attack is on line 3 #}\n" + template + "\n"
    add_template_page(root, "evil.md.j2", source, "guide/evil.md")
    return run_cli_in_subprocess("generate", cwd=root, timeout=HANG_SECONDS)


@pytest.mark.parametrize(("name", "attack"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_value_huge_when_written_out_is_a_sandbox_limit(
    tmp_path: Path, name: str, attack: str
) -> None:
    root = copy_project(tmp_path)
    started = processor_seconds()
    result = generate(root, attack)
    assert processor_seconds() - started < 10
    assert result.code == 2, result.out + result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert f"evil.md.j2:3: template 'evil.md.j2' {UNSAFE}:" in lines[0]
    assert not (root / "docs" / "guide" / "evil.md").exists()


def test_a_namespace_changed_into_a_doubling_chain_prints_without_its_contents(
    tmp_path: Path,
) -> None:
    root = copy_project(tmp_path)
    chain = (
        "{% set h = namespace(v=1) %}"
        + DOUBLED.replace("STEP", "namespace(a=h.v, b=h.v)")
        + "{{ h.v }}"
    )
    started = processor_seconds()
    result = generate(root, chain)
    assert processor_seconds() - started < 10
    assert result.code == 0, result.err
    page = (root / "docs" / "guide" / "evil.md").read_text(encoding="utf-8")
    assert len(page) < 1000


def test_a_template_still_builds_and_prints_small_values(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    template = (
        "{% set ns = namespace(n=0) %}{% for a, b in [(1, 2), (3, 4)] %}"
        "{% set ns.n = ns.n + a * b %}{% endfor %}{% set x, y = 5, [6, (7, 8)] %}"
        "{{ ns.n }} {{ x }} {{ y }} {{ {'k': [1, 2]} }} {{ ([[0] * 3] * 2) | pprint }}"
        " {{ [[1], [2]] | sum(start=[]) }} {{ [1, 2] | map('int') | sum }}"
        " {{ {'a': [1]} | tojson(2) | replace('\\n', '') }}"
    )
    result = generate(root, template)
    assert result.code == 0, result.err
    page = (root / "docs" / "guide" / "evil.md").read_text(encoding="utf-8")
    assert "14 5 [6, (7, 8)] {'k': [1, 2]} [[0, 0, 0], [0, 0, 0]] [1, 2] 3 {" in page


def test_compiled_templates_are_keyed_on_argmatrix_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade that tightens the sandbox recompiles every template, even unchanged ones."""
    from jinja2 import FileSystemBytecodeCache

    import argmatrix._runtime.cache as cache
    from argmatrix.render.sandbox import SaltedBytecodeCache

    salted = SaltedBytecodeCache(FileSystemBytecodeCache(str(tmp_path)))
    monkeypatch.setattr(cache, "code_version", lambda: "code-a")
    before = salted.get_cache_key("page.md.j2")
    monkeypatch.setattr(cache, "code_version", lambda: "code-b")
    assert salted.get_cache_key("page.md.j2") != before
