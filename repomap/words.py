"""Words of identifiers and of task text: what a free-text task mentions in the repository."""

from __future__ import annotations

import marshal
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


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude suffix stripper: route, router, routing and routes all become `rout`."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


# A kernel query's words share sub-words with up to 35,000 names; a kept RepoMap's next
# queries find most of them here.
@lru_cache(maxsize=1 << 18)
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


@dataclass
class Names:
    """What one state of the files defines, with the sub-words of every name counted and
    indexed once, so a task's words are weighed without a pass over all the names, and
    matched only against the names that share one of them."""

    files: list[str]
    defined: dict[str, int]  # name -> how many definitions have it
    doc_freq: dict[str, int]  # sub-word -> how many definitions' names have it
    with_part: dict[str, list[str]]  # sub-word -> the names that have it

    @classmethod
    def of(cls, infos: dict) -> Names:
        """The names of these files' definitions (infos: path -> index.FileInfo); a document's
        section titles are not identifiers a task could mention (`installation`, `usage`)."""
        defined = Counter(t.name for info in infos.values() for t in info.defs if t.kind != "section")
        doc_freq: Counter[str] = Counter()
        with_part: dict[str, list[str]] = {}
        for name, n in defined.items():
            for part in set(stemmed_subwords(name)):
                doc_freq[part] += n
                with_part.setdefault(part, []).append(name)
        return cls(sorted(infos), dict(defined), dict(doc_freq), with_part)

    def __post_init__(self):
        self.total = sum(self.defined.values()) or 1
        self.by_base: dict[str, list[str]] = {}
        for path in self.files:
            self.by_base.setdefault(PurePosixPath(path).name, []).append(path)

    def to_bytes(self) -> bytes:
        return marshal.dumps((self.files, self.defined, self.doc_freq, self.with_part))

    @classmethod
    def from_bytes(cls, data: bytes) -> Names:
        files, defined, doc_freq, with_part = marshal.loads(data)
        if not (isinstance(files, list) and isinstance(defined, dict) and isinstance(doc_freq, dict)
                and isinstance(with_part, dict)):
            raise ValueError("not stored names")
        return cls(files, defined, doc_freq, with_part)

    def sharing(self, terms: dict[str, float]) -> set[str]:
        """The names that have at least one of these sub-words."""
        return {name for part in terms for name in self.with_part.get(part, ())}


def mentions(text: str, names: Names) -> Mentions:
    """Files, identifiers and weighted sub-word terms that `text` mentions.

    Files: a word equal to a path, a path suffix, or a basename in the repository.
    Identifiers: words equal to a defined name. Terms: sub-words of all words,
    weighted by how rare they are among the definitions' sub-words.
    """
    found = Mentions()
    if not text.strip():
        return found
    for token in _PATHISH.findall(text):
        token = token.strip("./")
        if not token:
            continue
        if "/" in token:
            found.files.update(p for p in names.files if p == token or p.endswith("/" + token))
        found.files.update(names.by_base.get(token, []))
    words = _WORD.findall(text)
    found.idents = {w for w in words if w in names.defined and len(w) > 2}
    found.terms = {part: math.log(1 + names.total / names.doc_freq[part])
                   for word in words for part in stemmed_subwords(word) if part in names.doc_freq}
    return found
