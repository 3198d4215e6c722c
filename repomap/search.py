"""Find definitions for a query: BM25 over their words, with the map's rank as a prior.

A definition's words are the sub-words of its name (counted three times), of its
qualified name and path, and the words of its signature, first doc line and whole
text (comments above it and body), all lightly stemmed, so "where do we retry
failed connections" finds `retry_connection`. A definition that covers more of
the query's words gains more than one that repeats a few (coordination).

A file's words are counted when it is tagged and stored beside its tags
(`file_terms`), so a query reads postings, not sources: `Terms` keeps each file's
decoded once, and `Postings` joins them into numpy columns once per state of the files.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import math
import re
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .render import signatures
from .tags import Tag
from .weights import B, COORD, DATA, K1, LONG, NAME_WEIGHT, PRIOR, PROSE, SECONDARY_HIT, TITLE
from .words import stemmed_subwords

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Hit:
    score: float
    tag: Tag
    signature: str


def terms(text: str) -> list[str]:
    """Stemmed sub-words of the identifiers and words in `text`, stopwords left out."""
    return [part for word in _WORD.findall(text) for part in stemmed_subwords(word)]


def own_texts(defs: list[Tag], source: bytes) -> dict[str, str]:
    """Each definition's text without the definitions nested in it, so a class's words are
    its own and not all of its methods'. `defs` are in source order."""
    texts = {}
    for i, tag in enumerate(defs):
        pieces, cursor = [], tag.head_byte if tag.head_byte >= 0 else tag.start_byte
        for inner in defs[i + 1:]:
            if inner.start_byte >= tag.end_byte:
                break
            if inner.start_byte >= cursor and inner.end_byte <= tag.end_byte:
                pieces.append(source[cursor:inner.start_byte])
                cursor = inner.end_byte
        pieces.append(source[cursor:tag.end_byte])
        texts[tag.id] = b"".join(pieces).decode("utf-8", errors="replace")
    return texts


def file_terms(rel: str, defs: list[Tag], source: bytes) -> bytes:
    """What search needs of a file, computed when it is tagged: for each definition outside
    function bodies, its signature, a hash of its own text (copies share it) and its words
    with their counts."""
    texts = own_texts(defs, source)
    shown = signatures(defs, source)
    place = rel.replace("/", " ")
    rows = []
    for tag in defs:
        if tag.local:
            continue
        words = Counter(terms(tag.name) * NAME_WEIGHT)
        words.update(terms(" ".join([tag.qualname, place, shown[tag.id], tag.doc, texts[tag.id]])))
        rows.append((shown[tag.id], hashlib.blake2b(texts[tag.id].encode("utf-8", "surrogatepass"),
                                                    digest_size=8).digest(),
                     tuple(words), array("I", words.values()).tobytes()))
    return marshal.dumps(rows)


@dataclass
class FileTerms:
    """One file's search documents, decoded: rows of (definition, word id, count)."""

    signatures: list[str]
    texts: list[bytes]  # a hash of each definition's own text (copies share it)
    doc: np.ndarray  # definition number within the file, per row
    word: np.ndarray  # word id in Terms.words, per row
    count: np.ndarray  # how often, per row


class Terms:
    """Every file's search documents, decoded once per content; the word ids only grow."""

    def __init__(self):
        self.words: dict[str, int] = {}
        self._files: dict[str, tuple[str, FileTerms]] = {}
        self._seed: tuple[Postings, list[tuple[str, str, int]]] | None = None

    def known(self, rel: str, digest: str) -> bool:
        self._unpack()
        return self._files.get(rel, ("",))[0] == digest

    def add(self, rel: str, digest: str, payload: bytes) -> None:
        self._unpack()
        rows = marshal.loads(payload)
        ids = self.words
        doc = np.repeat(np.arange(len(rows), dtype=np.int32), [len(r[2]) for r in rows])
        word = np.fromiter((ids.setdefault(w, len(ids)) for r in rows for w in r[2]), dtype=np.int32,
                           count=len(doc))
        count = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.uint32).astype(np.float64)
        self._files[rel] = (digest, FileTerms([r[0] for r in rows], [r[1] for r in rows], doc, word, count))

    def forget_others(self, rels: set[str]) -> None:
        self._unpack()
        for rel in set(self._files) - rels:
            del self._files[rel]

    def seed(self, postings: Postings, files: list[tuple[str, str, int]]) -> None:
        """Take each file's documents from stored postings, so that after an edit only the
        edited file's terms are read again. `files`: (path, content hash, definitions outside
        function bodies) in the postings' order of files. They are split when first needed:
        a one-shot search never needs them."""
        if not self._files:
            self._seed = (postings, files)

    def _unpack(self) -> None:
        if self._seed is None:
            return
        (postings, files), self._seed = self._seed, None
        self.words = dict(postings.words)
        ends = np.cumsum([own for _, _, own in files], dtype=np.int64)
        rows = np.searchsorted(postings.doc, np.concatenate([[0], ends]).astype(postings.doc.dtype)).tolist()
        for k, (rel, digest, own) in enumerate(files):
            first, last = int(ends[k]) - own, int(ends[k])
            part = slice(rows[k], rows[k + 1])
            self._files[rel] = (digest, FileTerms(postings.signatures[first:last], postings.texts[first:last],
                                                  postings.doc[part] - first, postings.word[part],
                                                  postings.count[part]))

    def postings(self, defs: dict[str, list[Tag]], secondary: set[str]) -> Postings:
        """The postings of these files' definitions outside function bodies; `defs` in the
        order of graph.scores (the prior comes from there)."""
        self._unpack()
        tags, sigs, texts, doc, word, count, positions, offset = [], [], [], [], [], [], [], 0
        for rel, file_defs in defs.items():
            own = self._files[rel][1]
            doc.append(own.doc + len(tags))
            positions += [offset + i for i, t in enumerate(file_defs) if not t.local]
            offset += len(file_defs)
            tags += [t for t in file_defs if not t.local]
            sigs += own.signatures
            texts += own.texts
            word.append(own.word)
            count.append(own.count)
        join = (lambda parts, kind: np.concatenate(parts) if parts else np.zeros(0, dtype=kind))
        factor = np.array([(SECONDARY_HIT if t.path in secondary else 1.0) * _kind_factor(t.kind) / _length_penalty(t)
                           for t in tags])
        return Postings(Resolver(tags.__getitem__, lambda i: tags[i].path), sigs, texts, factor, join(doc, np.int32),
                        join(word, np.int32), join(count, np.float64), dict(self.words),
                        np.array(positions, dtype=np.int64), _copies(tags, texts))


def _kind_factor(kind: str) -> float:
    return PROSE if kind == "section" else DATA if kind in ("constant", "module") else 1.0


def _length_penalty(tag: Tag) -> float:
    """1 up to LONG lines, then one more for each doubling: a 3,200-line class is worth a
    sixth of its score, so the method that answers the query comes before it."""
    return 1.0 + max(0.0, math.log2((tag.end_line - tag.line + 1) / LONG))


@dataclass
class Resolver:
    """A searched definition's Tag and path by its number, so that a search makes Tags only
    of the definitions it answers with (stored postings resolve them through graph.Definitions)."""

    tag: Callable[[int], Tag]
    path: Callable[[int], str]


class Postings:
    """BM25 over definitions, as columns of (definition, word, count) rows, built once per
    state of the files (and stored when that was slow); a query touches only the rows of its
    own words."""

    def __init__(self, resolve: Resolver, signatures: list[str], texts: list[bytes], factor: np.ndarray,
                 doc: np.ndarray, word: np.ndarray, count: np.ndarray, words: dict[str, int],
                 positions: np.ndarray, copies: np.ndarray):
        self.resolve = resolve
        self.signatures = signatures
        self.texts = texts  # a hash of each definition's own text
        self.copies = copies  # a number copies share
        self.factor = factor  # per definition: secondary, kind and length
        self.doc, self.word, self.count = doc, word, count
        self.words = words
        self.positions = positions  # where each definition is in graph.scores' order
        self.lengths = np.bincount(doc, weights=count, minlength=len(signatures))
        self.avg_length = float(self.lengths.mean()) if len(signatures) else 1.0
        self.doc_freq = np.bincount(word, minlength=len(words))

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        text = "\n".join(self.words).encode() + b"\1" + "\0".join(self.signatures).encode("utf-8", "surrogatepass")
        np.savez(buffer, texts=np.frombuffer(b"".join(self.texts), dtype=np.uint8), copies=self.copies,
                 factor=self.factor, doc=self.doc, word=self.word, count=self.count, positions=self.positions,
                 text=np.frombuffer(text, dtype=np.uint8))
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, resolve: Resolver, n_defs: int) -> Postings:
        """Stored postings of definitions numbered below `n_defs` (ValueError, KeyError or
        OSError if damaged)."""
        arrays = np.load(io.BytesIO(data), allow_pickle=False)
        words, _, signatures = arrays["text"].tobytes().partition(b"\1")
        words = words.decode().split("\n") if words else []
        signatures = signatures.decode("utf-8", "surrogatepass").split("\0")
        positions, texts = arrays["positions"], arrays["texts"].tobytes()
        if len(signatures) != len(positions) or len(set(words)) != len(words) or len(texts) != 8 * len(positions) \
                or int(positions.max(initial=-1)) >= n_defs:
            raise ValueError("stored postings of other definitions")
        return cls(resolve, signatures, [texts[i:i + 8] for i in range(0, len(texts), 8)], arrays["factor"],
                   arrays["doc"], arrays["word"], arrays["count"], {w: i for i, w in enumerate(words)},
                   arrays["positions"], arrays["copies"])

    def search(self, query: str, scores: np.ndarray, limit: int = 5, keep: Callable[[Tag], bool] | None = None
               ) -> list[Hit]:
        """The best definitions for `query` that `keep` accepts; `scores` are the map's, from
        graph.scores. Ties go in the definitions' order (by path, then place in the file)."""
        wanted = set(terms(query))
        title = set(terms(query.strip().split("\n", 1)[0]))
        n = len(self.signatures)
        ids = {t: self.words[t] for t in wanted if t in self.words}  # a word no definition has: df 0
        frequency = {t: int(self.doc_freq[ids[t]]) if t in ids else 0 for t in wanted}
        idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) * (1 + TITLE * (t in title))
               for t, df in frequency.items()}  # a one-line query: every word alike
        total_idf = sum(idf.values()) or 1.0
        weight = np.zeros(len(self.words))
        weight[list(ids.values())] = [idf[t] for t in ids]
        rows = np.flatnonzero(np.isin(self.word, list(ids.values())))
        doc, tf, w = self.doc[rows], self.count[rows], weight[self.word[rows]]
        per_row = w * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[doc] / self.avg_length))
        score = np.bincount(doc, weights=per_row, minlength=n)
        # Coordination: a long task text has many incidental words; the definition that covers
        # more of them (by weight) is likelier the one it is about than one that repeats a few.
        # The tenth added keeps a match on one word of a long text from vanishing.
        covered = np.bincount(doc, weights=w, minlength=n)
        matched = np.unique(doc)
        prior = scores[self.positions] if len(scores) else np.zeros(n)
        prior = np.sqrt(prior / (scores.max(initial=0.0) or 1.0))
        value = score[matched] * (covered[matched] / total_idf + 0.1) ** COORD
        value *= (1 - PRIOR + PRIOR * prior[matched]) * self.factor[matched]
        scored = sorted(zip((-round(v, 4) for v in value.tolist()), matched.tolist()))
        # Copies and overloads: one hit with the best score, showing the copy least deep in the
        # tree (a generated or vendored copy usually sits deeper than its source).
        groups: dict[int, tuple[float, tuple]] = {}
        copies = self.copies
        for value, i in scored:
            if keep is not None and not keep(self.resolve.tag(i)):
                continue
            group = int(copies[i])
            shown = (self.resolve.path(i).count("/"), value, i)
            best, current = groups.get(group, (value, shown))
            groups[group] = (best, min(current, shown))
        best = list(groups.values())[:limit]  # dicts keep order: best score first
        return [Hit(-value, self.resolve.tag(shown[-1]), self.signatures[shown[-1]]) for value, shown in best]


def _copies(defs: list[Tag], texts: list[bytes]) -> np.ndarray:
    """Per definition, a number shared by its copies: definitions of the same qualified name
    and kind that have the same text (a generated or vendored copy of a file) or are in the
    same file (overloads), and so on transitively. A search shows each group once."""
    parent = list(range(len(defs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple, int] = {}
    for i, tag in enumerate(defs):
        for key in ((tag.qualname, tag.kind, texts[i]), (tag.path, tag.qualname, tag.kind)):
            j = first.setdefault(key, i)
            parent[root(i)] = root(j)
    return np.array([root(i) for i in range(len(defs))], dtype=np.int64)
