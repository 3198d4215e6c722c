"""Every definition of the graph's files as columns: what ranking scores, search looks up
by number, and a map turns back into Tags."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .arrays import inserted, taken, within
from .payload import FileInfo
from .inputs import Inputs, in_graph, same_definitions
from .tags import Tag, is_document

if TYPE_CHECKING:
    from .edges import Edges


@dataclass
class Definitions:
    """Every definition of the graph's files as columns, numbered in path order and then as
    each file lists them (which is the order of their start bytes). They depend only on what
    the files define and the graph (payload.FileInfo.links): an edit that changes neither keeps
    them, and one that leaves every file's definitions' names looks up the slots of the rows
    joined again alone (`updated`)."""

    file: np.ndarray  # the file's number in Edges.files
    name: np.ndarray  # the name's number in `names`
    names_text: str  # every defined name (local ones too, unlike Edges.names), "\0" between
    first: np.ndarray  # per file, the number of its first definition
    # Where pagerank.inflow sums the rank flowing into each definition: rows of Edges that point at
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
        in_edges = in_graph(inputs)  # numbered as the graph numbers its names
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
        if edges.joined_again is None or not same_definitions(before, after):
            return None
        kept, at = edges.joined_again
        width = max(len(edges.names), 1)
        in_edges = in_graph(after)  # numbered as the graph numbers its names
        slot = np.where(in_edges, np.cumsum(in_edges) - 1, -1)[after.every_name]
        taken = self.target >= 2
        if not np.array_equal(taken, slot >= 0):
            return None
        keys = np.empty(int(self.target.max(initial=1)) - 1, dtype=np.int64)  # the slots' (file, name), in order
        keys[self.target[taken] - 2] = self.file[taken] * width + slot[taken]
        joined = at + np.arange(len(at))  # where the rows joined again are now
        row_target, = inserted([self.row_target], kept, at, [_slots(keys, edges.dst[joined], edges.name[joined], width)])
        return Definitions(self.file, self.name, self.names_text, self.first, self.target, row_target)

    @cached_property
    def names(self) -> dict[str, int]:
        """Each defined name's number, made when first asked for: only a task's words need it,
        and a large tree's names are slow to number (bench/RESULTS.md: definitions.Definitions.names)."""
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


def _slots(keys: np.ndarray, dst: np.ndarray, name: np.ndarray, width: int) -> np.ndarray:
    """Per row, the slot of the definitions of its name in its target file (Definitions.target),
    from the slots' keys (file * width + name, ascending); 0 where none takes it."""
    if not len(keys):
        return np.zeros(len(dst), dtype=np.int32)
    row_key = dst.astype(np.int64) * width + name
    at = np.minimum(np.searchsorted(keys, row_key), len(keys) - 1)
    return np.where(keys[at] == row_key, at + 2, 0).astype(np.int32)


# As edges._families: the graph's files change seldom, and testing each costs every ranking
# (bench/RESULTS.md: definitions.documents).
@lru_cache(maxsize=2)
def documents(files: tuple[str, ...]) -> np.ndarray:
    """Whether each file is a document (tags.is_document)."""
    documents = np.fromiter(map(is_document, files), dtype=bool, count=len(files))
    documents.flags.writeable = False
    return documents
