"""The evaluator of static reading: a small, bounded interpreter of Python source that never runs it.

What it evaluates. `interpreter.PythonInterpreter` runs a function's statements (`statements`)
and evaluates its expressions over a module's syntax tree, from the source files on the search path
(`module_files`; a compiled module's `.pyi` stub where there is no source): the statements of its
top level that run at import (`branches`: an `if` it can decide, a `try`, the
`if __name__ == "__main__":` blocks of `scripts`), its names and `from x import *`
(`star_imports`), and within a function the expressions, operators (`ops`), the builtins and the
methods of plain data it implements (`builtins`, `formatting`: `sorted`, `str.format`, f-strings,
`os.environ.get` as `environment` models it), calls of the project's own functions, lambdas and
classes (`calls`, `classes`: bases, members, Enum members, the class body's values). Its values
are those of `values`: plain data (exactly `str`, `int`, `list`, `dict`, ...; never a subclass),
references to what the source names (a class, a function, a module, a name of the standard
library), and `Unevaluated` source text for everything else. The parts above it call back on the
interpreter through the `Evaluator` protocol (`evaluator`) and reach the read and a module being
read through `ReadContext` and `ModuleContext` (`context`).

What it refuses. It imports, opens, calls and executes nothing of the project: a name of another
library is a reference, never the object; an operation it cannot do on plain data raises
`CannotEvaluate` with a reason a reader can understand, and the reader above says it (the value is
kept as source text, or the read stops at that line when arguments would be missing). No object
of argmatrix's own process is ever handed to the project's code.

How it is bounded. Every read has a `Budget` (`budget`): steps (the same on every machine),
call depth, expression nesting, the size of each value built and of all of them together,
integer bit length, the cost of parsing a module, checked before the work is done, and
processor time as the backstop. Exceeding one stops the read with a located error.

It knows no framework's rules: the readers of argparse (`argparse_parsers`), Click
(`click_commands`), Typer (`typer_apps`) and declared fields (`declared_fields`) sit above it and
import it, never the reverse (the contracts of `loaders.static` in `pyproject.toml`). Nothing of a
framework is imported here, not even for an annotation: argparse, Click, Typer, msgspec, pydantic
and their readers are a forbidden contract of `pyproject.toml`, which `tests/test_static_layers.py`
checks with annotation imports counted. Where a value may be a reader's (a call, an attribute, a `|`
or `[...]` of typing forms, a loop over declared fields), the interpreter asks a hook of its own
that answers "not mine" here; the read's interpreter (`loaders/static/interpreter.py`) overrides the
hooks to hand the value to its reader. A reader registers what the evaluator must recognise
(`statements.DECLARED_ITEMS`, `values.class_items`, and `classes.class_value_expression`: what a
class-level value means, such as a declared field's `field(default=X)`), or hands its rules to the
part that asks them (`branches.Rules.registering`: the methods whose call registers on an object,
which make an `if` or `try` of a module's top level declare something; Click's and Typer's are in
`click_commands/`). What a reader keeps of one read is its own (`ReadContext.recording`, typed `Any`
here: argparse's replayed parsers and the wrappers of `add_argument` being followed). A value only a
reader looks into (argparse's parser and argument handles, `argparse_parsers/handles.py`) is a
`values.ReaderValue`: opaque here, it says how a reason names it and whether it builds, reaches or
is part of the registry, which decides when a call or statement the evaluator cannot follow stops
the read; a name of a library a reader models (`argparse` and its whitelisted names, `ArgparseRef`
in `argparse_names.py`) is a `values.ReaderRef`. What it still knows of argparse is a word, not a
rule: the parser an object of the source is (`values.SourceObject.parser`), and "parser" in the
names and reasons of the predicates that decide what builds the registry (`syntax.calls_parser`,
`returns_parser`, `classes.builds_in_body`, `calls.reaches_parser`, `parser_passed`,
`Evaluator.calls_parser`). Which calls build it is the readers' to say: they register the method
names and the names that make a registry (`syntax.BUILDING_METHODS`, `BUILDING_NAMES`, argparse's in
`argparse_parsers/argparse_names.py`), and a `ReaderValue` says what it is (`values.py`).
"""
