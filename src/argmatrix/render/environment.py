"""The Jinja environment templates render in: the project's templates folder first, then the
bundled templates, as `template_files` read them once as bytes (so a template edited during a run
cannot mix versions), compiled in the sandbox with a signed bytecode cache."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from argmatrix._runtime.cache import cache_dir, jinja_bytecode_cache
from argmatrix.config import Config
from argmatrix.errors import ArgmatrixError
from argmatrix.render.formats import FORMATS
from argmatrix.render.sandbox import (
    PageSandbox,
    SaltedBytecodeCache,
    TemplateLimit,
    page_budget,
    template_frame,
)
from argmatrix.render.tables import TableLayouts
from argmatrix.render.template_files import (
    TemplateFiles,
    Templates,
    read_templates,
)
from argmatrix.render.views import PAGE_MODEL_TYPES


class _SnapshotLoader(jinja2.BaseLoader):
    def __init__(self, files: TemplateFiles) -> None:
        self.files = files

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        if template not in self.files:
            raise jinja2.TemplateNotFound(template)
        content, filename = self.files[template]
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArgmatrixError.at(
                f"template {template!r} is not UTF-8 text ({exc.reason})",
                file=filename,
                fix="save it as UTF-8",
            ) from None
        return text, filename, lambda: True

    def list_templates(self) -> list[str]:
        return sorted(self.files)


def environment(
    project_templates: Path | None,
    templates: Templates | None = None,
    output_format: str = "markdown",
) -> jinja2.Environment:
    """Project templates first, then the bundled ones; `argmatrix/NAME` is always the bundled one.
    The filters (`cell`, `code`, ...) write `output_format` (a key of `formats.FORMATS`): an
    environment renders the pages of one format. Its global `layouts` describes the tables the
    format's table macros write out (`render/tables.py`).

    A sandbox (see `render.sandbox`): a project template may come from a pull request."""
    templates = templates or read_templates(project_templates)
    bundled = _SnapshotLoader(templates.bundled)
    loaders: list[jinja2.BaseLoader] = []
    if templates.project:
        loaders.append(_SnapshotLoader(templates.project))
    loaders += [bundled, jinja2.PrefixLoader({"argmatrix": bundled})]
    bytecode = jinja_bytecode_cache()
    writes = FORMATS[output_format]
    env = PageSandbox(
        readable=PAGE_MODEL_TYPES,
        filters=writes.FILTERS,
        loader=jinja2.ChoiceLoader(loaders),
        bytecode_cache=SaltedBytecodeCache(bytecode) if bytecode is not None else None,
        autoescape=False,  # Markdown or MDX; every input string goes through `cell` or `code`
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # the templates are a snapshot: nothing to look at again
    )
    env.template_files = frozenset(
        filename for files in templates for _, filename in files.values()
    )
    env.output_format = output_format
    env.globals["layouts"] = TableLayouts(writes.LINE_BREAK)
    return env


_ENVIRONMENTS: dict[tuple[str, str, str], jinja2.Environment] = {}


def project_environment(
    config: Config, templates: Templates | None = None, output_format: str = "markdown"
) -> jinja2.Environment:
    """The environment of the project's templates as they are now, with what it compiled, for
    the pages of one output format.

    Reused within a process until a template changes (an edit under `mkdocs serve` gets a
    fresh one), so a template is compiled once however many pages use it."""
    templates = templates or read_templates(config.templates_dir)
    key = (str(cache_dir()), templates.digest, output_format)
    env = _ENVIRONMENTS.get(key)
    if env is None:
        if any(known[:2] != key[:2] for known in _ENVIRONMENTS):
            _ENVIRONMENTS.clear()  # one set of templates at a time
        env = _ENVIRONMENTS[key] = environment(config.templates_dir, templates, output_format)
    return env


def render_template(
    env: jinja2.Environment, name: str, context: dict[str, Any], where: str, line: int | None
) -> str:
    try:
        template = env.get_template(name)
    except jinja2.TemplateNotFound:
        raise ArgmatrixError.at(
            f"template {name!r} not found",
            file=where,
            line=line,
            fix="put it in the project's templates folder (a file ending in .j2, .jinja or"
            " .jinja2) or use a bundled one (server_arguments.md.j2, platform_support.md.j2)",
        ) from None
    except jinja2.TemplateSyntaxError as exc:
        raise ArgmatrixError.at(
            f"template syntax error: {exc.message}", file=exc.filename or name, line=exc.lineno
        ) from None
    except ArgmatrixError:
        raise
    except Exception as exc:  # the compiler on input it does not expect (a 10**6-digit number)
        raise ArgmatrixError.at(
            f"template {name!r} cannot be compiled: {_reason(exc)}",
            file=where,
            line=line,
            fix="fix the template",
        ) from None
    try:
        with page_budget(env):
            text = template.render(**context)
    except ArgmatrixError:
        raise
    except jinja2.exceptions.SecurityError as exc:
        raise _located(
            exc,
            env,
            where,
            line,
            f"template {name!r} tried an unsafe operation: {str(exc).rstrip('.')}",
            _unsafe_fix(exc),
        ) from None
    except jinja2.TemplateError as exc:
        raise ArgmatrixError.at(
            f"template {name!r} failed to render: {exc}",
            file=where,
            line=line,
            fix="fix the template",
        ) from None
    except Exception as exc:  # a division by zero, a recursion without end, ...
        raise _located(
            exc,
            env,
            where,
            line,
            f"template {name!r} failed to render: {_reason(exc)}",
            "fix the template",
        ) from None
    return normalise_newlines(text)


def _reason(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _unsafe_fix(error: BaseException) -> str:
    if isinstance(error, TemplateLimit):
        return "a page renders within the sandbox's limits; build smaller values"
    return (
        "a template reads only the values argmatrix passes in (registry, server, support,"
        " platforms, options, ...) and changes none of them"
    )


def _located(
    error: BaseException,
    env: jinja2.Environment,
    where: str,
    line: int | None,
    message: str,
    fix: str,
) -> ArgmatrixError:
    """The error at the template line it happened on (else at the page's configuration)."""
    frame = template_frame(error, env)
    if frame is not None:
        return ArgmatrixError.at(message, file=frame[0], line=frame[1], fix=fix)
    return ArgmatrixError.at(message, file=where, line=line, fix=fix)


_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n\n\n+")


def normalise_newlines(text: str) -> str:
    """One trailing newline, no trailing spaces, at most one blank line in a row.

    Pages can be megabytes, so each step costs one pass or less: a search for one character
    (`\r`, a tab: rare) before one for two; the trailing-space expression (a step per
    character) only where a trailing space was found; and the runs of blank lines in one
    expression pass, where replacing them and searching again took three (pages have a few
    such runs, between their sections).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if " \n" in text or ("\t" in text and "\t\n" in text) or text.endswith((" ", "\t")):
        text = _TRAILING_SPACE.sub("", text)
    return _BLANK_LINES.sub("\n\n", text).strip("\n") + "\n"


# Pages with this many rows in all are rendered in two processes (the `argmatrix` command only).
