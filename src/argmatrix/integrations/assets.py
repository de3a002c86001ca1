"""The site's stylesheet and script, shipped in the wheel (`argmatrix/assets/`).

The pages of `options: {html: true}` and the directive tables need them: status badges, the
matrix filter, flags that wrap only between dashes, a flag column that stays in view, cards on a
phone. The MkDocs plugin adds them to a site by itself; an engine without the plugin (Zensical,
anything built on Python-Markdown) gets them copied into its docs folder:

    python -m argmatrix.integrations.assets docs/assets/argmatrix

and lists them in `extra_css` and `extra_javascript` (docs/guide/zensical.md). A Mintlify site
runs no script of argmatrix's and applies every .css file of its docs repository: it gets the
stylesheet of the MDX pages' tables alone (docs/guide/mintlify.md):

    python -m argmatrix.integrations.assets --mintlify .   # in the folder of docs.json
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

STYLESHEET = "argmatrix.css"
SCRIPT = "argmatrix.js"
ASSET_NAMES = (STYLESHEET, SCRIPT)
# What the Sphinx extension adds to an HTML build (its tables are docutils nodes, not the HTML
# the stylesheet above is written for).
SPHINX_STYLESHEET = "argmatrix-sphinx.css"
# What a Mintlify site needs: the MDX pages' tables laid out to fit, without a script.
MINTLIFY_STYLESHEET = "argmatrix-mintlify.css"
# Where the plugin puts them in a built site (and where the guides suggest copying them).
SITE_FOLDER = "assets/argmatrix"


def asset_bytes(name: str) -> bytes:
    """The content of one shipped asset, as the installed package holds it."""
    return (files("argmatrix") / "assets" / name).read_bytes()


def assets_folder() -> str:
    """The installed folder of the assets (a Sphinx static path)."""
    return str(files("argmatrix") / "assets")


def site_uri(name: str) -> str:
    """The asset's path inside a built site: `assets/argmatrix/<name>`."""
    return f"{SITE_FOLDER}/{name}"


def copy_assets(folder: Path, names: tuple[str, ...] = ASSET_NAMES) -> list[Path]:
    """Write the shipped assets into `folder` (created when missing); return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        path = folder / name
        path.write_bytes(asset_bytes(name))
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    mintlify = argv[:1] == ["--mintlify"]
    folders = argv[1:] if mintlify else argv
    if len(folders) != 1 or folders[0].startswith("-"):
        print(
            "usage: python -m argmatrix.integrations.assets [--mintlify] FOLDER"
            " (fix: name the folder to copy argmatrix.css and argmatrix.js into, or with"
            f" --mintlify the folder of docs.json to copy {MINTLIFY_STYLESHEET} into)",
            file=sys.stderr,
        )
        return 2
    names = (MINTLIFY_STYLESHEET,) if mintlify else ASSET_NAMES
    for path in copy_assets(Path(folders[0]), names):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
