"""Words of identifiers and of task text: what a free-text task mentions in the repository."""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    import numpy as np

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


# A query's words share sub-words with many of a large tree's names; a kept RepoMap's next
# queries find most of them here (bench/RESULTS.md: words.stemmed_subwords).
@lru_cache(maxsize=1 << 18)
def stemmed_subwords(identifier: str) -> tuple[str, ...]:
    return tuple(map(stem, subwords(identifier)))


def tokens(text: str) -> list[str]:
    """The identifiers and words of `text`, in order."""
    return _WORD.findall(text)


class Memo(dict):
    """A one-argument function's results by argument, for lookups made millions of times: a
    hit is one dict lookup in C. functools.lru_cache's bookkeeping on each hit, and its misses
    once a large tree's words outgrow it, slow file_terms (bench/RESULTS.md: words.Memo). It
    holds at most `size` results and forgets them all when full, which keeps a tagging
    worker's memory bounded."""

    def __init__(self, function: Callable[[str], Any], size: int):
        super().__init__()
        self.function, self.size = function, size

    def __missing__(self, key: str) -> Any:
        if len(self) >= self.size:
            self.clear()
        value = self[key] = self.function(key)
        return value


def memo(size: int) -> Callable[[Callable[[str], Any]], Callable[[str], Any]]:
    """A function's Memo of `size` results, called as the function."""
    return lambda function: Memo(function, size).__getitem__


@memo(1 << 20)
def token_terms(token: str) -> tuple[str, ...]:
    """The stemmed sub-words of one token that search counts: from its first letter on
    (`_32` has none)."""
    word = token.lstrip("_0123456789")
    return stemmed_subwords(word) if word else ()


def terms(text: str) -> list[str]:
    """Stemmed sub-words of the identifiers and words in `text`, stopwords left out. (No
    Python loop: a large tree's bodies hold too many words; bench/RESULTS.md: words.terms.)"""
    return list(chain.from_iterable(map(token_terms, _WORD.findall(text))))


def subwords(identifier: str) -> tuple[str, ...]:
    """Lower-case parts of an identifier split at snake_case and camelCase boundaries (not
    cached: stemmed_subwords, its one caller, is)."""
    parts = []
    for chunk in identifier.split("_"):
        # A chunk of letters in one case is one part (most of C's names): no regex for it.
        one_case = chunk.isascii() and chunk.isalpha() and (chunk.islower() or chunk.isupper())
        for part in (chunk,) if one_case else _CAMEL.findall(chunk):
            if len(part) > 1 and (part := part.lower()) not in STOPWORDS:
                parts.append(part)
    return tuple(parts)


@dataclass
class Mentions:
    files: set[str] = field(default_factory=set)
    idents: set[str] = field(default_factory=set)
    terms: dict[str, float] = field(default_factory=dict)


@dataclass
class Names:
    """What one state of the files defines, with the sub-words of every name counted and
    indexed once, so a task's words are weighed without a pass over all the names, and
    matched only against the names that share one of them. Sorted lists and columns of
    numbers, stored as arrays: a large tree's names are slow to load as dictionaries
    (bench/RESULTS.md: words.Names)."""

    files: list[str]
    names: list[str]  # every defined name, sorted
    counts: np.ndarray  # per name, how many definitions have it
    parts: list[str]  # every sub-word of a name, sorted
    freq: np.ndarray  # per sub-word, how many definitions' names have it
    starts: np.ndarray  # per sub-word, where its names are in `holders` (and the end, last)
    holders: np.ndarray  # the numbers of the names that have each sub-word

    @classmethod
    def of(cls, files: list[str], defined: dict[str, int]) -> Names:
        """The names defined in these files, each with how many definitions have it (leave
        out a document's section titles: they are not identifiers a task could mention,
        `installation`, `usage`)."""
        import numpy as np

        names = sorted(defined)
        doc_freq: Counter[str] = Counter()
        with_part: dict[str, list[int]] = {}
        for number, name in enumerate(names):
            for part in set(stemmed_subwords(name)):
                doc_freq[part] += defined[name]
                with_part.setdefault(part, []).append(number)
        parts = sorted(doc_freq)
        holders = np.array([number for part in parts for number in with_part[part]], dtype=np.int64)
        starts = np.cumsum([0] + [len(with_part[part]) for part in parts], dtype=np.int64)
        return cls(sorted(files), names, np.array([defined[n] for n in names], dtype=np.int64), parts,
                   np.array([doc_freq[p] for p in parts], dtype=np.int64), starts, holders)

    def __post_init__(self):
        self.total = int(self.counts.sum()) or 1
        self.by_base: dict[str, list[str]] = {}
        for path in self.files:
            self.by_base.setdefault(PurePosixPath(path).name, []).append(path)

    def defines(self, name: str) -> bool:
        return _place(self.names, name) is not None

    def frequency(self, part: str) -> int:
        """How many definitions' names have this sub-word."""
        at = _place(self.parts, part)
        return 0 if at is None else int(self.freq[at])

    def sharing(self, terms: dict[str, float]) -> set[str]:
        """The names that have at least one of these sub-words."""
        shared = set()
        for part in terms:
            at = _place(self.parts, part)
            if at is not None:
                holders = self.holders[int(self.starts[at]):int(self.starts[at + 1])]
                shared.update(self.names[n] for n in holders.tolist())
        return shared

    def to_arrays(self) -> dict:
        from .arrays import packed

        return {"files": packed(self.files), "names": packed(self.names), "counts": self.counts,
                "parts": packed(self.parts), "freq": self.freq, "starts": self.starts, "holders": self.holders}

    @classmethod
    def from_arrays(cls, arrays: dict) -> Names:
        """Stored names, checked as far as what they index with (ValueError if damaged)."""
        from .arrays import unpacked, within

        files, names, parts = (unpacked(arrays[k]) for k in ("files", "names", "parts"))
        counts, freq, starts, holders = (arrays[k] for k in ("counts", "freq", "starts", "holders"))
        if not (len(counts) == len(names) and len(freq) == len(parts) == len(starts) - 1
                and int(starts[-1]) == len(holders) and within(starts, len(holders) + 1)
                and within(holders, len(names))):
            raise ValueError("stored names damaged")
        return cls(files, names, counts, parts, freq, starts, holders)


def _place(ordered: list[str], item: str) -> int | None:
    """Where `item` is in a sorted list, or None."""
    at = bisect_left(ordered, item)
    return at if at < len(ordered) and ordered[at] == item else None


_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def task_text(text: str) -> str:
    """A task as its author wrote it: HTML comments (a pull request template's instructions,
    hidden wherever the text is shown) left out, so their words match nothing."""
    return _COMMENT.sub(" ", text)


# A title's scope, as commit conventions write it: "fix(compiler-ssr): ...", "net/http: ...",
# "TSDB: ..." (a leading "fixup! " or "squash! " is git's, not the author's).
_SCOPE = re.compile(r"(?:fixup! |squash! )*(?:[A-Za-z]+\(([^()\n]{1,40})\)|([\w./,-]+(?: [\w./,-]+){0,2}))!?:\s")


def scope(title: str) -> str:
    """The part of a task's title that says where the change is, "" if it has none."""
    found = _SCOPE.match(title.strip())
    return (found.group(1) or found.group(2)) if found else ""


_TICKED = re.compile(r"`+(?!-)([^`\n]+)`+")  # not `--min-depth`: a flag is no identifier
_QUALIFIED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)(?=(?:\.|::|#)([A-Za-z_][A-Za-z0-9_]*))")
_CODE_WORD = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Z]{2}[a-z]")


def code_names(text: str) -> dict[str, set[str]]:
    """The identifiers `text` writes as code, each with the names it qualifies them by
    ("" if none): `AsyncSession.execute` and ByteStream::into_bytes give execute by
    AsyncSession and into_bytes by ByteStream; `stream`, execution_options and EffectScope
    are code by their backticks, underscore or inner capital. A plain word is prose."""
    found: dict[str, set[str]] = {}
    for owner, name in _QUALIFIED.findall(text):
        if len(name) > 2 and (_CODE_WORD.search(owner) or _CODE_WORD.search(name) or owner[:1].isupper()):
            found.setdefault(name, set()).add(owner)
    for word in [*compound_names(dict.fromkeys(tokens(text))), *_WORD.findall(" ".join(_TICKED.findall(text)))]:
        if len(word) > 2:
            found.setdefault(word, set()).add("")
    return found


def compound_names(names: Iterable[str]) -> list[str]:
    """The identifiers of several words (an underscore or an inner capital) among `names`:
    what a task writes as code is one of them, and the code that uses it names it whole."""
    return [name for name in names if _CODE_WORD.search(name)]


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
    found.idents = {w for w in words if len(w) > 2 and names.defines(w)}
    found.terms = {part: math.log(1 + names.total / frequency)
                   for word in words for part in stemmed_subwords(word) if (frequency := names.frequency(part))}
    return found
