"""The Sphinx extension: `extensions = ["myst_parser", "argmatrix.sphinx"]` in conf.py.

The implementation is `argmatrix.integrations.sphinx` (docs/guide/sphinx.md describes it)."""

from __future__ import annotations

from argmatrix.integrations.sphinx import setup

__all__ = ["setup"]
