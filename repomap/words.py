"""Words of identifiers and of task text: what a free-text task mentions in the repository."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATHISH = re.compile(r"[\w./-]*[\w-]\.[A-Za-z0-9]+|[\w.-]+/[\w./-]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOPWORDS = frozenset("""a an and are as at be but by can do does for from has have if in into is it its
not of on or so that the their then this to was we were when where which while will with without you
""".split())


_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ies", "es", "ed", "s", "e")


def stem(word: str) -> str:
    """A crude suffix stripper: route, router, routing and routes all become `rout`."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


@lru_cache(maxsize=65536)
def stemmed_subwords(identifier: str) -> tuple[str, ...]:
    return tuple(stem(p) for p in subwords(identifier))


@lru_cache(maxsize=65536)
def subwords(identifier: str) -> tuple[str, ...]:
    """Lower-case parts of an identifier split at snake_case and camelCase boundaries."""
    return tuple(p.lower() for chunk in identifier.split("_") for p in _CAMEL.findall(chunk)
                 if len(p) > 1 and p.lower() not in STOPWORDS)


@dataclass
class Mentions:
    files: set[str] = field(default_factory=set)
    idents: set[str] = field(default_factory=set)
    terms: dict[str, float] = field(default_factory=dict)


def mentions(text: str, files: list[str], defined: Counter[str]) -> Mentions:
    """Files, identifiers and weighted sub-word terms that `text` mentions.

    Files: a word equal to a path, a path suffix, or a basename in the repository.
    Identifiers: words equal to a defined name. Terms: sub-words of all words,
    weighted by how rare they are among the definitions' sub-words.
    """
    found = Mentions()
    if not text.strip():
        return found
    by_base: dict[str, list[str]] = {}
    for path in files:
        by_base.setdefault(PurePosixPath(path).name, []).append(path)
    for token in _PATHISH.findall(text):
        token = token.strip("./")
        if not token:
            continue
        if "/" in token:
            found.files.update(p for p in files if p == token or p.endswith("/" + token))
        found.files.update(by_base.get(token, []))
    words = _WORD.findall(text)
    found.idents = {w for w in words if w in defined and len(w) > 2}
    found.terms = _term_weights(words, defined)
    return found


def _term_weights(words: list[str], defined: Counter[str]) -> dict[str, float]:
    """Query sub-words (stemmed) weighted by inverse document frequency over defined names."""
    doc_freq: Counter[str] = Counter()
    for name, n in defined.items():
        for part in set(stemmed_subwords(name)):
            doc_freq[part] += n
    total = sum(defined.values()) or 1
    terms: dict[str, float] = {}
    for word in words:
        for part in stemmed_subwords(word):
            if part in doc_freq:
                terms[part] = math.log(1 + total / doc_freq[part])
    return terms
