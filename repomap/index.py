"""Keep a repository's tags current: stat every file, re-tag only what changed (in parallel
when there is much of it), and remember the results in memory and in the persistent cache."""

from __future__ import annotations

import gc
import marshal
import os
import sys
import time
from array import array
from dataclasses import dataclass, field, fields
from functools import partial
from itertools import starmap
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from . import cache, discover, memory, tags
from .config import DEFAULTS
from .errors import Changed
from .tags import Tag

if TYPE_CHECKING:
    from .watch import Quiet

PAYLOAD_VERSION = 8
SLOW = "slow>"  # stored instead of a content hash for a file that took too long: retried under a higher limit
NO_TERMS = marshal.dumps([])  # the search terms of a file that was not tagged
NO_DEFS = marshal.dumps([])  # the definitions of a file that was not tagged
# The search terms of a file tagged for a map alone: counted when a search first needs them
# (Indexer.terms). Counting them is a large share of a cold map's time, and a map without a
# task text never reads them. bench/RESULTS.md: index.LATER
LATER = b""
# Files whose terms are counted by workers rather than here: one file's take far less than
# starting a worker. By hand.
PARALLEL_TERMS = 64
SAVE_EVERY = 2000  # rows per transaction, so a cold run never holds all payloads at once
SAVE_BYTES = 64 << 20  # and payload bytes: one generated header's payload can outweigh thousands of rows
# A save of this many payload bytes or more is large (a cold run, a checkout): its files let
# their definitions' rows go and the memory freed meanwhile is given back (memory.py). An
# edit's few files keep theirs and import nothing for it. By hand, well under SAVE_BYTES.
LARGE_SAVE = 1 << 20
# At most this many changed files are tagged by the forked child that stamps a CLI map's
# files (Indexer.pretagging), one after another; more are shared out among workers. An
# agent's edit changes one to a few, and a few files tag sooner than workers start. By hand.
PRETAGGED = 8
# Reference kinds by what they say about the name: [uses (imports, types,
# inheritance), plain calls, calls on a receiver].
_BUCKET = {"call": 1, "member": 2}


@dataclass
class FileInfo:
    """What ranking, rendering and search need of one file. Its definitions are kept
    marshalled, as rows of Tag's fields, and made Tags when first asked for: a large tree has
    millions, a map shows a few hundred of them, and all of them decoded fill the memory
    (bench/RESULTS.md: index.FileInfo)."""

    packed: bytes  # each definition's Tag fields, in the file's order, marshalled
    names: tuple[str, ...]  # each definition's name, in the same order (interned)
    ref_names: tuple[str, ...]  # each name the file references, once (interned: shared across files)
    ref_counts: array  # per name, three counts: uses (imports, types, inheritance), calls, receiver calls
    def_names: tuple[str, ...]  # each name it defines outside function bodies, once (interned)
    def_methods: bytes  # per def_name, 1 when every such definition of it is a method
    def_lines: array  # per def_name, the lines of its longest definition here (a stub is short)
    view: bytes  # what a text or Markdown map can show of the file, as a digest (render.view)
    links: bytes = b""  # a digest of the fields above but rows and view, and of every definition's name
    _defs: list[Tag] | None = field(default=None, repr=False, compare=False)

    @property
    def defs(self) -> list[Tag]:
        if self._defs is None:
            self._defs = list(starmap(Tag, marshal.loads(self.packed)))
        return self._defs


class _Stored(FileInfo):
    """A stored file's FileInfo, holding `links`, `view` and the fields in `held`; the others are read
    from the index when one is first used. An unchanged file holds none: a map after an edit,
    whose graph is stored or joined again in part, reads the rows of the files it shows, not
    of all of them (a large tree's are slow to decode). A file tagged in a large batch holds all but its
    definitions' rows (`packed`), which only the files a map shows need and which are most of the
    index (Indexer._save; bench/RESULTS.md: index._Stored)."""

    def __init__(self, indexer: Indexer, rel: str, digest: str, links: bytes, view: bytes, **held):
        self.links, self.view = links, view
        self.__dict__.update(held)
        self._source = (indexer, rel, digest)

    def __getattr__(self, name: str):
        source = self.__dict__.pop("_source", None)
        if source is None or name.startswith("__"):
            raise AttributeError(name)
        indexer, rel, digest = source
        info = indexer.read(rel, digest)
        for read in _READ:
            if read not in self.__dict__:
                setattr(self, read, getattr(info, read))
        return getattr(self, name)


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
class _Known:
    stamp: tuple[int, int]
    digest: str  # content hash
    info: FileInfo | None  # None: skipped (binary, too large, ...), for the reason in notes
    notes: tuple[str, ...]  # counted on every scan (why skipped; syntax errors, not UTF-8)
    terms: bytes | None = None  # what search needs (terms.file_terms), kept here only without a store


class Indexer:
    """The tags of one repository, refreshed on every call; unchanged files cost a stat."""

    def __init__(self, root: Path, cache_dir: Path | None, max_file_size: int = DEFAULTS["max_file_size"],
                 parse_timeout: float = DEFAULTS["parse_timeout"]):
        self.root = root
        self.max_file_size = max_file_size
        self.parse_timeout = parse_timeout
        self.store = cache.Store(root, cache_dir)
        self._known: dict[str, _Known] = {}
        self._stored: dict[str, tuple[int, int, str, bytes, bytes, str]] | None = None  # cache.Store.load()
        self.changed = 0  # files the last refresh had to read again
        self._last: tuple[dict, dict[str, FileInfo], list[str]] | None = None  # the last refresh: stamps, answer, notes

    def stamps(self, candidates: list[str], tally: discover.Tally,
               since: tuple[dict[str, tuple[int, int]], Quiet] | None = None,
               linked: set[str] | None = None) -> dict[str, tuple[int, int]]:
        """(size, change stamp) of each candidate in a language we tag; counts the others in `tally`.
        `since`: the last look's stamps, and what the events since leave as it found them
        (watch.Quiet): those files keep their stamps, unstatted. `linked` gets those stamped
        that have more than one name (a watch does not see a write through another)."""
        stamps, other = {}, 0
        last, quiet = since or ({}, None)
        root = str(self.root) + os.sep
        for rel in candidates:
            if tags.language_for(rel) is None:
                other += 1  # counted once: a tally entry each is a warm map's cost on every call
                continue
            if not rel.isascii() and not _utf8(rel):  # bytes git or the OS gave us: no ID or output can hold it
                tally.add("names not UTF-8")
                continue
            if (stamp := last.get(rel)) is not None and quiet.file(root + rel):
                stamps[rel] = stamp
                continue
            try:
                info = os.stat(root + rel)
            except OSError:
                tally.add("unreadable")
                continue
            stamps[rel] = (info.st_size, _changed(info))
            if linked is not None and info.st_nlink > 1:
                linked.add(rel)
        if other:
            tally.add("not source code", other)
        return stamps

    def refresh(self, stamps: dict[str, tuple[int, int]], tally: discover.Tally,
                meanwhile: Callable[[], None] | None = None, count_terms: bool = True,
                tagged: dict[tuple, object] | None = None) -> dict[str, FileInfo]:
        """FileInfo of every stamped file that tags; counts skipped and noteworthy files in `tally`.
        Stamps equal to the last call's get the same dict back (a kept RepoMap's usual case).
        `meanwhile` is the caller's next step, run while workers tag changed files (if any).
        Without `count_terms`, the files tagged now have their search terms counted later (LATER).
        `tagged`: answers a forked child gave already to some of the jobs (`pretagging`)."""
        if self._last is not None and self._last[0] == stamps:
            self.changed = 0
            for note in self._last[2]:
                tally.add(note)
            return self._last[1]
        last = self._last
        # The same files as last time: those whose stamps moved (a kept RepoMap's edit) alone
        # are looked at, where none of them has a note (a loop over every file is what it saves).
        moved = dict(stamps.items() - last[0].items()) if last is not None and stamps.keys() == last[0].keys() \
            else None
        again = moved is not None and not any(self._known[rel].notes for rel in moved if rel in self._known)
        looked = stamps if moved is None else moved
        todo = self.stale(looked)
        for rel, stamp in looked.items():
            if rel not in todo and self._stale(rel, stamp):
                if stamp[0] > self.max_file_size:  # decided by the stamp, so a changed limit applies at once
                    self._known[rel] = _Known(stamp, "", None, ("too large",))
                else:
                    self._load(rel)
        self._update(todo, meanwhile, count_terms, tagged)
        self.changed = len(todo)
        answer = self._answer_again(moved) if again else None
        if answer is None:
            self._forget({r for r in [*self._known, *self._stored] if r not in stamps and not os.path.isfile(self.root / r)})
            answer = {}, []
            for rel in stamps:
                known = self._known.get(rel)
                if known is None:
                    continue
                answer[1].extend(known.notes)
                if known.info is not None:
                    answer[0][rel] = known.info
        out, notes = answer
        for note in notes:
            tally.add(note)
        self._last = (dict(stamps), out, notes)
        return out

    def _answer_again(self, moved: dict[str, tuple[int, int]]) -> tuple[dict[str, FileInfo], list[str]] | None:
        """The last refresh's answer with the FileInfo of the files whose stamps moved as they
        are now, where each tags without a note (as it did: the caller checked), so it keeps
        its place among the others; else None."""
        _, out, notes = self._last
        out = dict(out)
        for rel in moved:
            known = self._known.get(rel)
            if known is None or known.info is None or known.notes:  # a file skipped has a note: why
                return None
            out[rel] = known.info
        return out, notes

    def read_stored(self) -> None:
        """Read every file's stored row, once: `stale` compares stamps with them."""
        if self._stored is None:
            self._stored = self.store.load()

    def stale(self, stamps: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
        """The stamped files to tag again: neither known at that stamp nor stored with it (a file
        skipped as slow under a lower limit than now is tagged again), nor too large. Changes
        nothing, so a forked child may ask it (`pretagging`)."""
        self.read_stored()
        todo = {}
        for rel, stamp in stamps.items():
            if stamp[0] > self.max_file_size or not self._stale(rel, stamp):
                continue
            row = self._stored.get(rel)
            if row is None or row[:2] != stamp or (row[2].startswith(SLOW) and float(row[2][len(SLOW):]) < self.parse_timeout):
                todo[rel] = stamp
        return todo

    def pretagging(self, stamps: dict[str, tuple[int, int]], count_terms: bool
                   ) -> tuple[list[tuple], Callable, Callable[[], None]]:
        """For a forked child that has just stamped the files (while this process imports what
        ranking needs): the jobs of the files changed since they were tagged, how each is done
        and the setup before them, as workers would do them; no jobs where more than
        PRETAGGED files changed (workers share them out)."""
        jobs = [self._job(rel, count_terms) for rel in self.stale(stamps)]
        jobs = jobs if len(jobs) <= PRETAGGED else []
        return jobs, _tag_changed, _setup(jobs)

    def _stale(self, rel: str, stamp: tuple[int, int]) -> bool:
        known = self._known.get(rel)
        return known is None or known.stamp != stamp

    def _load(self, rel: str) -> None:
        """Take an unchanged file from the index without reading its tags (_Stored reads them
        when first used)."""
        size, changed, digest, links, view, notes = self._stored[rel]
        info = _Stored(self, rel, digest, links, view) if links else None
        self._known[rel] = _Known((size, changed), digest, info, tuple(notes.split("\n")) if notes else ())

    def read(self, rel: str, digest: str) -> FileInfo:
        """A file's stored FileInfo of this content; tagged again now (and stored again) if its
        row is unreadable (damaged). Changed if the file no longer has this content: another
        process re-tagged it since the index was read, and the caller's graph is of the old one."""
        payload = self.store.payload_of(rel, digest)
        known = _stored(payload, (0, 0), digest)
        if known is None or known.info is None:
            self._update({rel: self._known[rel].stamp}, count_terms=False)
            known = self._known[rel]
            if known.digest != digest:
                raise Changed(f"{rel} changed while it was read; try again")
        return known.info if known.info is not None else file_info([], (), array("I"))

    def terms(self, rels: list[str]) -> Iterator[tuple[str, str, bytes]]:
        """(path, content hash, search terms) of these tagged files: kept from tagging, else
        stored, else (tagged for a map alone, not stored, or changed since) counted from the
        file now, by workers when there are many, and stored."""
        missing = {rel: self._known[rel] for rel in rels}
        for rel, entry in list(missing.items()):
            if entry.terms not in (None, LATER):
                yield rel, entry.digest, missing.pop(rel).terms
        for rel, digest, terms in self.store.terms(set(missing)):
            if digest != missing[rel].digest or terms == LATER:
                continue
            if _terms_shaped(terms):
                yield rel, digest, terms
                del missing[rel]
            else:
                cache.damaged_rows()
        jobs = [(str(self.root / rel), rel, entry.digest, self.max_file_size) for rel, entry in missing.items()]
        if len(jobs) < PARALLEL_TERMS or self.store.db is None:
            counted = ((job, None) for job in jobs)
        else:  # each worker reads the files' definitions from the index: a kernel's are gigabytes here
            from . import workers

            counted = workers.run(_terms_job, jobs, self.parse_timeout, os.cpu_count() or 1,
                                  partial(_prepare_terms, self.store.path))
        rows = []
        for job, answer in counted:
            rel = job[1]
            if answer is None:  # not given to a worker, or its row changed since
                answer = _terms(job, missing[rel].info.packed if missing[rel].info else NO_DEFS)
            terms = answer if isinstance(answer, bytes) else NO_TERMS  # workers.Failed: not searchable
            if self.store.db is None:
                missing[rel].terms = terms
            rows.append((terms, rel, missing[rel].digest))
            if len(rows) >= SAVE_EVERY:
                self.store.save_terms(rows)
                rows = []
            yield rel, missing[rel].digest, terms
        self.store.save_terms(rows)

    @staticmethod
    def state(stamps: dict[str, tuple[int, int]]) -> str:
        """A digest of the files' stamps: equal digests, equal tags (checked before reading anything)."""
        return _digest(f"{rel}\0{size}\0{changed}" for rel, (size, changed) in sorted(stamps.items()))

    def digest(self, rel: str) -> str:
        """The content hash of a file tagged in the last refresh."""
        return self._known[rel].digest

    @staticmethod
    def links_and_views(infos: dict[str, FileInfo]) -> tuple[str, str]:
        """A digest of what every file defines and references (the reference graph's input),
        and one of what a text or Markdown map can show of every file (render.view)."""
        files = sorted(infos.items())
        return (_digest(f"{rel}\0{info.links.hex()}" for rel, info in files),
                _digest(f"{rel}\0{info.view.hex()}" for rel, info in files))

    def content_state(self, rels: list[str]) -> str:
        """A digest of the files' contents (after a refresh): a touched file does not change it."""
        return _digest(f"{rel}\0{self._known[rel].digest}" for rel in sorted(rels) if rel in self._known)

    def _update(self, stamps: dict[str, tuple[int, int]], meanwhile: Callable[[], None] | None = None,
                count_terms: bool = True, tagged: dict[tuple, object] | None = None) -> None:
        """Re-tag changed files (with their search terms, or LATER), but for the jobs `tagged`
        answers; a file whose content hash is stored is only re-stamped."""
        if not stamps:
            return
        jobs = [self._job(rel, count_terms) for rel in stamps]
        progress = _Progress(len(jobs))
        rows, held = [], 0
        while jobs:
            retry = []
            for job, answer in self._tagged(jobs, meanwhile, tagged or {}):
                rel = job[1]
                if isinstance(answer, tuple):
                    digest, payload, terms = answer
                    if payload is None:  # same content as stored
                        payload, terms = self.store.payload(rel) or (None, None)
                else:  # workers.Failed
                    digest = f"{SLOW}{self.parse_timeout:g}" if answer.timed_out else ""
                    payload, terms = _encode(None, (answer.reason,)), NO_TERMS
                known = _stored(payload, stamps[rel], digest)
                if known is None:  # the stored payload was unreadable after all: tag it again
                    retry.append(self._job(rel, count_terms, stored=False))
                    continue
                progress.step(1)
                if self.store.db is None:
                    known.terms = terms
                self._known[rel] = known
                links, view = (known.info.links, known.info.view) if known.info else (b"", b"")
                notes = "\n".join(known.notes)
                self._stored[rel] = (*stamps[rel], digest, links, view, notes)
                rows.append((rel, *stamps[rel], digest, payload, terms, links, view, notes))
                held += len(payload) + len(terms)
                if len(rows) >= SAVE_EVERY or held >= SAVE_BYTES:
                    self._save(rows, held)
                    rows, held = [], 0
            jobs, meanwhile = retry, None
        progress.close()
        self._save(rows, held)

    def _save(self, rows: list[tuple], size: int) -> None:
        """Store tagged files (`size` bytes of payloads and terms). Once a large batch is
        stored, its files' definitions' rows are read from the index when first needed instead
        of held (_Stored), and the memory freed is given back. A small one keeps them: a file
        tagged again by another process meanwhile would leave this one without the version
        whose definitions it ranks."""
        stored = self.store.save(rows, [])
        if size < LARGE_SAVE:
            return
        if stored:
            for rel, _, _, digest, *_ in rows:
                known = self._known[rel]
                if known.info is not None and not isinstance(known.info, _Stored):
                    known.info = _Stored(self, rel, digest, known.info.links, known.info.view,
                                         **{name: getattr(known.info, name) for name in _HELD})
        memory.give_back()

    def _tagged(self, jobs: list[tuple], meanwhile: Callable[[], None] | None, tagged: dict[tuple, object]
                ) -> Iterator[tuple[tuple, object]]:
        """(job, _tag_job's answer or workers.Failed) per job: from `tagged`, else here where the
        file's bytes hash as stored (touched, or changed and changed back), without tree-sitter
        or a worker: starting them costs a touched file's warm map more than the hash
        (bench/RESULTS.md: index.Indexer._tagged). The others go to workers, which read, hash and parse, so no file's bytes wait in
        this process. Each loads its parsers before its first job, not under a job's time limit
        (a broken query's warning comes here, once), while this process goes on with `meanwhile`."""
        rest = []
        for job in jobs:
            answer = tagged[job] if job in tagged else _unchanged(job)
            if answer is not None:
                yield job, answer
            else:
                rest.append(job)
        if rest:
            from . import render, workers  # noqa: F401  render: _tag's, imported before the workers fork

            setup = _setup(rest)
            yield from workers.run(_tag_job, rest, self.parse_timeout, os.cpu_count() or 1, setup,
                                   partial(self._meanwhile, meanwhile, setup))

    def _meanwhile(self, meanwhile: Callable[[], None] | None, setup: Callable[[], None]) -> None:
        """This process's work while workers tag: the caller's next step; and where this indexer
        has refreshed before (a chat loop, the MCP server), the workers' own setup, so that the
        workers of the next edit are forked ready and its map waits less for them
        (bench/RESULTS.md: index.Indexer._meanwhile)."""
        if meanwhile is not None:
            meanwhile()
        if self._last is not None:
            setup()

    def _job(self, rel: str, count_terms: bool, stored: bool = True) -> tuple:
        row = self._stored.get(rel) if stored else None
        return (str(self.root / rel), rel, tags.language_for(rel), self.max_file_size, row[2] if row else "",
                count_terms)

    def _forget(self, missing: set[str]) -> None:
        for rel in missing:
            self._known.pop(rel, None)
            self._stored.pop(rel, None)
        self.store.save([], sorted(missing))


def _changed(info: os.stat_result) -> int:
    """One number that moves whenever the file may have: its mtime, which `cp -p` or
    `rsync -t` put back after an edit, mixed with its ctime and inode, which they cannot."""
    return (info.st_mtime_ns ^ (info.st_ctime_ns << 1) ^ info.st_ino) & ((1 << 63) - 1)


def _links(body: tuple) -> bytes:
    """What the reference graph and the defined names are made of, as one digest: the names
    a file references and defines (with counts, kinds and sizes), not where they are."""
    _, names, ref_names, ref_counts, def_names, def_methods, def_lines, _ = body
    digest = cache.hashlib.blake2b(digest_size=8)  # not marshal: its bytes vary with reference counts
    for part in (ref_names, def_names, names):
        digest.update("\0".join(part).encode("utf-8", "surrogatepass") + b"\1")
    for part in (ref_counts, def_methods, def_lines):
        digest.update(part + b"\1")
    return digest.digest()


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _digest(parts) -> str:
    """A digest of the parts, each ended by a NUL: hashed as one text, not part by part (a
    map makes four of every file's, and part by part is the slower; bench/RESULTS.md: index._digest)."""
    parts = list(parts)
    return cache.hashlib.blake2b(("\0".join(parts) + "\0" if parts else "").encode(), digest_size=16).hexdigest()


def _tag_job(job: tuple) -> tuple[str, bytes | None, bytes | None]:
    """Read, hash and tag one file: (hash, payload, search terms). A file whose hash is the
    stored one never gets here (Indexer._tagged answers it).

    Python's cycle collector is off meanwhile: a large file's query matches are hundreds of
    thousands of objects alive at once, which it walks again and again (bench/RESULTS.md:
    index._tag_job), and they hold no cycles."""
    gc.disable()
    try:
        return _tag(job)
    finally:
        gc.enable()


def _unchanged(job: tuple) -> tuple[str, None, None] | None:
    """_tag_job's answer for a file whose bytes hash as stored, without tagging it; else None."""
    path, _, _, max_file_size, stored_hash, _ = job
    data = discover.read_source(path, max_file_size)[0] if stored_hash else None  # else whoever tags it says why
    return (stored_hash, None, None) if data is not None and cache.content_hash(data) == stored_hash else None


def _tag_changed(job: tuple) -> tuple[str, bytes | None, bytes | None]:
    """_tag_job's answer, the file tagged only if its bytes do not hash as stored."""
    return _unchanged(job) or _tag_job(job)


def _setup(jobs: list[tuple]) -> Callable[[], None]:
    """What a process does before it tags these jobs."""
    return partial(_prepare, {job[2] for job in jobs}, any(job[5] for job in jobs))


def _prepare(languages: set[str], count_terms: bool) -> None:
    """A tagging worker's setup: the parsers and queries of its files' languages, and
    file_terms if it counts search terms."""
    if count_terms:
        from . import terms  # noqa: F401
    tags.prepare(languages)


def untagged_note(language: str) -> str:
    """The note of a file left untagged because its language's query is broken (tags._compiled
    warns why), counted per language in a scan's notes."""
    return f"no working {language} query"


def _tag(job: tuple) -> tuple[str, bytes | None, bytes | None]:
    path, rel, language, max_file_size, _, count_terms = job
    data, reason = discover.read_source(Path(path), max_file_size)
    if data is None:
        return "", _encode(None, (reason,)), NO_TERMS
    digest = cache.content_hash(data)
    result = tags.extract(rel, data, language)
    if result is None:
        return digest, _encode(None, (untagged_note(language),)), NO_TERMS
    notes = []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        notes.append("not UTF-8 (tagged anyway)")
    if result.syntax_error:
        notes.append("with syntax errors (partial tags)")
    defs = [t for t in result.tags if t.role == "def"]
    refs: dict[str, list[int]] = {}
    for tag in result.tags:
        if tag.role == "ref":
            refs.setdefault(tag.name, [0, 0, 0])[_BUCKET.get(tag.kind, 0)] += 1
    counts = array("I", [n for name in refs for n in refs[name]])
    from .render import view

    payload = _encode(file_info(defs, tuple(refs), counts, view(defs, data)), tuple(notes))
    if not count_terms:
        return digest, payload, LATER
    from .terms import file_terms

    return digest, payload, file_terms(rel, defs, data)


_reader: cache.Store | None = None  # in a worker counting search terms: its own reader of the index


def _prepare_terms(path: Path) -> None:
    from . import terms  # noqa: F401

    global _reader
    _reader = cache.Store.reader(path)


def _terms_job(job: tuple) -> bytes | None:
    """The search terms of a file from its definitions as the index holds them; None if its
    row changed since (the parent counts those)."""
    _, rel, digest, _ = job
    payload = _reader.payload_of(rel, digest)
    known = _decode(payload, (0, 0), digest) if payload is not None else None
    if known is None:
        return None
    return _terms(job, known.info.packed if known.info is not None else NO_DEFS)


def _terms(job: tuple, packed: bytes) -> bytes:
    """The search terms of a file tagged before, from its definitions (marshalled rows of
    Tag's fields) and its bytes now."""
    from .terms import file_terms

    path, rel, _, max_file_size = job
    data, _ = discover.read_source(Path(path), max_file_size)
    return file_terms(rel, list(starmap(Tag, marshal.loads(packed))), data or b"")


_FIELDS = attrgetter(*(f.name for f in fields(Tag)))  # a tag as a tuple; astuple() is far slower
_READ = [f.name for f in fields(FileInfo) if f.name not in ("links", "view", "_defs")]  # what _Stored reads on first use
_HELD = [name for name in _READ if name != "packed"]  # what a file of a large batch holds once stored


def _encode(info: FileInfo | None, notes: tuple[str, ...]) -> bytes:
    body = None if info is None else (info.packed, info.names, info.ref_names, info.ref_counts.tobytes(),
                                      info.def_names, info.def_methods, info.def_lines.tobytes(), info.view)
    return marshal.dumps((PAYLOAD_VERSION, body, notes))


def _decode(payload: bytes, stamp: tuple[int, int], digest: str) -> _Known | None:
    """The stored result, or None when the payload is unreadable (then the file is re-tagged)."""
    try:
        version, body, notes = marshal.loads(payload)
        if version != PAYLOAD_VERSION or not _shaped(body, notes):
            return None
        info = None if body is None else FileInfo(body[0], *(tuple(map(sys.intern, names)) for names in body[1:3]),
                                                  array("I", body[3]), tuple(map(sys.intern, body[4])), body[5],
                                                  array("I", body[6]), body[7], _links(body))
        return _Known(stamp, digest, info, tuple(notes))
    except (ValueError, TypeError, EOFError):
        return None


def _stored(payload: bytes | None, stamp: tuple[int, int], digest: str) -> _Known | None:
    """_decode of a payload from the index (None: none there, or damaged, which is said)."""
    known = _decode(payload, stamp, digest) if payload is not None else None
    if payload is not None and known is None:
        cache.damaged_rows()
    return known


def _terms_shaped(terms: bytes) -> bool:
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


_BODY = (bytes, tuple, tuple, bytes, tuple, bytes, bytes, bytes)  # the types of _encode's body, field by field


def _shaped(body, notes) -> bool:
    """Whether a payload's body and notes have the shape _encode gives them: a row that
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


class _Progress:
    """A progress line on stderr, only on a terminal and only once a run takes over a second."""

    def __init__(self, total: int):
        self.total, self.done, self.started = total, 0, time.monotonic()
        self.shown = False
        self.enabled = total > 0 and sys.stderr.isatty()

    def step(self, n: int) -> None:
        self.done += n
        if self.enabled and time.monotonic() - self.started > 1.0:
            self.shown = True
            print(f"\rrepomap: tagging {self.done}/{self.total} files", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)
