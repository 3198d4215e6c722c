"""The ranked file graph as networkx sees it, and written in the formats other tools read.

The graph is the one the map is ranked on, cut to the best-ranked files and the edges
among them. Nodes carry path, language, folder (the one that groups them: see `folders`),
rank, the number of definitions and the best few definitions' names and signatures; edges
carry the summed reference weight and the names that link the two files, heaviest first.
GraphML, GEXF, node-link JSON and DOT come from networkx's own writers; the HTML page is one
offline file (templates/graph.html.j2) drawn to explain a large repository at a glance.
networkx and numpy are imported when a graph is made.
"""

from __future__ import annotations

import io
import itertools
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, NamedTuple

from .config import GRAPH_FORMATS
from .errors import RepoMapError, json_text, visible
from .signatures import signatures
from .templating import packaged_template
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
    folder = folders(files)
    graph = nx.DiGraph()
    for path in files:
        shown = signatures(best[path], sources[path]) if best[path] else {}
        graph.add_node(path, path=path, language=language_for(path) or "", folder=folder[path],
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


def folders(paths: list[str]) -> dict[str, str]:
    """Each file's group: its folder at the depth where the files' folders differ. A folder that
    holds more than half the files is split into its subfolders (its own files stay under its
    name), so a repository inside one package folder (django/, src/flask/) is told apart by the
    packages within it, while a few files beside it (tests/) do not hide them."""
    group = dict.fromkeys(paths, "")
    while group:
        biggest, size = Counter(group.values()).most_common(1)[0]
        split = {path: _deeper(path, biggest) for path, at in group.items() if at == biggest}
        parts = set(split.values())
        if parts == {biggest} or (len(parts) > 1 and 2 * size <= len(paths)):
            break
        group.update(split)
    return {path: at or "(top level)" for path, at in group.items()}


def _deeper(path: str, folder: str) -> str:
    """The folder one level below `folder` that holds `path`, or `folder` for a file right in it."""
    rest = path[len(folder) + 1:] if folder else path
    return folder if "/" not in rest else f"{folder}/{rest.split('/')[0]}".lstrip("/")


def labels(paths: list[str]) -> dict[str, str]:
    """Each path's shortest ending (whole folders and the file name) that no other of `paths`
    ends with: `base.py` where it is the only one, else `db/models/base.py`."""
    endings = [["/".join(parts[-k:]) for k in range(1, len(parts) + 1)] for parts in (p.split("/") for p in paths)]
    seen = Counter(ending for own in endings for ending in own)
    return {path: next((ending for ending in own if seen[ending] == 1), path) for path, own in zip(paths, endings)}


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


SHOWN_PER_FILE = 2  # the page first shows the heaviest links, this many per drawn file
CARRIED_PER_FILE = 12  # the page holds at most this many links per file, the heaviest
CLUSTERED_FROM = 150  # from this many files on, each folder is laid out as a cluster of its own


class Page(NamedTuple):
    """What the page draws of a graph: its linked files best first, the links it carries
    heaviest first (source and target by number), and the files it leaves out."""

    files: list[str]
    links: list[tuple[int, int]]
    undrawn: list[str]


def _drawn(graph) -> Page:
    """A file linked to none of the others says nothing in a picture of links (most are tied
    at the bottom of the ranking, like documents nothing refers to): the page lists it
    instead of drawing it, unless no file has a link. Of the links it keeps every file's
    heaviest in and out, and the heaviest overall up to CARRIED_PER_FILE a file."""
    linked = [path for path in graph if graph.degree(path)] if graph.number_of_edges() else list(graph)
    files = sorted(linked, key=lambda path: (-graph.nodes[path]["rank"], path))
    number = {path: i for i, path in enumerate(files)}
    heaviest = sorted(graph.edges, key=lambda edge: (-graph.edges[edge]["weight"], number[edge[0]], number[edge[1]]))
    kept = set(heaviest[:CARRIED_PER_FILE * len(files)])
    for path in files:
        for ends in (graph.in_edges(path), graph.out_edges(path)):
            if ends:
                kept.add(max(ends, key=lambda edge: graph.edges[edge]["weight"]))
    links = [(number[a], number[b]) for a, b in heaviest if (a, b) in kept]
    return Page(files, links, sorted(set(graph) - set(files)))


def _layout(files: list[str], folder: dict[str, str], links: list[tuple[int, int]], shown: int):
    """Positions in [-1, 1]: a force layout of the links first shown and every file's heaviest,
    a weak pull among a folder's files and towards the middle (so no file drifts off alone);
    past CLUSTERED_FROM files, each folder laid out apart and the folders placed by the links
    between them, none overlapping."""
    import networkx as nx
    import numpy as np

    drawn = _layout_links(links, shown)
    if len(files) > CLUSTERED_FROM:
        return _clustered(files, folder, drawn)
    graph = nx.Graph()
    middle = len(files)
    graph.add_edges_from(((i, middle) for i in range(len(files))), weight=0.02)
    for i, j in itertools.combinations(range(len(files)), 2):
        if folder[files[i]] == folder[files[j]]:
            graph.add_edge(i, j, weight=0.1)
    graph.add_edges_from(drawn, weight=1.0)
    xy = nx.spring_layout(graph, seed=1, iterations=200)
    return _fit(np.array([xy[i] for i in range(len(files))]).reshape(len(files), 2))


def _layout_links(links: list[tuple[int, int]], shown: int) -> list[tuple[int, int]]:
    """The links the layout pulls along: those first shown and every file's heaviest."""
    drawn, linked = list(links[:shown]), {end for link in links[:shown] for end in link}
    for i, j in links[shown:]:  # heaviest first
        if i not in linked or j not in linked:
            drawn.append((i, j))
            linked.update((i, j))
    return drawn


def _clustered(files: list[str], folder: dict[str, str], drawn: list[tuple[int, int]]):
    """Each folder's files spread over a disc of area in proportion to their number, the
    discs placed by how many links join them and then packed without overlapping."""
    import networkx as nx
    import numpy as np

    groups: dict[str, list[int]] = defaultdict(list)
    for i, path in enumerate(files):
        groups[folder[path]].append(i)
    names = list(groups)
    place = {name: k for k, name in enumerate(names)}
    xy = np.zeros((len(files), 2))
    radius = np.array([np.sqrt(len(groups[name])) for name in names])
    joins = Counter(tuple(sorted((place[folder[files[i]]], place[folder[files[j]]]))) for i, j in drawn)
    between = nx.Graph()
    between.add_nodes_from(range(len(names)))
    between.add_weighted_edges_from((a, b, count) for (a, b), count in joins.items() if a != b)
    for k, name in enumerate(names):
        inside = nx.Graph()
        inside.add_nodes_from(groups[name])
        inside.add_edges_from((i, j) for i, j in drawn if i in inside and j in inside)
        at = nx.spring_layout(inside, seed=1, iterations=100)
        xy[groups[name]] = _disc(np.array([at[i] for i in groups[name]]).reshape(-1, 2)) * radius[k]
    centres = np.array(list(nx.spring_layout(between, seed=1, iterations=200).values())) * np.sqrt(len(files)) / 4
    for _ in range(40):  # drawn together, kept apart: the folders packed round the middle
        centres = _apart(centres * 0.9, radius + 0.6)
    for k, name in enumerate(names):
        xy[groups[name]] += centres[k]
    return _fit(xy)


def _disc(xy):
    """A force layout's points evened out over the unit disc: each keeps its direction from
    the middle and the order of its distance, so who is near whom stays while a linked core
    no longer packs into a knot with stragglers around it."""
    import numpy as np

    if len(xy) == 1:
        return np.zeros((1, 2))
    offset = xy - xy.mean(axis=0)
    distance = np.hypot(offset[:, 0], offset[:, 1])
    order = np.argsort(np.argsort(distance, kind="stable"), kind="stable")
    angle = np.arctan2(offset[:, 1], offset[:, 0])
    spread = np.sqrt((order + 0.5) / len(xy))
    return np.column_stack([spread * np.cos(angle), spread * np.sin(angle)])


def _apart(centres, radius):
    """Circles of `radius` at `centres`, each pair pushed apart until none overlap."""
    import numpy as np

    for _ in range(500):
        gap = centres[:, None, :] - centres[None, :, :]
        distance = np.maximum(np.hypot(gap[..., 0], gap[..., 1]), 1e-9)
        overlap = np.maximum(0.0, radius[:, None] + radius[None, :] - distance)
        np.fill_diagonal(overlap, 0.0)
        if not overlap.any():
            break
        centres = centres + (gap / distance[..., None] * overlap[..., None] / 2).sum(axis=1) * 1.05
    return centres


def _fit(xy):
    """Coordinates scaled into [-1, 1] on each axis, so the drawing fills the page."""
    import numpy as np

    low, high = xy.min(axis=0), xy.max(axis=0)
    return 2 * (xy - low) / np.where(high > low, high - low, 1.0) - 1


def _round(weight: float) -> float:
    return float(f"{weight:.3g}")


# `</script>` ends the page's script and `<!--` changes how it is parsed: JSON's own escapes
# of the characters that could begin either keep the data what it is.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _page(graph) -> str:
    """One self-contained page: positions laid out here, drawing and exploring in its own
    script. Links travel as numbered pairs and their names once each, so a page of hundreds
    of files stays small (bench/RESULTS.md: export._page)."""
    page = _drawn(graph)
    folder = {path: graph.nodes[path]["folder"] for path in page.files}
    shown = min(len(page.links), SHOWN_PER_FILE * len(page.files))
    xy = _layout(page.files, folder, page.links, shown) if page.files else []
    label = labels(page.files)
    nodes = [{**graph.nodes[path], "label": label[path], "x": round(float(x), 3), "y": round(float(y), 3)}
             for path, (x, y) in zip(page.files, xy)]
    names: dict[str, int] = {}
    links = [[a, b, _round(data["weight"]), names.setdefault(data["names"], len(names))]
             for a, b in page.links for data in [graph.edges[page.files[a], page.files[b]]]]
    data = json_text({"nodes": nodes, "edges": links, "names": list(names), "shown": shown,
                      "links": graph.number_of_edges(), "undrawn": page.undrawn,
                      "clustered": len(page.files) > CLUSTERED_FROM}).translate(_SCRIPT_SAFE)
    return packaged_template("graph.html.j2").render(data=data)
