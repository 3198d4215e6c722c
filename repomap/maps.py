"""A map for a request: the one kept for it where the files allow (answers.py), else the
files ranked for the task (ranking.Ranker) and rendered to fit the budget (render.py)."""

from __future__ import annotations

import dataclasses
import marshal
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple

from . import config, discover, mirrors, tokens
from .answers import Answers, MapResult, SavedMap
from .artifacts import Artifacts
from .config import Options
from .fileset import FileSet
from .index import Indexer
from .scan import Scan, Scanner

if TYPE_CHECKING:
    from .ranking import Ranker
    from .render import FileView

MEMO_KEY = "token-counts"
MEMO_COUNTS = 4096  # line counts kept, the most recently used: more than a large repository's maps use


class MapRequest(NamedTuple):
    """What a map is asked for (RepoMap.build)."""

    focus: list[str]
    mention_files: list[str]
    mention_idents: list[str]
    query: str
    budget: int
    other_files: list[str] | None
    reuse: bool
    previous_map: str | None  # the Markdown map a committed one replaces ("" for none yet)


class Mapper:
    def __init__(self, root: Path, options: Options, indexer: Indexer, files: FileSet, scanner: Scanner,
                 artifacts: Artifacts, answers: Answers, ranker: Callable[[], Ranker]):
        self.root = root
        self.options = options
        self.indexer = indexer
        self.files = files
        self.scanner = scanner
        self.artifacts = artifacts
        self.answers = answers
        self.ranker = ranker  # made on first use: a stored map needs no ranking (numpy)
        self._line_counts: tokens.LineCounts | None = None
        self._views: dict[tuple, FileView] = {}  # the file views of the last map rendered (Renderer.kept)

    def build(self, request: MapRequest) -> MapResult:
        """The map for `request`. With `reuse`, the same request on unchanged files is answered
        from the index without reading the index's tags (then `ranked` is empty); without it,
        from the maps kept in memory, with its ranking, where the graph and views are as they
        were."""
        reuse, query = request.reuse, request.query
        tally = discover.Tally()
        ranked_last = reuse and self.answers.ranked_last()
        count_terms = bool(query.strip())  # a map alone needs none
        forked = self.files.forked_stamps(tally, count_terms, self.preload) \
            if ranked_last and request.other_files is None else None
        stamps, tagged = forked or (self.files.stamps(request.other_files, request.focus, tally), {})
        asked = self._asked(request)
        stamped = self.indexer.stamps_digest(stamps)
        if reuse and (saved := self.answers.saved_map(stamped, asked, reuse)):
            self.answers.note_ranked(ranked_last, False)
            return saved.result()  # nothing changed: not even the index is read
        scan = self.scanner.scan(stamps, tally, self._preload_meanwhile, count_terms, tagged)
        # A map without a task text is ranked by what the files define and reference; one in
        # a format that shows signature lines alone, by those as well. An edit that changes
        # neither (a literal, a comment, lines moved) leaves the map stored for them as the
        # map, unless it compared copies whose bodies changed: nothing is ranked or rendered.
        # An edit that changes both but leaves the graph and its definitions as they were (a
        # comment inside a function whose name is defined once) leaves the map stored for that
        # graph (Edges.links_digest) with these views: nothing is ranked or rendered either.
        by_view = not query.strip() and self.options.template is None and self.options.fmt in config.VIEW_FORMATS
        found = f"{scan.links}:{scan.views}" if by_view else scan.state
        states = {stamped, found} if reuse else {found}  # what the map is kept for
        saved = self.answers.saved_map(found, asked, reuse, compared=True)
        graphed = by_view and not saved
        if graphed:
            found = f"{self.artifacts.graph_state(scan)}:{scan.views}"
            saved = None if found in states else self.answers.saved_map(found, asked, reuse, compared=True)
            states.add(found)
        if saved:
            saved = dataclasses.replace(saved, notes=scan.notes, ignored=tally.ignored)
            self.answers.save_map(saved, states - {found}, asked, reuse)  # the same files next time read nothing
            if reuse:
                self.answers.note_ranked(ranked_last, graphed)
                return saved.result()
            return saved.result(self._rank(scan, request)[0])
        made, ranked = self._made(scan, request, tally)
        if reuse:
            self.answers.note_ranked(ranked_last, True)
        self.answers.save_map(made, states, asked, reuse)
        return made.result(ranked)

    def _asked(self, request: MapRequest) -> list:
        """What a kept map is kept for: the request, and what else decides the map."""
        options = self.options
        return [request.focus, request.mention_files, request.mention_idents, request.query, request.budget,
                options.encoding, options.fmt, options.template.read_text(encoding="utf-8") if options.template else None,
                options.max_file_size, options.parse_timeout,  # the limits decide what is skipped
                options.ignore, request.previous_map, mirrors.metadata_digest(self.root)]

    def _rank(self, scan: Scan, request: MapRequest):
        return self.ranker().rank(scan, request.focus, request.mention_files, request.mention_idents,
                                  request.query, request.budget)

    def _made(self, scan: Scan, request: MapRequest, tally: discover.Tally):
        """The map ranked and rendered anew, and its ranking."""
        from . import render

        budget = request.budget
        ranked, file_rank = self._rank(scan, request)
        memo = self._counts()
        learned = memo.learned
        renderer = render.Renderer(scan.sources, scan.defs(), file_rank, self.options.fmt, self.options.template,
                                   memo, self.indexer.digest, self._views)
        previous = request.previous_map
        text, used, shown = render.select(ranked, budget, renderer, memo) if previous is None \
            else render.select_committed(ranked, budget, renderer, previous, memo)
        shown = renderer.without_copies(shown)  # in rank order: the copy kept is the best-ranked
        order = list(render.markdown_sections(previous or ""))
        if order and (stable := render.stable_order(shown, order)) != shown:
            stable_text = renderer.render(stable)
            if (stable_used := memo(stable_text)) <= budget:  # its lines are counted already
                text, used, shown = stable_text, stable_used, stable
        if memo.learned > learned:
            counts = list(memo.known.items())[-MEMO_COUNTS:]
            self.indexer.store.save_blob(MEMO_KEY, marshal.dumps(dict(counts)))
        self._views = renderer.views
        made = SavedMap(text, used, ranked.files(), scan.notes, list(dict.fromkeys(r.tag.path for r in shown)),
                        tally.ignored, {p: self.indexer.digest(p) for p in sorted(renderer.compared)})
        return made, ranked

    def _counts(self) -> tokens.LineCounts:
        """Token counts of texts rendered before, in this process or a past one."""
        if self._line_counts is None:
            try:
                known = marshal.loads(self.indexer.store.blob(MEMO_KEY) or marshal.dumps({}))
            except (ValueError, EOFError, TypeError):
                known = {}
            valid = isinstance(known, dict) and all(type(k) is bytes and type(v) is int for k, v in known.items())
            self._line_counts = tokens.LineCounts(known if valid else {}, self.options.encoding)
        return self._line_counts

    def _preload_meanwhile(self) -> None:
        """Load what ranking and rendering a map need in a thread while workers tag the files
        changed since the last map: the map stored for the new state, if there is one, needs
        none of it, and is not kept waiting for it."""
        from . import workers

        workers.thread(target=self.preload, name="repomap-imports").start()

    def preload(self) -> None:
        """Import what ranking and rendering a map need (numpy, jinja2) and read its template."""
        try:
            from . import ranking, render, templating  # noqa: F401

            templating.load_template(self.options.fmt, self.options.template)
        except Exception:  # not a degradation: the map's own imports and template say what failed, where they run
            pass
