"""Project templates come with the pull request: they render in a sandbox.

Each hostile template below is a project template of the fixture project, run by `generate` and
by `check`, with a canary file next to the project and a canary in the environment. Each ends
with exit 2 and one line naming the template file and the line of the attack, writes nothing,
and no canary reaches any output. The templates folder itself is read with care: only template
files, no hidden folders, no symbolic link out of it, no FIFO, no file over the size limit.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import argmatrix.render.sandbox as sandbox
from argmatrix.config import load_config
from argmatrix.project import project_from_config
from argmatrix.render.formats.markdown import REGION as MARKDOWN_REGION
from argmatrix.render.template_files import MAX_TEMPLATE_BYTES, read_templates
from argmatrix.render.views import server_page
from helpers import (
    HANG_SECONDS,
    add_template_page,
    copy_project,
    files_under,
    run_cli_in_process,
)

# A hostile-input suite: slow by design, left out of make test-fast.
pytestmark = pytest.mark.hostile

CANARY = "canary-4f1d2a9e"
UNSAFE = "tried an unsafe operation"
FAILED = "failed to render"

# (name, template line 3, what the one-line message says)
ATTACKS = [
    ("class of a string", "{{ ''.__class__.__mro__[1].__subclasses__() }}", UNSAFE),
    ("globals through cycler", "{{ cycler.__init__.__globals__.os.environ }}", UNSAFE),
    ("globals through lipsum", "{{ lipsum.__globals__['os'].popen('id').read() }}", UNSAFE),
    ("globals through joiner", "{{ joiner.__init__.__globals__ }}", UNSAFE),
    ("the template's context", "{{ self._TemplateReference__context }}", UNSAFE),
    ("a format string", "{{ '{0.__class__.__init__.__globals__}'.format(registry) }}", UNSAFE),
    ("attr filter", "{{ registry | attr('__class__') }}", UNSAFE),
    ("a method of a function", "{{ registry.in_section.__func__ }}", UNSAFE),
    ("a list changed", "{% set names = [] %}{{ names.append(1) }}", UNSAFE),
    ("a dict changed", "{% set seen = {} %}{{ seen.setdefault('a', []) }}", UNSAFE),
    ("extra changed", "{{ registry.arguments[0].extra.update({'a': 1}) }}", UNSAFE),
    ("a huge range", "{{ range(10**9) | list | length }}", UNSAFE),
    ("a huge text", "{{ 'x' * 10**10 }}", UNSAFE),
    ("a huge number", "{{ 10 ** (10 ** 8) }}", UNSAFE),
    (
        "doubling with ~",
        "{% set ns = namespace(s='x' * 1000) %}{% for i in range(40) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
        UNSAFE,
    ),
    ("a wide format", "{{ '%0999999999d' % 1 }}", UNSAFE),
    ("a wide center", "{{ 'x' | center(10**9) }}", UNSAFE),
    ("a long join", "{{ range(100000) | join('x' * 100000) }}", UNSAFE),
    ("a big lorem ipsum", "{{ lipsum(10**6) }}", UNSAFE),
    (
        "many values in all",
        "{{ range(3000) | map('string') | map('center', 1000000) | list | length }}",
        UNSAFE,
    ),
    (
        "loops without end",
        "{% set r = range(99999) | list %}{% for a in r %}{% for b in r %}{% endfor %}{% endfor %}",
        UNSAFE,
    ),
    (
        "output without end",
        "{% macro m() %}{% for a in range(99999) %}{% for b in range(99999)"
        " %}x{% endfor %}{% endfor %}{% endmacro %}{{ m() }}",
        UNSAFE,
    ),
    ("a division by zero", "{{ 1 / 0 }}", FAILED),
    ("recursion", "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", FAILED),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_project(tmp_path)
    (tmp_path / "canary.txt").write_text(CANARY, encoding="utf-8")
    monkeypatch.setenv("ARGMATRIX_TEST_CANARY", CANARY)
    monkeypatch.setattr(sandbox, "RENDER_SECONDS", 1.0)  # the loops stop after a second
    assert run_cli_in_process("generate", cwd=root).code == 0
    return root


@pytest.mark.parametrize("command", ["generate", "check"])
@pytest.mark.parametrize(("name", "attack", "says"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_hostile_template_is_a_located_error_and_changes_nothing(
    project: Path,
    command: str,
    name: str,
    attack: str,
    says: str,
) -> None:
    add_template_page(
        project,
        "evil.md.j2",
        "# A page\n{# the attack is on line 3 #}\n" + attack + "\n",
        "guide/evil.md",
    )
    before = files_under(project)
    started = time.process_time()
    result = run_cli_in_process(command, cwd=project)
    assert time.process_time() - started < 10
    assert result.code == 2, result.out + result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    # named from where it ran, the project's root
    assert f": error: templates/evil.md.j2:3: template 'evil.md.j2' {says}:" in lines[0]
    assert "(fix: " in lines[0]
    assert files_under(project) == before
    assert CANARY not in result.out + result.err


def test_a_template_reads_what_it_is_given(project: Path) -> None:
    """The sandbox still lets a template do a template's work."""
    add_template_page(
        project,
        "fine.md.j2",
        (
            "# {{ registry.arguments[0].name }} {{ options.get('x', 'none') }}\n"
            "{% set ns = namespace(count=0) %}{% for a in registry.arguments %}"
            "{% set ns.count = ns.count + 1 %}{% endfor %}{{ ns.count }}"
            " {{ '%s-%d' % ('a', 3) }} {{ '{}'.format(12345678901) }}"
            " {{ registry.in_section('Model') | map(attribute='dest') | join(',') }}"
            " {{ server.sections | length }} {{ platforms | length }}"
            " {{ cycler('a', 'b').next() }} {{ range(3) | list }} {{ 2 ** 10 }}\n"
        ),
        "guide/evil.md",
    )
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 0, result.err
    loaded = project_from_config(load_config(project / "argmatrix.yaml", project))
    registry = loaded.registry
    model = ",".join(a.dest for a in registry.in_section("Model"))
    assert (project / "docs" / "guide" / "evil.md").read_text(encoding="utf-8") == (
        f"# {registry.arguments[0].name} none\n{len(registry.arguments)} a-3 12345678901"
        f" {model} {len(server_page(registry).sections)} {len(loaded.platforms)} a [0, 1, 2]"
        f" 1024\n\n{MARKDOWN_REGION.generated}\n"  # the line every page argmatrix writes ends with
    )


def test_values_templates_see_cannot_be_changed(project: Path) -> None:
    add_template_page(project, "change.md.j2", "{{ status_labels.clear() }}\n", "guide/evil.md")
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 2
    assert "'mappingproxy object' has no attribute 'clear'" in result.err


# ------------------------------------------------------------------ the templates folder


def test_only_template_files_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "templates"
    (folder / "partials").mkdir(parents=True)
    (folder / "page.md.j2").write_text("page")
    (folder / "partials" / "part.jinja").write_text("part")
    (folder / "other.jinja2").write_text("other")
    (folder / "data.bin").write_bytes(os.urandom(3 * MAX_TEMPLATE_BYTES))  # not read at all
    (folder / "notes.md").write_text("not a template")
    (folder / ".git").mkdir()
    (folder / ".git" / "hidden.md.j2").write_text("hidden")
    (folder / ".hidden.j2").write_text("hidden")
    assert sorted(read_templates(folder).project) == [
        "other.jinja2",
        "page.md.j2",
        "partials/part.jinja",
    ]


def test_a_symbolic_link_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.md.j2").write_text(CANARY)
    (outside / "folder" / "deep.md.j2").write_text(CANARY)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "real.md.j2").write_text("real")
    (folder / "inside.md.j2").symlink_to(folder / "real.md.j2")
    (folder / "leak.md.j2").symlink_to(outside / "secret.md.j2")
    (folder / "linked").symlink_to(outside / "folder", target_is_directory=True)
    found = read_templates(folder).project
    assert sorted(found) == ["inside.md.j2", "real.md.j2"]
    assert all(CANARY.encode() not in content for content, _ in found.values())


def test_a_template_file_over_the_size_limit_is_a_located_error(project: Path) -> None:
    big = project / "templates" / "big.md.j2"
    big.write_bytes(b"x" * (MAX_TEMPLATE_BYTES + 1))
    result = run_cli_in_process("generate", cwd=project)
    assert result.code == 2
    assert result.err.strip().endswith(
        "argmatrix: error: templates/big.md.j2: the template is larger than 1 MiB (fix: split it into smaller templates"
        " with {% include %} or {% import %})"
    )
    assert len(result.err.strip().splitlines()) == 1


def test_a_fifo_named_like_a_template_is_not_waited_for(project: Path) -> None:
    fifo = project / "templates" / "pipe.md.j2"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = run_cli_in_process("generate", cwd=project)
    assert time.monotonic() - started < HANG_SECONDS
    assert result.code == 2
    assert (
        "error: templates/pipe.md.j2: cannot read the template: it is a FIFO, not a regular file"
        in result.err
    )
    assert len(result.err.strip().splitlines()) == 1
