"""What the cache stores is checked before it is used: files of arrays against the checksum
that ends them, rows and arrays against the shape their readers expect. Whatever is damaged
is made again, with one warning, and the answer is a fresh one's."""

import json
import marshal
import os
import sqlite3
import threading
import time

import pytest

from conftest import damage_column, run
from repomap import cache, payload

# Per kind of stored arrays, a column that matters, and a request that reads the stored ones
# (`n` makes it one not answered before, so no stored answer stands in for it).
KINDS = {
    "edges": ("dst", lambda shop, n: ["map", shop, "--tokens", 300 + n]),
    "definitions": ("file", lambda shop, n: ["map", shop, "--tokens", 300 + n]),
    "ranking": ("number", lambda shop, n: ["map", shop, "--tokens", 300 + n]),
    "names": ("holders", lambda shop, n: ["map", shop, "--mention-file", "shop/cart.py", "--mention-ident", f"name{n}"]),
    "postings": ("doc", lambda shop, n: ["search", "cart total", "--root", shop, "--limit", 1 + n]),
    "inputs": ("def_name", lambda shop, n: _edited(shop, n)),
}


def _edited(shop, n):
    """A map after an edit: the graph is made from the stored inputs, spliced."""
    source = shop / "shop" / "cart.py"
    source.write_text(source.read_text() + f"\n\ndef added_{n}():\n    return Cart()\n")
    return ["map", shop, "--tokens", 300 + n]


def _header(path):
    whole = path.read_bytes()
    head = 24 + int.from_bytes(whole[16:24], "little")
    return whole, head, {a[0]: a for a in json.loads(whole[24:head])["arrays"]}


def _flip(path, column):
    whole, head, arrays = _header(path)
    _, dtype, length, offset = arrays[column]
    middle = head + offset + length * int(dtype[-1]) // 2
    path.write_bytes(whole[:middle] + bytes(b ^ 0xFF for b in whole[middle:middle + 3]) + whole[middle + 3:])


DAMAGE = {
    "flipped": _flip,
    "large numbers": damage_column,
    "zeroed": lambda path, column: damage_column(path, column, b"\0"),
    "cut short": lambda path, column: path.write_bytes(path.read_bytes()[:path.stat().st_size * 2 // 3]),
    "emptied": lambda path, column: path.write_bytes(b""),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_file_of_stored_arrays_is_made_again_with_one_warning(shop, tmp_path, kind):
    column, request = KINDS[kind]
    cache_dir = tmp_path / "cache"
    assert run(*request(shop, 0), "--cache-dir", cache_dir).returncode == 0
    for n, (how, damage) in enumerate(DAMAGE.items(), 1):
        stored, = cache_dir.glob(f"*.{kind}")
        damage(stored, column)
        asked = request(shop, n)
        result = run(*asked, "--cache-dir", cache_dir, "--quiet")
        fresh = run(*asked, "--no-cache")
        warning = f"repomap: warning: the {kind} stored in the cache were damaged; they are made again\n"
        assert (result.returncode, result.stdout, result.stderr) == (0, fresh.stdout, warning), how


def _stored_again(shop, cache_dir, kind, change):
    """The arrays of `kind` stored again through the cache's own writer, with `change` made to
    them: a file whose checksum is right and whose numbers are not."""
    store = cache.Store(shop.resolve(), cache_dir)
    key, arrays = store.last_arrays(kind)
    arrays = {name: value.copy() for name, value in arrays.items()}
    change(arrays)
    store.save_arrays(kind, arrays, key)
    store.close()


@pytest.mark.parametrize("kind, column", [("definitions", "file"), ("definitions", "first"), ("ranking", "number")])
def test_stored_arrays_of_the_wrong_shape_are_made_again_with_one_warning(shop, tmp_path, kind, column):
    """A zeroed column written with its checksum: the numbers are still checked."""
    cache_dir = tmp_path / "cache"
    assert run("map", shop, "--cache-dir", cache_dir).returncode == 0
    _stored_again(shop, cache_dir, kind, lambda arrays: arrays[column].fill(0))
    result = run("map", shop, "--cache-dir", cache_dir, "--tokens", 333, "--quiet")
    warning = f"repomap: warning: the {kind} stored in the cache were damaged; they are made again\n"
    assert (result.returncode, result.stdout, result.stderr) == \
        (0, run("map", shop, "--no-cache", "--tokens", 333).stdout, warning)


def _payload(body, notes=()):
    return marshal.dumps((payload.PAYLOAD_VERSION, body, notes))


GOOD_BODY = (marshal.dumps([]), (), (), b"", (), b"", b"", b"")
PAYLOADS = {
    "a short body": _payload((b"",)),  # IndexError
    "notes of numbers": _payload(None, (1, 2)),
    "a body of other types": _payload((1,) * 8),
    "counts of the wrong length": _payload((marshal.dumps([]), (), ("x",), b"", (), b"", b"", b"")),
    "names that are not text": _payload((marshal.dumps([]), (3,), (), b"", (), b"", b"", b"")),
    "cut short": _payload(GOOD_BODY)[:-3],  # EOFError
    "not a tuple": marshal.dumps(7),
}


@pytest.mark.parametrize("how", PAYLOADS)
def test_stored_rows_of_the_wrong_shape_are_tagged_again_with_one_warning(shop, tmp_path, how):
    """Rows whose checksum is right (written through the cache's own writer) but whose value is
    not a payload's shape: each file is tagged again, and the map is a fresh one's."""
    cache_dir = tmp_path / "cache"
    expected = run("map", shop, "--no-cache", "--tokens", 333).stdout
    assert run("map", shop, "--cache-dir", cache_dir).returncode == 0
    store = cache.Store(shop.resolve(), cache_dir)
    rows = [cache.Row(path, row.size, row.changed, row.hash, row.timed_out, PAYLOADS[how], store.payload(path)[1],
                      row.links, row.view, row.notes)
            for path, row in store.load().items()]
    assert store.save(rows, [])
    store.close()
    with sqlite3.connect(next(cache_dir.glob("*.sqlite"))) as db:
        db.execute("DELETE FROM blobs")  # no stored map
    for path in cache_dir.glob("*.sqlite.*"):
        path.unlink()  # no stored graph: every file's row is read
    result = run("map", shop, "--cache-dir", cache_dir, "--tokens", 333, "--quiet")
    assert (result.returncode, result.stdout, result.stderr) == \
        (0, expected, "repomap: warning: damaged rows in the cache were dropped and are made again\n")


TERMS = {
    "not a tuple": marshal.dumps(7),
    "too few columns": marshal.dumps((b"", b"")),  # IndexError
    "cut short": marshal.dumps((b"",) * 11)[:-2],  # EOFError
    "columns that do not add up": marshal.dumps((b"",) * 7 + (b"\1\0\0\0",) + (b"",) * 3),
}


@pytest.mark.parametrize("how", TERMS)
def test_stored_search_terms_of_the_wrong_shape_are_counted_again_with_one_warning(shop, tmp_path, how):
    cache_dir = tmp_path / "cache"
    asked = ("search", "cart total", "--root", shop, "--limit", 8)
    expected = run(*asked, "--no-cache").stdout
    assert run(*asked, "--cache-dir", cache_dir).returncode == 0
    store = cache.Store(shop.resolve(), cache_dir)
    store.save_terms([(TERMS[how], path, row.hash) for path, row in store.load().items()])
    store.close()
    for path in cache_dir.glob("*.postings"):
        path.unlink()  # the postings are built again, from the stored terms
    result = run(*asked, "--cache-dir", cache_dir, "--quiet")
    assert (result.returncode, result.stdout, result.stderr) == \
        (0, expected, "repomap: warning: damaged rows in the cache were dropped and are made again\n")


A = "def alpha(x):\n    return x\n\n\ndef beta():\n    return alpha(1)\n"
B = "# padding line 1\n# padding line 2\n\ndef alpha(x, y):\n    return x + y\n\n\ndef gamma():\n    return alpha(1, 2)\n"


def _write(root, text):
    """As an editor saves: a whole new file in place of the old, never one half written."""
    (root / "t.tmp").write_text(text)
    os.replace(root / "t.tmp", root / "t.py")


def test_a_file_changed_after_it_was_tagged_is_not_shown_with_its_old_tags(tmp_path):
    from repomap import RepoMap
    from repomap.errors import Changed

    _write(tmp_path, A)
    scan = RepoMap(tmp_path, use_cache=False).scan()
    _write(tmp_path, B)
    with pytest.raises(Changed):
        scan.sources["t.py"]  # B's bytes, A's tags: the text they would show is neither's


def test_a_kept_repomap_never_shows_one_version_s_tags_with_the_other_s_text(tmp_path):
    """An editor saves t.py as one version, then the other, as fast as it can, while a kept
    RepoMap maps: each map is one version's fresh map (or the call says the files kept
    changing). A slow machine may see no change mid-map: then it passes trivially."""
    from repomap import RepoMap
    from repomap.errors import Changed

    (tmp_path / "u.py").write_text("from t import alpha\n\ndef use():\n    return alpha(3)\n")
    fresh = set()
    for text in (A, B):
        _write(tmp_path, text)
        fresh.add(RepoMap(tmp_path, use_cache=False).build().text)
    stop = threading.Event()

    def edit():
        while not stop.is_set():
            for text in (A, B):
                _write(tmp_path, text)
                time.sleep(0.0005)

    kept = RepoMap(tmp_path, cache_dir=tmp_path / "cache")
    editor = threading.Thread(target=edit)
    editor.start()
    try:
        maps = []
        for _ in range(150):
            try:
                maps.append(kept.build().text)
            except Changed:
                pass
    finally:
        stop.set()
        editor.join()
    assert set(maps) <= fresh
