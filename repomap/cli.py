"""The `repomap` command: a thin layer over repomap.api."""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from . import __version__
from .api import RepoMap, RepoMapError
from .discover import MAX_FILE_BYTES
from .render import FORMATS


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except RepoMapError as exc:
        print(f"repomap: error: {exc}", file=sys.stderr)
        return 2
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
    m.set_defaults(run=_run_map)
    return parser


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
    repo = RepoMap(args.path, tokens=args.tokens, fmt=args.format, template=args.template,
                   include=args.include, exclude=args.exclude, hide_secondary=args.hide_secondary,
                   max_file_bytes=args.max_file_size)
    for name in args.focus:
        if not os.path.isfile(name) and not (repo.root / name).is_file():
            raise RepoMapError(f"no such focus file: {name}")
    result = repo.build(focus=args.focus, mention_files=args.mention_file,
                        mention_idents=args.mention_ident, query=query)
    sys.stdout.write(result.text)
    sys.stdout.flush()
    if result.notes:
        counts = ", ".join(f"{n} {reason}" for reason, n in sorted(result.notes.items()))
        print(f"repomap: files: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
