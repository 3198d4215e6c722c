"""Find definitions for a query: BM25 over their words, with the map's rank as a prior.

A definition's words are the sub-words of its name (counted three times), of its
qualified name and path, and the words of its signature, first doc line and whole
text (comments above it and body), all lightly stemmed, so "where do we retry
failed connections" finds `retry_connection`. A definition that covers more of
the query's words gains more than one that repeats a few (coordination).

A file's search documents are made when it is tagged (`terms.file_terms`) and stored beside its
tags, so a query reads postings, not sources. `Postings` joins every file's into columns,
with the rows in buckets by word, and is stored in a file of its own that a search maps into
memory: it reads the rows of its own words, a small part of a large tree's postings
(bench/RESULTS.md: search.Postings). Files changed since then get small postings of their
own, laid over the stored ones (`Overlay`), so an edit costs one file's worth and BM25's
figures stay those of a fresh build.
"""

from __future__ import annotations

import marshal
import math
from array import array
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from .arrays import packed, run_places, run_starts, unpacked, within
from .definitions import Definitions
from .tags import Tag
from .terms import BUCKETS, CODES, COLUMNS, USED, word_key
from .weights import (B, CODE_NAME, CODE_USE, COORD, FILE_CANDIDATES, FILE_EVIDENCE, FILE_EVIDENCE_HITS, K1,
                      NAMED_FILE, PRIOR, QUALIFIED_NAME, SCOPE, SECONDARY_HIT, TITLE)
from .words import code_names, scope, terms

@dataclass(frozen=True)
class Hit:
    score: float
    tag: Tag
    signature: str


def _path_parts(path: str) -> list[str]:
    """A path's folders and its file name without the extension."""
    *folders, name = path.split("/")
    return [*folders, name.rsplit(".", 1)[0] if "." in name[1:] else name]


class Postings:
    """The search documents of some files as columns, per file, per definition ("doc") and
    per row of (doc, word, count), the rows in buckets by their word (`starts`). Built from
    file_terms payloads, or from stored arrays (memory-mapped: a query reads what it touches)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        self.paths = unpacked(arrays["paths"])
        digests = arrays["digests"].tobytes().decode()
        self.digests = [digests[i:i + 32] for i in range(0, len(digests), 32)]
        self.secondary = arrays["secondary"]
        self.file_docs = arrays["file_docs"]  # per file its first doc, then the number of docs
        self.doc_file, self.index = arrays["doc_file"], arrays["index"]  # index: among the file's definitions
        self.factor, self.length, self.group = arrays["factor"], arrays["length"], arrays["group"]
        self.copy_keys, self.copy_groups = arrays["copy_keys"], arrays["copy_groups"]  # sorted by key
        self.signature, self.signature_end = arrays["signature"], arrays["signature_end"]
        self.starts = arrays["starts"]  # per bucket of words, its first row
        self.word, self.doc, self.count = arrays["word"], arrays["doc"], arrays["count"]  # word: bits 16-47
        n_docs, n_rows = len(self.doc_file), len(self.doc)
        per_doc = (self.index, self.factor, self.length, self.group, self.copy_keys, self.copy_groups, self.signature_end)
        if not (len(self.digests) == len(self.secondary) == len(self.paths) == len(self.file_docs) - 1
                and int(self.file_docs[-1]) == n_docs and all(len(a) == n_docs for a in per_doc)
                and len(self.starts) == BUCKETS + 1 and int(self.starts[-1]) == n_rows
                and len(self.count) == len(self.word) == n_rows
                and int(self.signature_end[-1:].sum()) == len(self.signature)):
            raise ValueError("postings of mismatched sizes")

    @classmethod
    def build(cls, files: Iterable[tuple[str, str, bool, bytes]], linked: Postings | None = None) -> Postings:
        """Postings of `files`: (path, content hash, secondary, file_terms payload). With
        `linked`, a copy of one of its definitions joins that one's group."""
        paths, digests, secondary, per_file = [], [], [], array("q")
        columns = {name: array(code) for name, code in zip(COLUMNS, CODES)}  # a file's payload is let go at once
        for rel, digest, is_secondary, payload in files:
            paths.append(rel)
            digests.append(digest)
            secondary.append(is_secondary)
            decoded = marshal.loads(payload) or (b"",) * len(COLUMNS)
            for name, data in zip(COLUMNS, decoded):
                columns[name].frombytes(data)
            per_file.append(len(decoded[2]) // 4)
        c = {name: np.frombuffer(columns.pop(name), dtype=code) for name, code in zip(COLUMNS, CODES)}
        n_docs = len(c["index"])
        doc_file = np.repeat(np.arange(len(paths), dtype=np.int32), np.frombuffer(per_file, dtype=np.int64))
        length = c.pop("length").astype(np.float64)
        # Rows by the low 16 bits of their word's key (a radix sort, and a query scans only its
        # words' buckets; a full sort by word is slow on a large tree). A row keeps the next 32
        # bits: two of a large tree's words seldom share all 48 (bench/RESULTS.md: search.Postings.build).
        bucket, rows = c.pop("bucket"), {"word": c.pop("word")}
        order, starts = _bucket_order(bucket)
        del bucket
        rows["doc"] = np.repeat(np.arange(n_docs, dtype=np.int32), c.pop("n_words"))
        rows["count"] = c.pop("count")
        # One column at a time, the unsorted one let go: a large tree's are big (bench/RESULTS.md:
        # search.Postings.build).
        for name in rows:
            rows[name] = rows[name][order]
        del order
        group = _groups(c["copy_key"], c.pop("own_key"), _linked(c["copy_key"], linked))
        by_key = np.argsort(c["copy_key"], kind="stable")
        factor = c["factor"] * np.where(np.array(secondary, dtype=bool)[doc_file], SECONDARY_HIT, 1.0)
        return cls({
            "paths": packed(paths),
            "digests": np.frombuffer("".join(digests).encode(), dtype=np.uint8),
            "secondary": np.array(secondary, dtype=bool),
            "file_docs": np.concatenate([[0], np.cumsum(per_file)]).astype(np.int64),
            "doc_file": doc_file, "index": c["index"], "factor": factor, "length": length, "group": group,
            "copy_keys": c["copy_key"][by_key], "copy_groups": group[by_key],
            "signature": c["signature"], "signature_end": np.cumsum(c["signature_length"], dtype=np.int64),
            "starts": starts, **rows,
        })

    def live(self, files: list[str], digest: Callable[[str], str], secondary: set[str]
             ) -> tuple[np.ndarray, list[str]]:
        """Per file of these postings, its number in `files` if it is there unchanged (the same
        content and the same secondary flag), else -1; and the files of `files` that are not."""
        at = {path: i for i, path in enumerate(self.paths)}
        place, changed = np.full(len(self.paths), -1, dtype=np.int64), []
        for f, rel in enumerate(files):
            i = at.get(rel)
            if i is not None and self.digests[i] == digest(rel) and bool(self.secondary[i]) == (rel in secondary):
                place[i] = f
            else:
                changed.append(rel)
        return place, changed

    def rows(self, key: int) -> np.ndarray:
        """Where a word's rows are (none for a word no definition has)."""
        bucket = key & (BUCKETS - 1)
        start, end = int(self.starts[bucket]), int(self.starts[bucket + 1])
        return start + np.flatnonzero(self.word[start:end] == np.uint32((key >> 16) & 0xFFFFFFFF))

    def signature_of(self, doc: int) -> str:
        start = int(self.signature_end[doc - 1]) if doc else 0
        return self.signature[start:int(self.signature_end[doc])].tobytes().decode("utf-8", "surrogatepass")


def _linked(copy_key: np.ndarray, linked: Postings | None) -> np.ndarray:
    """Each definition's first label: its own number (past the linked postings' labels, which
    are their definitions' numbers), or the group of a linked definition with the same copy key."""
    start = len(linked.group) if linked is not None else 0
    label = np.arange(start, start + len(copy_key), dtype=np.int64)
    if linked is not None and len(linked.copy_keys):
        at = np.minimum(np.searchsorted(linked.copy_keys, copy_key), len(linked.copy_keys) - 1)
        found = linked.copy_keys[at] == copy_key
        label[found] = linked.copy_groups[at[found]]
    return label


# Ranges of buckets _bucket_order sorts one at a time. By hand: each range's arrays are that
# share of the whole sort's, which lowers a large build's peak memory and not its speed
# (bench/RESULTS.md: search.ORDER_PARTS). The order is the same whatever the number: it
# bounds memory, it does not tune an answer.
ORDER_PARTS = 8


def _bucket_order(bucket: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.argsort(bucket, kind="stable"), as int32 where that holds every row, and where each
    bucket starts in that order; made one range of buckets at a time: argsort of the whole
    column holds two int64 arrays as long as it, and np.bincount one more (bench/RESULTS.md:
    search.ORDER_PARTS)."""
    order = np.empty(len(bucket), dtype=np.int32 if len(bucket) < 1 << 31 else np.int64)
    starts = np.empty(BUCKETS + 1, dtype=np.int64)
    at, step = 0, BUCKETS // ORDER_PARTS
    for low in range(0, BUCKETS, step):
        inside = bucket >= low
        inside &= bucket < low + step
        rows = np.flatnonzero(inside)
        del inside
        keys = bucket[rows]
        sort = np.argsort(keys, kind="stable")
        order[at:at + len(rows)] = rows[sort]
        starts[low:low + step] = at + np.searchsorted(keys[sort], np.arange(low, low + step))
        at += len(rows)
    starts[BUCKETS] = at
    return order, starts


def _groups(copy_key: np.ndarray, own_key: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Per definition, the least label of those it is joined to by an equal copy key or own
    key, and so on transitively: each group is shown once in an answer."""
    relations = []
    for key in (copy_key, own_key):
        order = np.argsort(key, kind="stable")
        new = np.concatenate([[True], key[order][1:] != key[order][:-1]]) if len(key) else np.zeros(0, bool)
        relations.append((order, np.flatnonzero(new), np.cumsum(new) - 1))
    while True:
        before = label
        for order, starts, member in relations:
            if len(order):
                least = np.minimum.reduceat(label[order], starts)
                label = label.copy()
                label[order] = least[member]
        if np.array_equal(label, before):
            return label


class Overlay:
    """Search over stored postings with those of files changed since laid over them: a
    stored file that changed (or went) is left out of the stored part, and its new version is
    in the other. Definitions are known by their number in definitions.Definitions (`first[file] +
    index`), which is also the order of ties."""

    def __init__(self, parts: list[tuple[Postings, np.ndarray]], files: list[str], every: Definitions,
                 tag: Callable[[int], Tag]):
        """`parts`: postings with, per their file, its number in `files` (or -1: left out)."""
        self.parts = parts
        self.files, self.every, self.first, self.tag = files, every, every.first, tag
        self.n_docs = sum(int(np.diff(p.file_docs)[place >= 0].sum()) for p, place in parts)
        total = 0.0
        for postings, place in parts:  # lengths are whole numbers: these sums are exact
            running = np.concatenate([[0.0], np.cumsum(postings.length)])
            total += float((running[postings.file_docs[1:]] - running[postings.file_docs[:-1]])[place >= 0].sum())
        self.avg_length = total / self.n_docs if self.n_docs else 1.0
        self.depth = np.array([path.count("/") for path in files], dtype=np.int64)

    def search(self, query: str, scores: np.ndarray, limit: int = 5, keep: Callable[[Tag], bool] | None = None
               ) -> list[Hit]:
        """The best definitions for `query` that `keep` accepts; `scores` are the map's, from
        ranking.scores. Ties go in the definitions' order (by path, then place in the file)."""
        wanted = sorted(set(terms(query)))
        first_line = query.strip().split("\n", 1)[0]
        title = set(terms(first_line))
        found = [self._rows(word_key(t)) for t in wanted]
        n = self.n_docs
        idf = [math.log(1 + (n - len(rows[0]) + 0.5) / (len(rows[0]) + 0.5)) * (1 + TITLE * (t in title))
               for t, rows in zip(wanted, found)]  # a one-line query: every word alike
        total_idf = sum(idf) or 1.0
        if not any(len(rows[0]) for rows in found):
            return []
        number, tf, length, part, doc = (np.concatenate(column) for column in zip(*found))
        w = np.repeat(idf, [len(rows[0]) for rows in found])
        per_row = w * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self.avg_length))
        matched, first_row, inverse = np.unique(number, return_index=True, return_inverse=True)
        score = np.bincount(inverse, weights=per_row)
        # Coordination: a long task text has many incidental words; the definition that covers
        # more of them (by weight) is likelier the one it is about than one that repeats a few.
        # The tenth added keeps a match on one word of a long text from vanishing.
        covered = np.bincount(inverse, weights=w)
        part, doc = part[first_row], doc[first_row]
        factor, group = np.zeros(len(matched)), np.zeros(len(matched), dtype=np.int64)
        for k, (postings, _) in enumerate(self.parts):
            mine = part == k
            factor[mine], group[mine] = postings.factor[doc[mine]], postings.group[doc[mine]]
        prior = scores[matched] if len(scores) else np.zeros(len(matched))
        prior = np.sqrt(prior / (scores.max(initial=0.0) or 1.0))
        value = score * (covered / total_idf + 0.1) ** COORD * (1 - PRIOR + PRIOR * prior) * factor
        value *= self._named_files(matched, value, {t: w for t, w in zip(wanted, idf) if t in title},
                                   set(terms(scope(first_line))))
        written = code_names(query)
        value *= self._written(matched, written)
        value *= self._used(matched, written)
        value *= self._file_evidence(matched, value)
        value = -np.round(value, 4)
        order = np.lexsort((matched, value))
        # Copies and overloads: one hit per group with the best score, showing the copy least deep
        # in the tree (a generated or vendored copy usually sits deeper than its source).
        chosen: dict[int, list[int]] = {}
        passes = (lambda i: True) if keep is None else (lambda i: keep(self.tag(int(matched[i]))))
        for i in order.tolist():
            if len(chosen) == limit:
                break
            if int(group[i]) not in chosen and passes(i):
                chosen[int(group[i])] = []
        members = np.isin(group, list(chosen))
        for i in order[members[order]].tolist():
            if passes(i):
                chosen[int(group[i])].append(i)
        hits = []
        for best in chosen.values():
            if not best:
                continue
            depth = self.depth[self._file(matched[best])]
            shown = best[int(np.lexsort((matched[best], value[best], depth))[0])]
            hits.append(Hit(float(-value[best[0]]), self.tag(int(matched[shown])),
                            self._signature(int(part[shown]), int(doc[shown]))))
        return hits

    def _named_files(self, matched: np.ndarray, value: np.ndarray, title: dict[str, float], scoped: set[str]
                     ) -> np.ndarray:
        """Per matched definition, its lift when the task's title names its file: the best
        definition of a file (of the FILE_CANDIDATES best) gains NAMED_FILE times the
        share of the title's weight (`title`: word -> idf) carried by the folders and file name
        of its path whose every sub-word the title has (`median` names math/median.rs and
        `EffectScope` effectScope.ts; `format` alone does not name url_format.go); the words of
        the title's scope (`scoped`) count 1 + SCOPE times."""
        lift = np.ones(len(matched))
        total = sum(title.values())
        if not total:
            return lift
        best = np.argsort(-value, kind="stable")[:FILE_CANDIDATES]
        seen: set[int] = set()
        for at, file in zip(best.tolist(), self._file(matched[best]).tolist()):
            if file in seen:
                continue
            seen.add(file)
            named = set()
            for part in _path_parts(self.files[file]):
                words = set(terms(part))
                if words and words <= title.keys():
                    named |= words
            lift[at] += NAMED_FILE * sum(title[word] * (1 + SCOPE * (word in scoped)) for word in named) / total
        return lift

    def _file_evidence(self, matched: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Per matched definition, its lift by how well its file matches: 1 + FILE_EVIDENCE
        times the sum of the file's FILE_EVIDENCE_HITS best values (among the FILE_CANDIDATES
        best), as a share of the best file's sum. What a change touches sits among other
        matches of the task's words (one dialect's reflection methods, one widget's
        renderers); a central type or a stray function that matches alone in its file does not."""
        best = np.argpartition(-value, FILE_CANDIDATES)[:FILE_CANDIDATES] if len(value) > FILE_CANDIDATES \
            else np.arange(len(value))
        file = self._file(matched[best])
        order = np.lexsort((-value[best], file))
        by_file = file[order]
        starts = run_starts(by_file)
        place = run_places(by_file)
        evidence = np.add.reduceat(np.where(place < FILE_EVIDENCE_HITS, value[best][order], 0.0), starts)
        lift = np.ones(len(matched))
        if not len(evidence) or evidence.max() <= 0:
            return lift
        # Each file's definitions are a run of `matched` (sorted, numbered file by file).
        files = by_file[starts]
        ends = np.append(self.first[1:], np.iinfo(np.int64).max)
        share = FILE_EVIDENCE * evidence / evidence.max()
        for lo, hi, gain in zip(np.searchsorted(matched, self.first[files]).tolist(),
                                np.searchsorted(matched, ends[files]).tolist(), share.tolist()):
            lift[lo:hi] += gain
        return lift

    def _written(self, matched: np.ndarray, written: dict[str, set[str]]) -> np.ndarray:
        """Per matched definition, its lift when the task writes its name as code
        (words.code_names): CODE_NAME shared among the definitions of that name, and
        QUALIFIED_NAME more when the task qualifies it by its class or type's name."""
        lift = np.ones(len(matched))
        names = {self.every.names[name]: owners for name, owners in written.items() if name in self.every.names}
        if not names:
            return lift
        name = self.every.name[matched]
        for at in np.flatnonzero(np.isin(name, list(names))).tolist():
            owners = names[int(name[at])]
            lift[at] += CODE_NAME / int(self.every.name_counts[name[at]])
            if owners != {""}:
                qualname = self.tag(int(matched[at])).qualname.split(".")
                if len(qualname) > 1 and qualname[-2] in owners:
                    lift[at] += QUALIFIED_NAME
        return lift

    def _used(self, matched: np.ndarray, written: dict[str, set[str]]) -> np.ndarray:
        """Per matched definition, its lift when its body uses a name of several words that the
        task writes as code (`adapt_on_names`, `USE_CLIENT_DEFAULT`: what passes a parameter on
        or uses a constant changes with it): CODE_USE times the name's rarity among the
        definitions (1 when one definition uses it, falling as BM25's idf does)."""
        lift = np.ones(len(matched))
        n = max(self.n_docs, 2)
        for name in written:
            number = self._rows(word_key(USED + name))[0]
            if not len(number):
                continue
            at = np.minimum(np.searchsorted(matched, number), len(matched) - 1)
            at = at[matched[at] == number]
            rarity = math.log(1 + (n - len(number) + 0.5) / (len(number) + 0.5)) / math.log(1 + (n - 0.5) / 1.5)
            lift[at] += CODE_USE * rarity
        return lift

    def _rows(self, key: int) -> tuple[np.ndarray, ...]:
        """A word's rows in every part that are not left out: (definition number, count,
        definition length, part, doc)."""
        columns = []
        for k, (postings, place) in enumerate(self.parts):
            rows = postings.rows(key)
            doc = postings.doc[rows]
            if not within(doc, len(postings.doc_file)) or not within(postings.doc_file[doc], len(place)):
                raise ValueError("damaged postings: numbers out of range")
            at = place[postings.doc_file[doc]]
            live = at >= 0
            doc, at = doc[live], at[live]
            number = self.first[at] + postings.index[doc]
            if not np.array_equal(self._file(number), at):
                raise ValueError("damaged postings: definitions out of their files")
            columns.append((number, postings.count[rows][live].astype(np.float64), postings.length[doc],
                            np.full(len(doc), k), doc))
        return tuple(np.concatenate(column) for column in zip(*columns))

    def _file(self, number: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.first, number, side="right") - 1

    def _signature(self, part: int, doc: int) -> str:
        return self.parts[part][0].signature_of(doc)
