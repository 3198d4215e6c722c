"""A fragment loader for Simon Willison's `llm`: `llm -f repomap:PATH "question"` puts the
repository map of PATH into the prompt, with the repository's settings file honoured.
Parameters after `?`: `tokens=2048`, `query=task text`, `focus=a.py,b.py`."""

from __future__ import annotations

from urllib.parse import parse_qs

import llm

from .api import RepoMap
from .errors import RepoMapError

PARAMETERS = ("tokens", "query", "focus")


@llm.hookimpl
def register_fragment_loaders(register):
    register("repomap", load_map)


def load_map(argument: str) -> llm.Fragment:
    path, _, options = argument.partition("?")
    try:
        given = parse_qs(options, keep_blank_values=True, strict_parsing=bool(options))
        unknown = sorted(set(given) - set(PARAMETERS))
        if unknown:
            raise RepoMapError(f"unknown parameter {', '.join(unknown)} (known: {', '.join(PARAMETERS)})")
        tokens = _whole(given["tokens"][-1]) if "tokens" in given else None
        repo = RepoMap(path or ".", tokens=tokens, fmt="text")
        focus = [repo.focus_file(f) for value in given.get("focus", []) for f in value.split(",") if f]
        result = repo.build(query=given.get("query", [""])[-1], focus=focus)
    except (RepoMapError, ValueError) as exc:
        raise ValueError(f"repomap: {exc}") from None
    return llm.Fragment(result.text, source=f"repomap:{argument}")


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RepoMapError(f"tokens must be a whole number, not {text!r}") from None
