"""Find a definition by ID, `path:line` or name, and cut its exact source out of the file.

Every lookup re-reads the file it names (unchanged files come from the tag cache by
size and change stamp), so an answer never comes from a stale byte offset. Nothing outside
the repository root is read: absolute paths, `..` and symbolic links leading out are
refused.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator, NamedTuple

from . import discover, tags
from .errors import Changed, NotFound, Refused
from .index import Indexer
from .tags import Tag

_PATH_LINE = re.compile(r"(?P<path>.+):(?P<line>\d+)")


@dataclass
class Snippet:
    tag: Tag
    start_line: int
    end_line: int
    data: bytes  # the file's source, unchanged (a notebook's: its source view)


def safe_relative(root: Path, path: str) -> str:
    """`path` as a repository-relative path, refusing anything that leads outside `root`."""
    pure = PurePosixPath(path.replace("\\", "/"))
    shown = repr(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\0" in path:
        raise Refused(f"refused: {shown} is not a path inside the repository")
    try:
        (root / pure).resolve().relative_to(root)
    except ValueError:
        raise Refused(f"refused: {shown} leads outside the repository") from None
    except OSError as exc:
        raise Refused(f"refused: {shown} is not a path this system can open ({exc.strerror})") from None
    return pure.as_posix()


def snippet(tag: Tag, source: bytes) -> Snippet:
    """The definition with its decorators and doc comments, from the start of its first line."""
    start = tag.head_byte if tag.head_byte >= 0 else tag.start_byte
    line_start = source.rfind(b"\n", 0, start) + 1
    if not source[line_start:start].strip():
        start = line_start
    return Snippet(tag, source.count(b"\n", 0, start) + 1, tag.end_line, source[start:tag.end_byte])


def holders(snippets: list[Snippet]) -> list[Snippet | None]:
    """For each snippet, the outermost other one of the same answer whose lines hold all of
    its own (of two the same, the earlier), else None: a method asked for beside its class is
    in the class's text already, and an agent pays for every line sent twice."""
    def holds(outer: Snippet, inner: Snippet) -> bool:
        return outer.tag.path == inner.tag.path and outer.start_line <= inner.start_line \
            and inner.end_line <= outer.end_line

    def holder(j: int, inner: Snippet) -> Snippet | None:
        found = [(o.start_line - o.end_line, i) for i, o in enumerate(snippets)
                 if i != j and holds(o, inner) and (not holds(inner, o) or i < j)]
        return snippets[min(found)[1]] if found else None

    return [holder(j, s) for j, s in enumerate(snippets)]


def content(snippet: Snippet, holder: Snippet | None) -> dict[str, str]:
    """What an answer carries of a definition: its source, or the ID of the one that holds it."""
    if holder is not None:
        return {"inside": holder.tag.id}
    return {"source": snippet.data.decode("utf-8", errors="replace")}


def parse_target(target: str) -> tuple[str, str | None, str | None, int | None]:
    """(kind of target, path, symbol part, line) for an ID, `path::name`, `path:line` or a bare name."""
    if "::" in target:
        path, symbol = target.split("::", 1)
        return "id", path, symbol, None
    match = _PATH_LINE.fullmatch(target)
    if match and ("/" in match["path"] or "." in match["path"]):
        return "line", match["path"], None, int(match["line"])
    return "name", None, target, None


def in_file(target: str, symbol: str, defs: list[Tag]) -> Tag:
    """The definition an ID or `path::Qual.name[#kind]` names in one file's definitions."""
    exact = [t for t in defs if t.id == target]
    if exact:
        return exact[0]
    qual, _, kind = symbol.partition("#")
    kind = kind.split("~")[0]
    found = [t for t in defs if (t.qualname == qual or t.qualname.endswith("." + qual)) and kind in ("", t.kind)]
    if len(found) == 1:
        return found[0]
    if found:
        raise NotFound(f"{target} names {len(found)} definitions", [t.id for t in found])
    import difflib  # only for a miss: a map never needs it
    close = difflib.get_close_matches(target, [t.id for t in defs], n=5, cutoff=0.5)
    raise NotFound(f"no definition {target} (the file may have changed)", close)


def at_line(path: str, line: int, defs: list[Tag]) -> Tag:
    """The innermost definition that spans `line`."""
    spanning = [t for t in defs if t.line <= line <= t.end_line]
    if not spanning:
        raise NotFound(f"no definition spans {path}:{line}", [])
    return min(spanning, key=lambda t: (t.end_byte - t.start_byte, t.start_byte))


def by_name(name: str, defs: list[Tag]) -> Tag:
    """The one definition whose name or qualified name is `name`."""
    found = [t for t in defs if t.name == name or t.qualname == name or t.qualname.endswith("." + name)]
    if len(found) == 1:
        return found[0]
    if found:
        raise NotFound(f"{name} names {len(found)} definitions; retrieve one by ID", [t.id for t in found])
    import difflib  # only for a miss: a map never needs it
    close = difflib.get_close_matches(name, sorted({t.name for t in defs}), n=5, cutoff=0.6)
    raise NotFound(f"no definition named {name}", [t.id for t in defs if t.name in close][:10])


class Retriever:
    """Definitions cut out of their files as they are now, and the references to their names."""

    def __init__(self, root: Path, indexer: Indexer):
        self.root = root
        self.indexer = indexer

    def retrieve(self, target: str, defined: Callable[[], Iterator[Tag]]) -> Snippet:
        """The exact source of the definition an ID, `path::name`, `path:line` or unique name
        names; `defined` gives every definition of the repository's last scan, for a name."""
        form, path, symbol, line = parse_target(target)
        if form == "name":
            tag = by_name(symbol, list(defined()))
            rel = tag.path
        else:
            rel = safe_relative(self.root, path)
        data, file_tags = self._parse_now(rel)
        defs = [t for t in file_tags if t.role == "def"]
        if form == "id":
            tag = in_file(target, symbol, defs)
        elif form == "line":
            tag = at_line(rel, line, defs)
        else:  # the file may have changed since the scan: find the same definition in what was read
            tag = in_file(tag.id, tag.qualname + "#" + tag.kind, defs)
        return snippet(tag, data)

    def refs(self, definition: Tag, referring: list[str]) -> list[tuple[Tag, Tag | None]]:
        """Each reference to the name of `definition` in the files `referring` (those of its
        language family that use the name), with the definition it is made in."""
        found = []
        for _, answer in sorted(self._parse_files(referring)):
            if isinstance(answer, str):
                continue
            file_tags = answer[1]
            defs = [t for t in file_tags if t.role == "def"]
            for ref in file_tags:
                if ref.role == "ref" and ref.name == definition.name:
                    around = [d for d in defs if d.start_byte <= ref.start_byte < d.end_byte]
                    found.append((ref, max(around, key=lambda d: d.start_byte, default=None)))
        return found

    def _parse_now(self, rel: str) -> tuple[bytes, list[Tag]]:
        """One file's bytes and tags, read and parsed now, so both are of the same moment.
        Changed where its stamp (Indexer.stamps) moved meanwhile: it was read as it was being
        written (emptied, then filled), and the call is made again."""
        def stamp() -> dict[str, tuple[int, int]]:  # {} where it is no source file (of a language we tag)
            return self.indexer.stamps([rel], discover.Tally()) if os.path.isfile(self.root / rel) else {}

        before = stamp()
        if not before:
            raise NotFound(f"no source file {rel}", [])
        (_, answer), = self._parse_files([rel])
        if stamp() != before:
            raise Changed(f"{rel} changed while it was read; try again")
        if isinstance(answer, str):
            raise NotFound(f"{rel} cannot be tagged ({answer})", [])
        return answer

    def _parse_files(self, rels: list[str]) -> Iterator[tuple[str, tuple[bytes, list[Tag]] | str]]:
        """(rel, (bytes, tags) or why not) per file, parsed now in workers under the time limit,
        with the parsers and queries this process loads before they fork (Indexer._tagged)."""
        from . import workers

        tags.prepare({tags.language_for(rel) for rel in rels} - {None})
        jobs = [_ParseJob(str(self.root / rel), rel, self.indexer.max_file_size) for rel in rels]
        for job, answer in workers.run(_parse, jobs, self.indexer.parse_timeout, os.cpu_count() or 1):
            yield job.rel, answer.reason if isinstance(answer, workers.Failed) else answer


class _ParseJob(NamedTuple):
    path: str
    rel: str
    max_file_size: int


def _parse(job: _ParseJob) -> tuple[bytes, list[Tag]] | str:
    """A file's bytes and all its tags, or why it cannot be tagged."""
    data, why = discover.read_source(Path(job.path), job.max_file_size)
    result = tags.extract(job.rel, data, tags.language_for(job.rel)) if data is not None else None
    return (data, result.tags) if result is not None else why or "no working query"
