"""Capability manifests, one YAML file per platform: `load` reads and validates one (every
problem with its line), `resolve` applies it to the registry (argument entry > section entry >
file default) and reports entries that do not fit. May import `_runtime`, `model`, `errors`.
"""
