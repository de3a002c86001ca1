"""RTP-LLM's server-arguments page, generated as a user would: its source
(../shared/real-registries, unpacked in a temporary folder, never committed) read statically
from `init_all_group_args`, with `environment: {keyword: env_name}`. Every argument shows the
environment variable its `env_name=` names (23 of them cannot be derived from the flag), and no
type cell shows a converter's name where its name or the configuration says better (`str2bool`,
`_grpc_config_from_json(...)`); a public converter of no such name shows its own
(`normalize_think_mode`), as `export` says it."""

from __future__ import annotations

import json
import re
import tarfile
from pathlib import Path

import pytest

from helpers import RTP_SOURCE, run_cli_in_process, tables

TARGET = "rtp_llm.server.server_args.server_args:init_all_group_args"
ARGUMENTS = 324  # add_argument calls of the source (the live read finds as many)
CONVERTER = re.compile(r"str2|_from_json|_parse_|_convert_|_positive_|\w\(")
# The flag a row is about: the first of its names, without the value form after them.
FLAG = re.compile(r"[^\s,]+")

pytestmark = pytest.mark.real_rtp  # skipped, with its reason, where the source is absent


@pytest.fixture(scope="module")
def rtp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rtp")
    with tarfile.open(RTP_SOURCE) as archive:
        members = archive.getmembers()
        assert all(m.isfile() or m.isdir() for m in members)
        assert not [m.name for m in members if m.name.startswith("/") or ".." in m.name]
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, members=members, filter="data")
        else:
            archive.extractall(folder, members=members)
    (folder / "argmatrix.yaml").write_text(
        f"registry: {{target: '{TARGET}', mode: static}}\n"
        "environment: {keyword: env_name}\n"
        "types: {_positive_or_unlimited: int or unlimited, converter: JSON object}\n"
        "docs_dir: docs\n"
        "pages:\n"
        "  - {template: server_arguments.md.j2, output: server_arguments.md}\n",
        encoding="utf-8",
    )
    result = run_cli_in_process("generate", cwd=folder)
    assert result.code == 0, result.err[-2000:]
    return folder


def test_every_argument_shows_its_environment_variable(rtp: Path) -> None:
    exported = run_cli_in_process("export", cwd=rtp)
    assert exported.code == 0, exported.err[-2000:]
    registry = json.loads(exported.out)["registry"]["arguments"]
    assert len(registry) == ARGUMENTS
    expected = {a["flags"][0]: a["extra"]["env_name"] for a in registry}
    assert all(expected.values())
    # The variables a reader could not have guessed from the flag.
    underived = [f for f, v in expected.items() if v != f.lstrip("-").upper().replace("-", "_")]
    assert len(underived) == 23
    found = tables((rtp / "docs" / "server_arguments.md").read_text(encoding="utf-8"))
    shown = {
        _flag(row[0]): row[table.header.index("Environment variable")]
        for table in found
        for row in table.rows
    }
    assert shown == expected  # all 324, deprecated ones included


def test_no_type_cell_shows_a_converter_name(rtp: Path) -> None:
    found = tables((rtp / "docs" / "server_arguments.md").read_text(encoding="utf-8"))
    types = {
        _flag(row[0]): row[table.header.index("Type / options")]
        for table in found
        if "Type / options" in table.header
        for row in table.rows
    }
    assert len(types) > 300
    assert not {flag: t for flag, t in types.items() if CONVERTER.search(t)}
    assert types["--think_mode"] == "Type: normalize_think_mode"
    assert types["--jit_cache_setup_timeout_s"] == "Type: int or unlimited"  # types:
    # types: names the converter `_grpc_config_from_json(...)` returns, as argparse holds it.
    assert types["--grpc_config_json"] == types["--dash_sc_grpc_config_json"] == "Type: JSON object"
    assert sum(t == "Type: bool" for t in types.values()) >= 85  # str2bool


def _flag(cell: str) -> str:
    found = FLAG.match(cell)
    assert found is not None, cell
    return found.group(0)
