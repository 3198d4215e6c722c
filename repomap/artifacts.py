"""Derived artifacts: the structures made from one state of the files (the graph's inputs,
the reference graph, its definitions as columns, the secondary files, the defined names and
a task's ranking), kept in memory while no file changes, else read from the index, else
made (from the last one of another state where an update can) and stored."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Generic, NamedTuple, TypeVar

from . import cache, discover, mirrors, words
from .scan import Scan

if TYPE_CHECKING:
    import numpy as np

    from .definitions import Definitions
    from .edges import Edges
    from .inputs import Inputs

T = TypeVar("T")


class Key(NamedTuple):
    """What an artifact is and which state of the files it was made of."""

    kind: str
    state: str

    def __str__(self) -> str:  # as the index stores it
        return f"{self.kind}:{self.state}"

    @classmethod
    def parse(cls, stored: str) -> Key:
        kind, _, state = stored.partition(":")
        return cls(kind, state)


class Codec(NamedTuple, Generic[T]):
    """How an artifact is stored: as numpy arrays, in a file of their own, read memory-mapped."""

    encode: Callable[[T], dict[str, np.ndarray]]
    decode: Callable[[dict], T]


class ArtifactCache:
    """One artifact of each kind in memory; those made stored by a thread of their own."""

    def __init__(self, store: cache.Store):
        self.store = store
        self._kept: dict[str, tuple[Key, object]] = {}  # by kind
        self._made: list[tuple[Key, dict]] = []  # made by this call, to store
        self._storing: threading.Thread | None = None  # the thread storing the last ones made

    def get(self, key: Key, build: Callable[[], T], codec: Codec[T] | None = None,
            update: Callable[[T, str], T | None] | None = None) -> T:
        """The artifact `key` names: kept, else stored, else made. With `update`, made by
        update(last, its state) from the last one of its kind, of another state (kept, else
        stored), unless that gives None; else by `build`. Stored artifacts (with a `codec`)
        are stored even where they were quick to make here: a later process would first have
        to read every file's tags for them (bench/RESULTS.md: artifacts.ArtifactCache)."""
        kept = self._kept.pop(key.kind, None)
        if kept is not None and kept[0] == key:
            self._kept[key.kind] = kept
            return kept[1]
        last = kept if update else None
        del kept  # let the old one go before the new one is made, unless it is made from it
        value = self._stored(key, codec)
        if value is None:
            last = last if last is not None or update is None else self._last_stored(key.kind, codec)
            value = update(last[1], last[0].state) if last is not None else None
            last = None
            value = value if value is not None else build()
            if codec:
                self._made.append((key, codec.encode(value)))
        self._kept[key.kind] = (key, value)
        return value

    def store_made(self) -> None:
        """Store the artifacts made since the last time, in a thread while the answer is
        finished and returned (bench/RESULTS.md: artifacts.ArtifactCache). Stored last made
        first, after those of earlier calls: each kind is made from the ones before it, and
        another process updates a kind from the one stored last with the inputs of that one's
        state, so it must never find the inputs newer than the graph (it would build the graph
        anew). The arrays are made read-only: nothing may change them while they are written
        (an update makes new arrays of the last ones)."""
        made, self._made = self._made[::-1], []
        if not made:
            return
        for _, arrays in made:
            for array in arrays.values():
                array.flags.writeable = False
        before = self._storing

        def store() -> None:
            if before is not None:
                before.join()
            for key, arrays in made:
                self.store.save_arrays(key.kind, arrays, str(key))

        from . import workers

        self._storing = workers.thread(target=store, name="repomap-store")
        self._storing.start()

    def join(self) -> None:
        """Wait till what was made is stored."""
        if self._storing is not None:
            self._storing.join()

    def _stored(self, key: Key, codec: Codec | None):
        stored = self.store.arrays(key.kind, str(key)) if codec else None
        return _decoded(key.kind, stored, codec)

    def _last_stored(self, kind: str, codec: Codec | None) -> tuple[Key, object] | None:
        """The artifact of `kind` stored last, and its key, or None."""
        stored = self.store.last_arrays(kind) if codec else None
        value = _decoded(kind, stored[1], codec) if stored is not None else None
        return (Key.parse(stored[0]), value) if value is not None else None


def _decoded(kind: str, stored: dict | None, codec: Codec | None):
    """The artifact of stored arrays; None where they are not of its shape (it is made again)."""
    try:
        return codec.decode(stored) if stored else None
    except (ValueError, KeyError, OSError, EOFError, TypeError):
        cache.damaged(kind)
        return None


class Artifacts:
    """The artifacts of a scan that rank it and search it, each made once per state of the
    files: inputs -> edges -> definitions, and the secondary files and defined names."""

    def __init__(self, root: Path, kept: ArtifactCache):
        self.root = root
        self.cache = kept
        self._replaced: tuple[Key, Inputs] | None = None  # the graph's last inputs, while its next is made
        self._evidence = ("", "")  # the graph state whose secondary files were found last, and its evidence

    def edges(self, scan: Scan) -> Edges:
        """The reference graph of what the files define and reference: after an edit, the last
        one with the rows of the names whose parts the changed files changed joined again."""
        from . import edges

        def update(last: Edges, state: str) -> Edges | None:
            after = self.inputs(scan)
            before = self._inputs_of(state)
            if before is None:
                return None
            return edges.updated_edges(last, before, after, self.secondary(scan, (last, before, after)), scan.links)

        return self.cache.get(Key("edges", scan.links),
                              lambda: edges.build_edges(self.inputs(scan), self.secondary(scan), scan.links),
                              Codec(edges.Edges.to_arrays, edges.Edges.from_arrays), update)

    def definitions(self, scan: Scan, edges: Edges) -> Definitions:
        """The graph's definitions as columns (made of what the files define, as the graph is):
        after an edit that changed no file's definitions' names, the last ones with the slots
        of the rows joined again. The graph's last inputs are let go here (it always follows
        `edges`), and the three are stored while the map is ranked and rendered."""
        from .definitions import Definitions

        def update(last: Definitions, state: str) -> Definitions | None:
            before = self._inputs_of(state)
            return None if before is None else last.updated(edges, before, self.inputs(scan))

        try:
            return self.cache.get(Key("definitions", scan.links), lambda: Definitions.of(edges, self.inputs(scan)),
                                  Codec(Definitions.to_arrays, Definitions.from_arrays), update)
        finally:
            self._replaced = None
            self.cache.store_made()

    def inputs(self, scan: Scan) -> Inputs:
        """What the graph and its definitions are made of: the last inputs (kept or stored, of
        any state) with the parts of the files changed since gathered again (an edit: the
        edited file's), else every file's part. The last ones are held (`_replaced`) till the
        graph is made from them."""
        from .inputs import Inputs

        def update(last: Inputs, state: str) -> Inputs:
            self._replaced = (Key("inputs", state), last)
            return last.spliced(scan.infos)

        return self.cache.get(Key("inputs", scan.links), lambda: Inputs.of(scan.infos, sorted(scan.infos)),
                              Codec(Inputs.to_arrays, Inputs.from_arrays), update)

    def _inputs_of(self, state: str) -> Inputs | None:
        """The graph's last inputs (`_replaced`), if they are those of `state`."""
        before = self._replaced
        return before[1] if before is not None and before[0] == Key("inputs", state) else None

    def graph_state(self, scan: Scan) -> str:
        """The state whose graph and definitions equal this scan's (Edges.links_digest)."""
        edges = self.edges(scan)
        self.definitions(scan, edges)  # made with the graph, as ever: the next process updates them
        return edges.links_digest

    def secondary(self, scan: Scan, since: tuple[Edges, Inputs, Inputs] | None = None) -> set[str]:
        """Tests, vendored and generated files by their names, and copies in mirror folders.
        Given the last graph and its inputs, and the inputs now (`edges` after an edit): the
        last graph's, where the files are the same and no file changed since has a twin in
        another top-level folder (the twins are what mirror_copies compares), and what picks
        the copy of two is as it was: finding them again is a pass over every file's names."""
        def made() -> set[str]:
            as_last = self._evidence[1] == scan.evidence \
                and (not scan.evidence or since is not None and self._evidence[0] == since[0].links_digest)
            self._evidence = (scan.links, scan.evidence)
            if since is not None and as_last:
                last, before, after = since
                files = after.files
                if last.files == before.files == files and not any(
                        mirrors.twinned(files[k], files) for k in (before.links != after.links).nonzero()[0].tolist()):
                    return {path for path, secondary in zip(files, last.secondary.tolist()) if secondary}
            files = list(scan.infos)
            return {f for f in files if discover.is_secondary(f)} | mirrors.mirror_copies(
                files, lambda path: scan.infos[path].names, mirrors.Evidence(self.root, files).source)

        return self.cache.get(Key("secondary", scan.links), made)

    def names(self, scan: Scan) -> words.Names:
        """The defined names of this state of the files, indexed by sub-word (kept while no
        file changes what it defines), counted from the graph's definitions: the files' own
        lists were every file's tags to read (bench/RESULTS.md: artifacts.Artifacts.names)."""
        def made() -> words.Names:
            edges = self.edges(scan)
            return words.Names.of(edges.files, self.definitions(scan, edges).defined(edges.files))

        return self.cache.get(Key("names", scan.links), made, Codec(words.Names.to_arrays, words.Names.from_arrays))
