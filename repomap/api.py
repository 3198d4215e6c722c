"""The library's facade: RepoMap wires the stages (files -> tags -> graph -> ranking ->
rendering) for the CLI and chat loops, and holds no logic of its own.

    fileset.FileSet        which files, and their stamps (listing, watch, forked child)
    scan.Scanner           the files tagged (index.Indexer), with the digests of their state
    artifacts.Artifacts    the graph's inputs, edges, definitions, secondary files and names
    search_index           the search postings kept across calls
    ranking.Ranker         a task's ranking (personalized PageRank, search as a guide)
    maps.Mapper            a map: kept (answers.Answers) or ranked and rendered (render.py)
    retrieve.Retriever     a definition's exact source, and the references to its name
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import cache, config, discover, memory, tags, words
from .answers import Answers, MapResult, answer_key
from .artifacts import ArtifactCache, Artifacts
from .errors import Changed, RepoMapError
from .fileset import FileSet
from .index import Indexer, Progress
from .maps import Mapper, MapRequest
from .retrieve import Retriever, Snippet
from .scan import Scan, Scanner, Sources
from .tags import Tag
from .tokens import count_tokens

# The ranking, rendering and search stages (numpy, jinja2) are imported by the methods that
# run them: a stored map, the warm CLI's usual answer, needs none of them.
if TYPE_CHECKING:
    from .ranking import Ranker
    from .search import Hit

ATTEMPTS = 3  # times a call is made while files change under it; by hand: each attempt is a whole call


def _one_at_a_time(method):
    """Calls on one RepoMap from several threads take turns: its caches and index are shared
    state, and an answer must equal the one the same call gets alone. A call that found a file
    changed under it (Changed) is made again, on what the files are now. Python's cycle
    collector waits till it ends (memory.collector_held)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock, memory.collector_held():
            try:
                for _ in range(ATTEMPTS - 1):
                    try:
                        return method(self, *args, **kwargs)
                    except Changed:
                        pass
                return method(self, *args, **kwargs)
            finally:
                self.artifacts.cache.store_made()
    return locked


def _root(root: str | os.PathLike) -> Path:
    """The repository's folder, resolved; RepoMapError where it cannot be mapped."""
    try:
        resolved = Path(root).resolve()
        if not resolved.exists():
            raise RepoMapError(f"no such directory: {root}")
        if not resolved.is_dir():
            raise RepoMapError(f"not a directory: {root}")
        if all(p.exists() for p in (resolved / "HEAD", resolved / "objects", resolved / "refs")):
            raise RepoMapError(f"{root} is a bare git repository: it has no files to map; map a clone of it")
    except OSError as exc:
        raise RepoMapError(f"cannot open {root}: {exc.strerror or exc}") from None
    return resolved


class RepoMap:
    """A repository's map, built again cheaply on every call (unchanged files are not re-parsed).
    Safe to share between threads.

    >>> rm = RepoMap("path/to/repo", tokens=1024)
    >>> print(rm.get_repo_map(chat_files=["src/app.py"], mentioned_idents={"Flask"}))

    Its stages are attributes, for tests and tools that look inside one: `files`,
    `scanner`, `artifacts` (with its `cache`), `answers`, `mapper`, `ranker`, `retriever`.
    """

    def __init__(self, root: str | os.PathLike, *, tokens: int | None = None, encoding: str | None = None,
                 fmt: str | None = None,
                 template: str | os.PathLike | None = None, include: Iterable[str] | None = None,
                 exclude: Iterable[str] | None = None, hide_secondary: bool | None = None,
                 max_file_size: int | None = None, parse_timeout: float | None = None,
                 cache_dir: str | os.PathLike | None = None, use_cache: bool = True, ignore: bool = True,
                 settings: bool = True, progress: Progress | None = None):
        """Arguments left out (None) come from the repository's settings file (.repomap.toml
        or [tool.repomap]) unless `settings` is false, else from config.DEFAULTS. `progress`
        is called with (files done, of how many) as files are tagged (index.Progress)."""
        self.root = _root(root)
        given = {"tokens": tokens, "encoding": encoding, "format": fmt, "include": include, "exclude": exclude,
                 "hide_secondary": hide_secondary, "max_file_size": max_file_size, "parse_timeout": parse_timeout}
        self.options = config.options(self.root, given, settings, Path(template) if template else None, ignore)
        if self.options.template is not None:
            from . import templating

            templating.check_template(self.options.fmt, self.options.template)
        folder = (Path(cache_dir) if cache_dir else cache.default_dir()) if use_cache else None
        self.indexer = Indexer(self.root, folder, self.options.max_file_size, self.options.parse_timeout, progress)
        self.files = FileSet(self.root, self.options, self.indexer)
        self.scanner = Scanner(self.root, self.indexer)
        self.artifacts = Artifacts(self.root, ArtifactCache(self.indexer.store))
        self.answers = Answers(self.indexer.store, self.indexer.digest)
        self.mapper = Mapper(self.root, self.options, self.indexer, self.files, self.scanner, self.artifacts,
                            self.answers, lambda: self.ranker)
        self.retriever = Retriever(self.root, self.indexer)
        self._lock = threading.RLock()

    @functools.cached_property
    def ranker(self) -> Ranker:
        """Made on first use: its module loads numpy."""
        from .ranking import Ranker
        from .search_index import SearchIndex

        return Ranker(self.artifacts, SearchIndex(self.indexer, self.artifacts), self.files.relative,
                      self.options.tokens)

    def close(self) -> None:
        """Close the cache file once what was made is stored; answers after it are made
        without the cache."""
        with self._lock:
            self.artifacts.cache.join()
            self.indexer.store.close()
            self.files.close()

    def get_repo_map(self, chat_files: Iterable[str] = (), other_files: Iterable[str] | None = None,
                     mentioned_fnames: Iterable[str] = (), mentioned_idents: Iterable[str] = (),
                     max_tokens: int | None = None) -> str:
        """Aider's shape: the map for a chat turn, leaving out the files already in the chat."""
        return self.build(focus=chat_files, other_files=other_files, mention_files=mentioned_fnames,
                          mention_idents=mentioned_idents, tokens=max_tokens).text

    @_one_at_a_time
    def mentions(self, message: str) -> tuple[set[str], set[str]]:
        """The repository files and defined identifiers a chat message names, for get_repo_map."""
        found = words.mentions(message, self.artifacts.names(self.scan(count_terms=False)))
        return found.files, found.idents

    @_one_at_a_time
    def build(self, *, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
              mention_idents: Iterable[str] = (), query: str = "", tokens: int | None = None,
              other_files: Iterable[str] | None = None, reuse: bool = False,
              previous_map: str | None = None) -> MapResult:
        """Scan, rank and render; the map fits `tokens` (default: the budget given at construction).

        With `previous_map` (a committed Markdown map: the one this one replaces, "" for none
        yet), files keep its order where their ranks are close (render.stable_order) and its
        definitions while they fit (render.select_committed), so a small edit changes its own
        lines alone.

        With `reuse`, the same request on unchanged files is answered from the cache without
        reading the index (then `ranked` is empty). Without it, maps are kept in memory
        (answers.KEPT_MAPS) instead of the index: the same request on files whose graph and
        views are as they were is answered with the map made before and its ranking.
        """
        return self.mapper.build(MapRequest(
            list(map(os.fspath, focus)), list(map(os.fspath, mention_files)), sorted(mention_idents), query,
            self.options.tokens if tokens is None else config.budget(tokens),
            None if other_files is None else list(other_files), reuse, previous_map))

    def file_tokens(self, paths: Iterable[str]) -> int:
        """The tokens of these whole files: what an answer drawn from them saves against."""
        sources = Sources(self.root)
        return sum(count_tokens(sources[p].decode("utf-8", errors="replace"), self.options.encoding)
                   for p in sorted(set(paths)))

    @_one_at_a_time
    def search(self, query: str, limit: int = 5, kind: str | None = None, path: str | None = None) -> list[Hit]:
        """Definitions matching `query`, best first: BM25 blended with the map's rank."""
        if limit < 1:
            raise RepoMapError(f"the number of hits must be a positive number, not {limit}")
        if not query.strip():
            raise RepoMapError("the search query is empty: say what to look for")
        query = words.task_text(query)
        scan = self.scan()
        keep = None if kind is None and path is None else \
            (lambda t: kind in (None, t.kind) and (path is None or discover.glob_match(t.path, path)))
        signalled = self.ranker.signals(scan, query=query, by_search=False)
        return self.ranker.hits(scan, query, signalled, limit, keep)

    @_one_at_a_time
    def graph(self, top: int = 60, query: str = "", focus: Iterable[str] = ()):
        """The ranked file graph (a networkx.DiGraph) of the `top` best files, as the map ranks
        them for this task; repomap.export writes it out."""
        return self._graph(self.scan(count_terms=bool(query.strip())), top, query, focus)

    @_one_at_a_time
    def export(self, fmt: str = "html", top: int = 60, query: str = "", focus: Iterable[str] = ()) -> str:
        """The ranked file graph written in `fmt` (export.FORMATS). The same request on
        unchanged files is answered from the index, as a map is."""
        from . import export

        focus = list(focus)
        tally = discover.Tally()
        stamps = self.files.stamps(None, focus, tally)
        key = answer_key("graph", self.indexer.stamps_digest(stamps), [fmt, top, query, focus, self.options.max_file_size,
                                                               self.options.parse_timeout])
        text = self.answers.export(key)
        if text is None:
            text = export.write(self._graph(self.scanner.scan(stamps, tally), top, query, focus), fmt)
            self.answers.save_export(key, text)
        return text

    def _graph(self, scan: Scan, top: int, query: str, focus: Iterable[str]):
        from . import export, ranking

        signals, edges, every = self.ranker.signals(scan, focus, query=query)
        ranked, file_rank = ranking.rank(scan.infos, signals, edges, every)
        return export.ranked_graph(edges, file_rank, ranked, scan.sources, top)

    @_one_at_a_time
    def retrieve(self, target: str) -> Snippet:
        """The exact source of the definition an ID, `path::name`, `path:line` or unique name names."""
        return self.retriever.retrieve(
            target, lambda: (t for info in self.scan(count_terms=False).infos.values() for t in info.defs))

    @_one_at_a_time
    def refs(self, target: str) -> tuple[Tag, list[tuple[Tag, Tag | None]]]:
        """The definition `target` names, and each reference to its name with its enclosing definition."""
        definition = self.retrieve(target).tag
        family = tags.family_for(definition.path)
        referring = [rel for rel, info in self.scan(count_terms=False).infos.items()
                     if tags.family_for(rel) == family and definition.name in info.ref_names]
        return definition, self.retriever.refs(definition, referring)

    @_one_at_a_time
    def scan(self, other_files: Iterable[str] | None = None, extra: Iterable[str] = (), count_terms: bool = True
             ) -> Scan:
        """Discover and tag the repository's files (unchanged ones come from memory or the
        cache); with `count_terms`, count the search terms of those tagged now as well (else
        the first search that needs them does)."""
        tally = discover.Tally()
        return self.scanner.scan(self.files.stamps(other_files, extra, tally), tally, count_terms=count_terms)

    def focus_file(self, path: str | os.PathLike) -> str:
        """`path` (absolute, or relative to the root or the working folder) as the
        repository-relative path of a file in it; RepoMapError where it is outside the
        repository or names no file there."""
        return self.files.focus_file(path)
