"""Find definitions for a query: BM25 over their words, with the map's rank as a prior.

A definition's words are the sub-words of its name (counted three times), of its
qualified name and path, and the words of its signature, first doc line and whole
text (comments above it and body), all lightly stemmed, so "where do we retry
failed connections" finds `retry_connection`. A definition that covers more of
the query's words gains more than one that repeats a few (coordination).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from .tags import Tag
from .words import STOPWORDS, stem, subwords

K1 = 1.2
B = 0.3
NAME_WEIGHT = 3
PRIOR = 0.6
SECONDARY = 0.3  # tests, examples and docs code answer a query less often than the code they test
PROSE = 0.1  # Markdown sections: prose matches a prose query too easily; search is mostly for code
TITLE = 1.0  # extra weight of the words of a query's first line: a task's title says what it is about
LONG = 100  # lines; longer definitions rank lower, since retrieving them costs more
COORD = 1.25  # how much a definition gains by covering more of the query's words (weighted by rarity)
DATA = 0.5  # constants and module declarations: data and pointers answer a query less often than code
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Hit:
    score: float
    tag: Tag
    signature: str


def terms(text: str) -> list[str]:
    """Stemmed sub-words of the identifiers and words in `text`, stopwords left out."""
    return [stem(p) for w in _WORD.findall(text) for p in subwords(w) if p not in STOPWORDS]


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


def _kind_factor(kind: str) -> float:
    return PROSE if kind == "section" else DATA if kind in ("constant", "module") else 1.0


def _length_penalty(tag: Tag) -> float:
    """1 up to LONG lines, then one more for each doubling: a 3,200-line class is worth a
    sixth of its score, so the method that answers the query comes before it."""
    return 1.0 + max(0.0, math.log2((tag.end_line - tag.line + 1) / LONG))


class Index:
    """BM25 over definitions, built once per scan."""

    def __init__(self, defs: list[Tag], signatures: dict[str, str], texts: dict[str, str],
                 prior: dict[str, float], secondary: set[str]):
        self.defs = defs
        self.signatures = signatures
        self.docs: list[Counter[str]] = []
        self.copies = _copies(defs, texts)
        for tag in defs:
            words = Counter(terms(tag.name) * NAME_WEIGHT)
            words.update(terms(" ".join([tag.qualname, tag.path.replace("/", " "), signatures[tag.id], tag.doc,
                                         texts.get(tag.id, "")])))
            self.docs.append(words)
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg_length = sum(self.lengths) / len(self.lengths) if self.lengths else 1.0
        self.doc_freq: Counter[str] = Counter(t for d in self.docs for t in d)
        top = max(prior.values(), default=0.0) or 1.0
        self.prior = [math.sqrt(prior.get(t.id, 0.0) / top) for t in defs]
        self.factor = [(SECONDARY if t.path in secondary else 1.0) * _kind_factor(t.kind) / _length_penalty(t)
                       for t in defs]

    def search(self, query: str, limit: int = 5, keep=lambda tag: True) -> list[Hit]:
        wanted = set(terms(query))
        title = set(terms(query.strip().split("\n", 1)[0]))
        n = len(self.docs)
        idf = {t: math.log(1 + (n - self.doc_freq[t] + 0.5) / (self.doc_freq[t] + 0.5)) * (1 + TITLE * (t in title))
               for t in wanted}  # a one-line query: every word alike
        total_idf = sum(idf.values()) or 1.0
        scored = []
        for i, (doc, tag) in enumerate(zip(self.docs, self.defs)):
            matched = wanted & doc.keys()
            if not matched or not keep(tag):
                continue
            score = 0.0
            for term in matched:
                tf = doc[term]
                score += idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[i] / self.avg_length))
            # Coordination: a long task text has many incidental words; the definition that covers
            # more of them (by weight) is likelier the one it is about than one that repeats a few.
            # The tenth added keeps a match on one word of a long text from vanishing.
            score *= (sum(idf[t] for t in matched) / total_idf + 0.1) ** COORD
            score *= (1 - PRIOR + PRIOR * self.prior[i]) * self.factor[i]
            scored.append((-round(score, 4), tag.path, tag.start_byte, i))
        scored.sort()
        # Copies and overloads: one hit with the best score, showing the copy least deep in the
        # tree (a generated or vendored copy usually sits deeper than its source).
        groups: dict[int, tuple[float, tuple]] = {}
        for score, path, start, i in scored:
            group = self.copies[i]
            shown = (path.count("/"), score, path, start, i)
            best, current = groups.get(group, (score, shown))
            groups[group] = (best, min(current, shown))
        hits = [Hit(-score, self.defs[shown[-1]], self.signatures[self.defs[shown[-1]].id])
                for score, shown in groups.values()]  # dicts keep order: best score first
        return hits[:limit]


def _copies(defs: list[Tag], texts: dict[str, str]) -> list[int]:
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
        for key in ((tag.qualname, tag.kind, texts.get(tag.id, tag.id)), (tag.path, tag.qualname, tag.kind)):
            j = first.setdefault(key, i)
            parent[root(i)] = root(j)
    return [root(i) for i in range(len(defs))]
