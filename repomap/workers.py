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
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Iterable, Iterator

from .errors import held, warn

try:
    import resource
except ImportError:  # not on Windows: there only the time limit applies
    resource = None

CHUNK = 32  # jobs handed to a worker at a time: fewer round trips, same time limit per job
HEADROOM = 2 << 30  # bytes of address space a worker may add to what it had when it started


@dataclass
class Failed:
    """Why a job gave no result."""

    reason: str
    timed_out: bool = False  # may succeed under a higher limit


class _Pipe:
    """One end of a worker's two pipes: pickled objects, each after its length. os.fork and
    os.pipe, not multiprocessing: importing that costs a map after an edit 14 ms before its
    worker can start, and its Process adds a bootstrap to each worker."""

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
        meanwhile: Callable[[], None] | None = None) -> Iterator[tuple[object, object]]:
    """(job, work(job) or Failed) for every job, in no set order; each job may take `limit` seconds.
    Each worker calls `setup` before its first job, outside the time limit (loading a parser),
    and its warnings are given here, once; this process calls `meanwhile` once the workers have
    their jobs (its own next steps' imports). Jobs and answers must pickle."""
    if not hasattr(os, "fork"):
        yield from _here(work, jobs, setup, meanwhile)
        return
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
            waiting = [w.since + limit - time.monotonic() for w in busy if w.ready]
            ready = _readable([w.pipe.reading for w in busy], max(0.0, min(waiting, default=limit)))
            for worker in busy:
                if worker.pipe.reading in ready:
                    yield from _receive(worker, todo, start, workers)
                elif worker.ready and time.monotonic() - worker.since > limit:
                    job = worker.pending.popleft()
                    _replace(worker, todo, start, workers)
                    yield job, Failed(f"took over {limit:g} s to tag (skipped)", timed_out=True)
    finally:
        for worker in workers:
            _stop(worker)


def forked(work: Callable[[], object], meanwhile: Callable[[], None]) -> object | None:
    """work() in a forked child while this process runs meanwhile(): its answer, or None where
    no process can be forked or the child failed. For work that is system calls (stats): in
    a thread, each call would wait for the GIL while this process's own work holds it."""
    if not hasattr(os, "fork"):
        return None
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: it never returns into the caller's code
        status = 1
        try:
            os.close(reading)
            _Pipe(-1, writing).send(work())
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    try:
        meanwhile()
    finally:
        try:
            answer = _Pipe(reading, -1).recv()
        except (EOFError, OSError, pickle.UnpicklingError):  # it failed: the caller does the work
            answer = None
        os.close(reading)
        os.waitpid(pid, 0)
    return answer


def _here(work: Callable, jobs: Iterable, setup: Callable[[], None] | None,
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


def _receive(worker: _Worker, todo: deque, start: Callable[[], _Worker], workers: list[_Worker]):
    try:
        answer = worker.pipe.recv()
    except (EOFError, OSError):  # the process died: its current job killed it
        if not worker.ready:
            raise RuntimeError("a worker process died as it started") from None
        job = worker.pending.popleft()
        _replace(worker, todo, start, workers)
        yield job, Failed("crashed the parser (skipped)")
        return
    worker.since = time.monotonic()
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
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: it never returns into the caller's code
        status = 1
        try:
            os.close(jobs_write)
            os.close(answers_read)
            for other in workers:  # the others' ends: a worker's jobs end when this process closes them
                other.pipe.close()
            _serve(_Pipe(jobs_read, answers_write), work, setup, parent)
            status = 0
        finally:
            os._exit(status)
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
    try:
        os.kill(worker.pid, signal.SIGKILL)
        os.waitpid(worker.pid, 0)
    except (ProcessLookupError, ChildProcessError):  # reaped already
        pass
    worker.pipe.close()


def _serve(pipe: _Pipe, work: Callable, setup: Callable[[], None] | None, parent: int) -> None:
    """A worker's loop: answer each job of each chunk as it finishes, until the parent closes
    the pipe or dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with(parent)
    with held() as warnings:
        if setup is not None:
            setup()
    _limit_memory()
    pipe.send(warnings)
    while True:
        try:
            chunk = pipe.recv()
        except EOFError:
            return
        for job in chunk:
            pipe.send(_answer(work, job))


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
