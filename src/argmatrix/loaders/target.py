"""A registry target, `module:callable`: the function (or method) that builds the parser."""

from __future__ import annotations

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
