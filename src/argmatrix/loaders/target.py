"""A registry target, `module:callable`: the function (or method) that builds the parser,
optionally followed by the subcommands that lead to the registry (`pkg.cli:run serve api_server`)."""

from __future__ import annotations

import argparse

from argmatrix.errors import ArgmatrixError


def split_target(target: str) -> tuple[str, str]:
    """`pkg.server_args:ServerArgs.add_cli_args` -> (`pkg.server_args`, `ServerArgs.add_cli_args`)."""
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ArgmatrixError.at(
            f"registry target {target!r} is not of the form module:callable",
            fix="name it like 'mypkg.server_args:ServerArgs.add_cli_args'",
        )
    return module, attr


def split_subcommands(target: str) -> tuple[str, tuple[str, ...]]:
    """`pkg.cli:run serve api_server` -> (`pkg.cli:run`, (`serve`, `api_server`)). A target
    without a colon in its first word (a snapshot path, which may hold spaces) is kept whole."""
    words = target.split()
    if len(words) > 1 and ":" in words[0]:
        return words[0], tuple(words[1:])
    return target, ()


def descend(
    parser: argparse.ArgumentParser, path: tuple[str, ...], target: str
) -> argparse.ArgumentParser:
    """The parser of the subcommand `path` leads to (`serve`, then `api_server`)."""
    walked: list[str] = []
    for name in path:
        choices: dict[str, argparse.ArgumentParser] = {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                choices.update(action._name_parser_map)
        where = " ".join([target, *walked])
        if name not in choices:
            names = list(choices)
            known = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
            known = known if names else "none: it has no subcommands"
            raise ArgmatrixError.at(
                f"{where} has no subcommand {name!r}",
                fix=f"name one of its subcommands ({known})",
            )
        parser = choices[name]
        walked.append(name)
    return parser
