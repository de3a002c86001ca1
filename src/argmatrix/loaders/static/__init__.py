"""Static reading: a registry's argparse parser built from its source, which is interpreted and
never imported or run (a Click command or Typer app likewise, into Click's facts).

Two rooms, and the read that joins them. At the bottom, `python/`, the evaluator: a bounded
interpreter of Python source that knows no framework (its own docstring says what it evaluates,
what it refuses and how it is bounded). On it, one package per framework reader:
`argparse_parsers/` (parser calls replayed on real argparse), `click_commands/` (a Click command's
facts), `typer_apps/` (a Typer app's) and `declared_fields/` (dataclass, msgspec and pydantic
fields). On top, the read: `frameworks` (the entry of a Click or Typer read,
`FRAMEWORKS["click"]`'s static reader: which command the target names; it gives a `StaticRead`
too) -> `reader` (the entry point: `load_static` returns a `StaticRead`, the parser with the files
read and what could not be followed) -> `loader` (the `StaticLoader`, which owns everything one
read keeps) -> `source` (the modules of the registry's package, parsed and followed name by
name) -> `interpreter` (the evaluator's `PythonInterpreter` with the readers' hooks filled in:
each call and attribute of a reader's kind handed to that reader) -> `attributes` (the readers'
kinds of attribute). No module imports one above it, not even for annotations (the contracts
of `pyproject.toml`, `tests/test_static_layers.py`). The package may import `argmatrix.model`,
`argmatrix.errors`, `argmatrix._runtime.files` and `argmatrix.loaders.convert`, `.clicks`,
`.sections` and `.target`, nothing above them; and it never imports, executes or calls anything
of the registry's code: what only running it would tell is kept as source text, a named stand-in,
or a diagnostic."""
