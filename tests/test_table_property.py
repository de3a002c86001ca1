"""Whatever a help string or a manifest note holds, the tables stay intact and show it as text."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argmatrix.model import Argument, Capability, Platform, Registry
from argmatrix.render import environment, server_page, support_page
from argmatrix.resolve import resolve_platform
from helpers import html_inline, tables

# Text with the characters that break hand-written tables, plus any Unicode at all.
TRICKY = st.sampled_from([*list("|`*_<>&[]()\\#!~-+=:{}\"'\n\r\t\x00\x1b\u202e\u2067"), "<script>alert(1)</script>", "<!--", "-->", "</td>", "**", "__", "```", "[x](javascript:y)", "&lt;", "&#124;", "\\|", "| --- |", "参数", "مرحبا", "a" * 300])
HELP = st.lists(st.one_of(TRICKY, st.text(max_size=20)), max_size=12).map("".join)
_WS = re.compile(r"\s+")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def expected_text(text: str) -> str:
    """What a reader should see: the text itself, whitespace folded, invisible controls dropped."""
    text = "".join(c for c in text if c.isprintable() or c in "\t\n\r" or not _is_control(c))
    return _WS.sub(" ", _BIDI.sub("", text)).strip()


def _is_control(char: str) -> bool:
    import unicodedata

    return unicodedata.category(char) == "Cc"


def _registry(help_text: str, choice: str) -> Registry:
    return Registry(
        source="fixture:build",
        sections=("Main",),
        arguments=(
            Argument(flags=("--alpha",), dest="alpha", section="Main", help=help_text,
                     default=help_text, type="str"),
            Argument(flags=("--beta", "-b"), dest="beta", section="Main", help="plain",
                     choices=(choice, "x"), default=choice),
        ),
    )


def _render(template: str, **context: object) -> str:
    return environment(None).get_template(template).render(**context)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(help_text=HELP, choice=HELP)
def test_server_table_keeps_its_shape_and_text(help_text: str, choice: str) -> None:
    registry = _registry(help_text, choice)
    page = _render("server_arguments.md.j2", server=server_page(registry), title=None)
    found = tables(page)
    assert len(found) == 1
    assert [len(row) for row in found[0].rows] == [4, 4]
    alpha, beta = found[0].rows
    assert alpha[0] == "--alpha"
    assert _WS.sub(" ", alpha[1]).strip() == expected_text(help_text)
    assert _WS.sub(" ", alpha[2]).strip() == expected_text(help_text) or (
        expected_text(help_text) == "" and alpha[2] in ('""', '" "'))
    assert beta[0] == "--beta\n-b"
    assert [h for h in html_inline(page) if not h.startswith(("<a id=", "</a>", "<br"))] == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(note=HELP, reason=HELP.filter(lambda r: r.strip() != ""))
def test_support_table_keeps_its_shape_with_any_note_or_reason(note: str, reason: str) -> None:
    registry = _registry("help", "y")
    platform = Platform(
        name="p", title="P", variants=("V1",), default="unverified", sections={},
        arguments={
            "--alpha": Capability("supported", note=note),
            "--beta": Capability("not-applicable", reason=reason),
        },
    )
    resolved = resolve_platform(platform, registry)
    page = _render("platform_support.md.j2", support=support_page(registry, resolved))
    found = tables(page)
    assert len(found) == 1
    width = len(found[0].header)
    assert all(len(row) == width for row in found[0].rows)
    assert _WS.sub(" ", found[0].rows[1][3]).strip() == expected_text(reason)
    assert [h for h in html_inline(page) if not h.startswith(("<a id=", "</a>", "<br"))] == []
