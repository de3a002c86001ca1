"""A small registry whose help texts, section and defaults try to inject markup into pages."""

import argparse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hostile")
    model = parser.add_argument_group("Model")
    model.add_argument(
        "--page-size",
        type=int,
        default=16,
        help="<script>window.__pwned=1</script> Tokens per page | not a cell break.",
    )
    model.add_argument(
        "--loader",
        choices=["auto", "<img src=x onerror=window.__pwned=2>"],
        default="auto",
        help="How to load <img src=x onerror=window.__pwned=3> weights; see [a link](javascript:alert(1)).",
    )
    model.add_argument(
        "--a-very-long-flag-name-that-must-wrap-inside-its-table-cell-without-breaking-the-layout",
        action="store_true",
        help="A long flag.",
    )
    odd = parser.add_argument_group("<b onmouseover=window.__pwned=4>Odd</b> section")
    odd.add_argument("--odd", default="`x`", help="Back`ticks` and *stars* and _underscores_.")
    return parser
