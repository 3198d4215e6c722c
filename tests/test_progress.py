"""What a command says of its work on stderr: a progress line on a terminal while files are
tagged, one summary line as it ends (never on stdout), and MCP progress notifications."""

import gc
import io
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import git_init, run
from repomap import RepoMap, cli, status

SUMMARY = "repomap: "


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_progress_line_shows_after_a_moment_and_is_erased_when_tagging_ends():
    screen, clock = io.StringIO(), Clock()
    line = status.ProgressLine(screen, clock, after=1.0)
    line(0, 1000)
    clock.now += 0.5
    line(200, 1000)
    assert screen.getvalue() == ""  # a moment's work shows nothing
    clock.now += 1.5
    line(600, 1000)
    assert screen.getvalue() == "\rrepomap: tagging 600/1,000 files, 300 files/s"
    clock.now += 0.01
    line(601, 1000)  # drawn again only after a pause: a terminal redrawn per file slows the run
    assert screen.getvalue().count("\r") == 1
    line(1000, 1000)
    drawn = "repomap: tagging 600/1,000 files, 300 files/s"
    assert screen.getvalue() == f"\r{drawn}\r{' ' * len(drawn)}\r"


def test_the_library_tells_its_progress_from_none_to_all_files(shop, tmp_path):
    told = []
    repo = RepoMap(shop, cache_dir=tmp_path / "cache", progress=lambda done, total: told.append((done, total)))
    repo.build()
    total = told[0][1]
    assert told[0] == (0, total) and told[-1] == (total, total) and total >= 5
    assert [done for done, _ in told] == list(range(total + 1))
    told.clear()
    repo.build(query="cart")  # nothing to tag again: nothing told
    assert told == []


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_progress_line_is_drawn_then_erased_before_the_summary(shop, tmp_path, monkeypatch):
    monkeypatch.setattr(status, "SHOW_AFTER", 0.0)
    screen, out = Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(sys, "stdout", out)
    try:
        code = cli.main(["map", str(shop), "--cache-dir", str(tmp_path / "cache")])
    finally:
        gc.unfreeze()
        gc.enable()
    assert code == 0
    drawn, _, summary = screen.getvalue().rpartition("\r")
    assert drawn.startswith("\rrepomap: tagging 0/") and " files" in drawn
    assert summary.startswith(SUMMARY) and summary.count("\n") == 1 and "\r" not in out.getvalue()


def test_a_pipe_gets_no_progress_line_and_stdout_is_the_same_with_or_without_the_summary(shop):
    loud = run("map", shop, "--no-cache")
    quiet = run("map", shop, "--no-cache", "--quiet")
    assert loud.returncode == quiet.returncode == 0
    assert "\r" not in loud.stderr and loud.stdout == quiet.stdout and SUMMARY not in loud.stdout
    assert quiet.stderr == ""
    assert run("map", shop, "--no-cache", "-q").stderr == ""


def test_the_map_summary_gives_files_languages_tokens_skipped_files_and_the_root(shop):
    (shop / "notes.txt").write_text("not code\n")
    (shop / "big.py").write_text("x = 1\n" * 1000)
    git_init(shop)
    result = run("map", shop, "--tokens", "300", "--max-file-size", "2000")
    last = result.stderr.splitlines()[-1]
    files, tokens, skipped, root = last.split(" · ")
    assert files.startswith(SUMMARY) and " files (python " in files, last
    used, budget = tokens.removesuffix(" cl100k_base tokens").split("/")
    assert 0 < int(used) <= int(budget) == 300, last
    assert "1 too large" in skipped and "not source code" in skipped, last
    assert root == f"root {shop} (git)"
    assert result.stderr.count("too large") == 1  # said once, in the summary


@pytest.mark.parametrize("command", [
    ["index"], ["search", "cart total"], ["retrieve", "shop/money.py::format_money#function"],
    ["refs", "shop/money.py::format_money#function"], ["graph", "--format", "json"], ["write"], ["check"]])
def test_every_command_ends_with_a_summary_line_on_stderr(shop, command):
    if command == ["check"]:
        run("write", shop, "--quiet")
    result = run(*command, "--root", shop)
    assert result.returncode == 0, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith(SUMMARY) and " files" in last and last.endswith(f" · root {shop}"), last
    assert SUMMARY + " " not in result.stdout and " · root " not in result.stdout
    assert run(*command, "--root", shop, "--quiet").stderr == ""
    budgeted = command[0] in ("write", "check")
    assert (" cl100k_base tokens" in last) == budgeted, last


def test_mcp_sends_progress_while_a_first_call_tags(shop, tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "repomap", "mcp", str(shop)],
                                   env={**os.environ, "REPOMAP_CACHE_DIR": str(tmp_path / "cache")}, cwd=str(shop))
    told = []

    async def progress(done, total, message):
        told.append((done, total))

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                first = await session.call_tool("repo_map", {"query": "cart"}, progress_callback=progress)
                seen = len(told)
                again = await session.call_tool("search", {"query": "cart"}, progress_callback=progress)
                return first, seen, again

    first, seen, again = anyio.run(main)
    assert not first.is_error and not again.is_error
    total = told[0][1]
    assert told[0] == (0, total) and told[seen - 1] == (total, total) and total >= 5
    assert [done for done, _ in told] == sorted(done for done, _ in told)
    assert len(told) == seen  # the second call tags nothing: no progress


def test_a_map_fits_its_budget_in_the_encoding_chosen_and_maps_of_two_encodings_do_not_mix(shop, tmp_path):
    from repomap.tokens import count_tokens

    cache = ("--cache-dir", tmp_path / "cache")
    cl100k = run("map", shop, "--tokens", "300", *cache)
    o200k = run("map", shop, "--tokens", "300", "--encoding", "o200k_base", *cache)  # after cl100k's, same cache
    assert o200k.returncode == 0, o200k.stderr
    assert o200k.stdout == run("map", shop, "--tokens", "300", "--encoding", "o200k_base", "--no-cache").stdout
    assert o200k.stdout != cl100k.stdout
    used = count_tokens(o200k.stdout, "o200k_base")
    assert used <= 300 and f" · {used}/300 o200k_base tokens · " in o200k.stderr
    (shop / ".repomap.toml").write_text('encoding = "o200k_base"\ntokens = 300\n')
    assert run("map", shop, *cache).stdout == o200k.stdout
    assert RepoMap(shop, cache_dir=tmp_path / "api").build().text == o200k.stdout
    (shop / ".repomap.toml").write_text('encoding = "p50k_base"\n')
    refused = run("map", shop, *cache)
    assert refused.returncode == 2 and "unknown encoding 'p50k_base'" in refused.stderr


def test_o200k_base_is_tiktokens_own_encoding_over_the_table_bpe_openai_ships(monkeypatch):
    """The pattern and special tokens are those tiktoken's constructor of o200k_base gives (its
    table handed to it here: tiktoken would download it), the table is the one it names by
    hash, counts agree with bpe-openai's own encoder, and a count is the sum of its parts'
    (tokens.O200K_PARTS), whatever the white space and slashes."""
    import random

    import bpe_openai
    import tiktoken
    import tiktoken_ext.openai_public as public

    from repomap import tokens

    ours = tokens.tokenizer("o200k_base")

    def table(url, expected_hash):
        assert expected_hash == tokens.ENCODINGS["o200k_base"].sha256
        return ours._mergeable_ranks

    monkeypatch.setattr(public, "load_tiktoken_bpe", table)
    reference = tiktoken.Encoding(**public.o200k_base())
    assert (ours._pat_str, ours._special_tokens) == (reference._pat_str, reference._special_tokens)
    rust = bpe_openai.get_encoding("o200k_base")
    count = lambda text: len(reference.encode(text, disallowed_special=()))  # noqa: E731
    pick = random.Random(7).choice
    alphabet = ["a", "é", "B", "1", " ", "  ", "\t", "\n", "\r", "\x0b", "\x1c", "\x85", "\u00a0", "\u2028",
                "\u3000", ":", "()", "'s", "#", "/", "//", "}", "<|endoftext|>"]
    texts = ["a:\n\n  b\n", "};\n/x", ");\n//x", "};\n// c\n/* d */\n", "):\r\n\r\nfoo", "1\n23\n456789\n"]
    texts += ["".join(pick(alphabet) for _ in range(40)) for _ in range(3000)]
    texts += [path.read_text(encoding="utf-8") for path in sorted(Path(tokens.__file__).parent.glob("*.py"))]
    for text in texts:
        parts = tokens.O200K_PARTS.split(text)
        assert "".join(parts) == text and sum(map(count, parts)) == count(text), repr(text)
        assert tokens.count_tokens(text, "o200k_base") == count(text) == len(rust.encode_ordinary(text)), repr(text)
