"""A fragment loader for Simon Willison's `llm`: `llm -f repomap:PATH "question"` puts the
repository map of PATH into the prompt. `repomap:PATH?tokens=2048` sets the budget."""

from __future__ import annotations

from urllib.parse import parse_qs

import llm

from .api import RepoMap
from .config import DEFAULTS
from .errors import RepoMapError


@llm.hookimpl
def register_fragment_loaders(register):
    register("repomap", load_map)


def load_map(argument: str) -> llm.Fragment:
    path, _, options = argument.partition("?")
    try:
        tokens = int(parse_qs(options).get("tokens", [DEFAULTS["tokens"]])[0])
        result = RepoMap(path or ".", tokens=tokens).build()
    except (RepoMapError, ValueError) as exc:
        raise ValueError(f"repomap: {exc}") from None
    return llm.Fragment(result.text, source=f"repomap:{argument}")
