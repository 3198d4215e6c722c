"""Our sparse PageRank agrees with networkx's on the same weighted graph with a sink."""

import networkx as nx
import numpy as np
import pytest

from repomap.arrays import run_starts
from repomap.pagerank import Walk, pagerank


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
    files changed (a name that comes or goes renumbers the rows' names; one defined anew
    makes the definitions whole); inputs, graph and definitions equal those made whole, and every
    map, in a kept RepoMap and in a new one, a fresh map. Where neither the graph nor its
    definitions changed, they keep the last state, and nothing is ranked again."""
    from repomap import ranking
    from repomap.api import RepoMap
    from repomap.definitions import Definitions
    from repomap.edges import build_edges
    from repomap.inputs import Inputs

    gathered, built = [], []
    gather, build, define, rank = Inputs.of.__func__, build_edges, Definitions.of.__func__, ranking.rank
    monkeypatch.setattr(ranking, "rank", lambda *args: built.append("ranking") or rank(*args))
    monkeypatch.setattr(Inputs, "of", classmethod(
        lambda cls, infos, files: gathered.append(list(files)) or gather(cls, infos, files)))
    monkeypatch.setattr("repomap.edges.build_edges", lambda *args: built.append("graph") or build(*args))
    monkeypatch.setattr(Definitions, "of", classmethod(
        lambda cls, *args: built.append("definitions") or define(cls, *args)))
    cache_dir = tmp_path / "cache"
    kept = RepoMap(shop, cache_dir=cache_dir, tokens=300)
    kept.build()
    assert len(gathered[-1]) == len(kept.scan().infos) > 5
    cart = shop / "shop" / "cart.py"
    def replace(old, new):
        return lambda: cart.write_text(cart.read_text().replace(old, new))

    # (edit, what is built anew, the names of the rows joined again, whether they went back in
    # the places of the rows taken out, and whether the graph is the last one, where it was
    # joined again)
    whole, definitions = ["graph", "definitions"], ["definitions"]
    edits = [(replace("        return item", "        self.add(item)\n        return item"),
              [], ({"Cart", "add"}, True, False)),  # a name called once more, its class grown: their rows alone, in place
             # (the second RepoMap reads the graph stored)
             (replace("        return sum(", "        # gross, not net\n        return sum("),
              [], ({"Cart", "total"}, True, True)),  # definitions grown by a line (a method and its class), each defined once
             (replace("        return sum(", "        return _round_half_even(0) + sum("),
              [], ({"_round_half_even"}, False, False)),  # a name the file did not use: its rows, laid out anew
             (replace("        item = parse_item(line)", "        item = parse_item(line)\n        called_nowhere_yet()"),
              [], ({"Cart"}, True, False)),  # a name new to the graph (defined nowhere: no row), the rows renumbered
             (replace("        called_nowhere_yet()\n", ""), [], ({"Cart"}, True, False)),  # and gone again
             (replace("    def receipt(", "    def a_new_method(self):\n        return 1\n\n    def receipt("),
              definitions, ({"Cart"}, True, False)),  # a new definition: the definitions made whole
             (lambda: (shop / "shop" / "extra.py").write_text("def brand_new(cart):\n    return cart.total_price()\n"),
              whole, None),  # a new file: built anew
             (lambda: (shop / "shop" / "money.py").unlink(), whole, None)]  # a file gone: built anew
    for edit, builds, joined in edits:
        last = kept.artifacts.edges(kept.scan())
        edit()
        gathered.clear()
        built.clear()
        kept.build()
        kept.artifacts.cache.join()  # what it made is stored after it answers: the new RepoMap reads it
        assert built == builds + ["ranking"] * (joined is None or not joined[2])
        maps = [kept.build().text, RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text]
        assert gathered and all(len(files) <= 1 for files in gathered)  # the edited file, if it is there
        scan = kept.scan()
        whole = gather(Inputs, scan.infos, sorted(scan.infos))
        made = kept.artifacts.inputs(scan).to_arrays()
        assert all(np.array_equal(made[k], v) and made[k].dtype == v.dtype for k, v in whole.to_arrays().items())
        edges, fresh = kept.artifacts.edges(scan), build(whole, kept.artifacts.secondary(scan), scan.links)
        assert edges.links_digest == (last.links_digest if joined is not None and joined[2] else scan.links) != ""
        if joined is not None:
            names, in_place, _ = joined
            at = edges.joined_again[1]
            found = {edges.names[k] for k in edges.name[at + np.arange(len(at))].tolist()}
            assert found == names
            assert (edges.src is last.src) == in_place
        for made, due in ((edges, fresh), (kept.artifacts.definitions(scan, edges), define(Definitions, fresh, whole))):
            made, due = made.to_arrays(), due.to_arrays()
            made.pop("links_digest", None), due.pop("links_digest", None)
            assert made.keys() == due.keys()
            assert all(np.array_equal(made[k], v) and made[k].dtype == v.dtype for k, v in due.items())
        assert maps == [RepoMap(shop, use_cache=False, tokens=300).build().text] * 2
    # A new process after an edit: the stored graph and inputs of the last state are joined again.
    cart.write_text(cart.read_text().replace("        return item", "        self.add(item)\n        return item"))
    built.clear()
    text = RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text
    assert built == ["ranking"] and text == RepoMap(shop, use_cache=False, tokens=300).build().text


def _maps_made(monkeypatch) -> list[str]:
    """A list that gets "ranking" and "rendering" each time a map is ranked and rendered."""
    from repomap import ranking, render

    made = []
    rank, select = ranking.rank, render.select
    monkeypatch.setattr(ranking, "rank", lambda *args: made.append("ranking") or rank(*args))
    monkeypatch.setattr(render, "select", lambda *args: made.append("rendering") or select(*args))
    return made


def test_a_map_after_an_edit_that_leaves_the_graph_is_the_map_stored_for_it(shop, tmp_path, monkeypatch):
    """A comment inside a method whose name, and its class's, are defined once grows them,
    which changes what the file defines but neither the graph nor its definitions: the CLI's
    next map (a new RepoMap that reuses stored maps) is the one stored for that graph, not
    ranked or rendered, and still a fresh map. One that adds a call is ranked again."""
    from repomap.api import RepoMap

    cache_dir, cart = tmp_path / "cache", shop / "shop" / "cart.py"
    RepoMap(shop, cache_dir=cache_dir, tokens=300).build(reuse=True)
    made = _maps_made(monkeypatch)
    for old, new, again in [("        return sum(", "        # gross, not net\n        return sum(", []),
                            ("        return sum(", "        # twice\n        return sum(", []),
                            ("        return item", "        self.add(item)\n        return item", ["ranking", "rendering"])]:
        cart.write_text(cart.read_text().replace(old, new))
        made.clear()
        repo_map = RepoMap(shop, cache_dir=cache_dir, tokens=300)
        text = repo_map.build(reuse=True).text
        repo_map.close()
        assert made == again and text == RepoMap(shop, use_cache=False, tokens=300).build().text


def test_a_kept_repomap_keeps_its_maps_for_the_same_graph_and_views(shop, tmp_path, monkeypatch):
    """A chat loop's RepoMap asks for the map each turn: with nothing changed, or after an edit
    that leaves the graph and the signatures as they were, the map it made is its answer
    (with its ranking), not ranked or rendered again; after an edit that adds a call it is
    made again. Each answer equals a fresh RepoMap's, ranking included."""
    from repomap.api import RepoMap

    cart = shop / "shop" / "cart.py"
    kept = RepoMap(shop, cache_dir=tmp_path / "cache", tokens=300)
    kept.build()
    made = _maps_made(monkeypatch)
    for old, new, again in [("", "", []),
                            ("        return sum(", "        # gross, not net\n        return sum(", []),
                            ("        return item", "        self.add(item)\n        return item", ["ranking", "rendering"]),
                            ("", "", [])]:
        cart.write_text(cart.read_text().replace(old, new) if old else cart.read_text())
        made.clear()
        result = kept.build()
        assert made == again
        fresh = RepoMap(shop, use_cache=False, tokens=300).build()
        assert (result.text, result.tokens, result.ranked_files, result.shown_files, result.notes) == \
            (fresh.text, fresh.tokens, fresh.ranked_files, fresh.shown_files, fresh.notes)
        assert [(r.score, r.tag) for r in result.ranked] == [(r.score, r.tag) for r in fresh.ranked]


@pytest.mark.parametrize("written", range(5))
def test_a_process_reading_while_the_graph_is_stored_joins_it_again_as_well(shop, tmp_path, monkeypatch, written):
    """After an edit, what a call made is stored in a thread once it has answered, last made
    first: another process that reads the cache part way through (here after `written` of
    the definitions, graph, inputs and ranking) finds no inputs newer than the graph, so it
    too joins again only the edited file's rows, and its map is a fresh map."""
    import threading

    from repomap.api import RepoMap
    from repomap.edges import build_edges

    cache_dir = tmp_path / "cache"
    writer = RepoMap(shop, cache_dir=cache_dir, tokens=300)
    writer.build()
    writer.artifacts.cache.join()
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
    built, build = [], build_edges
    monkeypatch.setattr("repomap.edges.build_edges", lambda *args: built.append("graph") or build(*args))
    writer.build()
    if written < 4:
        assert paused.wait(30)
    else:  # all four stored: the storing thread may not have begun when build returns
        stored = threading.Event()
        for _ in range(3000):
            if len(kinds) == 4:
                stored.set()
                break
            stored.wait(0.01)
        assert stored.is_set(), kinds
        writer.artifacts.cache.join()
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

    from repomap.arrays import Packed, packed

    names = sorted(["", "_private", "a", "dev_err", "naïve", "\udcff", "zz", "名前"])
    stored = Packed(packed(names))
    assert len(stored) == len(names) and list(stored) == names
    assert [stored[k] for k in range(-len(names), len(names))] == names * 2
    assert [bisect_left(stored, n) for n in ["_", "b", "n", "~"]] == [bisect_left(names, n) for n in ["_", "b", "n", "~"]]
    assert packed(stored) is stored.stored
    with pytest.raises(IndexError):
        stored[len(names)]
    assert list(Packed(packed([]))) == []


def test_after_an_edit_the_secondary_files_are_the_last_graphs_unless_a_twin_changed(tmp_path, monkeypatch):
    """deno_dist/ mirrors src/ (its files are secondary). An edit to a file with no twin in
    another top-level folder keeps the last graph's secondary files without comparing twins
    again; one to a file with a twin compares them, and once deno_dist/ no longer defines what
    src/ does, its files are secondary no more. Each time, the secondary files and the map
    equal those made afresh."""
    from repomap import discover, mirrors
    from repomap.api import RepoMap

    for root in ("src", "deno_dist"):
        (tmp_path / root).mkdir()
        for i in range(4):
            calls = "".join(f"  part{j}()\n" for j in range(4) if j != i)
            (tmp_path / root / f"part{i}.ts").write_text(f"export function part{i}() {{\n{calls}}}\n")
    app = tmp_path / "src" / "app.ts"
    app.write_text("export function main() {\n  part0()\n  part1()\n}\n")
    compared, mirror_copies = [], mirrors.mirror_copies
    monkeypatch.setattr(mirrors, "mirror_copies", lambda *args: compared.append(1) or mirror_copies(*args))
    kept = RepoMap(tmp_path, cache_dir=tmp_path / ".cache", tokens=500, settings=False)
    kept.build()
    assert {p for p in kept.artifacts.secondary(kept.scan()) if p.startswith("deno_dist/")} == \
        {f"deno_dist/part{i}.ts" for i in range(4)}

    def grow(path):  # a comment inside the body: the file's links change, its names do not
        path.write_text(path.read_text().replace("{\n", "{\n  // grown\n", 1))

    def rename(path):
        path.write_text(path.read_text().replace("export function part", "export function other"))

    for edit, compares, mirrored in [(lambda: grow(app), False, True),  # no twin: kept
                                     (lambda: grow(tmp_path / "src" / "part0.ts"), True, True),
                                     (lambda: [rename(tmp_path / "deno_dist" / f"part{i}.ts") for i in (1, 2)],
                                      True, False)]:  # two of four twins left: no mirror
        edit()
        compared.clear()
        text = kept.build().text
        scan = kept.scan()
        assert bool(compared) == compares
        fresh = {f for f in scan.infos if discover.is_secondary(f)} | \
            mirror_copies(list(scan.infos), lambda path: scan.infos[path].names)
        assert kept.artifacts.secondary(scan) == fresh
        assert any(p.startswith("deno_dist/") for p in fresh) == mirrored
        assert text == RepoMap(tmp_path, use_cache=False, tokens=500, settings=False).build().text


def test_twins_are_found_by_path_inside_each_top_level_folder():
    files = sorted(["README.md", "a-b/x.py", "a/x.py", "a/y/z.py", "a0/y/z.py", "b/x.py", "setup.py"])
    from repomap.mirrors import twinned

    assert twinned("a/x.py", files) and twinned("b/x.py", files) and twinned("a-b/x.py", files)
    assert twinned("a/y/z.py", files) and twinned("a0/y/z.py", files)
    assert not twinned("setup.py", files) and not twinned("a/q.py", files) and not twinned("c/x.py", [])
    assert not twinned("a/y/z.py", ["a/y/z.py"])
