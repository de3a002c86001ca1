"""The whole command line on every page (issue 29): each command's usage synopsis as argparse's
`format_usage()` and Click's `get_usage()` print it, every flag with the value form a user types,
exclusive groups said in their rows, epilogs and descriptions, and deprecated arguments of every
command, in every format (Markdown, MyST, MDX; Zensical renders the Markdown pages).

The fixture servers are tests/fixtures/registries/shape_server.py (argparse: `serve` and `bench`,
every nargs, exclusive and required groups, deprecated flags three ways) and its Click twin
shape_click.py. Their pages are golden files (tests/golden/shape/; `ARGMATRIX_UPDATE_GOLDEN=1`
rewrites them, then read the diff), read from the static reading, and the usage blocks of every
page, read live and statically, are parsed with markdown-it and compared with what argparse and
Click print, token by token (a page wraps the usage at its own width, a terminal at its own).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import markdown
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from argmatrix.adoption.registry_diff import diff_dict, diff_registries
from argmatrix.loaders.convert import registry_from_parser
from argmatrix.loaders.snapshot import read_snapshot
from argmatrix.model.registry import ExclusiveGroup, Registry
from argmatrix.model.usage import usage_lines, usage_parts, value_form
from helpers import GOLDEN, REGISTRIES, flag_of, load, run_cli_in_process, tables

ARGPARSE_TARGET = "shape_server:build_parser"
CLICK_TARGET = "shape_click:cli"
# Each page of the fixture project: (template, output, format).
PAGES = {
    "server.md": ("server_arguments.md.j2", "markdown"),
    "server.myst.md": ("server_arguments.myst.j2", "myst"),
    "server.mdx": ("server_arguments.mdx.j2", "mdx"),
    "cli.md": ("cli_reference.md.j2", "markdown"),
    "cli.myst.md": ("cli_reference.myst.j2", "myst"),
    "cli.mdx": ("cli_reference.mdx.j2", "mdx"),
}


def import_fixture(name: str) -> ModuleType:
    """A fixture module, imported under a name of its own (live reading imports it too)."""
    spec = importlib.util.spec_from_file_location(f"{name}_in_test", REGISTRIES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_project(root: Path, target: str, mode: str, more: str = "") -> Path:
    root.mkdir(parents=True)
    module = target.split(":")[0]
    shutil.copy(REGISTRIES / f"{module}.py", root / f"{module}.py")
    pages = "".join(
        f"  - {{template: {template}, output: {output}, format: {fmt}}}\n"
        for output, (template, fmt) in PAGES.items()
    )
    (root / "argmatrix.yaml").write_text(
        f"registry: {{target: '{target}', mode: {mode}}}\ndocs_dir: docs\npages:\n{pages}{more}",
        encoding="utf-8",
    )
    return root


def generate(root: Path) -> dict[str, str]:
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 0, result.err
    return {name: (root / "docs" / name).read_text(encoding="utf-8") for name in PAGES}


@pytest.fixture(scope="module", params=["static", "live"])
def argparse_pages(request: pytest.FixtureRequest, tmp_path_factory: Any) -> dict[str, str]:
    root = tmp_path_factory.mktemp(f"argparse-{request.param}") / "project"
    return generate(write_project(root, ARGPARSE_TARGET, request.param))


# Click names its program as it is run (the script's name); argmatrix after the target's module,
# unless the configuration names it.
CLICK_PROG = "prog: llmserve\n"


@pytest.fixture(scope="module", params=["static", "live"])
def click_pages(request: pytest.FixtureRequest, tmp_path_factory: Any) -> dict[str, str]:
    root = tmp_path_factory.mktemp(f"click-{request.param}") / "project"
    return generate(write_project(root, CLICK_TARGET, request.param, CLICK_PROG))


def usage_blocks(page: str) -> list[list[str]]:
    """The tokens of each usage block of a page (a fenced `console` block), in page order, as
    markdown-it reads the page: MDX's and MyST's fences are CommonMark's."""
    return [
        token.content.split()
        for token in MarkdownIt("commonmark").parse(page)
        if token.type == "fence" and token.info == "console"
    ]


def shown_text(page: str) -> str:
    """The text of a page's paragraphs as a reader sees it (markdown-it reads MyST's and MDX's
    escapes as CommonMark does), a line each."""
    return "\n".join(
        "".join(child.content for child in token.children or () if child.type == "text")
        for token in MarkdownIt("commonmark").parse(page)
        if token.type == "inline"
    )


def argparse_usages() -> list[list[str]]:
    """What argparse itself prints for `llmserve`, `llmserve serve` and `llmserve bench`, as
    tokens without its `usage:`."""
    parser = import_fixture("shape_server").build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = [subparsers.choices["serve"], subparsers.choices["bench"]]
    return [p.format_usage().split()[1:] for p in (parser, *commands)]


def click_usages(prog: str = "llmserve") -> list[list[str]]:
    """What Click itself prints for the group and each command (its `get_usage`, without
    `Usage:`), run as `prog`."""
    cli = import_fixture("shape_click").cli
    top = cli.make_context(prog, [], resilient_parsing=True)
    contexts = [(cli, top)] + [
        (command, command.make_context(name, [], parent=top, resilient_parsing=True))
        for name, command in cli.commands.items()
    ]
    return [command.get_usage(context).split()[1:] for command, context in contexts]


# ------------------------------------------------------------------ usage, token by token


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_shows_argparses_own_usage_of_every_command(
    argparse_pages: dict[str, str], page: str
) -> None:
    assert usage_blocks(argparse_pages[page]) == argparse_usages()


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_shows_clicks_own_usage_of_every_command(
    click_pages: dict[str, str], page: str
) -> None:
    assert usage_blocks(click_pages[page]) == click_usages()


def test_the_usages_mean_something() -> None:
    """The comparisons above hold the shapes of the issue: required options unbracketed, an
    exclusive pair in brackets, a required group in parentheses, every nargs form, the
    subcommands with their aliases; Click's `[OPTIONS]`, its arguments and its subcommand."""
    top, serve, bench = (" ".join(tokens) for tokens in argparse_usages())
    assert top.endswith("[--log-format {text,json}] {serve,s,bench} ...")
    assert "[--served-model-name NAME [NAME ...]]" in serve and "[--ssl CERT KEY]" in serve
    assert "[--allowed-origins [ORIGIN ...]]" in serve and "[--revision [REVISION]]" in serve
    assert "[--enable-prefix-caching | --disable-prefix-caching]" in serve
    assert "[--cuda-graph | --no-cuda-graph]" in serve and serve.endswith("MODEL ...")
    assert "--tensor-parallel-size" not in serve  # help=SUPPRESS
    assert bench.startswith("llmserve bench [-h] --url URL (--prompts FILE | --dataset")
    assert "--percentiles PERCENTILES PERCENTILES PERCENTILES" in bench
    assert bench.endswith("[MODEL ...]")
    group, click_serve, click_bench = (" ".join(tokens) for tokens in click_usages())
    assert group == "llmserve [OPTIONS] COMMAND [ARGS]..."
    assert click_serve == "llmserve serve [OPTIONS] MODEL [ENGINE_ARGS]..."
    assert click_bench == "llmserve bench [OPTIONS] {sharegpt|random} [REVISION!]"


def test_a_usage_wraps_between_its_parts_at_the_same_width_everywhere() -> None:
    parts = ["prog", "[--a A]", "[--b | --c]", "--d D", "[e ...]"]
    assert usage_lines(parts, width=20) == [
        "prog [--a A]",
        "     [--b | --c]",
        "     --d D [e ...]",
    ]
    long = ["a-very-long-program-name-indeed", "[-h]", "[--x X]"]
    assert usage_lines(long, width=36) == [long[0], "    [-h] [--x X]"]
    assert usage_lines(["prog"]) == ["prog"]


# ------------------------------------------------------------------ any parser argparse takes

FLAG_NARGS = st.sampled_from([None, "?", "*", "+", 1, 2, 3, "switch", "count", "boolean"])
POSITIONAL_NARGS = st.sampled_from([None, "?", "*", "+", 2, argparse.REMAINDER])
METAVAR = st.one_of(st.none(), st.sampled_from(["N", "PATH", "HOST:PORT", "A B"]))
CHOICES = st.one_of(st.none(), st.just(["a", "b"]), st.just([1, 2, 3]))


@st.composite
def parsers(draw: st.DrawFn) -> argparse.ArgumentParser:
    """A parser of random options and positionals, some in exclusive groups (required or not),
    some hidden: what argparse accepts, printed on one line (a wide formatter)."""
    wide = functools.partial(argparse.HelpFormatter, width=100_000)
    parser = argparse.ArgumentParser(
        prog="prog", add_help=draw(st.booleans()), formatter_class=wide
    )
    groups = [
        parser.add_mutually_exclusive_group(required=draw(st.booleans()))
        for _ in range(draw(st.integers(0, 2)))
    ]
    for index in range(draw(st.integers(0, 6))):
        where = draw(st.sampled_from([parser, *groups]))
        kwargs: dict[str, Any] = {}
        nargs = draw(FLAG_NARGS)
        if nargs == "switch":
            kwargs["action"] = "store_true"
        elif nargs == "count":
            kwargs["action"] = "count"
        elif nargs == "boolean":
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs.update(nargs=nargs, metavar=draw(METAVAR), choices=draw(CHOICES))
            if where is parser:
                kwargs["required"] = draw(st.booleans())
        if draw(st.booleans()) and draw(st.booleans()):
            kwargs["help"] = argparse.SUPPRESS
        flags = [f"--opt{index}"] + ([f"-{chr(97 + index)}"] if draw(st.booleans()) else [])
        try:
            where.add_argument(*draw(st.permutations(flags)), **kwargs)
        except (ValueError, TypeError):
            reject()
    for index in range(draw(st.integers(0, 2))):
        nargs = draw(POSITIONAL_NARGS)
        metavar = draw(st.one_of(st.none(), st.just("FILE")))
        grouped = groups and nargs in ("?", "*") and draw(st.booleans())
        where = draw(st.sampled_from(groups)) if grouped else parser
        try:
            where.add_argument(f"pos{index}", nargs=nargs, metavar=metavar, default=None)
        except (ValueError, TypeError):
            reject()
    if draw(st.booleans()):  # subcommands, aliases among them, perhaps under a metavar
        try:  # argparse formats the usage so far for the subcommands' program
            commands = parser.add_subparsers(metavar=draw(st.sampled_from([None, "COMMAND"])))
        except ValueError:  # an empty group
            reject()
        commands.add_parser("serve", aliases=draw(st.sampled_from([[], ["s"]])))
        commands.add_parser("bench")
    return parser


def adjacent_groups(parser: argparse.ArgumentParser) -> bool:
    """Whether two exclusive groups are side by side in the usage: argparse before 3.13 joins
    their brackets into one (`[--a | --b --c]` for `[--a | --b] [--c]`); 3.13 writes them apart,
    and so do argmatrix's pages on every Python."""
    order = [a for a in parser._actions if a.option_strings]
    order += [a for a in parser._actions if not a.option_strings]
    spans = []
    for group in parser._mutually_exclusive_groups:
        members = group._group_actions
        if members and members[0] in order:
            start = order.index(members[0])
            spans.append((start, start + len(members)))
    return any(end == other for _, end in spans for other, _ in spans)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parsers())
@pytest.mark.slow
def test_any_parser_reads_as_argparse_prints_it(parser: argparse.ArgumentParser) -> None:
    if sys.version_info < (3, 13) and adjacent_groups(parser):
        reject()
    try:
        printed = parser.format_usage().split()[1:]
    except (ValueError, IndexError, AssertionError):  # argparse's own failures (empty groups)
        reject()
    registry = registry_from_parser(parser, "random:parser", {}, lambda path: None)
    assert " ".join(usage_parts(registry, registry.prog)).split() == printed


# ------------------------------------------------------------------ value forms and groups


def first_cells(page: str) -> dict[str, str]:
    """The Argument cell of each row of the `serve` command, by its first name."""
    serve = page[page.index("## Subcommand `serve`") : page.index("## Subcommand `bench`")]
    return {flag_of(row[0]): row[0] for table in tables(serve) for row in table.rows}


def test_each_flag_is_written_with_the_value_a_user_types(argparse_pages: dict[str, str]) -> None:
    first = first_cells(argparse_pages["server.md"])
    assert first["--tp-size"] == "--tp-size, --tp TP_SIZE"  # argparse's dest.upper()
    assert first["--dp"] == "--dp N"  # a metavar
    assert first["--served-model-name"] == "--served-model-name NAME [NAME ...]"
    assert first["--allowed-origins"] == "--allowed-origins [ORIGIN ...]"
    assert first["--dtype"] == "--dtype {auto,float16,bfloat16}"  # choices, as argparse writes
    assert first["--ssl"] == "--ssl CERT KEY"  # nargs=2, a metavar each
    assert first["--revision"] == "--revision [REVISION]"
    assert first["--enable-prefix-caching"] == "--enable-prefix-caching"  # a switch: no value
    assert first["engine_args"] == "engine_args ..."  # REMAINDER
    assert first["MODEL"] == "MODEL"  # a positional is its value


def test_clicks_value_forms_are_clicks(click_pages: dict[str, str]) -> None:
    first = first_cells(click_pages["server.md"])
    assert first["--port"] == "--port INTEGER RANGE"
    assert first["--tp-size"] == "--tp-size, --tp INTEGER"
    assert first["--dtype"] == "--dtype [auto|float16|bfloat16]"
    assert first["--ssl"] == "--ssl <TEXT TEXT>..."
    assert first["--download-dir"] == "--download-dir DIRECTORY"
    assert first["--tokenizer"] == "--tokenizer PATH"  # its own metavar
    assert first["--cuda-graph"] == "--cuda-graph, --no-cuda-graph"
    assert first["[ENGINE_ARGS]..."] == "[ENGINE_ARGS]..."


def test_the_rows_of_an_exclusive_group_say_so(argparse_pages: dict[str, str]) -> None:
    text = argparse_pages["server.md"]
    rows = {flag_of(row[0]): row for table in tables(text) for row in table.rows}
    pair = "At most one of --enable-prefix-caching, --disable-prefix-caching."
    assert rows["--enable-prefix-caching"][1].endswith(pair)
    assert rows["--disable-prefix-caching"][1].endswith(pair)
    required = "Exactly one of --prompts, --dataset is required."
    assert rows["--prompts"][1] == "Prompts, one a line. " + required
    assert rows["--dataset"][1].endswith(required)
    assert not rows["--url"][1].endswith("required.")


@pytest.mark.parametrize("page", list(PAGES))
def test_descriptions_and_epilogs_of_every_command(
    argparse_pages: dict[str, str], page: str
) -> None:
    text = shown_text(argparse_pages[page])
    for words in (
        "Serve large language models and measure them.",
        "Run 'llmserve COMMAND --help' for the options of a command.",
        "Every option of serve can also be set in the environment.",
        "Load a model and answer requests over HTTP until stopped.",
        "LLM_HOST and LLM_PORT give the defaults of --host and --port.",
        "Send requests to a server and report latency and throughput.",
    ):
        assert words in text, (page, words)


@pytest.mark.parametrize("page", list(PAGES))
def test_the_deprecated_arguments_of_every_command_are_shown(
    argparse_pages: dict[str, str], page: str
) -> None:
    """The three ways a flag says it is deprecated (on Python 3.13 and in a static reading:
    `deprecated=True`; a help that says so; an action named so), each under the command's
    deprecated arguments with its replacement; the old spelling hidden with SUPPRESS stays
    hidden."""
    text = argparse_pages[page]
    serve = text[text.index("serve") :]
    heading = "Deprecated options" if page.startswith("cli") else "Deprecated arguments"
    deprecated = serve[serve.index(f"### {heading}") :]
    deprecated = deprecated[: deprecated.find("\n## ")] if "\n## " in deprecated else deprecated
    for flag in ("--disable-log-stats", "--swap-space"):
        assert flag in deprecated, (page, flag)
    assert "--max-num-seqs" in deprecated  # a replacement the help names
    assert "--tensor-parallel-size" not in text


def rendered_rows(page: str, text: str) -> list[list[str]]:
    """Each table row of a page as its readers render it, as a list of HTML renderings: a
    Markdown page by Python-Markdown (MkDocs, Zensical) and by markdown-it with GitHub's tables,
    a MyST page by markdown-it with tables (myst-parser's); an MDX page's rows as written (its
    JSX is HTML), the escapes of its text undone."""
    if page.endswith(".mdx"):
        renderings = [re.sub(r"\\(.)", r"\1", text)]
    else:
        renderings = [MarkdownIt("commonmark").enable("table").render(text)]
        if not page.endswith(".myst.md"):
            renderings.append(markdown.markdown(text, extensions=["tables"]))
    rows = [[row.split("</tr>")[0] for row in html.split("<tr>")[1:]] for html in renderings]
    return [list(row) for row in zip(*rows, strict=True)]


def row_with(rows: list[list[str]], words: str) -> list[str]:
    [row] = [row for row in rows if all(words in each for each in row)]
    return row


def codes_of(row_html: str) -> list[str]:
    """The text of each code element of a row (an MDX value form's pieces joined)."""
    return [
        re.sub(r"<[^>]+>", "", code) for code in re.findall(r"<code[^>]*>(.*?)</code>", row_html)
    ]


def cells_of(row_html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row_html, re.S)
    ]


@pytest.mark.parametrize("page", list(PAGES))
def test_a_positional_that_may_be_left_out_is_not_required(
    argparse_pages: dict[str, str], page: str
) -> None:
    """`nargs="*"` and REMAINDER positionals (argparse marks them required, yet a command line
    may leave them out: the usage shows `[MODEL ...]`) read as optional, as `nargs="?"` does;
    a required option still says so."""
    rows = rendered_rows(page, argparse_pages[page])
    for words in ("Models to compare", "Passed on to the engine"):
        for html in row_with(rows, words):
            assert "required" not in cells_of(html), (page, words, html)
    for html in row_with(rows, "The server to measure."):
        assert "required" in cells_of(html), (page, html)


def test_an_optional_positional_is_not_required_in_the_model_nor_in_a_snapshot(
    tmp_path: Path,
) -> None:
    """The model says what a command line must give: a positional of `nargs` `?`, `*` or
    REMAINDER never, whatever argparse marks; a snapshot written with argparse's mark (format
    version 1, before this) reads so too, and `diff` finds no change of it."""
    parser = argparse.ArgumentParser(prog="p")
    parser.add_argument("one", nargs="?")
    parser.add_argument("many", nargs="*")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    registry = registry_from_parser(parser, "p:build", {}, lambda _: None)
    assert [a.required for a in registry.arguments if a.positional] == [False, False, False]
    old = REGISTRIES.parent / "snapshots" / "shape_server.v1.json"
    assert '"required": true' in old.read_text(encoding="utf-8")  # argparse's mark, as it was
    before = read_snapshot(old)
    now = registry_from_parser(
        import_fixture("shape_server").build_parser(), ARGPARSE_TARGET, {}, lambda _: None
    )
    for registry in (before, now):
        bench = next(s.registry for s in registry.subcommands if s.name == "bench")
        assert not next(a for a in bench.arguments if a.dest == "models").required
    changes = diff_dict(diff_registries(before, now, "old", "new"))["changed"]
    assert "required" not in json.dumps(changes), changes


@pytest.mark.parametrize("page", list(PAGES))
def test_clicks_value_forms_are_code_in_every_format(
    click_pages: dict[str, str], page: str
) -> None:
    """Click's choices (`[text|json]`, a required argument's `{sharegpt|random}`) are code, as
    every other value form, for every reader of the page (a `|` splits a GitHub table's code
    span, and Python-Markdown shows an escaped one)."""
    rows = rendered_rows(page, click_pages[page])
    for form in ("[text|json]", "[auto|float16|bfloat16]", "{sharegpt|random}"):
        found = [row for row in rows if any(form in codes_of(html) for html in row)]
        assert len(found) == 1, (page, form)
        for html in found[0]:  # in every rendering
            assert form in codes_of(html), (page, form, html)


@pytest.mark.parametrize("page", list(PAGES))
def test_click_pages_show_no_default_clicks_help_would_not(
    click_pages: dict[str, str], page: str
) -> None:
    """None, a tuple of Nones (`--ssl`, two values) and nothing given to a variadic argument
    are no default, as Click's own help shows none; a real default still shows."""
    rows = rendered_rows(page, click_pages[page])
    for words in ("Certificate and key.", "ENGINE_ARGS", "A tokenizer other than"):
        for html in row_with(rows, words):
            assert cells_of(html)[2] == "", (page, words, html)
    for html in row_with(rows, "The port to listen on."):
        assert cells_of(html)[2] == "8000", (page, html)


@pytest.mark.parametrize("fmt", ["md", "myst.md", "mdx"])
def test_a_missing_default_reads_alike_on_both_page_kinds(
    argparse_pages: dict[str, str], fmt: str
) -> None:
    """The server-arguments page and the command-line reference say the same default of each
    argument: one with none (`--tokenizer`, argparse's None) shows an empty cell on both."""

    def defaults(page: str) -> dict[str, str]:
        rows = rendered_rows(page, argparse_pages[page])
        return {
            cells_of(row[0])[1]: cells_of(row[0])[2] for row in rows if len(cells_of(row[0])) > 2
        }

    server, cli = defaults(f"server.{fmt}"), defaults(f"cli.{fmt}")
    shared = set(server) & set(cli)
    assert "A tokenizer other than the model's." in shared
    assert server["A tokenizer other than the model's."] == ""
    assert {k: server[k] for k in shared} == {k: cli[k] for k in shared}


# ------------------------------------------------------------------ golden pages


@pytest.fixture(scope="module")
def golden_pages(tmp_path_factory: Any) -> Iterator[dict[str, dict[str, str]]]:
    found = {}
    for target, more in ((ARGPARSE_TARGET, ""), (CLICK_TARGET, CLICK_PROG)):
        root = tmp_path_factory.mktemp(target.split(":")[0]) / "project"
        found[target.split(":")[0]] = generate(write_project(root, target, "static", more))
    yield found


@pytest.mark.parametrize("fixture", ["shape_server", "shape_click"])
@pytest.mark.parametrize("page", list(PAGES))
def test_page_matches_golden_file(
    golden_pages: dict[str, dict[str, str]], fixture: str, page: str
) -> None:
    text = golden_pages[fixture][page]
    golden = GOLDEN / "shape" / fixture / page
    if os.environ.get("ARGMATRIX_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


# ------------------------------------------------------------------ the program's name


def test_the_configuration_names_the_program_of_every_usage(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, "static", "prog: python -m llm.serve\n")
    pages = generate(root)
    for name in PAGES:
        starts = [tokens[:4] for tokens in usage_blocks(pages[name])]
        assert starts == [
            ["python", "-m", "llm.serve", "[-h]"],
            ["python", "-m", "llm.serve", "serve"],
            ["python", "-m", "llm.serve", "bench"],
        ], name
    assert "## python -m llm.serve serve" in pages["cli.md"]


@pytest.mark.parametrize("mode", ["static", "live"])
def test_a_click_program_is_named_after_its_module_unless_configured(
    tmp_path: Path, mode: str
) -> None:
    """Click names the program as it is run (the script's name), which the command does not
    hold: argmatrix names it after the target's module, as argparse names a parser run as that
    module."""
    pages = generate(write_project(tmp_path / "p", CLICK_TARGET, mode))
    assert usage_blocks(pages["server.md"]) == click_usages("shape_click")


def test_a_pages_options_prog_names_it_on_that_page(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, "static", "prog: from-config\n")
    config = root / "argmatrix.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "output: cli.md, format: markdown",
            "output: cli.md, format: markdown, options: {prog: llm}",
        ),
        encoding="utf-8",
    )
    pages = generate(root)
    assert [tokens[0] for tokens in usage_blocks(pages["cli.md"])] == ["llm"] * 3
    assert [tokens[0] for tokens in usage_blocks(pages["server.md"])] == ["from-config"] * 3


@pytest.mark.parametrize("value", ["''", "[a]", '"two\\nlines"'])
def test_a_prog_that_is_no_name_is_refused_at_its_line(tmp_path: Path, value: str) -> None:
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, "static", f"prog: {value}\n")
    result = run_cli_in_process("generate", cwd=root)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    line = len((root / "argmatrix.yaml").read_text(encoding="utf-8").splitlines())
    assert len(lines) == 1 and f"argmatrix.yaml:{line}: 'prog' must be the program's" in lines[0]


# ------------------------------------------------------------------ the model's own words


def test_value_forms_follow_argparses_rules() -> None:
    registry = registry_from_parser(
        import_fixture("shape_server").build_parser(), "x", {}, lambda path: None
    )
    serve = registry.subcommands[0].registry
    forms = {a.name: value_form(a) for a in serve.arguments}
    assert forms["--tp-size"] == "TP_SIZE" and forms["model_path"] == "MODEL"
    assert forms["--cuda-graph"] == "" and forms["engine_args"] == "..."
    assert serve.exclusive_groups == (
        ExclusiveGroup(("--enable-prefix-caching", "--disable-prefix-caching"), False),
    )
    bench = registry.subcommands[1].registry
    assert bench.exclusive_groups == (ExclusiveGroup(("--prompts", "--dataset"), True),)
    assert (registry.prog, serve.prog, bench.prog) == (
        "llmserve",
        "llmserve serve",
        "llmserve bench",
    )
    assert registry.help_flags == ("-h", "--help")
    assert registry.epilog.startswith("Run 'llmserve COMMAND --help'")


def test_an_unknown_framework_derives_no_usage() -> None:
    """A snapshot of format version 1 does not say what built the registry: no usage is made
    up from what it holds."""
    registry = Registry(source="x:y", sections=(), arguments=(), framework="")
    assert usage_parts(registry, "x") == []


# ------------------------------------------------------------------ the real engines


@pytest.fixture(scope="module")
def mdx() -> Iterator[Any]:
    from test_mdx_compiler import compiler_fixture

    yield from compiler_fixture()


@pytest.mark.engine  # the MDX compiler (node)
@pytest.mark.parametrize("page", ["server.mdx", "cli.mdx"])
def test_the_mdx_pages_compile_with_every_usage_as_code(
    mdx: Any, golden_pages: dict[str, dict[str, str]], page: str
) -> None:
    from test_mdx_compiler import code_in, compiled, jsx_tables, walk

    for fixture, expected in (("shape_server", argparse_usages()), ("shape_click", click_usages())):
        tree = compiled(mdx, golden_pages[fixture][page], f"{fixture}/{page}")
        assert code_in(tree) == []  # no expression, no module statement
        blocks = [n["value"].split() for n in walk(tree) if n["type"] == "code"]
        assert blocks == expected, fixture
        assert all(len(row) == len(t.header) for t in jsx_tables(tree) for row in t.rows)


@pytest.mark.engine  # a Sphinx build
def test_sphinx_builds_the_myst_pages_with_every_usage(
    tmp_path: Path, golden_pages: dict[str, dict[str, str]]
) -> None:
    """`sphinx-build -W`: the MyST pages of both fixtures, every usage a literal block as
    argparse and Click print it, the CLI reference's links resolved."""
    from html.parser import HTMLParser

    from test_sphinx_build import sphinx_build

    def build(fixture: str) -> Path:
        docs = tmp_path / fixture / "docs"
        docs.mkdir(parents=True)
        (docs / "conf.py").write_text(
            'project = "llmserve"\nextensions = ["myst_parser", "argmatrix.sphinx"]\n',
            encoding="utf-8",
        )
        for page in ("server.myst.md", "cli.myst.md"):
            (docs / page).write_text(golden_pages[fixture][page], encoding="utf-8")
        (docs / "index.md").write_text("# llmserve\n\n```{toctree}\nserver.myst\ncli.myst\n```\n")
        out = tmp_path / fixture / "html"
        result = sphinx_build(docs, out)
        assert result.returncode == 0, result.stderr[-3000:]
        return out

    class Blocks(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth, self.found = 0, []

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag == "pre":
                self.depth += 1
                self.found.append("")

        def handle_endtag(self, tag: str) -> None:
            self.depth -= tag == "pre"

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.found[-1] += data

    class Index(HTMLParser):
        """The words of the general index's links (its entries and sub-entries)."""

        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth, self.words = 0, set()

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            self.depth += tag == "a"

        def handle_endtag(self, tag: str) -> None:
            self.depth -= tag == "a"

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.words.add(data.strip())

    targets = {"shape_server": ARGPARSE_TARGET, "shape_click": CLICK_TARGET}
    for fixture, expected in (("shape_server", argparse_usages()), ("shape_click", click_usages())):
        out = build(fixture)
        for name in ("server.myst", "cli.myst"):
            reader = Blocks()
            reader.feed((out / f"{name}.html").read_text(encoding="utf-8"))
            assert [block.split() for block in reader.found] == expected, (fixture, name)
        # The general index lists every flag of every command (subcommands' included).
        index = Index()
        index.feed((out / "genindex.html").read_text(encoding="utf-8"))
        flags = set(every_flag(load(targets[fixture], "static")))
        assert len(flags) > 20 and flags <= index.words, sorted(flags - index.words)


def every_flag(registry: Registry) -> Iterator[str]:
    """The flags of every shown argument of a command and of its subcommands."""
    for argument in registry.arguments:
        if not argument.hidden:
            yield from argument.flags
    for command in registry.subcommands:
        yield from every_flag(command.registry)


def test_a_page_may_leave_the_usages_out(tmp_path: Path) -> None:
    """`options: {usage: false}`: a registry of hundreds of options has a usage as long (sglang's
    is 433 lines); the server pages of every format leave it out, the rest stays."""
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, "static")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    for output in ("server.md", "server.myst.md", "server.mdx"):
        text = text.replace(f"output: {output},", f"output: {output}, options: {{usage: false}},")
    config.write_text(text, encoding="utf-8")
    pages = generate(root)
    for name in ("server.md", "server.myst.md", "server.mdx"):
        assert usage_blocks(pages[name]) == [], name
        assert "Load a model and answer requests" in pages[name]
    assert len(usage_blocks(pages["cli.md"])) == 3


def usage_showing(command: argparse.ArgumentParser, keep: Any) -> list[str]:
    """The tokens of argparse's usage of `command` with every action but those `keep` says
    hidden (`help=SUPPRESS`, which argparse leaves out of a usage), without its `usage:`."""
    helps = [action.help for action in command._actions]
    for action in command._actions:
        if not keep(action):
            action.help = argparse.SUPPRESS
    tokens = command.format_usage().split()[1:]
    for action, help_text in zip(command._actions, helps, strict=True):
        action.help = help_text
    return tokens


def short_argparse_usages() -> list[list[str]]:
    """What a short usage says of `llmserve`, `llmserve serve` and `llmserve bench`, from what
    argparse itself prints: its usage with only what a command line must give (the required
    options and required exclusive groups; every other action hidden), `[options]`, then its
    usage of the positionals and subcommands alone."""
    parser = import_fixture("shape_server").build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    usages = []
    for command in (parser, subparsers.choices["serve"], subparsers.choices["bench"]):
        grouped = {
            id(action)
            for group in command._mutually_exclusive_groups
            if group.required
            for action in group._group_actions
        }
        given = usage_showing(
            command, lambda a, g=grouped: a.option_strings and (a.required or id(a) in g)
        )
        rest = usage_showing(command, lambda a: not a.option_strings)
        usages.append([*given, "[options]", *rest[len(command.prog.split()) :]])
    return usages


@pytest.mark.parametrize("mode", ["static", "live"])
def test_a_short_usage_says_what_a_command_line_must_give(tmp_path: Path, mode: str) -> None:
    """`options: {usage: short}` (a registry of hundreds of options: sglang's usage is 433
    lines): each command's usage on every page kind and format is its program, its required
    options and required exclusive groups as argparse writes them, `[options]`, then its
    positionals and subcommands, token by token as argparse prints those."""
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, mode)
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    for output in PAGES:
        text = text.replace(f"output: {output},", f"output: {output}, options: {{usage: short}},")
    config.write_text(text, encoding="utf-8")
    pages = generate(root)
    expected = short_argparse_usages()
    full = argparse_usages()
    assert all(len(short) < len(whole) for short, whole in zip(expected, full, strict=True))
    assert "--url" in expected[2] and "(--prompts" in expected[2]  # something is required
    for name, page in pages.items():
        assert usage_blocks(page) == expected, name


def test_a_command_line_reference_may_leave_the_usages_out(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", ARGPARSE_TARGET, "static")
    config = root / "argmatrix.yaml"
    text = config.read_text(encoding="utf-8")
    for output in ("cli.md", "cli.myst.md", "cli.mdx"):
        text = text.replace(f"output: {output},", f"output: {output}, options: {{usage: false}},")
    config.write_text(text, encoding="utf-8")
    pages = generate(root)
    for name in ("cli.md", "cli.myst.md", "cli.mdx"):
        assert usage_blocks(pages[name]) == [], name
        assert "Load a model and answer requests" in pages[name]
    assert usage_blocks(pages["server.md"]) == argparse_usages()


def test_a_usage_the_parser_gives_is_shown_as_given() -> None:
    parser = argparse.ArgumentParser(prog="llm", usage="%(prog)s [options] MODEL (100%%)")
    parser.add_argument("model")
    registry = registry_from_parser(parser, "x", {}, lambda path: None)
    assert registry.usage == "%(prog)s [options] MODEL (100%%)"
    assert usage_parts(registry, "python -m llm") == ["python -m llm [options] MODEL (100%)"]
    assert parser.format_usage() == "usage: llm [options] MODEL (100%)\n"


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"chain": True},
        {"invoke_without_command": True},
        {"chain": True, "invoke_without_command": True},
        {"subcommand_metavar": "TASK ..."},
        {"options_metavar": None},
        {"options_metavar": "[FLAGS]"},
    ],
)
@pytest.mark.parametrize("mode", ["live", "static"])
def test_a_click_groups_usage_is_clicks_whatever_it_sets(
    tmp_path: Path, mode: str, settings: dict[str, Any]
) -> None:
    import click

    from helpers import load

    given = ", ".join(f"{key}={value!r}" for key, value in settings.items())
    source = (
        "import click\n\n\n"
        f"@click.group({given})\n"
        "def cli():\n    pass\n\n\n"
        "@cli.command()\n@click.argument('src', nargs=-1, required=True)\n"
        "def copy(src):\n    pass\n"
    )
    (tmp_path / "groupcli.py").write_text(source, encoding="utf-8")
    registry = load("groupcli:cli", mode, base_dir=tmp_path)  # type: ignore[arg-type]
    namespace: dict[str, Any] = {}
    exec(compile(source, "groupcli.py", "exec"), namespace)
    group: click.Group = namespace["cli"]
    context = group.make_context("groupcli", [], resilient_parsing=True)
    assert " ".join(usage_parts(registry, "groupcli")) == group.get_usage(context)[7:]
    copy = group.commands["copy"]
    sub = copy.make_context("copy", [], parent=context, resilient_parsing=True)
    [command] = registry.subcommands
    assert " ".join(usage_parts(command.registry, "groupcli copy")) == copy.get_usage(sub)[7:]


# ------------------------------------------------------------------ Sphinx references


SPHINX_CONF = """\
project = "llmserve"
extensions = ["myst_parser", "argmatrix.sphinx"]
"""
# A hand-written page referring to the options of the subcommands and of the program, as
# Sphinx's standard domain spells them: the program's name before the flag, or a `program`
# directive in force; and to an environment variable.
REFERENCES = """\
References
==========

Spelled out: :option:`serve --port`, :option:`bench -n`, :option:`--log-format`.

.. program:: serve

Under the program directive: :option:`--tp`.

Its variable: :envvar:`LLM_PORT`.
"""


# The first cell of the row each reference lands on, per fixture (the environment variable: Click's
# `envvar=`, argparse's default read with `os.environ.get`).
FIRST_CELLS = {
    "shape_click": {
        "serve --port": "--port INTEGER RANGE",
        "bench -n": "-n, --requests N",
        "--log-format": "--log-format [text|json]",
        "--tp": "--tp-size, --tp INTEGER",
        "LLM_PORT": "--port INTEGER RANGE",
    },
    "shape_server": {
        "serve --port": "--port PORT",
        "bench -n": "-n, --requests N",
        "--log-format": "--log-format {text,json}",
        "--tp": "--tp-size, --tp TP_SIZE",
        "LLM_PORT": "--port PORT",
    },
}


@pytest.mark.engine  # a Sphinx build
@pytest.mark.parametrize("program", ["", "llmserve"])
@pytest.mark.parametrize("fixture", list(FIRST_CELLS))
def test_sphinx_references_to_a_subcommands_flag_land_on_its_row(
    tmp_path: Path, fixture: str, program: str
) -> None:
    """`sphinx-build -W` of a fixture's MyST page (its environment variables in a column)
    beside a reST page of `:option:` and `:envvar:` references: each resolves (an unresolved
    one fails the build) to the anchor Sphinx's own `option` directive gives that flag of that
    command, which is the flag's row of that command's table. With `argmatrix_program` set,
    the options are that program's (`llmserve serve --port`)."""
    from test_sphinx_build import read_page, sphinx_build

    click = fixture == "shape_click"
    target, more = (CLICK_TARGET, CLICK_PROG) if click else (ARGPARSE_TARGET, "")
    root = write_project(
        tmp_path / "p", target, "static", more + "environment: {keyword: envvar}\n"
    )
    page = generate(root)["server.myst.md"]
    assert "{argmatrix-envvar}`LLM_PORT`" in page
    docs = tmp_path / "sphinx"
    docs.mkdir()
    (docs / "server.md").write_text(page, encoding="utf-8")
    conf = SPHINX_CONF + (f'argmatrix_program = "{program}"\n' if program else "")
    (docs / "conf.py").write_text(conf, encoding="utf-8")
    references = REFERENCES
    if program:  # the program's name before the command's
        for command in ("serve", "bench", "--log"):
            references = references.replace(f":option:`{command}", f":option:`{program} {command}")
        references = references.replace(":: serve", f":: {program} serve")
    (docs / "refs.rst").write_text(references, encoding="utf-8")
    (docs / "index.md").write_text("# llmserve\n\n```{toctree}\nserver\nrefs\n```\n")
    result = sphinx_build(docs, tmp_path / "html")
    assert result.returncode == 0, result.stderr[-3000:]
    server = read_page(tmp_path / "html" / "server.html")
    links = {link.text: link.href for link in read_page(tmp_path / "html" / "refs.html").links}
    scope = f"cmdoption-{program}-" if program else "cmdoption-"
    anchors = {
        "serve --port": f"{scope}serve-port",
        "bench -n": f"{scope}bench-n",
        "--log-format": f"{scope}log-format",
        "--tp": f"{scope}serve-tp",  # under `.. program:: serve`
        "LLM_PORT": "envvar-LLM_PORT",
    }
    for reference, first_cell in FIRST_CELLS[fixture].items():
        spelled = reference if reference in ("--tp", "LLM_PORT") else f"{program} {reference}"
        anchor = anchors[reference]
        assert links.get(spelled.strip()) == f"server.html#{anchor}", (reference, links)
        assert server.row_with_id(anchor).cells[0] == first_cell, reference
