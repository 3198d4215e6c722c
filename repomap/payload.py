"""A file's row in the index: what ranking, rendering and search need of it (FileInfo),
and how it is encoded, decoded and checked (a row that matches its checksum may still hold
another version's shape)."""

from __future__ import annotations

import marshal
import sys
from array import array
from dataclasses import dataclass, field, fields
from itertools import starmap
from operator import attrgetter

from . import cache
from .tags import Tag

PAYLOAD_VERSION = 8
NO_TERMS = marshal.dumps([])  # the search terms of a file that was not tagged
NO_DEFS = marshal.dumps([])  # the definitions of a file that was not tagged

@dataclass
class FileInfo:
    """What ranking, rendering and search need of one file. Its definitions are kept
    marshalled, as rows of Tag's fields, and made Tags when first asked for: a large tree has
    millions, a map shows a few hundred of them, and all of them decoded fill the memory
    (bench/RESULTS.md: payload.FileInfo)."""

    packed: bytes  # each definition's Tag fields, in the file's order, marshalled
    names: tuple[str, ...]  # each definition's name, in the same order (interned)
    ref_names: tuple[str, ...]  # each name the file references, once (interned: shared across files)
    ref_counts: array  # per name, three counts: uses (imports, types, inheritance), calls, receiver calls
    def_names: tuple[str, ...]  # each name it defines outside function bodies, once (interned)
    def_methods: bytes  # per def_name, 1 when every such definition of it is a method
    def_lines: array  # per def_name, the lines of its longest definition here (a stub is short)
    view: bytes  # what a text or Markdown map can show of the file, as a digest (signatures.view)
    links: bytes = b""  # a digest of the fields above but rows and view, and of every definition's name
    _defs: list[Tag] | None = field(default=None, repr=False, compare=False)

    @property
    def defs(self) -> list[Tag]:
        if self._defs is None:
            self._defs = list(starmap(Tag, marshal.loads(self.packed)))
        return self._defs


def file_info(defs: list[Tag], ref_names: tuple[str, ...], ref_counts: array, view: bytes = b"") -> FileInfo:
    """A FileInfo with the summary of its definitions that the reference graph needs."""
    kinds: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    for tag in defs:
        if not tag.local:
            kinds.setdefault(tag.name, set()).add(tag.kind)
            lines[tag.name] = max(lines.get(tag.name, 0), tag.end_line - tag.line + 1)
    return FileInfo(marshal.dumps(list(map(_FIELDS, defs))), tuple(t.name for t in defs), ref_names, ref_counts,
                    tuple(kinds),
                    bytes(k == {"method"} for k in kinds.values()), array("I", lines.values()), view, _defs=defs)


@dataclass
class Known:
    stamp: tuple[int, int]
    digest: str  # content hash; "" where the file could not be read or ran out of time
    info: FileInfo | None  # None: skipped (binary, too large, ...), for the reason in notes
    notes: tuple[str, ...]  # counted on every scan (why skipped; syntax errors, not UTF-8)
    terms: bytes | None = None  # what search needs (terms.file_terms), kept here only without a store, once counted
    timed_out: float | None = None  # the time limit its tagging ran out of, if it did


def links_digest(body: tuple) -> bytes:
    """What the reference graph and the defined names are made of, as one digest: the names
    a file references and defines (with counts, kinds and sizes), not where they are."""
    _, names, ref_names, ref_counts, def_names, def_methods, def_lines, _ = body
    digest = cache.hashlib.blake2b(digest_size=8)  # not marshal: its bytes vary with reference counts
    for part in (ref_names, def_names, names):
        digest.update("\0".join(part).encode("utf-8", "surrogatepass") + b"\1")
    for part in (ref_counts, def_methods, def_lines):
        digest.update(part + b"\1")
    return digest.digest()


_FIELDS = attrgetter(*(f.name for f in fields(Tag)))  # a tag as a tuple; astuple() is far slower
READ = [f.name for f in fields(FileInfo) if f.name not in ("links", "view", "_defs")]  # what index._Stored reads on first use
KEPT_ONCE_STORED = [name for name in READ if name != "packed"]  # what a file of a large batch holds once stored


def encode_payload(info: FileInfo | None, notes: tuple[str, ...]) -> bytes:
    body = None if info is None else (info.packed, info.names, info.ref_names, info.ref_counts.tobytes(),
                                      info.def_names, info.def_methods, info.def_lines.tobytes(), info.view)
    return marshal.dumps((PAYLOAD_VERSION, body, notes))


def decode_payload(payload: bytes, stamp: tuple[int, int], digest: str) -> Known | None:
    """The stored result, or None when the payload is unreadable (then the file is re-tagged)."""
    try:
        version, body, notes = marshal.loads(payload)
        if version != PAYLOAD_VERSION or not _shaped(body, notes):
            return None
        info = None if body is None else FileInfo(body[0], *(tuple(map(sys.intern, names)) for names in body[1:3]),
                                                  array("I", body[3]), tuple(map(sys.intern, body[4])), body[5],
                                                  array("I", body[6]), body[7], links_digest(body))
        return Known(stamp, digest, info, tuple(notes))
    except (ValueError, TypeError, EOFError):
        return None


def stored_payload(payload: bytes | None, stamp: tuple[int, int], digest: str) -> Known | None:
    """decode_payload of a payload from the index (None: none there, or damaged, which is said)."""
    known = decode_payload(payload, stamp, digest) if payload is not None else None
    if payload is not None and known is None:
        cache.damaged_rows()
    return known


def terms_shaped(terms: bytes) -> bool:
    """Whether stored search terms have the shape file_terms gives them (a checksum says they
    are as stored, not that search can read them): per definition, per row of its words,
    each column as long as the others of its kind, and the signatures' bytes as counted."""
    from .terms import CODES, COLUMNS

    try:
        columns = marshal.loads(terms)
    except (ValueError, TypeError, EOFError):
        return False
    if columns == []:  # NO_TERMS
        return True
    if type(columns) is not tuple or len(columns) != len(COLUMNS) or any(type(c) is not bytes for c in columns):
        return False
    sizes = {name: len(column) / array(code).itemsize for name, column, code in zip(COLUMNS, columns, CODES)}
    part = dict(zip(COLUMNS, columns))
    per_doc = {sizes[name] for name in COLUMNS[1:8]}
    per_row = {sizes[name] for name in COLUMNS[8:]}
    return len(per_doc) == len(per_row) == 1 and per_doc.pop().is_integer() and per_row.pop().is_integer() \
        and sum(array("I", part["n_words"])) == sizes["word"] \
        and sum(array("I", part["signature_length"])) == sizes["signature"]


_BODY = (bytes, tuple, tuple, bytes, tuple, bytes, bytes, bytes)  # the types of encode_payload's body, field by field


def _shaped(body, notes) -> bool:
    """Whether a payload's body and notes have the shape encode_payload gives them: a row that
    matches its checksum may still hold another shape (another version's, a bug's), and it
    must be tagged again, not fail where it is read. The definitions' rows are not looked
    into here: only the files a map shows make them Tags."""
    if type(notes) is not tuple or not all(type(note) is str for note in notes):
        return False
    if body is None:
        return True
    if type(body) is not tuple or tuple(map(type, body)) != _BODY:
        return False
    _, names, ref_names, ref_counts, def_names, def_methods, def_lines, _ = body
    return all(type(name) is str for part in (names, ref_names, def_names) for name in part) \
        and len(ref_counts) == 12 * len(ref_names) and len(def_methods) == len(def_names) \
        and len(def_lines) == 4 * len(def_names)
