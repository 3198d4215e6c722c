"""One RepoMap shared by threads, and several processes sharing one cache folder."""

import subprocess
import sys
import threading

import pytest

from conftest import run
from repomap import RepoMap
from repomap.fileset import FileSet


def _calls(repo: RepoMap) -> list:
    """A mix of every kind of call, each with a result that can be compared."""
    return [
        lambda: repo.build(tokens=200).text,
        lambda: repo.build(query="cart total", tokens=150).text,
        lambda: [h.tag.id for h in repo.search("cart total")],
        lambda: [h.tag.id for h in repo.search("store lines", kind="function")],
        lambda: repo.retrieve("shop/cart.py::Cart#class").data,
        lambda: [(ref.path, ref.line) for ref, _ in repo.refs("shop/item.py::Item#class")[1]],
        lambda: repo.get_repo_map(chat_files=["shop/cart.py"], max_tokens=120),
    ]


def test_a_repomap_used_from_another_thread_keeps_its_cache(shop, tmp_path, capfd):
    """SQLite refuses a connection from another thread; that must not read as a damaged file."""
    cache_dir = tmp_path / "cache"
    repo = RepoMap(shop, cache_dir=cache_dir)
    first = repo.search("cart")
    answers = []
    thread = threading.Thread(target=lambda: answers.append(repo.search("cart")))
    thread.start()
    thread.join()
    assert answers == [first]
    assert "warning" not in capfd.readouterr().err
    assert [p.name for p in cache_dir.iterdir() if ".corrupt" in p.name] == []
    assert RepoMap(shop, cache_dir=cache_dir).indexer.store.load()  # the index was kept


@pytest.mark.long
def test_threads_get_the_answers_of_serial_calls(shop, tmp_path, capfd):
    repo = RepoMap(shop, cache_dir=tmp_path / "cache")
    calls = _calls(repo)
    serial = [call() for call in calls]
    results: dict[tuple[int, int], object] = {}
    errors = []

    def worker(number: int) -> None:
        try:
            for step in range(25):  # each call of the mix three to four times a thread, all eight at once
                which = (number + step) % len(calls)
                results[number, step] = (which, calls[which]())
        except Exception as exc:  # reported below with the thread that raised it
            errors.append((number, exc))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(results) == 200
    assert all(answer == serial[which] for which, answer in results.values())
    assert "warning" not in capfd.readouterr().err


# A file rewritten faster than a call takes may make every attempt of one find its bytes
# changed since they were tagged: the call then says so (Changed), as documented, rather
# than render one version's tags over the other's text. Each call is counted either way.
LOOP = """
import sys
from repomap import RepoMap
from repomap.errors import Changed
for _ in range(int(sys.argv[3])):
    repo = RepoMap(sys.argv[1], cache_dir=sys.argv[2], tokens=300)
    for call in (lambda: repo.build(reuse=True), lambda: repo.search("cart total"), repo.scan):
        try:
            call()
        except Changed:
            print("changed")
"""


@pytest.mark.long
def test_processes_share_a_cache_folder_while_files_change(shop, tmp_path):
    cache_dir = tmp_path / "cache"
    processes = [subprocess.Popen([sys.executable, "-c", LOOP, str(shop), str(cache_dir), "5"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    cart = shop / "shop" / "cart.py"
    original = cart.read_text()
    step = 0
    while any(p.poll() is None for p in processes):
        step += 1
        cart.write_text(original + f"\n\ndef added_{step}(x):\n    return x\n")
        threading.Event().wait(0.05)
    outputs = [p.communicate(timeout=300) for p in processes]
    assert [p.returncode for p in processes] == [0] * 4, outputs
    assert all(err == "" for _, err in outputs), outputs
    assert [p.name for p in cache_dir.iterdir() if ".corrupt" in p.name] == []
    shared = run("map", shop, "--cache-dir", cache_dir, "--tokens", "300")
    assert shared.returncode == 0 and shared.stderr.count("warning") == 0
    assert shared.stdout == run("map", shop, "--no-cache", "--tokens", "300").stdout


def test_the_cycle_collector_waits_while_calls_run_and_is_left_as_it_was(shop, tmp_path, monkeypatch):
    """Two RepoMaps called at once from two threads: the collector is off inside both calls,
    still off inside the second after the first has ended, and on again after the second.
    Off before a call (as the CLI keeps it), it stays off."""
    import gc

    first, second = (RepoMap(shop, cache_dir=tmp_path / name) for name in ("a", "b"))
    # The waits' limits only end a hang: a busy machine's calls take far less.
    inside, first_ended, seen = threading.Barrier(2, timeout=600), threading.Event(), []
    stamps = FileSet.stamps

    def watched(self, *args, **kwargs):
        seen.append(gc.isenabled())
        inside.wait()
        if self is second.files:
            assert first_ended.wait(600)
            seen.append(gc.isenabled())
        return stamps(self, *args, **kwargs)

    monkeypatch.setattr(FileSet, "stamps", watched)
    assert gc.isenabled()
    thread = threading.Thread(target=lambda: (first.build(), first_ended.set()))
    thread.start()
    second.build()
    thread.join()
    assert seen == [False, False, False] and gc.isenabled()
    monkeypatch.setattr(FileSet, "stamps", stamps)
    gc.disable()
    try:
        first.build()
        assert not gc.isenabled()
    finally:
        gc.enable()
