"""`repomap mcp`: the map, search and retrieve as read-only MCP tools over stdio.

Built on the official MCP Python SDK, 2.x (`MCPServer`). Nothing but protocol goes
to stdout; warnings go to stderr. Every answer is JSON text, sent once, with a `_meta`
block whose `tokens` counts that text exactly.
"""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from . import __version__
from .api import RepoMap
from .errors import NotFound, RepoMapError, clipped
from .retrieve import Snippet, content, holders, safe_relative
from .tokens import with_meta

READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
MAX_TOKENS = 16_000
MAX_IDS = 20
PROGRESS_STEPS = 100  # progress notifications a call sends at most: one per hundredth of its files tagged


class _Server(MCPServer):
    """The SDK's server, except that an argument a tool does not take is an error naming it
    (the SDK drops it silently, and an agent that misspelt `tokens` gets a map it did not ask for)."""

    async def call_tool(self, name, arguments, context=None):
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            known = set(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - known)
            if unknown:
                raise ToolError(f"{name} takes no argument {', '.join(map(repr, unknown))} "
                                f"(it takes: {', '.join(sorted(known))})")
        return await super().call_tool(name, arguments, context)


def _in_repository(repo: RepoMap, path: str) -> bool:
    """Whether `path`, relative to the root, names a file inside it. A path that leads out is
    no file whether or not it exists: a client learns nothing of the files outside."""
    try:
        return os.path.isfile(repo.root / safe_relative(repo.root, path))
    except RepoMapError:
        return False


class _Progress:
    """The index's progress (files tagged, of how many), sent to the client of the tool call
    running in this thread, where it asked for progress: each call runs in a thread of its
    own, and calls on the RepoMap take turns."""

    def __init__(self):
        self.calls = threading.local()

    def __call__(self, done: int, total: int) -> None:
        context = getattr(self.calls, "context", None)
        step = done * PROGRESS_STEPS // total
        if context is not None and (done == total or step > (done - 1) * PROGRESS_STEPS // total):
            anyio.from_thread.run(context.report_progress, done, total)

    @contextmanager
    def to(self, context: Context):
        self.calls.context = context
        try:
            yield
        finally:
            self.calls.context = None


def server(repo: RepoMap) -> MCPServer:
    progress = repo.indexer.progress = _Progress()
    app = _Server("repomap", instructions="Map, search and read this repository's code for few tokens.",
                  version=__version__)

    @app.tool(annotations=READ_ONLY, description=(
        "Ranked map of the repository: the most relevant signatures, bodies elided, within a token budget. "
        "Steer it with the task text and the files you already have."))
    def repo_map(context: Context, query: str = "", focus: list[str] | None = None,
                 tokens: int | None = None) -> CallToolResult:
        started = time.perf_counter()
        tokens = repo.options.tokens if tokens is None else tokens  # the repository's setting, else 1,024
        if not 1 <= tokens <= MAX_TOKENS:
            raise ToolError(f"tokens must be between 1 and {MAX_TOKENS}")
        missing = [f for f in focus or [] if not _in_repository(repo, f)]
        if missing:
            raise ToolError(clipped(f"no such focus file: {', '.join(missing)} (paths are relative to {repo.root})"))
        with progress.to(context):
            result = _answer(lambda: repo.build(query=query[:10_000], focus=focus or [], tokens=tokens))
        return _reply(repo, {"map": result.text}, result.shown_files, started)

    @app.tool(annotations=READ_ONLY, description=(
        "Find definitions by words or a question; returns IDs, kinds, signatures and locations, no bodies."))
    def search(context: Context, query: str, limit: int = 5) -> CallToolResult:
        started = time.perf_counter()
        if not 1 <= limit <= 50:
            raise ToolError("limit must be between 1 and 50")
        with progress.to(context):
            hits = _answer(lambda: repo.search(query[:10_000], limit=limit))
        results = [{"id": h.tag.id, "signature": h.signature.splitlines()[0] if h.signature else "",
                    "lines": f"{h.tag.line}-{h.tag.end_line}", "score": h.score} for h in hits]
        return _reply(repo, {"results": results}, {h.tag.path for h in hits}, started)

    @app.tool(annotations=READ_ONLY, description=(
        "Exact source of definitions by ID (from search or the map), path::name, path:line or a unique name; "
        "each ID gets its source, the ID of another of the answer that holds its lines, or its own error."))
    def retrieve(ids: list[str]) -> CallToolResult:
        started = time.perf_counter()
        if not 1 <= len(ids) <= MAX_IDS:
            raise ToolError(f"give 1 to {MAX_IDS} IDs")
        answers = []
        for target in ids:
            try:
                answers.append(_answer(lambda: repo.retrieve(target)))
            except ToolError as exc:
                answers.append({"id": clipped(target), "error": str(exc)})
        found = [a for a in answers if isinstance(a, Snippet)]
        held_by = iter(holders(found))  # in the order found
        results = [{"id": a.tag.id, "lines": f"{a.start_line}-{a.end_line}", **content(a, next(held_by))}
                   if isinstance(a, Snippet) else a for a in answers]
        paths = {s.tag.path for s in found}
        if not paths:  # nothing found: an error, with each ID's reason
            raise ToolError("; ".join(f"{r['id']}: {r['error']}" for r in results))
        return _reply(repo, {"results": results}, paths, started)

    return app


def _reply(repo: RepoMap, answer: dict, paths, started: float) -> CallToolResult:
    """The answer once, as compact JSON text (what a client shows the model): as structured
    content too, it would reach the model twice for the price of one in `_meta.tokens`."""
    text = with_meta(answer, lambda a: json.dumps(a, ensure_ascii=False), repo.file_tokens(paths), started,
                     repo.options.encoding)
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _answer(call):
    """Run a library call; what the user got wrong comes back as a tool error, not a crash."""
    try:
        return call()
    except NotFound as exc:
        hint = f"; try: {', '.join(exc.candidates[:5])}" if exc.candidates else ""
        raise ToolError(f"{exc}{hint}") from None
    except RepoMapError as exc:
        raise ToolError(str(exc)) from None


def serve(repo: RepoMap) -> None:
    server(repo).run("stdio")
