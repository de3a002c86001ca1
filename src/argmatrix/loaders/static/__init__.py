"""Static reading: a registry's argparse parser built from its source, which is interpreted and
never imported or run (a Click command or Typer app likewise, into Click's facts). Data flows down:
`frameworks` (the entry of a Click or Typer read, `FRAMEWORKS["click"]`'s static reader: which
command the target names; it gives a `StaticRead` too) -> `reader` (the entry point: `load_static`
returns a `StaticRead`, the parser with the files read and what could not be followed) ->
`loader` (the `StaticLoader`, which owns everything one read keeps) -> `source` (the modules of
the registry's package, parsed and followed name by name) -> `interpreter` (expressions over the
syntax tree) -> `attributes` (an attribute of a value, by its kind) -> the Click and Typer rules:
`typers` and `typer_params` (Typer's apps and its parameters), `clicks` (a command's facts),
`click_scan` (finding commands) and `click_registrations` (what registers on them elsewhere),
`click_params` and `click_types` (a parameter, its type), reading the calls the interpreter
recorded ->
`objects` (a project's parser subclass and its group wrapper, run as written; the parser captured
where the builder parses) and `framework_calls` (calls of Click and Typer recorded as values,
their decorators applied, a class deriving from theirs made by its `__init__`) -> `statements`
and `replay` (parser calls replayed on real argparse) -> `argparse_values` (the values a
replayed call hands argparse) -> `declared`, `pydantic_models`, `records` (classes that declare fields) -> `calls` (arguments,
builtins, lambdas, helper functions) and `classes` (with the `.pyi` stubs of compiled modules) ->
`evaluator` (the protocol by which all of these call back on the interpreter) and `branches` (the
statements of a module's top level that run at import: the `if`s it decides, the `try`s) ->
`recording` (what one read replayed), `syntax`, `outline`, `argparse_names`, `typeforms`,
`scripts` (a module's `if __name__ == "__main__":` blocks), `framework_values` (Click's and
Typer's objects as values) -> `ops` -> `builtins` -> `formatting` (operations on plain data)
-> `values` (the value model) -> `context` (the protocols of the read and of a module being read)
-> `budget` (the bounds of one read) and `module_files` (where a module's file is on the search
path). No module imports one above it, not even for annotations
(`tests/test_static_layers.py`). The package may import `argmatrix.model`, `argmatrix.errors`,
`argmatrix._runtime.files` and `argmatrix.loaders.convert`, `.clicks`, `.sections` and `.target`,
nothing above them; and it never imports, executes or calls anything of the registry's code: what
only running it would tell is kept as source text, a named stand-in, or a diagnostic."""
