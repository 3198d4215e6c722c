"""What the file reference graph (edges.py) and its definitions (definitions.py) are made
of: what each file defines and references, as columns over the files, kept per state of
the files and spliced after an edit."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np

from .arrays import Packed, packed, taken, unpacked, within
from .payload import FileInfo


@dataclass
class Inputs:
    """What the graph is made of: every file's def_names, def_methods, def_lines, ref_names,
    ref_counts and names (payload.FileInfo) as columns over the files in path order, with the
    names numbered in sorted order. They are kept (and stored) per state of what the files
    define and reference; after an edit only the changed files' parts are gathered again
    and spliced in (`spliced`): gathering every file's part reads every file's row, a large
    share of a map after an edit (bench/RESULTS.md: inputs.Inputs.spliced)."""

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
        # among a large tree's names without a bisect, which decodes the names it passes
        # (bench/RESULTS.md: inputs.Inputs.spliced).
        again = np.zeros(len(self.files), dtype=bool)
        again[old[~kept & (old >= 0)]] = True
        # (A set, not np.unique: its first call imports numpy.ma, which the edit would wait for;
        # bench/RESULTS.md: inputs.Inputs.spliced.)
        had = set(np.concatenate([getattr(self, parts[0])[rows_of(getattr(self, count), again)]
                                  for count, parts in PARTS.items()]).tolist())
        names, old_to, new_to = _merged(self.names, new.names, {self.names[k]: k for k in had})
        # Runs of files whose parts lie side by side in one source: a few slices per column.
        place = np.where(kept, old, np.cumsum(~kept) - 1)
        starts = [0, *(np.flatnonzero((np.diff(place) != 1) | (kept[1:] != kept[:-1])) + 1).tolist()]
        runs = [(self if kept[a] else new, int(place[a]), int(place[b - 1]) + 1)
                for a, b in zip(starts, [*starts[1:], len(files)]) if a < len(files)]
        columns: dict[str, np.ndarray] = {}
        for count, parts in PARTS.items():
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
        for count, parts in PARTS.items():
            lengths = getattr(inputs, count)
            whole = whole and len(lengths) == len(inputs.files) and int(lengths.sum()) == len(getattr(inputs, parts[0])) \
                and within(getattr(inputs, parts[0]), len(inputs.names)) and int(lengths.min(initial=0)) >= 0
        if not whole:
            raise ValueError("stored graph inputs damaged")
        return inputs


# Each file's part of these columns of Inputs, by the column that says how long it is.
PARTS = {"def_count": ("def_name", "def_method", "def_lines"), "ref_count": ("ref_name", "ref_counts"),
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


def rows_of(counts: np.ndarray, files: np.ndarray) -> np.ndarray:
    """Where the parts of the files marked in `files` lie in a column of parts `counts` long."""
    lengths = counts[files]
    starts = (np.cumsum(counts) - counts)[files]
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))


def in_graph(inputs: Inputs) -> np.ndarray:
    """Per name of the inputs, whether the graph has it (defined outside bodies or referenced)."""
    used = np.zeros(len(inputs.names), dtype=bool)
    used[inputs.def_name] = True
    used[inputs.ref_name] = True
    return used


def same_definitions(before: Inputs, after: Inputs) -> bool:
    """Whether every file defines the names it did, local ones too, in the same order (the
    names numbered alike, or as Inputs.renamed says): then the graph's definitions are
    those of `before` but for the slots of rows joined again."""
    if not np.array_equal(after.every_count, before.every_count):
        return False
    if after.names is before.names:
        return np.array_equal(after.every_name, before.every_name)
    return renaming(before, after) is not None and np.array_equal(after.renamed[before.every_name], after.every_name)


def renaming(before: Inputs, after: Inputs) -> np.ndarray | None:
    """Per name of `before`, its number in `after`, which was spliced from it (-1: gone);
    None where the names are the same, or `after` was not spliced from `before`."""
    renamed = after.renamed
    return renamed if after.names is not before.names and renamed is not None \
        and len(renamed) == len(before.names) else None
