"""`repomap mcp`: the map, search and retrieve as read-only MCP tools over stdio.

Built on the official MCP Python SDK, 2.x (`MCPServer`). Nothing but protocol goes
to stdout; warnings go to stderr. Every answer is JSON, given both as text and as
structured content, with a `_meta` block whose `tokens` counts that text exactly.
"""

from __future__ import annotations

import json
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from .api import RepoMap
from .errors import NotFound, RepoMapError
from .tokens import priced

READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
MAX_TOKENS = 16_000
MAX_IDS = 20


def server(repo: RepoMap) -> MCPServer:
    app = MCPServer("repomap", instructions="Map, search and read this repository's code for few tokens.")

    @app.tool(annotations=READ_ONLY, description=(
        "Ranked map of the repository: the most relevant signatures, bodies elided, within a token budget. "
        "Steer it with the task text and the files you already have."))
    def repo_map(query: str = "", focus: list[str] | None = None, tokens: int | None = None) -> CallToolResult:
        started = time.perf_counter()
        tokens = repo.tokens if tokens is None else tokens  # the repository's setting, else 1,024
        if not 1 <= tokens <= MAX_TOKENS:
            raise ToolError(f"tokens must be between 1 and {MAX_TOKENS}")
        result = _answer(lambda: repo.build(query=query[:10_000], focus=focus or [], tokens=tokens))
        return _reply(repo, {"map": result.text}, result.shown_files, started)

    @app.tool(annotations=READ_ONLY, description=(
        "Find definitions by words or a question; returns IDs, kinds, signatures and locations, no bodies."))
    def search(query: str, limit: int = 5) -> CallToolResult:
        started = time.perf_counter()
        if not 1 <= limit <= 50:
            raise ToolError("limit must be between 1 and 50")
        hits = _answer(lambda: repo.search(query[:10_000], limit=limit))
        results = [{"id": h.tag.id, "signature": h.signature.splitlines()[0] if h.signature else "",
                    "lines": f"{h.tag.line}-{h.tag.end_line}", "score": h.score} for h in hits]
        return _reply(repo, {"results": results}, {h.tag.path for h in hits}, started)

    @app.tool(annotations=READ_ONLY, description=(
        "Exact source of definitions by ID (from search or the map), path::name, path:line or a unique name."))
    def retrieve(ids: list[str]) -> CallToolResult:
        started = time.perf_counter()
        if not 1 <= len(ids) <= MAX_IDS:
            raise ToolError(f"give 1 to {MAX_IDS} IDs")
        snippets = [_answer(lambda target=target: repo.retrieve(target)) for target in ids]
        results = [{"id": s.tag.id, "lines": f"{s.start_line}-{s.end_line}",
                    "source": s.data.decode("utf-8", errors="replace")} for s in snippets]
        return _reply(repo, {"results": results}, {s.tag.path for s in snippets}, started)

    return app


def _reply(repo: RepoMap, answer: dict, paths, started: float) -> CallToolResult:
    """The answer as compact JSON text (what a client shows the model) and as structured content."""
    text = priced(answer, lambda a: json.dumps(a, ensure_ascii=False), repo.file_tokens(paths), started)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=answer)


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
