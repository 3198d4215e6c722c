"""What search needs of a file, made when the file is tagged (in a worker process, so
nothing here needs numpy): each definition's words with their counts, its signature and the
figures BM25 and the copy groups are made of. `search.Postings` joins the files' terms."""

from __future__ import annotations

import hashlib
import marshal
import math
import sys
from array import array
from collections import Counter
from itertools import chain
from operator import mul

from .signatures import signature_text, source_lines
from .tags import Tag
from .weights import DATA, LONG, NAME_WEIGHT, PROSE
from .words import compound_names, memo, token_terms, tokens

USED = "\1"  # before a name of several words a definition uses, as its search term (no word holds it)
COLUMNS = ("signature", "signature_length", "index", "factor", "copy_key", "own_key", "length", "n_words", "bucket",
           "word", "count")
CODES = ("B", "I", "I", "d", "Q", "Q", "I", "I", "H", "I", "I")  # their types, as array and numpy spell them
BUCKETS = 1 << 16


@memo(1 << 20)
def word_bytes(word: str) -> bytes:
    """A word as 6 bytes of its hash, the same in every process (postings keep no strings):
    the first 2 its bucket, the next 4 what tells it from the other words there."""
    return hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest()[:6]


def word_key(word: str) -> int:
    """word_bytes as one number: the bucket in the low 16 bits, then the word."""
    raw = word_bytes(word)
    return int.from_bytes(raw[:2], sys.byteorder) | int.from_bytes(raw[2:], sys.byteorder) << 16


def _key(*parts: str) -> int:
    """Parts joined by NULs, as a 64-bit hash."""
    text = "\0".join(parts).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def own_texts(defs: list[Tag], source: bytes) -> list[str]:
    """Each definition's text without the definitions nested in it, so a class's words are
    its own and not all of its methods'. `defs` are in source order."""
    texts = []
    for i, tag in enumerate(defs):
        pieces, cursor = [], tag.head_byte if tag.head_byte >= 0 else tag.start_byte
        for j in range(i + 1, len(defs)):  # not a slice: a copy per definition is quadratic
            inner = defs[j]
            if inner.start_byte >= tag.end_byte:
                break
            if inner.start_byte >= cursor and inner.end_byte <= tag.end_byte:
                pieces.append(source[cursor:inner.start_byte])
                cursor = inner.end_byte
        pieces.append(source[cursor:tag.end_byte])
        texts.append(b"".join(pieces).decode("utf-8", errors="replace"))
    return texts


def file_terms(rel: str, defs: list[Tag], source: bytes) -> bytes:
    """What search needs of a file, computed when it is tagged: for each definition, its
    signature, its place among the file's definitions, its weight (kind and length), the keys
    its copies and overloads share, its words with their counts, and the names of several
    words it uses, whole (as `USED` + name: Overlay._used). Definitions inside
    function bodies count too: a fix is often to a closure (vue's `onLeave` inside
    resolveTransitionProps), whose words are not its enclosing function's (own_texts).

    Much of a large tree's tagging time is spent here, on its many mostly short definitions
    (bench/RESULTS.md: terms.file_terms): each body's tokens are counted first, so a repeated token is split into
    sub-words once, and nothing is made twice per definition."""
    place = rel.replace("/", " ")
    columns = [array(code) for code in CODES]
    sig, sig_length, index, factor, copy_key, own_key, length, n_words, _, _, count = columns
    keys: list[bytes] = []
    lines = source_lines(source)
    owns = own_texts(defs, source)
    bodies = [Counter(tokens(own)) for own in owns]
    # The names of several words, tested once per file: a regex per token of every definition
    # is a large share of this function's time on a large tree.
    used = {name: USED + name for name in compound_names(set().union(*bodies))}
    for i, (tag, own, body) in enumerate(zip(defs, owns, bodies)):
        name, qualname, kind, shown_text = tag.name, tag.qualname, tag.kind, signature_text(tag, lines)
        # Its name's words count NAME_WEIGHT times, then those of where it is and what it says.
        words = Counter(chain.from_iterable(map(token_terms, tokens(
            " ".join([*[name] * NAME_WEIGHT, qualname, place, shown_text, tag.doc])))))
        words.update(chain.from_iterable(map(mul, map(token_terms, body), body.values())))
        text = shown_text.encode("utf-8", "surrogatepass")
        sig.frombytes(text)
        sig_length.append(len(text))
        index.append(i)
        factor.append(_kind_factor(kind) / _length_penalty(tag))
        # Copies: the same qualified name and kind with the same text (a generated or vendored
        # copy of a file) or in the same file (overloads).
        copy_key.append(_key(qualname, kind, own))
        own_key.append(_key(rel, qualname, kind))
        length.append(sum(words.values()))
        # The names of several words it uses, whole: not words of its text (length), but rows
        # (new keys: dict.update, as Counter.update would add them one by one).
        dict.update(words, {used[token]: n for token, n in body.items() if token in used})
        n_words.append(len(words))
        keys += map(word_bytes, words)
        count.extend(words.values())
    every = b"".join(keys)  # split into the bucket and word columns, native 16- and 32-bit numbers
    bucket, word = bytearray(len(every) // 3), bytearray(len(every) // 3 * 2)
    for i in range(2):
        bucket[i::2] = every[i::6]
    for i in range(4):
        word[i::4] = every[2 + i::6]
    columns[COLUMNS.index("bucket")], columns[COLUMNS.index("word")] = bucket, word
    return marshal.dumps(tuple(bytes(c) for c in columns))


def _kind_factor(kind: str) -> float:
    return PROSE if kind == "section" else DATA if kind in ("constant", "module") else 1.0


def _length_penalty(tag: Tag) -> float:
    """1 up to LONG lines, then one more for each doubling: a 3,200-line class is worth a
    sixth of its score, so the method that answers the query comes before it."""
    return 1.0 + max(0.0, math.log2((tag.end_line - tag.line + 1) / LONG))
