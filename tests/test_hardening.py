"""Hostile trees: map, search, retrieve and index all exit 0, say what they skipped, and never
leave the root; the MCP server survives malformed protocol."""

import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, git, run, run_process

SAMPLES = sorted(p for p in (FIXTURES / "tags").glob("*/*") if p.suffix != ".tags")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    (root / "ok.py").write_text("def fine():\n    return 1\n")
    (root / "blob.py").write_bytes(bytes(range(256)) * 40)
    (root / "utf16.py").write_bytes("def wide():\n    pass\n".encode("utf-16"))
    with open(root / "generated.py", "wb") as f:
        f.write(b"x = 1\n" * (50 * 1024 * 1024 // 6))
    (root / "huge.min.js").write_text("var a=" + "1+" * 1_000_000 + "1;")
    (root / "bundle.js").write_text("var b=" + "2+" * 400_000 + "2;\n")
    (root / "empty.py").write_bytes(b"")
    (root / "bom.py").write_bytes(b"\xef\xbb\xbf")
    (root / "nested.py").write_text("x = " + "[" * 10_000 + "]" * 10_000 + "\ndef after_nesting():\n    pass\n")
    (root / "nested.js").write_text("const y = " + "{a:" * 10_000 + "1" + "}" * 10_000 + ";\nfunction afterNesting() {}\n")
    broken = root / "broken"
    broken.mkdir()
    for sample in SAMPLES:  # every language, cut off in the middle
        data = sample.read_bytes()
        (broken / sample.name).write_bytes(data[: len(data) // 2])
    odd = root / "odd names"
    odd.mkdir()
    (odd / "with space.py").write_text("def spaced():\n    pass\n")
    (odd / "ünïcødé.py").write_text("def unicode_name():\n    pass\n")
    (odd / "new\nline.py").write_text("def newline_name():\n    pass\n")
    (odd / "-dash.py").write_text("def dash_name():\n    pass\n")
    (odd / "Case.py").write_text("def upper_case():\n    pass\n")
    (odd / "case.py").write_text("def lower_case():\n    pass\n")
    deep = root
    for i in range(12):
        deep = deep / ("d" * 90 + str(i))
    deep.mkdir(parents=True)
    (deep / "deep.py").write_text("def very_deep():\n    pass\n")
    os.symlink(root, root / "loop")
    os.symlink("/etc", root / "etc_link")
    os.symlink("/etc/passwd", root / "passwd.py")
    return root


def test_map_survives_and_counts(hostile):
    result = run("map", hostile, "--tokens", "4000")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for seen in ("def fine():", "def after_nesting():", "function afterNesting()", "def spaced():",
                 "def unicode_name():", "def newline_name():", "def dash_name():", "def upper_case():",
                 "def lower_case():", "def very_deep():"):
        assert seen in result.stdout, seen
    for note in ("binary", "too large", "minified (long lines)", "with syntax errors (partial tags)"):
        assert note in result.stderr
    assert "root:" not in result.stdout  # nothing from /etc/passwd


def test_other_commands_survive(hostile):
    for args in (["index", hostile], ["search", "fine", "--root", hostile],
                 ["retrieve", "ok.py::fine", "--root", hostile], ["refs", "ok.py::fine", "--root", hostile]):
        result = run(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
    refused = run("retrieve", "passwd.py:1", "--root", hostile)
    assert refused.returncode == 2 and "refused" in refused.stderr and "root:" not in refused.stdout


def test_git_tree_with_a_submodule(tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "lib.py").write_text("def from_submodule():\n    pass\n")
    git(inner, "init", "-q")
    git(inner, "add", "-A")
    git(inner, "commit", "-qm", "inner")
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / "main.py").write_text("def main():\n    pass\n")
    git(outer, "init", "-q")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    git(outer, "add", "-A")
    result = run("map", outer)
    assert result.returncode == 0 and "def main():" in result.stdout


def test_file_deleted_between_index_and_render(tmp_path):
    from repomap import RepoMap
    (tmp_path / "a.py").write_text("def a():\n    return b()\n")
    (tmp_path / "b.py").write_text("def b():\n    pass\n")
    repo = RepoMap(tmp_path, use_cache=False)
    scan = repo.scan()
    (tmp_path / "b.py").unlink()
    assert scan.sources["b.py"] == b""  # read after it went: empty, no error
    assert repo.build().text.startswith("a.py:")


def test_mcp_survives_malformed_protocol(tmp_path):
    server = subprocess.Popen([sys.executable, "-m", "repomap", "mcp", str(FIXTURES / "repo")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    junk = ["this is not json", "{", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}),
            json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": "x" * 200_000}), "[]", "null"]
    init = {"jsonrpc": "2.0", "id": 7, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    try:
        out, err = server.communicate("\n".join([*junk, json.dumps(init)]) + "\n", timeout=300)  # only ends a hang
    finally:
        server.kill()
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert any(a.get("id") == 7 and "result" in a for a in answers), out
    assert any(a.get("id") == 1 and "error" in a for a in answers), out  # unknown method: an error answer
    assert "Traceback" not in err


def test_unreadable_file_is_counted(tmp_path, monkeypatch):
    import os

    from repomap import RepoMap
    (tmp_path / "a.py").write_text("def a():\n    pass\n")
    (tmp_path / "locked.py").write_text("def locked():\n    pass\n")
    real = os.open

    def refusing_open(path, *args, **kwargs):
        if os.fspath(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)  # root reads anything, so simulate the refusal
    result = RepoMap(tmp_path, use_cache=False).build()
    assert result.notes == {"unreadable": 1}
    assert "def a():" in result.text and "locked" not in result.text


WIDE = 2**16 + 1000  # more files than a 16-bit number counts: no column of the graph may be that narrow


@pytest.mark.long
def test_a_tree_wider_than_a_16_bit_count(tmp_path):
    """Works on a very wide tree; time and memory per file are measured in bench/many_files.py."""
    for i in range(WIDE):  # os.open and os.write: pathlib's per-file overhead is most of the tree's making
        if i % 1000 == 0:
            os.mkdir(folder := f"{tmp_path}/pkg{i // 1000}")
        fd = os.open(f"{folder}/m{i}.py", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        os.write(fd, f"def f{i}():\n    return f{(i * 7919) % WIDE}()\n".encode())
        os.close(fd)
    result = run("map", tmp_path, "--tokens", "256")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(":\n") >= 5


def test_writes_nothing_but_its_index(shop, tmp_path):
    """Not even the tokenizer's usual copy of its data file in the temporary folder."""
    scratch, cache_dir = tmp_path / "tmp", tmp_path / "cache"
    scratch.mkdir()
    before = sorted(p.relative_to(shop) for p in shop.rglob("*"))
    result = run_process("map", shop, "--cache-dir", cache_dir, env={"TMPDIR": str(scratch)})
    assert result.returncode == 0 and result.stdout
    assert list(scratch.iterdir()) == []
    assert sorted(p.relative_to(shop) for p in shop.rglob("*")) == before
    # the database and the graph's inputs, columns and ranking beside it (search postings too, after a search)
    assert {p.suffix for p in cache_dir.iterdir()} <= {".sqlite", ".sqlite-wal", ".sqlite-shm", ".inputs", ".edges",
                                                       ".definitions", ".ranking", ".postings"}
