"""What a map shows of a definition: its signature lines, clipped to WIDTH, and a digest of
all a text or Markdown map can show of a file (`view`). Tagging, search terms, exports and
rendering share them; they import nothing that ranks or renders."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tags import Tag

WIDTH = 160


def signature_lines(tag: Tag, lines: list[str], source: bytes) -> dict[int, str]:
    """The lines a map shows of a definition (of its file's source_lines and bytes), by number:
    its signature_source clipped to WIDTH."""
    return {n: clip(text) for n, text in signature_source(tag, lines, source).items()}


def signature_source(tag: Tag, lines: list[str], source: bytes) -> dict[int, str]:
    """A definition's signature lines, by number, whole; a one-line body on the signature's
    last line is cut off."""
    last = min(tag.sig_end_line, len(lines))
    shown = {n: lines[n - 1] for n in range(tag.line, last + 1)}
    if tag.body_byte >= 0 and tag.end_line == last and last in shown:
        line_start = source.rfind(b"\n", 0, tag.body_byte) + 1
        if source.count(b"\n", 0, line_start) + 1 == last:
            head = source[line_start:tag.body_byte].decode("utf-8", errors="replace").rstrip()
            shown[last] = f"{head} …"
    return shown


def view(defs: list[Tag], source: bytes) -> bytes:
    """A digest of all that a text or Markdown map (config.VIEW_FORMATS) can show of a file,
    by the rules that show it (signature_lines, render.Renderer._new_file_view): each
    definition's kind, qualified name and shown lines, and where its bytes begin and end
    among the others' (which encloses which). Lines are numbered with each run of lines no
    signature shows counted as one, and bytes by their order alone, so an edit inside a body
    leaves the digest as it was, as it leaves these maps (RepoMap.build keeps them)."""
    lines = source_lines(source)
    shown = [signature_lines(tag, lines, source) for tag in defs]
    place: dict[int, int] = {}
    at = previous = 0
    for number in sorted({n for part in shown for n in part}):
        at += 1 if number == previous + 1 else 2  # a gap is a gap, however long
        place[number] = at
        previous = number
    order = {b: k for k, b in enumerate(sorted({t.start_byte for t in defs} | {t.end_byte for t in defs}))}
    parts = [(t.kind, t.qualname, order[t.start_byte], order[t.end_byte], [(place[n], text) for n, text in part.items()])
             for t, part in zip(defs, shown)]
    # repr, not marshal: marshal's bytes vary with reference counts
    return hashlib.blake2b(repr((parts, previous < len(lines))).encode(), digest_size=8).digest()


def clip(line: str) -> str:
    """A line as a map shows it: trailing space dropped, cut to WIDTH characters."""
    line = line.rstrip()
    return line if len(line) <= WIDTH else line[:WIDTH] + "…"


def signature_text(tag: Tag, lines: list[str]) -> str:
    """A definition's signature lines (of its file's source_lines), stripped and joined by newlines."""
    last = min(tag.sig_end_line, len(lines))
    if last == tag.line:  # most are one line: no generator (file_terms takes one per definition)
        return clip(lines[last - 1]).strip()
    return "\n".join(clip(lines[n - 1]).strip() for n in range(tag.line, last + 1))


def signatures(tags: list[Tag], source: bytes) -> dict[str, str]:
    """Each definition's signature lines, stripped and joined by newlines, by ID."""
    lines = source_lines(source)
    return {t.id: signature_text(t, lines) for t in tags if t.role == "def"}


def source_lines(source: bytes) -> list[str]:
    """A file's lines as tree-sitter counts them: split at \n only (a form feed is not a line end)."""
    lines = source.decode("utf-8", errors="replace").split("\n")
    return [line.rstrip("\r") for line in lines] if b"\r" in source else lines
