"""The file set: which of the repository's files a map is made of, and each one's stamp
(size and change time), found by a listing (git's, else a walk), a watch, or a forked child."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Callable, Iterable

from . import discover, watch
from .config import Options
from .errors import RepoMapError
from .index import Indexer

Stamps = dict[str, tuple[int, int]]  # (size, change stamp) by repository-relative path


class FileSet:
    """The wanted files of one repository, looked at again on each call: from a RepoMap's
    second look on, only where its watch saw a change (watch.py)."""

    def __init__(self, root: Path, options: Options, indexer: Indexer):
        self.root = root
        self.options = options
        self.indexer = indexer
        walk = f"walk-{options.ignore}"  # the last walk, checked by a stat a folder on the next one
        self._walker = discover.Walker(lambda part: indexer.store.blob(f"{walk}-{part}"),
                                       lambda part, data: indexer.store.save_blob(f"{walk}-{part}", data))
        self._watch = watch.Watch(str(root))

    def close(self) -> None:
        self._watch.close()

    def stamps(self, other_files: Iterable[str] | None, extra: Iterable[str], tally: discover.Tally) -> Stamps:
        """The stamp of each wanted file: every one the repository lists, or (given
        `other_files`) those and `extra`."""
        if other_files is None:
            return self._watched_stamps(tally)
        return self._stamps_of(sorted({self.relative(p) for p in [*extra, *other_files]} - {None}), tally)

    def forked_stamps(self, tally: discover.Tally, count_terms: bool, meanwhile: Callable[[], None]
                      ) -> tuple[Stamps, dict[tuple, object]] | None:
        """Every file listed and stamped by a forked child, which then tags anew the few changed
        since the index last tagged them, while this process runs `meanwhile` (the imports
        ranking and rendering need: the last map was ranked, as an agent edits and then asks
        again): the stamps, and the child's answers to the tagging jobs (Indexer.pretagging).
        A thread could not stamp: each stat would wait for the GIL the imports hold; and a
        tagging worker would start only once the stamps are compared (bench/RESULTS.md:
        fileset.FileSet.forked_stamps). None where the child failed or cannot be forked cleanly."""
        from . import workers

        if not _forks_cleanly():
            return None
        walker, stored = self._walker.detached()
        self.indexer.read_stored()  # the child reads and stores nothing itself: the SQLite connection is ours

        def stamp() -> tuple[Stamps, discover.Tally, dict]:
            found = discover.Tally()
            return self._stamps_of(discover.list_files(self.root, found, self.options.ignore, walker), found), \
                found, stored

        answer = workers.forked(stamp, lambda stamped: self.indexer.pretagging(stamped[0], count_terms),
                                meanwhile, self.options.parse_timeout)
        if answer is None:
            return None
        (stamps, found, stored), tagged = answer
        tally.merge(found)
        self._walker.save(stored)
        return stamps, dict(tagged)

    def _watched_stamps(self, tally: discover.Tally) -> Stamps:
        """Every wanted file's stamp, looking only where the watch saw a change since the last
        look (watch.py): where nothing that decides the list changed, the files are not listed
        again (in a git work tree that is a run of git saved), and where those named are the
        last look's, only those stamped again. In a work tree every folder is walked too, for
        the watch: git lists files, and a file added to a folder no listed file is in (made
        empty since) must make an event."""
        events, last = self._watch.begin(), self._watch.last
        ignore = self.options.ignore
        tree = ignore and discover.in_work_tree(self.root)
        git = discover.git_folder(self.root) if tree else None
        if events is not None and last is not None and (git is not None or not tree) and events.listing_unchanged(git):
            files, listing = last.files, last.listing
        else:
            listing = discover.Tally()
            files = discover.list_files(self.root, listing, ignore, self._walker, events)
            if tree and self._watch.watching:
                self._walker.walk(self.root, discover.Tally(), ignore, events)
        tally.merge(listing)
        linked: set[str] = set()
        found = self._watch.restamped(events, files,
                                      lambda rels: self.indexer.stamps(rels, discover.Tally(), None, linked))
        if found is None:
            stamped = discover.Tally()
            since = (last.stamps, events) if events and last else None
            found = self._stamps_of(files, stamped, since, linked), stamped
        stamps, stamped = found
        tally.merge(stamped)
        self._watch.end(files, listing, stamps, stamped, self._walker.folders(), git, linked)
        return stamps

    def _stamps_of(self, candidates: list[str], tally: discover.Tally,
                   since: tuple[Stamps, watch.Events] | None = None, linked: set[str] | None = None) -> Stamps:
        options = self.options
        if options.include or options.exclude or options.hide_secondary:  # else every file is wanted: no call each
            candidates = [c for c in candidates if self._wanted(c)]
        return self.indexer.stamps(candidates, tally, since, linked)

    def _wanted(self, rel: str) -> bool:
        options = self.options
        if options.include and not any(discover.glob_match(rel, g) for g in options.include):
            return False
        if options.exclude and any(discover.glob_match(rel, g) for g in options.exclude):
            return False
        return not (options.hide_secondary and discover.is_secondary(rel))

    def focus_file(self, path: str | os.PathLike) -> str:
        """`path` (absolute, or relative to the root or the working folder) as the
        repository-relative path of a file in it; RepoMapError where it is outside the
        repository or names no file there."""
        rel = self.relative(path)
        if rel is None:
            raise RepoMapError(f"focus path outside the repository: {path}")
        if not (self.root / rel).is_file():
            raise RepoMapError(f"no such focus file: {path}")
        return rel

    def relative(self, path: str | os.PathLike) -> str | None:
        """A repository-relative path with /, or None if the path is outside the root."""
        candidate = Path(path)
        try:  # a path too long for the OS names no file
            if not candidate.is_absolute():
                in_root = self.root / candidate
                candidate = in_root if in_root.exists() or not Path(path).exists() else Path(path).resolve()
            return candidate.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None


def _forks_cleanly() -> bool:
    """Whether forked_stamps may fork: numpy not loaded yet (else the imports it overlaps are
    done), and no other thread (a fork copies no thread, and a lock one held would stay held
    in the child)."""
    return "numpy" not in sys.modules and threading.active_count() == 1
