"""`module:__main__`: what a module runs when it is run as a script, the body of its
`if __name__ == "__main__":` blocks, made a function static reading can run (its names are the
module's), so that the parser it would parse with is taken as a builder's is."""

from __future__ import annotations

import ast
from typing import Any

MAIN = "__main__"


def is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == MAIN]
    return len(names) == 1 and len(texts) == 1


def main_blocks(tree: ast.Module) -> list[ast.If]:
    return [s for s in tree.body if isinstance(s, ast.If) and is_main_test(s.test)]


def main_function(tree: ast.Module) -> ast.FunctionDef | None:
    """The statements of every `if __name__ == "__main__":` block of the module, in order, as
    the body of a function named `__main__` located at the first block, after the calls the
    module's top level makes on a name it binds (`parser.add_argument(...)` on a module-level
    parser, before the block: running the script makes them first); None: it has none."""
    blocks = main_blocks(tree)
    if not blocks:
        return None
    body = [*_filling_calls(tree, blocks[0]), *(s for block in blocks for s in block.body)]
    fields: Any = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    function = ast.FunctionDef(
        name=MAIN,
        args=ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        **fields,  # Python 3.12 and later
    )
    ast.copy_location(function, blocks[0])
    function.end_lineno = blocks[-1].end_lineno
    return function


def _filling_calls(tree: ast.Module, first_block: ast.If) -> list[ast.stmt]:
    """The top level's calls of a method of a name the top level binds, before the first
    `__main__` block: what fills a module-level parser when the module runs."""
    bound = {
        target.id
        for statement in tree.body
        if isinstance(statement, (ast.Assign, ast.AnnAssign))
        for target in (
            statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        )
        if isinstance(target, ast.Name)
    }
    calls: list[ast.stmt] = []
    for statement in tree.body:
        if statement is first_block:
            break
        if (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute)
            and isinstance(statement.value.func.value, ast.Name)
            and statement.value.func.value.id in bound
        ):
            calls.append(statement)
    return calls
