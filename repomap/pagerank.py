"""Personalized PageRank over the file reference graph (edges.Edges), as networkx computes
it, on a walk made once per graph and stored with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .arrays import run_starts, within

if TYPE_CHECKING:
    from .edges import Edges


@dataclass
class Walk:
    """The transitions of PageRank over the files and one sink node (references to names
    defined nowhere here): each file's out-weights sum to 1. Per row of the graph (then one
    per file with references to the sink), for inflow; and per pair of files, parallel rows
    summed and grouped by target, for PageRank: a large graph has far fewer pairs than rows,
    and a sum per target over adjacent pairs is faster than a scattered one (bench/RESULTS.md:
    pagerank.Walk)."""

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
        make whole (bench/RESULTS.md: pagerank.Walk)."""
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


def inflow(walk: Walk, n_rows: int, file_rank: np.ndarray, target: np.ndarray, row_target: np.ndarray
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
