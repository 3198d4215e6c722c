"""The ranked file graph as networkx sees it, and written in the formats other tools read.

The graph is the one the map is ranked on, cut to the best-ranked files and the edges
among them. Nodes carry path, language, folder, rank, the number of definitions and the
best few definitions' names and signatures; edges carry the summed reference weight and
the names that link the two files, heaviest first. GraphML, GEXF, node-link JSON and DOT
come from networkx's own writers; the HTML page is one offline file (templates/graph.html.j2).
networkx and numpy are imported when a graph is made.
"""

from __future__ import annotations

import io
from collections import defaultdict
from typing import TYPE_CHECKING

from .config import GRAPH_FORMATS
from .errors import RepoMapError, json_text, visible
from .render import packaged_template, signatures
from .tags import language_for

if TYPE_CHECKING:
    from .edges import Edges
    from .ranking import RankedList

NAMES_PER_EDGE = 5  # the names that link two files, heaviest first
BEST_PER_FILE = 5  # a node's best definitions, by the map's score


def ranked_graph(edges: Edges, file_rank: dict[str, float], ranked: RankedList, sources, top: int):
    """The `top` best-ranked files and the reference edges among them, as a networkx.DiGraph."""
    import networkx as nx
    import numpy as np

    files = sorted(file_rank, key=lambda path: (-file_rank[path], path))[:top]
    best: dict[str, list] = defaultdict(list)
    numbers = {path: k for k, path in enumerate(ranked.paths)}
    wanted = np.isin(ranked.file, [numbers[path] for path in files if path in numbers])
    for at in np.flatnonzero(wanted & (ranked.place() < BEST_PER_FILE)).tolist():
        tag = ranked[at].tag
        best[tag.path].append(tag)
    counts = dict(zip(ranked.paths, np.bincount(ranked.file, minlength=len(ranked.paths)).tolist()))
    graph = nx.DiGraph()
    for path in files:
        shown = signatures(best[path], sources[path]) if best[path] else {}
        graph.add_node(path, path=path, language=language_for(path) or "", folder=path.split("/")[0] if "/" in path else "(top level)",
                       rank=round(file_rank[path], 6), definitions=counts.get(path, 0),
                       names=", ".join(t.name for t in best[path]),
                       signatures="\n".join(shown[t.id].splitlines()[0] for t in best[path] if shown.get(t.id)))
    number = {path: i for i, path in enumerate(edges.files)}
    kept = np.array([number[path] for path in files if path in number], dtype=np.int64)
    rows = np.flatnonzero(np.isin(edges.src, kept) & np.isin(edges.dst, kept))
    pairs: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for src, dst, name, weight in zip(edges.src[rows].tolist(), edges.dst[rows].tolist(),
                                      edges.name[rows].tolist(), edges.weight[rows].tolist()):
        pairs[src, dst][name] += weight
    for (src, dst), by_name in pairs.items():
        heaviest = sorted(by_name, key=lambda name: (-by_name[name], edges.names[name]))[:NAMES_PER_EDGE]
        graph.add_edge(edges.files[src], edges.files[dst], weight=round(sum(by_name.values()), 6),
                       names=", ".join(edges.names[name] for name in heaviest))
    return graph


def write(graph, fmt: str) -> str:
    """The graph in one of GRAPH_FORMATS, as text."""
    import networkx as nx

    if fmt != "json":  # JSON escapes what it holds itself, and keeps the names exact
        graph = _printable(graph)
    if fmt in ("graphml", "gexf"):
        out = io.BytesIO()
        (nx.write_graphml if fmt == "graphml" else nx.write_gexf)(graph, out)
        return out.getvalue().decode("utf-8")
    if fmt == "json":
        return json_text(nx.node_link_data(graph, edges="edges"), indent=1) + "\n"
    if fmt == "dot":
        try:
            import pydot  # noqa: F401  (networkx's DOT writer needs it)
        except ImportError:
            raise RepoMapError("--format dot needs pydot: pip install pydot (or use graphml, gexf, json or html)") from None
        out = io.StringIO()
        nx.nx_pydot.write_dot(graph, out)
        return out.getvalue()
    if fmt == "html":
        return _page(graph)
    raise RepoMapError(f"unknown graph format {fmt!r} (choose from {', '.join(GRAPH_FORMATS)})")


def _printable(graph):
    """The graph with its names (paths, definitions' names and signatures) as they may be
    printed (errors.visible): XML cannot hold a control character at all, and a page or a
    terminal that shows one must not be driven by it. A node's signatures stay one a line."""
    import networkx as nx

    shown = nx.relabel_nodes(graph, visible, copy=True)
    for data in [*(d for _, d in shown.nodes(data=True)), *(d for _, _, d in shown.edges(data=True))]:
        data.update({key: "\n".join(map(visible, value.split("\n"))) if key == "signatures" else visible(value)
                     for key, value in data.items() if isinstance(value, str)})
    return shown


def _spread(positions: dict) -> dict:
    """A force layout packs a repository's linked core into a knot and flings lone files to
    the rim; mixing each coordinate with its rank among all nodes' keeps who is near whom
    and uses the whole page. Coordinates end in [-1, 1]."""
    import numpy as np

    paths = list(positions)
    xy = np.array([positions[p] for p in paths], dtype=float).reshape(len(paths), 2)
    spread = np.empty_like(xy)
    for axis in (0, 1):
        values = xy[:, axis]
        order = np.argsort(np.argsort(values, kind="stable"), kind="stable") / max(1, len(paths) - 1)
        span = np.ptp(values) or 1.0
        spread[:, axis] = 0.7 * (2 * order - 1) + 0.3 * (2 * (values - values.min()) / span - 1)
    return dict(zip(paths, spread))


# `</script>` ends the page's script and `<!--` changes how it is parsed: JSON's own escapes
# of the characters that could begin either keep the data what it is.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _page(graph) -> str:
    """One self-contained page: positions laid out here, drawing and exploring in its own script."""
    import networkx as nx

    positions = _spread(nx.spring_layout(graph, seed=1, weight=None, iterations=200)) if len(graph) else {}
    nodes = [{**graph.nodes[path], "x": round(float(positions[path][0]), 4), "y": round(float(positions[path][1]), 4)}
             for path in graph]
    links = [{"source": a, "target": b, **data} for a, b, data in graph.edges(data=True)]
    data = json_text({"nodes": nodes, "edges": links}).translate(_SCRIPT_SAFE)
    return packaged_template("graph.html.j2").render(data=data)
