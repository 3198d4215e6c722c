"""Definitions and references of one source file, from tree-sitter and our tags.scm queries.

A query marks a definition with `@definition.<kind>` on the whole node and `@name`
on its name; `@body` (optional, else the node's `body` field) marks where the
signature ends. References are `@reference.<kind>` with `@name`. Patterns that
come first in a query win when two capture the same definition node.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from tree_sitter import Language, Node, Parser, Query, QueryCursor
from tree_sitter_language_pack import get_language

from .resources import resource_dir

# Definitions that make a nested function a method.
CONTAINER_KINDS = {"class", "struct", "interface", "trait", "enum", "impl"}

EXTENSIONS = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift",
    ".scala": "scala", ".sc": "scala", ".lua": "lua",
    ".sh": "bash", ".bash": "bash",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml_interface",
    ".md": "markdown", ".markdown": "markdown",
}
# Languages that share another's query file.
QUERY_ALIASES = {"ocaml_interface": "ocaml"}
# Languages whose files can reference each other's definitions.
FAMILIES = {"typescript": "javascript", "tsx": "javascript", "cpp": "c", "kotlin": "java",
            "scala": "java", "ocaml_interface": "ocaml"}


@dataclass(frozen=True, order=True)
class Tag:
    """One definition (role "def") or reference (role "ref") in a file.

    Lines are 1-based. For a definition, `sig_end_line` is the last line of its
    signature and `body_byte` where its elided body starts (-1 if it has none).
    """

    path: str
    line: int
    role: str
    kind: str
    name: str
    end_line: int
    start_byte: int
    end_byte: int
    sig_end_line: int
    body_byte: int = -1
    local: bool = False  # defined inside a function body: no other file can reference it


@dataclass
class FileTags:
    """What tagging one file gave, and whether its parse had errors."""

    tags: list[Tag]
    syntax_error: bool


def language_for(path: str) -> str | None:
    """The tree-sitter language of a file, by its extension."""
    return EXTENSIONS.get(Path(path).suffix.lower())


def family_for(path: str) -> str:
    """Files of one family can reference each other; a Python call never names a Java method."""
    language = language_for(path) or ""
    return FAMILIES.get(language, language)


def has_query(language: str) -> bool:
    return (resource_dir("queries") / f"{QUERY_ALIASES.get(language, language)}.scm").is_file()


def _query_source(name: str) -> str:
    """A query file's text, preceded by the files its `; inherits: a b` first line names."""
    text = (resource_dir("queries") / f"{name}.scm").read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if not first.startswith("; inherits:"):
        return text
    return "\n".join(_query_source(n) for n in first.split(":", 1)[1].split()) + "\n" + text


@lru_cache(maxsize=None)
def _compiled(language: str) -> tuple[Parser, Query] | None:
    """Parser and query for a language, compiled once; None (with a warning) if broken."""
    try:
        lang: Language = get_language(language)
        query = Query(lang, _query_source(QUERY_ALIASES.get(language, language)))
    except Exception as exc:  # a broken query must not break the other languages
        print(f"repomap: warning: no tags for {language}: {exc}", file=sys.stderr)
        return None
    return Parser(lang), query


def extract(path: str, source: bytes, language: str) -> FileTags | None:
    """Tags of one file; None when the language has no working query."""
    compiled = _compiled(language)
    if compiled is None:
        return None
    parser, query = compiled
    tree = parser.parse(source)
    defs: dict[tuple[int, int], tuple[int, Tag]] = {}
    def_names: set[int] = set()
    refs: dict[int, tuple[int, Tag]] = {}
    for pattern, captures in QueryCursor(query).matches(tree.root_node):
        role_kind = next((k for k in captures if k.startswith(("definition.", "reference."))), None)
        names = captures.get("name")
        if role_kind is None or not names:
            continue
        role, kind = role_kind.split(".", 1)
        node, name_node = captures[role_kind][0], names[0]
        name = _text(source, name_node).strip()
        if not name:
            continue
        if role == "reference":
            start = name_node.start_byte
            if start not in refs or pattern < refs[start][0]:  # one reference per place
                line = name_node.start_point[0] + 1
                refs[start] = (pattern, Tag(path, line, "ref", kind, name, line, start, name_node.end_byte, line))
            continue
        key = (node.start_byte, node.end_byte)
        def_names.add(name_node.start_byte)
        if key not in defs or pattern < defs[key][0]:  # earlier patterns win
            body = (captures.get("body") or [node.child_by_field_name("body")])[0]
            defs[key] = (pattern, _definition(path, source, node, name_node, name, kind, body))
    ref_tags = [t for start, (_, t) in refs.items() if start not in def_names]  # not a definition's own name
    tags = _methods(sorted((t for _, t in defs.values()), key=lambda t: (t.start_byte, -t.end_byte)))
    return FileTags(sorted(tags + ref_tags), tree.root_node.has_error)


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")


def _definition(path: str, source: bytes, node: Node, name_node: Node, name: str, kind: str,
                body: Node | None) -> Tag:
    """A definition tag whose signature runs to the last non-blank byte before its body,
    or without a body to the line of its name."""
    line = node.start_point[0] + 1
    body_byte = -1
    if body is not None and node.start_byte < body.start_byte <= node.end_byte:
        body_byte = body.start_byte
        sig_end = len(source[:body_byte].rstrip()) or body_byte
        sig_end_line = max(line, source.count(b"\n", 0, max(sig_end - 1, 0)) + 1)
    else:
        sig_end_line = name_node.end_point[0] + 1
    return Tag(path, line, "def", kind, name, node.end_point[0] + 1,
               node.start_byte, node.end_byte, sig_end_line, body_byte)


def _methods(defs: list[Tag]) -> list[Tag]:
    """Relabel functions nested directly in a class-like definition as methods, and mark
    definitions inside a function body as local."""
    out: list[Tag] = []
    stack: list[Tag] = []
    for tag in defs:
        while stack and stack[-1].end_byte <= tag.start_byte:
            stack.pop()
        if tag.kind == "function" and stack and stack[-1].kind in CONTAINER_KINDS:
            tag = replace(tag, kind="method")
        if any(outer.kind in ("function", "method") for outer in stack):
            tag = replace(tag, local=True)
        out.append(tag)
        stack.append(tag)
    return out
