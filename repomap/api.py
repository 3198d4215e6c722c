"""The library entry point: files -> tags -> graph -> ranking -> rendering, for the CLI and chat loops."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from . import discover, graph, render, retrieve, tags, words
from .graph import Ranked, Signals
from .retrieve import Snippet
from .search import Hit, Index
from .tags import Tag


class RepoMapError(Exception):
    """Bad input from the user: the CLI prints it as one line and exits 2."""


@dataclass
class MapResult:
    text: str
    tokens: int
    ranked_files: list[str]
    ranked: list[Ranked]
    notes: dict[str, int] = field(default_factory=dict)  # files skipped or worth a word, by reason


@dataclass
class Scan:
    """The tagged files of one look at the repository."""

    sources: dict[str, bytes]
    tags: dict[str, list[Tag]]
    notes: dict[str, int]


@dataclass
class _Cached:
    stamp: tuple[int, int]
    data: bytes
    tags: list[Tag]
    notes: tuple[str, ...]  # counted again on every scan


def _own_texts(defs: list[Tag], source: bytes) -> dict[str, str]:
    """Each definition's text without the definitions nested in it, so a class's words are
    its own and not all of its methods'. `defs` are in source order."""
    texts = {}
    for i, tag in enumerate(defs):
        pieces, cursor = [], tag.head_byte if tag.head_byte >= 0 else tag.start_byte
        for inner in defs[i + 1:]:
            if inner.start_byte >= tag.end_byte:
                break
            if inner.start_byte >= cursor and inner.end_byte <= tag.end_byte:
                pieces.append(source[cursor:inner.start_byte])
                cursor = inner.end_byte
        pieces.append(source[cursor:tag.end_byte])
        texts[tag.id] = b"".join(pieces).decode("utf-8", errors="replace")
    return texts


class RepoMap:
    """A repository's map, built again cheaply on every call (unchanged files are not re-parsed).

    >>> rm = RepoMap("path/to/repo", tokens=1024)
    >>> print(rm.get_repo_map(chat_files=["src/app.py"], mentioned_idents={"Flask"}))
    """

    def __init__(self, root: str | os.PathLike, *, tokens: int = 1024, fmt: str = "text",
                 template: str | os.PathLike | None = None, include: Iterable[str] = (),
                 exclude: Iterable[str] = (), hide_secondary: bool = False,
                 max_file_bytes: int = discover.MAX_FILE_BYTES):
        self.root = Path(root).resolve()
        if not self.root.exists():
            raise RepoMapError(f"no such directory: {root}")
        if not self.root.is_dir():
            raise RepoMapError(f"not a directory: {root}")
        if tokens < 1:
            raise RepoMapError(f"the token budget must be a positive number, not {tokens}")
        self.tokens = tokens
        self.fmt = fmt
        self.template = Path(template) if template else None
        if self.template is not None and not self.template.is_file():
            raise RepoMapError(f"no such template file: {template}")
        try:
            render._load_template(fmt, self.template)
        except Exception as exc:
            raise RepoMapError(f"bad template: {exc}") from None
        self.include = list(include)
        self.exclude = list(exclude)
        self.hide_secondary = hide_secondary
        self.max_file_bytes = max_file_bytes
        self._cache: dict[str, _Cached] = {}

    def get_repo_map(self, chat_files: Iterable[str] = (), other_files: Iterable[str] | None = None,
                     mentioned_fnames: Iterable[str] = (), mentioned_idents: Iterable[str] = (),
                     max_tokens: int | None = None) -> str:
        """Aider's shape: the map for a chat turn, leaving out the files already in the chat."""
        return self.build(focus=chat_files, other_files=other_files, mention_files=mentioned_fnames,
                          mention_idents=mentioned_idents, tokens=max_tokens).text

    def build(self, *, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
              mention_idents: Iterable[str] = (), query: str = "", tokens: int | None = None,
              other_files: Iterable[str] | None = None) -> MapResult:
        """Scan, rank and render; the map fits `tokens` (default: the budget given at construction)."""
        scan = self.scan(other_files=other_files, extra=focus)
        ranked, file_rank = self._rank(scan, focus, mention_files, mention_idents, query)
        renderer = render.Renderer(scan.sources, scan.tags, file_rank, self.fmt, self.template)
        text, used = render.fit(ranked, tokens or self.tokens, renderer.render, renderer.estimate)
        order = list(dict.fromkeys(r.tag.path for r in ranked))
        return MapResult(text, used, order, ranked, scan.notes)

    def search(self, query: str, limit: int = 5, kind: str | None = None, path: str | None = None) -> list[Hit]:
        """Definitions matching `query`, best first: BM25 blended with the map's rank."""
        scan = self.scan()
        ranked, _ = self._rank(scan, query=query)
        defs = [t for ts in scan.tags.values() for t in ts if t.role == "def" and not t.local]
        signatures = {}
        for rel, file_tags in scan.tags.items():
            signatures.update(render.signatures(file_tags, scan.sources[rel]))
        texts = {}
        for rel, file_tags in scan.tags.items():
            texts.update(_own_texts([t for t in file_tags if t.role == "def"], scan.sources[rel]))
        index = Index(defs, signatures, texts, {r.tag.id: r.score for r in ranked},
                      {f for f in scan.tags if discover.is_secondary(f)})
        return index.search(query, limit, lambda t: (kind in (None, t.kind))
                            and (path is None or discover.glob_match(t.path, path)))

    def retrieve(self, target: str) -> Snippet:
        """The exact source of the definition an ID, `path::name`, `path:line` or unique name names."""
        form, path, symbol, line = retrieve.parse_target(target)
        if form == "name":
            defs = [t for ts in self.scan().tags.values() for t in ts if t.role == "def"]
            tag = retrieve.by_name(symbol, defs)
        else:
            rel = retrieve.safe_relative(self.root, path)
            defs = self._file_defs(rel)
            tag = retrieve.in_file(target, symbol, defs) if form == "id" else retrieve.at_line(rel, line, defs)
        return retrieve.snippet(tag, self._cache[tag.path].data)

    def refs(self, target: str) -> tuple[Tag, list[tuple[Tag, Tag | None]]]:
        """The definition `target` names, and each reference to its name with its enclosing definition."""
        definition = self.retrieve(target).tag
        family = tags.family_for(definition.path)
        found = []
        for rel, file_tags in sorted(self.scan().tags.items()):
            if tags.family_for(rel) != family:
                continue
            defs = [t for t in file_tags if t.role == "def"]
            for ref in file_tags:
                if ref.role == "ref" and ref.name == definition.name:
                    around = [d for d in defs if d.start_byte <= ref.start_byte < d.end_byte]
                    found.append((ref, max(around, key=lambda d: d.start_byte, default=None)))
        return definition, found

    def scan(self, other_files: Iterable[str] | None = None, extra: Iterable[str] = ()) -> Scan:
        """Discover and tag the repository's files (unchanged ones come from the cache)."""
        tally = discover.Tally()
        if other_files is None:
            candidates = discover.list_files(self.root)
        else:
            candidates = sorted({self._relative(p) for p in [*extra, *other_files]} - {None})
        sources, tags_by_file = self._scan([c for c in candidates if self._wanted(c)], tally)
        if other_files is None:  # forget deleted files
            self._cache = {rel: c for rel, c in self._cache.items() if rel in tags_by_file}
        return Scan(sources, tags_by_file, tally.counts)

    def _rank(self, scan: Scan, focus: Iterable[str] = (), mention_files: Iterable[str] = (),
              mention_idents: Iterable[str] = (), query: str = "") -> tuple[list[Ranked], dict[str, float]]:
        files = sorted(scan.tags)
        defined = Counter(t.name for ts in scan.tags.values() for t in ts if t.role == "def")
        named = words.mentions(" ".join(mention_files), files, defined)
        asked = words.mentions(query, files, defined)
        signals = Signals(
            focus={r for r in map(self._relative, focus) if r in scan.tags},
            mentioned_files=(named.files | asked.files | {r for r in map(self._relative, mention_files) if r}),
            mentioned_idents=set(mention_idents) | asked.idents,
            terms=asked.terms,
            secondary={f for f in files if discover.is_secondary(f)},
        )
        return graph.rank(scan.tags, signals)

    def _file_defs(self, rel: str) -> list[Tag]:
        """One file's definitions, re-tagged if it changed since the last look."""
        language = tags.language_for(rel)
        if not (self.root / rel).is_file() or language is None:
            raise retrieve.NotFound(f"no source file {rel}", [])
        cached = self._tag_file(rel, language, discover.Tally())
        if cached is None:
            raise retrieve.NotFound(f"{rel} cannot be tagged (binary, too large or minified)", [])
        return [t for t in cached.tags if t.role == "def"]

    def _relative(self, path: str | os.PathLike) -> str | None:
        """A repository-relative path with /, or None if the path is outside the root."""
        candidate = Path(path)
        if not candidate.is_absolute():
            in_root = self.root / candidate
            candidate = in_root if in_root.exists() or not Path(path).exists() else Path(path).resolve()
        try:
            return candidate.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def _wanted(self, rel: str) -> bool:
        if self.include and not any(discover.glob_match(rel, g) for g in self.include):
            return False
        if any(discover.glob_match(rel, g) for g in self.exclude):
            return False
        return not (self.hide_secondary and discover.is_secondary(rel))

    def _scan(self, candidates: list[str], tally: discover.Tally
              ) -> tuple[dict[str, bytes], dict[str, list[Tag]]]:
        sources: dict[str, bytes] = {}
        tags_by_file: dict[str, list[Tag]] = {}
        for rel in candidates:
            language = tags.language_for(rel)
            if language is None:
                tally.add("not source code")
                continue
            cached = self._tag_file(rel, language, tally)
            if cached is not None:
                sources[rel] = cached.data
                tags_by_file[rel] = cached.tags
        return sources, tags_by_file

    def _tag_file(self, rel: str, language: str, tally: discover.Tally) -> _Cached | None:
        path = self.root / rel
        try:
            info = path.stat()
        except OSError:
            tally.add("unreadable")
            return None
        stamp = (info.st_size, info.st_mtime_ns)
        cached = self._cache.get(rel)
        if cached is not None and cached.stamp == stamp:
            for note in cached.notes:
                tally.add(note)
            return cached
        source = discover.read_source(self.root, rel, tally, self.max_file_bytes)
        if source is None:
            return None
        result = tags.extract(rel, source.data, language)
        if result is None:
            tally.add(f"no working {language} query")
            return None
        notes = []
        try:
            source.data.decode("utf-8")
        except UnicodeDecodeError:
            notes.append("not UTF-8 (tagged anyway)")
        if result.syntax_error:
            notes.append("with syntax errors (partial tags)")
        for note in notes:
            tally.add(note)
        self._cache[rel] = _Cached(stamp, source.data, result.tags, tuple(notes))
        return self._cache[rel]

