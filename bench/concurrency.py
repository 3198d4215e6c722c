"""The long run of tests/test_concurrency.py, on a real tree: Django 5.2 (PyPI sdist, pinned,
into bench/.corpora), copied so that it can be edited.

Threads: one RepoMap, 8 threads x 50 calls of every kind (map, map for a task, search,
search by kind, retrieve, refs, chat map), each answer compared with the same call made
serially. Processes: 4 processes on one cache folder, each making a RepoMap and its calls
again and again while this one edits a file every 50 ms; once the edits stop, each makes
its calls once more, and those answers are compared with a RepoMap that has no cache. Both
report warnings, damaged-file copies (*.corrupt) and errors, which must all be none; times
are side by side with the serial calls. A call during the edits whose file changed under
each of its tries, or that read it emptied by the edit being written (write_text truncates,
then writes), says so (Changed, NotFound) and is counted: there is no one answer to compare
it with; the answers after the edits stop must all be right.

    python bench/concurrency.py [--edits 200]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from speed import ENV, django  # noqa: E402

from repomap import RepoMap  # noqa: E402

EDITED = "django/utils/functional.py"
TARGET = "django/utils/functional.py::SimpleLazyObject#class"  # in the edited file; 53 references

# Each process imports `calls` from here, so that both sides make the very same calls.
LOOP = f"""
import json, os, sys
sys.path.insert(0, {str(HERE)!r})
from concurrency import calls
from repomap import RepoMap
from repomap.errors import Changed, NotFound
root, cache_dir, stop, target = sys.argv[1:5]
rounds = changed = 0
while not os.path.exists(stop):
    for call in calls(RepoMap(root, cache_dir=cache_dir), target):
        try:
            call()
        except (Changed, NotFound):  # its file changed under every try, or was read emptied (an edit each 50 ms)
            changed += 1
    rounds += 1
print(json.dumps({{"rounds": rounds, "changed": changed,
                  "answers": [call() for call in calls(RepoMap(root, cache_dir=cache_dir), target)]}}))
"""


def calls(repo: RepoMap, target: str) -> list:
    """A call of every kind, each with an answer that compares (and survives JSON as it is)."""
    return [
        lambda: repo.build(tokens=1024).text,
        lambda: repo.build(query="queryset filter chaining", tokens=512).text,
        lambda: [h.tag.id for h in repo.search("database connection retry")],
        lambda: [h.tag.id for h in repo.search("render a template with a context", kind="function")],
        lambda: repo.retrieve(target).data.decode("utf-8", "replace"),
        lambda: [[ref.path, ref.line] for ref, _ in repo.refs(target)[1]],
        lambda: repo.get_repo_map(chat_files=["django/db/models/query.py"], max_tokens=512),
    ]


def threads(root: Path, cache_dir: Path) -> bool:
    repo = RepoMap(root, cache_dir=cache_dir)
    chosen = calls(repo, TARGET)
    serial = [call() for call in chosen]  # also fills the index
    order = [(n, step, (n + step) % len(chosen)) for n in range(8) for step in range(50)]
    started = time.perf_counter()
    wrong = sum(chosen[which]() != serial[which] for _, _, which in order)
    serial_time = time.perf_counter() - started
    results, errors = {}, []

    def worker(number: int) -> None:
        try:
            for step in range(50):
                results[number, step] = chosen[(number + step) % len(chosen)]()
        except Exception as exc:  # counted below
            errors.append(f"thread {number}: {exc!r}")

    with contextlib.redirect_stderr(io.StringIO()) as err:
        pool = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        started = time.perf_counter()
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        threaded_time = time.perf_counter() - started
    wrong += sum(results.get((n, step)) != serial[which] for n, step, which in order)
    print(f"threads: 8 x 50 calls in {threaded_time:.2f} s; the same 400 calls made serially: {serial_time:.2f} s "
          f"(ratio {threaded_time / serial_time:.2f})")
    print(f"  answers unlike the first serial ones: {wrong}; errors: {len(errors)}; "
          f"warnings: {err.getvalue().count('warning')}")
    for line in errors[:5]:
        print("  " + line)
    return wrong == 0 and not errors and not err.getvalue()


def processes(root: Path, cache_dir: Path, edits: int) -> bool:
    stop = cache_dir.parent / "stop"
    command = [sys.executable, "-c", LOOP, str(root), str(cache_dir), str(stop), TARGET]
    for call in calls(RepoMap(root, cache_dir=cache_dir), TARGET):  # an index to share, not four cold runs
        call()
    started = time.perf_counter()
    running = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
               for _ in range(4)]
    edited = root / EDITED
    original = edited.read_text(encoding="utf-8")
    made = 0
    try:
        while made < edits and all(p.poll() is None for p in running):
            made += 1
            edited.write_text(original + f"\n\ndef added_{made}(value):\n    return value\n", encoding="utf-8")
            time.sleep(0.05)
    finally:
        edited.write_text(original, encoding="utf-8")
        stop.touch()
    outputs = [p.communicate(timeout=600) for p in running]
    elapsed = time.perf_counter() - started
    expected = [call() for call in calls(RepoMap(root, use_cache=False), TARGET)]
    finals = [json.loads(out) if p.returncode == 0 and out else None for p, (out, _) in zip(running, outputs)]
    equal = sum(f is not None and f["answers"] == expected for f in finals)
    warnings = sum(err.count("warning") for _, err in outputs)
    asides = [p.name for p in cache_dir.iterdir() if ".corrupt" in p.name]
    rounds = sum(f["rounds"] for f in finals if f)
    changed = sum(f["changed"] for f in finals if f)
    print(f"processes: 4 on one cache folder, {rounds} rounds of {len(expected)} calls while {made} edits "
          f"were made (one each 50 ms), in {elapsed:.1f} s; calls that found their file changing or "
          f"emptied by an edit (Changed, NotFound: said so): {changed}")
    print(f"  exit codes: {[p.returncode for p in running]}; warnings: {warnings}; aside copies: {len(asides)}; "
          f"final answers equal to an uncached RepoMap's: {equal} of 4")
    for _, err in outputs:
        if err:
            print("  " + err.strip().splitlines()[-1])
    return equal == 4 and warnings == 0 and not asides and all(p.returncode == 0 for p in running)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=200, help="edits made while the processes run (default 200)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="repomap-concurrency-"))
    try:
        root = work / "django"
        shutil.copytree(django(), root)
        ok = threads(root, work / "threads-cache")
        ok = processes(root, work / "processes-cache", args.edits) and ok
    finally:
        shutil.rmtree(work)
    print("all answers as serial, no warnings, no aside copies" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
