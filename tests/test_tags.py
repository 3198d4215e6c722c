"""Each language's query gives exactly the tags recorded beside its sample file.

After a deliberate query change, rewrite the expectations with
`REPOMAP_REGEN=1 pytest tests/test_tags.py` and review the diff line by line.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repomap import tags

FIXTURES = Path(__file__).parent / "fixtures" / "tags"
SAMPLES = sorted(p for p in FIXTURES.glob("*/*") if p.suffix != ".tags")
REQUIRED = {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp",
            "ruby", "php", "kotlin", "swift", "scala", "lua", "bash", "elixir", "haskell", "ocaml", "ocaml_interface",
            "markdown", "rst", "asciidoc",
            "hcl", "proto", "graphql", "sql", "starlark", "dockerfile", "perl", "groovy", "powershell", "properties",
            "udev", "chatito",
            "clojure", "commonlisp", "racket", "elisp", "elm", "gleam", "erlang", "nix", "r", "julia",
            "dart", "zig", "d", "fortran", "pony", "nim", "verilog", "solidity", "arduino", "objc", "matlab", "codeql"}
DOCUMENTS = {"markdown", "rst", "asciidoc"}


def describe(sample: Path) -> str:
    source = sample.read_bytes()
    result = tags.extract(sample.name, source, tags.language_for(sample.name))
    assert result is not None, f"no working query for {sample}"
    lines = []
    for t in result.tags:
        if t.role == "def":
            local = " local" if t.local else ""
            head = source.count(b"\n", 0, t.head_byte) + 1
            lines.append(f"{t.line}-{t.end_line} def{local} {t.id} (signature to line {t.sig_end_line}, "
                         f"attached from line {head}) {t.doc!r}")
        else:
            lines.append(f"{t.line} ref {t.kind} {t.name}")
    return "\n".join(lines) + "\n"


def test_every_required_language_has_a_sample():
    assert {p.parent.name for p in SAMPLES} == REQUIRED
    assert all(tags.content_language(tags.language_for(p.name), p.read_bytes()) == p.parent.name for p in SAMPLES)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_tags_match_expectation(sample):
    expected_file = sample.with_name(sample.name + ".tags")
    actual = describe(sample)
    if os.environ.get("REPOMAP_REGEN"):
        expected_file.write_text(actual)
    assert actual == expected_file.read_text()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_definitions_and_references_are_found(sample):
    """Every sample has definitions; every code sample also has references."""
    text = describe(sample)
    assert " def " in text
    if sample.parent.name not in DOCUMENTS:
        assert " ref " in text


def test_a_name_that_is_not_utf8_is_tagged_not_a_crash():
    """A Lisp symbol may hold any byte, and the query's text predicates read it as UTF-8."""
    for language, source in [("elisp", b"(\x80require 'x)\n(defun f () (g))\n"),
                             ("clojure", b"(\x80defn a [] 1)\n(defn f [] (g))\n"),
                             ("commonlisp", b"(\x80defun a () 1)\n(defun f () (g))\n")]:
        for _ in range(3):  # the parser does not always give the stray byte to a symbol at first
            result = tags.extract("a", source, language)
            assert [(t.role, t.name) for t in result.tags if t.name in "fg"] == [("def", "f"), ("ref", "g")]


def with_broken_go_query(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    """`code` run in a fresh process (no query compiled yet) whose queries are the shipped
    ones but Go's, which no longer compiles (as after a grammar upgrade)."""
    from repomap.resources import resource_dir

    queries = tmp_path / "queries"
    shutil.copytree(resource_dir("queries"), queries)
    (queries / "go.scm").write_text("(((\n")
    prelude = f"from repomap import tags\ntags.resource_dir = lambda name: __import__('pathlib').Path({str(queries)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=300)


def test_broken_query_leaves_other_languages_working(tmp_path):
    result = with_broken_go_query(tmp_path, """
assert tags.extract("a.go", b"package a\\nfunc F() {}\\n", "go") is None
print([t.name for t in tags.extract("a.py", b"def f():\\n    pass\\n", "python").tags])
""")
    assert (result.returncode, result.stdout) == (0, "['f']\n"), result.stderr
    assert "no tags for go" in result.stderr


def test_a_broken_query_warns_once_however_many_workers_tag(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(80):  # more than one worker's chunk
        (repo / f"f{i}.go").write_text(f"package a\nfunc F{i}() {{}}\n")
    result = with_broken_go_query(tmp_path, f"""
from repomap import RepoMap
RepoMap({str(repo)!r}, use_cache=False, settings=False).build()
""")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("no tags for go") == 1


def test_every_kind_a_query_captures_is_a_known_kind():
    import re

    from repomap.resources import resource_dir
    from repomap.tags import KINDS

    captured = {kind for query in resource_dir("queries").glob("*.scm")
                for kind in re.findall(r"@definition\.([a-z_]+)", query.read_text())}
    assert captured == KINDS


def test_a_python_docstring_keeps_its_first_letters():
    """Only a string prefix (r, b, u, f) goes before the quotes; "Return ..." stays "Return ..."."""
    source = b'def f():\n    """Return the thing."""\n\n\ndef g():\n    rb"""Bytes, raw."""\n'
    docs = {t.name: t.doc for t in tags.extract("a.py", source, "python").tags if t.role == "def"}
    assert docs == {"f": "Return the thing.", "g": "Bytes, raw."}


def test_a_dot_m_file_is_tagged_as_objective_c_or_matlab_by_its_content(tmp_path):
    """`.m` is both languages' extension: each file of one folder is tagged by its own lines."""
    from conftest import run

    objc, matlab = FIXTURES / "objc" / "Counter.m", FIXTURES / "matlab" / "mean_filter.m"
    (tmp_path / objc.name).write_bytes(objc.read_bytes())
    (tmp_path / matlab.name).write_bytes(matlab.read_bytes())
    found = run("search", "--format", "json", "clampCount", tmp_path).stdout + run("search", "--format", "json", "make_kernel", tmp_path).stdout
    assert "Counter.m::clampCount#function" in found and "mean_filter.m::make_kernel#function" in found
    assert run("retrieve", "Counter.m::Counter.addValue#method", tmp_path).returncode == 0
    assert run("retrieve", "mean_filter.m::mean_filter#function", tmp_path).stdout.endswith("'same');\nend\n")


def test_a_doc_keeps_its_closing_parenthesis():
    """Only a comment's own closing marks go: a doc that ends in a call keeps its `)`."""
    python = b'def f():\n    """Return g(x)"""\n\n\n// Calls h(y)\nfunction h() {}\n'
    assert tags.extract("a.py", python.split(b"\n\n\n")[0], "python").tags[0].doc == "Return g(x)"
    assert tags.extract("a.js", python.split(b"\n\n\n")[1], "javascript").tags[0].doc == "Calls h(y)"
    assert tags.extract("a.ml", b"(** Runs f (x) *)\nlet run x = f x\n", "ocaml").tags[0].doc == "Runs f (x)"
