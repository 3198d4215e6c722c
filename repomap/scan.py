"""A scan: the tagged files of one look at the repository, with the digests that say which
stored answers and structures still hold for them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Mapping, NamedTuple

from . import cache, discover, mirrors, notebooks, paths
from .errors import Changed
from .fileset import Stamps
from .index import Indexer
from .payload import FileInfo
from .tags import Tag


@dataclass
class Scan:
    """The tagged files of one look at the repository; sources are read when first asked for."""

    infos: dict[str, FileInfo]
    sources: Sources
    notes: dict[str, int]
    state: str  # a digest of the files' contents
    links: str  # a digest of what the files define and reference: what the graph and names are made of
    views: str  # a digest of what a text or Markdown map can show of the files (signatures.view)
    evidence: str  # a digest of what picks the copy of two mirror folders, in `links` too (mirrors.Pairs)

    def defs(self) -> Mapping[str, list[Tag]]:
        """Each file's definitions, made into Tags only for the files that are read."""
        return _Defs(self.infos)


class _Defs(Mapping):
    def __init__(self, infos: dict[str, FileInfo]):
        self.infos = infos

    def __getitem__(self, rel: str) -> list[Tag]:
        return self.infos[rel].defs

    def __iter__(self):
        return iter(self.infos)

    def __len__(self) -> int:
        return len(self.infos)


class Sources(dict):
    """File sources by repository-relative path (bytes, or a notebook's source view as
    discover.read_source gives it), read on first use (b"" if gone meanwhile).
    With `digest` (each file's content hash as tagged), bytes that hash otherwise are not
    shown: an editor wrote the file after it was tagged, and its tags' lines and bytes would
    cut the other version's text. Changed then, and the call is made again (RepoMap)."""

    def __init__(self, root: Path, digest: Callable[[str], str] | None = None):
        super().__init__()
        self.root = root
        self.digest = digest

    def __missing__(self, rel: str) -> bytes:
        try:
            with open(paths.open_source(str(self.root / rel)), "rb") as file:  # never through a link
                data = notebooks.source_of(rel, file.read())
        except (OSError, ValueError):  # a notebook broken since it was tagged: as good as gone
            data = b""
        if data and self.digest is not None and cache.content_hash(data) != self.digest(rel):
            raise Changed(f"{rel} changed while it was read; try again")
        self[rel] = data
        return data


class _Digests(NamedTuple):
    """The digests of one refresh's files, made again only when a refresh changed them."""

    infos: dict[str, FileInfo]
    state: str
    links: str
    views: str
    pairs: mirrors.Pairs


class Covered(NamedTuple):
    """What the last scan took in, for a front end's summary: a Scan alone would keep the
    sources it read alive till the next."""

    files: Collection[str]  # the files tagged
    notes: dict[str, int]  # files skipped or worth a word, by reason


class Scanner:
    """Scans made of stamps: the index tags the files changed since (Indexer.refresh)."""

    def __init__(self, root: Path, indexer: Indexer):
        self.root = root
        self.indexer = indexer
        self._last: _Digests | None = None
        self.covered: Covered | None = None  # of the last scan

    def scan(self, stamps: Stamps, tally: discover.Tally, meanwhile: Callable[[], None] | None = None,
             count_terms: bool = True, tagged: dict[tuple, object] | None = None) -> Scan:
        """The files of `stamps`, tagged; `meanwhile` runs while workers tag, and `tagged` holds
        answers to tagging jobs made already (FileSet.forked_stamps)."""
        infos = self.indexer.refresh(stamps, tally, meanwhile, count_terms, tagged)
        if self._last is None or self._last.infos is not infos:  # a refresh that found nothing changed gives the same dict
            self._last = _Digests(infos, self.indexer.content_state(list(stamps)),
                                  *self.indexer.links_and_views(infos), mirrors.Pairs.of(infos))
        last = self._last
        evidence = last.pairs.evidence(self.root, self.indexer.digest)
        links = cache.content_hash(f"{last.links}\0{evidence}".encode()) if evidence else last.links
        self.covered = Covered(infos.keys(), tally.counts)
        return Scan(infos, Sources(self.root, self.indexer.digest), tally.counts, last.state, links, last.views,
                    evidence)
