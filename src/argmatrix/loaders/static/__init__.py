"""Static reading: a registry's argparse parser built from its source, which is interpreted and
never imported or run (a Click command or Typer app likewise, into Click's facts).

Two rooms, and the read that joins them. At the bottom, `python/`, the evaluator: a bounded
interpreter of Python source that knows no framework (its own docstring says what it evaluates, what
it refuses and how it is bounded). On it, one package per framework reader, each holding its
framework's entry: `argparse_parsers/` (parser calls replayed on real argparse; `entry`: the target
function run and the parser it builds), `click_commands/` (a Click command's facts; `entry`: which
command a target names, Typer's reader handed in), `typer_apps/` (a Typer app's) and
`declared_fields/` (dataclass, msgspec and pydantic fields). On top, the read: `reader`
(`load_static` and `read_framework`, `FRAMEWORKS["click"]`'s static reader: the loader made, the
target's module found and handed to its framework's entry; each returns a `StaticRead`, the parser
with the files read and what could not be followed) -> `loader` (the `StaticLoader`, which owns
everything one read keeps) -> `source` (the modules of the registry's package, parsed and followed
name by name) -> `interpreter` (the evaluator's `PythonInterpreter` with the readers' hooks filled
in: each call and attribute of a reader's kind handed to that reader; a framework's entry is handed
its class) -> `attributes` (the readers' kinds of attribute). No module imports one above it, not
even for annotations (the contracts of `pyproject.toml`, `tests/test_static_layers.py`). The package
may import `argmatrix.model`, `argmatrix.errors`, `argmatrix._runtime.files` and
`argmatrix.loaders.convert`, `.clicks`, `.sections` and `.target`, nothing above them; and it never
imports, executes or calls anything of the registry's code: what only running it would tell is kept
as source text, a named stand-in, or a diagnostic."""
