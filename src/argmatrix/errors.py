"""The one exception type a user can cause, and how it is shown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class Problem:
    """One thing wrong with the input: where it is, what it is, and how to fix it."""

    message: str
    file: str | None = None
    line: int | None = None
    fix: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        text = f"{where}{self.message}"
        if self.fix:
            text += f" (fix: {self.fix})"
        return text.replace("\n", " ")


class ArgmatrixError(Exception):
    """Bad input or usage. The CLI prints one line per problem and exits 2."""

    def __init__(self, *problems: Problem) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = list(problems)

    def __reduce__(self) -> tuple[type[ArgmatrixError], tuple[Problem, ...]]:
        return (type(self), tuple(self.problems))  # pickled whole, e.g. from a forked worker

    @classmethod
    def at(
        cls, message: str, file: str | None = None, line: int | None = None, fix: str | None = None
    ) -> ArgmatrixError:
        return cls(Problem(message, file, line, fix))


def read_user_file(path: Path, what: str, fix: str) -> str:
    """A file the user named, as text; a missing or unreadable one is an ArgmatrixError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ArgmatrixError.at(f"{what} not found", file=str(path), fix=fix) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ArgmatrixError.at(f"cannot read {what}: {exc}", file=str(path)) from None


def split_target(target: str) -> tuple[str, str]:
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ArgmatrixError.at(
            f"registry target {target!r} is not of the form module:callable",
            fix="name it like 'mypkg.server_args:ServerArgs.add_cli_args'",
        )
    return module, attr
