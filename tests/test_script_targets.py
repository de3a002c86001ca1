"""`module:__main__` as `python -m module` runs it (issue 31, item 8): the whole parser its
script parses with (a parser filled at the module's top level before the `__main__` block, a
`parse_known_args` pre-parser merged into the parser of the later parse, or stopped at when that
parser is built only after it), and a package's `__main__.py`, in both modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from argmatrix.errors import ArgmatrixError
from argmatrix.loaders.load import Mode, RegistrySpec, load_registry
from argmatrix.model.registry import Registry
from helpers import chdir, line_of

MODES: tuple[Mode, ...] = ("live", "static")


def read(folder: Path, target: str, mode: Mode) -> Registry:
    with chdir(folder):
        return load_registry(RegistrySpec(target, mode, base_dir=folder, search_path=()))


def names(registry: Registry) -> list[str]:
    return [a.name for a in registry.arguments]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("mode", MODES)
def test_a_package_target_reads_its_main_module(mode: Mode, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "import argparse\n")
    write(
        tmp_path / "pkg" / "__main__.py",
        "import argparse\n\nif __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--from-main', type=int)\n"
        "    parser.parse_args()\n",
    )
    assert names(read(tmp_path, "pkg:__main__", mode)) == ["--from-main"]


@pytest.mark.parametrize("mode", MODES)
def test_a_parser_filled_before_the_main_block_keeps_those_arguments(
    mode: Mode, tmp_path: Path
) -> None:
    write(
        tmp_path / "module_level.py",
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--early', default=1)\n\n"
        "if __name__ == '__main__':\n"
        "    parser.add_argument('--late', default=2)\n"
        "    args = parser.parse_args()\n",
    )
    assert names(read(tmp_path, "module_level:__main__", mode)) == ["--early", "--late"]


PRE_PARSER_FIRST = """\
import argparse

if __name__ == "__main__":
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    known, rest = pre.parse_known_args()
    parser = argparse.ArgumentParser(parents=[pre])
    parser.add_argument("--port", type=int)
    args = parser.parse_args(rest)
"""

PRE_PARSER_AFTER = """\
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    known, rest = pre.parse_known_args()
    args = parser.parse_args(rest)
"""

KNOWN_ARGS_ONLY = """\
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--port", type=int)
    args, extra = parser.parse_known_args()
    open("ran-after.txt", "w").write("ran")
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_pre_parser_is_merged_into_the_parser_built_before_it(mode: Mode, tmp_path: Path) -> None:
    write(tmp_path / "prebuilt.py", PRE_PARSER_AFTER)
    assert names(read(tmp_path, "prebuilt:__main__", mode)) == ["--port", "--config"]


@pytest.mark.parametrize("mode", MODES)
def test_a_pre_parser_before_the_whole_parser_is_built_is_a_located_stop(
    mode: Mode, tmp_path: Path
) -> None:
    script = write(tmp_path / "preparse.py", PRE_PARSER_FIRST)
    with pytest.raises(ArgmatrixError) as stopped:
        read(tmp_path, "preparse:__main__", mode)
    [problem] = stopped.value.problems
    assert (problem.file, problem.line) == (str(script), line_of(script, "pre.parse_known_args"))
    assert "pre-parser (--config)" in problem.message


@pytest.mark.parametrize("mode", MODES)
def test_parse_known_args_as_the_only_parse_is_the_registry(mode: Mode, tmp_path: Path) -> None:
    write(tmp_path / "known_only.py", KNOWN_ARGS_ONLY)
    assert names(read(tmp_path, "known_only:__main__", mode)) == ["--port"]
    assert not (tmp_path / "ran-after.txt").exists()
