"""Not one of the suite's test files (its name is no `test_*.py`, so pytest never collects it by
itself): tests/test_suite_environment.py runs it in a pytest of its own, started from a shell
that holds a developer's variables, to see the environment a test of the suite sees."""

from __future__ import annotations

import json
import os
from pathlib import Path

PROBE_OUTPUT = "SUITE_PROBE_OUTPUT"  # where the probe writes what it saw (JSON)


def test_write_the_environment_a_test_sees() -> None:
    seen = json.dumps(dict(os.environ), sort_keys=True)
    Path(os.environ[PROBE_OUTPUT]).write_text(seen, encoding="utf-8")
