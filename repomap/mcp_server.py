"""`repomap mcp`: the map, search and retrieve as read-only MCP tools over stdio.

Built on the official MCP Python SDK, 2.x (`MCPServer`). Nothing but protocol goes
to stdout; warnings go to stderr. Every answer, an error too, is JSON text, sent once,
with a `_meta` block whose `tokens` counts that text exactly; a map's budget bounds
that text.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from . import __version__
from .answers import MapResult
from .api import RepoMap
from .errors import NotFound, RepoMapError, clipped
from .retrieve import Snippet, content, holders, safe_relative
from .tokens import count_tokens, with_meta

READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
MAX_TOKENS = 16_000
MAX_IDS = 20
PROGRESS_STEPS = 100  # progress notifications a call sends at most: one per hundredth of its files tagged


class _Server(MCPServer):
    """The SDK's server, except that every failed call is answered as the tools answer, in
    JSON with `_meta`, in one line that names the argument at fault (the SDK's is plain text,
    and for a wrong type pydantic's report with its links); and that an argument a tool does
    not take is an error naming it (the SDK drops it silently, and an agent that misspelt
    `tokens` gets a map it did not ask for)."""

    def __init__(self, *args, encoding: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.encoding = encoding  # what an error's _meta.tokens counts in, as the answers' do

    async def call_tool(self, name, arguments, context=None):
        started = time.perf_counter()
        try:
            self._check(name, arguments)
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:  # a bug of repomap's: the details go to the log alone
            logging.getLogger(__name__).error("%s failed", name, exc_info=exc.__cause__)
            return _error(f"{name} failed inside repomap (the server's log says why)", started, self.encoding)
        except ToolError as exc:  # the SDK's wrapper, around what was wrong (its cause) if it has one
            cause = exc.__cause__
            said = _invalid(cause) if isinstance(cause, ValidationError) else str(cause or exc)
            return _error(said, started, self.encoding)

    def _check(self, name: str, arguments: dict) -> None:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            tools = ", ".join(sorted(t.name for t in self._tool_manager.list_tools()))
            raise ToolError(clipped(f"no tool {name!r} (the tools: {tools})"))
        known = set(tool.parameters.get("properties", {}))
        unknown = sorted(set(arguments) - known)
        if unknown:
            raise ToolError(clipped(f"{name} takes no argument {', '.join(map(repr, unknown))} "
                                    f"(it takes: {', '.join(sorted(known))})"))


def _invalid(exc: ValidationError) -> str:
    """Each argument that does not fit the tool's schema, with what it should be, on one line."""
    return clipped("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


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
                  version=__version__, encoding=repo.options.encoding)

    @app.tool(annotations=READ_ONLY, description=(
        "Ranked map of the repository: the most relevant signatures, bodies elided, within a token budget. "
        "Steer it with the task text and the files you already have."))
    def repo_map(context: Context, query: str = "", focus: list[str] | None = None,
                 tokens: int | None = None) -> CallToolResult:
        started = time.perf_counter()
        tokens = repo.options.tokens if tokens is None else tokens  # the repository's setting, else 1,024
        if not 1 <= tokens <= MAX_TOKENS:
            raise ToolError(f"tokens: must be between 1 and {MAX_TOKENS}")
        missing = [f for f in focus or [] if not _in_repository(repo, f)]
        if missing:
            raise ToolError(clipped(f"no such focus file: {', '.join(missing)} (paths are relative to {repo.root})"))

        def build(budget: int) -> MapResult:
            return _answer(lambda: repo.build(query=query[:10_000], focus=focus or [], tokens=budget))

        with progress.to(context):
            return _map_reply(repo, build, tokens, started)

    @app.tool(annotations=READ_ONLY, description=(
        "Find definitions by words or a question; returns IDs, kinds, signatures and locations, no bodies."))
    def search(context: Context, query: str, limit: int = 5) -> CallToolResult:
        started = time.perf_counter()
        if not 1 <= limit <= 50:
            raise ToolError("limit: must be between 1 and 50")
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
            raise ToolError(f"ids: give 1 to {MAX_IDS} IDs")
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
    return _sent(_json(answer, repo.file_tokens(paths), started, repo.options.encoding))


def _map_reply(repo: RepoMap, build: Callable[[int], MapResult], tokens: int, started: float) -> CallToolResult:
    """The map whose whole answer, as the client gets it, costs at most `tokens`. The JSON
    around the map costs tokens, and so do the escapes its line breaks and quotes become in a
    JSON string, the more the longer the map. So the map is fitted again, to its budget scaled
    by what it cost in the answer against what it was fitted to, until the answer fits. A
    refitted map shows mostly the files shown before, each of which is counted once."""
    budget, counted, encoding = tokens, {}, repo.options.encoding
    while True:
        result = build(budget)
        for path in set(result.shown_files) - set(counted):
            counted[path] = repo.file_tokens([path])
        file_tokens = sum(counted[path] for path in set(result.shown_files))
        text = _json({"map": result.text}, file_tokens, started, encoding)
        sent = count_tokens(text, encoding)
        if sent <= tokens:
            return _sent(text)
        around = count_tokens(_json({"map": ""}, file_tokens, started, encoding), encoding)
        budget = min(budget - 1, budget * (tokens - around) // max(1, sent - around))
        if budget < 1:
            raise ToolError(f"tokens: too few for an answer (its JSON alone costs {around})")


def _error(message: str, started: float, encoding: str) -> CallToolResult:
    return _sent(_json({"error": message}, 0, started, encoding), is_error=True)


def _json(answer: dict, file_tokens: int, started: float, encoding: str) -> str:
    return with_meta(answer, lambda a: json.dumps(a, ensure_ascii=False), file_tokens, started, encoding)


def _sent(text: str, is_error: bool = False) -> CallToolResult:
    """The answer once, as compact JSON text (what a client shows the model): as structured
    content too, it would reach the model twice for the price of one in `_meta.tokens`."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


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
