"""Wall time and peak memory of repomap against a plain parse of the same files, side by side.

Corpora come from the package registries, pinned, into bench/.corpora (not committed):
Django 5.2 and sympy 1.13.3 (PyPI sdists), gin 1.8.1 (Debian golang-github-gin-gonic-gin-dev),
express 4.21.2 with its dependencies (npm), and the Linux kernel 6.1 (Debian
linux-source-6.1, only with --kernel: it is large). Every figure is one fresh process (the
median of RUNS where the row says so), except the rows marked "kept", timed inside one
long-lived process as a chat loop or the MCP server runs it; ratios compare runs made in
the same session on the same machine.
Memory is the peak resident set of the busiest process of a run: repomap's or one of its
workers' (wait4 gives the larger).

    python bench/speed.py [--kernel] [--only django]
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpora"
RUNS = 5  # fresh processes behind each row of a target that single runs sit close to

FLOOR = """
import sys
from pathlib import Path
from tree_sitter_language_pack import get_parser
from repomap import discover, tags
root = Path(sys.argv[1])
parsers = {}
for rel in discover.list_files(root):
    language = tags.language_for(rel)
    if language is None:
        continue
    data, _ = discover.read_source(root / rel)
    if data is not None:
        parser = parsers.get(language) or parsers.setdefault(language, get_parser(language))
        parser.parse(data)
"""

# A chat loop keeps one RepoMap: the next turn's map after an edit, timed inside the process,
# RUNS times each, as the CLI rows are (one figure on this VM wanders by a third): at the end
# of the file, inside a body, a call added (of `edited`, as the CLI row adds it: a name new to
# the graph the first time, called again after), and a call of a name new to the graph each time.
KEPT = """
import sys, time
from pathlib import Path
from repomap import RepoMap
sys.path.insert(0, sys.argv[6])
from speed import RUNS, at_end, call_line, in_body
repo = RepoMap(sys.argv[1], tokens=1024, cache_dir=sys.argv[2])
repo.build()
victim, line, comment = Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5].encode()  # see body_line
def new_name(k):
    at, call = call_line(victim)
    in_body(victim, at, call.replace(b"edited", b"edited_%d" % k))
edits = {"end": lambda k: at_end(victim), "body": lambda k: in_body(victim, line, comment)}
if call_line(victim) is not None:
    edits.update(call=lambda k: in_body(victim, *call_line(victim)), new=new_name)
for kind, edit in edits.items():
    for k in range(RUNS):
        edit(k)
        started = time.perf_counter()
        repo.build()
        print(kind, time.perf_counter() - started)
"""


# The MCP server as an agent meets it: started on a warm index, then searched.
MCP_FIRST = """
import os, sys, time, anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
started = time.perf_counter()
async def main():
    # Our environment, not the SDK's short default list: without PYTHONPATH the server would be
    # an installed repomap, whose code stamp may differ from the index's (then it re-tags all).
    params = StdioServerParameters(command=sys.executable, args=["-m", "repomap", "mcp", sys.argv[1],
                                   "--cache-dir", sys.argv[2]], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("search", {"query": sys.argv[3]})
            assert not result.is_error, result.content
anyio.run(main)
print(time.perf_counter() - started)
"""

# Searches in one RepoMap, as the MCP server makes them; also one search after an edit.
SEARCH_KEPT = """
import statistics, sys, time
from repomap import RepoMap
repo = RepoMap(sys.argv[1], cache_dir=sys.argv[2])
repo.search("warm up")
times = []
for query in QUERIES * 3:
    started = time.perf_counter()
    repo.search(query)
    times.append(time.perf_counter() - started)
with open(sys.argv[3], "a", encoding="utf-8") as f:
    f.write("\\n")
started = time.perf_counter()
repo.search(QUERIES[0])
print(statistics.median(times), max(times), time.perf_counter() - started)
"""
QUERIES = ["where do we retry a failed connection", "parse the configuration file", "render a template",
           "Fix the bug in the cache when the key is missing", "validate user input", "matrix determinant"]


def sdist(name: str, version: str) -> Path:
    """A PyPI source distribution, downloaded and unpacked once into bench/.corpora/NAME-VERSION."""
    target = CORPORA / f"{name}-{version}"
    if not target.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                        f"{name}=={version}", "-d", str(CORPORA)], check=True, capture_output=True)
        archive = next(p for p in CORPORA.glob("*.tar.gz") if p.name.lower() == f"{name}-{version}.tar.gz")
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
    return next(p for p in target.iterdir() if p.name.lower() == f"{name}-{version}")


def django() -> Path:
    return sdist("django", "5.2")


def sympy() -> Path:
    return sdist("sympy", "1.13.3")


def gin() -> Path:
    target = CORPORA / "gin"
    if not target.exists():
        subprocess.run(["apt-get", "download", "golang-github-gin-gonic-gin-dev=1.8.1-1"], cwd=CORPORA,
                       check=True, capture_output=True)
        subprocess.run(["dpkg-deb", "-x", glob.glob(str(CORPORA / "golang-github-gin-gonic-gin-dev_*.deb"))[0],
                        str(target)], check=True)
    return target / "usr/share/gocode/src/github.com/gin-gonic/gin"


def express_with_deps() -> Path:
    target = CORPORA / "express-deps"
    if not target.exists():
        target.mkdir()
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "express@4.21.2"], cwd=target,
                       check=True, capture_output=True)
    return target


def kernel() -> Path:
    target = CORPORA / "linux"
    if not target.exists():
        subprocess.run(["apt-get", "download", "linux-source-6.1"], cwd=CORPORA, check=True, capture_output=True)
        deb = glob.glob(str(CORPORA / "linux-source-6.1_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, str(CORPORA / "linux-deb")], check=True)
        archive = glob.glob(str(CORPORA / "linux-deb/usr/src/linux-source-6.1*.tar.*"))[0]
        target.mkdir()
        subprocess.run(["tar", "-xf", archive, "-C", str(target)], check=True)
        shutil.rmtree(CORPORA / "linux-deb")
        os.remove(deb)
    tree = next(p for p in target.iterdir() if p.is_dir())
    # Debian's packaging appends "/*" and "!/debian/" to the kernel's .gitignore, which would
    # hide the whole tree from a walk that honours it; the kernel's own rules stay.
    ignore = tree / ".gitignore"
    ignore.write_text("".join(line for line in ignore.read_text().splitlines(keepends=True)
                              if line.strip() not in ("/*", "!/debian/")))
    return tree


# An installed repomap runs from compiled bytecode; a checkout's must be allowed to write it,
# or every run compiles the package again (about 0.1 s, more than a warm map takes).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def measure(command: list[str], edit: Callable[[], None] | None = None) -> tuple[float, float, str]:
    """Seconds, peak RSS in MB, and stdout of one fresh process; run after `edit()` if given."""
    if edit is not None:
        edit()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    out = process.stdout.read().decode("utf-8", errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return elapsed, usage.ru_maxrss / 1024, out


def at_end(victim: Path) -> None:
    """An edit that adds an empty line at the end of the file: no definition changes size and
    the map stays as it was (RepoMap.build keeps it; most of an agent's edits are not so kind)."""
    with open(victim, "a", encoding="utf-8") as f:
        f.write("\n")


def body_line(victim: Path) -> tuple[int, bytes] | None:
    """Where an edit inside a body goes: after the signature of the file's first definition with
    a body of more lines than one, a comment line. That definition grows, so the graph, whose
    edges are split by the sizes of what they point at, must change, as it does for most of an
    agent's edits (one that adds a call, too). None if no definition has such a body."""
    from repomap import tags

    language = tags.language_for(victim.name)
    found = tags.extract(victim.name, victim.read_bytes(), language)
    line = next((t.sig_end_line for t in found.tags if t.role == "def" and t.end_line > t.sig_end_line + 1), None)
    return None if line is None else (line, b"# edited" if language == "python" else b"/* edited */")


def call_line(victim: Path) -> tuple[int, bytes] | None:
    """Where a call goes: at the start of the body of the file's first function or method with a
    body of more lines than one (before its first statement in Python, after the line of its
    opening brace elsewhere), a call of a name defined nowhere, indented as the line after it.
    The file then references one more name: the graph changes, and the map is ranked and
    rendered again, as after most of an agent's edits that add code. None if the file has no
    such function."""
    from repomap import tags

    language = tags.language_for(victim.name)
    source = victim.read_bytes()
    found = tags.extract(victim.name, source, language)
    body = next((t.body_byte for t in found.tags if t.role == "def" and t.kind in ("function", "method")
                 and t.body_byte >= 0 and t.end_line > t.sig_end_line + 1), None)
    if body is None:
        return None
    line = source.count(b"\n", 0, body) + (0 if language == "python" else 1)  # the line the call goes after
    following = source.split(b"\n")[line]
    indent = following[:len(following) - len(following.lstrip())]
    return line, indent + (b"edited()" if language == "python" else b"edited();")


def in_body(victim: Path, line: int, comment: bytes) -> None:
    lines = victim.read_bytes().split(b"\n")
    victim.write_bytes(b"\n".join([*lines[:line], comment, *lines[line:]]))


def bench(name: str, root: Path) -> None:
    """Each row is printed as soon as it is measured: a corpus that runs out of time still
    shows the rows it reached."""
    print(f"\n{name}: {root}", flush=True)
    cache_dir = Path(tempfile.mkdtemp(prefix="repomap-bench-"))
    repomap = [sys.executable, "-m", "repomap", "map", str(root), "--tokens", "1024", "--cache-dir", str(cache_dir)]
    floor = row("parse-only floor (1 process)", measure([sys.executable, "-c", FLOOR, str(root)]))
    cold = row("cold map", measure(repomap))
    warm = row(f"warm map (median of {RUNS})", median_of(lambda: measure(repomap)))
    graph = [sys.executable, "-m", "repomap", "graph", str(root), "--cache-dir", str(cache_dir)]
    measure(graph)  # the first one ranks and lays out
    graphed = row("warm graph (html)", measure(graph))
    # The first file the map shows, by name, with a body to edit (gin's any.go has none).
    shown = sorted(p[:-1] for p in cold[2].splitlines() if p.endswith(":") and not p.startswith(" "))
    victim, (line, comment) = next((root / p, edit) for p in shown if (edit := body_line(root / p)) is not None)
    original = victim.read_bytes()  # edited below, then put back: the corpus stays as pinned
    try:
        os.utime(victim)
        row("warm, one file touched", measure(repomap))
        row(f"one file edited at its end (median of {RUNS})",
            median_of(lambda: measure(repomap, partial(at_end, victim))))
        row(f"one file edited in a body (median of {RUNS})",
            median_of(lambda: measure(repomap, partial(in_body, victim, line, comment))))
        call = call_line(victim)
        if call is not None:
            row(f"one file edited, a call added (median of {RUNS})",
                median_of(lambda: measure(repomap, partial(in_body, victim, *call))))
        _, rss, out = measure([sys.executable, "-c", KEPT, str(root), str(cache_dir), str(victim), str(line),
                               comment.decode(), str(HERE)])
        times: dict[str, list[float]] = {}
        for kind, took in (line.split() for line in out.splitlines()):
            times.setdefault(kind, []).append(float(took))
        labels = {"end": "edited at its end", "body": "edited in a body", "call": "a call added",
                  "new": "a new name called"}
        for kind, took in times.items():
            row(f"{labels[kind]}, RepoMap kept (median of {RUNS})", (statistics.median(took), rss, ""))
        print("  (kept, the slowest of each: " + ", ".join(f"{kind} {max(t):.3f} s" for kind, t in times.items()) + ")")
        search = [sys.executable, "-m", "repomap", "search", QUERIES[0], "--root", str(root),
                  "--cache-dir", str(cache_dir)]
        row("first search (counts terms)", measure(search))  # a map alone leaves search terms to it
        row("warm search", measure(search))
        _, rss, out = measure([sys.executable, "-c", SEARCH_KEPT.replace("QUERIES", repr(QUERIES)), str(root),
                               str(cache_dir), str(victim)])
        median, slowest, after_edit = map(float, out.split())
        row("search, kept: median", (median, rss, ""))
        row("search, kept: slowest", (slowest, rss, ""))
        row("search, kept: after an edit", (after_edit, rss, ""))
        _, rss, out = measure([sys.executable, "-c", MCP_FIRST, str(root), str(cache_dir), QUERIES[1]])
        row("MCP start + first search", (float(out), rss, ""))
    finally:
        victim.write_bytes(original)
    shutil.rmtree(cache_dir)
    search[search.index("--cache-dir") + 1] = tempfile.mkdtemp(prefix="repomap-bench-")
    row("cold search (first command)", measure(search))  # tags with search terms, then builds postings
    shutil.rmtree(search[search.index("--cache-dir") + 1])
    print(f"  cold / floor = {cold[0] / floor[0]:.2f}   warm / cold = {warm[0] / cold[0]:.3f}   "
          f"warm graph - warm map = {graphed[0] - warm[0]:+.2f} s")
    print("  top of the map: " + " | ".join(line for line in cold[2].splitlines()[:12] if line.endswith(":")))


def median_of(run: Callable[[], tuple[float, float, str]]) -> tuple[float, float, str]:
    """The median time of RUNS fresh processes (one is at the mercy of a noisy machine: the
    same Django map after an edit took 0.22 to 0.30 s), the largest peak, the last output."""
    runs = [run() for _ in range(RUNS)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


def row(label: str, measured: tuple[float, float, str]) -> tuple[float, float, str]:
    seconds, rss, _ = measured
    print(f"  {label:44} {seconds:8.3f} s {rss:8.0f} MB", flush=True)  # 0.10 could be 0.104: over a 0.1 target
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", action="store_true", help="also the Linux kernel (large download)")
    parser.add_argument("--only", help="one corpus: django, sympy, gin, express, linux")
    args = parser.parse_args()
    CORPORA.mkdir(exist_ok=True)
    corpora = [("django", django), ("sympy", sympy), ("gin", gin), ("express", express_with_deps)]
    if args.kernel or args.only == "linux":
        corpora.append(("linux", kernel))
    print(f"{os.cpu_count()} cores; python {sys.version.split()[0]}")
    for name, fetch in corpora:
        if args.only in (None, name):
            bench(name, fetch())
    return 0


if __name__ == "__main__":
    sys.exit(main())
