"""Run jobs in child processes that can be stopped: a job that hangs past its time limit,
crashes its process or exhausts its memory is given up and reported, and the others go on.

A parser is C code: a thread cannot interrupt it and an exception cannot catch a crash in
it, so each file is tagged in a worker process that can be killed and replaced.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Iterable, Iterator, NamedTuple

from .errors import deferred_warnings, warn

try:
    import resource
except ImportError:  # not on Windows: there only the time limit applies
    resource = None

CHUNK = 32  # jobs handed to a worker at a time: fewer round trips, same time limit per job
HEADROOM = 2 << 30  # bytes of address space a worker may add to what it had when it started
PIPE_BYTES = 1 << 20  # /proc/sys/fs/pipe-max-size: the most an unprivileged process may ask for
# Workers killed and not yet waited for: waiting as each is stopped would hold up a kept
# RepoMap's map after an edit (a process as large as its parent is slow to end). They
# are waited for at the next run, or end with this process; a lock, so that no two threads
# wait for one pid (a pid waited for may be given to the next child).
_unreaped: list[int] = []
_reaping = threading.Lock()
# repomap's own threads (`thread`): each fork waits till they end (_fork).
_threads: list[threading.Thread] = []
_registering = threading.Lock()


class Batch(NamedTuple):
    """Jobs for a forked child (`forked`), done as a worker of `run` does them."""

    jobs: list
    work: Callable
    setup: Callable[[], None]


@dataclass
class Failed:
    """Why a job gave no result."""

    reason: str
    timed_out: bool = False  # may succeed under a higher limit


class _Pipe:
    """One end of a worker's two pipes: pickled objects, each after its length. os.fork and
    os.pipe, not multiprocessing: importing that delays a map after an edit before its
    worker can start, and its Process adds a bootstrap to each worker (bench/RESULTS.md:
    workers._Pipe)."""

    def __init__(self, reading: int, writing: int):
        self.reading, self.writing = reading, writing

    def send(self, value: object) -> None:
        data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        for view in (memoryview(len(data).to_bytes(8, "little")), memoryview(data)):
            while view:
                view = view[os.write(self.writing, view):]

    def recv(self) -> object:
        return pickle.loads(self._exactly(int.from_bytes(self._exactly(8), "little")))

    def _exactly(self, size: int) -> bytearray:
        data = bytearray(size)
        view, got = memoryview(data), 0
        while got < size:
            read = os.readv(self.reading, [view[got:]])
            if not read:
                raise EOFError("the other end closed")
            got += read
        return data

    def close(self) -> None:
        for fd in (self.reading, self.writing):
            os.close(fd)


@dataclass
class _Worker:
    pid: int
    pipe: _Pipe
    ready: bool = False
    since: float = 0.0  # when it last answered: its current job has run at least this long
    pending: deque = field(default_factory=deque)


def run(work: Callable, jobs: Iterable, limit: float, processes: int, setup: Callable[[], None] | None = None,
        meanwhile: Callable[[], None] | None = None, clock: Callable[[], float] = time.monotonic
        ) -> Iterator[tuple[object, object]]:
    """(job, work(job) or Failed) for every job, in no set order; each job may take `limit` seconds.
    Each worker calls `setup` before its first job, outside the time limit (loading a parser),
    and its warnings are given here, once; this process calls `meanwhile` once the workers have
    their jobs (its own next steps' imports). Jobs and answers must pickle. `clock` tells the
    seconds the limit is measured in: a test's own clock decides which job runs out of time,
    however busy the machine."""
    if not hasattr(os, "fork"):
        yield from _in_process(work, jobs, setup, meanwhile)
        return
    _reap()
    todo = deque(jobs)
    workers: list[_Worker] = []
    start = partial(_start, work, setup, workers)
    try:
        for _ in range(max(1, min(processes, -(-len(todo) // CHUNK)))):
            workers.append(start())
        for worker in workers:
            _hand_out(worker, todo)
        if meanwhile is not None:
            meanwhile()
        while any(w.pending for w in workers):
            busy = [w for w in workers if w.pending]
            waiting = [w.since + limit - clock() for w in busy if w.ready]
            ready = _readable([w.pipe.reading for w in busy], max(0.0, min(waiting, default=limit)))
            for worker in busy:
                if worker.pipe.reading in ready:
                    yield from _receive(worker, todo, start, workers, clock)
                elif worker.ready and clock() - worker.since > limit:
                    job = worker.pending.popleft()
                    _replace(worker, todo, start, workers)
                    yield job, _timed_out(limit)
    finally:
        for worker in workers:
            _stop(worker)


def forked(first: Callable[[], object], then: Callable[[object], Batch],
           meanwhile: Callable[[], None], limit: float) -> tuple[object, list[tuple[object, object]]] | None:
    """first() in a forked child while this process runs meanwhile(), for work that is system
    calls (stats): in a thread, each would wait for the GIL that this process's work holds.
    Then the child does the Batch that then(first's answer) gives, as a worker of `run` would,
    each job in `limit` seconds. Gives first's answer and (job, work(job) or
    Failed) of each job done before one failed or ran out of time (the rest are the caller's);
    None where no process can be forked or first() failed."""
    if not hasattr(os, "fork"):
        return None
    _reap()
    reading, writing = os.pipe()
    _widen(writing)

    def child() -> None:
        os.close(reading)
        pipe = _Pipe(-1, writing)
        answer = first()
        pipe.send(answer)
        batch = then(answer)
        pipe.send(batch.jobs)
        if batch.jobs:
            _serve(pipe, batch.work, batch.setup, [batch.jobs])

    pid = _fork(child)
    os.close(writing)
    pipe = _Pipe(reading, -1)
    try:
        try:
            meanwhile()
            answer = pipe.recv()
        except (EOFError, OSError, pickle.UnpicklingError):  # it failed: the caller does the work
            return None
        return answer, _answers(pipe, limit)
    finally:
        _kill(pid)  # it may still be on a job whose answer is not waited for
        os.close(reading)


def _widen(fd: int) -> None:
    """Give a pipe the largest buffer Linux allows without privileges (PIPE_BYTES): a forked
    child's first answer (a large tree's stamps) then waits in it while the child goes on to
    its jobs, where the usual buffer keeps the child waiting till this process reads it, after
    its own work (bench/RESULTS.md: workers._widen). Elsewhere the child waits."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _answers(pipe: _Pipe, limit: float) -> list[tuple[object, object]]:
    """The answers of a forked child's jobs (`forked`), up to the first that failed."""
    try:
        jobs = pipe.recv()
        warnings = pipe.recv() if jobs else []
    except (EOFError, OSError):  # it died before its first job: the caller does them all
        return []
    for message in warnings:
        warn(message)
    done = []
    for job in jobs:
        if not _readable([pipe.reading], limit):
            done.append((job, _timed_out(limit)))
            break
        try:
            done.append((job, _result(pipe.recv())))
        except (EOFError, OSError):  # the process died: this job killed it
            done.append((job, _crashed()))
            break
    return done


def _in_process(work: Callable, jobs: Iterable, setup: Callable[[], None] | None,
                meanwhile: Callable[[], None] | None) -> Iterator[tuple[object, object]]:
    """`run` where no process can be forked (Windows): the jobs run in this one, with no time
    limit, and a crash in a parser ends the run."""
    if setup is not None:
        setup()
    if meanwhile is not None:
        meanwhile()
    for job in jobs:
        yield job, _result(_answer(work, job))


def _readable(fds: list[int], timeout: float) -> set[int]:
    """Those of `fds` with data or a closed other end, waiting up to `timeout` seconds."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return {fd for fd, _ in poller.poll(timeout * 1000)}


def _receive(worker: _Worker, todo: deque, start: Callable[[], _Worker], workers: list[_Worker],
             clock: Callable[[], float]):
    try:
        answer = worker.pipe.recv()
    except (EOFError, OSError):  # the process died: its current job killed it
        if not worker.ready:
            raise RuntimeError("a worker process died as it started") from None
        job = worker.pending.popleft()
        _replace(worker, todo, start, workers)
        yield job, _crashed()
        return
    worker.since = clock()
    if not worker.ready:
        worker.ready = True
        for message in answer:  # what setup warned of
            warn(message)
        return
    yield worker.pending.popleft(), _result(answer)
    if len(worker.pending) <= CHUNK // 2:  # the next chunk waits in the pipe: no idle worker
        _hand_out(worker, todo)


def _start(work: Callable, setup: Callable[[], None] | None, workers: list[_Worker]) -> _Worker:
    """A forked worker, with a pipe each way."""
    jobs_read, jobs_write = os.pipe()
    answers_read, answers_write = os.pipe()

    def child() -> None:
        os.close(jobs_write)
        os.close(answers_read)
        for other in workers:  # the others' ends: a worker's jobs end when this process closes them
            other.pipe.close()
        _serve(_Pipe(jobs_read, answers_write), work, setup)

    pid = _fork(child)
    os.close(jobs_read)
    os.close(answers_write)
    return _Worker(pid, _Pipe(answers_read, jobs_write))


def _hand_out(worker: _Worker, todo: deque) -> None:
    chunk = [todo.popleft() for _ in range(min(CHUNK, len(todo)))]
    if chunk:
        worker.pending.extend(chunk)
        try:
            worker.pipe.send(chunk)
        except BrokenPipeError:  # it died: the closed end of its answers says so next
            pass


def _replace(worker: _Worker, todo: deque, start: Callable[[], _Worker], workers: list[_Worker]) -> None:
    """Kill a worker, put its unstarted jobs back first in line and start a fresh one."""
    _stop(worker)
    todo.extendleft(reversed(worker.pending))
    place = workers.index(worker)
    del workers[place]  # before the fork: the fresh worker closes the others' pipes, not its own
    fresh = start()
    workers.insert(place, fresh)
    _hand_out(fresh, todo)


def _stop(worker: _Worker) -> None:
    _kill(worker.pid)
    worker.pipe.close()


def _kill(pid: int) -> None:
    """End a child, to be waited for later (_unreaped)."""
    with _reaping:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # reaped already
            return
        _unreaped.append(pid)


def _reap() -> None:
    """Wait for the killed workers that have ended (_unreaped)."""
    with _reaping:
        for pid in list(_unreaped):
            try:
                ended = os.waitpid(pid, os.WNOHANG)[0] == pid
            except ChildProcessError:  # reaped already
                ended = True
            if ended:
                _unreaped.remove(pid)


def thread(target: Callable[[], None], name: str) -> threading.Thread:
    """One of repomap's own threads, not yet started: no fork happens while it runs (_fork)."""
    made = threading.Thread(target=target, name=name)
    with _registering:
        _threads[:] = [t for t in _threads if t.is_alive() or t.ident is None]  # alive, or not started yet
        _threads.append(made)
    return made


def _join_threads() -> None:
    """Wait till repomap's own threads (`thread`) end: a fork copies only the thread that
    forks, and a lock another held then (an import's, SQLite's, the allocator's) stays held
    in the child for good. A thread not started yet is no matter: it starts after the fork."""
    with _registering:
        running = [t for t in _threads if t.is_alive() and t is not threading.current_thread()]
    for running_thread in running:
        running_thread.join()


def _fork(child: Callable[[], None]) -> int:
    """A forked process that runs child() and exits (1 if it raised): it never returns into
    the caller's code, ignores Ctrl-C and dies with this process. It waits till repomap's own
    threads end (_join_threads): `run` forks its first workers before `meanwhile`, which may
    start one (a map's imports), so that only a worker that replaces one waits for it."""
    _join_threads()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
            _die_with(parent)  # before any work: a parent killed meanwhile leaves no orphan behind
            child()
            status = 0
        finally:
            os._exit(status)
    return pid


def _serve(pipe: _Pipe, work: Callable, setup: Callable[[], None] | None,
           chunks: Iterable[list] | None = None) -> None:
    """A worker: its setup (its memory capped after it, what it warned of sent first), then
    each job of each chunk answered as it finishes: the chunks given, else those the parent
    sends until it closes the pipe or dies."""
    with deferred_warnings() as warnings:
        if setup is not None:
            setup()
    _limit_memory()
    pipe.send(warnings)
    for chunk in _received(pipe) if chunks is None else chunks:
        for job in chunk:
            pipe.send(_answer(work, job))


def _received(pipe: _Pipe) -> Iterator[object]:
    """What the other end sends, until it closes the pipe."""
    while True:
        try:
            yield pipe.recv()
        except EOFError:
            return


def _answer(work: Callable, job: object) -> tuple[bool, object]:
    """(True, work(job)), or (False, what it raised)."""
    try:
        return True, work(job)
    except Exception as exc:  # MemoryError too: one bad file must not stop the run
        return False, f"{type(exc).__name__}: {exc}"


def _result(answer: tuple[bool, object]) -> object:
    """An _answer as `run` gives it: the result, or why there is none."""
    ok, result = answer
    return result if ok else Failed(f"failed to tag: {result} (skipped)")


def _timed_out(limit: float) -> Failed:
    return Failed(f"took over {limit:g} s to tag (skipped)", timed_out=True)


def _crashed() -> Failed:
    return Failed("crashed the parser (skipped)")


def _die_with(parent: int) -> None:
    """Ask Linux for SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere the closed
    pipe alone ends the worker."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before we asked
        os._exit(1)


def _limit_memory() -> None:
    """Cap the worker's address space, so a file that makes the parser explode ends only its worker."""
    if resource is None:
        return
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = size + HEADROOM
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (OSError, ValueError):
        pass  # no /proc: only the time limit applies
