"""A RepoMap kept between calls (watched: watch.py) against a fresh one after each of many
random changes to a small tree, with and without git: the two maps must be the same.

Each kind of change comes once, in an order of the seed's, then changes are drawn at random.
The CI run is short; for a longer one set REPOMAP_WATCH_STEPS=5000 (and REPOMAP_WATCH_SEED
to another number). A failure names the seed, the step and the steps so far.
"""

import difflib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import git
from repomap import RepoMap

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not os.path.exists("/proc/self"),
                                reason="inotify is Linux's")

STEPS = int(os.environ.get("REPOMAP_WATCH_STEPS", "60"))
SEED = int(os.environ.get("REPOMAP_WATCH_SEED", "20240048"))
SHOWN = 60  # the last steps a failure lists


class Tree:
    """The tree changed at random: `top` (a git work tree in the git variant) holds the
    mapped root `repo`, so that a .gitignore above the root applies; `outside` holds hard
    links to files of the root."""

    def __init__(self, base: Path, rng: random.Random, in_git: bool):
        self.top, self.root, self.outside = base / "top", base / "top" / "repo", base / "outside"
        self.rng, self.in_git, self.made = rng, in_git, 0
        self.links: list[tuple[Path, Path]] = []  # (outside path, the root's path it was linked to)
        # What a step changed gets a modification time far in the past, the same for all it
        # changed (as a coarse clock gives) and later than any before: a folder changed
        # within a clock tick is not trusted (discover.RACY_NS), and aging the whole tree
        # would make an event for every path, so nothing would be trusted.
        self.clock = os.stat(base).st_mtime_ns - 10**13
        self.since = self.clock + 10**12  # a time no aged path reaches
        for folder in (self.root / "a" / "sub", self.root / "b", self.root / "c" / "sub", self.outside):
            folder.mkdir(parents=True)
        for folder in ("", "a", "a/sub", "b", "c", "c/sub"):
            for _ in range(2):
                self.write(self.root / folder / self.name())
        if in_git:
            subprocess.run(["git", "init", "-q", str(self.top)], check=True)
            self.commit()
        self.age()

    def name(self) -> str:
        self.made += 1
        return f"m{self.made}.py"

    def write(self, path: Path) -> None:
        """A file defining a function named after it and a version: every write shows."""
        self.made += 1
        path.write_text(f"def {path.stem.replace('.', '_')}_v{self.made:06d}():\n    pass\n")

    def age(self) -> None:
        """Every path changed since the last age gets the next time."""
        paths = [self.top, self.top / ".gitignore"]
        for folder, folders, files in os.walk(self.root):
            folders[:] = sorted(name for name in folders if name != ".git")
            paths += [Path(folder), *(Path(folder) / name for name in sorted(files))]
        self.clock += 1000
        for path in paths:
            try:
                changed = os.lstat(path).st_mtime_ns > self.since
            except FileNotFoundError:
                continue
            if changed:
                os.utime(path, ns=(self.clock, self.clock), follow_symlinks=False)

    def folders(self) -> list[Path]:
        found = []
        for folder, folders, _ in os.walk(self.root):
            folders[:] = sorted(name for name in folders if name != ".git")
            found.append(Path(folder))
        return found

    def files(self) -> list[Path]:
        return sorted(p for folder in self.folders() for p in folder.iterdir() if p.is_file() and p.name != ".git")

    def pick(self, paths: list[Path]) -> Path | None:
        return self.rng.choice(paths) if paths else None

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.top))

    def commit(self) -> None:
        git(self.top, "add", "-A")
        git(self.top, "commit", "-q", "-m", f"at {self.made}")

    # The steps: each changes the tree and says what it did.

    def create(self) -> str:
        path = self.pick(self.folders()) / self.name()
        self.write(path)
        return f"create {self.rel(path)}"

    def delete(self) -> str:
        path = self.pick(self.files())
        if path is None:
            return "delete: no file"
        path.unlink()
        return f"delete {self.rel(path)}"

    def edit(self) -> str:
        path = self.pick([p for p in self.files() if p.suffix == ".py"])
        if path is None:
            return "edit: no file"
        self.write(path)
        return f"edit {self.rel(path)}"

    def edit_keeping_mtime(self) -> str:
        """Same size, and the modification time put back: only the change time moved."""
        path = self.pick([p for p in self.files() if p.suffix == ".py"])
        if path is None:
            return "edit keeping mtime: no file"
        before = os.stat(path)
        self.write(path)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return f"edit {self.rel(path)} keeping its mtime"

    def atomic_save(self) -> str:
        path = self.pick([p for p in self.files() if p.suffix == ".py"])
        if path is None:
            return "atomic save: no file"
        temp = path.with_name(f".{path.name}.tmp")
        self.write(temp)
        os.replace(temp, path)
        return f"atomic save of {self.rel(path)}"

    def mass_edit(self) -> str:
        paths = [p for p in self.files() if p.suffix == ".py"]
        chosen = self.rng.sample(paths, len(paths) // 2)
        for path in chosen:
            self.write(path)
        return f"mass edit of {len(chosen)} files"

    def make_folder(self) -> str:
        path = self.pick(self.folders()) / f"d{self.made}"
        (path / "inner").mkdir(parents=True)
        self.write(path / self.name())
        self.write(path / "inner" / self.name())
        return f"make folder {self.rel(path)}"

    def copy_folder(self) -> str:
        """A copy beside the folder, its files edited: the same paths below two folders."""
        path = self.pick(self.folders()[1:])
        if path is None:
            return "copy folder: none"
        copy = path.with_name(f"copy{self.made}")
        shutil.copytree(path, copy)
        for folder, _, files in os.walk(copy):
            for name in files:
                if name.endswith(".py"):
                    self.write(Path(folder) / name)
        return f"copy folder {self.rel(path)} to {copy.name}, its files edited"

    def remove_folder(self) -> str:
        path = self.pick(self.folders()[1:])
        if path is None:
            return "remove folder: none"
        shutil.rmtree(path)
        return f"remove folder {self.rel(path)}"

    def swap_folders(self) -> str:
        """mv x t; mv y x; mv t y"""
        folders = self.folders()[1:]
        self.rng.shuffle(folders)
        for x in folders:
            for y in folders:
                if x != y and x not in y.parents and y not in x.parents:
                    temp = x.parent / f"t{self.made}"
                    self.made += 1
                    x.rename(temp)
                    y.rename(x)
                    temp.rename(y)
                    return f"swap folders {self.rel(x)} and {self.rel(y)}"
        return "swap folders: no two"

    def rename_and_recreate(self) -> str:
        """mv pkg moved; mkdir -p pkg/sub, with a new file in it."""
        path = self.pick(self.folders()[1:])
        if path is None:
            return "rename and recreate: no folder"
        inner = sorted(p.name for p in path.iterdir() if p.is_dir()) or ["sub"]
        moved = path.with_name(f"moved{self.made}")
        self.made += 1
        path.rename(moved)
        (path / inner[0]).mkdir(parents=True)
        self.write(path / inner[0] / self.name())
        return f"rename {self.rel(path)} to {moved.name} and make {inner[0]}/ in it again"

    def file_to_folder(self) -> str:
        path = self.pick(self.files())
        if path is None:
            return "file to folder: no file"
        path.unlink()
        path.mkdir()
        self.write(path / self.name())
        return f"file {self.rel(path)} made a folder"

    def folder_to_file(self) -> str:
        path = self.pick(self.folders()[1:])
        if path is None:
            return "folder to file: no folder"
        shutil.rmtree(path)
        self.write(path)
        return f"folder {self.rel(path)} made a file"

    def patterns(self) -> str:
        names = [p.name for p in self.files() + self.folders()[1:]]
        picked = self.rng.sample(names, min(len(names), self.rng.randint(0, 2)))
        lines = [self.rng.choice(["", "/", "!"]) + name + self.rng.choice(["", "/"]) for name in picked]
        return "".join(f"{line}\n" for line in lines + self.rng.sample(["*.tmp", "m1*.py", "d*/"], 1))

    def ignore_inside(self) -> str:
        path = self.pick(self.folders()) / ".gitignore"
        if path.is_dir():  # a file made a folder
            return f"{self.rel(path)}: a folder"
        if self.rng.random() < 0.25:
            path.unlink(missing_ok=True)
            return f"remove {self.rel(path)}"
        text = self.patterns()
        path.write_text(text)
        return f"{self.rel(path)}: {text!r}"

    def ignore_above(self) -> str:
        path = self.top / ".gitignore"
        if self.rng.random() < 0.25:
            path.unlink(missing_ok=True)
            return "remove the .gitignore above the root"
        text = self.patterns() + self.rng.choice(["", "repo/a/\n", "repo/b/*.py\n"])
        path.write_text(text)
        return f"the .gitignore above the root: {text!r}"

    def hard_link(self) -> str:
        """A new file of the root linked from outside it, or one from outside linked in."""
        inside = self.pick(self.folders()) / self.name()
        outside = self.outside / f"x{self.made}.py"
        if self.rng.random() < 0.5:
            self.write(inside)
            os.link(inside, outside)
        else:
            self.write(outside)
            os.link(outside, inside)
        self.links.append((outside, inside))
        return f"hard link {self.rel(inside)} from outside"

    def edit_through_link(self) -> str:
        """A write through a path outside the root, in place: no event on the root's folders.
        Its modification time is put back or aged through that path as well (aging it
        through the root's path would make an event)."""
        linked = [(outside, inside) for outside, inside in self.links
                  if inside.is_file() and os.path.samefile(outside, inside)]
        if not linked:
            return "edit through a link: none"
        outside, inside = self.rng.choice(linked)
        before = os.stat(outside).st_mtime_ns
        with open(outside, "r+") as file:
            file.write(f"def {inside.stem}_v{self.made:06d}():\n    pass\n")
        self.made += 1
        self.clock += 1000
        then = self.rng.choice([before, self.clock])
        os.utime(outside, ns=(then, then))
        return f"edit {self.rel(inside)} through its link outside"

    def git_commit(self) -> str:
        self.commit()
        return "git commit -a"

    def git_checkout(self) -> str:
        commits = git(self.top, "rev-list", "--all").stdout.split()
        if not commits:
            return "git checkout: no commit"
        commit = self.rng.choice(commits)
        git(self.top, "checkout", "-q", "-f", commit)
        return f"git checkout -f {commit[:8]}"

    def git_stash(self) -> str:
        if self.rng.random() < 0.5:
            git(self.top, "stash", "-q", *self.rng.choice([[], ["-u"]]))
            return "git stash"
        git(self.top, "stash", "pop", "-q")
        return "git stash pop"

    def steps(self) -> list:
        plain = [self.create, self.delete, self.edit, self.edit, self.edit_keeping_mtime, self.atomic_save,
                 self.mass_edit, self.make_folder, self.copy_folder, self.remove_folder, self.swap_folders,
                 self.swap_folders, self.rename_and_recreate, self.rename_and_recreate, self.file_to_folder,
                 self.folder_to_file, self.ignore_inside, self.ignore_above, self.hard_link, self.edit_through_link,
                 self.edit_through_link]
        return plain + ([self.git_commit, self.git_checkout, self.git_stash] if self.in_git else [])


def seen(repo: RepoMap):
    result = repo.build()
    return result.text, result.ranked_files


def watched(tree: Tree) -> RepoMap:
    kept = RepoMap(tree.root, tokens=100_000, use_cache=False)
    for _ in range(3):  # the second look starts the watch, the third is watched throughout
        kept.build()
    return kept


def same_as_fresh(tree: Tree, kept: RepoMap) -> None:
    tree.age()
    assert seen(kept) == seen(RepoMap(tree.root, tokens=100_000, use_cache=False))


@pytest.mark.parametrize("in_git", [False, True])
def test_folders_swapped_are_looked_at_again_with_every_folder_below(tmp_path, in_git):
    """mv a t; mv x a; mv t x, where x is a copy of a (the same paths below both), and
    where a folder moves away and another is made in its place with the same folder inside."""
    tree = Tree(tmp_path, random.Random(0), in_git)
    root = tree.root
    shutil.copytree(root / "a", root / "x")
    for path in sorted((root / "x").rglob("*.py")):
        tree.write(path)
    kept = watched(tree)
    same_as_fresh(tree, kept)
    (root / "a").rename(root / "t")
    (root / "x").rename(root / "a")
    (root / "t").rename(root / "x")
    same_as_fresh(tree, kept)
    (root / "b").rename(root / "t")  # changed as c was, within the same clock tick
    (root / "c").rename(root / "b")
    (root / "t").rename(root / "c")
    same_as_fresh(tree, kept)
    (root / "c").rename(root / "moved")
    (root / "c" / "sub").mkdir(parents=True)
    tree.write(root / "c" / "sub" / "new.py")
    same_as_fresh(tree, kept)
    tree.write(root / "x" / "sub" / "edited.py")  # the folders are watched again, at their new paths
    same_as_fresh(tree, kept)
    kept.close()


def test_a_new_process_sees_folders_swapped_that_changed_within_the_same_clock_tick(tmp_path):
    """The walk's listings, stored in the cache, are checked by each folder's stamp."""
    tree = Tree(tmp_path, random.Random(0), in_git=False)
    root, cache = tree.root, tmp_path / "cache"
    RepoMap(root, tokens=100_000, cache_dir=cache).build()
    assert os.stat(root / "b").st_mtime_ns == os.stat(root / "c").st_mtime_ns
    (root / "b").rename(root / "t")
    (root / "c").rename(root / "b")
    (root / "t").rename(root / "c")
    tree.age()
    assert seen(RepoMap(root, tokens=100_000, cache_dir=cache)) == seen(RepoMap(root, tokens=100_000, use_cache=False))


def test_a_gitignore_above_the_root_is_looked_at_each_time(tmp_path):
    tree = Tree(tmp_path, random.Random(0), in_git=True)
    for folder in ("b", "c"):  # not tracked: git lists them unless ignored
        tree.write(tree.root / folder / "untracked.py")
    kept = watched(tree)
    same_as_fresh(tree, kept)
    (tree.top / ".gitignore").write_text("repo/b/\n")
    same_as_fresh(tree, kept)
    (tree.top / ".gitignore").write_text("repo/c/\n")
    same_as_fresh(tree, kept)
    kept.close()


@pytest.mark.parametrize("in_git", [False, True])
def test_a_file_with_two_names_is_looked_at_each_time(tmp_path, in_git):
    """A write through a name outside the root, or another name inside it, makes no event
    for this one."""
    tree = Tree(tmp_path, random.Random(0), in_git)
    root, outside = tree.root, tree.outside / "linked.py"
    tree.write(root / "b" / "linked.py")
    os.link(root / "b" / "linked.py", outside)
    tree.links.append((outside, root / "b" / "linked.py"))
    kept = watched(tree)
    same_as_fresh(tree, kept)
    for _ in range(3):
        tree.edit_through_link()
        same_as_fresh(tree, kept)
    twin = root / "c" / "twin.py"
    os.link(min((root / "a" / "sub").iterdir()), twin)
    same_as_fresh(tree, kept)  # a new second name: the other may be any file
    before = os.stat(twin).st_mtime_ns
    with open(twin, "r+") as file:  # an event names the twin only
        file.write("def twin_edited():\n")
    os.utime(twin, ns=(before, before))
    same_as_fresh(tree, kept)
    kept.close()


@pytest.mark.long
@pytest.mark.parametrize("in_git", [False, True])
def test_a_kept_repomap_maps_as_a_fresh_one_after_random_changes(tmp_path, in_git):
    seed = SEED + in_git
    tree = Tree(tmp_path, random.Random(seed), in_git)
    kept = watched(tree)
    done: list[str] = []
    steps = tree.steps()
    kinds = tree.rng.sample(list(dict.fromkeys(steps)), len(set(steps)))  # each kind once, first
    try:
        for number in range(1, STEPS + 1):
            done.append((kinds[number - 1] if number <= len(kinds) else tree.rng.choice(steps))())
            tree.age()
            text, files = seen(kept)
            fresh_text, fresh_files = seen(RepoMap(tree.root, tokens=100_000, use_cache=False))
            if (text, files) != (fresh_text, fresh_files):
                listed = "\n".join(f"  {n}. {step}" for n, step in enumerate(done, 1))
                listed = "\n".join(listed.splitlines()[-SHOWN:])
                diff = "\n".join(difflib.unified_diff(fresh_text.splitlines(), text.splitlines(), "fresh", "kept",
                                                      lineterm=""))
                pytest.fail(f"the kept map is not the fresh one after step {number} of seed {seed} "
                            f"({'git' if in_git else 'no git'}); the steps so far (the last {SHOWN}):\n"
                            f"{listed}\nfiles kept: {files}\nfiles fresh: {fresh_files}\n{diff}")
    finally:
        kept.close()
