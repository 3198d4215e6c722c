"""Whole answers kept for a request on one state of the files: a map (in the index, or in
memory for a RepoMap that does not read stored maps) and a graph export (in the index)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from . import cache

if TYPE_CHECKING:
    from .ranking import Ranked

RANKED_KEY = "last-map-ranked"  # b"1" where the last map the index answered was ranked, not stored
# Maps a RepoMap that does not read the stored ones (build without `reuse`: a chat loop, the
# MCP server) keeps in memory instead, each under up to two keys (RepoMap.build): the map
# of files that did not change since, or changed only inside bodies, is not ranked or
# rendered again. By hand: the last few turns' maps.
KEPT_MAPS = 8


@dataclass
class MapResult:
    text: str
    tokens: int
    ranked_files: list[str]
    ranked: Sequence[Ranked]  # every definition, best first (made into Ranked as they are read)
    notes: dict[str, int] = field(default_factory=dict)  # files skipped or worth a word, by reason
    shown_files: list[str] = field(default_factory=list)  # the files the map shows, in its order
    ignored: dict[str, int] = field(default_factory=dict)  # files and folders each .gitignore rule hid


@dataclass(frozen=True)
class SavedMap:
    """A map as kept for the next same request."""

    text: str
    tokens: int
    files: list[str]  # every file, best first
    notes: dict[str, int]
    shown: list[str]
    ignored: dict[str, int]
    # the content hash of each file whose copies the map compared (Renderer.without_copies, .shows)
    compared: dict[str, str]

    def result(self, ranked: Sequence[Ranked] = ()) -> MapResult:
        return MapResult(self.text, self.tokens, list(self.files), ranked, dict(self.notes), list(self.shown),
                         dict(self.ignored))

    @classmethod
    def from_json(cls, stored: bytes) -> SavedMap | None:
        """The map stored, or None where it is not one after all (it is made again)."""
        try:
            saved = json.loads(stored)
            if all(isinstance(saved[name], kind) for name, kind in _SHAPES.items()):
                return cls(**{name: saved[name] for name in _SHAPES})
        except (ValueError, TypeError, KeyError):
            pass
        return None


_SHAPES = {"text": str, "tokens": int, "files": list, "notes": dict, "shown": list, "ignored": dict, "compared": dict}


def answer_key(kind: str, state: str, request: list) -> str:
    """Where a whole answer (a map, a graph export) to `request` on files in `state` is kept."""
    return f"{kind}:" + cache.content_hash(json.dumps([state, request]).encode())


class Answers:
    def __init__(self, store: cache.Store, digest: Callable[[str], str]):
        self.store = store
        self.digest = digest  # each file's content hash as tagged (Indexer.digest)
        self._maps: dict[str, SavedMap] = {}  # kept without `reuse`, by key, the last KEPT_MAPS

    def saved_map(self, state: str, request: list, reuse: bool, compared: bool = False) -> SavedMap | None:
        """The map kept for `request` on files in `state` (in the index with `reuse`, else in
        memory); with `compared`, only if the files whose copies it compared have the
        contents they had (after a refresh)."""
        where = answer_key("map", state, request)
        if reuse:
            stored = self.store.blob(where)
            saved = SavedMap.from_json(stored) if stored else None
        else:
            saved = self._maps.get(where)
        if saved is None or (compared and any(self.digest(p) != d for p, d in saved.compared.items())):
            return None
        return saved

    def save_map(self, saved: SavedMap, states: set[str], request: list, reuse: bool) -> None:
        for key in (answer_key("map", state, request) for state in states):
            if reuse:
                self.store.save_blob(key, json.dumps(dataclasses.asdict(saved)).encode())
            else:
                self._maps.pop(key, None)
                self._maps[key] = saved
                while len(self._maps) > KEPT_MAPS:
                    del self._maps[next(iter(self._maps))]

    def ranked_last(self) -> bool:
        """Whether the last map the index answered was ranked, not stored: the next one likely
        is too (an agent edits, then asks again)."""
        return self.store.blob(RANKED_KEY) == b"1"

    def note_ranked(self, before: bool, now: bool) -> None:
        """Note whether this map was ranked, storing it only when it changed."""
        if before != now:
            self.store.save_blob(RANKED_KEY, b"1" if now else b"0")

    def export(self, key: str) -> str | None:
        stored = self.store.blob(key)
        return stored.decode("utf-8") if stored else None

    def save_export(self, key: str, text: str) -> None:
        self.store.save_blob(key, text.encode("utf-8"))
