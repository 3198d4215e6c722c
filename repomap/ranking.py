"""Rank files and definitions: personalized PageRank over the file reference graph (edges.py).

What steers it comes from the task: names the task mentions count more, and references
from the files in the chat much more; files search finds for the task's text lead. Rank
then flows along each edge to the definition it points at, so a definition's score says
how much the ranked files lean on it.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from . import cache
from .artifacts import Codec, Key
from .arrays import run_places, within
from .definitions import documents
from .pagerank import Walk, inflow, pagerank
from .payload import FileInfo
from .tags import Tag
from .weights import (FOCUS_EDGE, FOCUS_FILE, FOUND_FILE, FOUND_FILE_TOKENS, FOUND_FILES, FOUND_HIT_TOKENS,
                      FOUND_HITS, FOUND_LIFT, MATCHING_FILE, MENTIONED_FILE, MENTIONED_NAME, OWN_BASE, OWN_MATCH,
                      PROSE_FILE, SECONDARY_FILE)
from .words import Names, mentions, stemmed_subwords, task_text

if TYPE_CHECKING:
    from .artifacts import Artifacts
    from .definitions import Definitions
    from .edges import Edges
    from .scan import Scan
    from .search import Hit
    from .search_index import SearchIndex


@dataclass
class Signals:
    """What steers the ranking: files in the chat, what the task names, and query words."""

    focus: set[str] = field(default_factory=set)
    mentioned_files: set[str] = field(default_factory=set)
    mentioned_idents: set[str] = field(default_factory=set)
    terms: dict[str, float] = field(default_factory=dict)  # query sub-word -> weight
    sharing: set[str] = field(default_factory=set)  # defined names with a sub-word in terms
    secondary: set[str] = field(default_factory=set)  # tests, vendored, generated
    found: list[str] = field(default_factory=list)  # named files, then what search finds for the task
    found_defs: list[tuple[str, str]] = field(default_factory=list)  # (path, ID) of what search finds, best first


def task_signals(names: Names, focus: set[str], mention_files: list[str], mentioned_paths: set[str],
                 mention_idents: Iterable[str], query: str, secondary: set[str]) -> Signals:
    """What steers the ranking for a task: the files in the chat (`focus`), the files the
    task mentions (as written, and those that name a file as repository paths) and the
    identifiers, and the files, identifiers and sub-words of defined `names` its text names."""
    named = mentions(" ".join(mention_files), names)
    asked = mentions(query, names)
    return Signals(
        focus=focus,
        mentioned_files=named.files | asked.files | mentioned_paths,
        mentioned_idents=set(mention_idents) | asked.idents,
        terms=asked.terms,
        sharing=names.sharing(asked.terms),
        secondary=secondary,
    )


def searched(budget: int) -> int:
    """How many hits search is asked for to guide a map of `budget` tokens: four for each
    file it may lead with (one per FOUND_FILE_TOKENS, at least FOUND_FILES)."""
    return 4 * _found_files(budget)


def guided(signals: Signals, hits: Sequence[Hit], budget: int) -> Signals:
    """The signals with what search finds for the task's text (`hits`, best first): the files
    the task names lead, then the files of the hits (one per FOUND_FILE_TOKENS of the map's
    `budget`, at least FOUND_FILES), and its best definitions (one per FOUND_HIT_TOKENS, at
    least FOUND_HITS)."""
    found = [*sorted(signals.mentioned_files), *(hit.tag.path for hit in hits)]
    answers = max(FOUND_HITS, budget // FOUND_HIT_TOKENS)
    return replace(signals, found=list(dict.fromkeys(found))[:max(_found_files(budget), len(signals.mentioned_files))],
                   found_defs=[(hit.tag.path, hit.tag.id) for hit in hits[:answers]])


def _found_files(budget: int) -> int:
    """How many of search's files a map of `budget` tokens may lead with."""
    return max(FOUND_FILES, budget // FOUND_FILE_TOKENS)


@dataclass(slots=True)
class Ranked:
    score: float
    tag: Tag


class RankedList(Sequence):
    """Definitions best first, made into Ranked (and their files' Tags) only when read: a
    map reads a few hundred of a large repository's millions."""

    def __init__(self, score: np.ndarray, number: np.ndarray, every: Definitions, edges: Edges,
                 infos: dict[str, FileInfo]):
        self.score, self.number = score, number  # per place: the score and the definition's number
        self.every, self.edges, self.infos = every, edges, infos
        self.file = every.file[number]  # per place: the file's number in `paths`
        self.paths = edges.files

    def __len__(self) -> int:
        return len(self.number)

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        return Ranked(float(self.score[at]), self.every.tag(int(self.number[at]), self.edges, self.infos))

    def reordered(self, places: np.ndarray) -> RankedList:
        """The same definitions in the order of these places (some may be left out)."""
        return RankedList(self.score[places], self.number[places], self.every, self.edges, self.infos)

    def place(self) -> np.ndarray:
        """Per place, how many of its file's definitions rank above it."""
        by_file = np.argsort(self.file, kind="stable")
        place = np.empty(len(self.file), dtype=np.int64)
        place[by_file] = run_places(self.file[by_file])
        return place

    def to_arrays(self, file_rank: dict[str, float]) -> dict[str, np.ndarray]:
        """This ranking and each file's PageRank (`file_rank`) as numbers, to keep and store."""
        return {"score": self.score, "number": self.number,
                "file_rank": np.array([file_rank[path] for path in self.paths], dtype=np.float64)}

    @staticmethod
    def checked(arrays: dict[str, np.ndarray], every: Definitions, edges: Edges) -> dict[str, np.ndarray]:
        """Stored to_arrays, checked as far as what they index with (ValueError if damaged)."""
        if not (len(arrays["score"]) == len(arrays["number"]) and len(arrays["file_rank"]) == len(edges.files)
                and within(arrays["number"], len(every.file))
                and np.bincount(arrays["number"], minlength=1).max() <= 1):  # each definition once at most
            raise ValueError("stored ranking damaged")
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], every: Definitions, edges: Edges,
                    infos: dict[str, FileInfo]) -> tuple[RankedList, dict[str, float]]:
        """The ranking to_arrays gave, of these files' definitions, and each file's PageRank."""
        return (cls(arrays["score"], arrays["number"], every, edges, infos),
                dict(zip(edges.files, arrays["file_rank"].tolist())))

    def files(self) -> list[str]:
        """The files, by their best definition."""
        _, first = np.unique(self.file, return_index=True)
        return [self.paths[f] for f in self.file[np.sort(first)].tolist()]


def rank(infos: dict[str, FileInfo], signals: Signals, edges: Edges, every: Definitions
         ) -> tuple[RankedList, dict[str, float]]:
    """Definitions best first (focus files left out; ties in path order, then the file's
    order) and each file's PageRank, on the graph `edges` of `infos` and its definitions."""
    number, score, file_rank = scores(signals, edges, every)
    order = np.lexsort((number, -score))
    ranked = RankedList(score[order], number[order], every, edges, infos)
    return _found_first(ranked, signals.found, signals.found_defs), file_rank


def _found_first(ranked: RankedList, found: list[str], found_defs: list[tuple[str, str]]) -> RankedList:
    """The best definition of each file search finds for the task comes first, in search's
    order, so the map holds those files whatever else outscores them (weights.FOUND_LIFT);
    then the definitions search finds (`found_defs`), in its order, as the answer is likelier
    among them than among the graph's best of the same files (weights.FOUND_HITS)."""
    if not found:
        return ranked
    at = {path: k for k, path in enumerate(ranked.paths)}
    lead = [np.flatnonzero(ranked.file == at[path])[:1] for path in found if path in at]
    place: dict[str, int] = {}  # ID -> place, of the files that hold a found definition
    for path in dict.fromkeys(path for path, _ in found_defs):
        if path in at:
            place.update((ranked[p].tag.id, p) for p in np.flatnonzero(ranked.file == at[path]).tolist())
    lead += [np.array([place[identity]]) for _, identity in found_defs if identity in place]
    first = np.concatenate(lead) if lead else np.zeros(0, dtype=np.int64)
    first = first[np.sort(np.unique(first, return_index=True)[1])]  # each once, where it first leads
    rest = np.ones(len(ranked), dtype=bool)
    rest[first] = False
    return ranked.reordered(np.concatenate([first, np.flatnonzero(rest)]))


def scores(signals: Signals, edges: Edges, every: Definitions) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """Every definition's number (focus files left out, so in Definitions' order) with its
    score; and each file's PageRank."""
    files, n = edges.files, len(edges.files)
    weight = edges.weight.copy() if signals.mentioned_idents or signals.focus else edges.weight
    if signals.mentioned_idents:
        mentioned = []
        for name in signals.mentioned_idents:
            i = bisect_left(edges.names, name)  # names are sorted
            if i < len(edges.names) and edges.names[i] == name:
                mentioned.append(i)
        weight[np.isin(edges.name, mentioned)] *= MENTIONED_NAME
    # Per file: what the task and the chat say of it, and how much a secondary file counts.
    in_focus, named, secondary = (np.fromiter(map(paths.__contains__, files), dtype=bool, count=n)
                                  for paths in (signals.focus, signals.mentioned_files, signals.secondary))
    scale = np.where(secondary, SECONDARY_FILE, np.where(documents(tuple(files)), PROSE_FILE, 1.0))
    scale[named] = np.maximum(scale[named], 1.0)  # a document the task names counts in full
    if signals.focus:
        weight[in_focus[edges.src]] *= FOCUS_EDGE

    # Only the names the task mentions or that share a sub-word with it can match.
    match = np.zeros(len(every.file))
    mentioned = named[every.file]
    if signals.terms or signals.mentioned_idents:
        by_name = np.zeros(len(every.names))
        for name in (signals.sharing | signals.mentioned_idents) & every.names.keys():
            by_name[every.names[name]] = _match(name, signals)
        match = by_name[every.name]
        mentioned |= np.isin(every.name, [every.names[n] for n in signals.mentioned_idents if n in every.names])
    found = np.zeros(n)
    at = {path: i for i, path in enumerate(files)} if signals.found else {}
    for place, path in enumerate(signals.found):
        if path in at:
            found[at[path]] = 1.0 / (place + 1)
    personal = _personalization(scale, in_focus, named, every, match, found)
    walk = edges.walk if weight is edges.weight else \
        Walk.of(n, edges.src, edges.dst, weight, edges.external, edges.pairs)
    file_rank = pagerank(walk, personal)
    kept = ~in_focus[every.file]
    number = np.flatnonzero(kept)
    in_file, match, mentioned = every.file[kept], match[kept], mentioned[kept]
    received = inflow(walk, len(edges.src), file_rank, every.target[kept], every.row_target)

    # What the task names counts as if referenced by its own file, whatever the graph says.
    own = np.where(mentioned, 1.0, OWN_BASE + OWN_MATCH * np.minimum(match, 1.0))
    score = (received + own * file_rank[in_file]) * (1.0 + match)
    score *= scale[in_file]
    score *= 1.0 + FOUND_LIFT * found[in_file]  # more of the found files' definitions
    return number, score, dict(zip(files, file_rank.tolist()))


def _match(name: str, signals: Signals) -> float:
    """How strongly the task points at a definition name: exact mention, else shared sub-words."""
    if name in signals.mentioned_idents:
        return MENTIONED_NAME
    if not signals.terms:
        return 0.0
    parts = stemmed_subwords(name)
    if not parts:
        return 0.0
    return sum(signals.terms.get(p, 0.0) for p in parts) / math.sqrt(len(parts))


def _personalization(scale: np.ndarray, in_focus: np.ndarray, named: np.ndarray, every: Definitions,
                     match: np.ndarray, found: np.ndarray) -> np.ndarray:
    """Every file a little (secondary ones less); chat and mentioned files, files whose
    definitions match the task (`match`: per definition) and the files search finds for it
    (`found`: 1/place per file), much more."""
    personal = scale.copy()
    personal += FOCUS_FILE * in_focus
    personal += MENTIONED_FILE * named
    personal += FOUND_FILE * found
    best = np.zeros(len(scale))
    np.maximum.at(best, every.file, match)
    return personal + MATCHING_FILE * best



class Ranker:
    """The ranking of a scan for a task, made of its reference graph, its definitions and the
    task's signals; kept (and stored) per task while the graph and its definitions are those
    of the same state (Edges.links_digest), so an edit that changes neither ranks nothing
    (bench/RESULTS.md: ranking.Ranker). With a task text it is kept only in memory while no
    file changes at all (search steers it): the stored map answers the same request on the
    same files, and a large repository's ranking is much to write."""

    def __init__(self, artifacts: Artifacts, search_index: SearchIndex, relative: Callable[[str], str | None],
                 tokens: int):
        self.artifacts = artifacts
        self.search_index = search_index
        self.relative = relative  # a path as the repository-relative one, or None (FileSet.relative)
        self.tokens = tokens  # the budget a task text is searched for where none is given

    def rank(self, scan: Scan, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
             mention_idents: Iterable[str] = (), query: str = "", budget: int | None = None
             ) -> tuple[RankedList, dict[str, float]]:
        """The ranking for a task, and each file's PageRank."""
        focus, mention_files, mention_idents = list(focus), list(mention_files), sorted(mention_idents)
        asked = query.strip() != ""
        edges = self.artifacts.edges(scan)
        every = self.artifacts.definitions(scan, edges)
        task = [scan.state if asked else edges.links_digest, sorted(filter(None, map(self.relative, focus))),
                sorted((str(m), self.relative(m) or "") for m in mention_files),  # a mention may be a basename
                mention_idents, query, (budget or self.tokens) if asked else None]
        codec = None if asked else Codec(dict, lambda arrays: RankedList.checked(arrays, every, edges))
        arrays = self.artifacts.cache.get(  # numbers only: the Tags come from this scan's files
            Key("ranking", cache.content_hash(json.dumps(task).encode())),
            lambda: RankedList.to_arrays(*rank(scan.infos, *self.signals(
                scan, focus, mention_files, mention_idents, query, budget=budget))), codec)
        return RankedList.from_arrays(arrays, every, edges, scan.infos)

    def signals(self, scan: Scan, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
                mention_idents: Iterable[str] = (), query: str = "", by_search: bool = True,
                budget: int | None = None) -> tuple[Signals, Edges, Definitions]:
        """What steers the ranking for a task, the reference graph it runs on and the files'
        definitions as columns. With a query (and `by_search`), what search finds for it too
        (`guided`)."""
        mention_files, query = list(mention_files), task_text(query)
        if query.strip():  # search postings first: a build and the ranking's state are each large
            self.search_index.base(scan)
        names = self.artifacts.names(scan) if query.strip() or mention_files else Names.of([], {})
        signals = task_signals(
            names, {r for r in map(self.relative, focus) if r in scan.infos}, mention_files,
            {r for r in map(self.relative, mention_files) if r}, mention_idents, query,
            self.artifacts.secondary(scan))
        edges = self.artifacts.edges(scan)
        every = self.artifacts.definitions(scan, edges)
        if by_search and query.strip():
            budget = budget or self.tokens
            hits = self.hits(scan, query, (signals, edges, every), searched(budget))
            signals = guided(signals, hits, budget)
        return signals, edges, every

    def hits(self, scan: Scan, query: str, signalled: tuple[Signals, Edges, Definitions], limit: int,
             keep: Callable[[Tag], bool] | None = None) -> list[Hit]:
        """BM25 over the postings with the map's scores for the task (not guided by search) as prior."""
        _, prior, _ = scores(*signalled)
        try:
            return self.search_index.postings(scan, *signalled[1:]).search(query, prior, limit, keep)
        except ValueError:  # stored postings damaged past what reading them checks: built again
            cache.damaged("postings")
            self.search_index.forget()
            return self.search_index.postings(scan, *signalled[1:], stored=False).search(query, prior, limit, keep)
