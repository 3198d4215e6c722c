"""The `repomap` command: a thin layer over repomap.api."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

from . import __version__, tags
from .api import RepoMap, RepoMapError
from .discover import MAX_FILE_BYTES
from .render import FORMATS
from .retrieve import NotFound, Refused, Snippet


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (RepoMapError, Refused) as exc:
        print(f"repomap: error: {exc}", file=sys.stderr)
        return 2
    except NotFound as exc:
        print(f"repomap: {exc}", file=sys.stderr)
        for candidate in exc.candidates:
            print(f"  {candidate}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # no traceback for users unless they ask
        if os.environ.get("REPOMAP_DEBUG"):
            traceback.print_exc()
        print(f"repomap: internal error: {exc!r} (set REPOMAP_DEBUG=1 for details)", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="repomap", description="Ranked, token-budgeted maps of source repositories.")
    parser.add_argument("--version", action="version", version=f"repomap {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    m = commands.add_parser("map", help="print the ranked signature map of a repository",
                            description="Print the best-ranked definitions' signatures, within a token budget.")
    m.add_argument("path", nargs="?", default=".", help="repository root (default: current directory)")
    m.add_argument("--tokens", type=_positive, default=1024, help="token budget, counted with cl100k_base (default 1024)")
    m.add_argument("--focus", action="extend", nargs="+", default=[], metavar="FILE",
                   help="files already in the agent's context: they steer the ranking and are left out")
    m.add_argument("--mention-file", action="extend", nargs="+", default=[], metavar="FILE",
                   help="files the task mentions (paths or basenames)")
    m.add_argument("--mention-ident", action="extend", nargs="+", default=[], metavar="NAME",
                   help="identifiers the task mentions")
    m.add_argument("--query", metavar="TEXT", help="free task text ('-' reads standard input)")
    m.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    m.add_argument("--template", metavar="FILE", help="a jinja2 template of your own instead of --format")
    m.add_argument("--include", action="append", default=[], metavar="GLOB", help="only files matching (repeatable)")
    m.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="leave out files matching (repeatable)")
    m.add_argument("--hide-secondary", action="store_true",
                   help="hide tests, vendored, generated and minified files instead of ranking them lower")
    m.add_argument("--max-file-size", type=_positive, default=MAX_FILE_BYTES, metavar="BYTES",
                   help=f"skip larger files (default {MAX_FILE_BYTES})")
    _cache_options(m)
    m.set_defaults(run=_run_map)

    i = commands.add_parser("index", help="build or refresh the persistent index and summarise it",
                            description="Tag every changed file (in parallel) into the cache; print a summary.")
    i.add_argument("path", nargs="?", default=".", help="repository root (default: current directory)")
    _cache_options(i)
    i.set_defaults(run=_run_index)

    r = commands.add_parser("retrieve", help="print the exact source of definitions",
                            description="Print definitions byte for byte, by ID, path::name, path:line or unique name.")
    r.add_argument("targets", nargs="+", metavar="ID")
    _common(r)
    r.set_defaults(run=_run_retrieve)

    s = commands.add_parser("search", help="find definitions for a query (metadata only)",
                            description="Rank definitions for a query: BM25 over their words with the map's rank as a prior.")
    s.add_argument("query", help="words, identifiers or a question; '-' reads standard input")
    s.add_argument("--limit", type=_positive, default=5, help="results (default 5)")
    s.add_argument("--kind", help="only this kind (function, method, class, ...)")
    s.add_argument("--path", metavar="GLOB", help="only files matching")
    _common(s)
    s.set_defaults(run=_run_search)

    f = commands.add_parser("refs", help="list where a definition's name is referenced",
                            description="List references to a definition's name, with the enclosing definitions.")
    f.add_argument("target", metavar="ID")
    _common(f)
    f.set_defaults(run=_run_refs)

    p = commands.add_parser("mcp", help="serve map, search and retrieve to MCP clients over stdio",
                            description="An MCP server over stdio (needs the mcp extra: pip install 'repomap[mcp]').")
    p.add_argument("path", nargs="?", default=".", help="repository root (default: current directory)")
    _cache_options(p)
    p.set_defaults(run=_run_mcp)
    return parser


def _common(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--root", default=".", help="repository root (default: current directory)")
    sub.add_argument("--json", action="store_true", help="JSON with a _meta block of token figures")
    _cache_options(sub)


def _cache_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--cache-dir", metavar="DIR",
                     help="where the index lives (default: $REPOMAP_CACHE_DIR or the user cache folder)")
    sub.add_argument("--no-cache", action="store_true", help="neither read nor write the index")


def _repo(args: argparse.Namespace, root: str, **options) -> RepoMap:
    return RepoMap(root, cache_dir=args.cache_dir, use_cache=not args.no_cache, **options)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def _run_map(args: argparse.Namespace) -> int:
    query = sys.stdin.read() if args.query == "-" else (args.query or "")
    repo = _repo(args, args.path, tokens=args.tokens, fmt=args.format, template=args.template,
                 include=args.include, exclude=args.exclude, hide_secondary=args.hide_secondary,
                 max_file_bytes=args.max_file_size)
    for name in args.focus:
        if not os.path.isfile(name) and not (repo.root / name).is_file():
            raise RepoMapError(f"no such focus file: {name}")
    result = repo.build(focus=args.focus, mention_files=args.mention_file,
                        mention_idents=args.mention_ident, query=query, reuse=True)
    sys.stdout.write(result.text)
    sys.stdout.flush()
    _print_notes(result.notes)
    return 0


def _print_notes(notes: dict[str, int]) -> None:
    if notes:
        counts = ", ".join(f"{n} {reason}" for reason, n in sorted(notes.items()))
        print(f"repomap: files: {counts}", file=sys.stderr)


def _run_index(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    repo = _repo(args, args.path)
    scan = repo.scan()
    languages: dict[str, int] = {}
    for rel in scan.infos:
        language = tags.language_for(rel) or "?"
        languages[language] = languages.get(language, 0) + 1
    symbols = sum(len(info.defs) for info in scan.infos.values())
    where = "no cache" if repo.indexer.store.db is None else str(repo.indexer.store.path)
    print(f"{len(scan.infos)} files ({repo.indexer.changed} read again), {symbols} symbols "
          f"in {time.perf_counter() - started:.2f} s; index: {where}")
    print("languages: " + ", ".join(f"{name} {n}" for name, n in sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))))
    _print_notes(scan.notes)
    return 0


def _run_retrieve(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    repo = _repo(args, args.root)
    found, missing = [], []
    for target in args.targets:
        try:
            found.append(repo.retrieve(target))
        except NotFound as exc:
            missing.append(exc)
    blocks = [_block(s) for s in found]
    if args.json:
        results = [{"id": s.tag.id, "kind": s.tag.kind, "path": s.tag.path, "start_line": s.start_line,
                    "end_line": s.end_line, "source": s.data.decode("utf-8", errors="replace")} for s in found]
        text = b"".join(blocks).decode("utf-8", errors="replace")
        _print_json({"results": results}, text, repo, {s.tag.path for s in found}, started)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(b"".join(blocks))
        sys.stdout.buffer.flush()
    for exc in missing:
        print(f"repomap: {exc}", file=sys.stderr)
        for candidate in exc.candidates:
            print(f"  {candidate}", file=sys.stderr)
    return 1 if missing else 0


def _block(snippet: Snippet) -> bytes:
    """A header line, then the definition's bytes exactly as in the file."""
    header = f"==> {snippet.tag.id}  {snippet.tag.path}:{snippet.start_line}-{snippet.end_line} <==\n"
    return header.encode() + snippet.data + (b"" if snippet.data.endswith(b"\n") else b"\n")


def _run_search(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    query = sys.stdin.read() if args.query == "-" else args.query
    repo = _repo(args, args.root)
    hits = repo.search(query, limit=args.limit, kind=args.kind, path=args.path)
    lines = [f"{h.tag.id}  {h.tag.path}:{h.tag.line}-{h.tag.end_line}  {h.score:.2f}  "
             f"{h.signature.splitlines()[0][:120] if h.signature else ''}" for h in hits]
    text = "".join(line + "\n" for line in lines)
    if args.json:
        results = [{"id": h.tag.id, "kind": h.tag.kind, "signature": h.signature, "path": h.tag.path,
                    "start_line": h.tag.line, "end_line": h.tag.end_line, "score": h.score, "doc": h.tag.doc}
                   for h in hits]
        _print_json({"results": results}, text, repo, {h.tag.path for h in hits}, started)
    else:
        sys.stdout.write(text)
    return 0


def _run_refs(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    repo = _repo(args, args.root)
    definition, found = repo.refs(args.target)
    lines = [f"{ref.path}:{ref.line}  {around.id if around else '(top level)'}" for ref, around in found]
    text = f"{definition.id}  {len(found)} references\n" + "".join(line + "\n" for line in lines)
    if args.json:
        refs = [{"path": ref.path, "line": ref.line, "enclosing": around.id if around else None}
                for ref, around in found]
        _print_json({"definition": definition.id, "references": refs}, text, repo,
                    {ref.path for ref, _ in found}, started)
    else:
        sys.stdout.write(text)
    return 0


def _run_mcp(args: argparse.Namespace) -> int:
    try:
        from .mcp_server import serve
    except ImportError:
        raise RepoMapError("the MCP server needs the mcp extra: pip install 'repomap[mcp]'") from None
    serve(_repo(args, args.path))
    return 0


def _print_json(payload: dict, text: str, repo: RepoMap, paths: set[str], started: float) -> None:
    payload["_meta"] = repo.token_meta(text, paths, started)
    print(json.dumps(payload, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    sys.exit(main())
