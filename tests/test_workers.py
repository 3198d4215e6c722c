"""Files are tagged in worker processes that can be stopped: a job that hangs, crashes its
process, raises or exhausts memory is reported as failed and every other job still finishes."""

import os
import signal
import time
from functools import partial
from pathlib import Path

import pytest

from conftest import run
from repomap import errors, workers


def job(name: str) -> str:
    if name == "hang":
        time.sleep(600)
    elif name == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    elif name == "raise":
        raise ValueError("bad input")
    elif name == "explode":
        return str(len(bytearray(6 << 30)))  # past the worker's memory cap
    return name.upper()


def test_failures_are_reported_and_the_other_jobs_finish():
    """The clock stands still till every job but the hanging one has answered, then jumps:
    that one alone runs out of time, however busy the machine. Were it waited for, its
    answer would come after ten minutes, and not as a failure."""
    names, results = ["crash", "raise", "explode", *(f"ok{i}" for i in range(100)), "hang"], {}
    clock = lambda: 1e6 if len(results) == len(names) - 1 else 0.0  # noqa: E731
    for name, result in workers.run(job, names, limit=1.0, processes=2, clock=clock):
        results[name] = result
    assert results.pop("hang") == workers.Failed("took over 1 s to tag (skipped)", timed_out=True)
    assert results.pop("crash") == workers.Failed("crashed the parser (skipped)")
    assert results.pop("raise") == workers.Failed("failed to tag: ValueError: bad input (skipped)")
    assert results.pop("explode").reason.startswith("failed to tag: MemoryError")
    assert results == {f"ok{i}": f"OK{i}" for i in range(100)}


LOADED, SETTING_UP = [], []


def load_slowly() -> None:
    SETTING_UP[0].touch()  # the test's clock jumps past the jobs' limit from here on
    time.sleep(0.2)  # a few of the parent's looks at its clock (each limit): were setup timed, it would be out of time
    LOADED.append(os.getpid())
    errors.warn("setup warns")


def loaded(name: str) -> str:
    return f"{name} after setup in {LOADED}"


def test_setup_runs_in_each_worker_outside_the_time_limit_and_the_parent_goes_on_meanwhile(capfd, tmp_path):
    meanwhile, started = [], tmp_path / "setup started"
    SETTING_UP[:] = [started]
    clock = lambda: 1e6 if started.exists() else 0.0  # noqa: E731  setup takes longer than any limit
    results = dict(workers.run(loaded, ["a", "b"], limit=0.05, processes=2, setup=load_slowly,
                               meanwhile=lambda: meanwhile.append(os.getpid()), clock=clock))
    assert set(results) == {"a", "b"}
    for value in results.values():  # done in the worker that ran the job, before it, not timed out
        assert isinstance(value, str) and value.startswith(("a after setup in [", "b after setup in ["))
        assert str(os.getpid()) not in value
    assert LOADED == [] and meanwhile == [os.getpid()]  # once, here
    assert capfd.readouterr().err == "repomap: warning: setup warns\n"  # here, once for both workers


def test_a_forked_child_answers_then_does_its_jobs_till_one_fails(capfd):
    """workers.forked: the child's first answer, then its jobs as a worker would do them, each
    under the time limit, up to the first that crashes or hangs (the rest are the caller's)."""
    meanwhile = []
    setup = partial(errors.warn, "setup warns")
    answer, done = workers.forked(lambda: ["a", "raise"], lambda first: workers.Batch([*first, "crash", "b"], job, setup),
                                  lambda: meanwhile.append(os.getpid()), 600.0)
    assert answer == ["a", "raise"] and meanwhile == [os.getpid()]
    assert done == [("a", "A"), ("raise", workers.Failed("failed to tag: ValueError: bad input (skipped)")),
                    ("crash", workers.Failed("crashed the parser (skipped)"))]
    assert capfd.readouterr().err == "repomap: warning: setup warns\n"
    started = time.monotonic()  # a job that never answers runs out of any time limit: the least will do
    assert workers.forked(lambda: 1, lambda first: workers.Batch(["hang", "b"], job, None), lambda: None, 0.01) == \
        (1, [("hang", workers.Failed("took over 0.01 s to tag (skipped)", timed_out=True))])
    assert time.monotonic() - started < 300  # the child, hanging for ten minutes, was not waited for
    assert workers.forked(lambda: 1 / 0, lambda first: workers.Batch(["a"], job, None), lambda: None, 600.0) is None
    assert workers.forked(lambda: 1, lambda first: 1 / 0, lambda: None, 600.0) == (1, [])


def test_stopped_workers_are_waited_for_by_the_next_run():
    """A run kills its workers as it ends and leaves waiting for them to the next run (they
    take a while to end): none is left a zombie for long, and the list stays short."""
    earlier, before = set(), _children()  # an earlier test's workers are waited for by the first run here
    for _ in range(3):
        assert dict(workers.run(job, ["a"], limit=600.0, processes=1)) == {"a": "A"}
        left = _children() - before  # killed, not waited for yet
        assert len(left) <= 2
        earlier |= left
        _wait_till_ended(left)
    assert earlier
    dict(workers.run(job, ["a"], limit=600.0, processes=1))
    assert not earlier & _children()
    assert not [pid for pid in earlier if os.path.exists(f"/proc/{pid}")]


def _wait_till_ended(pids: set[int]) -> None:
    """Until each process has ended (a zombie): however long a busy machine takes to end them."""
    while any(_alive(pid) for pid in pids):
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def _children() -> set[int]:
    """This process's children, ended or not, that it has not waited for."""
    return {int(pid) for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()}


@pytest.mark.long
def test_a_file_over_the_time_limit_is_skipped_counted_and_retried_under_a_higher_one(tmp_path):
    """The small files are tagged first, so that only the file that takes about a second to
    tag meets the low limit, and the higher one is far above that: the outcome is the same
    however busy the machine."""
    repo, cache_dir = tmp_path / "repo", tmp_path / "cache"
    repo.mkdir()
    (repo / "small.py").write_text("def small():\n    return 1\n")
    (repo / "other.py").write_text("from small import small\n\ndef other():\n    return small()\n")
    assert run("index", repo, "--cache-dir", cache_dir).stdout.startswith("2 files (2 read again)")
    (repo / "big.py").write_text("".join(f"def f{i}(a, b):\n    return g{i}(a) + b\n" for i in range(22000)))
    result = run("map", repo, "--cache-dir", cache_dir, "--parse-timeout", "0.05")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("\n") == 1 and " · files: 1 took over 0.05 s to tag (skipped) · " in result.stderr
    assert result.stdout == "small.py:\n  def small():\n  ⋮\nother.py:\n  def other():\n  ⋮\n"
    again = run("index", repo, "--cache-dir", cache_dir, "--parse-timeout", "0.05")
    assert again.stdout.startswith("2 files (0 read again)")  # remembered, not tried again
    higher = run("index", repo, "--cache-dir", cache_dir, "--parse-timeout", "600")  # however busy the machine
    assert higher.stdout.startswith("3 files (1 read again), 22002 symbols"), higher.stdout


def test_bad_parse_timeouts_are_refused(tmp_path):
    for value, message in (("0", "must be a finite number above 0"), ("soon", "not a number of seconds")):
        result = run("map", tmp_path, "--parse-timeout", value)
        assert result.returncode == 2 and message in result.stderr
    (tmp_path / ".repomap.toml").write_text('parse_timeout = "soon"\n')
    result = run("map", tmp_path)
    assert result.returncode == 2
    assert result.stderr == "repomap: error: setting 'parse_timeout' in .repomap.toml must be a number\n"


def test_where_no_process_can_be_forked_the_jobs_run_here(monkeypatch):
    monkeypatch.delattr(os, "fork")
    meanwhile = []
    results = dict(workers.run(job, ["raise", "a"], limit=1.0, processes=2,
                               meanwhile=lambda: meanwhile.append(os.getpid())))
    assert results == {"raise": workers.Failed("failed to tag: ValueError: bad input (skipped)"), "a": "A"}
    assert meanwhile == [os.getpid()]
