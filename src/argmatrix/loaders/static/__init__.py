"""Static reading: a registry's argparse parser built from its source, which is interpreted and
never imported or run. Data flows down: `reader` (the entry point, `load_static`, and the
`StaticLoader` that owns everything one read keeps) -> `source` (the modules of the registry's
package, parsed and followed name by name) -> `interpreter` (expressions over the syntax tree)
-> `objects` (a project's parser subclass and its group wrapper, run as written; the parser
captured where the builder parses) -> `statements` and `replay` (parser calls replayed on real
argparse) -> `calls` (arguments, builtins, lambdas, helper functions) and `classes` (with the
`.pyi` stubs of compiled modules) -> `syntax`, `outline`, `argparse_names` -> `ops` ->
`builtins` -> `formatting` (operations on plain data) -> `values` (the value model) ->
`budget` (the bounds of one read). The package may import `argmatrix.model`,
`argmatrix.errors`, `argmatrix._runtime.files` and `argmatrix.loaders.convert`, `.sections` and
`.target`, nothing above them; and it never imports, executes or calls anything of the
registry's code: what only running it would tell is kept as source text, a named stand-in, or
a diagnostic."""
