"""Rank files and definitions: personalized PageRank over the file reference graph.

A reference in file A to a name that file B defines is an edge A -> B. Parallel
references are summed (square-rooted, so one chatty file cannot dominate);
a name many files define is split between them and counts less; private names
count less; names the task mentions count more, and references from the files
in the chat much more. Rank then flows along each edge to the definition it
points at, so a definition's score says how much the ranked files lean on it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from .tags import Tag, family_for
from .words import subwords

FOCUS_EDGE = 50.0
# A call of `get` may mean any type's `get` method, and `x.lower()` rarely means a
# module's function `lower` when most files call `.lower()`; `Func()` is specific.
METHOD_CALL = 0.1
_REF_BUCKET = {"call": 1, "member": 2}
MENTIONED_NAME = 10.0
PRIVATE_NAME = 0.1
COMMON_NAME_FILES = 5
SECONDARY = 0.1
EXTERNAL = "\0external"  # the sink node; no path can contain NUL


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


def rank(tags_by_file: dict[str, list[Tag]], signals: Signals) -> tuple[list[Ranked], dict[str, float]]:
    """Definitions best first (focus files left out) and each file's PageRank."""
    files = sorted(tags_by_file)
    definers: dict[str, set[str]] = defaultdict(set)
    only_methods: set[tuple[str, str]] = set()  # (file, name) where every definition is a method
    # name -> file -> [imports, type uses and inheritance; plain calls; calls on a receiver]
    ref_counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for path in files:
        kinds: dict[str, set[str]] = defaultdict(set)
        for tag in tags_by_file[path]:
            if tag.role == "ref":
                ref_counts[tag.name][path][_REF_BUCKET.get(tag.kind, 0)] += 1
            elif not tag.local:
                definers[tag.name].add(path)
                kinds[tag.name].add(tag.kind)
        only_methods.update((path, name) for name, k in kinds.items() if k == {"method"})
    referring_files = {name: len(by_file) for name, by_file in ref_counts.items()}
    member_files = {name: sum(1 for *_, members in by_file.values() if members)
                    for name, by_file in ref_counts.items()}

    family = {path: family_for(path) for path in files}
    edges: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    unresolved: dict[str, float] = defaultdict(float)
    for name in sorted(ref_counts):
        for src, (uses, calls, members) in sorted(ref_counts[name].items()):
            owners = [d for d in sorted(definers.get(name, ())) if d != src and family[d] == family[src]]
            total = uses + calls + members
            mass = math.sqrt(total)
            if not owners:
                unresolved[src] += mass
                continue
            base = _name_weight(name, len(owners), signals) / len(owners)
            resolved = 0.0
            for dst in owners:
                if (dst, name) in only_methods:  # nothing but a call on the right receiver reaches it
                    specific = METHOD_CALL * _rarity(referring_files[name], len(files))
                else:
                    specific = (uses + calls + members * _rarity(member_files[name], len(files))) / total
                weight = base * mass * specific
                resolved += weight
                if src in signals.focus:
                    weight *= FOCUS_EDGE
                if dst in signals.secondary:
                    weight *= SECONDARY
                edges[(src, dst)][name] = weight
            unresolved[src] += max(0.0, mass - resolved)

    # References to names defined nowhere here (builtins, libraries, ambiguous methods) lead
    # to a sink, so a file's rank flows to its own repository's code only as far as it uses it.
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for (src, dst), names in edges.items():
        graph.add_edge(src, dst, weight=sum(names.values()))
    for src, mass in unresolved.items():
        if mass > 0:
            graph.add_edge(src, EXTERNAL, weight=mass)
    personal = _personalization(files, tags_by_file, signals)
    try:
        file_rank = nx.pagerank(graph, personalization=personal, dangling=personal, weight="weight")
    except nx.PowerIterationFailedConvergence:
        file_rank = personal

    def_score: dict[tuple[str, str], float] = defaultdict(float)
    out_weight = {f: graph.out_degree(f, weight="weight") for f in files}
    file_rank.pop(EXTERNAL, None)
    for (src, dst), names in edges.items():
        for name, weight in names.items():
            def_score[(dst, name)] += file_rank[src] * weight / out_weight[src]

    ranked = []
    for path in files:
        if path in signals.focus:
            continue
        for tag in tags_by_file[path]:
            if tag.role != "def":
                continue
            own = 1.0 if path in signals.mentioned_files else 0.01  # a mentioned file's own code counts
            score = def_score[(path, tag.name)] + own * file_rank[path]
            score *= 1.0 + _match(tag.name, signals)
            if path in signals.secondary:
                score *= SECONDARY
            ranked.append(Ranked(score, tag))
    ranked.sort(key=lambda r: (-r.score, r.tag.path, r.tag.start_byte))
    return ranked, file_rank


def _rarity(n_referencing: int, n_files: int) -> float:
    """1 for a name one file uses, falling towards 0 for one that nearly every file uses."""
    if n_files < 2:
        return 1.0
    return max(0.05, 1.0 - math.log(max(n_referencing, 1)) / math.log(n_files))


def _name_weight(name: str, n_definers: int, signals: Signals) -> float:
    weight = 1.0
    if name in signals.mentioned_idents:
        weight *= MENTIONED_NAME
    if name.startswith("_"):
        weight *= PRIVATE_NAME
    if n_definers > COMMON_NAME_FILES:
        weight *= PRIVATE_NAME
    return weight


def _match(name: str, signals: Signals) -> float:
    """How strongly the task points at a definition name: exact mention, else shared sub-words."""
    if name in signals.mentioned_idents:
        return MENTIONED_NAME
    parts = subwords(name)
    if not parts or not signals.terms:
        return 0.0
    return sum(signals.terms.get(p, 0.0) for p in parts) / math.sqrt(len(parts))


def _personalization(files: list[str], tags_by_file: dict[str, list[Tag]], signals: Signals) -> dict[str, float]:
    """Every file a little (secondary ones less); chat and mentioned files, and files whose
    definitions match the task, much more."""
    personal = {}
    for path in files:
        weight = SECONDARY if path in signals.secondary else 1.0
        if path in signals.focus:
            weight += 100.0
        if path in signals.mentioned_files:
            weight += 100.0
        defs = {t.name for t in tags_by_file[path] if t.role == "def"}
        if defs:
            weight += 10.0 * max(_match(name, signals) for name in defs)
        personal[path] = weight
    return personal
