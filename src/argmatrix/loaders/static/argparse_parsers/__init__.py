"""Static reading of argparse: a registry's parser calls replayed on a real `ArgumentParser`.

`entry` runs the target function (a builder, a filler handed a parser, `module:__main__`) and
finds the parser it builds; `replay` turns `ArgumentParser(...)`, `add_argument`, `add_argument_group`, `add_subparsers`
and their kin into calls of real argparse, with the values `argparse_values` makes of what the
source hands them (plain data, named stand-ins for types and actions, source text kept and said
for the rest); `objects` runs a project's parser subclass and group wrapper as written; what one
read replayed (the parsers made, where each argument was added) is its `recording`, and the names
of `argparse` a source may use are the whitelist of `argparse_names`."""
