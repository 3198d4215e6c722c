"""The persistent index: one SQLite file per repository, outside the work tree.

Rows are keyed by path, with (size, change stamp) as the fast check and a content hash
as the truth. The whole store is dropped when repomap's version or tagging code,
a grammar or a query changes; stored maps and graphs also when any of repomap's
code changes. A file that SQLite itself reports as not a database or damaged is
moved aside (one copy kept) and rebuilt; any other failure, an unwritable location
or a database locked for too long means working without a cache. Both say so once
on stderr. One connection serves every thread of a process, under a lock. Arrays derived
from a state of the files (the graph, the definitions' columns, the search postings) are
files of their own beside it (`save_arrays`), read memory-mapped. Rows and files alike carry a
checksum: a damaged one is dropped and made again, with a warning.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import sqlite3
import threading
import time
import zlib
from pathlib import Path
from typing import Iterator, NamedTuple

from .errors import warn
from .resources import resource_dir

_PACKAGE = Path(__file__).resolve().parent

# Answers (blobs whose key holds a colon: "map:<digest>") kept, the last stored: a map is
# stored for three states of the files (RepoMap.build), so about five maps. Blobs named
# without one (a walk, the token counts, whether the last map was ranked) are kept till
# replaced: counted among the last 16 of every blob, the walk that a map stores once was
# let go after a few maps, and the next map listed every folder again.
KEEP_ANSWERS = 16
ARRAYS_MAGIC = b"repomap-arrays-2"
ARRAYS_SUM = 4  # bytes of the checksum that ends a file of arrays: zlib.crc32 of all before it
SEAL = 16  # bytes of checksum before every stored value
FETCH_ROWS = 256  # payload rows read per step under the lock, so other threads are not held up long
# The only error codes that say the file itself is damaged; anything else (a locked database,
# a connection used wrongly, a full disk) is no reason to throw the index away.
DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
TABLES = {
    "meta": "key TEXT PRIMARY KEY, value TEXT NOT NULL",
    "blobs": "key TEXT PRIMARY KEY, value BLOB NOT NULL",
    # The columns of Row, which says what each holds.
    "files": "path TEXT PRIMARY KEY, size INTEGER NOT NULL, changed INTEGER NOT NULL, hash TEXT NOT NULL, "
             "timed_out REAL, payload BLOB NOT NULL, terms BLOB, links BLOB NOT NULL, view BLOB NOT NULL, "
             "notes TEXT NOT NULL",
}
# Store.load reads these columns of every row on every call: an index that holds them is read
# without walking past each row's payload to the columns after it.
# bench/RESULTS.md: cache.INDEXES
INDEXES = {"files": "path, size, changed, hash, timed_out, links, view, notes"}


class Listed(NamedTuple):
    """What Store.load gives of a stored file: all of its row but the payload and terms."""

    size: int
    changed: int  # the change stamp (index._changed)
    hash: str  # the content hash; "" where the file could not be read or ran out of time
    timed_out: float | None  # the time limit its tagging ran out of (it may tag under a higher one), else None
    links: bytes  # the digest of what it defines and references (b"" if not tagged)
    view: bytes  # the digest of what a map can show of it (signatures.view)
    notes: str  # why skipped, what was wrong with it: one a line


class Row(NamedTuple):
    """A file as Store.save stores it."""

    path: str
    size: int
    changed: int
    hash: str
    timed_out: float | None
    payload: bytes  # what the map needs of its tags (index.py)
    terms: bytes | None  # what search needs (terms.file_terms); None: not counted yet (a map alone)
    links: bytes
    view: bytes
    notes: str


def default_dir() -> Path:
    """$REPOMAP_CACHE_DIR, else the user cache folder."""
    if os.environ.get("REPOMAP_CACHE_DIR"):
        return Path(os.environ["REPOMAP_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "repomap"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def fingerprint() -> str:
    """What stored rows depend on: repomap's code (every module's source, so no moved function
    can leave an old result behind, and the version and payload format with it), tree-sitter,
    the grammars and our queries."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(_grammar_versions().encode())
    _hash_files(digest, [*sorted(resource_dir("queries").glob("*.scm")), *sorted(_PACKAGE.glob("*.py"))])
    return digest.hexdigest()


def templates_stamp() -> str:
    """What stored maps and token counts depend on besides the code: the output templates."""
    digest = hashlib.blake2b(digest_size=16)
    _hash_files(digest, sorted(resource_dir("templates").glob("*.j2")))
    return digest.hexdigest()


def _hash_files(digest: hashlib.blake2b, paths: list[Path]) -> None:
    for path in paths:
        digest.update(path.name.encode() + path.read_bytes())


def _renew(db: sqlite3.Connection, key: str, stamp: str, tables: tuple[str, ...]) -> None:
    """Make `tables` anew, empty, when what they were made from (`stamp`, kept in meta under
    `key`) changed: a new version may also store other columns."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    if row is None or row[0] != stamp:
        with db:
            db.execute("BEGIN IMMEDIATE")
            for table in tables:
                db.execute(f"DROP TABLE IF EXISTS {table}")
                db.execute(f"CREATE TABLE {table} ({TABLES[table]})")
                if table in INDEXES:
                    db.execute(f"CREATE INDEX {table}_read ON {table} ({INDEXES[table]})")
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, stamp))


def _grammar_versions() -> str:
    """tree-sitter and every grammar package installed beside it and the language pack (which
    depends on some that are released on their own), by their dist-info folders:
    importlib.metadata would cost more to import than a warm map takes, and tree-sitter 0.25
    has no __version__. The packages are found, not imported: a stored map needs no grammar."""
    from importlib.util import find_spec

    specs = [find_spec(name) for name in ("tree_sitter", "tree_sitter_language_pack")]
    sites = {Path(spec.origin).resolve().parent.parent for spec in specs if spec and spec.origin}
    return ",".join(sorted(p.name for site in sites for p in site.glob("tree_sitter*.dist-info")))


class Store:
    """Stored tag payloads of one repository; every method is safe to call when disabled,
    and from any thread."""

    def __init__(self, root: Path, folder: Path | None):
        self.db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        if folder is None:
            return
        name = hashlib.blake2b(str(root).encode(), digest_size=8).hexdigest()
        self.path = folder / f"{root.name[:40]}-{name}.sqlite"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
        except sqlite3.DatabaseError as exc:
            self._failed(exc, "cannot use the cache at {path} ({exc}); working without it")
        except OSError as exc:
            warn(f"cannot use the cache at {folder} ({exc.strerror or exc}); working without it")

    @classmethod
    def reader(cls, path: Path) -> Store:
        """A store that reads, and only reads, the file another one keeps: a worker's own
        connection (one must not cross a fork). Disabled if the file cannot be opened."""
        store = cls.__new__(cls)
        store.db, store._lock, store.path = None, threading.RLock(), path
        try:
            store.db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=60, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            warn(f"cannot read the cache {path} ({exc}); working without it")
        return store

    def close(self) -> None:
        """Close the file (SQLite folds its write-ahead log back in); the store works on, disabled."""
        with self._lock:
            if self.db is not None:
                self.db.close()
                self.db = None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
        for attempt in range(50):  # switching to WAL does not wait for a busy database by itself
            try:
                db.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"CREATE TABLE IF NOT EXISTS meta ({TABLES['meta']})")
        self.stamp = fingerprint()
        _renew(db, "fingerprint", self.stamp, ("files", "blobs"))
        _renew(db, "templates", templates_stamp(), ("blobs",))
        return db

    def _failed(self, exc: sqlite3.DatabaseError, message: str, disable: bool = True) -> None:
        """A damaged file is moved aside and rebuilt; any other error leaves the file alone,
        and this process works without the cache unless told to go on (a write that waited
        too long for a lock costs only that write). Only SQLite's own error codes say the file
        is damaged: a ProgrammingError (a connection misused, by another thread or once closed)
        carries none, and is repomap's fault, not the file's."""
        if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
            self._move_aside()
            return
        warn(message.format(path=self.path, exc=exc))
        if disable:
            self.db = None

    def _move_aside(self) -> None:
        """Keep one copy of the damaged file (for a bug report) and start a new one."""
        aside = self.path.with_name(self.path.name + ".corrupt")
        warn(f"the cache {self.path} was damaged; moved it to {aside.name} and rebuilding "
              f"(delete {aside} unless you report the damage)")
        try:
            if self.db is not None:
                self.db.close()
            for old in self.path.parent.glob(self.path.name + ".corrupt-*"):  # asides of older versions
                old.unlink(missing_ok=True)
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            self.db = self._open()
        except (OSError, sqlite3.DatabaseError) as exc:
            warn(f"cannot rebuild the cache ({exc}); working without it")
            self.db = None

    def load(self) -> dict[str, Listed]:
        """Every stored file's row but its payload and terms, by path; payloads are read one
        file at a time (`payload_of`), terms a few rows at a time (`terms`)."""
        return {path: Listed(*listed)
                for path, *listed in self._rows("SELECT path, size, changed, hash, timed_out, links, view, notes FROM files")}

    def payload_of(self, path: str, digest: str) -> bytes | None:
        """The stored payload of this content of a file, if it is still there and intact."""
        row = self._one("SELECT payload, hash FROM files WHERE path = ?", path)
        return _unsealed(row[0]) if row is not None and row[1] == digest else None

    def terms(self, wanted: set[str]):
        """(path, hash, terms) of the wanted files stored with their terms counted and intact,
        one row at a time."""
        for path in sorted(wanted):
            row = self._one("SELECT hash, terms FROM files WHERE path = ?", path)
            if row is not None and row[1] is not None and (terms := _unsealed(row[1])) is not None:
                yield path, row[0], terms

    def _rows(self, sql: str):
        """The rows of a query, read in steps under the lock (nothing is held between steps)."""
        with self._lock:
            if self.db is None:
                return
            try:
                cursor = self.db.execute(sql)
            except sqlite3.DatabaseError as exc:
                self._failed(exc, "cannot read the cache {path} ({exc}); working without it")
                return
        while True:
            with self._lock:
                try:
                    rows = cursor.fetchmany(FETCH_ROWS)
                except sqlite3.DatabaseError as exc:
                    self._failed(exc, "cannot read the cache {path} ({exc}); working without it")
                    return
            if not rows:
                return
            yield from rows

    def blob(self, key: str) -> bytes | None:
        """A derived result stored under `key` (of answers, the last KEEP_ANSWERS are kept)."""
        row = self._one("SELECT value FROM blobs WHERE key = ?", key)
        return None if row is None else _unsealed(row[0])

    def save_blob(self, key: str, value: bytes) -> None:
        """Store a derived result; one larger than SQLite allows in a row (1 GB by default: a
        kernel's search postings) is not stored, and is made again when it is needed."""
        with self._lock:
            if self.db is None or len(value) + SEAL > self.db.getlimit(sqlite3.SQLITE_LIMIT_LENGTH):
                return
        self._write(lambda db: (
            db.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (key, _sealed(value))),
            db.execute(f"DELETE FROM blobs WHERE instr(key, ':') AND rowid NOT IN "
                       f"(SELECT rowid FROM blobs WHERE instr(key, ':') ORDER BY rowid DESC LIMIT {KEEP_ANSWERS})")))

    def save_arrays(self, kind: str, arrays: dict, key: str = "") -> None:
        """Store named numpy arrays, made from what `key` names, in a file of their own beside
        the database (one per kind): SQLite holds at most 1 GB in a row, a kernel's search
        postings are more, and a file can be read memory-mapped, without a copy. Written under
        a temporary name and renamed, so a reader sees a whole file; its checksum ends it."""
        with self._lock:
            if self.db is None:
                return
        path = self._arrays_path(kind)
        header, offset = [], 0
        for name, value in arrays.items():
            header.append([name, value.dtype.str, len(value), offset])
            offset += -(-value.nbytes // 64) * 64
        head = json.dumps({"stamp": self.stamp, "key": key, "arrays": header}).encode()
        head += b" " * (-(len(ARRAYS_MAGIC) + 8 + len(head)) % 64)
        temporary = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}")
        try:
            with open(temporary, "wb") as out:
                checksum = 0
                for part in _laid_out(head, arrays):
                    out.write(part)
                    checksum = zlib.crc32(part, checksum)
                out.write(checksum.to_bytes(ARRAYS_SUM, "little"))
            os.replace(temporary, path)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            warn(f"could not store the {kind} in {path.parent} ({exc.strerror or exc})")

    def arrays(self, kind: str, key: str = "") -> dict | None:
        """Arrays stored by save_arrays by this code from `key`, memory-mapped; None if there
        are none, or they are of other code, or damaged (then with a warning). Their readers
        check what they index with as well: a checksum finds damage, not a file made wrong."""
        found = self._opened(kind)
        stored = self._checked(kind, *found) if found is not None and found[0] == key else None
        return stored[1] if stored is not None else None

    def last_arrays(self, kind: str) -> tuple[str, dict] | None:
        """The arrays of `kind` stored last by this code, with the key they were made from."""
        found = self._opened(kind)
        return self._checked(kind, *found) if found is not None else None

    def _opened(self, kind: str) -> tuple[str, dict, mmap.mmap] | None:
        """The key, header and memory-mapped bytes of the arrays of `kind` stored by this code,
        their checksum not yet compared (a reader that wants other arrays reads no further)."""
        with self._lock:
            if self.db is None:
                return None
        path = self._arrays_path(kind)
        try:
            with open(path, "rb") as file:
                mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file: a whole one never is
            return damaged(kind)
        except FileNotFoundError:  # none stored yet
            return None
        except OSError as exc:
            warn(f"cannot read the {kind} stored in {path.parent} ({exc.strerror or exc}); they are made again")
            return None
        if mapped[:len(ARRAYS_MAGIC)] != ARRAYS_MAGIC:  # laid out by another version
            return None
        try:
            size = int.from_bytes(mapped[len(ARRAYS_MAGIC):len(ARRAYS_MAGIC) + 8], "little")
            head = json.loads(mapped[len(ARRAYS_MAGIC) + 8:len(ARRAYS_MAGIC) + 8 + size])
            if head["stamp"] != self.stamp:
                return None
            if isinstance(head["key"], str):
                return head["key"], head, mapped
        except (ValueError, TypeError, KeyError):
            pass
        return damaged(kind)

    def _checked(self, kind: str, key: str, head: dict, mapped: mmap.mmap) -> tuple[str, dict] | None:
        """The arrays `_opened` found, if the bytes before their checksum add up to it; the
        checksum is crc32, the quickest the standard library has over a kernel's gigabytes:
        it is there to find damage, and no checksum keeps out whoever can write the file."""
        import numpy as np

        start = len(ARRAYS_MAGIC) + 8 + int.from_bytes(mapped[len(ARRAYS_MAGIC):len(ARRAYS_MAGIC) + 8], "little")
        end = len(mapped) - ARRAYS_SUM
        if end < start:
            return damaged(kind)
        with memoryview(mapped) as whole, whole[:end] as summed:
            if zlib.crc32(summed).to_bytes(ARRAYS_SUM, "little") != mapped[end:]:
                return damaged(kind)
        try:
            return key, {name: np.frombuffer(mapped, dtype=np.dtype(dtype), count=length, offset=start + offset)
                         if length else np.zeros(0, dtype=np.dtype(dtype))
                         for name, dtype, length, offset in head["arrays"]}
        except (ValueError, TypeError, KeyError):
            return damaged(kind)

    def _arrays_path(self, kind: str) -> Path:
        return self.path.with_name(f"{self.path.name}.{kind}")

    def payload(self, path: str) -> tuple[bytes, bytes | None] | None:
        """A stored file's payload and terms (None: not counted yet), if both are intact."""
        row = self._one("SELECT payload, terms FROM files WHERE path = ?", path)
        if row is None:
            return None
        payload, terms = _unsealed(row[0]), None if row[1] is None else _unsealed(row[1])
        return None if payload is None or (row[1] is not None and terms is None) else (payload, terms)

    def _one(self, sql: str, key: str) -> tuple | None:
        """The row a key names, or None (no cache, no row, or an unreadable one: as `_rows`)."""
        with self._lock:
            if self.db is None:
                return None
            try:
                return self.db.execute(sql, (key,)).fetchone()
            except sqlite3.DatabaseError as exc:
                self._failed(exc, "cannot read the cache {path} ({exc}); working without it")
                return None

    def save(self, rows: list[Row], deleted: list[str]) -> bool:
        """Store new and changed files and forget deleted ones, in one transaction; whether
        they are stored."""
        if not (rows or deleted):
            return self.db is not None
        sealed = [row._replace(payload=_sealed(row.payload), terms=None if row.terms is None else _sealed(row.terms))
                  for row in rows]
        return self._write(lambda db: (
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sealed),
            db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in deleted])))

    def save_terms(self, rows: list[tuple[bytes, str, str]]) -> None:
        """Store the search terms of files counted after they were tagged: (terms, path, hash),
        kept only where the row still holds that content."""
        if rows:
            sealed = [(_sealed(terms), path, digest) for terms, path, digest in rows]
            self._write(lambda db: db.executemany("UPDATE files SET terms = ? WHERE path = ? AND hash = ?", sealed))

    def _write(self, change) -> bool:
        """Run `change(db)` in one immediate transaction; a failure costs this run's results
        only. Whether it was made."""
        with self._lock:
            if self.db is None:
                return False
            try:
                with self.db:
                    self.db.execute("BEGIN IMMEDIATE")
                    change(self.db)
                return True
            except sqlite3.DatabaseError as exc:
                self._failed(exc, "could not update the cache {path} ({exc}); this run's results are not stored",
                             disable=False)
                return False


def _laid_out(head: bytes, arrays: dict) -> Iterator[bytes | memoryview]:
    """A file of arrays as save_arrays writes it, but its checksum: each array at a multiple of
    64 bytes, after the magic number, the header's length and the header."""
    yield ARRAYS_MAGIC + len(head).to_bytes(8, "little") + head
    for value in arrays.values():
        if value.nbytes:
            yield memoryview(value).cast("B")
        yield b"\0" * (-value.nbytes % 64)


def _sealed(value: bytes) -> bytes:
    """A stored value behind a checksum of it: damage to the file or a row is found before
    anything decodes it (random bytes could ask marshal or numpy for gigabytes)."""
    return hashlib.blake2b(value, digest_size=SEAL).digest() + value


def _unsealed(stored: bytes) -> bytes | None:
    """The value, or None (and a warning) when it does not match its checksum: then what it
    held is made again."""
    if isinstance(stored, bytes) and hashlib.blake2b(stored[SEAL:], digest_size=SEAL).digest() == stored[:SEAL]:
        return stored[SEAL:]
    damaged_rows()
    return None


def damaged_rows() -> None:
    """Say (once) that stored rows were found damaged, by their checksum or their shape."""
    warn("damaged rows in the cache were dropped and are made again")


def damaged(kind: str) -> None:
    """Say (once per kind) that stored arrays were found damaged, by their checksum or their
    shape: they are not used, but made again, and the file replaced."""
    warn(f"the {kind} stored in the cache were damaged; they are made again")
