"""The file reference graph that ranking (ranking.py) runs on, made of what the files
define and reference, and brought up to date after an edit.

A reference in file A to a name that file B defines is an edge A -> B. Parallel
references are summed (square-rooted, so one chatty file cannot dominate);
a name several files define is split between them by the size of each
definition (a stub gets less than the real thing); a name many files define
counts less, private names count less.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache

import numpy as np

from .arrays import Packed, packed, run_starts, taken, unpacked, within
from .index import FileInfo
from .tags import Tag, family_for, is_document
from .weights import COMMON_NAME_FILES, METHOD_CALL, PRIVATE_NAME, SECONDARY_FILE


@dataclass
class Definitions:
    """Every definition of the graph's files as columns, numbered in path order and then as
    each file lists them (which is the order of their start bytes). They depend only on what
    the files define and the graph (index.FileInfo.links): an edit that changes neither keeps
    them, and one that leaves every file's definitions' names looks up the slots of the rows
    joined again alone (`updated`)."""

    file: np.ndarray  # the file's number in Edges.files
    name: np.ndarray  # the name's number in `names`
    names_text: str  # every defined name (local ones too, unlike Edges.names), "\0" between
    first: np.ndarray  # per file, the number of its first definition
    # Where ranking._inflow sums the rank flowing into each definition: rows of Edges that point at
    # the same (file, name) share a slot with the definitions of that name in that file.
    target: np.ndarray  # per definition, its slot (1: one no row points at)
    row_target: np.ndarray  # per row of Edges, its slot (0: a row no definition takes)

    @classmethod
    def of(cls, edges: Edges, inputs: Inputs) -> Definitions:
        """The definitions of `inputs`, whose graph `edges` is; names are numbered in the order
        they first come."""
        counts = inputs.every_count
        file = np.repeat(np.arange(len(edges.files), dtype=np.int64), counts)
        ids, first = np.unique(inputs.every_name, return_index=True)
        ids = ids[np.argsort(first, kind="stable")]  # in the order they first come
        number = np.zeros(len(inputs.names), dtype=np.int64)
        number[ids] = np.arange(len(ids))
        name = number[inputs.every_name]
        names = taken(inputs.names, ids)
        in_edges = _used(inputs)  # numbered as the graph numbers its names
        at = np.where(in_edges, np.cumsum(in_edges) - 1, -1)[inputs.every_name]
        width = max(len(edges.names), 1)
        key = np.where(at >= 0, file * width + at, -1)
        keys = np.sort(key[key >= 0])
        keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
        target = np.where(key >= 0, np.searchsorted(keys, key) + 2, 1).astype(np.int32)
        return cls(file, name, "\0".join(names), np.cumsum(counts) - counts, target,
                   _slots(keys, edges.dst, edges.name, width))

    def updated(self, edges: Edges, before: Inputs, after: Inputs) -> Definitions | None:
        """These definitions, of `before`, made those of `after`, whose graph `edges` was joined
        again from the one of `before` (updated_edges): where every file defines the names it
        did, in the same order, only the rows joined again look for their slots. Equal to
        Definitions.of(edges, after); None where that does not hold, or a definition's name
        came into the graph or left it (a local one's, which another file now references)."""
        if edges.joined_again is None or not _same_definitions(before, after):
            return None
        kept, at = edges.joined_again
        width = max(len(edges.names), 1)
        in_edges = _used(after)  # numbered as the graph numbers its names
        slot = np.where(in_edges, np.cumsum(in_edges) - 1, -1)[after.every_name]
        taken = self.target >= 2
        if not np.array_equal(taken, slot >= 0):
            return None
        keys = np.empty(int(self.target.max(initial=1)) - 1, dtype=np.int64)  # the slots' (file, name), in order
        keys[self.target[taken] - 2] = self.file[taken] * width + slot[taken]
        joined = at + np.arange(len(at))  # where the rows joined again are now
        row_target, = _inserted([self.row_target], kept, at, [_slots(keys, edges.dst[joined], edges.name[joined], width)])
        return Definitions(self.file, self.name, self.names_text, self.first, self.target, row_target)

    @cached_property
    def names(self) -> dict[str, int]:
        """Each defined name's number, made when first asked for: only a task's words need it,
        and a kernel's million names take 1.5 s."""
        return {n: i for i, n in enumerate(self.names_text.split("\0"))} if self.names_text else {}

    def defined(self, files: list[str]) -> dict[str, int]:
        """How many definitions have each name, outside documents (`files`: the graph's)."""
        document = documents(tuple(files))
        text = self.names_text.split("\0") if self.names_text else []
        counts = np.bincount(self.name[~document[self.file]], minlength=len(text))
        return {text[k]: int(counts[k]) for k in np.flatnonzero(counts).tolist()}

    @cached_property
    def name_counts(self) -> np.ndarray:
        """How many definitions have each name (by its number), counted once: a task that
        writes a name as code asks for it on every query."""
        return np.bincount(self.name)

    def tag(self, k: int, edges: Edges, infos: dict[str, FileInfo]) -> Tag:
        """Definition number `k` as a Tag (its file's Tags are made on the first such call)."""
        f = int(self.file[k])
        return infos[edges.files[f]].defs[k - int(self.first[f])]

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"file": self.file, "name": self.name, "first": self.first, "target": self.target,
                "row_target": self.row_target,
                "text": np.frombuffer(self.names_text.encode("utf-8", "surrogatepass"), dtype=np.uint8)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Definitions:
        """Stored definitions, checked as far as what they index with (ValueError if damaged)."""
        text = arrays["text"].tobytes().decode("utf-8", "surrogatepass")
        file, name, first, target = arrays["file"], arrays["name"], arrays["first"], arrays["target"]
        n_names = text.count("\0") + 1 if text else 0
        if not (len(name) == len(file) == len(target) and int(name.max(initial=-1)) + 1 == n_names
                and within(file, len(first)) and within(name, n_names) and within(target, len(file) + 2)
                and within(arrays["row_target"], len(file) + 2)
                and np.array_equal(first, np.searchsorted(file, np.arange(len(first))))
                and not (file[1:] < file[:-1]).any()):  # in file order, each file's first where it starts
            raise ValueError("stored definitions damaged")
        return cls(file, name, text, first, target, arrays["row_target"])


def _same_definitions(before: Inputs, after: Inputs) -> bool:
    """Whether every file defines the names it did, local ones too, in the same order (the
    names numbered alike, or as Inputs.renamed says): then the graph's definitions are
    those of `before` but for the slots of rows joined again."""
    if not np.array_equal(after.every_count, before.every_count):
        return False
    if after.names is before.names:
        return np.array_equal(after.every_name, before.every_name)
    return _renamed(before, after) is not None and np.array_equal(after.renamed[before.every_name], after.every_name)


def _renamed(before: Inputs, after: Inputs) -> np.ndarray | None:
    """Per name of `before`, its number in `after`, which was spliced from it (-1: gone);
    None where the names are the same, or `after` was not spliced from `before`."""
    renamed = after.renamed
    return renamed if after.names is not before.names and renamed is not None \
        and len(renamed) == len(before.names) else None


def _slots(keys: np.ndarray, dst: np.ndarray, name: np.ndarray, width: int) -> np.ndarray:
    """Per row, the slot of the definitions of its name in its target file (Definitions.target),
    from the slots' keys (file * width + name, ascending); 0 where none takes it."""
    if not len(keys):
        return np.zeros(len(dst), dtype=np.int32)
    row_key = dst.astype(np.int64) * width + name
    at = np.minimum(np.searchsorted(keys, row_key), len(keys) - 1)
    return np.where(keys[at] == row_key, at + 2, 0).astype(np.int32)


@dataclass
class Edges:
    """The reference graph before a task's signals: one row per (source file, target file, name).

    It depends only on what each file defines and references (index.FileInfo.links), so a
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
    # The state of the files (RepoMap: what they define and reference) whose graph and
    # definitions these equal: its own, or after an edit that changed neither (a definition
    # grew whose name is defined once), the last one's, so what was ranked for it still holds.
    state: str
    # Made by updated_edges: which rows of the last graph were kept, and where the rows joined
    # again went among them (numpy.insert's places), for Definitions.updated. Not stored.
    joined_again: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def walk(self) -> Walk:
        """The random walk over the rows as they are: kept, since a task rescales rows only
        when it names identifiers or focus files (a kernel's takes 0.15 s to make per query,
        0.09 s before its per-pair form, which saves 0.18 s of PageRank)."""
        return Walk.of(len(self.files), self.src, self.dst, self.weight, self.external, self.pairs)

    @cached_property
    def pairs(self) -> np.ndarray:
        """Where each run of rows from one file to the same other file starts."""
        return run_starts(self.src, self.dst)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The graph with its pairs and walk, which a process would otherwise make again before
        its first ranking (Django: 7 ms of an edited map's 0.25 s; the kernel: 0.15 s)."""
        made = "walk" not in self.__dict__
        arrays = {"src": self.src, "dst": self.dst, "name": self.name, "weight": self.weight,
                  "external": self.external, "ref_external": self.ref_external, "secondary": self.secondary,
                  "files": packed(self.files), "names": packed(self.names), "state": packed([self.state]),
                  "pairs": self.pairs, **{f"walk_{part.name}": getattr(self.walk, part.name) for part in fields(Walk)}}
        if made and self.joined_again is None:  # a whole graph's is let go once stored, till ranking asks:
            del self.__dict__["walk"]  # kept, it raised a cold kernel map's peak by 140 MB; one joined again
            # after an edit is ranked next, and the kernel's walk takes 0.3 s or more to make again
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
                    arrays["secondary"], unpacked(arrays["state"])[0])
        edges.__dict__.update(pairs=pairs, walk=walk)  # the cached properties, as made when stored
        return edges


@dataclass
class Inputs:
    """What the graph is made of: every file's def_names, def_methods, def_lines, ref_names,
    ref_counts and names (index.FileInfo) as columns over the files in path order, with the
    names numbered in sorted order. They are kept (and stored) per state of what the files
    define and reference; after an edit only the changed files' parts are gathered again
    and spliced in (`spliced`): gathering every file's part read every file's row (Django:
    0.13 s of the 0.5 s a map took after a call was added inside a body)."""

    files: list[str]
    links: np.ndarray  # per file, the first 8 bytes of its FileInfo.links as a number: which parts changed
    names: Sequence[str]  # sorted, each one used below; Packed when read from the index
    def_name: np.ndarray  # int32: per name a file defines outside function bodies
    def_method: np.ndarray  # bool
    def_lines: np.ndarray  # uint32
    def_count: np.ndarray  # int64, per file
    ref_name: np.ndarray  # int32: per name a file references
    ref_counts: np.ndarray  # uint32, three per reference
    ref_count: np.ndarray  # int64, per file
    every_name: np.ndarray  # int32: per definition, local ones too
    every_count: np.ndarray  # int64, per file
    # Made by `spliced` where the names changed: per name of the inputs spliced, its number
    # here (-1: gone), for updated_edges. Not stored.
    renamed: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, infos: dict[str, FileInfo], files: list[str]) -> Inputs:
        """The parts of `files` gathered from their FileInfo (which reads a stored file's row)."""
        ids: dict[str, int] = {}
        def_name, def_method, def_lines, def_count = array("i"), bytearray(), array("I"), array("q")
        ref_name, ref_counts, ref_count = array("i"), array("I"), array("q")
        every_name, every_count = array("i"), array("q")
        for info in map(infos.__getitem__, files):
            def_name.extend(ids.setdefault(name, len(ids)) for name in info.def_names)
            def_method += info.def_methods  # nothing but a call on a receiver reaches these
            def_lines += info.def_lines
            def_count.append(len(info.def_names))
            ref_name.extend(ids.setdefault(name, len(ids)) for name in info.ref_names)
            ref_counts.extend(info.ref_counts)
            ref_count.append(len(info.ref_names))
            every_name.extend(ids.setdefault(name, len(ids)) for name in info.names)
            every_count.append(len(info.names))
        names = sorted(ids)
        renumber = np.empty(len(ids), dtype=np.int32)  # ids in sorted name order
        renumber[np.fromiter((ids[name] for name in names), dtype=np.int64, count=len(names))] = \
            np.arange(len(names), dtype=np.int32)
        numbered = [renumber[np.frombuffer(column, dtype=np.int32)] for column in (def_name, ref_name, every_name)]
        counts = [np.frombuffer(column, dtype=np.int64) for column in (def_count, ref_count, every_count)]
        return cls(list(files), _links_of(infos, files), names, numbered[0],
                   np.frombuffer(bytes(def_method), dtype=np.int8).astype(bool), np.frombuffer(def_lines, dtype=np.uint32),
                   counts[0], numbered[1], np.frombuffer(ref_counts, dtype=np.uint32), counts[1], numbered[2], counts[2])

    def spliced(self, infos: dict[str, FileInfo]) -> Inputs:
        """These inputs made those of `infos`: the parts of files that are new or whose links
        changed are gathered, the others' taken as they are, those of files gone dropped.
        Equal to Inputs.of(infos, sorted(infos))."""
        files = sorted(infos)
        links = _links_of(infos, files)
        if files == self.files:  # an edit: the same files
            old = np.arange(len(files))
        else:
            at = {path: k for k, path in enumerate(self.files)}
            old = np.fromiter((at.get(path, -1) for path in files), dtype=np.int64, count=len(files))
        kept = old >= 0
        kept[kept] = self.links[old[kept]] == links[kept]
        new = Inputs.of(infos, [path for path, same in zip(files, kept.tolist()) if not same])
        # The names the files gathered again had: an edit seldom changes them, and each is found
        # among a kernel's 2.3 million without a bisect (21 names decoded).
        again = np.zeros(len(self.files), dtype=bool)
        again[old[~kept & (old >= 0)]] = True
        # (A set, not np.unique: its first call imports numpy.ma, 9 ms.)
        had = set(np.concatenate([getattr(self, parts[0])[_rows_of(getattr(self, count), again)]
                                  for count, parts in _PARTS.items()]).tolist())
        names, old_to, new_to = _merged(self.names, new.names, {self.names[k]: k for k in had})
        # Runs of files whose parts lie side by side in one source: a few slices per column.
        place = np.where(kept, old, np.cumsum(~kept) - 1)
        starts = [0, *(np.flatnonzero((np.diff(place) != 1) | (kept[1:] != kept[:-1])) + 1).tolist()]
        runs = [(self if kept[a] else new, int(place[a]), int(place[b - 1]) + 1)
                for a, b in zip(starts, [*starts[1:], len(files)]) if a < len(files)]
        columns: dict[str, np.ndarray] = {}
        for count, parts in _PARTS.items():
            offsets = {id(inputs): np.concatenate([[0], np.cumsum(getattr(inputs, count))]) for inputs in (self, new)}
            pieces: dict[str, list[np.ndarray]] = {name: [] for name in (count, *parts)}
            for inputs, a, b in runs:
                start, end = offsets[id(inputs)][a], offsets[id(inputs)][b]
                pieces[count].append(getattr(inputs, count)[a:b])
                for name in parts:
                    width = 3 if name == "ref_counts" else 1
                    piece = getattr(inputs, name)[start * width:end * width]
                    pieces[name].append((old_to if inputs is self else new_to)[piece] if name.endswith("_name") else piece)
            for name, made in pieces.items():
                columns[name] = np.concatenate(made) if made else getattr(new, name)[:0]
        made = Inputs(files, links, names, **columns)._compacted(old_to)
        if made.names is self.names:
            made.renamed = None
        return made

    def _compacted(self, renamed: np.ndarray) -> Inputs:
        """Without the names no part uses any more (a file gone, a call removed); `renamed`:
        where the names of the inputs these were made from went among the names before."""
        used = np.zeros(len(self.names), dtype=bool)
        for column in (self.def_name, self.ref_name, self.every_name):
            used[column] = True
        self.renamed = renamed
        if used.all():
            return self
        number = np.where(used, np.cumsum(used) - 1, -1).astype(np.int32)
        self.names = taken(self.names, np.flatnonzero(used))
        self.def_name, self.ref_name, self.every_name = (number[c] for c in (self.def_name, self.ref_name, self.every_name))
        self.renamed = number[renamed]
        return self

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"files": packed(self.files), "names": packed(self.names),
                **{f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("files", "names", "renamed")}}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Inputs:
        """Stored inputs, checked as far as what they index with (ValueError if damaged)."""
        inputs = cls(unpacked(arrays["files"]), names=Packed(arrays["names"]),
                     **{f.name: arrays[f.name] for f in fields(cls) if f.name not in ("files", "names", "renamed")})
        whole = len(inputs.links) == len(inputs.files) and len(inputs.ref_counts) == 3 * len(inputs.ref_name) \
            and len(inputs.def_method) == len(inputs.def_lines) == len(inputs.def_name)
        for count, parts in _PARTS.items():
            lengths = getattr(inputs, count)
            whole = whole and len(lengths) == len(inputs.files) and int(lengths.sum()) == len(getattr(inputs, parts[0])) \
                and within(getattr(inputs, parts[0]), len(inputs.names)) and int(lengths.min(initial=0)) >= 0
        if not whole:
            raise ValueError("stored graph inputs damaged")
        return inputs


# Each file's part of these columns of Inputs, by the column that says how long it is.
_PARTS = {"def_count": ("def_name", "def_method", "def_lines"), "ref_count": ("ref_name", "ref_counts"),
          "every_count": ("every_name",)}


def _links_of(infos: dict[str, FileInfo], files: list[str]) -> np.ndarray:
    """Per file, the first 8 bytes of its links as a number (little-endian; zeros where short)."""
    return np.frombuffer(b"".join([infos[p].links[:8].ljust(8, b"\0") for p in files]), dtype="<u8").astype(np.uint64)


def _merged(old: Sequence[str], new: list[str], known: dict[str, int]) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
    """Two sorted lists of names as one, and where each one's names went in it (`known`: the
    places in `old` of some names)."""
    places = [known[name] if name in known else bisect_left(old, name) for name in new]
    extra = [name for name, k in zip(new, places) if name not in known and (k == len(old) or old[k] != name)]
    if not extra:
        return old, np.arange(len(old), dtype=np.int32), np.array(places, dtype=np.int32)
    names = sorted([*old, *extra])  # two sorted runs: one merge
    before = np.array(sorted(bisect_left(old, name) for name in extra), dtype=np.int64)
    old_to = (np.arange(len(old)) + np.searchsorted(before, np.arange(len(old)), "right")).astype(np.int32)
    return names, old_to, np.array([bisect_left(names, name) for name in new], dtype=np.int32)


def build_edges(inputs: Inputs, secondary: set[str], state: str) -> Edges:
    """Join every file's references to the files defining the name, in numpy: a kernel-sized
    graph has tens of millions of rows, too many for Python objects. `state`: that of the
    files the inputs are (Edges.state)."""
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
    stays as it is. Equal to build_edges(after, secondary, state) but for Edges.state, kept
    where neither the graph nor its definitions changed; None where the files or the
    secondary files changed, or `after` has other names and was not spliced from `before`
    (then it is built). A name that comes into the graph or leaves it (a call of a name
    called nowhere before, a new function) renumbers the rows' names after it, in order."""
    files = after.files
    is_secondary = np.array([f in secondary for f in files], dtype=bool)
    renamed = _renamed(before, after)
    used_before, used = _used(before), _used(after)
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
        names_was, names_now, *alike[count] = _altered(before, after, changed, count, _PARTS[count], renamed)
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
    # The last graph's walk is let go unless the new one is made of it (a kernel's is 300 MB).
    walk = edges.__dict__.pop("walk", None)
    in_place = len(gone) == len(src) and all(np.array_equal(column[gone], part) for column, part in
                                             ((edges.dst, dst), (edges.src, src), (old_name, name)))
    if in_place:
        # The rows joined again are the rows taken out (a definition grew: only weights move),
        # so they go back in their places: a kernel's graph is not laid out again.
        columns = [edges.src, edges.dst, old_name, edges.weight.copy()]
        moved = not np.array_equal(columns[3][gone], weight)
        columns[3][gone] = weight
        at = gone - np.arange(len(gone))
    else:
        walk = None
        key = _row_key(edges.dst[kept], edges.src[kept], old_name[kept], len(files), len(new.names))
        at = np.searchsorted(key, _row_key(dst, src, name, len(files), len(new.names)))
        columns = _inserted([edges.src, edges.dst, old_name, edges.weight], kept, at, [src, dst, name, weight])
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
        and _same_definitions(before, after)
    made = Edges(files, new.names, *columns, external, ref_external, is_secondary,
                 edges.state if unchanged else state, (kept, at))
    if in_place:  # the rows' files are where they were
        made.__dict__["pairs"] = edges.pairs
        if walk is not None and (walk := walk.reweighted(made, gone, edges.external)) is not None:
            made.__dict__["walk"] = walk
    return made


def _moved_names(names: Sequence[str], to_now: np.ndarray, count: int, now) -> list[str]:
    """The `count` names of a graph after an edit: each of the last one's `names` where
    `to_now` puts it (-1: gone), the others now(number). Copied in runs, not one at a time
    (Django's 29,700: 6 ms), as an edit moves a few."""
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


def _inserted(columns: list[np.ndarray], kept: np.ndarray, at: np.ndarray, parts: list[np.ndarray]
              ) -> list[np.ndarray]:
    """Each column's `kept` rows with its part's rows put before the kept rows numbered by
    `at` (non-decreasing), as np.insert would, with the places found once for every column
    (np.insert finds them per column: it was a fifth of Django's graph update)."""
    taken = np.zeros(int(kept.sum()) + len(at), dtype=bool)
    taken[at + np.arange(len(at))] = True
    rest, out = ~taken, []
    for column, part in zip(columns, parts):
        joined = np.empty(len(taken), dtype=column.dtype)
        joined[rest] = column[kept]
        joined[taken] = part
        out.append(joined)
    return out


def _altered(before: Inputs, after: Inputs, changed: np.ndarray, count: str, parts: tuple[str, ...],
             renamed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The names (as `before` numbers them, and as `after` does) whose rows among `parts`
    differ between the two in the files marked `changed`, rows matched by name (a file has
    one row a name): a call added changes one row, so only that name's rows are joined again,
    not those of every name the file uses (the kernel's include/linux/device.h uses 1,500);
    and the rows alike in both (before's, after's). `renamed`: _renamed(before, after)."""
    files = np.flatnonzero(changed)
    rows = [_rows_of(getattr(inputs, count), changed) for inputs in (before, after)]
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


def _used(inputs: Inputs) -> np.ndarray:
    """Per name of the inputs, whether the graph has it (defined outside bodies or referenced)."""
    used = np.zeros(len(inputs.names), dtype=bool)
    used[inputs.def_name] = True
    used[inputs.ref_name] = True
    return used


def _rows_of(counts: np.ndarray, files: np.ndarray) -> np.ndarray:
    """Where the parts of the files marked in `files` lie in a column of parts `counts` long."""
    lengths = counts[files]
    starts = (np.cumsum(counts) - counts)[files]
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))


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
        """`names`: those of the graph, if known (a kernel's million take 0.1 s to list);
        `used`: _used(inputs), if known."""
        used = _used(inputs) if used is None else used
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


@lru_cache(maxsize=2)  # the graph's files change seldom; numbering them took Django's edit 5 ms
def _families(files: tuple[str, ...]) -> np.ndarray:
    """Each file's family (tags.family_for) as a number, equal for files of one family."""
    numbers: dict[str, int] = {}
    family = np.array([numbers.setdefault(family_for(f), len(numbers)) for f in files], dtype=np.int32)
    family.flags.writeable = False
    return family


@lru_cache(maxsize=2)  # as _families: a file list's documents took a ranking 1 ms a time
def documents(files: tuple[str, ...]) -> np.ndarray:
    """Whether each file is a document (tags.is_document)."""
    documents = np.fromiter(map(is_document, files), dtype=bool, count=len(files))
    documents.flags.writeable = False
    return documents


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
    index.FileInfo.ref_names), which is 3-5 times quicker (Django's 54,000: 0.6 ms, not 3.4;
    3 million: 0.12 s, not 0.29)."""
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


@dataclass
class Walk:
    """The transitions of PageRank over the files and one sink node (references to names
    defined nowhere here): each file's out-weights sum to 1. Per row of the graph (then one
    per file with references to the sink), for ranking._inflow; and per pair of files, parallel rows
    summed and grouped by target, for PageRank: a kernel's 7.2 million rows are 4.3 million
    pairs, and a sum per target over adjacent pairs is faster than a scattered one (a kernel
    query's PageRank 0.25 -> 0.07 s)."""

    rows: np.ndarray
    share: np.ndarray
    dangling: np.ndarray  # files without outgoing edges (and the sink): they hand rank out again
    pair_rows: np.ndarray  # per pair, its source
    pair_share: np.ndarray
    targets: np.ndarray  # the files (and sink) some pair points at, ascending
    target_starts: np.ndarray  # where each one's pairs start

    @classmethod
    def of(cls, n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, external: np.ndarray,
           pairs: np.ndarray) -> Walk:
        """Rows in (dst, src) order, and `pairs` where each (dst, src) run starts (Edges.pairs)."""
        sink = np.flatnonzero(external > 0).astype(np.int32)
        rows = np.concatenate([src.astype(np.int32, copy=False), sink])
        share = np.concatenate([weight, external[sink]])
        out = np.bincount(rows, weights=share, minlength=n + 1)
        share /= out[rows]
        starts = np.concatenate([pairs, np.arange(len(src), len(rows))])  # a sink row is a pair of its own
        pair_cols = np.concatenate([dst[pairs], np.full(len(sink), n, dtype=np.int32)])
        target_starts = run_starts(pair_cols)
        return cls(rows, share, out == 0, rows[starts], np.add.reduceat(share, starts), pair_cols[target_starts],
                   target_starts)

    def reweighted(self, edges: Edges, rows: np.ndarray, external: np.ndarray) -> Walk | None:
        """This walk, of a graph with `edges`' rows and pairs, whose rows numbered `rows` and
        files' mass to the sink (`external`, now edges.external) may have moved: the shares of
        the files whose rows moved made again (as Walk.of makes them, to the last bit), the
        others' kept. None where a file's sink row comes or goes (then it is made whole). A
        definition grown by an edit moves a few files' rows: a kernel's walk took 0.3 s to make."""
        n, rows_n = len(edges.files), len(edges.src)
        sink = np.flatnonzero(edges.external > 0)
        if len(sink) != len(self.rows) - rows_n or not np.array_equal(sink, self.rows[rows_n:]):
            return None
        moved = np.zeros(n + 1, dtype=bool)
        moved[edges.src[rows]] = True
        moved[np.flatnonzero(edges.external != external)] = True
        at = np.flatnonzero(moved[self.rows])  # every row of those files, in order (sink rows last)
        source, inside = self.rows[at], at < rows_n
        weight = np.empty(len(at))
        weight[inside], weight[~inside] = edges.weight[at[inside]], edges.external[source[~inside]]
        out = np.bincount(source, weights=weight, minlength=n + 1)  # those files' sums, added in Walk.of's order
        share, pair_share, dangling = self.share.copy(), self.pair_share.copy(), self.dangling.copy()
        share[at] = weight / out[source]
        dangling[moved] = out[moved] == 0
        # A pair's rows are one file's and lie side by side: those of the files that moved, in `at`.
        pairs = np.flatnonzero(moved[self.pair_rows])
        starts = np.concatenate([edges.pairs, np.arange(rows_n, len(self.rows))])[pairs]
        pair_share[pairs] = np.add.reduceat(share[at], np.searchsorted(at, starts)) if len(pairs) else 0.0
        return Walk(self.rows, share, dangling, self.pair_rows, pair_share, self.targets, self.target_starts)

    def fits(self, n: int) -> bool:
        """Whether a stored walk over `n` files (and the sink) indexes only what is there."""
        return len(self.rows) == len(self.share) and len(self.dangling) == n + 1 \
            and len(self.pair_rows) == len(self.pair_share) and len(self.targets) == len(self.target_starts) \
            and within(self.rows, n + 1) and within(self.pair_rows, n + 1) and within(self.targets, n + 1) \
            and within(self.target_starts, len(self.pair_rows))


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




