"""Tokens an agent spends to find and read code: `search --limit 5`, then `retrieve` of the top 3.

Corpora come from the package registries, pinned, into bench/.corpora (not committed):
express 4.21.2 (npm), fastapi 0.115.12 (PyPI sdist), gin 1.8.1 (Debian
golang-github-gin-gonic-gin-dev). The baseline is every indexed source file
concatenated (Markdown left out). Run: python bench/token_efficiency.py
"""

from __future__ import annotations

import glob
import subprocess
import sys
import tarfile
from pathlib import Path

from repomap import RepoMap
from repomap.tokens import count_tokens

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpora"
QUERIES = ["router route handler", "middleware", "error exception", "request response", "context bind"]


def express() -> Path:
    target = CORPORA / "express"
    if not target.exists():
        subprocess.run(["npm", "pack", "express@4.21.2", "--silent"], cwd=CORPORA, check=True, capture_output=True)
        _untar(CORPORA / "express-4.21.2.tgz", target)
    return target / "package"


def fastapi() -> Path:
    target = CORPORA / "fastapi"
    if not target.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                        "fastapi==0.115.12", "-d", str(CORPORA)], check=True, capture_output=True)
        _untar(CORPORA / "fastapi-0.115.12.tar.gz", target)
    return target / "fastapi-0.115.12"


def gin() -> Path:
    target = CORPORA / "gin"
    if not target.exists():
        subprocess.run(["apt-get", "download", "golang-github-gin-gonic-gin-dev=1.8.1-1"], cwd=CORPORA,
                       check=True, capture_output=True)
        deb = glob.glob(str(CORPORA / "golang-github-gin-gonic-gin-dev_1.8.1-1_all.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, str(target)], check=True)
    return target / "usr/share/gocode/src/github.com/gin-gonic/gin"


def _untar(archive: Path, target: Path) -> None:
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")


def repomap(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "repomap", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"repomap {' '.join(args)} failed: {result.stderr}")
    return result.stdout


def measure(name: str, root: Path) -> float:
    scan = RepoMap(root).scan()
    baseline = count_tokens("\n".join(scan.sources[rel].decode("utf-8", errors="replace")
                                      for rel in sorted(scan.infos) if not rel.endswith(".md")))
    print(f"\n{name}: {root}\nbaseline (all indexed source files): {baseline} tokens\n")
    print(f"{'query':24} {'search':>7} {'retrieve':>9} {'total':>7} {'saved':>7}  top 3 retrieved")
    totals = []
    for query in QUERIES:
        found = repomap("search", query, "--limit", "5", "--root", str(root))
        ids = [line.split()[0] for line in found.splitlines()[:3]]
        bodies = repomap("retrieve", *ids, "--root", str(root)) if ids else ""
        search_tokens, retrieve_tokens = count_tokens(found), count_tokens(bodies)
        total = search_tokens + retrieve_tokens
        totals.append(total)
        print(f"{query:24} {search_tokens:7} {retrieve_tokens:9} {total:7} {1 - total / baseline:7.1%}  {ids[0] if ids else '-'}")
        for other in ids[1:]:
            print(f"{'':60}  {other}")
    average = sum(totals) / len(totals)
    print(f"{'average':24} {'':7} {'':9} {average:7.0f} {1 - average / baseline:7.1%}")
    return average


def main() -> int:
    CORPORA.mkdir(exist_ok=True)
    averages = {name: measure(name, fetch()) for name, fetch in [("express", express), ("fastapi", fastapi), ("gin", gin)]}
    print("\naverage tokens per query (target <= 900): "
          + ", ".join(f"{name} {value:.0f}" for name, value in averages.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
