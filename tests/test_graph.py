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


def test_after_an_edit_the_graph_gathers_the_changed_files_alone(shop, tmp_path, monkeypatch):
    """The graph's inputs of the last state, kept or stored, are made current by gathering
    the parts of the files changed since, the graph by joining again only the names those
    define or reference, and its definitions by finding those rows' slots, unless the graph's
    files or names changed; inputs, graph and definitions equal those made whole, and every
    map, in a kept RepoMap and in a new one, a fresh map."""
    from repomap import graph
    from repomap.api import RepoMap

    gathered, built = [], []
    gather, build, define = graph.Inputs.of.__func__, graph.build_edges, graph.Definitions.of.__func__
    monkeypatch.setattr(graph.Inputs, "of", classmethod(
        lambda cls, infos, files: gathered.append(list(files)) or gather(cls, infos, files)))
    monkeypatch.setattr(graph, "build_edges", lambda *args: built.append("graph") or build(*args))
    monkeypatch.setattr(graph.Definitions, "of", classmethod(
        lambda cls, *args: built.append("definitions") or define(cls, *args)))
    cache_dir = tmp_path / "cache"
    kept = RepoMap(shop, cache_dir=cache_dir, tokens=300)
    kept.build()
    assert len(gathered[-1]) == len(kept.scan().infos) > 5
    cart = shop / "shop" / "cart.py"
    def replace(old, new):
        return lambda: cart.write_text(cart.read_text().replace(old, new))

    # (edit, graphs built anew, the names of the rows joined again and whether they went back
    # in the places of the rows taken out, where the graph was joined again)
    edits = [(replace("        return item", "        self.add(item)\n        return item"),
              0, ({"Cart", "add"}, True)),  # a name called once more, its class grown: their rows alone, in place
             # (the second RepoMap reads the graph stored)
             (replace("        return sum(", "        # gross, not net\n        return sum("),
              0, ({"Cart", "total"}, True)),  # definitions grown by a line (a method and its class)
             (replace("        return sum(", "        return _round_half_even(0) + sum("),
              0, (None, False)),  # a name the file did not use: the rows of every name it uses, laid out anew
             (lambda: (shop / "shop" / "extra.py").write_text("def brand_new(cart):\n    return cart.total_price()\n"),
              1, None),  # new names: built anew
             (lambda: (shop / "shop" / "money.py").unlink(), 1, None)]  # a file gone: built anew
    for edit, builds, joined in edits:
        last = kept._kept["edges"][1]
        edit()
        gathered.clear()
        built.clear()
        kept.build()
        kept._storing.join()  # what it made is stored after it answers: the new RepoMap reads it
        maps = [kept.build().text, RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text]
        assert gathered and all(len(files) <= 1 for files in gathered)  # the edited file, if it is there
        assert built == ["graph", "definitions"] * builds
        scan = kept.scan()
        whole = gather(graph.Inputs, scan.infos, sorted(scan.infos))
        made = kept._inputs(scan).to_arrays()
        assert all(np.array_equal(made[k], v) and made[k].dtype == v.dtype for k, v in whole.to_arrays().items())
        edges, fresh = kept._edges(scan), build(whole, kept._secondary(scan))
        if joined is not None:
            names, in_place = joined
            at = edges.joined_again[1]
            found = {edges.names[k] for k in edges.name[at + np.arange(len(at))].tolist()}
            assert found == names if names else "_round_half_even" in found
            assert (edges.src is last.src) == in_place
        for made, due in ((edges, fresh), (kept._definitions(scan, edges), define(graph.Definitions, fresh, whole))):
            made = made.to_arrays()
            assert all(np.array_equal(made[k], v) and made[k].dtype == v.dtype for k, v in due.to_arrays().items())
        assert maps == [RepoMap(shop, use_cache=False, tokens=300).build().text] * 2
    # A new process after an edit: the stored graph and inputs of the last state are joined again.
    cart.write_text(cart.read_text().replace("        return item", "        self.add(item)\n        return item"))
    built.clear()
    text = RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text
    assert not built and text == RepoMap(shop, use_cache=False, tokens=300).build().text


@pytest.mark.parametrize("written", range(5))
def test_a_process_reading_while_the_graph_is_stored_joins_it_again_as_well(shop, tmp_path, monkeypatch, written):
    """After an edit, what a call made is stored in a thread once it has answered, last made
    first: another process that reads the cache part way through (here after `written` of
    the definitions, graph, inputs and ranking) finds no inputs newer than the graph, so it
    too joins again only the edited file's rows, and its map is a fresh map."""
    import threading

    from repomap import graph
    from repomap.api import RepoMap

    cache_dir = tmp_path / "cache"
    writer = RepoMap(shop, cache_dir=cache_dir, tokens=300)
    writer.build()
    writer._storing.join()
    store, save = writer.indexer.store, writer.indexer.store.save_arrays
    paused, go, kinds = threading.Event(), threading.Event(), []

    def save_arrays(kind, arrays, key=""):
        if len(kinds) == written:
            paused.set()
            go.wait(30)
        kinds.append(kind)
        save(kind, arrays, key)

    monkeypatch.setattr(store, "save_arrays", save_arrays)
    cart = shop / "shop" / "cart.py"
    cart.write_text(cart.read_text().replace("        return item", "        self.add(item)\n        return item"))
    built, build = [], graph.build_edges
    monkeypatch.setattr(graph, "build_edges", lambda *args: built.append("graph") or build(*args))
    writer.build()
    if written < 4:
        assert paused.wait(30)
    else:
        writer._storing.join()
    try:
        text = RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text
    finally:
        go.set()
        writer.close()
    assert not built and text == RepoMap(shop, use_cache=False, tokens=300).build().text
    assert kinds == ["definitions", "edges", "inputs", "ranking"]


def test_packed_strings_read_one_at_a_time_equal_the_list_they_were_packed_from():
    """Names read from the index are decoded when read; each, a bisect among them, a loop
    over them and packing them again agree with the list itself."""
    from bisect import bisect_left

    from repomap.graph import Packed, packed

    names = sorted(["", "_private", "a", "dev_err", "naïve", "\udcff", "zz", "名前"])
    stored = Packed(packed(names))
    assert len(stored) == len(names) and list(stored) == names
    assert [stored[k] for k in range(-len(names), len(names))] == names * 2
    assert [bisect_left(stored, n) for n in ["_", "b", "n", "~"]] == [bisect_left(names, n) for n in ["_", "b", "n", "~"]]
    assert packed(stored) is stored.stored
    with pytest.raises(IndexError):
        stored[len(names)]
    assert list(Packed(packed([]))) == []
