"""The API a chat loop calls every turn."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, run_process
from repomap import RepoMap, RepoMapError


@pytest.fixture
def repo():
    return RepoMap(FIXTURES / "repo", tokens=200)


def test_get_repo_map_leaves_chat_files_out(repo):
    text = repo.get_repo_map(chat_files=["shop/cart.py"])
    assert "shop/cart.py" not in text
    assert text.startswith("shop/item.py:")


def test_other_files_limit_the_universe(repo):
    text = repo.get_repo_map(chat_files=["svc/main.go"], other_files=["svc/store.go", "shop/money.py"])
    assert set(line for line in text.splitlines() if not line.startswith(" ")) == {"svc/store.go:", "shop/money.py:"}


def test_mentions_and_budget(repo):
    text = repo.get_repo_map(mentioned_idents={"_round_half_even"}, max_tokens=30)
    assert "_round_half_even" in text
    assert len(text) < 200


def test_absolute_paths_are_accepted(repo):
    absolute = str(FIXTURES / "repo" / "shop" / "cart.py")
    assert repo.get_repo_map(chat_files=[absolute]) == repo.get_repo_map(chat_files=["shop/cart.py"])
    assert repo.get_repo_map(chat_files=[Path(absolute)], mentioned_fnames=[Path("shop/money.py")]) == \
        repo.get_repo_map(chat_files=["shop/cart.py"], mentioned_fnames=["shop/money.py"])


def test_second_call_reuses_tags_and_sees_edits(shop):
    repo = RepoMap(shop, tokens=4000)
    first = repo.get_repo_map()
    assert repo.get_repo_map() == first
    (shop / "shop" / "money.py").write_text("def format_cents(amount: int) -> str:\n    return str(amount)\n")
    second = repo.get_repo_map()
    assert "format_cents" in second and "format_money" not in second


def test_bad_root_raises_a_library_error(tmp_path):
    with pytest.raises(RepoMapError, match="no such directory"):
        RepoMap(tmp_path / "missing")


def test_mentions_helper_for_chat_messages(repo):
    files, idents = repo.mentions("Why does Cart.total ignore TAX_RATE? See item.py and svc/store.go.")
    assert files == {"shop/item.py", "svc/store.go"}
    assert {"Cart", "total", "TAX_RATE"} <= idents
    text = repo.get_repo_map(mentioned_fnames=files, mentioned_idents=idents, max_tokens=60)
    assert "TAX_RATE" in text


def test_a_kept_repomap_after_edits_equals_a_fresh_one(shop):
    """The reference graph is kept across an edit that leaves what files define and use
    alone; the map must still be the one a fresh RepoMap makes, and change when links do."""
    kept = RepoMap(shop, tokens=300, use_cache=False)
    kept.build()
    cart = shop / "shop" / "cart.py"
    source = cart.read_text()
    cart.write_text(source.replace("    def total(", "    # a comment that moves every line below\n\n    def total("))
    assert kept.build().text == RepoMap(shop, tokens=300, use_cache=False).build().text
    cart.write_text(cart.read_text() + "\n\ndef loyalty(cart):\n    return format_money(cart.total())\n")
    edited = kept.build(query="loyalty").text
    assert "def loyalty(cart):" in edited
    assert edited == RepoMap(shop, tokens=300, use_cache=False).build(query="loyalty").text


def test_a_kept_repomap_renders_a_signature_changed_in_place_anew(shop):
    """A kept RepoMap's next map takes the file views of the last one where the file and the
    definitions shown are the same: a parameter renamed, every byte range as it was, is not."""
    kept = RepoMap(shop, tokens=4000, use_cache=False)
    assert "def format_money(amount: float, currency: str" in kept.build().text
    money = shop / "shop" / "money.py"
    money.write_text(money.read_text().replace("amount: float, currency", "amount: float, currenzy"))
    text = kept.build().text
    assert "currenzy" in text and text == RepoMap(shop, tokens=4000, use_cache=False).build().text


def test_a_kept_repomaps_scan_after_edits_equals_a_fresh_ones(shop, tmp_path):
    """After an edit a kept RepoMap's index looks again at the files whose stamps moved
    alone: the files it answers with, in their order, and the notes must be a new one's,
    which looks at every file (reading the unchanged ones' tags from its cache)."""
    kept = RepoMap(shop, max_file_size=400, use_cache=False)
    money = shop / "shop" / "money.py"
    source = money.read_text()
    edits = [source + "\n\ndef added():\n    pass\n",  # still tags, no note
             source + "\n\ndef broken(:\n",  # a note
             source,
             source + "#" * 400,  # too large: no longer tagged
             source]
    kept.scan()
    seen = []
    for text in [*edits, *edits]:
        money.write_text(text)
        scan, fresh = kept.scan(), RepoMap(shop, max_file_size=400, cache_dir=tmp_path / "cache").scan()
        assert list(scan.infos) == list(fresh.infos) and scan.notes == fresh.notes
        names = [[t.name for t in s.infos["shop/money.py"].defs] if "shop/money.py" in s.infos else None
                 for s in (scan, fresh)]
        assert names[0] == names[1]
        seen.append((names[0] is not None and "added" in names[0], "with syntax errors (partial tags)" in scan.notes))
    assert seen == [(True, False), (False, True), (False, False), (False, False), (False, False)] * 2


FORKED = """
import os, sys
from repomap import RepoMap, discover

shop, cache_dir = sys.argv[1:]
assert "numpy" not in sys.modules  # a fresh process: the child's stamps overlap its import
there, repo_map = discover.Tally(), RepoMap(shop, cache_dir=cache_dir)
answer = repo_map.files.forked_stamps(there, False, lambda: None)
assert answer is not None, "no child was forked"
stamps, tagged = answer
assert "new/added.py" in stamps
assert sorted(job.rel for job in tagged) == ["new/added.py", "shop/cart.py"], tagged
fresh, here, listed, answered = RepoMap(shop, cache_dir=cache_dir), discover.Tally(), [], []
scandir, found = os.scandir, discover.Snapshot.found
os.scandir = lambda path=".": listed.append(path) or scandir(path)
discover.Snapshot.found = lambda self, tally: answered.append(1) or found(self, tally)
assert (stamps, there.counts, there.ignored) == (fresh.files.stamps(None, [], here), here.counts, here.ignored)
assert listed == [] and answered == [1], (listed, answered)  # the stored walk answers: no folder listed again
os.scandir, discover.Snapshot.found = scandir, found
scan = repo_map.scanner.scan(stamps, there, count_terms=False, tagged=tagged)
assert repo_map.indexer.changed == 2
uncached = RepoMap(shop, use_cache=False).scan(count_terms=False)
assert (scan.links, scan.views, scan.state) == (uncached.links, uncached.views, uncached.state)
assert {rel: info.defs for rel, info in scan.infos.items()} == {rel: info.defs for rel, info in uncached.infos.items()}
"""


def test_stamps_and_tags_made_by_a_forked_child_equal_those_made_here(shop, tmp_path):
    """After a ranked map the CLI's next one stamps the files, and tags those changed since,
    in a forked child while it imports numpy: the stamps, the tally and the files' tags are
    those this process makes, and the walk the child made again (a folder was added) is
    stored, so the next process's walk is one stat a folder. In a process of its own, which
    has not loaded numpy yet, as the CLI's has not."""
    cache_dir = tmp_path / "cache"
    RepoMap(shop, cache_dir=cache_dir).scan(count_terms=False)  # tags and a walk stored
    (shop / "new").mkdir()
    (shop / "new" / "added.py").write_text("def added():\n    return 1\n")
    cart = shop / "shop" / "cart.py"
    cart.write_text(cart.read_text().replace("        return sum(", "        # grown\n        return sum("))
    for folder in (shop, shop / "new"):  # changed in the past: a listing of this clock tick is not kept
        os.utime(folder, (time.time() - 60, time.time() - 60))
    result = subprocess.run([sys.executable, "-c", FORKED, shop, cache_dir], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.mark.long
def test_a_map_ranked_after_a_ranked_one_is_the_map_made_without_a_cache(shop, tmp_path):
    """The CLI notes whether a map was ranked; the next one, stamped by a forked child
    meanwhile, is still the map of the files as they are."""
    cache_dir = tmp_path / "cache"
    cart = shop / "shop" / "cart.py"
    for grown in range(3):
        cart.write_text(cart.read_text().replace("        return sum(", "        # grown\n        return sum("))
        out = run_process("map", shop, "--tokens", "300", "--cache-dir", cache_dir)
        assert out.stdout == RepoMap(shop, use_cache=False, tokens=300).build().text


def test_one_include_or_exclude_pattern_given_as_a_string_is_one_pattern(shop):
    from repomap import RepoMap

    as_list = RepoMap(shop, exclude=["tests"], use_cache=False).build().text
    assert RepoMap(shop, exclude="tests", use_cache=False).build().text == as_list
    assert "tests/" not in as_list
    assert RepoMap(shop, include="shop", use_cache=False).build().text == \
        RepoMap(shop, include=["shop"], use_cache=False).build().text


def test_a_budget_is_checked_alike_wherever_it_is_given(shop):
    repo = RepoMap(shop, use_cache=False)
    for bad in (0, -5, True, 2.5, "40"):
        said = f"the token budget must be a whole number of at least 1, not {bad!r}"
        with pytest.raises(RepoMapError) as made:
            RepoMap(shop, tokens=bad, use_cache=False)
        with pytest.raises(RepoMapError) as built:
            repo.build(tokens=bad)
        with pytest.raises(RepoMapError) as turned:
            repo.get_repo_map(max_tokens=bad)
        assert str(made.value) == str(built.value) == str(turned.value) == said
