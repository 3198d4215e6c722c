"""Rank files and definitions: personalized PageRank over the file reference graph (edges.py).

What steers it comes from the task: names the task mentions count more, and references
from the files in the chat much more; files search finds for the task's text lead. Rank
then flows along each edge to the definition it points at, so a definition's score says
how much the ranked files lean on it.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from .arrays import run_places, run_starts, within
from .definitions import documents
from .index import FileInfo
from .tags import Tag
from .weights import (FOCUS_EDGE, FOCUS_FILE, FOUND_FILE, FOUND_FILE_TOKENS, FOUND_FILES, FOUND_HIT_TOKENS,
                      FOUND_HITS, FOUND_LIFT, MATCHING_FILE, MENTIONED_FILE, MENTIONED_NAME, OWN_BASE, OWN_MATCH,
                      PROSE_FILE, SECONDARY_FILE)
from .words import mentions, stemmed_subwords

if TYPE_CHECKING:
    from .definitions import Definitions
    from .edges import Edges
    from .search import Hit
    from .words import Names


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
    map reads a few hundred of a kernel's three million."""

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
    received = _inflow(walk, len(edges.src), file_rank, every.target[kept], every.row_target)

    # What the task names counts as if referenced by its own file, whatever the graph says.
    own = np.where(mentioned, 1.0, OWN_BASE + OWN_MATCH * np.minimum(match, 1.0))
    score = (received + own * file_rank[in_file]) * (1.0 + match)
    score *= scale[in_file]
    score *= 1.0 + FOUND_LIFT * found[in_file]  # more of the found files' definitions
    return number, score, dict(zip(files, file_rank.tolist()))


@dataclass
class Walk:
    """The transitions of PageRank over the files and one sink node (references to names
    defined nowhere here): each file's out-weights sum to 1. Per row of the graph (then one
    per file with references to the sink), for ranking._inflow; and per pair of files, parallel rows
    summed and grouped by target, for PageRank: a large graph has far fewer pairs than rows,
    and a sum per target over adjacent pairs is faster than a scattered one (bench/RESULTS.md:
    ranking.Walk)."""

    rows: np.ndarray
    share: np.ndarray
    dangling: np.ndarray  # files without outgoing edges (and the sink): they hand rank out again
    pair_rows: np.ndarray  # per pair, its source
    pair_share: np.ndarray
    targets: np.ndarray  # the files (and sink) some pair points at, ascending
    target_starts: np.ndarray  # where each one's pairs start

    @classmethod
    def of(cls, n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, external: np.ndarray,
           pairs: np.ndarray) -> Walk:
        """Rows in (dst, src) order, and `pairs` where each (dst, src) run starts (Edges.pairs)."""
        sink = np.flatnonzero(external > 0).astype(np.int32)
        rows = np.concatenate([src.astype(np.int32, copy=False), sink])
        share = np.concatenate([weight, external[sink]])
        out = np.bincount(rows, weights=share, minlength=n + 1)
        share /= out[rows]
        starts = np.concatenate([pairs, np.arange(len(src), len(rows))])  # a sink row is a pair of its own
        pair_cols = np.concatenate([dst[pairs], np.full(len(sink), n, dtype=np.int32)])
        target_starts = run_starts(pair_cols)
        return cls(rows, share, out == 0, rows[starts], np.add.reduceat(share, starts), pair_cols[target_starts],
                   target_starts)

    def reweighted(self, edges: Edges, rows: np.ndarray, external: np.ndarray) -> Walk | None:
        """This walk, of a graph with `edges`' rows and pairs, whose rows numbered `rows` and
        files' mass to the sink (`external`, now edges.external) may have moved: the shares of
        the files whose rows moved made again (as Walk.of makes them, to the last bit), the
        others' kept. None where a file's sink row comes or goes (then it is made whole). A
        definition grown by an edit moves a few files' rows, and a large graph's walk is slow to
        make whole (bench/RESULTS.md: ranking.Walk)."""
        n, rows_n = len(edges.files), len(edges.src)
        sink = np.flatnonzero(edges.external > 0)
        if len(sink) != len(self.rows) - rows_n or not np.array_equal(sink, self.rows[rows_n:]):
            return None
        moved = np.zeros(n + 1, dtype=bool)
        moved[edges.src[rows]] = True
        moved[np.flatnonzero(edges.external != external)] = True
        at = np.flatnonzero(moved[self.rows])  # every row of those files, in order (sink rows last)
        source, inside = self.rows[at], at < rows_n
        weight = np.empty(len(at))
        weight[inside], weight[~inside] = edges.weight[at[inside]], edges.external[source[~inside]]
        out = np.bincount(source, weights=weight, minlength=n + 1)  # those files' sums, added in Walk.of's order
        share, pair_share, dangling = self.share.copy(), self.pair_share.copy(), self.dangling.copy()
        share[at] = weight / out[source]
        dangling[moved] = out[moved] == 0
        # A pair's rows are one file's and lie side by side: those of the files that moved, in `at`.
        pairs = np.flatnonzero(moved[self.pair_rows])
        starts = np.concatenate([edges.pairs, np.arange(rows_n, len(self.rows))])[pairs]
        pair_share[pairs] = np.add.reduceat(share[at], np.searchsorted(at, starts)) if len(pairs) else 0.0
        return Walk(self.rows, share, dangling, self.pair_rows, pair_share, self.targets, self.target_starts)

    def fits(self, n: int) -> bool:
        """Whether a stored walk over `n` files (and the sink) indexes only what is there."""
        return len(self.rows) == len(self.share) and len(self.dangling) == n + 1 \
            and len(self.pair_rows) == len(self.pair_share) and len(self.targets) == len(self.target_starts) \
            and within(self.rows, n + 1) and within(self.pair_rows, n + 1) and within(self.targets, n + 1) \
            and within(self.target_starts, len(self.pair_rows))


def _inflow(walk: Walk, n_rows: int, file_rank: np.ndarray, target: np.ndarray, row_target: np.ndarray
            ) -> np.ndarray:
    """Rank that flows into each definition's slot (Definitions.target) along the first
    `n_rows` rows of the walk (the graph's; the sink's follow), summed in numpy (tens of
    millions of rows would not fit in memory as Python objects)."""
    flow = file_rank[walk.rows[:n_rows]] * walk.share[:n_rows]
    inflow = np.bincount(row_target, weights=flow, minlength=int(target.max(initial=1)) + 1)
    inflow[:2] = 0.0
    return inflow[target]


def pagerank(walk: Walk, personal: np.ndarray, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100
             ) -> np.ndarray:
    """Personalized PageRank by power iteration, as networkx computes it: the sink and files
    without outgoing edges hand their rank out again by the personalization vector. Returns
    the files' ranks (the sink's share left out)."""
    n = len(personal)
    if n == 0:
        return np.zeros(0)
    p = np.append(personal, 0.0) / personal.sum()
    x = p.copy()
    moved = np.empty(len(walk.pair_rows))  # one buffer for every iteration: the graph may be large
    spread = np.zeros(n + 1)
    for _ in range(max_iter):
        previous = x
        np.take(previous, walk.pair_rows, out=moved, mode="clip")  # in range; "raise" would copy through a buffer
        moved *= walk.pair_share
        spread[walk.targets] = np.add.reduceat(moved, walk.target_starts)
        x = alpha * (spread + previous[walk.dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - previous).sum() < (n + 1) * tol:
            break
    return x[:n]


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

