"""The API a chat loop calls every turn."""

from pathlib import Path

import pytest

from conftest import FIXTURES
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
