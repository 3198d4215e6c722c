"""What repomap reads and writes stays inside the repository: a source file is read only
where no folder on its way is a symbolic link, and the map file is written only in a folder
that resolves inside the root and outside any git folder.

Each check is made on what was opened (a descriptor's own path, as /proc/self/fd shows it),
not on a path looked at before it was opened: a folder swapped for a link in between is
caught all the same, as openat2's RESOLVE_BENEATH would catch it.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import Refused

READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO planted meanwhile never blocks
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_GONE = " (deleted)"  # what Linux adds to the path of an open file that was unlinked or replaced


def without_links(root: str, files: list[str]) -> list[str]:
    """The files (relative, with /) that are regular files reached from `root` through
    folders none of which is a symbolic link: git lists a tracked file whose folder was
    replaced by a link to somewhere else. Each folder is looked at once."""
    plain: dict[str, bool] = {"": True}
    for rel in files:
        folder = rel.rpartition("/")[0]
        chain = []
        while folder not in plain:
            chain.append(folder)
            folder = folder.rpartition("/")[0]
        for folder in reversed(chain):  # outermost first, so each knows its parent's answer
            plain[folder] = plain[folder.rpartition("/")[0]] and _is(os.path.join(root, folder), stat.S_ISDIR)
    return [rel for rel in files
            if plain[rel.rpartition("/")[0]] and _is(os.path.join(root, rel), stat.S_ISREG)]


def _is(path: str, kind) -> bool:
    try:
        return kind(os.lstat(path).st_mode)
    except OSError:
        return False


def open_source(path: str) -> int:
    """A read-only descriptor of the regular file at `path` (the resolved root joined with a
    relative path). OSError where it cannot be opened; ELOOP where a link is on its way."""
    path = os.path.normpath(path)
    fd = os.open(path, READ)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if opened(fd, path).removesuffix(_GONE) != path:  # a file replaced since it was opened is still read
            raise OSError(errno.ELOOP, "reached through a symbolic link", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def opened(fd: int, path: str) -> str:
    """The path of what `fd` opened (resolved); without /proc, what `path` resolves to now."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def output_folder(root: str, folder: str, create: bool, shown: str) -> int | None:
    """A descriptor of the folder `folder` (relative, with /) of the root `root` (resolved),
    made where it is missing and `create` (else None): each step is opened from the one
    before, and where it resolves (links followed) must stay inside the root and outside
    git's folders. Refused, quoting `shown` (the path asked for), where it does not."""
    fd = os.open(root, _FOLDER)
    try:
        _inside(root, root, shown)
        for name in (part for part in folder.split("/") if part not in ("", ".")):
            if name == "..":
                raise Refused(f"refused: {shown!r} leads outside the repository")
            try:
                step = os.open(name, _FOLDER, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(name, dir_fd=fd)
                step = os.open(name, _FOLDER | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = step
            _inside(root, opened(fd, root), shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _inside(root: str, real: str, shown: str) -> None:
    """Refuse a folder resolved to `real` outside `root`, or in or below a git folder (a .git,
    or one that holds HEAD, objects and refs: where a .git file's gitdir points)."""
    rel = os.path.relpath(real, root)
    if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        raise Refused(f"refused: {shown!r} leads outside the repository")
    here = root
    for part in [""] + ([] if rel == "." else rel.split("/")):
        here = os.path.join(here, part) if part else here
        if part.lower() == ".git" or all(os.path.exists(os.path.join(here, entry))
                                         for entry in ("HEAD", "objects", "refs")):
            raise Refused(f"refused: {shown!r} is inside a git folder")
