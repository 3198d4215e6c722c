"""Which files of a tree repomap reads: git's view in a work tree, else a walk honouring .gitignore."""

from __future__ import annotations

import errno
import marshal
import os
import re
import stat
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from . import notebooks, paths
from .config import DEFAULTS
from .errors import warn

if TYPE_CHECKING:
    from .watch import Events

LONG_LINE = 1000
SECONDARY_DIRS = {"test", "tests", "testing", "spec", "specs", "__tests__", "vendor", "vendored",
                  "third_party", "thirdparty", "node_modules", "examples", "example", "fixtures",
                  "generated", "gen", "dist", "build", "docs_src", "benchmarks", "bench", "testdata"}
DOC_DIRS = {"docs", "doc"}  # code there is examples; the prose is what docs are for
_CODE_SECONDARY_DIRS = SECONDARY_DIRS | DOC_DIRS
SECONDARY_NAME = re.compile(
    r"(^test_|_test\.|_tests\.|\.test\.|\.spec\.|_spec\.|^conftest\.py$|\.min\.|\.pb\.|_pb2\.|\.generated\.)")




@dataclass
class Tally:
    """Counts of files skipped or worth a word, by reason, for the one stderr summary line."""

    counts: dict[str, int] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)  # files and folders by the .gitignore rule that hid them

    def add(self, reason: str, files: int = 1) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + files

    def hide(self, rule: str, entries: int = 1) -> None:
        self.ignored[rule] = self.ignored.get(rule, 0) + entries

    def merge(self, other: Tally) -> None:
        """Add another tally's counts (one taken in a child process) to these."""
        for reason, files in other.counts.items():
            self.add(reason, files)
        for rule, entries in other.ignored.items():
            self.hide(rule, entries)


@lru_cache(maxsize=1 << 17)  # every path, again after each edit that changes the graph (a chat loop)
def is_secondary(rel: str) -> bool:
    """Tests, vendored, generated and minified files: shown, but ranked lower."""
    parts = rel.lower().split("/")
    folders = SECONDARY_DIRS if parts[-1].endswith((".md", ".markdown")) else _CODE_SECONDARY_DIRS
    # a leading underscore hides a folder from the build (Go's _examples, _test)
    return any(p in folders or p.lstrip("_") in folders for p in parts[:-1]) \
        or bool(SECONDARY_NAME.search(parts[-1]))


def glob_match(rel: str, pattern: str) -> bool:
    """Whether a path or one of its folders matches a glob (gitignore-style: no / means any depth)."""
    regex = _glob(pattern)
    parts = rel.split("/")
    return any(regex.fullmatch("/".join(parts[:i])) for i in range(1, len(parts) + 1))


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern:
    """A glob compiled once: --include is matched against every file (translated each
    time, it is slow on a large tree; bench/RESULTS.md: discover._glob)."""
    return re.compile(_glob_regex(pattern.strip("/"), any_depth="/" not in pattern.rstrip("/")))


def list_files(root: Path, tally: Tally | None = None, ignore: bool = True, walker: Walker | None = None,
               events: Events | None = None) -> list[str]:
    """Repository-relative paths (with /), sorted: git's tracked and untracked-not-ignored
    files in a work tree, else (also for a folder that git ignores) a walk that honours
    .gitignore files (counting in `tally` what each rule hid), less the files of virtual
    environments; with `ignore` false, a walk that lists everything but .git. A `walker` kept
    between calls walks again cheaply, and without a stat of the folders `events` shows unchanged."""
    tally = tally or Tally()
    listed = _git_files(root) if ignore else None
    listed = sorted(set(listed)) if listed else (walker or Walker()).walk(root, tally, ignore, events)
    return _outside_environments(listed, tally) if ignore else listed


def _outside_environments(files: list[str], tally: Tally) -> list[str]:
    """The files not inside a Python virtual environment (a folder holding pyvenv.cfg, named
    anything: `env/`, `.venv-3.11/`), which an ignore file does not always hide: the installed
    packages are not the repository's code, and thousands of their files would outrank it."""
    if "/pyvenv.cfg\0" not in "\0".join(files) + "\0":  # one search, not a test a file
        return files
    inside = tuple(f[:-len("pyvenv.cfg")] for f in files if f.endswith("/pyvenv.cfg"))
    kept = [f for f in files if not f.startswith(inside)]
    tally.add("in a virtual environment", len(files) - len(kept))
    return kept


# Settings that make `git ls-files` run a program, overridden: a repository's own config
# (.git/config, or the one a .git file's gitdir names) is the repository's to write, and
# repomap never runs code from the repository. git-ls-files(1) runs core.fsmonitor;
# hooks and a pager are shut off too, though ls-files with a pipe for output starts neither.
_GIT_SAFE = ("--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def _git_files(root: Path) -> list[str] | None:
    """The files git lists in the work tree `root` is in; None where there is none, or git
    refuses it (a repository another user owns): a warning says so and the folder is walked."""
    if not in_work_tree(root):
        return None
    import subprocess  # only for a work tree: a source archive's walk never starts git

    command = ["git", *_GIT_SAFE, "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError) as exc:
        warn(f"git could not list the work tree ({exc}): walked it instead")
        return None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        warn(f"git refused to list the work tree ({said[0] if said else f'exit {done.returncode}'}): walked it instead")
        return None
    files = [p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p]
    return paths.without_links(str(root), files)


def git_folder(root: Path) -> str | None:
    """The .git folder of the work tree `root` is in, where git lists its files (list_files)
    and keeps there what decides the list (its index, info/exclude); None where there is no
    work tree, or git keeps those elsewhere (GIT_DIR set, a linked work tree's .git file)."""
    if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
        return None
    for folder in (root, *root.parents):
        try:
            mode = os.lstat(os.path.join(folder, ".git")).st_mode
        except OSError:
            continue
        return os.path.join(folder, ".git") if stat.S_ISDIR(mode) else None
    return None


def in_work_tree(root: Path) -> bool:
    """Whether git could see a work tree here: a .git in the folder or above it, or git's
    own variables set. Starting git to be told no costs a warm map of a source archive
    more than its lookup in the cache."""
    if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
        return True
    return any(os.path.lexists(os.path.join(folder, ".git")) for folder in (root, *root.parents))


@dataclass
class Ignore:
    """One .gitignore file, its lines joined into a few regexes: one regex per file instead of
    one per line, since a large tree's walk tests every path against every root line. A
    line without a slash (nor **) matches a name at any depth, so it is tested against the
    entry's name alone, which is short; the others against the path below the file's folder.
    Each regex is its lines in reverse order, each in its own group, so the first alternative
    that matches is the last matching line of its kind; the last matching line decides, as
    in git. A `dir/` line hides only folders, so folders and files have regexes of their own.
    Hand-written, not pathspec: pathspec's regexes backtrack without bound on a pattern a
    repository may hold (bench/RESULTS.md: Ignore patterns), and the patterns here are
    compared with what git itself lists by a generated test (tests/test_discover.py)."""

    base: str  # the folder the file is in ("" or "path/")
    lines: list[tuple[bool, str]]  # (negated, as written) per pattern line
    # (for folders, by name) -> the regex of those lines and each group's line number
    regexes: dict[tuple[bool, bool], tuple[re.Pattern[str], list[int]]]

    def rule(self, rel: str, name: str, is_dir: bool) -> str | None:
        """The line that hides `rel` as "folder/.gitignore: line", "" if one re-includes it,
        None if no line matches."""
        last = -1
        for by_name in (True, False):
            if found := self.regexes.get((is_dir, by_name)):
                regex, numbers = found
                match = regex.fullmatch(name) if by_name else regex.fullmatch(rel, len(self.base))
                if match:
                    last = max(last, numbers[match.lastindex - 1])
        if last < 0:
            return None
        negated, written = self.lines[last]
        return "" if negated else f"{self.base}.gitignore: {written}"


# A folder (or .gitignore) changed less than this long ago may change again without its
# modification time moving (file systems keep it to a clock tick, FAT to 2 s), so its listing
# is not trusted on the next walk, as git treats its "racily clean" entries.
RACY_NS = 2_000_000_000


@dataclass
class _Listed:
    """What one folder gave a walk: good while the folder (its stamp: its entries' modification
    time, its inode), its .gitignore and the rules from above are the same."""

    stamp: int  # the folder's _folder_stamp: adding, removing or renaming an entry moves it; -1: never good
    ignore_stamp: tuple[int, int] | None  # its .gitignore's (modification time, size)
    ignore: Ignore | None
    above: tuple[Ignore, ...]  # the rules that applied from above
    files: list[str]
    hidden: list[str]  # for each entry a rule hid, that rule
    folders: list[tuple[str, str]]  # (path, relative path/) of each folder to visit

    def still_valid(self, folder: str, stamp: int, above: tuple[Ignore, ...], events: Events | None) -> bool:
        """Whether this listing is still the folder's, now that it has this modification time
        and these rules from above (the very same objects: a changed .gitignore is a new one)."""
        ignore = os.path.join(folder, ".gitignore") if self.ignore else None
        return self.stamp == stamp != -1 and len(self.above) == len(above) \
            and all(a is b for a, b in zip(self.above, above)) \
            and (ignore is not None and events is not None and events.unchanged_file(ignore)
                 or self.ignore_stamp == _stamp(ignore))


class Walker:
    """A walk that honours .gitignore files and remembers what it found, so the next walk of
    the same tree (a chat loop's next turn) stats folders instead of listing them and matching
    their entries again. Where no folder changed at all, the last walk's Snapshot answers with
    one stat a folder; else each folder whose listing holds is not listed again. With `load`
    and `save` (the cache's), the next process does too (bench/RESULTS.md: discover.Walker)."""

    def __init__(self, load: Callable[[str], bytes | None] | None = None,
                 save: Callable[[str, bytes], None] | None = None):
        """`load(part)` and `save(part, data)` keep the "snapshot" and the "listings"."""
        self._listed: dict[str, _Listed] = {}
        self._snapshot: Snapshot | None = None
        self._load, self._save = load, save  # _load: till the listings are restored

    def detached(self) -> tuple[Walker, dict[str, bytes]]:
        """This walker as a forked child may use it, and what it would store: the stored
        snapshot is read here, and the child neither reads nor stores anything itself (this
        process's SQLite connection is not the child's to use). Without a snapshot that
        holds, it lists every folder."""
        self._restore_snapshot()
        stored: dict[str, bytes] = {}
        child = Walker(None, stored.__setitem__)
        child._snapshot, child._listed = self._snapshot, self._listed
        return child, stored

    def save(self, stored: dict[str, bytes]) -> None:
        """Store what a detached walker would have stored."""
        if self._save is not None:
            for part, data in stored.items():
                self._save(part, data)

    def _restore_snapshot(self) -> None:
        if self._load is not None and self._snapshot is None:  # the first walk: the stored snapshot
            self._snapshot = Snapshot.restored(self._load("snapshot"))

    def walk(self, root: Path, tally: Tally, ignore: bool, events: Events | None = None) -> list[str]:
        """The files found, sorted, with `events`'s folders and files not looked at again."""
        self._restore_snapshot()
        if self._snapshot is not None and self._snapshot.still_valid(events):
            return self._snapshot.found(tally)
        if self._load is not None:
            self._listed = _restored(self._load("listings"), str(root))
            self._load = None
        listed_before = self._listed
        found: list[str] = []
        seen: dict[str, _Listed] = {}
        # (folder, its path relative to the root, the .gitignore files above it, deepest last):
        # a stack, not recursion, since a tree may nest folders deeper than Python recurses
        pending: list[tuple[str, str, tuple[Ignore, ...]]] = [(str(root), "", ())]
        while pending:
            folder, rel, above = pending.pop()
            listed = self._listing(folder, rel, above, ignore, events)
            seen[folder] = listed
            found.extend(listed.files)
            for rule in listed.hidden:
                tally.hide(rule)
            inner = above + (listed.ignore,) if listed.ignore is not None else above
            pending.extend((path, child, inner) for path, child in reversed(listed.folders))
        found.sort()
        self._listed = seen  # folders gone are forgotten
        self._snapshot = Snapshot.of(seen, found)
        if self._save is not None and (len(seen) != len(listed_before)
                                       or any(listed_before.get(k) is not v for k, v in seen.items())):
            self._save("listings", _stored(seen))
            self._save("snapshot", self._snapshot.stored() if self._snapshot else b"")
        return found

    def folders(self) -> dict[str, object]:
        """The folders the last walk looked at (as keys; the same object till the next walk)."""
        return self._snapshot.folders if self._snapshot is not None else self._listed

    def _listing(self, folder: str, rel: str, above: tuple[Ignore, ...], ignore: bool, events: Events | None
                 ) -> _Listed:
        known = self._listed.get(folder)
        try:
            stamp = known.stamp if known is not None and known.stamp != -1 and events is not None \
                and events.unchanged_folder(folder) else _folder_stamp(folder)
        except OSError:
            stamp = -1
        if known is not None and known.still_valid(folder, stamp, above, events):
            return known
        try:
            entries = list(os.scandir(folder))  # unsorted: the list is sorted once at the end
        except OSError as exc:
            warn(f"could not list {rel or '.'}: {exc.strerror}; its files are left out")
            entries = []
        gitignore = next((e for e in entries if ignore and e.name == ".gitignore"
                          and e.is_file(follow_symlinks=False)), None)
        own = _parse_gitignore(Path(gitignore.path), rel) if gitignore is not None else None
        ignore_stamp = _stamp(gitignore.path) if gitignore else None
        if time.time_ns() - max(stamp & _MTIME, ignore_stamp[0] if ignore_stamp else 0) < RACY_NS:
            stamp = -1
        listed = _Listed(stamp, ignore_stamp, own, above, [], [], [])
        active = [*above, own] if own else above
        for entry in entries:
            child = f"{rel}{entry.name}"
            if entry.name == ".git" or entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            rule = _ignored(child, entry.name, is_dir, active)
            if rule:
                listed.hidden.append(rule)
            elif is_dir:
                listed.folders.append((entry.path, child + "/"))
            elif entry.is_file(follow_symlinks=False):
                listed.files.append(child)
        return listed


@dataclass
class Snapshot:
    """What a whole walk found, good while no folder in it has changed (its stamp) and no
    .gitignore in it has: checked by one stat each, without the listings or their rules."""

    folders: dict[str, int]  # each folder's _folder_stamp
    ignores: dict[str, tuple[int, int] | None]  # each .gitignore's _stamp
    files: list[str]
    hidden: dict[str, int]  # entries hidden, by rule

    @classmethod
    def of(cls, listed: dict[str, _Listed], files: list[str]) -> Snapshot | None:
        """None where a folder's listing is not trusted (changed within a clock tick)."""
        if any(entry.stamp == -1 for entry in listed.values()):
            return None
        hidden: dict[str, int] = {}
        for entry in listed.values():
            for rule in entry.hidden:
                hidden[rule] = hidden.get(rule, 0) + 1
        return cls({folder: entry.stamp for folder, entry in listed.items()},
                   {os.path.join(folder, ".gitignore"): entry.ignore_stamp
                    for folder, entry in listed.items() if entry.ignore is not None}, list(files), hidden)

    def still_valid(self, events: Events | None = None) -> bool:
        """Whether no folder or .gitignore changed: those `events` shows unchanged are not looked at
        (where it shows every folder of the last look unchanged, which this snapshot's were, and
        no event named a .gitignore, none is)."""
        if events is not None and events.listing_unchanged():
            return True
        folder_unchanged, file_unchanged = (events.unchanged_folder, events.unchanged_file) if events is not None else ((lambda path: False),) * 2
        try:
            return all(folder_unchanged(folder) or _folder_stamp(folder) == stamp
                       for folder, stamp in self.folders.items()) \
                and all(file_unchanged(path) or _stamp(path) == stamp for path, stamp in self.ignores.items())
        except OSError:
            return False

    def found(self, tally: Tally) -> list[str]:
        for rule, count in self.hidden.items():
            tally.hide(rule, count)
        return list(self.files)

    def stored(self) -> bytes:
        return marshal.dumps((self.folders, self.ignores, self.files, self.hidden))

    @classmethod
    def restored(cls, data: bytes | None) -> Snapshot | None:
        """The snapshot `stored` gave; None if the data is not such."""
        try:
            parts = marshal.loads(data) if data else None
            shapes = [dict, dict, list, dict]
            if isinstance(parts, tuple) and len(parts) == 4 and all(map(isinstance, parts, shapes)):
                return cls(*parts)
        except (ValueError, TypeError, EOFError):
            pass
        return None


def _stored(listed: dict[str, _Listed]) -> bytes:
    """Listings as the next process restores them: their rules as written, not compiled."""
    return marshal.dumps({folder: (entry.stamp, entry.ignore_stamp,
                                   [written for _, written in entry.ignore.lines] if entry.ignore else None,
                                   entry.files, entry.hidden, entry.folders)
                          for folder, entry in listed.items() if entry.stamp != -1})


def _restored(data: bytes | None, root: str) -> dict[str, _Listed]:
    """The listings `_stored` gave, with each folder's rules from above rebuilt from its
    parents (the same objects, as `_Listed.holds` wants); none if the data is not such."""
    try:
        stored = marshal.loads(data) if data else {}
        restored: dict[str, _Listed] = {}
        pending = [(root, "", ())]
        while pending:
            folder, rel, above = pending.pop()
            if folder not in stored:
                continue
            stamp, ignore_stamp, lines, files, hidden, folders = stored[folder]
            own = _ignore_rules(lines, rel) if lines is not None else None
            restored[folder] = _Listed(stamp, tuple(ignore_stamp) if ignore_stamp else None, own, above,
                                       files, hidden, [tuple(pair) for pair in folders])
            pending.extend((path, child, above + (own,) if own else above) for path, child in folders)
        return restored
    except (ValueError, TypeError, EOFError):
        return {}


_MTIME = (1 << 64) - 1  # a _folder_stamp's modification time


def _folder_stamp(folder: str) -> int:
    """A folder's modification time (ns) with its inode number above it: two folders changed
    within a clock tick have the same time, and one may be renamed to the other's path."""
    info = os.stat(folder)
    return info.st_ino << 64 | info.st_mtime_ns & _MTIME


def _stamp(path: str | None) -> tuple[int, int] | None:
    """A file's (modification time, size), None when there is no such file."""
    try:
        info = os.stat(path) if path else None
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size) if info else None


def _parse_gitignore(path: Path, base: str) -> Ignore:
    """A .gitignore file in folder `base`; an unreadable one hides nothing, and says so."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        warn(f"could not read {base}.gitignore: {exc.strerror}; nothing it lists is hidden")
        text = []
    return _ignore_rules(text, base)


def _unpadded(line: str) -> str:
    """A .gitignore line less its trailing spaces, but for one escaped with a backslash."""
    stripped = line.rstrip()
    slashes = len(stripped) - len(stripped.rstrip("\\"))
    return stripped + " " if slashes % 2 and line[len(stripped):].startswith(" ") else stripped


def _ignore_rules(text: list[str], base: str) -> Ignore:
    """The rules of a .gitignore's lines, in folder `base`."""
    lines: list[tuple[bool, str]] = []
    groups: dict[tuple[bool, bool], list[tuple[str, int]]] = {}
    for line in text:
        line = written = _unpadded(line)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        by_name = "/" not in line
        regex = _glob_regex(line.lstrip("/"))
        try:
            re.compile(regex)
        except re.error:  # a range backwards ([z-a]): git matches nothing with it
            continue
        for is_dir in (True, False) if not dir_only else (True,):
            groups.setdefault((is_dir, by_name), []).append((regex, len(lines)))
        lines.append((negated, written))
    regexes = {key: (re.compile("|".join(f"({regex})" for regex, _ in reversed(group))),
                     [number for _, number in reversed(group)]) for key, group in groups.items()}
    return Ignore(base, lines, regexes)


def _glob_regex(pattern: str, any_depth: bool = False) -> str:
    """A gitignore glob as a regex (`any_depth`: below any folder, as a pattern without a
    slash is), in git's sense: * and ? stop at /, a ** component crosses folders, and other
    runs of * are one *. Written so that matching never backtracks without bound, whatever
    the pattern (a .gitignore and --exclude are the repository's or the user's to write):
    between two *, the first place the piece in between matches is the right one, and
    between two ** components, the first folder the components in between match at; each is
    an atomic group, so a failed match never tries the others. A last piece, anchored at the
    end, is tried at each place once."""
    groups: list[list[str]] = [[]]  # the components between ** components
    parts = [part for part in pattern.split("/") if part]
    for k, part in enumerate(parts):
        if len(part) > 1 and part.strip("*") == "":  # *** is ** too
            groups.append([])
            continue
        groups[-1].append(_component_regex(part))
        if part.endswith("**") and k + 1 < len(parts):  # x**/ is x*/**/ (git also lets it match nothing)
            groups.append([])
    if any_depth and groups[0]:
        groups.insert(0, [])
    first, *middle, last = groups if len(groups) > 1 else groups * 2
    if len(groups) == 1:
        return "/".join(first)
    out = "/".join(first) + "/" if first else ""
    out += "".join(f"(?>(?:[^/]*/)*?{'/'.join(group)}/)" for group in middle if group)
    return out + ("(?:[^/]*/)*" + "/".join(last) if last else ".*")


def _component_regex(part: str) -> str:
    """One component of a glob (no /) as an atomic regex that ends where the component does."""
    pieces: list[list[str]] = [[]]  # what stands between the *s: fixed-length runs
    i = 0
    while i < len(part):
        char = part[i]
        if char == "*":
            pieces.append([])
        elif char == "?":
            pieces[-1].append("[^/]")
        elif char == "[" and "]" in part[i + 2:]:
            end = part.index("]", i + 2)
            body = part[i + 1:end]
            negated = body[:1] in ("!", "^")
            body = "".join(c if c == "-" else re.escape(c) for c in body[negated:])
            pieces[-1].append(f"[^/{body}]" if negated else f"[{body}]")
            i = end
        elif char == "\\" and i + 1 < len(part):
            i += 1
            pieces[-1].append(re.escape(part[i]))
        else:
            pieces[-1].append(re.escape(char))
        i += 1
    if len(pieces) == 1:
        return "".join(pieces[0])
    first, *middle, last = ("".join(piece) for piece in pieces)
    return f"(?>{first}" + "".join(f"(?>[^/]*?{piece})" for piece in middle if piece) + f"[^/]*{last}(?![^/]))"


def _ignored(rel: str, name: str, is_dir: bool, rules: Sequence[Ignore]) -> str:
    """The rule that hides `rel` ("" if none does), as "folder/.gitignore: line": the
    deepest .gitignore with a matching line decides."""
    for ignore in reversed(rules):
        rule = ignore.rule(rel, name, is_dir)
        if rule is not None:
            return rule
    return ""


def read_source(path: Path | str, max_file_size: int = DEFAULTS["max_file_size"]) -> tuple[bytes | None, str]:
    """The file's source (its bytes, or a notebook's source view: notebooks.source_of), or None
    and why not: behind a link, unreadable, too large, binary, minified, or a notebook that is
    none. `path` is the resolved root joined with a relative path (paths.open_source)."""
    try:
        fd = paths.open_source(os.fspath(path))
    except OSError as exc:
        return None, "behind a symbolic link" if exc.errno == errno.ELOOP else "unreadable"
    with open(fd, "rb") as file:
        try:
            data = file.read(max_file_size + 1)
        except OSError:
            return None, "unreadable"
    if len(data) > max_file_size:
        return None, "too large"
    try:
        data = notebooks.source_of(os.fspath(path), data)
    except ValueError as exc:
        return None, str(exc)
    if b"\0" in data[:8192]:
        return None, "binary"
    lines = data.splitlines()
    if sum(1 for line in lines if len(line) > LONG_LINE) * 2 > len(lines):
        return None, "minified (long lines)"
    return data, ""
