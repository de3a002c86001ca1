"""CLI wiring of the adoption commands: audit, import, diff (see legacy.py, audit.py, ...)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add the audit, import and diff commands."""
