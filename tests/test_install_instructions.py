"""Issue 30: argmatrix is not on PyPI yet, so no page of the repository (the README, the site's
guides, CONTRIBUTING, ...) may tell a user to install it from the index (`pip install argmatrix`,
`pip install "argmatrix[docs]"`), except in a sentence or a command's comment that says it is for
once it is published. The pages are read as Markdown (markdown-it-py): the commands are those a
reader copies, in code blocks and code spans."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from markdown_it import MarkdownIt

from helpers import REPO, git_lines

_markdown = MarkdownIt("commonmark").enable("table")

# An installer's command and what follows it on the line.
_INSTALL = re.compile(r"\b(?:pip3?|pipx|uv pip|uv tool|uv|poetry) (?:install|add)\b(?P<rest>.*)")
# Options whose next word is their value, not something to install.
_VALUED = {"-c", "--constraint", "-r", "--requirement", "-t", "--target", "-i", "--index-url"}
_VALUED |= {"--extra-index-url", "-f", "--find-links", "--prefix", "--root", "--python"}
# A requirement pip looks up on the index: the bare name, with extras or a version.
_FROM_INDEX = re.compile(r"argmatrix\s*(\[[^\]]*\])?\s*([<>=!~].*)?", re.IGNORECASE)
# Words that mark a command as one for later.
_FOR_LATER = re.compile(r"\b(once|when)\b[^.]*\bpublished\b", re.IGNORECASE)


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # an unclosed quote in prose: the words as written
        return text.split()


def from_the_index(command: str) -> bool:
    """Whether `command` (a line holding an installer's command) installs argmatrix from PyPI."""
    found = _INSTALL.search(command)
    if found is None:
        return False
    words = _words(found["rest"])
    values = {i + 1 for i, word in enumerate(words) if word in _VALUED}
    return any(
        _FROM_INDEX.fullmatch(word)
        for i, word in enumerate(words)
        if i not in values and not word.startswith("-")
    )


def _sentence_around(text: str, part: str) -> str:
    at = text.find(part)
    start = text.rfind(". ", 0, at) + 1
    end = text.find(". ", at + len(part))
    return text[start : end if end >= 0 else len(text)]


def index_installs(markdown: str) -> Iterator[tuple[int, str]]:
    """(line, command) of every command of a Markdown page that installs argmatrix from PyPI and
    is not marked as one for once it is published."""
    for token in _markdown.parse(markdown):
        first = (token.map or [0])[0] + 1
        if token.type in ("fence", "code_block"):
            offset = 1 if token.type == "fence" else 0
            for number, line in enumerate(token.content.splitlines()):
                comment = line.partition(" #")[2]
                if from_the_index(line) and not _FOR_LATER.search(comment):
                    yield first + offset + number, line.strip()
        for child in token.children or []:
            if child.type == "code_inline" and _unmarked(token.content, child.content):
                yield first, child.content


def _unmarked(paragraph: str, code: str) -> bool:
    """Whether a code span installs from the index, in a sentence not saying it is for later."""
    return from_the_index(code) and not _FOR_LATER.search(_sentence_around(paragraph, code))


def test_no_page_installs_argmatrix_from_pypi_before_it_is_published() -> None:
    pages = [
        path
        for path in git_lines("ls-files", "*.md")
        if not path.startswith("tests/") and (REPO / path).is_file()
    ]
    assert "README.md" in pages and "docs/getting-started.md" in pages
    wrong = [
        f"{page}:{line}: {command}"
        for page in pages
        for line, command in index_installs((REPO / page).read_text(encoding="utf-8"))
    ]
    assert wrong == []


def test_the_rule_finds_an_install_from_the_index() -> None:
    bad = [
        "```console\npip install argmatrix            # the CLI\n```\n",
        '```console\npip install "argmatrix[docs]"\n```\n',
        "```yaml\nsteps:\n  - run: pip install -U argmatrix==0.1.0\n```\n",
        "```bash\npython -m pip install -c locks/docs.txt 'argmatrix[sphinx]'\n```\n",
        "Each engine is an extra: `pip install 'argmatrix[docs]'` (MkDocs + Material).\n",
        "It is on PyPI. Run `uv pip install argmatrix`. Once we publish more, fine.\n",
    ]
    good = [
        "```console\npip install './argmatrix[docs]'\npip install ./argmatrix\n```\n",
        "```console\npip install './dist/argmatrix-0.1.0-py3-none-any.whl[docs]'\n```\n",
        '```yaml\n- run: pip install "argmatrix @ git+<argmatrix\'s repository>"\n```\n',
        "```console\npip install argmatrix   # once it is published\n```\n",
        "Not on PyPI yet. Once it is published, `pip install 'argmatrix[docs]'` will do.\n",
        "```console\npip install --no-deps --target argmatrix mypkg\n```\n",
        "A folder made by `pip install --target`, read as it is.\n",
    ]
    assert [bool(list(index_installs(page))) for page in bad] == [True] * len(bad)
    assert [list(index_installs(page)) for page in good] == [[]] * len(good)
