"""The search index of a repository: the stored search postings, with the files changed
since laid over them (search.Overlay), built anew and stored once too many files changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import numpy as np

from . import cache, memory
from .artifacts import Artifacts
from .index import Indexer
from .scan import Scan
from .search import Overlay, Postings

if TYPE_CHECKING:
    from .definitions import Definitions
    from .edges import Edges

# Search postings are built anew (and stored) once more than this share of the files changed
# since the stored ones; until then each process builds postings of the changed files only,
# which costs it up to that share of a full build on its first search. A round number, not
# tuned: after an edit, a search costs well under a tenth of a full build either way.
REBUILD_SHARE = 0.1


class SearchIndex:
    def __init__(self, indexer: Indexer, artifacts: Artifacts):
        self.indexer = indexer
        self.artifacts = artifacts
        self._base: Postings | None = None  # the stored postings, read on the first search
        self._overlay: tuple[str, Overlay] | None = None  # the last state's postings, and that state
        self._live: tuple[tuple, tuple] | None = None  # Postings.live of the last postings, files and state

    def postings(self, scan: Scan, edges: Edges, every: Definitions, stored: bool = True) -> Overlay:
        """The search postings of this state of the files: the stored ones (`base`), with the
        files changed since put in place of their stored versions (read, with only those
        files' terms, once per state). Not the `stored` ones where they were found damaged."""
        if self._overlay is not None and self._overlay[0] == scan.state:
            return self._overlay[1]
        self._overlay = None
        secondary = self.artifacts.secondary(scan)
        base = self.base(scan, stored)
        # By path, not position: the index hands out terms in any order.
        place, changed = self._changed(base, scan, edges.files, secondary)
        if len(changed) > REBUILD_SHARE * len(edges.files):
            base = self._build(edges.files, secondary)
            place, changed = self._changed(base, scan, edges.files, secondary)
        number = {rel: f for f, rel in enumerate(edges.files)}
        parts = [(base, place)]
        if changed:
            delta = Postings.build(self._documents(changed, secondary), linked=base)
            parts.append((delta, np.array([number[rel] for rel in delta.paths], dtype=np.int64)))
        overlay = Overlay(parts, edges.files, every, lambda k: every.tag(k, edges, scan.infos))
        self._overlay = (scan.state, overlay)
        return overlay

    def base(self, scan: Scan, stored: bool = True) -> Postings:
        """The search postings this RepoMap read or built: the stored ones, built anew when
        none are stored (or `stored` is false: they were found damaged) or when more than
        REBUILD_SHARE of the files changed since. A search makes sure of them before ranking
        loads its state, so the two are not in memory at once (bench/RESULTS.md:
        search_index.SearchIndex.base)."""
        if self._base is None:
            if stored and (arrays := self.indexer.store.arrays("postings")) is not None:
                try:
                    self._base = Postings(arrays)
                except (ValueError, KeyError, IndexError):
                    cache.damaged("postings")
                    self._base = None
            files, secondary = sorted(scan.infos), self.artifacts.secondary(scan)
            if self._base is None or len(self._changed(self._base, scan, files, secondary)[1]) \
                    > REBUILD_SHARE * len(files):
                self._build(files, secondary)
        return self._base

    def forget(self) -> None:
        """Let go of the postings read: they were found damaged past what reading them checks."""
        self._base = None
        self._overlay = None

    def _changed(self, base: Postings, scan: Scan, files: list[str], secondary: set[str]) -> tuple:
        """base.live(files, ...), once per postings and state of the files: `base` and
        `postings` both ask it of a first search, and it is a pass over every file."""
        asked = (base, scan.state, files)
        if self._live is None or self._live[0] != asked:
            self._live = (asked, base.live(files, self.indexer.digest, secondary))
        return self._live[1]

    def _build(self, files: list[str], secondary: set[str]) -> Postings:
        """Postings of these files, stored and read back memory-mapped, so the build's memory
        is let go (and given back: memory.py)."""
        self._base = Postings.build(self._documents(files, secondary))
        self.indexer.store.save_arrays("postings", self._base.arrays)
        if (arrays := self.indexer.store.arrays("postings")) is not None:
            self._base = Postings(arrays)
        memory.give_back()
        return self._base

    def _documents(self, rels: list[str], secondary: set[str]) -> Iterator[tuple[str, str, bool, bytes]]:
        """(path, content hash, secondary, search terms) of these files, for Postings.build."""
        for rel, digest, terms in self.indexer.terms(rels):
            yield rel, digest, rel in secondary, terms
