"""`repomap graph`: the ranked file graph written with networkx's writers, read back unchanged,
and drawn as an offline page that a real browser shows and a person can click through."""

import io
import json
import os
import re

import networkx as nx
import pytest

from browser import CHROMIUM, Browser, png_colours
from conftest import FIXTURES, run, run_process
from repomap import RepoMap
from repomap.export import write

HOSTILE = ["<!--<script>.py", "</script>/x.py", "\"';alert(1).py", "]]>.py"]  # `</script>`: folders < and script>
HOSTILE_DEFAULTS = "x='</script><!--<script>', y=\"\\\"';alert(1)//\", z=']]>&amp;'"
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


def page_data(page: str) -> dict:
    """The data the page's script draws, as the CLI embedded it."""
    return json.loads(re.search(r"^const data = (.*);$", page, re.MULTILINE).group(1))


def write_files(root, files: dict[str, str]):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_folders_are_told_apart_at_the_depth_where_they_differ(tmp_path):
    # One package folder holds nearly all: its subpackages are what tells files apart.
    root = write_files(tmp_path / "repo", {
        "src/app/a/one.py": "def one():\n    return two() + three()\n",
        "src/app/a/two.py": "def two():\n    return one()\n",
        "src/app/b/three.py": "def three():\n    return four()\n",
        "src/app/b/four.py": "def four():\n    return one()\n",
        "tests/test_one.py": "def test_one():\n    assert one() and four()\n"})
    exported = json.loads(run("graph", root, "--no-cache", "--format", "json").stdout)
    assert {n["id"]: n["folder"] for n in exported["nodes"]} == {
        "src/app/a/one.py": "src/app/a", "src/app/a/two.py": "src/app/a", "src/app/b/three.py": "src/app/b",
        "src/app/b/four.py": "src/app/b", "tests/test_one.py": "tests"}
    drawn = page_data(run("graph", root, "--no-cache").stdout)["nodes"]
    assert sorted({n["folder"] for n in drawn}) == ["src/app/a", "src/app/b", "tests"]


def test_every_file_on_the_page_is_labelled_by_its_shortest_unique_ending(tmp_path):
    root = write_files(tmp_path / "repo", {
        "main.py": "def main():\n    return Alpha() + Beta() + Gamma() + Delta() + Solo()\n",
        "a/base.py": "class Alpha:\n    pass\n", "b/base.py": "class Beta:\n    pass\n",
        "c/models/base.py": "class Gamma:\n    pass\n", "d/models/base.py": "class Delta:\n    pass\n",
        "e/models/solo.py": "class Solo:\n    pass\n"})
    nodes = page_data(run("graph", root, "--no-cache").stdout)["nodes"]
    assert {n["path"]: n["label"] for n in nodes} == {
        "main.py": "main.py", "a/base.py": "a/base.py", "b/base.py": "b/base.py",
        "c/models/base.py": "c/models/base.py", "d/models/base.py": "d/models/base.py", "e/models/solo.py": "solo.py"}


def test_files_linked_to_none_are_listed_on_the_page_not_drawn(shop):
    data = page_data(run("graph", FIXTURES / "repo", "--no-cache").stdout)
    assert data["undrawn"] == ["docs/guide.md"]  # a document nothing refers to
    assert "docs/guide.md" not in {n["path"] for n in data["nodes"]} and len(data["nodes"]) == 8
    exported = json.loads(run("graph", FIXTURES / "repo", "--no-cache", "--format", "json").stdout)
    assert "docs/guide.md" in {n["id"] for n in exported["nodes"]}  # the data exports keep every file


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """Three hundred files in four package folders, each calling ten others, and files whose
    names and default values hold markup and script: the page the CLI writes for them."""
    root = tmp_path_factory.mktemp("many")
    files = {path: f"def hostile{k}({HOSTILE_DEFAULTS}):\n    return 1\n" for k, path in enumerate(HOSTILE)}
    for i in range(300):
        calls = "".join(f"    f{(i * 7 + 13 * j) % 300}()\n" for j in range(1, 11))
        files[f"pkg/{['alpha', 'beta', 'gamma', 'delta'][i % 4]}/m{i}.py"] = f"def f{i}():\n{calls}    hostile{i % 4}()\n"
    write_files(root, files)
    page = tmp_path_factory.mktemp("page") / "graph.html"
    result = run("graph", root, "--top", "300", "--output", page, "--no-cache")
    assert result.returncode == 0, result.stderr
    return page


def test_a_page_of_hundreds_of_files_stays_small(many):
    text = many.read_text()
    data = page_data(text)
    assert len(data["nodes"]) == 300 and len(data["edges"]) > 3000
    assert len(text.encode()) < 200_000  # links as numbered pairs, each set of names once


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (.ci/run does: apt-get install chromium)")
        pytest.skip("no Chromium here (apt-get install chromium)")
    opened = Browser()
    yield opened
    opened.close()


@pytest.mark.long
def test_a_browser_draws_the_page_offline_and_a_click_explains_a_node(browser, tmp_path):
    page = tmp_path / "graph.html"
    result = run("graph", FIXTURES / "repo", "--output", page, "--no-cache")
    assert result.returncode == 0, result.stderr
    browser.open(page.as_uri(), "document.querySelectorAll('circle.node').length > 0")
    assert browser.evaluate("document.querySelectorAll('circle.node').length") == 8  # docs/guide.md links to none
    assert browser.evaluate("document.querySelectorAll('line.edge').length") == 6
    assert browser.failed_requests == [] and browser.errors == []
    assert png_colours(browser.screenshot()) > 20  # drawn, not blank
    labels = browser.evaluate("[...document.querySelectorAll('text.label:not(.hover)')].map(t => t.textContent)")
    assert sorted(labels) == ["api.ts", "app.js", "cart.py", "item.py", "main.go", "money.py", "store.go",
                              "test_cart.py"]
    assert "1 file with no link not drawn" in browser.evaluate("document.getElementById('count').textContent")

    # Each link ends in an arrow; the slider shows the heaviest links, fewer or more.
    assert browser.evaluate("getComputedStyle(document.querySelector('line.edge')).markerEnd") == 'url("#arrow")'
    assert browser.evaluate("document.querySelector('marker#arrow path') !== null")
    visible = "[...document.querySelectorAll('line.edge')].filter(e => e.getAttribute('visibility') === 'visible').length"
    assert browser.evaluate(visible) == 6
    browser.evaluate("(() => { const cut = document.getElementById('cut'); cut.value = 2;"
                     " cut.dispatchEvent(new Event('input')); })()")
    assert browser.evaluate(visible) == 2
    assert browser.evaluate("document.getElementById('count').textContent").startswith("8 files · 2 of 6 links shown")
    browser.evaluate("(() => { const cut = document.getElementById('cut'); cut.value = 6;"
                     " cut.dispatchEvent(new Event('input')); })()")

    # A real click at the centre of cart.py's circle shows its signatures and who refers to it.
    x, y = browser.evaluate("""(() => {
        const r = document.querySelector('circle.node[data-path="shop/cart.py"]').getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
    assert browser.evaluate(f"document.elementFromPoint({x}, {y}).dataset.path") == "shop/cart.py"
    browser.click(x, y)
    info = browser.evaluate("document.getElementById('info').innerText")
    assert info.startswith("shop/cart.py") and "class Cart" in info
    assert "tests/test_cart.py" in info.split("referred to by")[1]
    assert browser.evaluate("document.querySelectorAll('line.edge.lit').length") > 0

    # The search box highlights the file that matches.
    browser.evaluate("document.getElementById('search').focus()")
    browser.type("money")
    assert browser.evaluate("[...document.querySelectorAll('circle.match')].map(c => c.dataset.path)") == \
        ["shop/money.py"]


def test_hundreds_of_files_with_hostile_names_draw_in_clusters(browser, many):
    browser.open(many.as_uri(), "document.querySelectorAll('circle.node').length > 0")
    assert browser.errors == [] and browser.dialogs == [] and browser.failed_requests == []
    assert browser.evaluate("document.querySelectorAll('circle.node').length") == 300
    assert browser.evaluate("document.getElementById('count').textContent").startswith("300 files · 600 of ")
    assert png_colours(browser.screenshot()) > 20
    # Each package folder is a cluster with its name over it.
    clusters = browser.evaluate("[...document.querySelectorAll('text.cluster')].map(t => t.textContent)")
    assert {"alpha/", "beta/", "gamma/", "delta/"} <= set(clusters)
    # The names are shown as they are, never run: in tooltips, and in the panel of a chosen file.
    titles = browser.evaluate("[...document.querySelectorAll('circle.node title')].map(t => t.textContent.split('\\n')[0])")
    assert set(HOSTILE) <= set(titles)
    browser.evaluate("""document.querySelector('circle.node[data-path="<!--<script>.py"]')
                        .dispatchEvent(new MouseEvent('click'))""")
    info = browser.evaluate("document.getElementById('info').innerText")
    assert info.startswith("<!--<script>.py") and f"def hostile0({HOSTILE_DEFAULTS}):" in info
    # Not every label fits among 300 files; any file's shows on hover.
    assert 20 < len(browser.evaluate("[...document.querySelectorAll('text.label:not(.hover)')]")) < 300
    browser.evaluate("document.querySelector('circle.node[data-path=\"pkg/delta/m299.py\"]')"
                     ".dispatchEvent(new MouseEvent('mouseenter'))")
    hover = "document.querySelector('text.label.hover')"
    assert browser.evaluate(f"{hover}.getAttribute('visibility')") == "visible"
    assert browser.evaluate(f"{hover}.textContent") == "m299.py"
    assert browser.errors == [] and browser.dialogs == []
    browser.evaluate("alert('probe')")  # and a dialog, were one opened, is seen
    assert browser.dialogs == ["probe"]
