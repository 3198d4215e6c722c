"""How much the committed map (REPOMAP.md) changes when one signature changes.

For each corpus (flask 3.1.0 from PyPI, gin 1.8.1 from Debian; pinned, into bench/.corpora),
on a copy of the tree: `repomap write`, then EDITS random single-signature edits, each made
alone on the original tree, drawn (with repeats) from the signatures the map shows: an edit
to one it does not show changes nothing (30 such edits on each corpus changed no line). Two
kinds of edit: `probe` adds a short parameter at the front of one function's or method's
parameter list; `grow` adds a long typed one at its end (`argv: list[str] | None = None`,
`opts map[string][]any`), so the signature grows by a dozen tokens and the map's total
with it. For each edit it runs `repomap check` (it must fail whenever the map shows the
edited signature) and `repomap write`, and counts the changed lines of REPOMAP.md (removed
plus added) beyond the edit's own: 2 when the map showed the edited line (its old text out,
its new text in), else 0.

    python bench/churn.py [--edits 100] [--only flask] [--tokens 512 1024 2048] [--kind grow]
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import gin, sdist  # noqa: E402

from repomap import RepoMap, cli  # noqa: E402

PROBE = {"python": "churn_probe", "go": "churnProbe int"}
GROWN = {"python": "argv: list[str] | None = None", "go": "opts map[string][]any"}
CORPORA = {"flask": lambda: sdist("flask", "3.1.0"), "gin": gin}


def repomap(*args: str) -> int:
    """The CLI, in this process (a fresh process per call would time imports, not the map)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli.main(list(args))


def signatures(root: Path, cache: Path) -> list[tuple[str, int, str]]:
    """(file, byte offset just inside the parameter list's "(", language) of every function and method."""
    found = []
    scan = RepoMap(root, cache_dir=cache).scan()
    for rel, info in sorted(scan.infos.items()):
        language = "python" if rel.endswith(".py") else "go" if rel.endswith(".go") else None
        if language is None:
            continue
        source = (root / rel).read_bytes()
        for tag in info.defs:
            if tag.kind not in ("function", "method"):
                continue
            head = source[tag.start_byte:tag.end_byte]
            at = head.find(tag.name.encode())
            paren = head.find(b"(", at) if at >= 0 else -1
            if paren >= 0:
                found.append((rel, tag.start_byte + paren + 1, language))
    return found


def probe(source: bytes, paren: int, language: str) -> tuple[int, bytes]:
    """Where the short probe parameter goes (just inside the "(" at `paren`) and its text."""
    empty = source[paren:paren + 1] == b")"
    return paren, (PROBE[language] + ("" if empty else ", ")).encode()


def grow(source: bytes, paren: int, language: str) -> tuple[int, bytes]:
    """Where the long parameter goes (last in the list that opens at `paren`, or just before a
    Python `**kwargs` or a Go variadic parameter, which must stay last) and its text."""
    depth, end = 1, paren
    while depth and end < len(source):
        depth += {ord("("): 1, ord(")"): -1}.get(source[end], 0)
        end += 1
    params = source[paren:end - 1].rstrip()
    params = params[:-1] if params.endswith(b",") else params  # a trailing comma stays where it is
    last = params.rfind(b",") + 1  # where the last parameter begins
    if (b"**" if language == "python" else b"...") in params[last:]:
        spaces = len(params[last:]) - len(params[last:].lstrip())
        return paren + last + spaces, (GROWN[language] + ", ").encode()
    if not params.strip():
        return paren, GROWN[language].encode()
    return paren + len(params), (", " + GROWN[language]).encode()


EDITS = {"probe": probe, "grow": grow}


def changed_lines(before: str, after: str) -> int:
    return sum(1 for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-")


def shown_line(base: str, rel: str, source: bytes, offset: int) -> bool:
    """Whether the map's section for `rel` shows the line that holds the edit."""
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    line = source[start:end if end >= 0 else None].decode("utf-8", "replace").strip()
    section = base.split(f"### {rel}\n", 1)
    return len(section) == 2 and line in [x.strip() for x in section[1].split("\n### ", 1)[0].splitlines()]


def run(name: str, original: Path, edits: int, tokens: int, kind: str) -> None:
    edit = EDITS[kind]
    with tempfile.TemporaryDirectory() as scratch:
        root, cache = Path(scratch) / name, Path(scratch) / "cache"
        shutil.copytree(original, root, symlinks=True)
        flags = [str(root), "--cache-dir", str(cache), "--tokens", str(tokens)]
        assert repomap("write", *flags) == 0
        base = (root / "REPOMAP.md").read_text(encoding="utf-8")
        candidates = []
        for rel, paren, language in signatures(root, cache):
            source = (root / rel).read_bytes()
            at, text = edit(source, paren, language)
            if shown_line(base, rel, source, at):
                candidates.append((rel, at, text))
        picks = random.Random(0).choices(candidates, k=edits)
        extras, misses, unchanged = [], 0, 0
        for rel, at, text in picks:
            path = root / rel
            source = path.read_bytes()
            path.write_bytes(source[:at] + text + source[at:])
            stale = repomap("check", *flags) == 1
            assert repomap("write", *flags) == 0
            after = (root / "REPOMAP.md").read_text(encoding="utf-8")
            diff = changed_lines(base, after)
            edited = 2 if diff else 0  # the signature's line out, its new line in
            misses += diff > 0 and not stale
            unchanged += diff == 0  # the line shown was another definition's with the same text
            extras.append(diff - edited)
            path.write_bytes(source)
            (root / "REPOMAP.md").write_text(base, encoding="utf-8")
        print(f"{name:6} @{tokens:<5} {kind:5} {edits} edits of {len(candidates)} signatures shown: changed lines beyond "
              f"the edit's own: median {statistics.median(extras):g}, p90 {sorted(extras)[int(0.9 * len(extras))]}, "
              f"max {max(extras)}; maps unchanged {unchanged}; changed maps `check` passed: {misses}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--only", choices=sorted(CORPORA))
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 1024, 2048], help="the map's budgets")
    parser.add_argument("--kind", choices=sorted(EDITS), help="one kind of edit (default: each)")
    args = parser.parse_args()
    for name, corpus in CORPORA.items():
        for tokens in args.tokens:
            for kind in EDITS:
                if args.only in (None, name) and args.kind in (None, kind):
                    run(name, corpus(), args.edits, tokens, kind)
    return 0


if __name__ == "__main__":
    sys.exit(main())
