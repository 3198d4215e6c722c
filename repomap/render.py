"""Render ranked definitions as a signature-only map, and fit it to a token budget.

Each chosen definition shows its whole signature under the headers of the
definitions that enclose it; bodies are elided with a `⋮` line. Files come in
the order of their best definition, so a cut-off prompt keeps the best part.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

from . import words
from .errors import RepoMapError, visible
from .signatures import WIDTH, clip, signature_lines, signature_source, signature_text, source_lines
from .weights import (CHANGELOG_SECTIONS, COMMITTED_FILL, COMMITTED_HOLD, FILE_SHARE, FILE_SHARE_MAX, FILE_SHARE_MIN,
                      FILE_TOKENS_MAX, STABLE_ORDER)
from .tags import Tag, language_for
from .templating import bounded_range, load_template
from .tokens import count_tokens

if TYPE_CHECKING:
    from .ranking import Ranked, RankedList

ELIDED = "⋮"
MAX_FILL_TRIES = 64
# fit looks past the ranked cut, at the shown files' other definitions, only while the map is
# under this share of its budget: the README's promise (bench/RESULTS.md: render.fit).
MIN_FILL = 0.9
# How far past the longest prefix that fits fit looks for a definition that still fits: each
# look renders that definition's file part, so one file of many small definitions would cost
# looks times the map's size. By hand: far more than a real tree's maps look (bench/RESULTS.md).
MAX_FILL_LOOKS = 1024
# fit's first prefix: below what a small map shows. Not tuned: where a longer prefix never
# costs fewer tokens any size gives the same map (bench/RESULTS.md: render.FIRST_PREFIX); a
# small one keeps the renders small.
FIRST_PREFIX = 16


@dataclass
class FileView:
    """What the templates see of one file."""

    path: str
    language: str
    rank: float
    symbols: list[dict]
    lines: list[str]
    more: int = 0  # definitions held back past the file's share of the map (shown as `⋮ N more`)


class Renderer:
    """Turns a selection of ranked definitions into text with one jinja2 template."""

    def __init__(self, sources: Mapping[str, bytes], defs: dict[str, list[Tag]],
                 file_rank: dict[str, float], fmt: str = "text", template: Path | None = None,
                 count: Callable[[str], int] = count_tokens, digest: Callable[[str], str] | None = None,
                 kept: dict[tuple, FileView] | None = None):
        """`digest` (a file's content hash) and `kept` (the `views` of the renderer of the last
        map, of any state of the files): file views are taken from those where the file and
        the definitions shown are the same (_file_view)."""
        self.sources = sources
        self.shares: dict[str, tuple[int, int]] = {}  # as breadth_first gives them: see select
        self.compared: set[str] = set()  # the files whose definitions' bytes without_copies or shows compared
        self.count = count
        self.file_rank = file_rank
        self.defs = defs
        self._lines: dict[str, list[str]] = {}
        self.digest = digest
        self.kept = kept or {}
        self.views: dict[tuple, FileView] = {}  # the file views this one rendered
        self._empty_cost: int | None = None
        self._nesting: dict[str, _Nesting] = {}
        self._before: tuple[tuple, int] = ((None,), 0)  # estimate's last file part, by its definitions' IDs
        self.template = load_template(fmt, template)

    def render(self, selection: list[Ranked]) -> str:
        chosen: dict[str, list[Tag]] = {}
        for item in self.without_copies(selection):
            chosen.setdefault(item.tag.path, []).append(item.tag)
        files = [self._file_view(path, tags) for path, tags in chosen.items()]
        if not self.template.environment.sandboxed:
            return self.template.render(files=files)
        try:  # a user's template: unsafe, too costly, or asks for what is not there
            return self.template.render(files=files, range=bounded_range())
        except RepoMapError:
            raise
        except Exception as exc:
            raise RepoMapError(f"the template failed: {type(exc).__name__}: {exc}") from None

    def without_copies(self, selection: list[Ranked]) -> list[Ranked]:
        """The selection with each definition repeated byte for byte (a shim in several
        build-tagged files, a generated or vendored copy: the same qualified name, kind and
        text, as search's copies) kept once, where it ranks best; the others would repeat its
        lines. Only the sources of names the selection repeats are read (their files are
        noted in `compared`: the map depends on their bodies too)."""
        named = Counter((item.tag.kind, item.tag.qualname) for item in selection)
        seen: set[tuple[str, str, bytes]] = set()
        kept = []
        for item in selection:
            tag = item.tag
            if named[tag.kind, tag.qualname] > 1:
                self.compared.add(tag.path)
                copy = (tag.kind, tag.qualname, self.sources[tag.path][tag.start_byte:tag.end_byte])
                if copy in seen:
                    continue
                seen.add(copy)
            kept.append(item)
        return kept

    def shows(self, shown: list[Ranked], items: Sequence[Ranked]) -> bool:
        """Whether a map of `shown` shows each of `items`: itself, its lines as the header of a
        definition inside it, or a definition of the same kind and qualified name whose text is
        its text with one run of characters put in or taken out (a copy without_copies shows
        once, or was shown once before one of them was edited: a build-tagged twin whose
        signature grew). The files of the copies compared are noted in `compared`."""
        ids = {item.tag.id for item in shown + self.headers(shown, items)}
        named: dict[tuple[str, str], list[Tag]] = {}
        for item in shown:
            named.setdefault((item.tag.kind, item.tag.qualname), []).append(item.tag)
        for item in items:
            if item.tag.id in ids:
                continue
            text = self._text(item.tag)
            twins = named.get((item.tag.kind, item.tag.qualname), [])
            if not any(_kept_around_insertion(text, self._text(twin)) for twin in twins):
                return False
            self.compared.update([item.tag.path, *(twin.path for twin in twins)])
        return True

    def headers(self, shown: list[Ranked], items: Sequence[Ranked]) -> list[Ranked]:
        """Those of `items` that enclose a definition of `shown`: a map of `shown` shows their
        lines as its header."""
        enclosing = {header.id for item in shown for header in self._enclosing(item.tag)}
        return [item for item in items if item.tag.id in enclosing]

    def _text(self, tag: Tag) -> str:
        return self.sources[tag.path][tag.start_byte:tag.end_byte].decode("utf-8", "replace")

    def estimate(self, item: Ranked, selection: list[Ranked]) -> int:
        """About what a definition adds to a map of `selection`: what it adds to its own file's
        part of the map, or what it costs alone in a file not shown yet."""
        same_file = [s for s in selection if s.tag.path == item.tag.path]
        if self._empty_cost is None:
            self._empty_cost = self.count(self.render([]))
        key = tuple(s.tag.id for s in same_file)  # fit asks of one file's definitions in a row
        if self._before[0] != key:
            self._before = (key, self.count(self.render(same_file)) if same_file else self._empty_cost)
        return self.count(self.render(same_file + [item])) - self._before[1]

    def previous(self, sections: Mapping[str, list[str]], offered: Sequence[Ranked]) -> list[Ranked]:
        """The definitions of `offered` that a Markdown map of `sections` (markdown_sections)
        shows, in their order: each file's lines are matched, in order, with the signature
        lines of all its definitions, a changed line in place of the one it replaced (an edit
        to a signature). A definition whose lines show only as the header of another's counts
        as shown where the section's `⋮ N more` says so."""
        by_file: dict[str, list[Ranked]] = {}
        for item in offered:
            if item.tag.path in sections:
                by_file.setdefault(item.tag.path, []).append(item)
        shown: set[str] = set()
        for path, items in by_file.items():
            shown.update(self._previous_in_file(sections[path], items))
        return [item for item in offered if item.tag.id in shown]

    def _previous_in_file(self, section: list[str], items: list[Ranked]) -> list[str]:
        """The IDs of the definitions of one file (`items`, in rank order) that `section` shows."""
        path = items[0].tag.path
        lines, source = self._source_lines(path), self.sources[path]
        parts = {item.tag.id: signature_lines(item.tag, lines, source) for item in items}
        every: dict[int, _Line] = {}
        for tag in self.defs.get(path, ()):
            for n, text in signature_source(tag, lines, source).items():
                names = every[n].names if n in every else set()
                every[n] = _Line(visible(clip(text)), visible(text.rstrip()), names | {tag.name})
        more = _MORE.fullmatch(section[-1]) if section else None
        matched = _shown_numbers(section[:-1] if more else section, every)
        found = [item for item in items if parts[item.tag.id].keys() <= matched]
        headers = [item for item in found if any(_encloses(item.tag, other.tag) for other in found)]
        chosen = [item for item in found if item not in headers]
        if more:
            chosen += headers[:max(0, len(items) - int(more[1]) - len(chosen))]
        elif len(found) == len(items):
            chosen = found
        return [item.tag.id for item in chosen]

    def _file_view(self, path: str, tags: list[Tag]) -> FileView:
        """A file's part of the map, made once per content and set of its definitions: fit
        renders the same files again and again as it tries longer prefixes, and a kept
        RepoMap's next map (`kept`) renders most of them again (bench/RESULTS.md:
        render._file_view)."""
        key = (path, self.digest(path) if self.digest else None,
               tuple((t.start_byte, t.end_byte, t.kind, t.name) for t in tags), self.shares.get(path))
        view = self.views.get(key) or self.kept.get(key)
        if view is None:
            view = self._new_file_view(path, tags)
        elif view.rank != (rank := round(self.file_rank.get(path, 0.0), 6)):
            view = replace(view, rank=rank)
        self.views[key] = view
        return view

    def _new_file_view(self, path: str, tags: list[Tag]) -> FileView:
        lines, source = self._source_lines(path), self.sources[path]
        shown: dict[int, str] = {}
        for tag in tags:
            for header in self._enclosing(tag):
                shown.update(signature_lines(header, lines, source))
            shown.update(signature_lines(tag, lines, source))
        out: list[str] = []
        previous = 0
        for number in sorted(shown):
            if number > previous + 1 and out:
                out.append(ELIDED)
            out.append(visible(shown[number]))  # a line of source may hold any control character
            previous = number
        total, share = self.shares.get(path, (0, 0))
        more = total - len(tags) if share and len(tags) >= share else 0
        if more:
            out.append(f"{ELIDED} {more} more")
        elif previous < len(lines):
            out.append(ELIDED)
        symbols = [_symbol(t, lines) for t in sorted(tags, key=lambda t: t.start_byte)]
        return FileView(path, language_for(path) or "", round(self.file_rank.get(path, 0.0), 6), symbols, out, more)

    def _source_lines(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = source_lines(self.sources[path])
        return self._lines[path]

    def _enclosing(self, tag: Tag) -> list[Tag]:
        """The file's definitions that enclose `tag`, in the file's order. Where they nest, as a
        syntax tree's do, only the chain of those open where `tag` begins is looked at: fit asks
        of each definition it passes, and a file may have thousands."""
        defs = self.defs.get(tag.path, ())
        nesting = self._nesting.get(tag.path) or self._nesting.setdefault(tag.path, _Nesting.of(defs))
        candidates = nesting.open_at(tag.start_byte) if nesting.nested else range(len(defs))
        return [defs[k] for k in sorted(candidates)
                if defs[k].start_byte <= tag.start_byte and tag.end_byte <= defs[k].end_byte
                and (defs[k].start_byte, defs[k].end_byte) != (tag.start_byte, tag.end_byte)]


class _Line(NamedTuple):
    """A signature line of a file: as a map shows it (clipped to WIDTH), whole, and the names
    of the definitions it is a line of."""

    shown: str
    whole: str
    names: set[str]


def _shown_numbers(section: list[str], every: dict[int, _Line]) -> set[int]:
    """The numbers of the lines of `every` (a file's signature lines by number) that the lines
    of a Markdown map's section show. A run of lines with no `⋮` between them is a run of
    consecutive lines of the file: the first one, past the last run's, where each line is
    the same or was before an edit that grew or shrank it (_edited), the most of them the
    same, then the most whose old text holds their definition's name (an edit to a signature
    keeps its name: `logger()` grown is not `error_logger()`, its old line with "error_" put
    in), then the most of their text."""
    numbers = sorted(every)
    matched: set[int] = set()
    last = 0
    runs: list[list[str]] = [[]]
    for line in section:
        if line == ELIDED:
            runs.append([])
        else:
            runs[-1].append(line)
    for run in filter(None, runs):
        best, most = None, (-1, -1, -1)
        for start in numbers[bisect_right(numbers, last):]:
            now = [every.get(start + k) for k in range(len(run))]
            if all(line is not None and (line.shown == was or _edited(was, line.whole))
                   for was, line in zip(run, now)):
                same = (sum(was == line.shown for was, line in zip(run, now)),
                        sum(not line.names.isdisjoint(words.tokens(was)) for was, line in zip(run, now)),
                        sum(_edited(was, line.whole) for was, line in zip(run, now)))
                best, most = (start, same) if same > most else (best, most)
                if same[0] == len(run):
                    break
        if best is not None:
            matched.update(range(best, best + len(run)))
            last = best + len(run) - 1
    return matched


def _edited(was: str, whole: str) -> int:
    """How much of a map's line `was` a signature line (`whole`, not clipped to WIDTH) keeps
    where an edit put a run of characters in or took one out (_kept_around_insertion), else 0.
    A line the map clipped shows the start of its old text only: that start is kept where,
    past what the two share, the rest of it comes later in `whole` (a run was put in before
    it); a run taken out of a clipped line is not told from a line rewritten."""
    if len(was) != WIDTH + 1 or not was.endswith("…"):
        return _kept_around_insertion(was, whole)
    start = was[:WIDTH]
    head = len(os.path.commonprefix([start, whole]))
    return WIDTH if start.strip() and whole.find(start[head:], head) >= 0 else 0


def _kept_around_insertion(one: str, other: str) -> int:
    """How much of two lines is the same where one is the other with a run of characters put
    in (what an edit that grows or shrinks a signature does to its line): the shorter one's
    length, else 0."""
    short, long = sorted((one, other), key=len)
    head = len(os.path.commonprefix([short, long]))
    tail = len(os.path.commonprefix([short[head:][::-1], long[head:][::-1]]))
    return len(short) if head + tail == len(short) and short.strip() else 0


_MORE = re.compile(f"{ELIDED} ([0-9]+) more")


def _encloses(outer: Tag, inner: Tag) -> bool:
    return (outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
            and (outer.start_byte, outer.end_byte) != (inner.start_byte, inner.end_byte))


class _Nesting(NamedTuple):
    """A file's definitions by where they begin, each with the innermost one open there
    (`parent`, -1 for none), and whether every one lies inside its parent (`nested`)."""

    starts: list[int]
    order: list[int]
    parent: list[int]
    nested: bool

    @classmethod
    def of(cls, defs: Sequence[Tag]) -> _Nesting:
        order = sorted(range(len(defs)), key=lambda k: (defs[k].start_byte, -defs[k].end_byte, k))
        parent = [-1] * len(defs)
        stack: list[int] = []
        nested = True
        for k in order:
            while stack and defs[stack[-1]].end_byte < defs[k].start_byte:
                stack.pop()
            if stack:
                parent[k] = stack[-1]
                nested = nested and defs[k].end_byte <= defs[stack[-1]].end_byte
            stack.append(k)
        return cls([defs[k].start_byte for k in order], order, parent, nested)

    def open_at(self, start: int) -> list[int]:
        """The definitions (by index) that begin at or before `start` and are still open there:
        when every one lies inside its parent, all that could enclose what begins there."""
        at = bisect_right(self.starts, start) - 1
        chain = []
        k = self.order[at] if at >= 0 else -1
        while k >= 0:
            chain.append(k)
            k = self.parent[k]
        return chain


def _symbol(tag: Tag, lines: list[str]) -> dict:
    return {"id": tag.id, "name": tag.name, "kind": tag.kind, "line": tag.line, "end_line": tag.end_line,
            "signature": signature_text(tag, lines)}


def select(ranked: RankedList, budget: int, renderer: Renderer, count: Callable[[str], int] = count_tokens
           ) -> tuple[str, int, list[Ranked]]:
    """The map (its text, size and definitions) of the ranking fitted to `budget` breadth
    first. Where one file's part is still over FILE_TOKENS_MAX of the budget while other
    files wait (its signatures run to many lines), its share is narrowed to what fits in
    that part and the map is fitted again."""
    return _selected(ranked, budget, renderer, count)[:3]


def _selected(ranked: RankedList, budget: int, renderer: Renderer, count: Callable[[str], int]
              ) -> tuple[str, int, list[Ranked], RankedList]:
    """select's map, and the ranking in the order it was offered to fit."""
    narrowed: dict[int, int] = {}
    while True:
        offered, renderer.shares = breadth_first(ranked, budget, narrowed)
        text, used, shown = fit(offered, budget, renderer.render, renderer.estimate, count)
        wide = _crowding(ranked, shown, budget, renderer, count, narrowed)
        if not wide:
            return text, used, shown, offered
        narrowed.update(wide)


def select_committed(ranked: RankedList, budget: int, renderer: Renderer, previous: str,
                     count: Callable[[str], int] = count_tokens) -> tuple[str, int, list[Ranked]]:
    """select's map for a committed map file that replaces the Markdown map `previous`: fitted
    to COMMITTED_FILL of the budget, unless the definitions `previous` shows still fit the
    budget, fill COMMITTED_HOLD of it and show (Renderer.shows) every definition of the
    longest prefix of the ranking that fits that much; then those, so an edit that grows or
    shrinks a signature a little changes its own lines and nothing else. Fitted anew, a map
    is kept by the next as it is (its definitions hold): `check` on what `write` wrote
    agrees."""
    text, used, shown, offered = _selected(ranked, int(budget * COMMITTED_FILL), renderer, count)
    held = renderer.previous(markdown_sections(previous), offered) if previous else []
    if not held or {item.tag.id for item in held} == {item.tag.id for item in shown}:
        return text, used, shown
    held_text = renderer.render(held)
    held_used = count(held_text)
    if not budget * COMMITTED_HOLD <= held_used <= budget:
        return text, used, shown
    floor = offered[:longest_prefix(offered, int(budget * COMMITTED_HOLD), renderer.render, count)[0]]
    if not renderer.shows(held, floor):
        return text, used, shown
    # A header the ranking's prefix holds is part of the selection, as a fresh fit's: its
    # rank places its file's section as before (stable_order).
    headers = renderer.headers(held, floor)
    if not headers:  # `held` is in the ranking's order already (Renderer.previous)
        return held_text, held_used, held
    kept = {item.tag.id for item in held + headers}
    held = [item for item in offered if item.tag.id in kept]
    held_text = renderer.render(held)
    held_used = count(held_text)
    return (held_text, held_used, held) if held_used <= budget else (text, used, shown)


def _crowding(ranked: RankedList, shown: list[Ranked], budget: int, renderer: Renderer,
              count: Callable[[str], int], narrowed: Mapping[int, int]) -> dict[int, int]:
    """The files (by number, not yet `narrowed`) whose part of a map of `shown` is over
    FILE_TOKENS_MAX of the budget while other files have definitions left out, each with how
    many of its best definitions (at least FILE_SHARE_MIN) fit that part, its `⋮ N more` line
    included."""
    import numpy as np

    by_file: dict[str, list[Ranked]] = {}
    for item in shown:
        by_file.setdefault(item.tag.path, []).append(item)
    empty = count(renderer.render([]))
    part = {path: count(renderer.render(items)) - empty for path, items in by_file.items()}
    wide = [path for path in by_file if part[path] > budget * FILE_TOKENS_MAX]
    if not wide:
        return {}
    number = {path: k for k, path in enumerate(ranked.paths)}
    total = np.bincount(ranked.file, minlength=len(ranked.paths))
    waiting = set(np.flatnonzero(total).tolist())
    waiting -= {number[path] for path, items in by_file.items() if len(items) == total[number[path]]}
    fitted: dict[int, int] = {}
    shares = renderer.shares
    for path in wide:
        k = number[path]
        items = [ranked[p] for p in np.flatnonzero(ranked.file == k)[:len(by_file[path])].tolist()]
        if k in narrowed or len(items) <= FILE_SHARE_MIN or not waiting - {k}:
            continue
        low, high = FILE_SHARE_MIN, len(items) - 1  # the largest prefix whose part fits, at least the least share
        while low < high:
            mid = (low + high + 1) // 2
            renderer.shares = {**shares, path: (int(total[k]), mid)}
            if count(renderer.render(items[:mid])) - empty <= budget * FILE_TOKENS_MAX:
                low = mid
            else:
                high = mid - 1
        fitted[k] = low
    renderer.shares = shares
    return fitted


def breadth_first(ranked: RankedList, budget: int, narrowed: Mapping[int, int] | None = None
                  ) -> tuple[RankedList, dict[str, tuple[int, int]]]:
    """Breadth before depth: each file's definitions past its share of the budget (one per
    FILE_SHARE tokens, at least FILE_SHARE_MIN, at most FILE_SHARE_MAX) wait until every
    other file's best have had their turn (those of a file `narrowed` to a share of its own,
    by number, wait until all others' have), and a changelog (CHANGELOG.md, History.md,
    NEWS, ...) offers its newest sections only. Also returns, for each file that had some
    held back, how many definitions it has and its share: a map that shows its whole share
    says `⋮ N more` for the rest. In numpy, on the ranking's columns: a kernel has millions
    of definitions."""
    import numpy as np

    share = min(FILE_SHARE_MAX, max(FILE_SHARE_MIN, budget // FILE_SHARE))
    file, place = ranked.file, ranked.place()
    limit = np.full(len(ranked.paths), share)
    for k, n in (narrowed or {}).items():
        limit[k] = n
    early = place < limit[file]
    dropped = np.zeros(len(file), dtype=bool)
    for log in (k for k, path in enumerate(ranked.paths) if is_changelog(path)):
        places = np.flatnonzero(file == log)
        if len(places):
            begins = [ranked[p].tag.start_byte for p in places.tolist()]
            newest = set(sorted(begins)[:CHANGELOG_SECTIONS])
            dropped[places] = [b not in newest for b in begins]
            limit[log] = len(newest)
    wide = np.zeros(len(ranked.paths), dtype=bool)
    wide[list(narrowed or ())] = True
    first = np.flatnonzero(~dropped & early)
    later = np.flatnonzero(~dropped & ~early & ~wide[file])
    last = np.flatnonzero(~dropped & ~early & wide[file])
    counts = np.bincount(file, minlength=len(ranked.paths))
    shares = {ranked.paths[k]: (int(counts[k]), int(limit[k])) for k in np.flatnonzero(counts > limit).tolist()}
    return ranked.reordered(np.concatenate([first, later, last])), shares


_CHANGELOG = re.compile(r"(change[s_-]?log|history|news|releases?([_-]?notes)?|changes)(\.[a-z]+)?", re.IGNORECASE)


@lru_cache(maxsize=1 << 16)  # every path, on each of a map's fitting passes
def is_changelog(path: str) -> bool:
    return _CHANGELOG.fullmatch(path.rsplit("/", 1)[-1]) is not None


def markdown_sections(text: str) -> dict[str, list[str]]:
    """The files a Markdown map (templates/markdown.j2) shows, in its order, each with the
    lines inside its code fence (where a heading may be a line of a document's part)."""
    sections: dict[str, list[str]] = {}
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        head = lines[at:at + 3]
        fence = head[2][:len(head[2]) - len(head[2].lstrip("`"))] if len(head) == 3 else ""
        if not (head[0].startswith("### ") and head[1] == "" and len(fence) >= 3):
            at += 1
            continue
        end = next((k for k in range(at + 3, len(lines)) if lines[k] == fence), len(lines))
        sections[head[0][4:]] = lines[at + 3:end]
        at = end + 1
    return sections


def stable_order(selection: list[Ranked], previous: list[str]) -> list[Ranked]:
    """A map's definitions with its files in the order of a previous map, except where a file's
    best score beats the one before it by STABLE_ORDER; new files go by rank. Each file is
    moved up from the end past those it beats, so no file beats the one before it, and a
    previous map in that order comes back as it was."""
    best: dict[str, float] = {}
    for item in selection:
        best.setdefault(item.tag.path, item.score)
    at = {path: i for i, path in enumerate(previous)}
    order: list[str] = []
    for path in sorted(best, key=lambda p: at.get(p, len(at))):  # sorted() is stable: new files by rank
        slot = len(order)
        while slot and best[path] > STABLE_ORDER * best[order[slot - 1]]:
            slot -= 1
        order.insert(slot, path)
    place = {path: i for i, path in enumerate(order)}
    return sorted(selection, key=lambda item: place[item.tag.path])


def longest_prefix(ranked: Sequence[Ranked], budget: int, render: Callable[[list[Ranked]], str],
                   count: Callable[[str], int] = count_tokens) -> tuple[int, str, int]:
    """The length of the longest prefix of the ranking whose map fits `budget` tokens, its
    map and its size. Prefixes of FIRST_PREFIX, twice that, and so on bracket it, and a
    binary search inside the bracket finds it: renders stay near the map's own size (a
    first try at half the budget in definitions rendered hundreds of files)."""
    best_text = render([])
    best_tokens = count(best_text)
    low, high = 0, min(len(ranked), budget)  # every definition costs at least a token
    size = FIRST_PREFIX
    while size < high:
        text = render(ranked[:size])
        tokens = count(text)
        if tokens > budget:
            high = size - 1
            break
        low, best_text, best_tokens = size, text, tokens
        size *= 2
    while low < high:
        mid = (low + high + 1) // 2
        text = render(ranked[:mid])
        tokens = count(text)
        if tokens <= budget:
            low, best_text, best_tokens = mid, text, tokens
        else:
            high = mid - 1
    return low, best_text, best_tokens


def fit(ranked: RankedList, budget: int, render: Callable[[list[Ranked]], str],
        estimate: Callable[[Ranked, list[Ranked]], int], count: Callable[[str], int] = count_tokens
        ) -> tuple[str, int, list[Ranked]]:
    """The largest map of the best-ranked definitions that fits `budget` tokens, its size, and
    the definitions it shows.

    The longest prefix of the ranking that fits comes first (longest_prefix). Then later
    definitions are added one by one where they still fit, so one large signature just past
    the cut does not leave the budget unused, among the next MAX_FILL_LOOKS; `estimate` (a
    lower bound of what a definition adds) spares exact renders of those that cannot fit. A map still under MIN_FILL of the budget, where
    a new file's part costs more than what is left (a JSON file's part costs about two of its
    symbols), takes the other definitions of the files it shows, best first; while it is still
    under, it gives up its last file for them, then the one before, and keeps the fullest.
    """
    low, text, tokens = longest_prefix(ranked, budget, render, count)
    later = (ranked[k] for k in range(low + 1, min(len(ranked), low + 1 + MAX_FILL_LOOKS)))  # the ranking may be long
    text, tokens, selection = _filled(list(ranked[:low]), later, (text, tokens), budget, render, estimate, count)
    if tokens >= budget * MIN_FILL or len(selection) == len(ranked):  # full, or nothing more to show
        return text, tokens, selection
    text, tokens, selection = _filled(selection, _members(ranked, selection), (text, tokens), budget, render,
                                      estimate, count)
    best = text, tokens, selection
    kept = selection
    for last in list(dict.fromkeys(item.tag.path for item in selection))[:0:-1]:  # the map's files, last first
        kept = [item for item in kept if item.tag.path != last]
        kept_text = render(kept)
        backed = _filled(kept, _members(ranked, kept), (kept_text, count(kept_text)), budget, render, estimate, count)
        best = max(best, backed, key=lambda fitted: fitted[1])
        if best[1] >= budget * MIN_FILL:
            break
    return best


def _filled(selection: list[Ranked], candidates: Iterable[Ranked], fitted: tuple[str, int], budget: int,
            render: Callable[[list[Ranked]], str], estimate: Callable[[Ranked, list[Ranked]], int],
            count: Callable[[str], int]) -> tuple[str, int, list[Ranked]]:
    """The map of `selection` (`fitted`: its text and size) with each of the candidates added,
    in order, that still fits `budget`, at most MAX_FILL_TRIES rendered; its size and
    definitions."""
    text, tokens = fitted
    selection = list(selection)
    tries = 0
    for item in candidates:
        if tokens >= budget * 0.98 or tries >= MAX_FILL_TRIES:
            break
        if estimate(item, selection) > budget - tokens:
            continue
        tries += 1
        tried = render(selection + [item])
        size = count(tried)
        if size <= budget:
            selection.append(item)
            text, tokens = tried, size
    return text, tokens, selection


def _members(ranked: RankedList, selection: list[Ranked]) -> Iterator[Ranked]:
    """The definitions of the files `selection` shows that it leaves out, best first, at most
    MAX_FILL_LOOKS of them: those of one file may lie far down a ranking breadth_first made."""
    import numpy as np

    paths = {item.tag.path for item in selection}
    ids = {item.tag.id for item in selection}
    numbers = [k for k, path in enumerate(ranked.paths) if path in paths]
    places = np.flatnonzero(np.isin(ranked.file, numbers)).tolist()
    return islice((item for item in map(ranked.__getitem__, places) if item.tag.id not in ids), MAX_FILL_LOOKS)
