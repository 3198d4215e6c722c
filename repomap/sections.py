"""Sections of prose documents: the slug that names a heading in an ID, and the section tags of
reStructuredText (its tree-sitter grammar gives flat titles, not nested sections) and AsciiDoc
(which has no grammar in the language pack), nested by level as Markdown's are."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

_NOT_SLUG = re.compile(r"[^\w]+")
_ASCIIDOC_TITLE = re.compile(rb"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_ASCIIDOC_FENCE = re.compile(rb"^(-{4,}|\.{4,}|={4,}|\+{4,}|_{4,}|\*{4,}|/{4,})[ \t]*$")


def slug(title: str) -> str:
    """A heading as an ID part: lower case, each run of other characters one "-", so an ID
    has no spaces and no dots (`Gin Web Framework` -> `gin-web-framework`)."""
    return _NOT_SLUG.sub("-", title.lower()).strip("-")


@dataclass
class Heading:
    level: int
    title: str
    start_byte: int  # where the heading starts
    line: int  # its first line (1-based)
    last_line: int  # its last line: an underlined title has two or three


def rst_headings(source: bytes, root: Node) -> list[Heading]:
    """Titles of a reStructuredText document, levelled as docutils does: by the order in which
    each adornment style (its character, and whether it has an overline) first appears."""
    styles: list[tuple[bytes, bool]] = []
    found = []
    for node in root.children:
        if node.type != "section":
            continue
        title = next((c for c in node.children if c.type == "title"), None)
        marks = [c for c in node.children if c.type == "adornment"]
        if title is None or not marks:
            continue
        style = (source[marks[-1].start_byte:marks[-1].start_byte + 1], marks[0].start_byte < title.start_byte)
        if style not in styles:
            styles.append(style)
        text = source[title.start_byte:title.end_byte].decode("utf-8", "replace").strip()
        found.append(Heading(styles.index(style) + 1, text, node.start_byte, node.start_point[0] + 1,
                             node.end_point[0] + 1))
    return found


def asciidoc_headings(source: bytes) -> list[Heading]:
    """`== Title` (or `## Title`) lines outside delimited blocks; the number of marks is the level."""
    found, fence, offset = [], None, 0
    for number, line in enumerate(source.split(b"\n"), 1):
        text = line.rstrip(b"\r")
        if (delimiter := _ASCIIDOC_FENCE.match(text)) is not None:
            fence = None if fence == delimiter.group(1) else fence or delimiter.group(1)
        elif fence is None and (title := _ASCIIDOC_TITLE.match(text)) is not None:
            found.append(Heading(len(title.group(1)), title.group(2).decode("utf-8", "replace"), offset, number,
                                 number))
        offset += len(line) + 1
    return found


def spans(headings: list[Heading], source: bytes) -> list[tuple[Heading, int, int]]:
    """Each heading with where its section ends, as a byte and a line: before the next heading
    of its level or above, else at the end of the document."""
    last_line = source.count(b"\n", 0, max(len(source) - 1, 0)) + 1
    out = []
    for i, heading in enumerate(headings):
        after = next((h for h in headings[i + 1:] if h.level <= heading.level), None)
        out.append((heading, after.start_byte, after.line - 1) if after else (heading, len(source), last_line))
    return out
