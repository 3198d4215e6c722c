"""The file reference graph that ranking (ranking.py) runs on, made of what the files
define and reference (inputs.py), and brought up to date after an edit.

A reference in file A to a name that file B defines is an edge A -> B. Parallel
references are summed (square-rooted, so one chatty file cannot dominate);
a name several files define is split between them by the size of each
definition (a stub gets less than the real thing); a name many files define
counts less, private names count less.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache

import numpy as np

from .arrays import Packed, inserted, packed, run_starts, taken, unpacked, within
from .inputs import PARTS, Inputs, in_graph, renaming, rows_of, same_definitions
from .pagerank import Walk
from .tags import family_for
from .weights import COMMON_NAME_FILES, METHOD_CALL, PRIVATE_NAME, SECONDARY_FILE


@dataclass
class Edges:
    """The reference graph before a task's signals: one row per (source file, target file, name).

    It depends only on what each file defines and references (payload.FileInfo.links), so a
    chat loop builds it once and reuses it while no file changes that; an edit that does is
    joined again for the names it touches (updated_edges). A task's mentions and focus files
    only rescale rows.
    """

    files: list[str]
    names: Sequence[str]  # sorted; Packed when read from the index
    src: np.ndarray  # file index; rows are in (dst, src) order
    dst: np.ndarray  # file index
    name: np.ndarray  # index into names
    weight: np.ndarray
    external: np.ndarray  # per file: reference mass to names defined nowhere here
    ref_external: np.ndarray  # per reference of the Inputs it was made of, in their order: its part of that
    secondary: np.ndarray  # per file, whether it was ranked as secondary
    # The links digest (Scan.links: what the files define and reference) of the files whose
    # graph and definitions these equal: its own, or after an edit that changed neither (a
    # definition grew whose name is defined once), the last one's, so what was ranked for it
    # still holds.
    links_digest: str
    # Made by updated_edges: which rows of the last graph were kept, and where the rows joined
    # again went among them (numpy.insert's places), for Definitions.updated. Not stored.
    joined_again: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def walk(self) -> Walk:
        """The random walk over the rows as they are: kept, since a task rescales rows only
        when it names identifiers or focus files, and a large graph's walk, in the per-pair form
        PageRank gains by, is slow to make for every query (bench/RESULTS.md: edges.Edges.walk)."""
        return Walk.of(len(self.files), self.src, self.dst, self.weight, self.external, self.pairs)

    @cached_property
    def pairs(self) -> np.ndarray:
        """Where each run of rows from one file to the same other file starts."""
        return run_starts(self.src, self.dst)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The graph with its pairs and walk, which a process would otherwise make again before
        its first ranking (bench/RESULTS.md: edges.Edges.walk)."""
        made = "walk" not in self.__dict__
        arrays = {"src": self.src, "dst": self.dst, "name": self.name, "weight": self.weight,
                  "external": self.external, "ref_external": self.ref_external, "secondary": self.secondary,
                  "files": packed(self.files), "names": packed(self.names), "links_digest": packed([self.links_digest]),
                  "pairs": self.pairs, **{f"walk_{part.name}": getattr(self.walk, part.name) for part in fields(Walk)}}
        if made and self.joined_again is None:  # a whole graph's is let go once stored, till ranking asks:
            del self.__dict__["walk"]  # kept, it raises a cold map's peak memory; one joined again
            # after an edit is ranked next, and a large graph's walk is slow to make again
            # (bench/RESULTS.md: edges.Edges.walk)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Edges:
        """A stored graph, checked as far as what it indexes with (ValueError if damaged)."""
        files, names = unpacked(arrays["files"]), Packed(arrays["names"])
        src, dst, name, pairs = arrays["src"], arrays["dst"], arrays["name"], arrays["pairs"]
        walk = Walk(**{part.name: arrays[f"walk_{part.name}"] for part in fields(Walk)})
        if not (len(src) == len(dst) == len(name) == len(arrays["weight"])
                and len(arrays["external"]) == len(arrays["secondary"]) == len(files)
                and within(src, len(files)) and within(dst, len(files)) and within(name, len(names))
                and within(pairs, len(src)) and walk.fits(len(files))):
            raise ValueError("stored graph damaged")
        edges = cls(files, names, src, dst, name, arrays["weight"], arrays["external"], arrays["ref_external"],
                    arrays["secondary"], unpacked(arrays["links_digest"])[0])
        edges.__dict__.update(pairs=pairs, walk=walk)  # the cached properties, as made when stored
        return edges


def build_edges(inputs: Inputs, secondary: set[str], state: str) -> Edges:
    """Join every file's references to the files defining the name, in numpy: a large tree's
    graph has far too many rows for Python objects (bench/RESULTS.md: edges.build_edges).
    `state`: that of the files the inputs are (Edges.links_digest)."""
    numbered = _Numbered.of(inputs)
    every = np.arange(len(numbered.ref_name))
    is_secondary = np.array([f in secondary for f in inputs.files], dtype=bool)
    rows, ref_external, external = _joined(numbered, _context(numbered, inputs.files, is_secondary), every,
                                           np.arange(len(numbered.def_name)))
    return Edges(inputs.files, numbered.names, *rows, external, ref_external, is_secondary, state)


def updated_edges(edges: Edges, before: Inputs, after: Inputs, secondary: set[str], state: str) -> Edges | None:
    """`edges`, the graph of `before`, made the graph of `after` (of the files in `state`) by
    joining again only the references to the names whose parts the changed files changed
    (_altered): every other row, and every other reference's mass to names defined nowhere,
    stays as it is. Equal to build_edges(after, secondary, state) but for Edges.links_digest, kept
    where neither the graph nor its definitions changed; None where the files or the
    secondary files changed, or `after` has other names and was not spliced from `before`
    (then it is built). A name that comes into the graph or leaves it (a call of a name
    called nowhere before, a new function) renumbers the rows' names after it, in order."""
    files = after.files
    is_secondary = np.array([f in secondary for f in files], dtype=bool)
    renamed = renaming(before, after)
    used_before, used = in_graph(before), in_graph(after)
    if not (before.files == files == edges.files and np.array_equal(is_secondary, edges.secondary)
            and len(edges.ref_external) == len(before.ref_name) and used_before.sum() == len(edges.names)
            and (after.names is before.names or renamed is not None)):
        return None
    same_names = renamed is None and np.array_equal(used_before, used)
    was = (np.cumsum(used_before) - 1).astype(np.int32)  # the graph's numbers of the inputs' names
    now = was if same_names else (np.cumsum(used) - 1).astype(np.int32)
    if same_names:
        names = edges.names
    else:  # per name of the last graph, its number in this one (-1: gone)
        inputs_now = np.flatnonzero(used_before) if renamed is None else renamed[np.flatnonzero(used_before)]
        to_now = np.where(inputs_now >= 0, np.where(used, now, -1)[inputs_now], -1).astype(np.int32)
        in_inputs = np.flatnonzero(used)
        names = _moved_names(edges.names, to_now, len(in_inputs), lambda k: after.names[in_inputs[k]])
    new = _Numbered.of(after, names, used)
    if len(files) ** 2 * max(len(new.names), 1) >= 1 << 62:
        return None  # the rows' order would not fit in one number
    changed = before.links != after.links
    affected, affected_now = np.zeros(len(edges.names), dtype=bool), np.zeros(len(new.names), dtype=bool)
    alike = {}  # per part, the rows alike before and after
    for count in ("def_count", "ref_count"):  # the graph's parts (every_name is not one)
        names_was, names_now, *alike[count] = _altered(before, after, changed, count, PARTS[count], renamed)
        affected[was[names_was]] = True
        affected_now[now[names_now]] = True
    if same_names:
        affected |= affected_now
        affected_now, old_name = affected, edges.name
    else:  # a name changed in either is changed in both; the kept rows' names renumbered
        affected_now[to_now[affected & (to_now >= 0)]] = True
        affected[np.flatnonzero(to_now >= 0)[affected_now[to_now[to_now >= 0]]]] = True
        old_name = to_now[edges.name]
    refs = np.flatnonzero(affected_now[new.ref_name])
    (src, dst, name, weight), joined, _ = _joined(new, _context(new, files, is_secondary), refs,
                                                  np.flatnonzero(affected_now[new.def_name]))
    kept = ~affected[edges.name]
    gone = np.flatnonzero(~kept)
    # The last graph's walk is let go unless the new one is made of it (a large graph's is big:
    # bench/RESULTS.md: edges.Edges.walk).
    walk = edges.__dict__.pop("walk", None)
    in_place = len(gone) == len(src) and all(np.array_equal(column[gone], part) for column, part in
                                             ((edges.dst, dst), (edges.src, src), (old_name, name)))
    if in_place:
        # The rows joined again are the rows taken out (a definition grew: only weights move),
        # so they go back in their places: a large graph is not laid out again.
        columns = [edges.src, edges.dst, old_name, edges.weight.copy()]
        moved = not np.array_equal(columns[3][gone], weight)
        columns[3][gone] = weight
        at = gone - np.arange(len(gone))
    else:
        walk = None
        key = _row_key(edges.dst[kept], edges.src[kept], old_name[kept], len(files), len(new.names))
        at = np.searchsorted(key, _row_key(dst, src, name, len(files), len(new.names)))
        columns = inserted([edges.src, edges.dst, old_name, edges.weight], kept, at, [src, dst, name, weight])
    # The other references' mass is as it was; the changed files' parts are laid out anew.
    ref_file = new.ref_file
    start = np.concatenate([[0], np.cumsum(before.ref_count)])[ref_file] - \
        np.concatenate([[0], np.cumsum(after.ref_count)])[ref_file]  # where each reference was, less where it is
    ref_external = np.zeros(len(ref_file))
    same = (~changed)[ref_file]
    ref_external[same] = edges.ref_external[np.flatnonzero(same) + start[same]]
    alike_was, alike_now = alike["ref_count"]
    ref_external[alike_now] = edges.ref_external[alike_was]
    ref_external[refs] = joined  # every other reference of the changed files among them
    order = _by_name_then_file(new.ref_name, ref_file, len(files))
    external = _summed(ref_file[order], ref_external[order], len(files))
    unchanged = in_place and not moved and same_names and np.array_equal(external, edges.external) \
        and same_definitions(before, after)
    made = Edges(files, new.names, *columns, external, ref_external, is_secondary,
                 edges.links_digest if unchanged else state, (kept, at))
    if in_place:  # the rows' files are where they were
        made.__dict__["pairs"] = edges.pairs
        if walk is not None and (walk := walk.reweighted(made, gone, edges.external)) is not None:
            made.__dict__["walk"] = walk
    return made


def _moved_names(names: Sequence[str], to_now: np.ndarray, count: int, now) -> list[str]:
    """The `count` names of a graph after an edit: each of the last one's `names` where
    `to_now` puts it (-1: gone), the others now(number). Copied in runs, not one at a time
    (bench/RESULTS.md: edges._moved_names), as an edit moves a few."""
    listed = names if isinstance(names, list) else list(names)
    kept = np.flatnonzero(to_now >= 0)
    places = to_now[kept]
    breaks = (np.flatnonzero((np.diff(kept) != 1) | (np.diff(places) != 1)) + 1).tolist()
    out: list[str] = []
    for a, b in zip([0, *breaks], [*breaks, len(kept)]):
        if a < b:
            out.extend(now(k) for k in range(len(out), int(places[a])))
            out.extend(listed[kept[a]:kept[b - 1] + 1])
    out.extend(now(k) for k in range(len(out), count))
    return out


def _altered(before: Inputs, after: Inputs, changed: np.ndarray, count: str, parts: tuple[str, ...],
             renamed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The names (as `before` numbers them, and as `after` does) whose rows among `parts`
    differ between the two in the files marked `changed`, rows matched by name (a file has
    one row a name): a call added changes one row, so only that name's rows are joined again,
    not those of every name the file uses (a large header uses many: bench/RESULTS.md: edges._altered);
    and the rows alike in both (before's, after's). `renamed`: renaming(before, after)."""
    files = np.flatnonzero(changed)
    rows = [rows_of(getattr(inputs, count), changed) for inputs in (before, after)]
    owner = [np.repeat(files, getattr(inputs, count)[files]) for inputs in (before, after)]
    names = [getattr(inputs, parts[0])[r] for inputs, r in zip((before, after), rows)]
    width = len(after.names) + 1
    as_after = renamed[names[0]] if renamed is not None else names[0]
    keys = [np.where(as_after >= 0, owner[0] * width + as_after + 1, -1 - np.arange(len(as_after))),  # gone: no match
            owner[1] * width + names[1] + 1]
    _, b, a = np.intersect1d(keys[0], keys[1], return_indices=True)
    alike = np.ones(len(b), dtype=bool)
    for part in parts[1:]:
        was, now = getattr(before, part), getattr(after, part)
        if part == "ref_counts":  # three per row
            alike &= (was.reshape(-1, 3)[rows[0][b]] == now.reshape(-1, 3)[rows[1][a]]).all(axis=1)
        else:
            alike &= was[rows[0][b]] == now[rows[1][a]]
    differ = [np.ones(len(k), dtype=bool) for k in keys]
    differ[0][b[alike]] = differ[1][a[alike]] = False
    return names[0][differ[0]], names[1][differ[1]], rows[0][b[alike]], rows[1][a[alike]]


def _row_key(dst: np.ndarray, src: np.ndarray, name: np.ndarray, files: int, names: int) -> np.ndarray:
    """The order of Edges' rows (target, source, name) as one number."""
    return (dst.astype(np.int64) * files + src) * names + name


@dataclass
class _Numbered:
    """Inputs as the graph joins them: names numbered as Edges.names (those defined outside
    bodies or referenced), and each definition's and reference's file, in the inputs' order."""

    names: Sequence[str]
    used: np.ndarray  # per name of the inputs, whether it is one of `names`
    def_name: np.ndarray
    def_file: np.ndarray
    def_method: np.ndarray
    def_size: np.ndarray  # square root of the lines
    ref_name: np.ndarray
    ref_file: np.ndarray
    ref_counts: np.ndarray  # uses, calls, receiver calls, as floats

    @classmethod
    def of(cls, inputs: Inputs, names: Sequence[str] | None = None, used: np.ndarray | None = None) -> _Numbered:
        """`names`: those of the graph, if known (a large tree's are slow to list:
        bench/RESULTS.md: edges._Numbered);
        `used`: in_graph(inputs), if known."""
        used = in_graph(inputs) if used is None else used
        renumber = (np.cumsum(used) - 1).astype(np.int32)
        numbers = np.arange(len(inputs.files), dtype=np.int32)
        if names is None:
            names = taken(inputs.names, np.flatnonzero(used))
        return cls(names, used, renumber[inputs.def_name],
                   np.repeat(numbers, inputs.def_count), inputs.def_method, np.sqrt(inputs.def_lines),
                   renumber[inputs.ref_name], np.repeat(numbers, inputs.ref_count),
                   inputs.ref_counts.reshape(-1, 3).astype(np.float64))


def _context(numbered: _Numbered, files: list[str], is_secondary: np.ndarray) -> _Context:
    names = numbered.names
    return _Context(
        family=_families(tuple(files)),
        scale=np.where(is_secondary, SECONDARY_FILE, 1.0),
        name_factor=_private(names) *
        np.where(np.bincount(numbered.def_name, minlength=len(names)) > COMMON_NAME_FILES, PRIVATE_NAME, 1.0),
        method_rarity=METHOD_CALL * _rarity(np.bincount(numbered.ref_name, minlength=len(names)), len(files)),
        member_rarity=_rarity(np.bincount(numbered.ref_name, weights=numbered.ref_counts[:, 2] > 0,
                                          minlength=len(names)), len(files)))


# The graph's files change seldom, and numbering them costs every edit (bench/RESULTS.md:
# edges._families).
@lru_cache(maxsize=2)
def _families(files: tuple[str, ...]) -> np.ndarray:
    """Each file's family (tags.family_for) as a number, equal for files of one family."""
    numbers: dict[str, int] = {}
    family = np.array([numbers.setdefault(family_for(f), len(numbers)) for f in files], dtype=np.int32)
    family.flags.writeable = False
    return family


def _joined(numbered: _Numbered, context: _Context, refs: np.ndarray, defs: np.ndarray
            ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The rows of the references numbered `refs` to the definitions numbered `defs` (all those
    of their names), in Edges' order; each reference's mass to names defined nowhere; and
    that mass per file (_summed)."""
    n = numbered
    defined = _by_name(n.def_name[defs], n.def_file[defs], n.def_method[defs], n.def_size[defs])
    order = _by_name_then_file(n.ref_name[refs], n.ref_file[refs], len(context.family))  # the order rows are emitted in
    sorted_refs = tuple(column[refs[order]] for column in (n.ref_name, n.ref_file, n.ref_counts))
    parts = [_join(tuple(column[start:start + JOIN_ROWS] for column in sorted_refs), defined, context)
             for start in range(0, len(order), JOIN_ROWS)]
    external = np.empty(len(refs))
    external[order] = masses = np.concatenate([p[4] for p in parts]) if parts else np.zeros(0)
    per_file = _summed(sorted_refs[1], masses, len(context.family))
    columns = []
    for k, dtype in enumerate((np.int32, np.int32, np.int32, np.float64)):
        columns.append(np.concatenate([p[k] for p in parts]).astype(dtype, copy=False) if parts
                       else np.zeros(0, dtype=dtype))
        for part in parts:  # a column at a time: the graph is never in memory twice
            part[k] = None
    # Rows by target, then source file (then name, as joined): Walk sums parallel rows once.
    rows = np.argsort(columns[1].astype(np.int64) * len(context.family) + columns[0], kind="stable")
    return [column[rows] for column in columns], external, per_file


def _by_name_then_file(name: np.ndarray, file: np.ndarray, files: int) -> np.ndarray:
    """References in the order of their names, then files: np.lexsort((file, name)), as one
    sort of a number each reference has alone (a file references a name once:
    payload.FileInfo.ref_names), which is quicker (bench/RESULTS.md: edges._by_name_then_file)."""
    return np.argsort(name.astype(np.int64) * files + file)


def _summed(file: np.ndarray, mass: np.ndarray, files: int) -> np.ndarray:
    """Per file, the mass of its references to names defined nowhere (given in the order of
    their names, then files), summed JOIN_ROWS references at a time as the join makes them: a
    graph joined again in part sums them the same way, to the last bit."""
    external = np.zeros(files)
    for start in range(0, len(file), JOIN_ROWS):
        external += np.bincount(file[start:start + JOIN_ROWS], weights=mass[start:start + JOIN_ROWS], minlength=files)
    return external


JOIN_ROWS = 200_000  # references joined at a time: bounds the memory of the pairs in flight


def _by_name(name: np.ndarray, file: np.ndarray, *more: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rows sorted by name, then file: the order in which edges are emitted."""
    order = np.lexsort((file, name))
    return tuple(column[order] for column in (name, file, *more))


@dataclass
class _Context:
    family: np.ndarray  # per file
    scale: np.ndarray  # per file: SECONDARY_FILE for tests and vendored code
    name_factor: np.ndarray  # per name
    method_rarity: np.ndarray  # per name
    member_rarity: np.ndarray  # per name


def _join(refs: tuple[np.ndarray, ...], defs: tuple[np.ndarray, ...], c: _Context) -> list[np.ndarray]:
    """Edges of some references (name, file, counts): each one's mass (square root of its
    count) is split between the other files of its family that define the name (name, file,
    only methods, square root of lines), by that size, so a stub or a test double gets
    less than the real thing; the rest goes to the sink.
    Returns (src, dst, name, weight, each reference's external mass)."""
    ref_name, ref_file, counts = refs
    def_name, def_file, only_methods, size = defs
    lo = np.searchsorted(def_name, ref_name, "left")
    n = np.searchsorted(def_name, ref_name, "right") - lo
    row = np.repeat(np.arange(len(ref_name)), n)
    at = np.arange(len(row)) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
    src, dst = ref_file[row], def_file[at]
    keep = (src != dst) & (c.family[src] == c.family[dst])
    row, at, src, dst = row[keep], at[keep], src[keep], dst[keep]
    owners = np.bincount(row, minlength=len(ref_name))
    total = counts.sum(axis=1)
    mass = np.sqrt(total)
    name = ref_name[row]
    share = size[at] / np.bincount(row, weights=size[at], minlength=len(ref_name))[row]
    base = c.name_factor[name] * mass[row] * share
    uses, calls, members = counts[row].T
    weight = np.where(only_methods[at], base * c.method_rarity[name],
                      base * (uses + calls + members * c.member_rarity[name]) / total[row])
    resolved = np.bincount(row, weights=weight, minlength=len(ref_name))
    external = np.where(owners > 0, np.maximum(0.0, mass - resolved), mass)
    return [src, dst, name, weight * c.scale[dst], external]


def _rarity(n_referencing: np.ndarray, n_files: int) -> np.ndarray:
    """Per name: 1 for a name one file uses, falling towards 0 for one that nearly every file uses."""
    if n_files < 2:
        return np.ones(len(n_referencing))
    return np.maximum(0.05, 1.0 - np.log(np.maximum(n_referencing, 1)) / math.log(n_files))


def _private(names: Sequence[str]) -> np.ndarray:
    """PRIVATE_NAME for each of the sorted `names` that begins with "_", else 1: those lie
    side by side, before the names that begin with the next character."""
    weight = np.ones(len(names))
    weight[bisect_left(names, "_"):bisect_left(names, chr(ord("_") + 1))] = PRIVATE_NAME
    return weight
