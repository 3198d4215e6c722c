"""Definitions and references of one source file, from tree-sitter and our tags.scm queries.

A query marks a definition with `@definition.<kind>` on the whole node and `@name`
on its name; optional captures say more of it: `@body` (else the node's `body` field)
where the signature ends, `@scope` the type or table it belongs to when that is named
outside it (a Go receiver), `@doc` a documentation string inside or before it that no
comment marks (a Lisp's string after the name, GraphQL's description), and `@end` its
last node, where the definition's own node runs on past it (Groovy's statements take the
blank lines after them); a definition captured on several nodes (Dart's signature and
body, which are siblings; Fortran's function and the last word of its `end` line) runs
from the first to the end of the last. References are `@reference.<kind>` with `@name`.
Patterns that come first in a query win when two capture the same node. Each pattern has
one role and kind (no alternation that mixes them): it is looked up once per pattern, not
per match.

Code inside another format is tagged in place: a Vue or Svelte component's `<script>`
blocks are parsed as the ranges of the file they are (sfc.py), so every line and byte
points into the file; a Jupyter notebook is tagged as its source view (notebooks.py), the
text every reader of it sees instead of its JSON.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from . import notebooks, sections, sfc
from .errors import warn
from .resources import resource_dir

if TYPE_CHECKING:  # tree-sitter is imported by what parses: a stored map needs no grammar
    from tree_sitter import Language, Node, Parser, Query, Range

# Definitions that make a nested function a method.
CONTAINER_KINDS = {"class", "struct", "interface", "trait", "enum", "impl"}
# Every kind of definition a query may capture (`search --kind` offers these).
KINDS = CONTAINER_KINDS | {"constant", "function", "macro", "method", "module", "section", "type"}

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
    ".rst": "rst", ".adoc": "asciidoc", ".asciidoc": "asciidoc",
    # Configuration, schema, query and build languages (issue #46)
    ".tf": "hcl", ".tfvars": "hcl", ".hcl": "hcl",
    ".proto": "proto",
    ".graphql": "graphql", ".gql": "graphql",
    ".sql": "sql",
    ".bzl": "starlark", ".star": "starlark", ".bazel": "starlark",
    ".dockerfile": "dockerfile",
    ".pl": "perl", ".pm": "perl",
    ".groovy": "groovy", ".gradle": "groovy",
    ".ps1": "powershell", ".psm1": "powershell",
    ".properties": "properties",
    ".rules": "udev",
    ".chatito": "chatito",
    # Lisps, functional languages, Nix, R and Julia
    ".clj": "clojure", ".cljs": "clojure", ".cljc": "clojure",
    ".el": "elisp",
    ".lisp": "commonlisp", ".lsp": "commonlisp", ".asd": "commonlisp",
    ".rkt": "racket",
    ".elm": "elm", ".gleam": "gleam", ".erl": "erlang", ".hrl": "erlang",
    ".nix": "nix", ".r": "r", ".jl": "julia",
    ".vue": "vue", ".svelte": "svelte",  # their <script> blocks: JavaScript or TypeScript
    ".ipynb": "notebook",  # its code cells, in the kernel's language
    # Dart, Zig, D, Fortran, Pony, Nim, Verilog, Solidity, Arduino, Objective-C, MATLAB:
    ".dart": "dart", ".zig": "zig", ".d": "d",
    ".f90": "fortran", ".f95": "fortran", ".f03": "fortran", ".f08": "fortran", ".f": "fortran", ".for": "fortran",
    ".pony": "pony", ".nim": "nim", ".nims": "nim",
    ".v": "verilog", ".sv": "verilog", ".svh": "verilog", ".vh": "verilog",
    ".sol": "solidity", ".ino": "arduino", ".mm": "objc",
    ".m": "m",  # Objective-C or MATLAB: see BY_CONTENT
    ".ql": "codeql", ".qll": "codeql",
}
# Files known by their whole name, and names that keep their language under any suffix
# (`Dockerfile.dev`), looked up only when the extension is not known.
FILE_NAMES = {"BUILD": "starlark", "WORKSPACE": "starlark", "Dockerfile": "dockerfile"}
SUFFIXED_NAMES = {"Dockerfile": "dockerfile"}
DOCUMENTS = {"markdown", "rst", "asciidoc"}  # prose: their definitions are sections
# Languages whose files can reference each other's definitions.
FAMILIES = {"typescript": "javascript", "tsx": "javascript", "cpp": "c", "kotlin": "java",
            "scala": "java", "ocaml_interface": "ocaml", "vue": "javascript", "svelte": "javascript",
            # A family is known by the path alone, and most notebooks run Python.
            "notebook": "python", "arduino": "c", "objc": "c",
            # A `.m` file is known as "m" until its bytes are read: the graph, `index` and the
            # map's file languages see "m", in C's family because Objective-C's interfaces are
            # in `.h` files (a MATLAB file then links to a C definition only where their names agree).
            "m": "c"}


class ByContent(NamedTuple):
    """Which of two languages sharing an extension a file is: `matched` where `pattern` finds
    a line, else `otherwise`."""

    pattern: re.Pattern[bytes]
    matched: str
    otherwise: str


# The pseudo-languages of shared extensions, told apart by the lines GitHub linguist's
# heuristics look for: tagging picks the language once it has the file's bytes.
BY_CONTENT = {"m": ByContent(re.compile(rb"^[ \t]*(#import|#include|@(interface|implementation|protocol|end|property|class)\b)",
                                        re.MULTILINE), "objc", "matlab")}


# Code a query of its own tags (a notebook's kernel language must be one).
_QUERIED = (set(EXTENSIONS.values()) - DOCUMENTS - sfc.LANGUAGES - {"notebook"} - set(BY_CONTENT)) | \
    {one for rule in BY_CONTENT.values() for one in (rule.matched, rule.otherwise)}


def content_language(language: str, source: bytes) -> str:
    """The language of a file whose extension two languages share, from its bytes; any other
    language as it is."""
    rule = BY_CONTENT.get(language)
    if rule is None:
        return language
    return rule.matched if rule.pattern.search(source) else rule.otherwise


@dataclass(slots=True)
class Tag:
    """One definition (role "def") or reference (role "ref") in a file.

    Lines are 1-based. For a definition, `sig_end_line` is the last line of its
    signature and `body_byte` where its elided body starts (-1 if it has none).
    IDs use no line numbers, so edits elsewhere in the file leave them alone.
    Not frozen: a frozen dataclass is far slower to build (bench/RESULTS.md: tags.Tag), and
    warm runs build every stored tag. Tagging a file completes its fresh definitions in place
    (extract sets `outer` from a scope capture, _nest sets `kind`, `outer`, `local` and `dup`)
    before any other code sees them; nothing changes a tag after that.
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
    head_byte: int = -1  # where attached decorators and doc comments start
    doc: str = ""  # first line of its docstring or doc comment
    outer: str = ""  # the qualified name of what encloses it ("" at top level), shared by siblings
    dup: int = 1  # the N of ~N in its ID, when N - 1 earlier definitions in its file have the same one

    @property
    def qualname(self) -> str:
        """Names of the enclosing definitions and its own, joined by "." (built when asked:
        a kernel has millions of definitions, most at top level)."""
        return f"{self.outer}.{self.name}" if self.outer else self.name

    @property
    def id(self) -> str:
        """Stable: path::qualname#kind, with ~N only where that would collide."""
        base = f"{self.path}::{self.qualname}#{self.kind}"
        return base if self.dup == 1 else f"{base}~{self.dup}"


@dataclass
class FileTags:
    """What tagging one file gave, and whether its parse had errors."""

    tags: list[Tag]
    syntax_error: bool


@lru_cache(maxsize=1 << 18)  # asked for every file on every call: room for a large tree's files
def language_for(path: str) -> str | None:
    """The tree-sitter language of a file, by its extension (not by os.path.splitext, which
    is slower: a fresh process asks once for every listed file)."""
    name = path[path.rfind("/") + 1:].lstrip(".")  # ".py" is a name, not a suffix
    dot = name.rfind(".")
    if dot < 0:
        return FILE_NAMES.get(name)
    return EXTENSIONS.get(name[dot:].lower()) or SUFFIXED_NAMES.get(name[:dot])


def is_document(path: str) -> bool:
    return language_for(path) in DOCUMENTS


def family_for(path: str) -> str:
    """Files of one family can reference each other; a Python call never names a Java method."""
    language = language_for(path) or ""
    return FAMILIES.get(language, language)


def _query_source(name: str) -> str:
    """A query file's text, preceded by the files its `; inherits: a b` first line names."""
    text = (resource_dir("queries") / f"{name}.scm").read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if not first.startswith("; inherits:"):
        return text
    return "\n".join(_query_source(n) for n in first.split(":", 1)[1].split()) + "\n" + text


def prepare(languages: set[str]) -> None:
    """Load tree-sitter and compile these languages' queries, before the first file, so that
    its time limit is not spent on them: by a process before it forks its workers (they
    inherit them), or by a worker forked without them."""
    for language in languages:
        rule = BY_CONTENT.get(language)
        for one in (rule.matched, rule.otherwise) if rule else (language,):
            if one == "rst":
                _rst_parser()
            elif one in sfc.LANGUAGES:
                _compiled("javascript")
                _compiled("typescript")
            elif one == "notebook":
                _compiled("python")
            elif one != "asciidoc":
                _compiled(one)


@lru_cache(maxsize=None)
def _compiled(language: str) -> tuple[Parser, Query, dict[int, str]] | None:
    """Parser and query for a language, compiled once, and each pattern's definition.* or
    reference.* capture as matches show it; None (with a warning) if broken."""
    from tree_sitter import Parser, Query

    try:
        lang = _grammar(language)
        query = Query(lang, _query_source(language))
    except Exception as exc:  # a broken query must not break the other languages
        warn(f"no tags for {language}: {exc}")
        return None
    return Parser(lang), query, {}


# Grammars the language pack lacks, from packages of their own.
OWN_PACKAGES = {"codeql": "tree_sitter_ql"}


def _grammar(language: str) -> Language:
    """A grammar of the language pack, loaded from its own module: the pack's package first
    loads three grammars it takes from other packages (C#, YAML, embedded templates), a cost
    in a tagging worker's setup, on the path of a map after an edit (bench/RESULTS.md:
    tags._grammar). C# still comes through it."""
    from importlib import import_module
    from importlib.machinery import EXTENSION_SUFFIXES
    from importlib.util import find_spec, module_from_spec, spec_from_file_location
    from pathlib import Path

    from tree_sitter import Language

    if language in OWN_PACKAGES:
        return Language(import_module(OWN_PACKAGES[language]).language())
    name = f"tree_sitter_language_pack.bindings.{language}"
    if name not in sys.modules:
        folder = Path(find_spec("tree_sitter_language_pack").origin).parent / "bindings"
        path = next((p for p in (folder / (language + s) for s in EXTENSION_SUFFIXES) if p.is_file()), None)
        if path is None:
            from tree_sitter_language_pack import get_language
            return get_language(language)
        spec = spec_from_file_location(name, path)
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module  # where the pack's own import would find it
    return Language(sys.modules[name].language())


def extract(path: str, source: bytes, language: str) -> FileTags | None:
    """Tags of one file; None when the language has no working query."""
    language = content_language(language, source)
    if language in ("rst", "asciidoc"):
        return _document(path, source, language)
    if language in sfc.LANGUAGES:
        return _component(path, source, language)
    if language == "notebook":  # its source view (notebooks.source_of), in its kernel's language
        language = notebooks.language(source)
        if language not in _QUERIED:
            return FileTags([], False)  # a kernel's language we do not tag
    found = _found(path, source, language)
    return None if found is None else _finished(found)


class _Found(NamedTuple):
    """The definitions (not yet nested) and references of one parse."""

    defs: list[Tag]
    refs: list[Tag]
    syntax_error: bool


def _finished(found: _Found) -> FileTags:
    tags = _nest(sorted(found.defs, key=lambda t: (t.start_byte, -t.end_byte)))
    ordered = sorted(tags + found.refs, key=lambda t: (t.line, t.role, t.start_byte, t.kind, t.name))
    return FileTags(ordered, found.syntax_error)


def _found(path: str, source: bytes, language: str, ranges: list[Range] | None = None) -> _Found | None:
    """What the language's query finds in the source, or only in `ranges` of it; None when
    the language has no working query."""
    from tree_sitter import Parser, QueryCursor

    compiled = _compiled(language)
    if compiled is None:
        return None
    parser, query, role_kinds = compiled
    if ranges:  # a parser of its own: the compiled one is shared by every file of the language
        parser = Parser(parser.language, included_ranges=ranges)
    tree = parser.parse(source)
    try:
        matches = QueryCursor(query).matches(tree.root_node)
    except (UnicodeDecodeError, SystemError) as exc:  # a text predicate met a name that is not UTF-8
        if not _undecodable(exc):  # (a Lisp symbol may be), its error maybe wrapped in SystemErrors
            raise
        source = _utf8_in_place(source)
        tree = parser.parse(source)
        matches = QueryCursor(query).matches(tree.root_node)
    defs: dict[tuple[int, int], tuple[int, Tag]] = {}
    def_names: set[int] = set()
    refs: dict[int, tuple[int, Tag]] = {}
    for pattern, captures in matches:
        role_kind = role_kinds.get(pattern)
        if role_kind is None:  # the same for every match of a pattern
            role_kind = role_kinds[pattern] = next(
                (k for k in captures if k.startswith(("definition.", "reference."))), "")
        names = captures.get("name")
        if not role_kind or not names:
            continue
        role, kind = role_kind.split(".", 1)
        node, name_node = captures[role_kind][0], names[0]
        name = _text(source, name_node).strip()
        if kind == "section":
            name = sections.slug(name)
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
        if node.type in EQUATIONS and node.parent is not None and node.parent.type in EQUATION_LISTS:
            if _equation_of(node.prev_named_sibling) == name:
                continue  # one more equation of the definition above
            end = _last_equation(node, name)
        else:
            end = (captures.get("end") or captures[role_kind])[-1]  # an @end, else the last node captured
        if key not in defs or pattern < defs[key][0]:  # earlier patterns win
            body = (captures.get("body") or [node.child_by_field_name("body")])[0]
            doc = (captures.get("doc") or [None])[0]
            tag = _definition(path, source, node, name_node, name, kind, body, end, doc)
            if "scope" in captures:  # a receiver or owner named outside the definition: Go, C++, Lua
                tag.outer = _text(source, captures["scope"][0])
            defs[key] = (pattern, tag)
    ref_tags = [t for start, (_, t) in refs.items() if start not in def_names]  # not a definition's own name
    return _Found([t for _, t in defs.values()], ref_tags, tree.root_node.has_error)


def _component(path: str, source: bytes, language: str) -> FileTags | None:
    """A Vue or Svelte component: a class named for its file that spans it (instantiated where
    markup names it, each instance with its own state, the script's functions its members),
    what its script blocks define and reference, and the components its markup uses (a
    reference like a JSX element's). None when a script's language has no working query."""
    end = len(source.rstrip())
    defs = [Tag(path, 1, "def", "class", sfc.component_name(path), _line(source, end), 0, end, 1, head_byte=0)]
    refs = [_used(path, source, use) for use in sfc.uses(source, language)]
    error = False
    for script in sfc.scripts(source):
        found = _found(path, source, script.language, [_range(source, script.start_byte, script.end_byte)])
        if found is None:
            return None
        defs += found.defs
        refs += found.refs
        error = error or found.syntax_error
    return _finished(_Found(defs, refs, error))


def _used(path: str, source: bytes, use: sfc.Use) -> Tag:
    line = _line(source, use.start_byte)
    return Tag(path, line, "ref", "call", use.name, line, use.start_byte, use.end_byte, line)


def _line(source: bytes, at: int) -> int:
    return source.count(b"\n", 0, at) + 1


def _range(source: bytes, start: int, end: int) -> Range:
    """Bytes `start` to `end` of the source as a tree-sitter range (rows, and columns in bytes)."""
    from tree_sitter import Point, Range

    def point(at: int) -> Point:
        return Point(source.count(b"\n", 0, at), at - source.rfind(b"\n", 0, at) - 1)

    return Range(point(start), point(end), start, end)


def _undecodable(exc: BaseException | None) -> bool:
    """Whether `exc` is, or was caused by, text that is not UTF-8: tree-sitter's binding gives
    some predicates' decoding error as the SystemError it causes, once or more."""
    while exc is not None:
        if isinstance(exc, UnicodeDecodeError):
            return True
        exc = exc.__cause__
    return False


def _utf8_in_place(source: bytes) -> bytes:
    """The source with each byte that is not UTF-8 made a `?`: every offset stays where it was."""
    text = source.decode("utf-8", errors="surrogateescape")  # one surrogate per stray byte
    return re.sub("[\udc80-\udcff]", "?", text).encode("utf-8")


@lru_cache(maxsize=None)
def _rst_parser() -> Parser:
    from tree_sitter import Parser
    from tree_sitter_language_pack import get_language

    return Parser(get_language("rst"))


def _document(path: str, source: bytes, language: str) -> FileTags:
    """The sections of a reStructuredText or AsciiDoc document, nested like Markdown's."""
    if language == "rst":
        tree = _rst_parser().parse(source)
        headings, error = sections.rst_headings(source, tree.root_node), tree.root_node.has_error
    else:
        headings, error = sections.asciidoc_headings(source), False
    defs = []
    for heading, end, end_line in sections.spans(headings, source):
        if name := sections.slug(heading.title):
            defs.append(Tag(path, heading.line, "def", "section", name, end_line, heading.start_byte, end,
                            heading.last_line, head_byte=heading.start_byte))
    return FileTags(_nest(defs), error)


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")


def _definition(path: str, source: bytes, node: Node, name_node: Node, name: str, kind: str,
                body: Node | None, end: Node, doc: Node | None = None) -> Tag:
    """A definition tag from `node` to `end`, whose signature runs to the last non-blank byte
    before its body and the comments that open it (Python's block begins at its first
    statement: a comment above that is the body's, not the signature's), or without a body
    to the line of its name."""
    line = node.start_point[0] + 1
    body_byte = -1
    opening: list[Node] = []  # comments between the signature and the body, last first
    if body is not None and node.start_byte < body.start_byte <= end.end_byte:
        body_byte = body.start_byte
        before = body.prev_sibling
        while before is not None and (before.is_extra or _blank(before)):
            if "comment" in before.type:
                opening.append(before)
            before = before.prev_sibling
        sig_end = before.end_byte if before is not None and before.end_byte > node.start_byte else body_byte
        while sig_end > node.start_byte and source[sig_end - 1] in b" \t\r\n":
            sig_end -= 1
        sig_end_line = max(line, line + source.count(b"\n", node.start_byte, max(sig_end - 1, node.start_byte)))
    else:
        sig_end_line = name_node.end_point[0] + 1
    head, comments = _attached(node)
    return Tag(path, line, "def", kind, name, end.end_point[0] + 1, node.start_byte, end.end_byte,
               sig_end_line, body_byte, head_byte=head,
               doc=_string_doc(source, doc) if doc is not None else _doc(source, body, comments, opening[::-1]))


# Haskell writes one function as a type signature and equations, each a node of its own, and
# Erlang as a -spec and clauses: the definition runs from the first to the last of them that
# name it.
EQUATIONS = {"signature", "function", "bind", "spec", "fun_decl"}
SIGNATURES = {"signature", "spec"}  # each starts a definition of its own
EQUATION_LISTS = {"declarations", "source_file"}  # Haskell's and Erlang's


def _equation_of(node: Node | None) -> str | None:
    """The name a Haskell signature or equation, or an Erlang spec or clause, defines (None for
    anything else)."""
    if node is None or node.type not in EQUATIONS:
        return None
    if node.type == "fun_decl":
        node = node.child_by_field_name("clause")
    name = node.child_by_field_name("fun" if node.type == "spec" else "name") if node is not None else None
    return None if name is None else name.text.decode("utf-8", errors="replace").strip()


def _last_equation(node: Node, name: str) -> Node:
    while _equation_of(node.next_named_sibling) == name and node.next_named_sibling.type not in SIGNATURES:
        node = node.next_named_sibling
    return node


# A node that holds a definition and the annotations before it (CodeQL's module and class
# members: a doc comment is a member of its own, a wrapper that holds only it).
WRAPPERS = {"decorated_definition", "export_statement", "template_declaration", "moduleMember", "classMember"}
DOC_COMMENTS = {"haddock", "qldoc"}  # doc comments that grammars do not call comments
# Lists that start at their first element, not at a comment above it: Haskell's declarations,
# Nix's bindings, HCL's blocks and attributes, PowerShell's and Go's statements.
LISTS = {"declarations", "binding_set", "body", "statement_list"}
# Declarations whose keyword stands outside the definition node: `type` before a Go type_spec,
# `var`/`const` before a spec or declarator, `export const` before a JS/TS declarator. A
# definition that is a declaration's only spec starts where the declaration does.
DECLARATIONS = {"type_declaration", "const_declaration", "var_declaration", "lexical_declaration",
                "variable_declaration", "expression_statement"}


def _attached(node: Node) -> tuple[int, list[Node]]:
    """Where a definition starts with its declaration keyword, decorators, attributes and the
    comments right above it (a `/**` doc block may stand one blank line above)."""
    while node.parent is not None and (node.parent.type in WRAPPERS or _only_spec(node) or (
            node.parent.type in LISTS and node.parent.start_byte == node.start_byte)):
        node = node.parent  # (a list's first element: a comment above stands outside the list)
    comments: list[Node] = []
    start_row, head = node.start_point[0], node.start_byte
    sibling = _previous(node)
    while sibling is not None and _is_attachment(sibling):
        gap = start_row - _last_row(sibling)
        if gap > 2 or (gap == 2 and (comments or not sibling.text.startswith(b"/**"))):
            break
        mark = _unwrapped(sibling)
        if "comment" in mark.type or mark.type in DOC_COMMENTS:
            comments.insert(0, mark)
        start_row, head = sibling.start_point[0], sibling.start_byte
        sibling = _previous(sibling)
    return head, comments


def _last_row(node: Node) -> int:
    """The row a node's text ends on: a Lisp comment takes its newline, and so ends at column 0
    of the row after its text."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _only_spec(node: Node) -> bool:
    parent = node.parent
    return parent.type in DECLARATIONS and [c for c in parent.named_children if "comment" not in c.type] == [node]


def _previous(node: Node) -> Node | None:
    """The sibling before a node, past the line breaks a grammar makes tokens of (MATLAB's),
    which part a definition from its comments no more than the line's end does elsewhere."""
    sibling = node.prev_sibling
    while sibling is not None and _blank(sibling):
        sibling = sibling.prev_sibling
    return sibling


def _blank(node: Node) -> bool:
    return not node.is_named and node.text.isspace()


def _unwrapped(node: Node) -> Node:
    """What a wrapper holding one node holds; any other node itself."""
    return node.named_children[0] if node.type in WRAPPERS and node.named_child_count == 1 else node


def _is_attachment(node: Node) -> bool:
    node = _unwrapped(node)
    if node.type == "attribute" and node.child_count > 1 and node.children[1].type == "=":
        return False  # HCL's `key = value`: a setting of its own, not an annotation of the next
    return any(word in node.type for word in ("comment", "attribute", "decorator", "annotation")) \
        or node.type in DOC_COMMENTS \
        or (node.type == "unary_operator" and ELIXIR_ATTACHED.match(node.text) is not None)


# Elixir's module attributes that say something of the function below them (`@moduledoc`, and
# attributes that hold values, do not).
ELIXIR_ATTACHED = re.compile(rb"@(doc|spec|impl|deprecated|since)\b")


_STRING_PREFIX = re.compile(r"^[rRbBuUfF]+(?=[\"'])")  # r"..." and the like: letters before the quote, not after


def _doc(source: bytes, body: Node | None, comments: list[Node], opening: list[Node]) -> str:
    """The first line of a Python docstring, else of the doc comment above the definition,
    else of the comments that open its body (where they are not the body's first child)."""
    if body is not None and body.named_child_count:
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_child_count:
            first = first.named_children[0]
        if first.type == "string":
            return _string_doc(source, first)
    return _first_line("\n".join(_text(source, c) for c in comments)) or \
        _first_line("\n".join(_text(source, c) for c in opening))


def _string_doc(source: bytes, node: Node) -> str:
    """The first line of a string literal that documents a definition, without its quotes."""
    text = _STRING_PREFIX.sub("", _text(source, node)).strip("\"' \n")  # a string has no comment marks
    return next((line.strip()[:200] for line in text.splitlines() if line.strip()), "")


_COMMENT_MARKS = "/*!#-;(%<>| \t"
# Marks that open a doc comment and hold a character no other comment may lose at either end:
# Elm's and Haskell's `{-|` (closed by `-}`), R's roxygen `#'`.
_OPENERS = ("{-", "#'")
_CLOSER = re.compile(r"(\*+[/)]|-})$")  # what closes a comment: `*/`, OCaml's `*)`, Haskell's `-}`


def _first_line(text: str) -> str:
    """The first line of a comment's text, without the marks that open and close it."""
    for line in text.splitlines():
        line = line.strip()
        line = next((line[len(mark):] for mark in _OPENERS if line.startswith(mark)), line)
        line = _CLOSER.sub("", line.strip(_COMMENT_MARKS).strip()).strip()
        if line and not HELP_KEYWORD.match(line):
            return line[:200]
    return ""


# A heading of PowerShell's comment-based help (`.SYNOPSIS`): the line below it says something.
HELP_KEYWORD = re.compile(r"\.[A-Z]+$")


def _nest(defs: list[Tag]) -> list[Tag]:
    """Relabel functions nested directly in a class-like definition as methods, mark
    definitions inside a function body as local, and give each its qualified name and ID."""
    out: list[Tag] = []
    stack: list[tuple[Tag, str]] = []  # with its qualified name, one string its children share
    seen: dict[str, int] = {}
    for tag in defs:
        while stack and stack[-1][0].end_byte <= tag.start_byte:
            stack.pop()
        kind = tag.kind
        if kind == "function" and stack and stack[-1][0].kind in CONTAINER_KINDS:
            kind = "method"
        outer = stack[-1][1] if stack else ""
        if tag.outer:  # named outside it (a Go receiver): inside what encloses it, if anything
            outer = f"{outer}.{tag.outer}" if outer else tag.outer
        tag.kind, tag.outer = kind, outer  # a fresh tag: set in place, replace() is slow
        tag.local = any(o.kind in ("function", "method") for o, _ in stack)
        base = tag.id
        seen[base] = seen.get(base, 0) + 1
        tag.dup = seen[base]
        out.append(tag)
        stack.append((tag, tag.qualname))
    return out
