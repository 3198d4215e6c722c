"""What can go wrong that the user can act on. Each error knows the exit status the CLI
gives it and prints itself as the CLI shows it:

    RepoMapError      bad input: a path, a budget, a template, a setting (exit 2)
    ├── ConfigError   a settings file that cannot be used (exit 2)
    ├── Refused       a path or ID that points outside the repository (exit 2)
    ├── NotFound      no such definition, or more than one; `candidates` are IDs to try (exit 1)
    └── Changed       files kept changing while a call read them (exit 1; each call is
                      made again a few times first: RepoMap)

Anything else is a bug in repomap: the CLI says "internal error" and exits 1. What repomap
works around (a damaged cache, a broken query) is a warning: `warn` prints it once.
"""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from typing import Iterator


WIDTH = 300  # characters of a message at most: a 10,000-character path must not fill the screen


class RepoMapError(Exception):
    """One line for the user; what it quotes (paths, names) is escaped and cut to WIDTH."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__(clipped(message))

    def show(self) -> None:
        print(f"repomap: error: {self}", file=sys.stderr)


def clipped(text: str) -> str:
    """Text a message quotes (paths, IDs), on one line and at most WIDTH characters."""
    text = visible(text)
    return text if len(text) <= WIDTH else text[:WIDTH] + "…"


# Control characters but the tab, line and paragraph separators, and lone surrogates (which no
# terminal can be sent). A file's name and its source's lines may hold any of them.
_UNSEEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SHORT = {"\n": "\\n", "\r": "\\r"}


def visible(text: str) -> str:
    """Text as printed: each character of _UNSEEN as a backslash escape (`\\n`, `\\x1b`,
    `\\u2028`), so that a name from the repository can neither start a line that poses as a
    map's own nor drive the terminal that shows it. Any other text is returned as it is.
    Past the C0 controls the escapes are `\\u`, JSON's own: JSON text stays valid and means
    the same (json.dumps escapes the C0 controls itself)."""
    return _UNSEEN.sub(_escape, text)


def json_text(value, indent: int | None = None) -> str:
    """JSON as repomap prints it: the same data, with no character of _UNSEEN left raw.
    json.dumps escapes the C0 controls inside strings, so its only line breaks are its indent's."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return visible(text) if indent is None else "\n".join(map(visible, text.split("\n")))


def _escape(match: re.Match) -> str:
    char = match.group()
    return _SHORT.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x20 else f"\\u{ord(char):04x}")


class ConfigError(RepoMapError):
    pass


class Refused(RepoMapError):
    pass


class NotFound(RepoMapError):
    exit_code = 1

    def __init__(self, message: str, candidates: list[str]):
        super().__init__(message)
        self.candidates = candidates

    def show(self) -> None:
        print(f"repomap: {self}", file=sys.stderr)
        for candidate in self.candidates:
            print(f"  {candidate}", file=sys.stderr)


class Changed(RepoMapError):
    """A file changed on disk, and another process stored its new tags, after this call's
    scan and before the call read them: what the call ranked no longer matches them."""

    exit_code = 1


_warned: set[str] = set()
_deferred: list[str] | None = None


def warn(message: str) -> None:
    """One line on stderr, once per process: in a worker's setup, deferred to its parent (`deferred_warnings`)."""
    if _deferred is not None:
        _deferred.append(message)
    elif message not in _warned:
        _warned.add(message)
        print(f"repomap: warning: {message}", file=sys.stderr)


def forget_warnings() -> None:
    """Warn again of what was warned of already, as a fresh process would: for a host that runs
    one command after another in one process (the tests run the CLI so) and shows each the
    warnings a command of its own would get."""
    _warned.clear()


@contextmanager
def deferred_warnings() -> Iterator[list[str]]:
    """The warnings given inside, kept for the caller to pass on instead of printed: each
    worker loads the same parsers, and a broken query must warn once, not once per worker."""
    global _deferred
    _deferred = []
    try:
        yield _deferred
    finally:
        _deferred = None
