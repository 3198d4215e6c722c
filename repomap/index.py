"""Keep a repository's tags current: stat every file, re-tag only what changed (in parallel
when there is much of it), and remember the results in memory and in the persistent cache."""

from __future__ import annotations

import gc
import marshal
import os
from array import array
from functools import partial
from itertools import starmap
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

from . import cache, discover, memory, signatures, tags
from .config import DEFAULTS
from .errors import Changed
from .payload import (KEPT_ONCE_STORED, NO_DEFS, NO_TERMS, READ, FileInfo, Known, decode_payload, encode_payload,
                      file_info, stored_payload, terms_shaped)
from .tags import Tag

if TYPE_CHECKING:
    from .watch import Events
    from .workers import Batch

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
# What an indexer tells as it tags: (files done, of how many), from (0, n) to (n, n).
Progress = Callable[[int, int], None]
# Reference kinds by what they say about the name: [uses (imports, types,
# inheritance), plain calls, calls on a receiver].
_BUCKET = {"call": 1, "member": 2}


class _Stored(FileInfo):
    """A stored file's FileInfo, holding `links`, `view` and the fields given as `held`; each
    other field reads all of them from the index when it is first used (`_field`). An
    unchanged file holds none: a map after an edit, whose graph is stored or joined again in
    part, reads the rows of the files it shows, not of all of them (a large tree's are slow to
    decode). A file tagged in a large batch holds all but its definitions' rows (`packed`),
    which only the files a map shows need and which are most of the index (Indexer._save;
    bench/RESULTS.md: index._Stored)."""

    def __init__(self, indexer: Indexer, rel: str, digest: str, links: bytes, view: bytes,
                 held: dict[str, object] | None = None):
        self.links, self.view = links, view
        self._fields = held or {}  # those of READ held or read so far, by name
        self._source = (indexer, rel, digest)

    def _field(self, name: str):
        """A field of READ: held, else read now, with every other, from the index."""
        if name not in self._fields:
            indexer, rel, digest = self._source
            info = indexer.read(rel, digest)
            for read in READ:
                self._fields.setdefault(read, getattr(info, read))
        return self._fields[name]

    packed = property(lambda self: self._field("packed"))
    names = property(lambda self: self._field("names"))
    ref_names = property(lambda self: self._field("ref_names"))
    ref_counts = property(lambda self: self._field("ref_counts"))
    def_names = property(lambda self: self._field("def_names"))
    def_methods = property(lambda self: self._field("def_methods"))
    def_lines = property(lambda self: self._field("def_lines"))


class TagJob(NamedTuple):
    """One file to tag, as a worker is given it."""

    path: str  # absolute
    rel: str
    language: str
    max_file_size: int
    stored_hash: str  # its content hash in the index ("" if none): the same bytes need no tagging
    count_terms: bool  # else its search terms are counted when a search first needs them


class Tagged(NamedTuple):
    """What tagging a file gave (_tag_job)."""

    digest: str  # content hash; "" where the file could not be read
    payload: bytes | None  # its encoded FileInfo and notes; None: as stored (its bytes hash as stored)
    # What search needs (terms.file_terms); None: not counted, as stored, or (`count_terms`
    # off) counted when a search first needs them (Indexer.terms). Counting them is a large
    # share of a cold map's time, and a map without a task text never reads them.
    # bench/RESULTS.md: index.Tagged.terms
    terms: bytes | None


class TermsJob(NamedTuple):
    """The search terms of one tagged file to count, as a worker is given it."""

    path: str  # absolute
    rel: str
    digest: str  # the content hash it was tagged at
    max_file_size: int


class Indexer:
    """The tags of one repository, refreshed on every call; unchanged files cost a stat."""

    def __init__(self, root: Path, cache_dir: Path | None, max_file_size: int = DEFAULTS["max_file_size"],
                 parse_timeout: float = DEFAULTS["parse_timeout"], progress: Progress | None = None):
        self.root = root
        self.progress = progress  # told (files done, of how many) as files are tagged: `_update`
        self.max_file_size = max_file_size
        self.parse_timeout = parse_timeout
        self.store = cache.Store(root, cache_dir)
        self._known: dict[str, Known] = {}
        self._stored: dict[str, cache.Listed] | None = None  # cache.Store.load()
        self.changed = 0  # files the last refresh had to read again
        self._last: tuple[dict, dict[str, FileInfo], list[str]] | None = None  # the last refresh: stamps, answer, notes

    def stamps(self, candidates: list[str], tally: discover.Tally,
               since: tuple[dict[str, tuple[int, int]], Events] | None = None,
               linked: set[str] | None = None) -> dict[str, tuple[int, int]]:
        """(size, change stamp) of each candidate in a language we tag; counts the others in `tally`.
        `since`: the last look's stamps, and what the events since leave as it found them
        (watch.Events): those files keep their stamps, unstatted. `linked` gets those stamped
        that have more than one name (a watch does not see a write through another)."""
        stamps, other = {}, 0
        last, events = since or ({}, None)
        root = str(self.root) + os.sep
        for rel in candidates:
            if tags.language_for(rel) is None:
                other += 1  # counted once: a tally entry each is a warm map's cost on every call
                continue
            if not rel.isascii() and not _utf8(rel):  # bytes git or the OS gave us: no ID or output can hold it
                tally.add("names not UTF-8")
                continue
            if (stamp := last.get(rel)) is not None and events.unchanged_file(root + rel):
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
        Without `count_terms`, the files tagged now have their search terms counted later (Tagged.terms).
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
                    self._known[rel] = Known(stamp, "", None, ("too large",))
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
            if row is None or (row.size, row.changed) != stamp or \
                    (row.timed_out is not None and row.timed_out < self.parse_timeout):
                todo[rel] = stamp
        return todo

    def pretagging(self, stamps: dict[str, tuple[int, int]], count_terms: bool) -> Batch:
        """For a forked child that has just stamped the files (while this process imports what
        ranking needs): the jobs of the files changed since they were tagged, how each is done
        and the setup before them, as workers would do them; no jobs where more than
        PRETAGGED files changed (workers share them out)."""
        from .workers import Batch

        jobs = [self._job(rel, count_terms) for rel in self.stale(stamps)]
        jobs = jobs if len(jobs) <= PRETAGGED else []
        return Batch(jobs, _tag_changed, _setup(jobs))

    def _stale(self, rel: str, stamp: tuple[int, int]) -> bool:
        known = self._known.get(rel)
        return known is None or known.stamp != stamp

    def _load(self, rel: str) -> None:
        """Take an unchanged file from the index without reading its tags (_Stored reads them
        when first used)."""
        row = self._stored[rel]
        info = _Stored(self, rel, row.hash, row.links, row.view) if row.links else None
        self._known[rel] = Known((row.size, row.changed), row.hash, info,
                                  tuple(row.notes.split("\n")) if row.notes else (), timed_out=row.timed_out)

    def read(self, rel: str, digest: str) -> FileInfo:
        """A file's stored FileInfo of this content; tagged again now (and stored again) if its
        row is unreadable (damaged). Changed if the file no longer has this content: another
        process re-tagged it since the index was read, and the caller's graph is of the old one."""
        payload = self.store.payload_of(rel, digest)
        known = stored_payload(payload, (0, 0), digest)
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
            if entry.terms is not None:
                yield rel, entry.digest, missing.pop(rel).terms
        for rel, digest, terms in self.store.terms(set(missing)):
            if digest != missing[rel].digest:
                continue
            if terms_shaped(terms):
                yield rel, digest, terms
                del missing[rel]
            else:
                cache.damaged_rows()
        jobs = [TermsJob(str(self.root / rel), rel, entry.digest, self.max_file_size) for rel, entry in missing.items()]
        if len(jobs) < PARALLEL_TERMS or self.store.db is None:
            counted = ((job, None) for job in jobs)
        else:  # each worker reads the files' definitions from the index: a kernel's are gigabytes here
            from . import workers

            counted = workers.run(_terms_job, jobs, self.parse_timeout, os.cpu_count() or 1,
                                  partial(_prepare_terms, self.store.path))
        rows = []
        for job, answer in counted:
            rel = job.rel
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
    def stamps_digest(stamps: dict[str, tuple[int, int]]) -> str:
        """A digest of the files' stamps: equal digests, equal tags (checked before reading anything)."""
        return _digest(f"{rel}\0{size}\0{changed}" for rel, (size, changed) in sorted(stamps.items()))

    def digest(self, rel: str) -> str:
        """The content hash of a file tagged in the last refresh."""
        return self._known[rel].digest

    @staticmethod
    def links_and_views(infos: dict[str, FileInfo]) -> tuple[str, str]:
        """A digest of what every file defines and references (the reference graph's input),
        and one of what a text or Markdown map can show of every file (signatures.view)."""
        files = sorted(infos.items())
        return (_digest(f"{rel}\0{info.links.hex()}" for rel, info in files),
                _digest(f"{rel}\0{info.view.hex()}" for rel, info in files))

    def content_state(self, rels: list[str]) -> str:
        """A digest of the files' contents (after a refresh): a touched file does not change it."""
        return _digest(f"{rel}\0{known.digest}\0{known.timed_out}"
                       for rel in sorted(rels) if (known := self._known.get(rel)) is not None)

    def _update(self, stamps: dict[str, tuple[int, int]], meanwhile: Callable[[], None] | None = None,
                count_terms: bool = True, tagged: dict[tuple, object] | None = None) -> None:
        """Re-tag changed files (with their search terms, or not: Tagged.terms), but for the jobs `tagged`
        answers; a file whose content hash is stored is only re-stamped."""
        if not stamps:
            return
        jobs = [self._job(rel, count_terms) for rel in stamps]
        total, done = len(jobs), 0
        self._tell(0, total)
        rows, held = [], 0
        while jobs:
            retry = []
            for job, answer in self._tagged(jobs, meanwhile, tagged or {}):
                rel, timed_out = job.rel, None
                if isinstance(answer, Tagged):
                    digest, payload, terms = answer
                    if payload is None:  # same content as stored
                        payload, terms = self.store.payload(rel) or (None, None)
                else:  # workers.Failed
                    digest, timed_out = "", self.parse_timeout if answer.timed_out else None
                    payload, terms = encode_payload(None, (answer.reason,)), NO_TERMS
                known = stored_payload(payload, stamps[rel], digest)
                if known is None:  # the stored payload was unreadable after all: tag it again
                    retry.append(self._job(rel, count_terms, stored=False))
                    continue
                done += 1
                self._tell(done, total)
                known.timed_out = timed_out
                if self.store.db is None:
                    known.terms = terms
                self._known[rel] = known
                links, view = (known.info.links, known.info.view) if known.info else (b"", b"")
                listed = cache.Listed(*stamps[rel], digest, timed_out, links, view, "\n".join(known.notes))
                self._stored[rel] = listed
                rows.append(cache.Row(rel, listed.size, listed.changed, digest, timed_out, payload, terms,
                                      links, view, listed.notes))
                held += len(payload) + len(terms or b"")
                if len(rows) >= SAVE_EVERY or held >= SAVE_BYTES:
                    self._save(rows, held)
                    rows, held = [], 0
            jobs, meanwhile = retry, None
        self._save(rows, held)

    def _tell(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

    def _save(self, rows: list[cache.Row], size: int) -> None:
        """Store tagged files (`size` bytes of payloads and terms). Once a large batch is
        stored, its files' definitions' rows are read from the index when first needed instead
        of held (_Stored), and the memory freed is given back. A small one keeps them: a file
        tagged again by another process meanwhile would leave this one without the version
        whose definitions it ranks."""
        stored = self.store.save(rows, [])
        if size < LARGE_SAVE:
            return
        if stored:
            for row in rows:
                known = self._known[row.path]
                if known.info is not None and not isinstance(known.info, _Stored):
                    known.info = _Stored(self, row.path, row.hash, known.info.links, known.info.view,
                                         {name: getattr(known.info, name) for name in KEPT_ONCE_STORED})
        memory.give_back()

    def _tagged(self, jobs: list[TagJob], meanwhile: Callable[[], None] | None, tagged: dict[TagJob, object]
                ) -> Iterator[tuple[TagJob, object]]:
        """(job, _tag_job's answer or workers.Failed) per job: from `tagged`, else here where the
        file's bytes hash as stored (touched, or changed and changed back), without tree-sitter
        or a worker: starting them costs a touched file's warm map more than the hash
        (bench/RESULTS.md: index.Indexer._tagged, a touched file). The others go to workers,
        which read, hash and parse, so no file's bytes wait in this process. Their parsers and
        queries are loaded here, before the workers fork and not under a job's time limit: each
        language's query is compiled once in this process, not once in every worker, and the
        workers of its next refresh start with them too (bench/RESULTS.md: index.Indexer._tagged,
        queries). This process goes on with `meanwhile` while the workers tag."""
        rest = []
        for job in jobs:
            answer = tagged[job] if job in tagged else _unchanged(job)
            if answer is not None:
                yield job, answer
            else:
                rest.append(job)
        if rest:
            from . import workers

            _setup(rest)()
            yield from workers.run(_tag_job, rest, self.parse_timeout, os.cpu_count() or 1, meanwhile=meanwhile)

    def _job(self, rel: str, count_terms: bool, stored: bool = True) -> TagJob:
        row = self._stored.get(rel) if stored else None
        return TagJob(str(self.root / rel), rel, tags.language_for(rel), self.max_file_size, row.hash if row else "",
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


def _tag_job(job: TagJob) -> Tagged:
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


def _unchanged(job: TagJob) -> Tagged | None:
    """_tag_job's answer for a file whose bytes hash as stored, without tagging it; else None."""
    data = discover.read_source(job.path, job.max_file_size)[0] if job.stored_hash else None  # else whoever tags it says why
    return Tagged(job.stored_hash, None, None) if data is not None and cache.content_hash(data) == job.stored_hash else None


def _tag_changed(job: TagJob) -> Tagged:
    """_tag_job's answer, the file tagged only if its bytes do not hash as stored."""
    return _unchanged(job) or _tag_job(job)


def _setup(jobs: list[TagJob]) -> Callable[[], None]:
    """What a process does before it tags these jobs."""
    return partial(_prepare, {job.language for job in jobs}, any(job.count_terms for job in jobs))


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


def _tag(job: TagJob) -> Tagged:
    data, reason = discover.read_source(Path(job.path), job.max_file_size)
    if data is None:
        return Tagged("", encode_payload(None, (reason,)), NO_TERMS)
    digest = cache.content_hash(data)
    result = tags.extract(job.rel, data, job.language)
    if result is None:
        return Tagged(digest, encode_payload(None, (untagged_note(job.language),)), NO_TERMS)
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
    payload = encode_payload(file_info(defs, tuple(refs), counts, signatures.view(defs, data)), tuple(notes))
    if not job.count_terms:
        return Tagged(digest, payload, None)
    from .terms import file_terms

    return Tagged(digest, payload, file_terms(job.rel, defs, data))


_reader: cache.Store | None = None  # in a worker counting search terms: its own reader of the index


def _prepare_terms(path: Path) -> None:
    from . import terms  # noqa: F401

    global _reader
    _reader = cache.Store.reader(path)


def _terms_job(job: TermsJob) -> bytes | None:
    """The search terms of a file from its definitions as the index holds them; None if its
    row changed since (the parent counts those)."""
    payload = _reader.payload_of(job.rel, job.digest)
    known = decode_payload(payload, (0, 0), job.digest) if payload is not None else None
    if known is None:
        return None
    return _terms(job, known.info.packed if known.info is not None else NO_DEFS)


def _terms(job: TermsJob, packed: bytes) -> bytes:
    """The search terms of a file tagged before, from its definitions (marshalled rows of
    Tag's fields) and its bytes now."""
    from .terms import file_terms

    data, _ = discover.read_source(Path(job.path), job.max_file_size)
    return file_terms(job.rel, list(starmap(Tag, marshal.loads(packed))), data or b"")

