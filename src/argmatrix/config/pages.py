"""`pages:` of the configuration: each page's template, output, format and history, checked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from argmatrix._runtime.yamlfile import line_of
from argmatrix.config.fields import TEMPORARY_NAME, _inside, _too_long, _unknown_keys
from argmatrix.config.spec import PageSpec
from argmatrix.errors import Problem, has_control
from argmatrix.render.formats import FORMATS, default_rule, format_of

PAGE_KEYS = (
    "template",
    "output",
    "platform",
    "title",
    "options",
    "inplace",
    "committed",
    "format",
    "history",
)


def _pages(
    raw: Any, where: str, line: int | None, problems: list[Problem], docs_dir: Path | None = None
) -> tuple[PageSpec, ...]:
    """The pages; with `docs_dir`, an output longer than a file system allows is refused."""
    if not isinstance(raw, list):
        problems.append(Problem("'pages' must be a list", where, line))
        return ()
    pages: list[PageSpec] = []
    outputs: dict[str, str] = {}  # normalised output -> as written
    for index, item in enumerate(raw):
        item_line = line_of(raw, index)
        if not isinstance(item, dict):
            problems.append(
                Problem("a page is a mapping with 'template' and 'output'", where, item_line)
            )
            continue
        _unknown_keys(item, PAGE_KEYS, "page: ", where, problems)
        template, output = item.get("template"), item.get("output")
        if not isinstance(template, str) or not isinstance(output, str):
            problems.append(Problem("a page needs 'template' and 'output'", where, item_line))
            continue
        output_line = line_of(item, "output") or item_line
        if has_control(output):
            problems.append(
                Problem(
                    f"page output {output!r} contains a NUL or control character",
                    where,
                    output_line,
                    "write a plain file path such as reference/x.md",
                )
            )
            continue
        if not _inside(output):
            problems.append(
                Problem(
                    f"page output {output!r} is not a file inside docs_dir",
                    where,
                    output_line,
                    "use a relative path such as reference/server_arguments.md",
                )
            )
            continue
        too_long = _too_long(docs_dir / output, output, TEMPORARY_NAME) if docs_dir else None
        if too_long:
            problems.append(
                Problem(
                    f"page output {too_long}, more than a file system allows",
                    where,
                    output_line,
                    "use a shorter file name and fewer folders",
                )
            )
            continue
        normal = os.path.normpath(output)
        if normal in outputs:
            same = "" if outputs[normal] == output else f" (as {outputs[normal]!r})"
            problems.append(
                Problem(
                    f"two pages write {output!r}{same}",
                    where,
                    item_line,
                    "give each page its own output",
                )
            )
        outputs.setdefault(normal, output)
        platform = item.get("platform")
        options = item.get("options", {})
        if not isinstance(options, dict):
            problems.append(
                Problem("page: 'options' must be a mapping", where, line_of(item, "options"))
            )
            options = {}
        pages.append(
            PageSpec(
                template,
                output,
                str(platform) if platform else None,
                item.get("title"),
                dict(options),
                bool(item.get("inplace")),
                item_line,
                bool(item.get("committed", True)),
                output_line,
                _page_format(item, output, where, problems),
                _page_history(item, where, problems),
            )
        )
    return tuple(pages)


def _page_history(item: dict[str, Any], where: str, problems: list[Problem]) -> str | None:
    """The page's `history:` facts file, as written (read when the page renders)."""
    value = item.get("history")
    if value is None or (isinstance(value, str) and value.strip() and not has_control(value)):
        return value
    problems.append(
        Problem(
            "page: 'history' must be the path of a facts file",
            where,
            line_of(item, "history"),
            "write e.g. history: docs/reference/history.json (made by argmatrix history)",
        )
    )
    return None


def _page_format(item: dict[str, Any], output: str, where: str, problems: list[Problem]) -> str:
    """The page's `format:`, checked; without one, the format its output's extension implies."""
    if "format" not in item:
        return format_of(output)
    value = item["format"]
    if not isinstance(value, str) or value not in FORMATS:
        shown = repr(value) if isinstance(value, str) else f"{value!r} (not a text)"
        problems.append(
            Problem(
                f"page: unknown format {shown}",
                where,
                line_of(item, "format"),
                f"use one of: {', '.join(FORMATS)} (without 'format', {default_rule()})",
            )
        )
        return format_of(output)
    return str(value)
