"""Which files are read: git's view in a work tree, a .gitignore-honouring walk elsewhere."""

import os
import subprocess
import sys

import pytest

from conftest import age, git_init, run
from repomap.discover import Tally, Walker, glob_match, list_files

IGNORE = """# build output
build/
*.log
!keep.log
/root_only.py
**/gen/*.py
"""


def make_tree(root):
    files = ["a.py", "root_only.py", "sub/root_only.py", "build/out.py", "sub/build/x.py",
             "debug.log", "keep.log", "sub/gen/g.py", "sub/deep/gen/g.py", "sub/gen/keep/h.py",
             "sub/local.tmp", "sub/ok.py", ".hidden/h.py"]
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (root / ".gitignore").write_text(IGNORE)
    (root / "sub" / ".gitignore").write_text("*.tmp\n")


EXPECTED = [".gitignore", ".hidden/h.py", "a.py", "keep.log", "sub/.gitignore", "sub/gen/keep/h.py",
            "sub/ok.py", "sub/root_only.py"]


def test_walk_honours_gitignore(tmp_path):
    make_tree(tmp_path)
    assert list_files(tmp_path) == EXPECTED


def test_git_work_tree_lists_tracked_and_untracked_not_ignored(tmp_path):
    make_tree(tmp_path)
    git_init(tmp_path)
    (tmp_path / "new.py").write_text("y = 2\n")
    (tmp_path / "new.log").write_text("ignored\n")
    assert list_files(tmp_path) == sorted(EXPECTED + ["new.py"])


def test_symlinks_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    pass\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def a():\n    pass\n")
    os.symlink(outside, repo / "link")
    os.symlink(outside / "secret.py", repo / "s.py")
    os.symlink(repo, repo / "loop")
    assert list_files(repo) == ["a.py"]
    assert "secret" not in run("map", repo).stdout


def test_include_and_exclude_globs():
    assert glob_match("src/app/test_x.py", "test_*.py")
    assert glob_match("src/app/x.py", "src")
    assert glob_match("src/app/x.py", "src/**/*.py")
    assert not glob_match("lib/src/x.py", "/src")
    assert not glob_match("src/app/x.py", "app/*.py")
    assert glob_match("src/app/x.py", "app")


@pytest.mark.parametrize("path, secondary", [
    ("testdata/protoexample/test.pb.go", True), ("internal/testdata/x.go", True), ("tests/test_app.py", True),
    ("docs/guide.md", False), ("docs/conf.py", True), ("src/app.py", False), ("context.go", False)])
def test_secondary_files_by_name(path, secondary):
    from repomap.discover import is_secondary
    assert is_secondary(path) is secondary


def test_walk_agrees_with_git_where_name_and_path_lines_mix(tmp_path):
    """Lines that match a name at any depth and lines that match a path are tested apart;
    the last matching line must still decide, and a deeper .gitignore win, as in git."""
    files = ["a.gen", "keep.gen", "src/a.gen", "src/keep.gen", "src/b.gen", "docs/x.gen", "docs/y.txt",
             "out/o.txt", "src/out/o.txt", "lib/out", "lib/z.txt", "lib/z.gen", "t/cache/c.py", "t/c.py"]
    ignores = {".gitignore": "*.gen\n!src/keep.gen\nsrc/b.gen\nout/\ndocs/*\n!y.txt\n!lib/*\n",
               "lib/.gitignore": "z.*\n!z.gen\n", "t/.gitignore": "cache\n!c.py\n"}
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    for name, text in ignores.items():
        (tmp_path / name).write_text(text)
    walked = list_files(tmp_path)
    git_init(tmp_path)
    listed = list_files(tmp_path)
    assert walked == listed
    assert {"src/keep.gen", "docs/y.txt", "lib/z.gen"} <= set(walked)  # a later line of the other kind won
    assert not {"keep.gen", "src/a.gen", "docs/x.gen", "lib/z.txt", "out/o.txt", "t/cache/c.py"} & set(walked)


# Pattern pieces git reads in ways of its own that repomap does not copy: a doubled slash,
# and ** glued to the name before it (x**/y, which git also lets match "xy").
_GLOB_PIECES = ["a", "b", "*", "?", "**", "/", "[ab]", "[!a]", "\\*", ".", "!"]


@pytest.mark.parametrize("seed", range(4))
def test_walk_agrees_with_git_on_generated_ignore_patterns(tmp_path, seed):
    """A walk's .gitignore rules against git's own, on random patterns and trees."""
    import random
    import re
    import subprocess

    rng = random.Random(seed)
    for trial in range(25):
        root = tmp_path / f"t{trial}"
        patterns = ["".join(rng.choice(_GLOB_PIECES) for _ in range(rng.randint(1, 6))) for _ in range(4)]
        patterns = [p for p in patterns if "//" not in p and not re.search(r"[^/]\*\*+/", p)
                    and p.strip("/!") and not p.startswith("#") and "!" not in p[1:]]
        for _ in range(20):
            parts = ["".join(rng.choice("ab.*") for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
            if not {".", ".."} & set(parts):
                path = root.joinpath(*parts)
                if not any(p.is_file() for p in [path, *path.parents]):
                    path.parent.mkdir(parents=True, exist_ok=True)
                    if not path.is_dir():
                        path.write_text("x\n")
        root.mkdir(exist_ok=True)
        (root / ".gitignore").write_text("\n".join(patterns) + "\n")
        walked = list_files(root)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        assert walked == list_files(root), (seed, trial, patterns)


@pytest.mark.parametrize("where", [".gitignore", "exclude"])
def test_ignore_patterns_never_backtrack_without_bound(shop, where):
    """Runs of stars, and stars with letters between them, once took minutes on one file:
    each is matched in time in proportion to the name."""
    evil = ["*" * 26 + "x", "*a" * 30 + "b", "**/a/" * 30 + "b", "a" * 60 + "*" * 40 + "[!y]"]
    (shop / ("a" * 200 + ".py")).write_text("def long_named():\n    pass\n")
    if where == ".gitignore":
        (shop / ".gitignore").write_text("\n".join(evil) + "\n")
        settings = []
    else:
        settings = [arg for pattern in evil for arg in ("--exclude", pattern)]
    result = subprocess.run([sys.executable, "-m", "repomap", "map", str(shop), "--no-cache", "--tokens", "8000", *settings],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "long_named" in result.stdout, result.stderr


def test_a_backwards_range_in_gitignore_matches_nothing(shop):
    (shop / ".gitignore").write_text("[z-a].py\ncart.py\n")
    result = run("map", shop, "--no-cache")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "shop/cart.py" not in result.stdout and "shop/money.py" in result.stdout


def test_an_escaped_trailing_space_in_gitignore_is_kept(tmp_path):
    for name in ("sp.py ", "sp.py"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / ".gitignore").write_text("sp.py\\ \n")
    walked = list_files(tmp_path)
    git_init(tmp_path)
    assert walked == list_files(tmp_path) and "sp.py" in walked and "sp.py " not in walked


def listing(monkeypatch):
    """The folders a walk lists (as opposed to those whose listing it keeps)."""
    listed = []
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(path) or scandir(path))
    return listed


def test_a_kept_walker_sees_every_change_a_fresh_walk_sees(tmp_path):
    """A walker remembers each folder's listing; whatever changed since must show."""
    make_tree(tmp_path)
    age(tmp_path)
    walker, tally = Walker(), Tally()

    def same_as_fresh():
        kept, fresh = Tally(), Tally()
        assert sorted(walker.walk(tmp_path, kept, True)) == sorted(Walker().walk(tmp_path, fresh, True))
        assert kept.ignored == fresh.ignored
        return sorted(walker.walk(tmp_path, tally, True))

    assert same_as_fresh() == EXPECTED
    (tmp_path / "sub" / "new.py").write_text("x = 1\n")  # a file added to a listed folder
    (tmp_path / "a.py").unlink()
    assert "sub/new.py" in same_as_fresh()
    (tmp_path / "sub" / ".gitignore").write_text("*.tmp\nnew.py\n")  # a folder's own rules change
    assert "sub/new.py" not in same_as_fresh()
    (tmp_path / ".gitignore").write_text(IGNORE.replace("build/\n", ""))  # rules from above change
    assert "sub/build/x.py" in same_as_fresh()
    (tmp_path / "sub" / "deeper" / "more").mkdir(parents=True)
    (tmp_path / "sub" / "deeper" / "more" / "m.py").write_text("x = 1\n")
    assert "sub/deeper/more/m.py" in same_as_fresh()
    (tmp_path / "sub" / ".gitignore").unlink()
    assert "sub/local.tmp" in same_as_fresh()


def test_a_walk_is_kept_for_the_next_process_and_lists_only_what_changed(tmp_path, monkeypatch):
    """With load and save (the cache's), a new Walker starts from the last one's listings:
    a folder whose stamp holds is not listed again, and every change still shows."""
    make_tree(tmp_path)
    age(tmp_path)
    stored = {}
    first = Walker(stored.get, lambda part, data: stored.update({part: data}))
    assert sorted(first.walk(tmp_path, Tally(), True)) == EXPECTED
    listed = listing(monkeypatch)
    restored = Walker(stored.get, lambda part, data: stored.update({part: data}))
    assert sorted(restored.walk(tmp_path, Tally(), True)) == EXPECTED
    assert listed == []  # nothing changed: every listing came from the store
    (tmp_path / "sub" / "new.py").write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text(IGNORE.replace("build/\n", ""))  # rules from above change
    again = Walker(stored.get, lambda part, data: stored.update({part: data}))
    kept, fresh = Tally(), Tally()
    walked = sorted(again.walk(tmp_path, kept, True))
    assert walked == sorted(Walker().walk(tmp_path, fresh, True)) and kept.ignored == fresh.ignored
    assert {"sub/new.py", "build/out.py", "sub/build/x.py"} <= set(walked)
    assert sorted(Walker(lambda part: b"not marshal", None).walk(tmp_path, Tally(), True)) == walked  # unusable: walked anew


def test_a_walk_that_finds_no_folder_changed_still_sees_a_gitignore_edited_in_place(tmp_path, monkeypatch):
    """Where no folder changed, the last walk's snapshot answers without listing one; a
    .gitignore rewritten in place leaves its folder's time as it was, and must still count."""
    make_tree(tmp_path)
    age(tmp_path)
    stored, kept = {}, Walker()
    assert sorted(Walker(stored.get, lambda part, data: stored.update({part: data})).walk(tmp_path, Tally(), True)) \
        == sorted(kept.walk(tmp_path, Tally(), True)) == EXPECTED
    listed = listing(monkeypatch)
    tally = Tally()
    assert sorted(Walker(stored.get, None).walk(tmp_path, tally, True)) == EXPECTED and listed == []
    assert tally.ignored == {".gitignore: build/": 2, ".gitignore: *.log": 1, ".gitignore: /root_only.py": 1,
                             ".gitignore: **/gen/*.py": 2, "sub/.gitignore: *.tmp": 1}
    ignore, folder = tmp_path / "sub" / ".gitignore", os.stat(tmp_path / "sub").st_mtime_ns
    ignore.write_text("*.tmp\nok.py\n")
    os.utime(tmp_path / "sub", ns=(folder, folder))  # as a rewrite in place leaves it
    for walker in (kept, Walker(stored.get, None)):
        assert sorted(walker.walk(tmp_path, Tally(), True)) == [f for f in EXPECTED if f != "sub/ok.py"]


def test_a_folder_changed_within_a_clock_tick_is_listed_again(tmp_path):
    """A file added in the same tick as the listing leaves the folder's time as it was; a
    listing made while the folder was that fresh is not trusted."""
    make_tree(tmp_path)
    walker = Walker()
    assert sorted(walker.walk(tmp_path, Tally(), True)) == EXPECTED
    before = os.stat(tmp_path / "sub").st_mtime_ns
    (tmp_path / "sub" / "new.py").write_text("x = 1\n")
    os.utime(tmp_path / "sub", ns=(before, before))  # as a coarse clock would leave it
    assert "sub/new.py" in walker.walk(tmp_path, Tally(), True)


def test_the_next_map_of_a_walked_tree_shows_a_file_added_since(shop, tmp_path):
    """The CLI keeps the walk in its cache; a folder that changed since is listed again."""
    age(shop)
    cache = tmp_path / "cache"
    first = run("map", shop, "--cache-dir", cache)
    assert first.returncode == 0 and "brand_new_helper" not in first.stdout
    (shop / "brand_new.py").write_text("def brand_new_helper():\n    return 1\n")
    (shop / "caller.py").write_text("from brand_new import brand_new_helper\n\nbrand_new_helper()\n")
    second = run("map", shop, "--cache-dir", cache, "--tokens", "4096")
    assert second.returncode == 0 and "def brand_new_helper():" in second.stdout


@pytest.mark.parametrize("in_git", [False, True])
def test_a_virtual_environment_is_left_out_whatever_its_name(tmp_path, in_git):
    """A venv that no ignore file hides (`python -m venv env` writes no .gitignore) would put
    its installed packages in the map; the pyvenv.cfg in its folder gives it away."""
    for name in ["app.py", "env/pyvenv.cfg", "env/lib/python3.11/site-packages/flask/app.py",
                 "tools/env.py", "environment/x.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("def handler():\n    return 1\n")
    if in_git:
        git_init(tmp_path)
    tally = Tally()
    assert list_files(tmp_path, tally) == ["app.py", "environment/x.py", "tools/env.py"]
    assert tally.counts == {"in a virtual environment": 2}
    assert "env/pyvenv.cfg" in list_files(tmp_path, ignore=False)
    mapped = run("map", tmp_path, "--tokens", "200", "--no-cache")
    assert mapped.returncode == 0 and "site-packages" not in mapped.stdout and "app.py" in mapped.stdout
    assert "2 in a virtual environment" in mapped.stderr


def test_a_folder_that_cannot_be_listed_is_named(tmp_path, monkeypatch):
    """A walk that cannot list a folder says which, rather than mapping as if it were empty."""
    (tmp_path / "a.py").write_text("def a():\n    pass\n")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.py").write_text("def b():\n    pass\n")
    real = os.scandir

    def refusing(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", refusing)  # root lists anything, so simulate the refusal
    result = run("map", tmp_path, "--no-cache")
    assert result.returncode == 0 and "def a():" in result.stdout and "def b" not in result.stdout
    assert "warning: could not list locked/: Permission denied; its files are left out" in result.stderr


def test_an_unreadable_gitignore_is_named(tmp_path, monkeypatch):
    from pathlib import Path
    (tmp_path / "a.py").write_text("def a():\n    pass\n")
    (tmp_path / "gen.py").write_text("def gen():\n    pass\n")
    (tmp_path / ".gitignore").write_text("gen.py\n")
    real = Path.read_text

    def refusing(self, *args, **kwargs):
        if self.name == ".gitignore":
            raise PermissionError(13, "Permission denied")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refusing)
    result = run("map", tmp_path, "--no-cache")
    assert result.returncode == 0 and "def gen():" in result.stdout
    assert "warning: could not read .gitignore: Permission denied; nothing it lists is hidden" in result.stderr

