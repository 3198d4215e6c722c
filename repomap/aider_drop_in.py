"""Aider's RepoMap, backed by repomap: what `repomap aider` puts in Aider's place.

Aider 0.86 builds its map object as `RepoMap(map_tokens, root, main_model, io,
repo_content_prefix, verbose, max_context_window, map_mul_no_files=, refresh=)`, calls
`get_repo_map(chat_files, other_files, mentioned_fnames=, mentioned_idents=, force_refresh=)`
each turn and reads `max_map_tokens`, `map_mul_no_files` and `refresh`. AiderRepoMap keeps
that contract and Aider's policies (refresh modes, the larger map when the chat has no files,
the prefix), and draws the map with repomap's ranking, rendering and exact token budget.
"""

from __future__ import annotations

import os
import time
from typing import Iterable

from .api import RepoMap
from .errors import RepoMapError
from .tokens import count_tokens


PADDING = 4096  # Aider's own margin: a map enlarged for an empty chat leaves this much of the window free
SLOW_MAP = 1.0  # seconds: with refresh "auto", Aider reuses a map only when making it took longer


class AiderRepoMap:
    """Aider's RepoMap interface over repomap.api.RepoMap (one engine per Aider session)."""

    def __init__(self, map_tokens: int = 1024, root: str | os.PathLike | None = None, main_model=None, io=None,
                 repo_content_prefix: str | None = None, verbose: bool = False,
                 max_context_window: int | None = None, map_mul_no_files: float = 8, refresh: str = "auto"):
        self.max_map_tokens = map_tokens
        self.root = str(root or os.getcwd())
        self.main_model = main_model
        self.io = io
        self.repo_content_prefix = repo_content_prefix
        self.verbose = verbose
        self.max_context_window = max_context_window
        self.map_mul_no_files = map_mul_no_files
        self.refresh = refresh
        self.map_cache: dict[tuple, str | None] = {}
        self.last_map: str | None = None
        self.map_processing_time = 0.0
        self.slow_map = SLOW_MAP  # a caller (a test) may set it, rather than depend on how fast a map is made
        self.engine: RepoMap | None = None  # none where the settings turn the map off
        try:  # settings from .repomap.toml; Aider's budget is passed on each call
            self.engine = RepoMap(self.root, fmt="text")  # a prompt preamble, whatever format the settings name
        except RepoMapError as exc:
            self._turn_off(exc)

    def token_count(self, text: str) -> int:
        """Exact tokens of the encoding the map is fitted in (the settings', else cl100k_base),
        where Aider samples lines and estimates."""
        return count_tokens(text, self.engine.options.encoding) if self.engine else count_tokens(text)

    def get_repo_map(self, chat_files: Iterable[str], other_files: Iterable[str],
                     mentioned_fnames: Iterable[str] | None = None, mentioned_idents: Iterable[str] | None = None,
                     force_refresh: bool = False) -> str | None:
        """The map text Aider puts in the prompt, or None for no map (Aider then falls back)."""
        chat_files, other_files = set(chat_files or ()), set(other_files or ())
        if self.max_map_tokens <= 0 or not other_files:
            return None
        budget = self.max_map_tokens
        if not chat_files and self.max_context_window:
            target = min(int(budget * self.map_mul_no_files), self.max_context_window - PADDING)
            budget = target if target > 0 else budget
        listing = self._listing(chat_files, other_files, budget, set(mentioned_fnames or ()),
                                set(mentioned_idents or ()), force_refresh)
        if not listing:
            return None
        if self.verbose and self.io:
            self.io.tool_output(f"Repo-map: {self.token_count(listing) / 1024:.1f} k-tokens")
        prefix = self.repo_content_prefix.format(other="other " if chat_files else "") if self.repo_content_prefix else ""
        return prefix + listing

    def _listing(self, chat_files: set[str], other_files: set[str], budget: int, mentioned_fnames: set[str],
                 mentioned_idents: set[str], force_refresh: bool) -> str | None:
        """The map itself, reused as Aider's refresh mode says: "manual" keeps the last map until
        a forced refresh, "files" reuses one per set of files, "auto" does that only when making
        it was slow, "always" never reuses."""
        key = (tuple(sorted(chat_files)), tuple(sorted(other_files)), budget)
        if self.refresh == "auto":
            key += (tuple(sorted(mentioned_fnames)), tuple(sorted(mentioned_idents)))
        if not force_refresh:
            if self.refresh == "manual" and self.last_map:
                return self.last_map
            reuse = self.refresh == "files" or (self.refresh == "auto" and self.map_processing_time > self.slow_map)
            if reuse and key in self.map_cache:
                return self.map_cache[key]
        started = time.perf_counter()
        try:
            listing = self.engine.build(focus=chat_files, other_files=other_files, mention_files=mentioned_fnames,
                                        mention_idents=mentioned_idents, tokens=budget).text or None
        except RepoMapError as exc:
            self._turn_off(exc)
            return None
        self.map_processing_time = time.perf_counter() - started
        self.map_cache[key] = self.last_map = listing
        return listing

    def _turn_off(self, exc: RepoMapError) -> None:
        """Aider goes on without a map, as it does when its own fails, and says why."""
        self.max_map_tokens = 0
        if self.io:
            self.io.tool_error(f"repomap: {exc}; the repository map is off")


def run_aider(argv: list[str]) -> int:
    """Aider's own command line, with AiderRepoMap in place of Aider's RepoMap."""
    try:
        import aider.coders.base_coder
        import aider.main
        import aider.repomap
    except ImportError:
        raise RepoMapError("`repomap aider` needs Aider in the same environment: pip install 'repomap[aider]'") from None
    aider.coders.base_coder.RepoMap = aider.repomap.RepoMap = AiderRepoMap
    return aider.main.main(argv) or 0
