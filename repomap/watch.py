"""Which files and folders may have changed since the last look at a repository, as Linux
tells it (inotify), so that a RepoMap kept between calls (a chat loop, the MCP server) stats
only those: a look at every folder and file is much of what a kept RepoMap spends to map a
large tree again after an edit (bench/RESULTS.md: watch).

A folder is trusted once it was watched through a whole look: any change to its entries, or
to a file in it, after that look's stat of it makes an event. Where one may have been lost
(the queue overflowed, a watch ended, a folder moved with the watches below it) or nothing
is trusted yet, the look stats as ever. A file with more than one name is stat'ed on every
look (a write through another name makes no event here), and so are the .gitignore files
above the root that git reads. Changes that make no event are not seen: a write through a
memory map, by another machine on a network file system (only local file systems are
watched: _LOCAL), through a name given to a file from outside the repository after the look
that last stat'ed it, to a .gitignore through another name, or to git's global excludes file
(core.excludesFile), which decides what git lists in a work tree as well.
"""

from __future__ import annotations

import errno
import os
import struct
import weakref
from dataclasses import dataclass
from typing import Callable

from .discover import Tally

# inotify(7)
_MODIFY, _ATTRIB, _MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x2, 0x4, 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF, _UNMOUNT, _OVERFLOW, _IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
_ISDIR = 0x40000000
_ENTRIES = _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE
_GONE = _DELETE_SELF | _MOVE_SELF | _UNMOUNT | _IGNORED
_MASK = _MODIFY | _ATTRIB | _ENTRIES | _DELETE_SELF | _MOVE_SELF | 0x1000000 | 0x2000000 | 0x4000000  # ONLYDIR,
# DONT_FOLLOW, EXCL_UNLINK
_NONBLOCK_CLOEXEC = os.O_NONBLOCK | os.O_CLOEXEC
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows
# statfs(2)'s f_type of the file systems whose every change makes an event here: ext2-4,
# xfs, btrfs, tmpfs, overlayfs (containers), f2fs, zfs. Not NFS, CIFS, FUSE or 9p (WSL's
# Windows drives), where a change made elsewhere makes none.
_LOCAL = {0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0x794C7630, 0xF2F52010, 0x2FC12FC1}


@dataclass
class Look:
    """What a look found: the files listed and what listing them tallied, the stamps of
    those wanted and what stamping them tallied, and the folders to watch: those of the
    files and those walked (`walked`, discover.Walker.folders, the same object till the
    next walk)."""

    files: list[str]
    listing: Tally
    stamps: dict[str, tuple[int, int]]
    tally: Tally
    folders: set[str]
    walked: dict


@dataclass
class Events:
    """What the events since the last look leave as it found them (paths as the look's:
    the root, then "/"-joined names)."""

    trusted: set[str]
    named: set[str]
    moved: set[str]
    whole: bool  # every folder of the last look is trusted: only the files named may have changed
    linked: set[str]  # files with more than one name: a write through another makes no event here

    def unchanged_folder(self, path: str) -> bool:
        """Its entries (and its .gitignore's place among them) are as they were."""
        return path in self.trusted and path not in self.moved and path not in self.named

    def unchanged_file(self, path: str) -> bool:
        return path not in self.named and path not in self.linked and os.path.dirname(path) in self.trusted

    def listing_unchanged(self, git: str | None = None) -> bool:
        """Whether the files listed are the last look's: every folder of it was watched, no
        folder's entries changed, and no event named a .gitignore, or a file in `git` (the
        work tree's .git folder: its index and info/exclude decide what git lists)."""
        return self.whole and not self.moved and not any(
            path.endswith("/.gitignore") or git is not None and path.startswith(git + "/") for path in self.named)


class Watch:
    """The folders of a repository's last look, watched from the look after the first (a
    RepoMap looked at only once is a command's: watching would only cost it)."""

    def __init__(self, root: str):
        self.root = root
        self.last: Look | None = None
        self._looks = 0
        self._libc = None
        self._fd: int | None = None
        self._closer: weakref.finalize | None = None
        self._folders: dict[str, int] = {}  # watched folder -> its watch descriptor
        self._of: dict[int, str] = {}  # and back
        self._trusted: set[str] = set()  # folders watched through the whole last look
        self._watched: set[str] = set()  # folders watched as this look began
        self._named: set[str] = set()  # paths events named since the last look began
        self._moved: set[str] = set()  # folders whose entries (or the folder itself) changed since
        self._whole = False  # every folder of the last look was trusted as it ended
        self._linked: set[str] = set()  # files the last look found with more than one name
        self._partial = False  # this look trusts some folders
        self._above: dict[str, object] = {}  # the .gitignore files git reads above the root: their stamps

    def begin(self) -> Events | None:
        """Start a look: what it need not look at again, or None where it must look at all."""
        self._looks += 1
        if self._looks == 2:
            self._open()
        if self._fd is None:
            return None
        self._read()
        above = {path: _stamp(path) for path in self._above}  # no event tells of these
        trusted = self._trusted and above == self._above
        self._above = above
        events = Events(self._trusted, self._named, self._moved, self._whole, self._linked) if trusted else None
        self._partial = events is not None
        self._watched = set(self._folders)
        self._named, self._moved = set(), set()  # what changes from here on, the next look looks at
        return events

    def restamped(self, events: Events | None, files: list[str], stamp: Callable[[list[str]], dict]
                  ) -> tuple[dict[str, tuple[int, int]], Tally] | None:
        """Where the files listed now are the last look's and its folders were all watched
        through it (`events`), its stamps with those of the files events named made again by
        stamp(their paths), and what it tallied: a stat of every file is what this saves.
        None where that does not hold, or one of them cannot be stamped now."""
        last = self.last
        if events is None or not events.whole or last is None or files != last.files:
            return None
        root = self.root + "/"
        named = sorted(rel for rel in (path[len(root):] for path in events.named | events.linked
                                       if path.startswith(root)) if rel in last.stamps)
        again = stamp(named)
        return ({**last.stamps, **again}, last.tally) if len(again) == len(named) else None

    @property
    def watching(self) -> bool:
        return self._fd is not None

    def end(self, files: list[str], listing: Tally, stamps: dict[str, tuple[int, int]], tally: Tally,
            walked: dict, git: str | None = None, linked: set[str] = frozenset()) -> None:
        """The look found these files and stamps (and tallied this), and walked these folders
        (discover.Walker.folders): trust the folders watched through it, and watch those of
        the files and those walked not watched yet, and `git` (the work tree's .git folder)
        and its info folder (trusted after the next look). `linked`: the files it stamped
        that have more than one name; where one is new to that, it may be a second name of
        a file not stamped: the next look is whole."""
        last = self.last
        if self._fd is None:  # nothing to watch: the folders are not worked out
            self.last = Look(files, listing, stamps, tally, set(), walked)
            return
        linked = {f"{self.root}/{rel}" for rel in linked}
        new_links = self._partial and not linked <= self._linked
        self._linked = linked
        if list(self._above) != (above := _ignores_above(self.root, git)):
            self._above = dict.fromkeys(above, object())  # stamped as the next look begins: it is whole
        if last is not None and last.folders and walked is last.walked and files == last.files:
            folders = last.folders
        else:
            parents = {rel.rpartition("/")[0] for rel in files}
            folders = {f"{self.root}/{folder}" if folder else self.root for folder in parents} | walked.keys()
            folders.update(folder for folder in (git, f"{git}/info") if git and os.path.isdir(folder))
        self.last = Look(files, listing, stamps, tally, folders, walked)
        self._read()  # a watch that ended during the look, or events lost, untrust their folders
        self._trusted = set() if new_links else self._watched & self._folders.keys()
        self._whole = folders <= self._trusted
        for folder in folders - self._folders.keys():
            if not self._add(folder):
                break

    def close(self) -> None:
        if self._closer is not None:
            self._closer()
        self._fd, self._closer = None, None
        self._folders, self._of, self._trusted = {}, {}, set()

    def _open(self) -> None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            info = ctypes.create_string_buffer(256)  # struct statfs starts with f_type, a C long
            if libc.statfs(os.fsencode(self.root), info) != 0 \
                    or ctypes.c_long.from_buffer(info).value & 0xFFFFFFFF not in _LOCAL:
                return
            fd = libc.inotify_init1(_NONBLOCK_CLOEXEC)
        except (OSError, AttributeError):  # not Linux
            return
        if fd < 0:  # the user's inotify instances are all taken
            return
        self._libc, self._errno, self._fd = libc, ctypes.get_errno, fd
        self._closer = weakref.finalize(self, os.close, fd)

    def _add(self, folder: str) -> bool:
        """Watch a folder; False where no more can be (the user's limit): then none are."""
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
        if wd < 0:
            if self._errno() in (errno.ENOSPC, errno.ENOMEM):
                self.close()
                return False
            return True  # gone or unreadable: the look says what it is
        if self._of.get(wd, folder) != folder:  # one folder under two paths: trust neither
            self._forget(wd)
            return True
        self._folders[folder], self._of[wd] = wd, folder
        return True

    def _read(self) -> None:
        """Take the events waiting: the paths they name, the folders whose entries changed,
        the watches that ended. A folder that moved or went, or one that came or went in a
        folder, is forgotten with every folder below it: a watch below keeps the path it was
        added with, which may now be another folder's."""
        gone: set[str] = set()
        while self._fd is not None:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            at = 0
            while at < len(data):
                wd, mask, _, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size:at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                if mask & _OVERFLOW:  # events were lost: nothing is trusted till a look stats all
                    self._trusted = set()
                    self._watched = set()
                folder = self._of.get(wd)
                if folder is None:
                    continue
                if mask & _GONE:
                    gone.add(folder)
                elif name:
                    path = f"{folder}/{os.fsdecode(name)}"
                    self._named.add(path)
                    if mask & _ENTRIES:
                        self._moved.add(folder)
                        if mask & _ISDIR:
                            gone.add(path)
                else:  # the folder itself (its mode, say)
                    self._moved.add(folder)
        if gone:
            below = tuple(f"{folder}/" for folder in gone)
            for folder, wd in list(self._folders.items()):
                if folder in gone or folder.startswith(below):
                    self._forget(wd)

    def _forget(self, wd: int) -> None:
        folder = self._of.pop(wd, None)
        if folder is not None:
            del self._folders[folder]
            self._trusted.discard(folder)
            self._watched.discard(folder)
            self._whole = False
            self._moved.add(folder)
            self._libc.inotify_rm_watch(self._fd, wd)  # a folder moved away keeps its watch else


def _ignores_above(root: str, git: str | None) -> list[str]:
    """The .gitignore files of the folders above the root up to the top of its work tree
    (where `git`, its .git folder, is): git reads them, and they are not watched."""
    if git is None:
        return []
    top, paths, folder = os.path.dirname(git), [], root
    while folder != top and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        paths.append(f"{folder}/.gitignore")
    return paths


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    """A file's stamp that moves with any change to it, even with its modification time
    put back; None where there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino
