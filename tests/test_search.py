"""Search returns ranked metadata for names and for plain-language questions."""

import json

import pytest

from conftest import damage_column, run
from test_retrieve import repo  # noqa: F401  (fixture)


def ids(result):
    return [line.split()[0] for line in result.stdout.splitlines()]


def test_natural_language_question(repo):  # noqa: F811
    result = run("search", "where do we retry the failed connection", "--root", repo)
    assert ids(result)[0] == "svc.py::retry_connection#function"
    first = result.stdout.splitlines()[0]  # no score: the order is the rank
    assert first == "svc.py::retry_connection#function lines 15-17 def retry_connection(host, attempts=3):"


def test_filters_and_limit(repo):  # noqa: F811
    assert ids(run("search", "connect", "--root", repo, "--kind", "method")) == ["svc.py::Client.connect#method"]
    assert set(ids(run("search", "connect", "--root", repo, "--path", "other.py"))) == {"other.py::connect#function"}
    assert len(ids(run("search", "connect", "--root", repo, "--limit", "1"))) == 1


def test_json_results(repo):  # noqa: F811
    data = json.loads(run("search", "open a connection", "--root", repo, "--format", "json").stdout)
    top = data["results"][0]
    assert top["id"] == "svc.py::Client.connect#method" and top["doc"] == "Open a connection."
    assert set(data["_meta"]) == {"tokens", "file_tokens", "tokens_saved", "ms"}


def test_copies_and_overloads_are_listed_once(tmp_path):
    """A generated copy of a file (zod's deno/lib) and a method's overload signatures would
    fill the top results twice over; each definition is listed once, from the source copy."""
    source = """export class Schema {
  parse(input: string): string;
  parse(input: number): number;
  parse(input: unknown): unknown {
    return validateInput(input);
  }
}

export function validateInput(input: unknown): unknown {
  return input;
}
"""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "schema.ts").write_text(source)
    (tmp_path / "deno" / "lib").mkdir(parents=True)
    (tmp_path / "deno" / "lib" / "schema.ts").write_text(source)
    result = run("search", "parse input", "--root", tmp_path)
    # the overload with the body: the one worth retrieving
    assert ids(result) == ["src/schema.ts::Schema.parse#method~3", "src/schema.ts::validateInput#function"]


def test_a_multi_line_query_leans_on_its_first_line(tmp_path):
    """A task's title says what it is about; the lines below it mention neighbours too."""
    (tmp_path / "http.py").write_text("def render_footer(page):\n    return page\n\n\n"
                                      "def parse_header(line):\n    return line\n")
    one_line = run("search", "parse header render footer", "--root", tmp_path)
    assert ids(one_line)[0] == "http.py::render_footer#function"  # a tie: the first in the file
    titled = run("search", "parse header\n\nand render footer", "--root", tmp_path)
    assert ids(titled) == ["http.py::parse_header#function", "http.py::render_footer#function"]


def test_a_long_task_text_finds_the_definition_that_covers_most_of_it(tmp_path):
    """A task's many words each say little; the definition that covers most of them is the one
    it is about, not the one named after a single word of it (`purge`)."""
    (tmp_path / "sessions.py").write_text(
        'def purge(store):\n    """Purge the store: purge every entry."""\n    return store.purge_all()\n\n\n'
        "def expire(sessions, clock):\n    # a session older than its lifetime is stale: drop it\n"
        "    return [s for s in sessions if clock.now() - s.started > s.lifetime]\n\n\n"
        "def count_sessions(sessions):\n    return len(sessions)\n\n\n"
        "def clock_now(clock):\n    return clock.now()\n\n\n"
        "def stale_lifetime(session):\n    return session.lifetime\n")
    result = run("search", "purge stale sessions past their lifetime on the clock", "--root", tmp_path)
    assert ids(result)[:2] == ["sessions.py::expire#function", "sessions.py::purge#function"]


def test_a_match_among_other_matches_of_its_file_comes_first(tmp_path):
    """Two definitions match alike; the one whose file also matches the rest of the task is
    likelier the one to change (a tie would otherwise go to the first path)."""
    (tmp_path / "a_lone.py").write_text('def alpha(entries):\n    """Refresh stale entries."""\n    return entries\n')
    (tmp_path / "b_pack.py").write_text('def gamma(entries):\n    """Refresh stale entries."""\n    return entries\n\n\n'
                                        'def delta(store):\n    """Cache expiry."""\n    return store\n')
    result = run("search", "refresh stale entries on cache expiry", "--root", tmp_path)
    assert ids(result) == ["b_pack.py::delta#function", "b_pack.py::gamma#function", "a_lone.py::alpha#function"]


def test_code_comes_before_a_constant_that_matches_as_well(tmp_path):
    (tmp_path / "net.py").write_text("RETRY_TIMEOUT = 30\n\n\ndef retry_timeout(seconds):\n    return seconds\n")
    assert ids(run("search", "retry timeout", "--root", tmp_path)) == [
        "net.py::retry_timeout#function", "net.py::RETRY_TIMEOUT#constant"]


def test_search_after_an_edit_in_a_repomap_that_read_stored_postings(shop, tmp_path):
    """A kept RepoMap lays the edited file's postings over the stored ones; the answers must
    be those of a fresh RepoMap."""
    from repomap import RepoMap

    cache = tmp_path / "cache"
    query = "receipt of the cart total in money"
    RepoMap(shop, cache_dir=cache).search(query)
    kept = RepoMap(shop, cache_dir=cache)
    assert kept.search(query) == RepoMap(shop, use_cache=False).search(query)
    cart = shop / "shop" / "cart.py"
    cart.write_text(cart.read_text() + "\n\ndef money_receipt(cart):\n    return receipt(cart.total())\n")
    found = kept.search(query, limit=10)
    assert "shop/cart.py::money_receipt#function" in [h.tag.id for h in found]
    assert found == RepoMap(shop, use_cache=False).search(query, limit=10)


def test_postings_take_each_files_terms_by_path(shop, tmp_path, monkeypatch):
    """The index hands out files' terms in any order (those tagged in this process first, then
    stored ones, then ones counted again): each file's postings must still be its own. Taken by
    position, they answered with other files' definitions or failed as damaged (seen with four
    processes sharing a cache while a file changed)."""
    from repomap import RepoMap
    from repomap.index import Indexer

    query = "store an item in the cart"
    expected = RepoMap(shop, use_cache=False).search(query, limit=10)
    in_order = Indexer.terms
    monkeypatch.setattr(Indexer, "terms", lambda self, rels: reversed(list(in_order(self, rels))))
    assert RepoMap(shop, cache_dir=tmp_path / "cache").search(query, limit=10) == expected


def _many_modules(root, n=50):
    """`n` small modules; two of them are copies, so answers group copies across files."""
    for i in range(n):
        (root / f"mod{i:02d}.py").write_text(
            f"class Store{i}:\n    def fetch_record(self, key):\n        return self.records[key]  # record {i}\n\n\n"
            f"def retry_connection_{i}(host, attempts={i}):\n    return connect(host) or retry(host)\n\n\n"
            f"def parse_header_{i}(line):\n    return line.split(':')  # header {i % 7}\n")
    copy = "def shared_helper(value):\n    return value.strip()  # retry and parse\n"
    (root / "lib").mkdir()
    (root / "lib" / "helper.py").write_text(copy)
    (root / "vendor").mkdir()
    (root / "vendor" / "helper.py").write_text(copy)


QUERIES = ["retry connection", "parse header line", "fetch record key", "shared helper strip value"]


def _answers(root, *options):
    return [run("search", q, root, "--limit", "12", *options).stdout for q in QUERIES]


def test_stored_postings_after_edits_answer_as_a_fresh_build(tmp_path):
    """A search in a new process after a few files changed reads the stored postings and the
    changed files' terms only; what it answers is what a build from nothing answers."""
    root = tmp_path / "repo"
    root.mkdir()
    _many_modules(root)
    cache = tmp_path / "cache"
    first = _answers(root, "--cache-dir", cache)
    assert first == _answers(root, "--no-cache") and all(first)
    stored, = cache.glob("*.postings")
    built = stored.stat().st_mtime_ns
    (root / "mod03.py").write_text((root / "mod03.py").read_text().replace("record 3", "record cache retry"))
    (root / "mod05.py").write_text((root / "mod05.py").read_text().replace("parse_header_5", "parse_footer"))
    (root / "mod07.py").unlink()
    (root / "lib" / "helper.py").write_text((root / "vendor" / "helper.py").read_text() + "\n\nLIMIT = 3\n")
    (root / "new.py").write_text("def retry_connection_later(host):\n    return retry(host)\n")
    after = _answers(root, "--cache-dir", cache)
    assert after == _answers(root, "--no-cache") and after != first
    assert stored.stat().st_mtime_ns == built  # 5 of 52 files changed: laid over, not built again
    assert [line.split()[0] for line in after[3].splitlines()].count("lib/helper.py::shared_helper#function") == 1
    assert "vendor/helper.py::shared_helper" not in after[3]  # copies, one stored, one changed: shown once


def test_a_map_alone_counts_no_search_terms_and_a_search_after_it_answers_as_a_fresh_one(tmp_path):
    """A map without a task text leaves the files' search terms to the first search that
    needs them (workers count them for 82 files, this process for one edited file); its
    answers are those of a search from nothing, and the terms it counted are stored."""
    import sqlite3

    def uncounted() -> int:
        db, = cache.glob("*.sqlite")
        with sqlite3.connect(db) as connection:
            return connection.execute("SELECT COUNT(*) FROM files WHERE terms IS NULL").fetchone()[0]

    root = tmp_path / "repo"
    root.mkdir()
    _many_modules(root, 80)
    cache = tmp_path / "cache"
    assert run("map", root, "--cache-dir", cache).returncode == 0
    assert uncounted() == 82
    assert _answers(root, "--cache-dir", cache) == _answers(root, "--no-cache")
    assert uncounted() == 0
    (root / "mod03.py").write_text((root / "mod03.py").read_text().replace("record 3", "record cache retry"))
    assert run("map", root, "--cache-dir", cache).returncode == 0
    assert uncounted() == 1
    assert _answers(root, "--cache-dir", cache) == _answers(root, "--no-cache")
    assert uncounted() == 0


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_kept_repomap_counts_what_its_maps_left_when_it_first_searches(tmp_path, use_cache):
    """As a chat loop runs it: maps without a task text, an edit, another map, then searches
    in the same RepoMap, with and without an index; the answers are a fresh RepoMap's."""
    from repomap import RepoMap

    root = tmp_path / "repo"
    root.mkdir()
    _many_modules(root, 70)
    kept = RepoMap(root, cache_dir=tmp_path / "cache", use_cache=use_cache)
    kept.build()
    (root / "mod03.py").write_text((root / "mod03.py").read_text().replace("record 3", "record cache retry"))
    kept.build()
    for query in QUERIES:
        assert kept.search(query, limit=12) == RepoMap(root, use_cache=False).search(query, limit=12)


def test_damaged_stored_postings_are_built_again(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    _many_modules(root, 5)
    cache = tmp_path / "cache"
    fresh = _answers(root, "--no-cache")
    assert _answers(root, "--cache-dir", cache) == fresh
    stored, = cache.glob("*.postings")
    whole = stored.read_bytes()
    for damaged in (whole[:len(whole) // 2], b"", whole[:100] + b"\xff" * (len(whole) - 100), whole):
        stored.write_bytes(damaged)
        if damaged == whole:
            damage_column(stored, "doc")  # rows of no definition
        result = run("search", QUERIES[0], root, "--limit", "12", "--cache-dir", cache, "--quiet")
        assert (result.returncode, result.stdout, result.stderr) == \
            (0, fresh[0], "repomap: warning: the postings stored in the cache were damaged; they are made again\n")


def test_a_file_the_title_names_leads(tmp_path):
    """"median: sorted len" names stats/median.py, though summary.py's docstring
    shares more of the title's words; "GMT format" names no file: url_format.py's name is only
    half in it."""
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "summary.py").write_text(
        'def describe(values):\n    """Sorted values with their len, mean and median."""\n'
        "    ordered = sorted(values)\n    return len(ordered), ordered\n")
    (tmp_path / "stats" / "median.py").write_text(
        "def middle(values):\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n")
    assert ids(run("search", "median: sorted len", "--root", tmp_path))[:2] == [
        "stats/median.py::middle#function", "stats/summary.py::describe#function"]
    (tmp_path / "nocache.py").write_text(
        "def no_cache_headers():\n    # expiry timestamps in GMT, as RFC 2616 wants them\n    return EPOCH\n")
    (tmp_path / "url_format.py").write_text("def url_format(url):\n    return url.format\n")
    assert ids(run("search", "use timestamps in GMT format", "--root", tmp_path))[0] == \
        "nocache.py::no_cache_headers#function"


def test_the_title_scope_names_where_the_change_is(tmp_path):
    """"fix(compiler-ssr): ..." says the change is in compiler-ssr: its files lead, where the
    same words elsewhere in the title ("fix: ... in compiler-ssr") leave memo.py first, as it
    shares more of the title's words and is named by one of them."""
    for path, text in {
        "compiler-core/transforms/memo.py":
            'def transform(node):\n    """Handle a memo directive: cache the node\'s output."""\n    return node.cached\n',
        "compiler-core/parse/template.py":
            'def parse(text):\n    """Handle a template: its text as nodes."""\n    return text.split()\n',
        "compiler-ssr/codegen.py":
            "def generate(node):\n    # write the output; a memo directive writes its cached output\n"
            "    return node.output\n",
        "compiler-ssr/stream.py": 'def pipe(chunks):\n    return b"".join(chunks)\n',
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    memo, codegen = "compiler-core/transforms/memo.py::transform#function", "compiler-ssr/codegen.py::generate#function"
    for task, first in [("fix(compiler-ssr): handle the memo directive", codegen),
                        ("compiler-ssr: handle the memo directive", codegen),
                        ("fixup! compiler-ssr: handle the memo directive", codegen),
                        ("fix: handle the memo directive in compiler-ssr", memo),
                        ("handle the memo directive, as compiler-ssr: does", memo)]:
        assert ids(run("search", task, "--root", tmp_path))[:2] == [first, ({memo, codegen} - {first}).pop()], task


def test_html_comments_in_a_task_are_not_its_words(tmp_path):
    """A pull request template's instructions sit in HTML comments; their words would find
    whatever documents the contributing process."""
    (tmp_path / "parse.py").write_text(
        "def parse_range(text):\n    # a range end past the last item would overflow\n    return text\n")
    (tmp_path / "docs.py").write_text(
        'def contributing_guide():\n    """Read the contributing guide and describe your changes in the pull'
        ' request; link the issues it closes."""\n    return GUIDE\n')
    task = ("avoid an overflow\n\n<!--\nPlease read the contributing guide, describe your changes and link"
            " the issues this pull request closes.\n-->\nThe range end overflowed.")
    assert ids(run("search", task, "--root", tmp_path)) == ["parse.py::parse_range#function"]


def test_a_name_the_task_writes_as_code_leads(tmp_path):
    """`DropSchema` and `Async.execute` name the definitions to change; the same words as
    prose leave first the definitions that share more of them."""
    (tmp_path / "events.py").write_text(
        'def drop_schema_hooks(schema):\n    """Include the hooks that run before and after a drop of a schema."""\n'
        "    return schema.hooks\n")
    (tmp_path / "ddl.py").write_text('class DropSchema:\n    """A statement."""\n')
    (tmp_path / "session.py").write_text(
        "class Sync:\n    def execute(self, statement, options):\n"
        '        """Execute a statement with its options, as Async does."""\n        return statement\n\n\n'
        "class Async:\n    def execute(self, statement, options):\n        return self.sync.execute(statement)\n")
    hooks, drop = "events.py::drop_schema_hooks#function", "ddl.py::DropSchema#class"
    assert ids(run("search", "include drop schema", "--root", tmp_path))[:2] == [hooks, drop]
    assert ids(run("search", "include `DropSchema`", "--root", tmp_path))[:2] == [drop, hooks]
    assert ids(run("search", "include DropSchema", "--root", tmp_path))[:2] == [drop, hooks]
    sync, async_ = "session.py::Sync.execute#method", "session.py::Async.execute#method"
    assert ids(run("search", "execute ignores its options", "--root", tmp_path))[:2] == [sync, async_]
    assert ids(run("search", "`Async.execute` ignores its options", "--root", tmp_path))[:2] == [async_, sync]
    assert ids(run("search", "Async::execute ignores its options", "--root", tmp_path))[:2] == [async_, sync]


def test_a_definition_that_uses_a_name_the_task_writes_as_code_leads(tmp_path):
    """A task that writes `adapt_on_names` changes the code that passes that parameter on;
    the same words as prose leave first the definition that shares more of them."""
    (tmp_path / "loading.py").write_text('def fetch(entity):\n    """Polymorphic loads of an entity."""\n    return entity\n')
    (tmp_path / "util.py").write_text(
        "def aliased(entity, adapt_on_names=False):\n    return Alias(entity, adapt_on_names=adapt_on_names)\n")
    for name in "abcd":  # so that the words above are rare
        (tmp_path / f"{name}.py").write_text(f"def helper_{name}(value):\n    return value + 1\n")
    fetch, alias = "loading.py::fetch#function", "util.py::aliased#function"
    assert ids(run("search", "support adapt on names for polymorphic loads", "--root", tmp_path))[:2] == [fetch, alias]
    assert ids(run("search", "support `adapt_on_names` for polymorphic loads", "--root", tmp_path))[:2] == [alias, fetch]
    assert ids(run("search", "support adapt_on_names for polymorphic loads", "--root", tmp_path))[:2] == [alias, fetch]


def test_a_closure_is_found_by_its_own_words(tmp_path):
    """A fix is often to a function defined inside another (vue's `onLeave` inside
    resolveTransitionProps); the enclosing function's words leave the closure's out."""
    (tmp_path / "transition.js").write_text(
        "export function resolveTransitionProps(raw) {\n"
        "  const finishLeave = (el, done) => {\n    removeTransitionClass(el, raw.leaveFromClass)\n  }\n"
        "  return {\n    onLeave(el, done) {\n      // reflow before the leave-active class is added\n"
        "      forceReflow(el)\n      finishLeave(el, done)\n    },\n  }\n}\n")
    found = run("search", "reflow before the leave-active class", "--root", tmp_path)
    assert ids(found)[0] == "transition.js::resolveTransitionProps.onLeave#method"
    body = run("retrieve", ids(found)[0], "--root", tmp_path).stdout
    assert body.splitlines()[1:] == ["    onLeave(el, done) {", "      // reflow before the leave-active class is added",
                                     "      forceReflow(el)", "      finishLeave(el, done)", "    }"]


def test_rows_are_put_in_bucket_order_as_a_stable_sort_would():
    """The build sorts rows a range of buckets at a time, to hold less memory; the order and
    each bucket's start must be the whole stable sort's, at the ranges' edges too."""
    import numpy as np

    from repomap.search import BUCKETS, ORDER_PARTS, _bucket_order

    edges = [k * (BUCKETS // ORDER_PARTS) + d for k in range(ORDER_PARTS + 1) for d in (-1, 0)]
    bucket = np.random.default_rng(7).choice(np.array([e for e in edges if 0 <= e < BUCKETS] + [3, 4096]),
                                             size=5000).astype(np.uint16)
    order, starts = _bucket_order(bucket)
    expected = np.argsort(bucket, kind="stable")
    assert order.tolist() == expected.tolist()
    assert starts.tolist() == np.searchsorted(bucket[expected], np.arange(BUCKETS + 1)).tolist()


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_a_clear_error(shop, query):
    result = run("search", query, "--root", shop, "--no-cache")
    assert result.returncode == 2 and "the search query is empty" in result.stderr, result.stderr
