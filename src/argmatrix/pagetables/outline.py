"""Where a reader is on a page: its title, the current section, the text just before a table."""

from __future__ import annotations

from dataclasses import dataclass, field

from argmatrix.pagetables.model import Page, PageTable


@dataclass
class Outline:
    """The first level-1 heading is the title; a level-2 heading (or any heading before the
    first section) starts a section; a deeper heading, or a paragraph, is the caption of the
    table that follows it."""

    title: str = ""
    section: str = ""
    caption: str = ""  # the sub-heading or paragraph just read; a table takes it as caption
    sections: list[tuple[str, int]] = field(default_factory=list)
    headings: list[tuple[str, int, int]] = field(default_factory=list)  # (text, line, level)

    def heading(self, text: str, line: int, level: int) -> None:
        self.headings.append((text, line, level))
        if level == 1 and not self.title:
            self.title = text
        elif level <= 2 or not self.section:
            self.section, self.caption = text, ""
            self.sections.append((text, line))
        else:
            self.caption = text

    def page(self, file: str, tables: list[PageTable]) -> Page:
        return Page(file, self.title, tuple(self.sections), tuple(tables), tuple(self.headings))
