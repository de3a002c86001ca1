"""The shape of a command line as a user types it, derived from the registry's facts: each
argument's value form (`--tp N`, `--served-model-name NAME [NAME ...]`) and the usage synopsis
of a command, as argparse's `format_usage()` or Click's `get_usage()` writes them.

Pure functions of the model, so a page shows the same synopsis whatever Python or Click runs
argmatrix (a snapshot holds the facts, never a terminal's text). argparse's rules are those of
Python 3.13 (`HelpFormatter._get_actions_usage_parts`), which write the same usage as 3.10 to
3.12 for every parser those accept; Click's are those of the Click in `locks/` (8.5), applied by
the Click converter, which keeps each value's metavar as Click writes it (`loaders/clicks.py`),
or an argument's as Typer writes it where the Typer read writes arguments itself
(`typer_argument_usage`).

What the synopsis is not: wrapped as a terminal wraps it. `usage_lines` breaks it between parts
at a fixed width, the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from argmatrix.model.registry import (
    ARGPARSE,
    CLICK,
    Argument,
    ExclusiveGroup,
    Registry,
    Unevaluated,
)
from argmatrix.model.values import value_text

# argparse's nargs that are not counts.
OPTIONAL, ZERO_OR_MORE, ONE_OR_MORE, REMAINDER, PARSER = "?", "*", "+", "...", "A..."
SUPPRESS = "==SUPPRESS=="
USAGE_WIDTH = 80  # the widest line `usage_lines` writes, but for a single part longer than that


# ------------------------------------------------------------------ one argument


def value_form(argument: Argument, framework: str = ARGPARSE) -> str:
    """What follows the flag when a user gives the argument: `N`, `NAME [NAME ...]`,
    `[ORIGIN ...]`, `{a,b,c}`, Click's `INTEGER`; "" for a switch. For a positional, the
    argument as its usage shows it (`model`, `[PROMPT ...]`)."""
    if framework == CLICK:
        return "" if _is_switch(argument) else str(argument.metavar or "")
    if framework != ARGPARSE or _is_switch(argument):
        return ""
    default = argument.dest if argument.positional else argument.dest.upper()
    return format_args(argument, default)


def invocation(argument: Argument, framework: str = ARGPARSE) -> str:
    """The argument as a usage writes it, without brackets: `--tp N`, `--cache | --no-cache`,
    `-v`, a positional's value form."""
    if argument.positional:
        return value_form(argument, framework)
    if argument.action == "boolean_optional":
        return " | ".join(argument.flags)
    form = value_form(argument, framework)
    return f"{argument.flags[0]} {form}" if form else argument.flags[0]


def _is_switch(argument: Argument) -> bool:
    """A flag that takes no value: argparse's nargs 0 (store_true, count, version, a custom
    action made so), or one of the model's flag actions (Click's flags say no nargs)."""
    if argument.positional:
        return False
    return argument.nargs == 0 or argument.is_flag or argument.action == "version"


def format_args(argument: Argument, default: str) -> str:
    """argparse's `HelpFormatter._format_args`: the metavar (declared, else the choices in
    braces, else `default`) repeated as `nargs` asks."""
    metavar = _metavar(argument, default)

    def names(count: int) -> tuple[str, ...]:
        if isinstance(metavar, tuple):
            return metavar if len(metavar) >= count else (*metavar, *[metavar[-1]] * count)
        return (metavar,) * count

    nargs = argument.nargs
    if nargs is None or isinstance(nargs, Unevaluated):
        return names(1)[0]
    if nargs == OPTIONAL:
        return f"[{names(1)[0]}]"
    if nargs == ZERO_OR_MORE:
        if isinstance(metavar, tuple) and len(metavar) == 2:
            return f"[{metavar[0]} [{metavar[1]} ...]]"
        return f"[{names(1)[0]} ...]"
    if nargs == ONE_OR_MORE:
        first, more = names(2)[:2]
        return f"{first} [{more} ...]"
    if nargs == REMAINDER:
        return "..."
    if nargs == PARSER:
        return f"{names(1)[0]} ..."
    if nargs == SUPPRESS:
        return ""
    if isinstance(nargs, int) and not isinstance(nargs, bool) and nargs > 0:
        return " ".join(names(nargs)[:nargs])
    return names(1)[0]


def _metavar(argument: Argument, default: str) -> str | tuple[str, ...]:
    metavar = argument.metavar
    if isinstance(metavar, tuple) and metavar:
        return tuple(str(m) for m in metavar)
    if isinstance(metavar, str):
        return metavar
    if isinstance(argument.choices, tuple):
        return "{" + ",".join(_choice_text(c) for c in argument.choices) + "}"
    return default


def _choice_text(choice: Any) -> str:
    """A choice as argparse's `{a,b,c}` writes it (`str()`, as every Python reads the model)."""
    return choice if isinstance(choice, str) else value_text(choice)


# ------------------------------------------------------------------ exclusive groups


def exclusive_peers(
    registry: Registry, argument: Argument
) -> list[tuple[ExclusiveGroup, list[str]]]:
    """Each exclusive group the argument is in, with the names of its visible arguments (the
    argument's own included), in the group's order."""
    hidden = {a.name for a in registry.arguments if a.hidden}
    return [
        (group, [name for name in group.arguments if name not in hidden])
        for group in registry.groups_of(argument)
    ]


# ------------------------------------------------------------------ the usage synopsis


def program_name(registry: Registry, configured: str | None = None, top: str = "") -> str:
    """The program a command's usage starts with: the registry's own (a subcommand's includes
    its parents': `llmserve serve`), with `configured` in place of the top command's (`top`,
    the program of the registry a subcommand belongs to; "" for the top command itself); else
    the registry's top-level package."""
    own = registry.prog
    if configured:
        if not top:
            return configured
        if own.startswith(top + " "):
            return configured + own[len(top) :]
    if own:
        return own
    return registry.source.split(":")[0].split(".")[0].split(" ")[0]


def usage_parts(registry: Registry, prog: str) -> list[str]:
    """The command's usage as its framework writes it, in parts (`prog`, `[-h]`,
    `--model PATH`, `[--a | --b]`, `{serve,bench} ...`): what `format_usage()` (after its
    `usage: `) or Click's `get_usage()` (after its `Usage: `) prints, split where it may wrap.
    [] when the framework is not known (a snapshot of format version 1)."""
    if registry.framework == CLICK:
        return _click_parts(registry, prog)
    if registry.framework != ARGPARSE:
        return []
    if registry.usage:
        return [_expand_prog(registry.usage, prog)]
    return [prog, *_argparse_parts(registry)]


def short_usage_parts(registry: Registry, prog: str) -> list[str]:
    """A usage a person reads at a glance for a command of hundreds of options (a page's
    `usage: short`): what a command line must give, in argparse's order (its required options,
    its required exclusive groups as `(--a A | --b B)`), `[options]` for the rest, then its
    positionals and subcommands as the full usage writes them. A Click command's usage is
    short already (`[OPTIONS]`), and a usage text the registry gives is its author's: both
    as they are."""
    if registry.framework != ARGPARSE or registry.usage:
        return usage_parts(registry, prog)
    visible = [a for a in registry.arguments if not a.hidden]
    options = [a for a in visible if not a.positional]
    given = {name for g in registry.exclusive_groups if g.required for name in g.arguments}
    parts = [prog, *(invocation(a) for a in options if a.required)]
    parts += _required_groups(registry, {a.name: a for a in options})
    if registry.help_flags or any(not a.required and a.name not in given for a in options):
        parts.append(SHORT_OPTIONS)
    parts += [value_form(a) for a in visible if a.positional]
    if registry.subcommands:
        parts.append(_subcommand_part(registry))
    return [part for part in parts if part]


# What stands for every option a short usage leaves out.
SHORT_OPTIONS = "[options]"


def _required_groups(registry: Registry, options: dict[str, Argument]) -> list[str]:
    """Each required exclusive group as argparse writes it: `(--a A | --b B)`, a group of one
    visible argument without parentheses."""
    parts = []
    for group in registry.exclusive_groups:
        members = [invocation(options[n]) for n in group.arguments if n in options]
        if group.required and members:
            joined = " | ".join(members)
            parts.append(f"({joined})" if len(members) > 1 else joined)
    return parts


def _expand_prog(usage: str, prog: str) -> str:
    """A usage text the registry gives, `%(prog)s` filled in as argparse does (any other `%`
    placeholder is left as written, where argparse would fail)."""
    return usage.replace("%(prog)s", prog).replace("%%", "%")


def _click_parts(registry: Registry, prog: str) -> list[str]:
    parts = [prog]
    if registry.options_metavar:
        parts.append(registry.options_metavar)
    parts += [str(a.metavar) for a in registry.arguments if a.positional and a.metavar]
    if registry.subcommand_metavar:
        parts.append(registry.subcommand_metavar)
    return parts


def typer_argument_usage(name: str, required: bool, several: bool) -> str:
    """An argument as Typer writes it in a usage where it writes arguments itself, not as
    Click does (the Typers that carry their own copy of Click, 0.29 among them; 0.9 writes
    Click's `MODEL`): its declared metavar, else its parameter's name as written, in braces
    when it is required (`{model}`), in brackets when not (`[revision]`), `...` after it when
    it takes several values (`{names}...`). What the converter keeps as the argument's metavar
    (`loaders/clicks.py`), which a usage shows as it is."""
    piece = f"{{{name}}}" if required else f"[{name}]"
    return piece + ("..." if several else "")


class _Item:
    """One action of the usage: an argument, the help option or the subcommands."""

    __slots__ = ("group_member", "hidden", "name", "part")

    def __init__(self, name: str, part: str, hidden: bool = False) -> None:
        self.name = name
        self.part = part
        self.hidden = hidden
        self.group_member = False


def _argparse_parts(registry: Registry) -> list[str]:
    options = [a for a in registry.arguments if not a.positional]
    positionals = [a for a in registry.arguments if a.positional]
    items: list[tuple[_Item, Argument | None]] = []
    if registry.help_flags:
        items.append((_Item("", f"[{registry.help_flags[0]}]"), None))
    items += [(_Item(a.name, "", a.hidden), a) for a in (*options, *positionals)]
    if registry.subcommands:
        items.append((_Item("", _subcommand_part(registry)), None))
    marked = _marked_groups([item for item, _ in items], registry.exclusive_groups)
    for item, argument in items:
        if argument is not None:
            item.part = _argument_part(argument, item.group_member)
    return _grouped([item for item, _ in items], marked)


def _subcommand_part(registry: Registry) -> str:
    if registry.subcommand_metavar:
        return f"{registry.subcommand_metavar} ..."
    names = [name for sub in registry.subcommands for name in (sub.name, *sub.aliases)]
    return "{" + ",".join(names) + "} ..."


def _marked_groups(
    items: list[_Item], groups: Sequence[ExclusiveGroup]
) -> list[tuple[int, int, ExclusiveGroup]]:
    """The groups argparse marks in the usage: those whose arguments are side by side in it
    (a group split by another argument is not marked, and its arguments read as any other)."""
    index: dict[str, int] = {}
    for position, item in enumerate(items):
        if item.name:
            index.setdefault(item.name, position)
    marked = []
    for group in groups:
        members = [index.get(name) for name in group.arguments]
        if not members or None in members:
            continue
        if all(items[m].hidden for m in members if m is not None):
            continue
        start = members[0]
        assert start is not None
        end = start + len(members)
        if [items[i].name for i in range(start, min(end, len(items)))] == list(group.arguments):
            for i in range(start, end):
                items[i].group_member = True
            marked.append((start, end, group))
    return marked


def _argument_part(argument: Argument, in_group: bool) -> str:
    if argument.positional:
        part = value_form(argument)
        if in_group and part.startswith("[") and part.endswith("]"):
            part = part[1:-1]
        return part
    part = invocation(argument)
    if not argument.required and not in_group:
        part = f"[{part}]"
    return part


def _grouped(items: list[_Item], marked: list[tuple[int, int, ExclusiveGroup]]) -> list[str]:
    """The parts, each marked group's in brackets (parentheses when it is required) with ` |`
    between its arguments, as argparse 3.13 joins them; a group is one part (the usage wraps
    around it, as 3.12 does, never inside)."""
    parts: list[str | None] = [None if item.hidden else item.part for item in items]
    separated: set[int] = set()
    for start, end, group in sorted(marked, key=lambda m: (m[0], m[1]), reverse=True):
        members = [part for part in parts[start:end] if part is not None]
        if not members:
            continue
        if group.required:
            opening, closing = ("(", ")") if len(members) > 1 else ("", "")
        else:
            opening, closing = "[", "]"
        members[0] = opening + members[0]
        members[-1] = members[-1] + closing
        for i, part in enumerate(members[:-1], start=start):
            if i not in separated:
                parts[i] = part + " |"
                separated.add(i)
        parts[start + len(members) - 1] = members[-1]
        for i in range(start + len(members), end):
            parts[i] = None
    for start, end, _ in _outermost(marked):
        joined = " ".join(part for part in parts[start:end] if part)
        parts[start:end] = [joined, *[None] * (end - start - 1)]
    return [part for part in parts if part]


def _outermost(marked: list[tuple[int, int, ExclusiveGroup]]) -> list[tuple[int, int, Any]]:
    """The marked groups no other marked group holds."""
    return [
        (start, end, group)
        for start, end, group in marked
        if not any(s <= start and end <= e and (s, e) != (start, end) for s, e, _ in marked)
    ]


def usage_lines(parts: Sequence[str], width: int = USAGE_WIDTH) -> list[str]:
    """The usage broken between parts into lines of at most `width` characters (a part longer
    than that has a line of its own): the program starts the first line and the lines after it
    are indented under its second part; a program longer than three quarters of the width has
    the first line to itself, and the parts follow indented by four spaces. A usage text the
    registry gives keeps its own lines."""
    if not parts:
        return []
    prog, rest = parts[0], parts[1:]
    if not rest:
        return [line.rstrip() for line in prog.strip().splitlines() if line.strip()]
    if len(prog) <= 0.75 * width:
        indent, lines, line = " " * (len(prog) + 1), [], prog
    else:
        indent, lines, line = "    ", [prog], ""
    for part in rest:
        if not line:
            line = indent + part
        elif len(line) + 1 + len(part) > width:
            lines.append(line)
            line = indent + part
        else:
            line = f"{line} {part}"
    if line:
        lines.append(line)
    return lines


def usage_text(registry: Registry, prog: str, width: int = USAGE_WIDTH, short: bool = False) -> str:
    """The usage synopsis on lines, as a page shows it ("" when it cannot be derived); `short`:
    `short_usage_parts`'."""
    parts = short_usage_parts(registry, prog) if short else usage_parts(registry, prog)
    return "\n".join(usage_lines(parts, width))
