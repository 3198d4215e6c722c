"""Our sparse PageRank agrees with networkx's on the same weighted graph with a sink."""

import networkx as nx
import numpy as np
import pytest

from repomap.graph import Walk, pagerank, run_starts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pagerank_matches_networkx(seed):
    rng = np.random.default_rng(seed)
    n = 40
    src, dst = rng.integers(0, n, 300), rng.integers(0, n, 300)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    weight = rng.random(len(src))
    external = rng.random(n) * (rng.random(n) < 0.5)
    external[:3] = 0.0  # some files with no outgoing edges at all
    src, dst, weight = src[src >= 3], dst[src >= 3], weight[src >= 3]
    personal = rng.random(n) + (rng.random(n) < 0.1) * 50

    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    for s, d, w in zip(src, dst, weight):
        w0 = graph.get_edge_data(s, d, {"weight": 0.0})["weight"]
        graph.add_edge(s, d, weight=w0 + w)
    for s in range(n):
        if external[s] > 0:
            graph.add_edge(s, "sink", weight=external[s])
    p = {i: personal[i] for i in range(n)}
    expected = nx.pagerank(graph, personalization=p, dangling=p, weight="weight", tol=1e-10)

    order = np.lexsort((src, dst))  # as Edges keeps them; parallel rows are summed
    src, dst, weight = src[order], dst[order], weight[order]
    ours = pagerank(Walk.of(n, src, dst, weight, external, run_starts(src, dst)), personal, tol=1e-10)
    assert np.allclose(ours, [expected[i] for i in range(n)], atol=1e-8)
    assert abs(ours.sum() + expected["sink"] - 1.0) < 1e-8
