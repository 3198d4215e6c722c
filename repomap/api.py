"""The library entry point: files -> tags -> graph -> ranking -> rendering, for the CLI and chat loops."""

from __future__ import annotations

import functools
import json
import marshal
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from . import cache, config, discover, memory, mirrors, paths, retrieve, tags, tokens, watch, words
from .config import DEFAULTS, MAX_PARSE_TIMEOUT
from .errors import Changed, NotFound, RepoMapError
from .index import FileInfo, Indexer
from .retrieve import Snippet
from .tags import Tag
from .tokens import count_tokens

# The ranking, rendering and search stages (numpy, jinja2) are imported by the methods that
# run them: a stored map, the warm CLI's usual answer, needs none of them.
if TYPE_CHECKING:
    from .definitions import Definitions
    from .edges import Edges
    from .inputs import Inputs
    from .ranking import Ranked, RankedList, Signals
    from .render import FileView
    from .search import Hit, Overlay, Postings


# Search postings are built anew (and stored) once more than this share of the files changed
# since the stored ones; until then each process builds postings of the changed files only,
# which costs it up to that share of a full build on its first search. A round number, not
# tuned: after an edit, a search costs well under a tenth of a full build either way.
REBUILD_SHARE = 0.1
ATTEMPTS = 3  # times a call is made while files change under it; by hand: each attempt is a whole call
MEMO_KEY = "token-counts"
RANKED_KEY = "last-map-ranked"  # b"1" where the last map the index answered was ranked, not stored
# Maps a RepoMap that does not read the stored ones (build without `reuse`: a chat loop, the
# MCP server) keeps in memory instead, each under up to two keys (RepoMap.build): the map
# of files that did not change since, or changed only inside bodies, is not ranked or
# rendered again. By hand: the last few turns' maps.
KEPT_MAPS = 8
MEMO_COUNTS = 4096  # line counts kept, the most recently used: Django's maps of 1,024 and 4,096 tokens use 423


@dataclass
class MapResult:
    text: str
    tokens: int
    ranked_files: list[str]
    ranked: Sequence[Ranked]  # every definition, best first (made into Ranked as they are read)
    notes: dict[str, int] = field(default_factory=dict)  # files skipped or worth a word, by reason
    shown_files: list[str] = field(default_factory=list)  # the files the map shows, in its order
    ignored: dict[str, int] = field(default_factory=dict)  # files and folders each .gitignore rule hid


@dataclass
class Scan:
    """The tagged files of one look at the repository; sources are read when first asked for."""

    infos: dict[str, FileInfo]
    sources: Sources
    notes: dict[str, int]
    state: str  # a digest of the files' contents
    links: str  # a digest of what the files define and reference: what the graph and names are made of
    views: str  # a digest of what a text or Markdown map can show of the files (render.view)
    evidence: str  # a digest of what picks the copy of two mirror folders, in `links` too (mirrors.Pairs)

    def defs(self) -> Mapping[str, list[Tag]]:
        """Each file's definitions, made into Tags only for the files that are read."""
        return _Defs(self.infos)


class _Defs(Mapping):
    def __init__(self, infos: dict[str, FileInfo]):
        self.infos = infos

    def __getitem__(self, rel: str) -> list[Tag]:
        return self.infos[rel].defs

    def __iter__(self):
        return iter(self.infos)

    def __len__(self) -> int:
        return len(self.infos)


class Sources(dict):
    """File bytes by repository-relative path, read on first use (b"" if gone meanwhile).
    With `digest` (each file's content hash as tagged), bytes that hash otherwise are not
    shown: an editor wrote the file after it was tagged, and its tags' lines and bytes would
    cut the other version's text. Changed then, and the call is made again (RepoMap)."""

    def __init__(self, root: Path, digest: Callable[[str], str] | None = None):
        super().__init__()
        self.root = root
        self.digest = digest

    def __missing__(self, rel: str) -> bytes:
        try:
            with open(paths.open_source(str(self.root / rel)), "rb") as file:  # never through a link
                data = file.read()
        except OSError:
            data = b""
        if data and self.digest is not None and cache.content_hash(data) != self.digest(rel):
            raise Changed(f"{rel} changed while it was read; try again")
        self[rel] = data
        return data


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
                self._store_made()
    return locked


def _forks_cleanly() -> bool:
    """Whether _forked_stamps may fork: numpy not loaded yet (else the imports it overlaps are
    done), and no other thread (a fork copies no thread, and a lock one held would stay held
    in the child)."""
    return "numpy" not in sys.modules and threading.active_count() == 1


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


def _map_result(saved: dict, ranked: Sequence[Ranked] = ()) -> MapResult:
    """A map as stored (RepoMap._save_map), with this ranking."""
    return MapResult(saved["text"], saved["tokens"], list(saved["files"]), ranked, dict(saved["notes"]),
                     list(saved["shown"]), dict(saved["ignored"]))


def _answer_key(kind: str, state: str, request: list) -> str:
    """Where a whole answer (a map, a graph export) to `request` on files in `state` is stored."""
    return f"{kind}:" + cache.content_hash(json.dumps([state, request]).encode())


class RepoMap:
    """A repository's map, built again cheaply on every call (unchanged files are not re-parsed).
    Safe to share between threads.

    >>> rm = RepoMap("path/to/repo", tokens=1024)
    >>> print(rm.get_repo_map(chat_files=["src/app.py"], mentioned_idents={"Flask"}))
    """

    def __init__(self, root: str | os.PathLike, *, tokens: int | None = None, fmt: str | None = None,
                 template: str | os.PathLike | None = None, include: Iterable[str] | None = None,
                 exclude: Iterable[str] | None = None, hide_secondary: bool | None = None,
                 max_file_size: int | None = None, parse_timeout: float | None = None,
                 cache_dir: str | os.PathLike | None = None, use_cache: bool = True, ignore: bool = True,
                 settings: bool = True):
        """Arguments left out (None) come from the repository's settings file (.repomap.toml
        or [tool.repomap]) unless `settings` is false, else from config.DEFAULTS."""
        self.root = _root(root)
        given = {"tokens": tokens, "format": fmt, "include": include, "exclude": exclude,
                 "hide_secondary": hide_secondary, "max_file_size": max_file_size, "parse_timeout": parse_timeout}
        chosen = {**DEFAULTS, **(config.load(self.root) if settings else {}),
                  **{key: value for key, value in given.items() if value is not None}}
        tokens, fmt, include, exclude, hide_secondary, max_file_size, parse_timeout = map(chosen.get, given)
        if tokens < 1:
            raise RepoMapError(f"the token budget must be a positive number, not {tokens}")
        if not 0 < parse_timeout <= MAX_PARSE_TIMEOUT:
            raise RepoMapError(f"the parse timeout must be more than 0 and at most {MAX_PARSE_TIMEOUT:g} seconds, "
                               f"not {parse_timeout}")
        self.tokens = tokens
        self.fmt = fmt
        self.template = Path(template) if template else None
        if self.template is not None and not self.template.is_file():
            raise RepoMapError(f"no such template file: {template}")
        if fmt not in config.FORMATS:
            raise RepoMapError(f"unknown format {fmt!r} (choose from {', '.join(config.FORMATS)})")
        if self.template is not None:
            from . import render

            try:
                render.load_template(fmt, self.template)
            except Exception as exc:
                raise RepoMapError(f"bad template: {exc}") from None
        self.include = [include] if isinstance(include, str) else list(include)  # one pattern, not its letters
        self.exclude = [exclude] if isinstance(exclude, str) else list(exclude)
        self.hide_secondary = hide_secondary
        self.ignore = ignore  # honour .gitignore (and git's own list)
        folder = (Path(cache_dir) if cache_dir else cache.default_dir()) if use_cache else None
        self.indexer = Indexer(self.root, folder, max_file_size, parse_timeout)
        self._memo: tokens.Memo | None = None
        self._base: Postings | None = None  # the stored search postings, read on the first search
        self._kept: dict[str, tuple[str, object]] = {}  # derived structures by kind: (key, value)
        self._replaced: tuple[str, Inputs] | None = None  # the graph's last inputs, while its next is made
        walk = f"walk-{ignore}"  # the last walk, checked by a stat a folder on the next one
        self._walker = discover.Walker(lambda part: self.indexer.store.blob(f"{walk}-{part}"),
                                       lambda part, data: self.indexer.store.save_blob(f"{walk}-{part}", data))
        self._watch = watch.Watch(str(self.root))
        self._states: tuple = (None, "", "", "", mirrors.Pairs.of([]))  # the last scan's infos, digests and Pairs
        self._evidence = ("", "")  # the graph state whose secondary files were found last, and its evidence
        self._lock = threading.RLock()
        self._made: list[tuple[str, dict, str]] = []  # structures made by this call, to store
        self._maps: dict[str, dict] = {}  # maps made or found without `reuse`, by key, the last KEPT_MAPS
        self._views: dict[tuple, FileView] = {}  # the file views of the last map rendered (Renderer.kept)
        self._storing: threading.Thread | None = None  # the thread storing the last ones made

    def close(self) -> None:
        """Close the cache file once what was made is stored; answers after it are made
        without the cache."""
        with self._lock:
            if self._storing is not None:
                self._storing.join()
            self.indexer.store.close()
            self._watch.close()

    def get_repo_map(self, chat_files: Iterable[str] = (), other_files: Iterable[str] | None = None,
                     mentioned_fnames: Iterable[str] = (), mentioned_idents: Iterable[str] = (),
                     max_tokens: int | None = None) -> str:
        """Aider's shape: the map for a chat turn, leaving out the files already in the chat."""
        return self.build(focus=chat_files, other_files=other_files, mention_files=mentioned_fnames,
                          mention_idents=mentioned_idents, tokens=max_tokens).text

    @_one_at_a_time
    def mentions(self, message: str) -> tuple[set[str], set[str]]:
        """The repository files and defined identifiers a chat message names, for get_repo_map."""
        found = words.mentions(message, self._names(self.scan(count_terms=False)))
        return found.files, found.idents

    @_one_at_a_time
    def build(self, *, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
              mention_idents: Iterable[str] = (), query: str = "", tokens: int | None = None,
              other_files: Iterable[str] | None = None, reuse: bool = False,
              previous_order: Iterable[str] = ()) -> MapResult:
        """Scan, rank and render; the map fits `tokens` (default: the budget given at construction).

        With `previous_order` (the files of the map this one replaces), files keep that order
        where their ranks are close (render.steady), so a small edit does not move sections.

        With `reuse`, the same request on unchanged files is answered from the cache without
        reading the index (then `ranked` is empty). Without it, maps are kept in memory
        (KEPT_MAPS) instead of the index: the same request on files whose graph and views are
        as they were is answered with the map made before and its ranking.
        """
        focus, mention_files = list(map(os.fspath, focus)), list(map(os.fspath, mention_files))  # Paths too
        mention_idents = sorted(mention_idents)
        if tokens is not None and tokens < 1:
            raise RepoMapError(f"the token budget must be a positive number, not {tokens}")
        budget = tokens or self.tokens
        previous_order = list(previous_order)
        tally = discover.Tally()
        ranked_last = reuse and self.indexer.store.blob(RANKED_KEY) == b"1"
        count_terms = bool(query.strip())  # a map alone needs none
        forked = self._forked_stamps(tally, count_terms) if ranked_last and other_files is None else None
        stamps, tagged = forked or (self._stamps(other_files, focus, tally), {})
        request = [focus, mention_files, mention_idents, query, budget, self.fmt,
                   self.template.read_text(encoding="utf-8") if self.template else None,
                   self.indexer.max_file_size, self.indexer.parse_timeout,  # the limits decide what is skipped
                   self.ignore, previous_order, mirrors.metadata_digest(self.root)]
        stamped = self.indexer.state(stamps)
        if reuse and (saved := self._stored_map(stamped, request, reuse)):
            self._ranked(ranked_last, False)
            return _map_result(saved)  # nothing changed: not even the index is read
        scan = self._scan(stamps, tally, self._load_rendering, count_terms, tagged)
        # A map without a task text is ranked by what the files define and reference; one in
        # a format that shows signature lines alone, by those as well. An edit that changes
        # neither (a literal, a comment, lines moved) leaves the map stored for them as the
        # map, unless it compared copies whose bodies changed: nothing is ranked or rendered.
        # An edit that changes both but leaves the graph and its definitions as they were (a
        # comment inside a function whose name is defined once) leaves the map stored for that
        # graph (Edges.state) with these views: nothing is ranked or rendered either.
        by_view = not query.strip() and self.template is None and self.fmt in config.VIEW_FORMATS
        found = f"{scan.links}:{scan.views}" if by_view else scan.state
        states = {stamped, found} if reuse else {found}  # what the map is stored for
        saved = self._stored_map(found, request, reuse, compared=True)
        graphed = by_view and not saved
        if graphed:
            found = f"{self._graph_state(scan)}:{scan.views}"
            saved = None if found in states else self._stored_map(found, request, reuse, compared=True)
            states.add(found)
        if saved:
            saved.update(notes=scan.notes, ignored=tally.ignored)
            self._save_map(saved, states - {found}, request, reuse)  # the same files next time read nothing
            if reuse:
                self._ranked(ranked_last, graphed)
                return _map_result(saved)
            return _map_result(saved, self._rank(scan, focus, mention_files, mention_idents, query, budget)[0])
        from . import render

        ranked, file_rank = self._rank(scan, focus, mention_files, mention_idents, query, budget)
        memo = self._token_memo()
        learned = memo.learned
        renderer = render.Renderer(scan.sources, scan.defs(), file_rank, self.fmt, self.template, memo,
                                   self.indexer.digest, self._views)
        text, used, shown = render.select(ranked, budget, renderer, memo)
        shown = renderer.once(shown)  # in rank order: the copy kept is the best-ranked
        if previous_order and (steady := render.steady(shown, previous_order)) != shown:
            steady_text = renderer.render(steady)
            if (steady_used := memo(steady_text)) <= budget:  # its lines are counted already
                text, used, shown = steady_text, steady_used, steady
        if memo.learned > learned:
            counts = list(memo.known.items())[-MEMO_COUNTS:]
            self.indexer.store.save_blob(MEMO_KEY, marshal.dumps(dict(counts)))
        self._views = renderer.views
        order = ranked.files()
        shown_files = list(dict.fromkeys(r.tag.path for r in shown))
        if reuse:
            self._ranked(ranked_last, True)
        made = {"text": text, "tokens": used, "files": order, "notes": scan.notes, "shown": shown_files,
                "ignored": tally.ignored, "compared": {p: self.indexer.digest(p) for p in sorted(renderer.compared)}}
        self._save_map(made, states, request, reuse)
        return _map_result(made, ranked)

    def _ranked(self, before: bool, now: bool) -> None:
        """Note whether this map was ranked (the next one likely is too: an agent edits, then
        asks again), storing it only when it changed."""
        if before != now:
            self.indexer.store.save_blob(RANKED_KEY, b"1" if now else b"0")

    def _load_rendering(self) -> None:
        """Load what ranking and rendering a map need in a thread while workers tag the files
        changed since the last map: the map stored for the new state, if there is one, needs
        none of it, and is not kept waiting for it."""
        threading.Thread(target=self._rendering, name="repomap-imports").start()

    def _rendering(self) -> None:
        """Import what ranking and rendering a map need (numpy, jinja2) and read its template."""
        try:
            from . import ranking, render  # noqa: F401

            render.load_template(self.fmt, self.template)
        except Exception:  # the map's own imports and template say what failed, where they run
            pass

    def file_tokens(self, paths: Iterable[str]) -> int:
        """The tokens of these whole files: what an answer drawn from them saves against."""
        sources = Sources(self.root)
        return sum(count_tokens(sources[p].decode("utf-8", errors="replace")) for p in sorted(set(paths)))

    def _token_memo(self) -> tokens.Memo:
        """Token counts of texts rendered before, in this process or a past one."""
        if self._memo is None:
            try:
                known = marshal.loads(self.indexer.store.blob(MEMO_KEY) or marshal.dumps({}))
            except (ValueError, EOFError, TypeError):
                known = {}
            valid = isinstance(known, dict) and all(type(k) is bytes and type(v) is int for k, v in known.items())
            self._memo = tokens.Memo(known if valid else {})
        return self._memo

    def _stored_map(self, state: str, request: list, reuse: bool, compared: bool = False) -> dict | None:
        """The map stored for `request` on files in `state` (as _save_map has it: in the index
        with `reuse`, else in memory); with `compared`, only if the files whose copies it
        compared (Renderer.once) have the contents they had (after a refresh)."""
        where = _answer_key("map", state, request)
        try:
            saved = self._maps.get(where)
            if reuse:
                stored = self.indexer.store.blob(where)
                saved = json.loads(stored) if stored else None
            shapes = {"text": str, "tokens": int, "files": list, "notes": dict, "shown": list, "ignored": dict,
                      "compared": dict}
            whole = all(isinstance(saved[key], kind) for key, kind in shapes.items())
            same = whole and (not compared or all(self.indexer.digest(p) == d for p, d in saved["compared"].items()))
        except (ValueError, TypeError, KeyError):  # not a stored map after all: it is made again
            return None
        return saved if same else None

    def _save_map(self, saved: dict, states: set[str], request: list, reuse: bool) -> None:
        for key in (_answer_key("map", state, request) for state in states):
            if reuse:
                self.indexer.store.save_blob(key, json.dumps(saved).encode())
            else:
                self._maps.pop(key, None)
                self._maps[key] = saved
                while len(self._maps) > KEPT_MAPS:
                    del self._maps[next(iter(self._maps))]

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
        return self._hits(scan, query, self._signals(scan, query=query, guided=False), limit, keep)

    def _hits(self, scan: Scan, query: str, signalled: tuple[Signals, Edges, Definitions], limit: int,
              keep: Callable[[Tag], bool] | None = None) -> list[Hit]:
        """BM25 over the postings with the map's scores for the task (not guided by search) as prior."""
        from . import ranking

        _, scores, _ = ranking.scores(*signalled)
        try:
            return self._postings(scan, *signalled[1:]).search(query, scores, limit, keep)
        except ValueError:  # stored postings damaged past what reading them checks: built again
            cache.damaged("postings")
            self._base = None
            self._kept.pop("postings", None)
            return self._postings(scan, *signalled[1:], stored=False).search(query, scores, limit, keep)

    def _postings(self, scan: Scan, edges: Edges, every: Definitions, stored: bool = True) -> Overlay:
        """The search postings of this state of the files: the stored ones (_base_postings),
        with the files changed since put in place of their stored versions (read, with only
        those files' terms, once per state)."""
        import numpy as np

        from .search import Overlay, Postings

        kept = self._kept.get("postings")
        if kept is not None and kept[0] == scan.state:
            return kept[1]
        self._kept.pop("postings", None)
        secondary = self._secondary(scan)
        base = self._base_postings(scan, stored)
        # By path, not position: the index hands out terms in any order.
        place, changed = self._live(base, scan, edges.files, secondary)
        if len(changed) > REBUILD_SHARE * len(edges.files):
            base = self._build_postings(edges.files, secondary)
            place, changed = self._live(base, scan, edges.files, secondary)
        number = {rel: f for f, rel in enumerate(edges.files)}
        parts = [(base, place)]
        if changed:
            delta = Postings.build(self._documents(changed, secondary), linked=base)
            parts.append((delta, np.array([number[rel] for rel in delta.paths], dtype=np.int64)))
        overlay = Overlay(parts, edges.files, every, lambda k: every.tag(k, edges, scan.infos))
        self._kept["postings"] = (scan.state, overlay)
        return overlay

    def _base_postings(self, scan: Scan, stored: bool = True) -> Postings:
        """The search postings this RepoMap read or built: the stored ones, built anew when
        none are stored (or `stored` is false: they were found damaged) or when more than
        REBUILD_SHARE of the files changed since. A search makes sure of them before ranking
        loads its state: the kernel's first search peaked at 4.2 GB, a build of 2.2 GB on the
        ranking's 2.0 (bench/speed.py)."""
        from .search import Postings

        if self._base is None:
            if stored and (arrays := self.indexer.store.arrays("postings")) is not None:
                try:
                    self._base = Postings(arrays)
                except (ValueError, KeyError, IndexError):
                    cache.damaged("postings")
                    self._base = None
            files, secondary = sorted(scan.infos), self._secondary(scan)
            if self._base is None or len(self._live(self._base, scan, files, secondary)[1]) > REBUILD_SHARE * len(files):
                self._build_postings(files, secondary)
        return self._base

    def _live(self, base: Postings, scan: Scan, files: list[str], secondary: set[str]) -> tuple:
        """base.live(files, ...), once per postings and state of the files: _base_postings and
        _postings both ask it of a first search, and a kernel's takes 0.3 s."""
        kept = self._kept.get("live")
        if kept is None or kept[0] != (base, scan.state, files):
            kept = ((base, scan.state, files), base.live(files, self.indexer.digest, secondary))
            self._kept["live"] = kept
        return kept[1]

    def _build_postings(self, files: list[str], secondary: set[str]) -> Postings:
        """Postings of these files, stored and read back memory-mapped, so the build's memory
        is let go (and given back: memory.py)."""
        from .search import Postings

        self._base = Postings.build(self._documents(files, secondary))
        self.indexer.store.save_arrays("postings", self._base.arrays)
        if (arrays := self.indexer.store.arrays("postings")) is not None:
            self._base = Postings(arrays)
        memory.give_back()
        return self._base

    def _documents(self, rels: list[str], secondary: set[str]) -> Iterator[tuple[str, str, bool, bytes]]:
        """(path, content hash, secondary, search terms) of these files, for Postings.build."""
        for rel, digest, terms in self.indexer.terms(rels):
            yield rel, digest, rel in secondary, terms

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
        stamps = self._stamps(None, focus, tally)
        key = _answer_key("graph", self.indexer.state(stamps), [fmt, top, query, focus, self.indexer.max_file_size,
                                                               self.indexer.parse_timeout])
        stored = self.indexer.store.blob(key)
        if stored:
            return stored.decode("utf-8")
        text = export.write(self._graph(self._scan(stamps, tally), top, query, focus), fmt)
        self.indexer.store.save_blob(key, text.encode("utf-8"))
        return text

    def _graph(self, scan: Scan, top: int, query: str, focus: Iterable[str]):
        from . import export, ranking

        signals, edges, every = self._signals(scan, focus, query=query)
        ranked, file_rank = ranking.rank(scan.infos, signals, edges, every)
        return export.ranked_graph(edges, file_rank, ranked, scan.sources, top)

    @_one_at_a_time
    def retrieve(self, target: str) -> Snippet:
        """The exact source of the definition an ID, `path::name`, `path:line` or unique name names."""
        form, path, symbol, line = retrieve.parse_target(target)
        if form == "name":
            scan = self.scan(count_terms=False)
            tag = retrieve.by_name(symbol, [t for info in scan.infos.values() for t in info.defs])
            rel = tag.path
        else:
            rel = retrieve.safe_relative(self.root, path)
        data, file_tags = self._parse_now(rel)
        defs = [t for t in file_tags if t.role == "def"]
        if form == "id":
            tag = retrieve.in_file(target, symbol, defs)
        elif form == "line":
            tag = retrieve.at_line(rel, line, defs)
        else:  # the file may have changed since the scan: find the same definition in what was read
            tag = retrieve.in_file(tag.id, tag.qualname + "#" + tag.kind, defs)
        return retrieve.snippet(tag, data)

    @_one_at_a_time
    def refs(self, target: str) -> tuple[Tag, list[tuple[Tag, Tag | None]]]:
        """The definition `target` names, and each reference to its name with its enclosing definition."""
        definition = self.retrieve(target).tag
        family = tags.family_for(definition.path)
        found = []
        rels = [rel for rel, info in self.scan(count_terms=False).infos.items()
                if tags.family_for(rel) == family and definition.name in info.ref_names]
        for rel, answer in sorted(self._parse_files(rels)):
            if isinstance(answer, str):
                continue
            file_tags = answer[1]
            defs = [t for t in file_tags if t.role == "def"]
            for ref in file_tags:
                if ref.role == "ref" and ref.name == definition.name:
                    around = [d for d in defs if d.start_byte <= ref.start_byte < d.end_byte]
                    found.append((ref, max(around, key=lambda d: d.start_byte, default=None)))
        return definition, found

    @_one_at_a_time
    def scan(self, other_files: Iterable[str] | None = None, extra: Iterable[str] = (), count_terms: bool = True
             ) -> Scan:
        """Discover and tag the repository's files (unchanged ones come from memory or the
        cache); with `count_terms`, count the search terms of those tagged now as well (else
        the first search that needs them does)."""
        tally = discover.Tally()
        return self._scan(self._stamps(other_files, extra, tally), tally, count_terms=count_terms)

    def _stamps(self, other_files: Iterable[str] | None, extra: Iterable[str], tally: discover.Tally
                ) -> dict[str, tuple[int, int]]:
        """(size, change stamp) of each wanted file."""
        if other_files is None:
            return self._watched_stamps(tally)
        return self._stamps_of(sorted({self._relative(p) for p in [*extra, *other_files]} - {None}), tally)

    def _listed_stamps(self, tally: discover.Tally, walker: discover.Walker) -> dict[str, tuple[int, int]]:
        """The stamps of every wanted file the repository lists."""
        return self._stamps_of(discover.list_files(self.root, tally, self.ignore, walker), tally)

    def _watched_stamps(self, tally: discover.Tally) -> dict[str, tuple[int, int]]:
        """_listed_stamps, looking only where the watch saw a change since the last look (watch.py):
        where nothing that decides the list changed, the files are not listed again (in a git
        work tree, git took a kept Django map 50 ms or more), and where those named are the
        last look's, only those stamped again. In a work tree every folder is walked too, for
        the watch: git lists files, and a file added to a folder no listed file is in (made
        empty since) must make an event."""
        quiet, last = self._watch.begin(), self._watch.last
        tree = self.ignore and discover.in_work_tree(self.root)
        git = discover.git_folder(self.root) if tree else None
        if quiet is not None and last is not None and (git is not None or not tree) and quiet.settled(git):
            files, listing = last.files, last.listing
        else:
            listing = discover.Tally()
            files = discover.list_files(self.root, listing, self.ignore, self._walker, quiet)
            if tree and self._watch.watching:
                self._walker.walk(self.root, discover.Tally(), self.ignore, quiet)
        tally.merge(listing)
        linked: set[str] = set()
        found = self._watch.restamped(quiet, files,
                                      lambda rels: self.indexer.stamps(rels, discover.Tally(), None, linked))
        if found is None:
            stamped = discover.Tally()
            since = (last.stamps, quiet) if quiet and last else None
            found = self._stamps_of(files, stamped, since, linked), stamped
        stamps, stamped = found
        tally.merge(stamped)
        self._watch.end(files, listing, stamps, stamped, self._walker.folders(), git, linked)
        return stamps

    def _forked_stamps(self, tally: discover.Tally, count_terms: bool
                       ) -> tuple[dict[str, tuple[int, int]], dict[tuple, object]] | None:
        """Every file listed and stamped by a forked child, which then tags anew the few changed
        since the index last tagged them, while this process imports what ranking and rendering
        need (the last map was ranked: an agent edits, then asks again): the stamps, and the
        child's answers to the tagging jobs (Indexer.pretagging). A thread could not stamp: each
        stat would wait for the GIL the imports hold; and a tagging worker would start only once
        the stamps are compared. A Django map after an edit inside a body: 0.340 -> 0.311 and
        0.355 -> 0.331 s (medians of 21 runs interleaved with the child stamping alone, this VM
        at its slowest), as that had made it 0.259 -> 0.224 s. None where the child failed or
        cannot be forked cleanly."""
        from . import workers

        if not _forks_cleanly():
            return None
        walker, stored = self._walker.detached()
        self.indexer.read_stored()  # the child reads and stores nothing itself: the SQLite connection is ours

        def stamp() -> tuple[dict, discover.Tally, dict]:
            found = discover.Tally()
            return self._listed_stamps(found, walker), found, stored

        answer = workers.forked(stamp, lambda stamped: self.indexer.pretagging(stamped[0], count_terms),
                                self._rendering, self.indexer.parse_timeout)
        if answer is None:
            return None
        (stamps, found, stored), tagged = answer
        tally.merge(found)
        self._walker.save(stored)
        return stamps, dict(tagged)

    def _stamps_of(self, candidates: list[str], tally: discover.Tally,
                   since: tuple[dict[str, tuple[int, int]], watch.Quiet] | None = None,
                   linked: set[str] | None = None) -> dict[str, tuple[int, int]]:
        if self.include or self.exclude or self.hide_secondary:  # else every file is wanted: no call each
            candidates = [c for c in candidates if self._wanted(c)]
        return self.indexer.stamps(candidates, tally, since, linked)

    def _scan(self, stamps: dict[str, tuple[int, int]], tally: discover.Tally,
              meanwhile: Callable[[], None] | None = None, count_terms: bool = True,
              tagged: dict[tuple, object] | None = None) -> Scan:
        infos = self.indexer.refresh(stamps, tally, meanwhile, count_terms, tagged)
        if self._states[0] is not infos:  # a refresh that found nothing changed gives the same dict
            self._states = (infos, self.indexer.content_state(list(stamps)), *self.indexer.links_and_views(infos),
                            mirrors.Pairs.of(infos))
        _, state, links, views, pairs = self._states
        evidence = pairs.evidence(self.root, self.indexer.digest)
        links = cache.content_hash(f"{links}\0{evidence}".encode()) if evidence else links
        return Scan(infos, Sources(self.root, self.indexer.digest), tally.counts, state, links, views, evidence)

    def _rank(self, scan: Scan, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
              mention_idents: Iterable[str] = (), query: str = "", budget: int | None = None
              ) -> tuple[RankedList, dict[str, float]]:
        """The ranking for a task, and each file's PageRank. It is made of the graph and the
        task's signals, so it is kept (and stored) per task while the graph and its
        definitions are those of the same state (Edges.state). An edit that changes neither (a
        literal, a comment between definitions, or inside a function whose name is defined
        once) then ranks nothing: a map of Django after one, 0.282 -> 0.262 s (medians of 15
        interleaved CLI runs). With a task text it is kept only in memory while no file
        changes at all (search steers it): the stored map answers the same request on the
        same files, and a kernel's ranking is 48 MB to write."""
        from . import ranking

        focus, mention_files, mention_idents = list(focus), list(mention_files), sorted(mention_idents)
        asked = query.strip() != ""
        edges = self._edges(scan)
        every = self._definitions(scan, edges)
        task = [scan.state if asked else edges.state, sorted(filter(None, map(self._relative, focus))),
                sorted((str(m), self._relative(m) or "") for m in mention_files),  # a mention may be a basename
                mention_idents, query, (budget or self.tokens) if asked else None]
        stored = (None, None) if asked else (dict, lambda arrays: ranking.RankedList.checked(arrays, every, edges))
        arrays = self._derived(  # numbers only: the Tags come from this scan's files
            "ranking", cache.content_hash(json.dumps(task).encode()),
            lambda: ranking.RankedList.to_arrays(*ranking.rank(scan.infos, *self._signals(
                scan, focus, mention_files, mention_idents, query, budget=budget))), *stored)
        return ranking.RankedList.from_arrays(arrays, every, edges, scan.infos)

    def _signals(self, scan: Scan, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
                 mention_idents: Iterable[str] = (), query: str = "", guided: bool = True,
                 budget: int | None = None) -> tuple[Signals, Edges, Definitions]:
        """What steers the ranking for a task, the reference graph it runs on and the files'
        definitions as columns. With a query (and `guided`), what search finds for it too
        (ranking.guided)."""
        from . import ranking

        mention_files, query = list(mention_files), words.task_text(query)
        if query.strip():  # search postings first: a build and the ranking's state are each large
            self._base_postings(scan)
        names = self._names(scan) if query.strip() or mention_files else words.Names.of([], {})
        signals = ranking.task_signals(
            names, {r for r in map(self._relative, focus) if r in scan.infos}, mention_files,
            {r for r in map(self._relative, mention_files) if r}, mention_idents, query, self._secondary(scan))
        edges = self._edges(scan)
        every = self._definitions(scan, edges)
        if guided and query.strip():
            budget = budget or self.tokens
            hits = self._hits(scan, query, (signals, edges, every), ranking.searched(budget))
            signals = ranking.guided(signals, hits, budget)
        return signals, edges, every

    def _secondary(self, scan: Scan, since: tuple[Edges, Inputs, Inputs] | None = None) -> set[str]:
        """Tests, vendored and generated files by their names, and copies in mirror folders.
        Given the last graph and its inputs, and the inputs now (`_edges` after an edit): the
        last graph's, where the files are the same and no file changed since has a twin in
        another top-level folder (the twins are what mirror_copies compares), and what picks
        the copy of two is as it was: finding them again is a pass over every file's names."""
        def made() -> set[str]:
            as_last = self._evidence[1] == scan.evidence \
                and (not scan.evidence or since is not None and self._evidence[0] == since[0].state)
            self._evidence = (scan.links, scan.evidence)
            if since is not None and as_last:
                last, before, after = since
                files = after.files
                if last.files == before.files == files and not any(
                        mirrors.twinned(files[k], files) for k in (before.links != after.links).nonzero()[0].tolist()):
                    return {path for path, secondary in zip(files, last.secondary.tolist()) if secondary}
            files = list(scan.infos)
            return {f for f in files if discover.is_secondary(f)} | mirrors.mirror_copies(
                files, lambda path: scan.infos[path].names, mirrors.Evidence(self.root, files).source)

        return self._derived("secondary", scan.links, made)

    def _names(self, scan: Scan) -> words.Names:
        """The defined names of this state of the files, indexed by sub-word (kept while no
        file changes what it defines), counted from the graph's definitions: the files' own
        lists were every file's tags to read (a kernel's first search: 7 s and 700 MB more)."""
        def made() -> words.Names:
            edges = self._edges(scan)
            return words.Names.of(edges.files, self._definitions(scan, edges).defined(edges.files))

        return self._derived("names", scan.links, made, words.Names.to_arrays, words.Names.from_arrays)

    def _graph_state(self, scan: Scan) -> str:
        """The state whose graph and definitions equal this scan's (Edges.state)."""
        edges = self._edges(scan)
        self._definitions(scan, edges)  # made with the graph, as ever: the next process updates them
        return edges.state

    def _edges(self, scan: Scan) -> Edges:
        """The reference graph of what the files define and reference: after an edit, the last
        one with the rows of the names whose parts the changed files changed joined again."""
        from .edges import Edges, build_edges, updated_edges

        def update(last: Edges, state: str) -> Edges | None:
            after = self._inputs(scan)
            before = self._inputs_of(state)
            if before is None:
                return None
            return updated_edges(last, before, after, self._secondary(scan, (last, before, after)), scan.links)

        return self._derived("edges", scan.links,
                             lambda: build_edges(self._inputs(scan), self._secondary(scan), scan.links),
                             Edges.to_arrays, Edges.from_arrays, update)

    def _definitions(self, scan: Scan, edges: Edges) -> Definitions:
        """The graph's definitions as columns (made of what the files define, as the graph is):
        after an edit that changed no file's definitions' names, the last ones with the slots
        of the rows joined again. The graph's last inputs are let go here (it always follows
        `_edges`), and the three are stored while the map is ranked and rendered."""
        from .definitions import Definitions

        def update(last: Definitions, state: str) -> Definitions | None:
            before = self._inputs_of(state)
            return None if before is None else last.updated(edges, before, self._inputs(scan))

        try:
            return self._derived("definitions", scan.links, lambda: Definitions.of(edges, self._inputs(scan)),
                                 Definitions.to_arrays, Definitions.from_arrays, update)
        finally:
            self._replaced = None
            self._store_made()

    def _inputs(self, scan: Scan) -> Inputs:
        """What the graph and its definitions are made of: the last inputs (kept or stored, of
        any state) with the parts of the files changed since gathered again (an edit: the
        edited file's), else every file's part. The last ones are held (`_replaced`) till the
        graph is made from them."""
        from .inputs import Inputs

        def update(last: Inputs, state: str) -> Inputs:
            self._replaced = (f"inputs:{state}", last)
            return last.spliced(scan.infos)

        return self._derived("inputs", scan.links, lambda: Inputs.of(scan.infos, sorted(scan.infos)),
                             Inputs.to_arrays, Inputs.from_arrays, update)

    def _inputs_of(self, state: str) -> Inputs | None:
        """The graph's last inputs (`_replaced`), if they are those of `state`."""
        before = self._replaced
        return before[1] if before is not None and before[0] == f"inputs:{state}" else None

    def _derived(self, kind: str, state: str, build, encode=None, decode=None, update=None):
        """A structure made from one state of the files: kept in memory while no file changes,
        else read from the index, else made and stored (if it can be): even when it was quick
        to make here, a later process would first have to read every file's tags for it (the
        definitions: Django 0.36 s after an edit). With `update`, it is made by update(last,
        its state) from the last one, of another state (kept, else stored), unless that gives
        None; else by `build`. One of each kind is kept in memory. `encode` makes numpy arrays,
        stored in a file of their own and read memory-mapped (the kernel's graph: about 2 s
        less than a row read, checked and loaded)."""
        key = f"{kind}:{state}"
        kept = self._kept.pop(kind, None)
        if kept is not None and kept[0] == key:
            self._kept[kind] = kept
            return kept[1]
        last = kept if update else None
        del kept  # let the old one go before the new one is made, unless it is made from it
        value = self._stored(kind, key, decode)
        if value is None:
            last = last if last is not None or update is None else self._last_stored(kind, decode)
            value = update(last[1], last[0].partition(":")[2]) if last is not None else None
            last = None
            value = value if value is not None else build()
            if encode:
                self._made.append((kind, encode(value), key))
        self._kept[kind] = (key, value)
        return value

    def _store_made(self) -> None:
        """Store the structures made since the last time, in a thread while the answer is
        finished and returned (after the graph's definitions, and at the end of a call): a
        kernel's inputs, graph and definitions after an edit inside a body are about 700 MB,
        1.0-1.4 s to write. Stored last made first, after those of earlier calls: each kind is
        made from the ones before it, and another process updates a kind from the one stored
        last with the inputs of that one's state, so it must never find the inputs newer than
        the graph (it would build the graph anew). The arrays are made read-only: nothing may
        change them while they are written (an update makes new arrays of the last ones)."""
        made, self._made = self._made[::-1], []
        if not made:
            return
        for _, arrays, _ in made:
            for array in arrays.values():
                array.flags.writeable = False
        before = self._storing

        def store() -> None:
            if before is not None:
                before.join()
            for kind, arrays, key in made:
                self.indexer.store.save_arrays(kind, arrays, key)

        self._storing = threading.Thread(target=store, name="repomap-store")
        self._storing.start()

    def _stored(self, kind: str, key: str, decode):
        """The structure stored under `key`, or None."""
        stored = self.indexer.store.arrays(kind, key) if decode else None
        return self._decoded(kind, stored, decode)

    def _last_stored(self, kind: str, decode) -> tuple[str, object] | None:
        """The structure of `kind` stored last, and its key, or None."""
        stored = self.indexer.store.last_arrays(kind) if decode else None
        value = self._decoded(kind, stored[1], decode) if stored is not None else None
        return (stored[0], value) if value is not None else None

    @staticmethod
    def _decoded(kind: str, stored: dict | None, decode):
        """The structure of stored arrays; None where they are not of its shape (it is made again)."""
        try:
            return decode(stored) if stored else None
        except (ValueError, KeyError, OSError, EOFError, TypeError):
            cache.damaged(kind)
            return None

    def _parse_now(self, rel: str) -> tuple[bytes, list[Tag]]:
        """One file's bytes and tags, read and parsed now, so both are of the same moment.
        Changed where its stamp (Indexer.stamps) moved meanwhile: it was read as it was being
        written (emptied, then filled), and the call is made again."""
        def stamp() -> dict[str, tuple[int, int]]:  # {} where it is no source file (of a language we tag)
            return self.indexer.stamps([rel], discover.Tally()) if os.path.isfile(self.root / rel) else {}

        before = stamp()
        if not before:
            raise NotFound(f"no source file {rel}", [])
        (_, answer), = self._parse_files([rel])
        if stamp() != before:
            raise Changed(f"{rel} changed while it was read; try again")
        if isinstance(answer, str):
            raise NotFound(f"{rel} cannot be tagged ({answer})", [])
        return answer

    def _parse_files(self, rels: list[str]):
        """(rel, (bytes, tags) or why not) per file, parsed now in workers under the time limit."""
        from . import workers

        setup = functools.partial(tags.prepare, {tags.language_for(rel) for rel in rels} - {None})
        jobs = [(str(self.root / rel), rel, self.indexer.max_file_size) for rel in rels]
        for job, answer in workers.run(_parse_job, jobs, self.indexer.parse_timeout, os.cpu_count() or 1, setup):
            yield job[1], answer.reason if isinstance(answer, workers.Failed) else answer

    def focus_file(self, path: str | os.PathLike) -> str:
        """`path` (absolute, or relative to the root or the working folder) as the
        repository-relative path of a file in it; RepoMapError where it is outside the
        repository or names no file there."""
        rel = self._relative(path)
        if rel is None:
            raise RepoMapError(f"focus path outside the repository: {path}")
        if not (self.root / rel).is_file():
            raise RepoMapError(f"no such focus file: {path}")
        return rel

    def _relative(self, path: str | os.PathLike) -> str | None:
        """A repository-relative path with /, or None if the path is outside the root."""
        candidate = Path(path)
        try:  # a path too long for the OS names no file
            if not candidate.is_absolute():
                in_root = self.root / candidate
                candidate = in_root if in_root.exists() or not Path(path).exists() else Path(path).resolve()
            return candidate.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def _wanted(self, rel: str) -> bool:
        if self.include and not any(discover.glob_match(rel, g) for g in self.include):
            return False
        if self.exclude and any(discover.glob_match(rel, g) for g in self.exclude):
            return False
        return not (self.hide_secondary and discover.is_secondary(rel))


def _parse_job(job: tuple[str, str, int]) -> tuple[bytes, list[Tag]] | str:
    """A file's bytes and all its tags, or why it cannot be tagged."""
    path, rel, max_file_size = job
    data, why = discover.read_source(Path(path), max_file_size)
    result = tags.extract(rel, data, tags.language_for(rel)) if data is not None else None
    return (data, result.tags) if result is not None else why or "no working query"
