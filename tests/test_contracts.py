"""What repomap promises around its own threads and its cache, seen from outside."""

import os
import sqlite3
import threading

from conftest import run

from repomap import RepoMap


def test_no_fork_while_a_thread_of_repomap_runs(shop, tmp_path, monkeypatch):
    """A lock a thread holds when the process forks stays held in the child for good: a call
    that forks workers waits till the last call's thread storing what it made has ended. Each
    store thread is held before its first file is in place until something joins it or the
    process forks, so a fork that does not wait for it finds it alive."""
    repo = RepoMap(shop, tokens=300, cache_dir=tmp_path / "cache")
    gates: dict[threading.Thread, threading.Event] = {}
    replace, fork, join = os.replace, os.fork, threading.Thread.join

    def replacing(*args, **kwargs):
        if threading.current_thread().name == "repomap-store":
            gates.setdefault(threading.current_thread(), threading.Event()).wait()
        return replace(*args, **kwargs)

    alive_at_forks = []

    def forking():
        alive_at_forks.append(sorted(t.name for t in threading.enumerate() if t.name.startswith("repomap-")))
        for gate in list(gates.values()):
            gate.set()
        return fork()

    def joining(thread, *args, **kwargs):
        gates.setdefault(thread, threading.Event()).set()
        return join(thread, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replacing)
    monkeypatch.setattr(os, "fork", forking)
    monkeypatch.setattr(threading.Thread, "join", joining)
    repo.build()  # stores its graph in a thread, held
    forks = len(alive_at_forks)
    for path in shop.rglob("*.py"):
        path.write_text(path.read_text() + "\n\ndef added_here():\n    return 1\n")
    repo.build()  # forks workers to tag the changed files
    repo.close()
    assert gates and len(alive_at_forks) > forks
    assert alive_at_forks == [[]] * len(alive_at_forks)


def test_an_unreadable_cache_table_is_said_and_worked_around(shop, tmp_path):
    """A table SQLite cannot read (here gone, as an older or broken writer may leave it) is
    a warning and a map made without the cache, not a silent miss on every read."""
    cache_dir = tmp_path / "cache"
    assert run("map", shop, "--cache-dir", cache_dir).returncode == 0
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        db.execute("DROP TABLE blobs")
    result = run("map", shop, "--cache-dir", cache_dir)
    assert result.returncode == 0
    assert result.stdout == run("map", shop, "--no-cache").stdout
    assert "cannot read the cache" in result.stderr and "no such table: blobs" in result.stderr


def test_unreadable_stored_arrays_are_said_and_made_again(shop, tmp_path):
    """Stored arrays that cannot be read (a folder in their place) are made again, with a warning."""
    cache_dir = tmp_path / "cache"
    assert run("map", shop, "--cache-dir", cache_dir).returncode == 0
    stored, = cache_dir.glob("*.sqlite.edges")
    stored.unlink()
    stored.mkdir()
    result = run("map", shop, "--cache-dir", cache_dir, "--tokens", 301)  # no stored map for it
    assert result.returncode == 0
    assert result.stdout == run("map", shop, "--no-cache", "--tokens", 301).stdout
    assert "cannot read the edges stored in" in result.stderr
