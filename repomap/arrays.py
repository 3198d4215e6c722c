"""Array helpers the graph, ranking, names and search share: strings stored as one array of
bytes, checks of stored numbers, runs in sorted columns, and rows put among others. A leaf: it imports nothing
from the package, so any stage may use it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def within(numbers: np.ndarray, n: int) -> bool:
    """Whether `numbers` are all places in something of length `n`: stored arrays are read as
    they are, and a damaged one must not index something else."""
    return not len(numbers) or (int(numbers.min()) >= 0 and int(numbers.max()) < n)


def packed(strings: list[str]) -> np.ndarray:
    """Strings as one array of bytes to store, each ended by a NUL (no name or path holds one)."""
    stored = getattr(strings, "stored", None)
    if stored is not None:
        return stored
    return np.frombuffer(("\0".join(strings) + "\0" if strings else "").encode("utf-8", "surrogatepass"), dtype=np.uint8)


class _Unpacked(list):
    """Strings read from a stored array, which keep it: packing them again, to store what is
    made of them after an edit, gives it back rather than encoding millions of names again
    (bench/RESULTS.md: arrays). Never changed once read."""

    __slots__ = ("stored",)


def unpacked(stored: np.ndarray) -> list[str]:
    """The strings `packed` stored."""
    strings = _Unpacked(stored.tobytes().decode("utf-8", "surrogatepass").split("\0")[:-1])
    strings.stored = stored
    return strings


class Packed(Sequence):
    """The strings `packed` stored, each decoded when it is read: a graph's update reads a
    few of a large repository's names (and bisects them), where decoding them all would cost
    every process after an edit (bench/RESULTS.md: arrays). A loop over them decodes them
    all at once (as `unpacked`); packing them gives the array back."""

    def __init__(self, stored: np.ndarray):
        self.stored = stored
        self._ends = np.flatnonzero(stored == 0)

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, k: int) -> str:
        if not -len(self._ends) <= k < len(self._ends):
            raise IndexError(k)
        k %= len(self._ends)
        start = int(self._ends[k - 1]) + 1 if k else 0
        return self.stored[start:self._ends[k]].tobytes().decode("utf-8", "surrogatepass")

    def __iter__(self):
        return iter(unpacked(self.stored))


def taken(strings: Sequence[str], numbers: np.ndarray) -> list[str]:
    """The strings of these numbers, all decoded at once where they are Packed."""
    listed = strings if isinstance(strings, list) else list(strings)
    return [listed[k] for k in numbers.tolist()]


def run_places(column: np.ndarray) -> np.ndarray:
    """Per row of a sorted column, how many rows before it hold the same value."""
    return np.arange(len(column)) - np.searchsorted(column, column)


def run_starts(*columns: np.ndarray) -> np.ndarray:
    """Where each run of rows equal in every column starts."""
    changed = np.zeros(max(len(columns[0]) - 1, 0), dtype=bool)
    for column in columns:
        changed |= column[1:] != column[:-1]
    return np.flatnonzero(np.concatenate([[len(columns[0]) > 0], changed]))


def inserted(columns: list[np.ndarray], kept: np.ndarray, at: np.ndarray, parts: list[np.ndarray]
             ) -> list[np.ndarray]:
    """Each column's `kept` rows with its part's rows put before the kept rows numbered by
    `at` (non-decreasing), as np.insert would, with the places found once for every column
    (np.insert finds them per column, a large share of a graph's update: bench/RESULTS.md:
    arrays.inserted)."""
    taken = np.zeros(int(kept.sum()) + len(at), dtype=bool)
    taken[at + np.arange(len(at))] = True
    rest, out = ~taken, []
    for column, part in zip(columns, parts):
        joined = np.empty(len(taken), dtype=column.dtype)
        joined[rest] = column[kept]
        joined[taken] = part
        out.append(joined)
    return out
