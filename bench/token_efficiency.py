"""Tokens an agent spends to find and read code: `search --limit 5`, then `retrieve` of the top 3.

Six corpora from the package registries, pinned, into bench/.corpora (not committed), so a
knob tuned to one version of one project shows what it costs on the others: express 4.21.2
(npm), fastapi 0.115.6 and 0.115.12, flask 3.1.0 and Django 5.2 (PyPI sdists), gin 1.8.1
(Debian golang-github-gin-gonic-gin-dev). The baseline is every indexed source file
concatenated (documents left out). Target: at most 900 tokens a query on average over the
corpora, none above 1,100. Run: python bench/token_efficiency.py [--only NAME]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import CORPORA, gin, sdist  # noqa: E402

from repomap import RepoMap  # noqa: E402
from repomap.tags import is_document  # noqa: E402
from repomap.tokens import count_tokens  # noqa: E402

QUERIES = ["router route handler", "middleware", "error exception", "request response", "context bind"]


def express() -> Path:
    target = CORPORA / "express"
    if not target.exists():
        subprocess.run(["npm", "pack", "express@4.21.2", "--silent"], cwd=CORPORA, check=True, capture_output=True)
        with tarfile.open(CORPORA / "express-4.21.2.tgz") as tar:
            tar.extractall(target, filter="data")
    return target / "package"


CORPUS = {
    "express 4.21.2": express,
    "fastapi 0.115.6": lambda: sdist("fastapi", "0.115.6"),
    "fastapi 0.115.12": lambda: sdist("fastapi", "0.115.12"),
    "flask 3.1.0": lambda: sdist("flask", "3.1.0"),
    "django 5.2": lambda: sdist("django", "5.2"),
    "gin 1.8.1": gin,
}


def repomap(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "repomap", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"repomap {' '.join(args)} failed: {result.stderr}")
    return result.stdout


def measure(name: str, root: Path) -> float:
    scan = RepoMap(root).scan()
    baseline = count_tokens("\n".join(scan.sources[rel].decode("utf-8", errors="replace")
                                      for rel in sorted(scan.infos) if not is_document(rel)))
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(CORPUS))
    args = parser.parse_args()
    CORPORA.mkdir(exist_ok=True)
    averages = {name: measure(name, fetch()) for name, fetch in CORPUS.items() if args.only in (None, name)}
    print("\naverage tokens per query (target: <= 900 over the corpora, none above 1,100): "
          + ", ".join(f"{name} {value:.0f}" for name, value in averages.items())
          + f"; over all {sum(averages.values()) / len(averages):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
