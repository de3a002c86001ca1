"""Adapters that run argmatrix inside a docs engine (today the MkDocs plugin, `mkdocs`). An
adapter takes plain values from the engine's configuration, builds a `project.Project` and
renders through `render.pages`, like the command line; it never renders on its own.
"""
