"""Rank files and definitions: personalized PageRank over the file reference graph.

A reference in file A to a name that file B defines is an edge A -> B. Parallel
references are summed (square-rooted, so one chatty file cannot dominate);
a name many files define is split between them and counts less; private names
count less; names the task mentions count more, and references from the files
in the chat much more. Rank then flows along each edge to the definition it
points at, so a definition's score says how much the ranked files lean on it.
"""

from __future__ import annotations

import io
import json
import math
from array import array
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .index import FileInfo
from .tags import Tag, family_for
from .words import stemmed_subwords

FOCUS_EDGE = 50.0
# A call of `get` may mean any type's `get` method, and `x.lower()` rarely means a
# module's function `lower` when most files call `.lower()`; `Func()` is specific.
METHOD_CALL = 0.1
MENTIONED_NAME = 10.0
OWN_MATCH = 0.5
PRIVATE_NAME = 0.1
COMMON_NAME_FILES = 5
SECONDARY = 0.1


@dataclass
class Signals:
    """What steers the ranking: files in the chat, what the task names, and query words."""

    focus: set[str] = field(default_factory=set)
    mentioned_files: set[str] = field(default_factory=set)
    mentioned_idents: set[str] = field(default_factory=set)
    terms: dict[str, float] = field(default_factory=dict)  # query sub-word -> weight
    secondary: set[str] = field(default_factory=set)  # tests, vendored, generated


@dataclass(frozen=True)
class Ranked:
    score: float
    tag: Tag


@dataclass
class Edges:
    """The reference graph before a task's signals: one row per (source file, target file, name).

    It depends only on the files' tags, so a chat loop builds it once and reuses it while
    no file changes; a task's mentions and focus files only rescale rows.
    """

    files: list[str]
    names: list[str]
    src: np.ndarray  # file index
    dst: np.ndarray  # file index
    name: np.ndarray  # index into names
    weight: np.ndarray
    external: np.ndarray  # per file: reference mass to names defined nowhere here

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, src=self.src, dst=self.dst, name=self.name, weight=self.weight, external=self.external,
                 text=np.frombuffer(json.dumps([self.files, self.names]).encode(), dtype=np.uint8))
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Edges:
        arrays = np.load(io.BytesIO(data), allow_pickle=False)
        files, names = json.loads(arrays["text"].tobytes())
        return cls(files, names, arrays["src"], arrays["dst"], arrays["name"], arrays["weight"], arrays["external"])


def build_edges(infos: dict[str, FileInfo], secondary: set[str]) -> Edges:
    files = sorted(infos)
    index = {path: i for i, path in enumerate(files)}
    definers: dict[str, list[int]] = defaultdict(list)
    only_methods: set[tuple[int, str]] = set()  # (file, name) where every definition is a method
    # name -> [(file, (imports, type uses and inheritance; plain calls; calls on a receiver))]
    ref_counts: dict[str, list[tuple[int, tuple[int, int, int]]]] = defaultdict(list)
    for i, path in enumerate(files):
        kinds: dict[str, set[str]] = defaultdict(set)
        for tag in infos[path].defs:
            if not tag.local:
                kinds[tag.name].add(tag.kind)
        for name, k in kinds.items():
            definers[name].append(i)
            if k == {"method"}:
                only_methods.add((i, name))
        for name, uses, calls, members in infos[path].refs():
            ref_counts[name].append((i, (uses, calls, members)))

    family = [family_for(path) for path in files]
    is_secondary = [path in secondary for path in files]
    # arrays, not lists: a kernel-sized graph has tens of millions of rows
    names: list[str] = []
    src, dst, name_ids, weights = array("q"), array("q"), array("q"), array("d")
    external = np.zeros(len(files))
    n_files = len(files)
    for name in sorted(ref_counts):
        by_file = ref_counts[name]
        owners_all = definers.get(name, [])
        method_rarity = METHOD_CALL * _rarity(len(by_file), n_files)
        member_rarity = _rarity(sum(1 for _, c in by_file if c[2]), n_files)
        name_factor = _name_weight(name, len(owners_all))
        name_id = len(names)
        names.append(name)
        for s, (uses, calls, members) in by_file:
            owners = [d for d in owners_all if d != s and family[d] == family[s]]
            total = uses + calls + members
            mass = math.sqrt(total)
            if not owners:
                external[s] += mass
                continue
            base = name_factor * mass / len(owners)
            resolved = 0.0
            for d in owners:
                if (d, name) in only_methods:  # nothing but a call on the right receiver reaches it
                    weight = base * method_rarity
                else:
                    weight = base * (uses + calls + members * member_rarity) / total
                resolved += weight
                src.append(s)
                dst.append(d)
                name_ids.append(name_id)
                weights.append(weight * (SECONDARY if is_secondary[d] else 1.0))
            external[s] += max(0.0, mass - resolved)
    return Edges(files, names, np.frombuffer(src, dtype=np.int64), np.frombuffer(dst, dtype=np.int64),
                 np.frombuffer(name_ids, dtype=np.int64), np.frombuffer(weights, dtype=np.float64), external)


def rank(infos: dict[str, FileInfo], signals: Signals, edges: Edges | None = None
         ) -> tuple[list[Ranked], dict[str, float]]:
    """Definitions best first (focus files left out) and each file's PageRank."""
    edges = edges or build_edges(infos, signals.secondary)
    files, n = edges.files, len(edges.files)
    weight = edges.weight.copy()
    if signals.mentioned_idents:
        mentioned = [i for i, name in enumerate(edges.names) if name in signals.mentioned_idents]
        weight[np.isin(edges.name, mentioned)] *= MENTIONED_NAME
    if signals.focus:
        focus = [i for i, path in enumerate(files) if path in signals.focus]
        weight[np.isin(edges.src, focus)] *= FOCUS_EDGE

    personal = _personalization(files, infos, signals)
    file_rank = pagerank(n, edges.src, edges.dst, weight, edges.external, personal)
    out = np.bincount(edges.src, weights=weight, minlength=n) + edges.external
    flow = file_rank[edges.src] * weight / np.where(out > 0, out, 1.0)[edges.src]
    # Rank that flows into each (file, name), summed with numpy: graphs of tens of millions of
    # rows would not fit in memory as Python objects.
    n_names = max(len(edges.names), 1)
    pairs, inverse = np.unique(edges.dst * n_names + edges.name, return_inverse=True)
    inflow = np.bincount(inverse.ravel(), weights=flow, minlength=len(pairs))
    name_index = {name: i for i, name in enumerate(edges.names)}

    kept = [(i, path) for i, path in enumerate(files) if path not in signals.focus]
    defs = [(i, path, tag) for i, path in kept for tag in infos[path].defs]
    keys = np.array([i * n_names + name_index[tag.name] if tag.name in name_index else -1 for i, _, tag in defs],
                    dtype=np.int64)
    received = np.zeros(len(keys))
    if len(pairs):
        at = np.minimum(np.searchsorted(pairs, keys), len(pairs) - 1)
        received = np.where(pairs[at] == keys, inflow[at], 0.0)

    ranked = []
    for (i, path, tag), edge_score in zip(defs, received.tolist()):
        match = _match(tag.name, signals)
        # What the task names counts as if referenced by its own file, whatever the graph says.
        mentioned = path in signals.mentioned_files or tag.name in signals.mentioned_idents
        own = 1.0 if mentioned else 0.01 + OWN_MATCH * min(match, 1.0)
        score = (edge_score + own * file_rank[i]) * (1.0 + match)
        if path in signals.secondary:
            score *= SECONDARY
        ranked.append(Ranked(score, tag))
    ranked.sort(key=lambda r: (-r.score, r.tag.path, r.tag.start_byte))
    return ranked, dict(zip(files, file_rank.tolist()))


def pagerank(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, external: np.ndarray,
             personal: np.ndarray, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100) -> np.ndarray:
    """Personalized PageRank by power iteration on a sparse matrix, as networkx computes it,
    over the files and one sink node (references to names defined nowhere here).

    The sink and files without outgoing edges hand their rank out again by the
    personalization vector. Returns the files' ranks (the sink's share left out).
    """
    from scipy import sparse  # imported here: a map answered from the cache never needs it

    if n == 0:
        return np.zeros(0)
    sink = np.flatnonzero(external > 0)
    rows = np.concatenate([src, sink])
    cols = np.concatenate([dst, np.full(len(sink), n)])
    values = np.concatenate([weight, external[sink]])
    matrix = sparse.csr_array((values, (rows, cols)), shape=(n + 1, n + 1))
    out = np.asarray(matrix.sum(axis=1)).ravel()
    scale = np.divide(1.0, out, out=np.zeros(n + 1), where=out > 0)
    matrix = sparse.csr_array(sparse.diags_array(scale) @ matrix)
    dangling = out == 0
    p = np.append(personal, 0.0) / personal.sum()
    x = p.copy()
    for _ in range(max_iter):
        previous = x
        x = alpha * (previous @ matrix + previous[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - previous).sum() < (n + 1) * tol:
            break
    return x[:n]


def _rarity(n_referencing: int, n_files: int) -> float:
    """1 for a name one file uses, falling towards 0 for one that nearly every file uses."""
    if n_files < 2:
        return 1.0
    return max(0.05, 1.0 - math.log(max(n_referencing, 1)) / math.log(n_files))


def _name_weight(name: str, n_definers: int) -> float:
    weight = 1.0
    if name.startswith("_"):
        weight *= PRIVATE_NAME
    if n_definers > COMMON_NAME_FILES:
        weight *= PRIVATE_NAME
    return weight


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


def _personalization(files: list[str], infos: dict[str, FileInfo], signals: Signals) -> np.ndarray:
    """Every file a little (secondary ones less); chat and mentioned files, and files whose
    definitions match the task, much more."""
    personal = np.zeros(len(files))
    for i, path in enumerate(files):
        weight = SECONDARY if path in signals.secondary else 1.0
        if path in signals.focus:
            weight += 100.0
        if path in signals.mentioned_files:
            weight += 100.0
        if signals.terms or signals.mentioned_idents:
            defs = {t.name for t in infos[path].defs}
            if defs:
                weight += 10.0 * max(_match(name, signals) for name in defs)
        personal[i] = weight
    return personal
