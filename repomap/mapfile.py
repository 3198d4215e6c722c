"""The map file that `write` keeps in the repository and `check` compares (REPOMAP.md):
read and replaced whole, in a folder that resolves inside the repository and outside git's
folders (paths.output_folder), never through a link planted at its own name."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path, PurePosixPath

from . import paths
from .errors import RepoMapError

# A map of the largest budget is a few hundred kilobytes: a file far larger is not one, and
# reading it whole only to compare it would cost memory in proportion to it.
READ_LIMIT = 16 << 20
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def inside(output: str) -> PurePosixPath:
    """`output` as a path inside the repository, relative to it with /; RepoMapError where it
    names none (the settings file's `output` is checked as the flag is)."""
    pure = PurePosixPath(output.replace("\\", "/"))
    if not output or "\0" in output or pure.is_absolute() or ".." in pure.parts or pure.name in ("", "."):
        raise RepoMapError(f"refused: {output!r} is not a path inside the repository")
    if pure.name.lower() == ".git":
        raise RepoMapError(f"refused: {output!r} is inside a git folder")
    return pure


class MapFile:
    """The file `output` (relative to the repository, with /) names in the resolved `root`."""

    def __init__(self, root: Path, output: str):
        try:
            pure = inside(output)
        except RepoMapError as exc:
            raise RepoMapError(f"--output: {exc}") from None
        self.root, self.folder, self.name, self.shown = str(root), str(pure.parent), pure.name, output

    def real(self) -> str:
        """Its path relative to the root with the links on the way resolved (the path a walk
        lists it under); as given where its folder cannot be opened."""
        try:
            fd = self._folder(create=False)
        except RepoMapError:
            fd = None
        if fd is None:
            return str(PurePosixPath(self.folder, self.name))
        try:
            return os.path.relpath(os.path.join(paths.opened(fd, self.root), self.name), self.root)
        finally:
            os.close(fd)

    def mode(self) -> int | None:
        """The file's own mode (a link's, not its target's); None where there is none."""
        fd = self._folder(create=False)
        if fd is None:
            return None
        try:
            return os.stat(self.name, dir_fd=fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._error(exc) from None
        finally:
            os.close(fd)

    def text(self) -> str:
        """What the file says; "" where it is missing, a link or not a regular file."""
        fd = self._folder(create=False)
        if fd is None:
            return ""
        try:
            with open(os.open(self.name, paths.READ, dir_fd=fd), "rb") as file:
                data = file.read(READ_LIMIT + 1) if stat.S_ISREG(os.fstat(file.fileno()).st_mode) else b""
        except (FileNotFoundError, IsADirectoryError):
            return ""
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a link at the map's name
                return ""
            raise self._error(exc) from None
        finally:
            os.close(fd)
        if len(data) > READ_LIMIT:
            raise RepoMapError(f"{self.shown} is over {READ_LIMIT >> 20} MiB: not a map repomap wrote; "
                               "remove it or choose another output")
        return data.decode("utf-8", errors="replace")

    def replace(self, text: str) -> None:
        """Write `text` to a fresh file (O_EXCL: nothing planted is followed) and rename it over
        the map: readers see the old file or the new one, never half of one, and a link at
        the map's name is replaced, not written through. The folders are made as needed."""
        fd = self._folder(create=True)
        temporary = f".{self.name[:200]}.{secrets.token_hex(4)}.repomap-tmp"
        try:
            with open(os.open(temporary, _WRITE, 0o666, dir_fd=fd), "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            if isinstance(exc, OSError):
                raise self._error(exc) from None
            raise
        finally:
            os.close(fd)

    def _folder(self, create: bool) -> int | None:
        try:
            return paths.output_folder(self.root, self.folder, create, self.shown)
        except RepoMapError as exc:
            raise RepoMapError(f"--output: {exc}") from None
        except OSError as exc:
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> RepoMapError:
        return RepoMapError(f"--output: {self.shown!r}: {exc.strerror or exc}")
