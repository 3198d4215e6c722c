"""A RepoMap kept between calls looks only where Linux said something changed (watch.py)."""

import os
import shutil
from pathlib import Path

import pytest

from conftest import age, git_init
from repomap import RepoMap, watch

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not os.path.exists("/proc/self"),
                                reason="inotify is Linux's")


def stats(monkeypatch) -> list[str]:
    """The paths os.stat is asked about from here on."""
    asked = []
    stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: asked.append(str(path)) or stat(path, *a, **k))
    return asked


def watched(shop) -> RepoMap:
    """A RepoMap looked at three times: the second look starts the watch, the third is
    watched throughout, so the next trusts it."""
    age(shop)  # else each folder's listing is not trusted either (discover.RACY_NS)
    probe = watch.Watch(str(shop))
    probe.begin(), probe.begin()  # the second look starts the watch, where Linux can
    watching = probe.watching
    probe.close()
    if not watching:
        pytest.skip("no inotify on this file system")
    kept = RepoMap(shop, tokens=4000, use_cache=False)
    for _ in range(3):
        kept.build()
    return kept


@pytest.mark.parametrize("in_git", [False, True])
def test_a_watched_repomap_sees_every_change_a_fresh_one_sees(shop, monkeypatch, in_git):
    if in_git:  # git lists the files (tracked, and others not ignored), not a walk
        git_init(shop)
    kept = watched(shop)

    def same_as_fresh():
        text = kept.build().text
        assert text == RepoMap(shop, tokens=4000, use_cache=False).build().text
        return text

    same_as_fresh()
    money, cart = shop / "shop" / "money.py", shop / "shop" / "cart.py"

    money.write_text(money.read_text() + "\n\ndef in_place_edit():\n    return 1\n")
    asked = stats(monkeypatch)
    kept.build()
    monkeypatch.undo()
    assert [path for path in asked if path.startswith(f"{kept.root}/")] == [str(kept.root / "shop" / "money.py")]
    assert "def in_place_edit():" in same_as_fresh()

    os.utime(cart, ns=(1, 1))  # touched: its stamp moves, its map does not
    same_as_fresh()
    (shop / "shop" / "added.py").write_text("def added_helper():\n    return 2\n")
    assert "def added_helper():" in same_as_fresh()
    (shop / "shop" / "added.py").rename(shop / "shop" / "renamed.py")
    assert "shop/renamed.py:" in same_as_fresh()
    (shop / "svc" / "store.go").unlink()
    assert "svc/store.go" not in same_as_fresh()
    saved = shop / "shop" / ".item.py.swp"  # an editor's save: a new file renamed over the old
    saved.write_text((shop / "shop" / "item.py").read_text() + "\n\ndef saved_by_rename():\n    pass\n")
    saved.rename(shop / "shop" / "item.py")
    assert "def saved_by_rename():" in same_as_fresh()
    (shop / "lib" / "deep").mkdir(parents=True)  # a new folder: watched from here on
    (shop / "lib" / "deep" / "util.py").write_text("def first_version():\n    pass\n")
    assert "def first_version():" in same_as_fresh()
    for version in ("second", "third"):  # watched, then trusted
        (shop / "lib" / "deep" / "util.py").write_text(f"def {version}_version():\n    pass\n")
        assert f"def {version}_version():" in same_as_fresh()
    (shop / ".gitignore").write_text("lib/\n")  # rules added hide a folder
    assert "lib/deep/util.py" not in same_as_fresh()
    age(shop)
    same_as_fresh()  # every listing older than a clock tick: the walk's snapshot is trusted
    (shop / ".gitignore").write_text("lib/\nweb/\n")  # rules edited in place hide another
    assert ("web/app.js" in same_as_fresh()) == in_git  # git lists a file it tracks
    (shop / ".gitignore").write_text("")
    shutil.rmtree(shop / "lib")  # a folder removed and made again
    (shop / "lib").mkdir()
    (shop / "lib" / "again.py").write_text("def made_again():\n    pass\n")
    assert "def made_again():" in same_as_fresh()
    (shop / "lib" / "again.py").write_text("def made_again_and_edited():\n    pass\n")
    assert "def made_again_and_edited():" in same_as_fresh()
    (shop / "web").rename(shop / "www")  # a folder moved: its watch goes with it
    (shop / "www" / "app.js").write_text("function movedAway() {}\n")
    assert "www/app.js:" in same_as_fresh()
    kept.close()


def test_lost_events_make_the_next_look_whole(shop, monkeypatch):
    """Where the queue overflowed, nothing is trusted: the next look stats every file."""
    kept = watched(shop)
    with open("/proc/sys/fs/inotify/max_queued_events") as f:
        queue = int(f.read())
    item, money = shop / "shop" / "item.py", shop / "shop" / "money.py"  # not cart.py, looked for below
    for i in range(queue // 2 + 1):  # two files in turn: Linux merges only an event like the last
        os.utime(item, ns=(i, i))
        os.utime(money, ns=(i, i))
    asked = stats(monkeypatch)
    kept.build()
    assert str(kept.root / "shop" / "cart.py") in asked and str(kept.root / "shop") in asked
    asked.clear()
    kept.build()  # that look was watched throughout
    assert not asked
    kept.close()
    kept.build()
    assert str(kept.root / "shop" / "cart.py") in asked  # closed: every look is whole


def test_a_watched_repomap_in_a_git_work_tree_lists_again_only_when_something_git_reads_changed(shop, monkeypatch):
    """git lists the files of a work tree, by its index, the .gitignore files and
    .git/info/exclude: a kept RepoMap does not run it again while none of those, and no
    folder's entries, changed; then every change git would see must show."""
    import subprocess

    from conftest import git

    git_init(shop)
    (shop / "notes").mkdir()
    (shop / "notes" / "draft.log").write_text("ignored\n")
    (shop / ".gitignore").write_text("*.log\n")
    kept = watched(shop)

    def same_as_fresh():
        text = kept.build().text
        assert text == RepoMap(shop, tokens=4000, use_cache=False).build().text
        return text

    money = shop / "shop" / "money.py"
    money.write_text(money.read_text() + "\n\ndef in_place_edit():\n    return 1\n")
    run, listings = subprocess.run, []
    monkeypatch.setattr(subprocess, "run", lambda args, *a, **k: listings.append(args) or run(args, *a, **k))
    assert "def in_place_edit():" in kept.build().text
    monkeypatch.undo()
    assert not [args for args in listings if "ls-files" in args]  # an edit in place: git is not asked
    (shop / "empty").mkdir()  # a folder no listed file is in, watched all the same
    same_as_fresh()
    (shop / "empty" / "later.py").write_text("def made_in_an_empty_folder():\n    pass\n")
    assert "def made_in_an_empty_folder():" in same_as_fresh()
    (shop / "notes" / "idea.py").write_text("def next_to_ignored_files():\n    pass\n")
    assert "def next_to_ignored_files():" in same_as_fresh()
    exclude = Path(git(shop, "rev-parse", "--git-path", "info/exclude").stdout.strip())
    exclude = exclude if exclude.is_absolute() else shop / exclude
    exclude.write_text(exclude.read_text() + "notes/\n")  # git's own list, edited in place
    assert "notes/idea.py" not in same_as_fresh()
    git(shop, "rm", "-q", "--cached", "svc/store.go")  # no longer tracked, and ignored
    (shop / ".gitignore").write_text("*.log\nsvc/store.go\n")
    assert "svc/store.go" not in same_as_fresh()
    git(shop, "add", "-f", "svc/store.go")  # tracked again though ignored: only the index says so
    assert "svc/store.go:" in same_as_fresh()
    kept.close()
