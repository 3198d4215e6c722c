"""`repomap graph`: the ranked file graph written with networkx's writers, read back unchanged,
and drawn as an offline page that a real browser shows and a person can click through."""

import io
import json
import os

import networkx as nx
import pytest

from browser import CHROMIUM, Browser, png_colours
from conftest import FIXTURES, run, run_process
from repomap import RepoMap
from repomap.export import write

NODE_KEYS = {"id", "path", "language", "folder", "rank", "definitions", "names", "signatures"}
EDGE_KEYS = {"source", "target", "weight", "names"}


@pytest.fixture(scope="module")
def graph():
    return RepoMap(FIXTURES / "repo", use_cache=False).graph(top=60)


def test_the_graph_holds_the_ranked_files_and_what_links_them(graph):
    assert set(graph) == {"shop/cart.py", "shop/item.py", "shop/money.py", "svc/main.go", "svc/store.go",
                          "web/api.ts", "web/app.js", "tests/test_cart.py", "docs/guide.md"}
    cart = graph.nodes["shop/cart.py"]
    assert cart["language"] == "python" and cart["folder"] == "shop" and cart["definitions"] >= 3
    assert "class Cart" in cart["signatures"] and "Cart" in cart["names"].split(", ")
    assert "Item" in graph.edges["shop/cart.py", "shop/item.py"]["names"].split(", ")
    assert graph.edges["shop/cart.py", "shop/item.py"]["weight"] > 0
    assert all(graph.nodes[p]["rank"] > 0 for p in graph)


def test_top_and_query_steer_it_as_they_steer_the_map():
    repo = RepoMap(FIXTURES / "repo", use_cache=False)
    top = repo.graph(top=3)
    assert len(top) == 3
    assert set(top) == set(sorted(repo.graph(top=60).nodes, key=lambda p: -repo.graph().nodes[p]["rank"])[:3])
    asked = repo.graph(top=60, query="format money with currency")
    plain = repo.graph(top=60)
    assert asked.nodes["shop/money.py"]["rank"] > plain.nodes["shop/money.py"]["rank"]


@pytest.mark.parametrize("fmt, read", [("graphml", nx.read_graphml), ("gexf", nx.read_gexf)])
def test_graphml_and_gexf_read_back_the_same(graph, fmt, read):
    back = read(io.BytesIO(write(graph, fmt).encode("utf-8")))
    assert set(back) == set(graph)
    assert set(back.edges) == set(graph.edges)
    for path in graph:
        got = {k: v for k, v in back.nodes[path].items() if k != "label"}  # GEXF adds a label
        assert got == graph.nodes[path], path
    for edge in graph.edges:
        got = {k: v for k, v in back.edges[edge].items() if k not in ("id", "label")}
        assert got == graph.edges[edge], edge


def test_node_link_json_has_the_documented_shape(graph):
    data = json.loads(write(graph, "json"))
    assert data["directed"] is True and data["multigraph"] is False
    assert all(set(node) == NODE_KEYS for node in data["nodes"])
    assert all(set(edge) == EDGE_KEYS for edge in data["edges"])
    assert all(isinstance(n["rank"], float) and isinstance(n["definitions"], int) for n in data["nodes"])
    back = nx.node_link_graph(data, edges="edges")
    assert nx.utils.graphs_equal(back, graph)


def test_dot_loads_in_pydot(graph):
    import pydot

    parsed, = pydot.graph_from_dot_data(write(graph, "dot"))
    assert {n.get_name().strip('"') for n in parsed.get_nodes()} >= set(graph)


def test_dot_without_pydot_says_what_to_install(shop, monkeypatch, tmp_path):
    blocker = tmp_path / "nopydot"
    blocker.mkdir()
    (blocker / "pydot.py").write_text("raise ImportError('not installed')\n")
    result = run_process("graph", shop, "--format", "dot", env={"PYTHONPATH": str(blocker)})
    assert result.returncode == 2 and result.stderr.startswith("repomap: error: --format dot needs pydot")


def test_cli_writes_each_format(shop, tmp_path):
    for fmt in ("graphml", "gexf", "json", "html"):
        out = tmp_path / f"graph.{fmt}"
        result = run("graph", shop, "--format", fmt, "--top", "5", "--output", out)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "" and out.stat().st_size > 500
    assert len(json.loads(run("graph", shop, "--format", "json", "--top", "4").stdout)["nodes"]) == 4


@pytest.mark.parametrize("args, message", [
    (["--format", "xml"], "invalid choice: 'xml'"),
    (["--top", "0"], "must be at least 1"),
    (["--output", "/dev/null/graph.html"], "cannot write /dev/null/graph.html"),
    (["--focus", "no/such.py"], "no such focus file"),
])
def test_bad_input_is_one_line_and_exit_2(shop, args, message):
    result = run("graph", shop, *args)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2 and "Traceback" not in result.stderr


def test_the_page_is_self_contained(shop, tmp_path):
    page = run("graph", shop).stdout
    assert page.startswith("<!DOCTYPE html>") and "<script>" in page
    assert "src=" not in page and "href=" not in page and "@import" not in page  # nothing to fetch
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (.ci/run does: apt-get install chromium)")
        pytest.skip("no Chromium here (apt-get install chromium)")
    opened = Browser()
    yield opened
    opened.close()


def test_a_browser_draws_the_page_offline_and_a_click_explains_a_node(browser, tmp_path):
    page = tmp_path / "graph.html"
    result = run("graph", FIXTURES / "repo", "--output", page, "--no-cache")
    assert result.returncode == 0, result.stderr
    browser.open(page.as_uri(), "document.querySelectorAll('circle.node').length > 0")
    assert browser.evaluate("document.querySelectorAll('circle.node').length") == 9
    assert browser.evaluate("document.querySelectorAll('line.edge').length") == 6
    assert browser.failed_requests == []
    assert png_colours(browser.screenshot()) > 20  # drawn, not blank

    # A real click at the centre of cart.py's circle shows its signatures and who refers to it.
    x, y = browser.evaluate("""(() => {
        const r = document.querySelector('circle.node[data-path="shop/cart.py"]').getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
    assert browser.evaluate(f"document.elementFromPoint({x}, {y}).dataset.path") == "shop/cart.py"
    browser.click(x, y)
    info = browser.evaluate("document.getElementById('info').innerText")
    assert info.startswith("shop/cart.py") and "class Cart" in info
    assert "tests/test_cart.py" in info.split("referred to by")[1]

    # The search box highlights the file that matches.
    browser.evaluate("document.getElementById('search').focus()")
    browser.type("money")
    assert browser.evaluate("[...document.querySelectorAll('circle.match')].map(c => c.dataset.path)") == \
        ["shop/money.py"]


def test_three_hundred_files_still_draw(browser, tmp_path):
    repo = tmp_path / "many"
    repo.mkdir()
    for i in range(320):
        (repo / f"m{i}.py").write_text(f"from m{(i * 7) % 320} import f{(i * 7) % 320}\n\ndef f{i}():\n    pass\n")
    page = tmp_path / "graph.html"
    assert run("graph", repo, "--top", "300", "--output", page, "--no-cache").returncode == 0
    browser.open(page.as_uri(), "document.querySelectorAll('circle.node').length > 0")
    assert browser.evaluate("document.querySelectorAll('circle.node').length") == 300
    assert png_colours(browser.screenshot()) > 20
