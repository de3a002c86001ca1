"""docs/guide/peers.md stays true about argmatrix (issue 29): its two tables compare what a reader
sees of the shape fixtures' command line in argmatrix's pages and in the peers' (sphinx-argparse-cli,
sphinx-argparse, sphinx-click, mkdocs-click), measured in Chromium at 1400 and 390 px.

Here argmatrix's own projects of that comparison (tests/peers_build.py: the command-line
reference and the server-arguments page, MkDocs with Material and Sphinx with Furo, argparse and
Click) are built and read as `make peers` reads them, and every cell of argmatrix's columns must
be what the build shows: a change of what argmatrix renders changes the page, or this fails
naming the cell. The peers' columns are facts of other projects' releases, not argmatrix's
behaviour: `make peers` rebuilds them in `.cache/peers` and names any cell that no longer holds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from peers_build import (
    DEPRECATED,
    PAGE,
    PageRead,
    Reading,
    builds,
    deprecated,
    disagreements,
    exclusive_groups,
    page_tables,
    read_builds,
    usage,
    value_forms,
)

pytestmark = [pytest.mark.engine, pytest.mark.browser]  # sphinx-build, mkdocs; Chromium


@pytest.fixture(scope="module")
def readings(tmp_path_factory: pytest.TempPathFactory) -> list[Reading]:
    mine = [build for build in builds() if build.argmatrix]
    return read_builds(mine, tmp_path_factory.mktemp("peers"), Path(sys.executable))


def test_every_cell_about_argmatrix_is_what_the_build_shows(readings: list[Reading]) -> None:
    """Every cell but those that follow the machine's fonts (`FONT_METRICS`: `make peers`
    checks them where it runs); what argmatrix promises of its fit is held exactly by
    `test_every_argmatrix_page_fits_its_screen`."""
    wrong = disagreements(readings, PAGE.read_text(encoding="utf-8"), every_row=False)
    assert not wrong, "docs/guide/peers.md is out of date (fix: run `make peers`):\n" + "\n".join(
        wrong
    )


def test_the_page_compares_every_build() -> None:
    """Each build of the comparison has its column in its framework's table, so `make peers`
    checks every cell of the page."""
    tables = page_tables(PAGE.read_text(encoding="utf-8"))
    assert {"argparse registry", "Click registry"} <= set(tables)
    for build in builds():
        table = "argparse registry" if build.framework == "argparse" else "Click registry"
        assert build.column in tables[table], f"{build.name}: no column {build.column!r}"


def other_pages(reading: Reading) -> list[tuple[str, PageRead]]:
    return [(reading.build.main, reading.main), *reading.others.items()]


def test_every_argmatrix_page_fits_its_screen(readings: list[Reading]) -> None:
    """What the page says of argmatrix's fit holds on each of its pages, the server-arguments
    page in both layouts too: no page wider than the screen, no table scrolling sideways, no flag
    broken in its own cell."""
    for reading in readings:
        for name, page in other_pages(reading):
            for width, fit in page.fits.items():
                where = f"{reading.build.name} {name} at {width} px"
                assert fit.overflow == 0, f"{where}: the page scrolls sideways"
                assert not fit.hidden, f"{where}: {fit.hidden}"
                assert [flag for flag, place in fit.broken if place == "entry"] == [], where


def test_the_server_arguments_pages_show_the_shape_too(readings: list[Reading]) -> None:
    """The page says the server-arguments page shows what the command-line reference shows of
    the command line's shape: every usage, every value form, the exclusive groups, and every
    deprecated flag said so."""
    for reading in readings:
        for name, page in reading.others.items():
            alone = Reading(reading.build, page, None, {}, [])
            where = f"{reading.build.name} {name}"
            assert usage(alone) == "yes", where
            assert value_forms(alone) == "yes", where
            count = len(DEPRECATED[reading.build.framework])
            assert deprecated(alone) == f"{count} of {count}", where
            if reading.build.framework == "argparse":
                assert exclusive_groups(alone) == "yes", where
