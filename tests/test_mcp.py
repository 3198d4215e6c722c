"""The MCP server, driven by the SDK's own client over a real stdio subprocess."""

import contextlib
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import FIXTURES, run
from repomap.tokens import count_tokens

REPO = str(FIXTURES / "repo")


@contextlib.asynccontextmanager
async def _session(repo: str):
    """A client session with `repomap mcp` serving `repo`, started for it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "repomap", "mcp", str(repo)],
                                   env={**os.environ}, cwd=str(repo))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def session_run(body, repo=REPO):
    """Start `repomap mcp` on a repository (the fixture's by default) and run `body(session)` against it."""
    async def main():
        async with _session(repo) as session:
            return await body(session)

    return anyio.run(main)


@pytest.fixture(scope="module")
def served():
    """`body(session)` run against one server of the fixture repository, shared by the tests
    of what the tools answer: their calls change nothing, and a server's start is most of
    such a test's time. The tests of a server's start and of its life start their own."""
    with anyio.from_thread.start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(_session(REPO)) as session:
        yield lambda body: portal.call(body, session)


def payload(result):
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content else json.loads(result.content[0].text)


def test_tool_list_is_small_and_read_only(served):
    async def body(session):
        return (await session.list_tools()).tools

    tools = served(body)
    assert sorted(t.name for t in tools) == ["repo_map", "retrieve", "search"]
    assert all(t.annotations.read_only_hint for t in tools)
    listing = json.dumps([{"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                          for t in tools])
    assert count_tokens(listing) <= 600, count_tokens(listing)


def test_each_tool_answers_with_token_figures(served):
    async def body(session):
        return (await session.call_tool("repo_map", {"query": "cart total", "tokens": 200}),
                await session.call_tool("search", {"query": "format money"}),
                await session.call_tool("retrieve", {"ids": ["shop/money.py::format_money#function"]}))

    answers = served(body)
    for answer in answers:  # the text a client shows the model, counted exactly, and sent once
        assert answer.structured_content is None and len(answer.content) == 1
        assert json.loads(answer.content[0].text)["_meta"]["tokens"] == count_tokens(answer.content[0].text)
    mapped, found, got = map(payload, answers)
    assert "shop/cart.py" in mapped["map"] and count_tokens(mapped["map"]) <= 200
    assert found["_meta"]["file_tokens"] == sum(count_tokens((FIXTURES / "repo" / p).read_text())
                                                for p in {r["id"].split("::")[0] for r in found["results"]})
    assert found["results"][0]["id"] == "shop/money.py::format_money#function"
    assert got["results"][0]["source"].startswith("def format_money(amount: float")
    for answer in (mapped, found, got):
        assert set(answer["_meta"]) == {"tokens", "file_tokens", "tokens_saved", "ms"}


def test_bad_arguments_are_tool_errors_and_the_server_stays_up(served):
    async def body(session):
        missing = await session.call_tool("retrieve", {"ids": ["shop/nope.py::x"]})
        outside = await session.call_tool("retrieve", {"ids": ["../../etc/passwd::x"]})
        wrong_type = await session.call_tool("repo_map", {"tokens": "many"})
        too_big = await session.call_tool("repo_map", {"tokens": 10**9})
        unknown = await session.call_tool("no_such_tool", {})
        still = await session.call_tool("search", {"query": "cart"})
        return missing, outside, wrong_type, too_big, unknown, still

    *errors, still = served(body)
    assert all(e.is_error for e in errors)
    assert "no source file" in errors[0].content[0].text
    assert "refused" in errors[1].content[0].text
    assert payload(still)["results"]


def test_a_map_costs_its_budget_as_the_client_gets_it(served):
    """The JSON around the map, and the escapes of its line breaks and quotes, are paid from the budget."""
    async def body(session):
        return {n: (await session.call_tool("repo_map", {"query": "cart total", "tokens": n})).content[0].text
                for n in (100, 300)}

    sizes = {n: count_tokens(text) for n, text in served(body).items()}
    assert all(size <= n for n, size in sizes.items()), sizes
    assert all(size >= n * 0.8 for n, size in sizes.items()), sizes  # and the map still fills it


def test_every_error_is_json_with_its_cost(served):
    async def body(session):
        return [await session.call_tool(name, arguments) for name, arguments in (
            ("retrieve", {"ids": ["shop/nope.py::x"]}), ("retrieve", {"ids": ["../../etc/passwd::x"]}),
            ("repo_map", {"focus": ["../outside.py"]}), ("repo_map", {"tokens": "abc"}), ("repo_map", {"tokens": -1}),
            ("retrieve", {}), ("repo_map", {"max_tokens": 5}), ("no_such_tool", {}))]

    errors = served(body)
    assert all(e.is_error and set(json.loads(e.content[0].text)) == {"error", "_meta"}
               and json.loads(e.content[0].text)["_meta"]["tokens"] == count_tokens(e.content[0].text)
               for e in errors), [e.content[0].text for e in errors]


def test_a_wrong_argument_is_one_line_naming_it(served):
    async def body(session):
        return [await session.call_tool(name, arguments) for name, arguments in (
            ("repo_map", {"tokens": "abc"}), ("retrieve", {}), ("search", {"query": "cart", "limit": [1]}),
            ("no_such_tool", {}))]

    said = [json.loads(e.content[0].text)["error"] for e in served(body)]
    assert said == ["tokens: Input should be a valid integer, unable to parse string as an integer",
                    "ids: Field required", "limit: Input should be a valid integer",
                    "no tool 'no_such_tool' (the tools: repo_map, retrieve, search)"]


@pytest.mark.long
def test_two_hundred_calls_do_not_grow():
    """Neither the server's memory nor the processor time a call takes, which (unlike the
    time a call is waited for) a busy machine leaves as it is."""
    def status(pid):
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))  # kB
        with open(f"/proc/{pid}/stat") as f:
            utime, stime = f.read().rsplit(")", 1)[1].split()[11:13]
        return rss, (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")

    others = _servers()  # the shared one's, where it is up

    async def body(session):
        pid, = _servers() - others
        seen = {}
        for i in range(200):
            if i in (20, 40, 180):
                seen[i] = status(pid)
            await session.call_tool("search" if i % 2 else "repo_map", {"query": "cart total"})
        seen[200] = status(pid)
        return seen

    seen = session_run(body)
    assert seen[200][1] - seen[180][1] < 3 * (seen[40][1] - seen[20][1]) + 0.5  # seconds of processor time
    assert seen[200][0] < seen[20][0] * 1.2 + 5_000  # kB


def _servers() -> set[int]:
    """This process's children serving the fixture repository (another test, or another
    run of the suite, may serve it too, but from a process of its own)."""
    children = {int(c) for task in Path("/proc/self/task").iterdir()
                for c in (task / "children").read_text().split()}
    return {pid for pid in children if _is_server(pid)}


def _is_server(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[2:5] == [b"repomap", b"mcp", REPO.encode()]
    except OSError:
        return False


def test_agents_are_told_what_they_got_wrong(served):
    async def body(session):
        return (await session.call_tool("repo_map", {"max_tokens": "lots"}),
                await session.call_tool("repo_map", {"focus": ["shop/nope.py"]}),
                await session.call_tool("retrieve", {"ids": ["shop/money.py::format_money#function", "shop/nope.py::x"]}),
                await session.call_tool("retrieve", {"ids": ["shop/cart.py::Cart.total#method", "shop/cart.py::Cart#class"]}))

    misspelt, missing_focus, mixed, nested = served(body)
    method, whole = payload(nested)["results"]
    assert method == {"id": "shop/cart.py::Cart.total#method", "lines": method["lines"], "inside": "shop/cart.py::Cart#class"}
    assert whole["source"].startswith("class Cart:") and "    def total(" in whole["source"]
    assert misspelt.is_error and "'max_tokens'" in misspelt.content[0].text
    assert "it takes: focus, query, tokens" in misspelt.content[0].text
    assert missing_focus.is_error and "no such focus file: shop/nope.py" in missing_focus.content[0].text
    results = payload(mixed)["results"]
    assert results[0]["source"].startswith("def format_money(")
    assert results[1] == {"id": "shop/nope.py::x", "error": "no source file shop/nope.py"}


def test_the_printed_config_starts_a_working_server(tmp_path):
    for client in ("claude", "cursor", "vscode"):
        result = run("mcp", REPO, "--print-config", client)
        assert result.returncode == 0, result.stderr
        config = json.loads(result.stdout)
        entry = (config["servers"] if client == "vscode" else config["mcpServers"])["repomap"]
        assert os.path.isabs(entry["command"]) and entry["args"][-2:] == ["mcp", REPO]
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env={**os.environ}, cwd=str(tmp_path))

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("search", {"query": "format money"})

    assert payload(anyio.run(main))["results"][0]["id"] == "shop/money.py::format_money#function"


def test_the_server_says_its_version():
    """The version of the distribution installed, as pip knows it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "repomap", "mcp", str(REPO)],
                                   env={**os.environ}, cwd=str(REPO))

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                return await session.initialize()

    assert anyio.run(main).server_info.version == version("repomap") != ""
