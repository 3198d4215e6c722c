"""Run jobs in child processes that can be stopped: a job that hangs past its time limit,
crashes its process or exhausts its memory is given up and reported, and the others go on.

A parser is C code: a thread cannot interrupt it and an exception cannot catch a crash in
it, so each file is tagged in a worker process that can be killed and replaced.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection, wait
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


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    ready: bool = False
    since: float = 0.0  # when it last answered: its current job has run at least this long
    pending: deque = field(default_factory=deque)


def run(work: Callable, jobs: Iterable, limit: float, processes: int, setup: Callable[[], None] | None = None,
        meanwhile: Callable[[], None] | None = None) -> Iterator[tuple[object, object]]:
    """(job, work(job) or Failed) for every job, in no set order; each job may take `limit` seconds.
    Each worker calls `setup` before its first job, outside the time limit (loading a parser),
    and its warnings are given here, once; this process calls `meanwhile` once the workers have
    their jobs (its own next steps' imports)."""
    todo = deque(jobs)
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    start = partial(_start, context, work, setup)
    workers: list[_Worker] = []
    try:
        workers = [start() for _ in range(max(1, min(processes, -(-len(todo) // CHUNK))))]
        for worker in workers:
            _hand_out(worker, todo)
        if meanwhile is not None:
            meanwhile()
        while any(w.pending for w in workers):
            busy = [w for w in workers if w.pending]
            waiting = [w.since + limit - time.monotonic() for w in busy if w.ready]
            ready = wait([w.conn for w in busy], timeout=max(0.0, min(waiting, default=limit)))
            for worker in busy:
                if worker.conn in ready:
                    yield from _receive(worker, todo, start, workers)
                elif worker.ready and time.monotonic() - worker.since > limit:
                    job = worker.pending.popleft()
                    _replace(worker, todo, start, workers)
                    yield job, Failed(f"took over {limit:g} s to tag (skipped)", timed_out=True)
    finally:
        for worker in workers:
            _stop(worker)


def _receive(worker: _Worker, todo: deque, start: Callable[[], _Worker], workers: list[_Worker]):
    try:
        answer = worker.conn.recv()
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
    ok, result = answer
    yield worker.pending.popleft(), result if ok else Failed(f"failed to tag: {result} (skipped)")
    if len(worker.pending) <= CHUNK // 2:  # the next chunk waits in the pipe: no idle worker
        _hand_out(worker, todo)


def _start(context, work: Callable, setup: Callable[[], None] | None) -> _Worker:
    mine, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, work, setup, mine, os.getpid()), daemon=True)
    process.start()
    theirs.close()
    return _Worker(process, mine)


def _hand_out(worker: _Worker, todo: deque) -> None:
    chunk = [todo.popleft() for _ in range(min(CHUNK, len(todo)))]
    if chunk:
        worker.pending.extend(chunk)
        worker.conn.send(chunk)


def _replace(worker: _Worker, todo: deque, start: Callable[[], _Worker], workers: list[_Worker]) -> None:
    """Kill a worker, put its unstarted jobs back first in line and start a fresh one."""
    _stop(worker)
    todo.extendleft(reversed(worker.pending))
    fresh = start()
    workers[workers.index(worker)] = fresh
    _hand_out(fresh, todo)


def _stop(worker: _Worker) -> None:
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join()
    worker.conn.close()


def _serve(conn: Connection, work: Callable, setup: Callable[[], None] | None, parents_end: Connection,
           parent: int) -> None:
    """A worker's loop: answer each job of each chunk as it finishes, until the parent closes
    the pipe or dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # A forked child holds a copy of the parent's end of its own pipe: closed, the pipe ends
    # when the parent does, however it dies. On Linux the kernel also kills us with it.
    parents_end.close()
    _die_with(parent)
    with held() as warnings:
        if setup is not None:
            setup()
    _limit_memory()
    conn.send(warnings)
    while True:
        try:
            chunk = conn.recv()
        except EOFError:
            return
        for job in chunk:
            try:
                answer = (True, work(job))
            except Exception as exc:  # MemoryError too: one bad file must not stop the run
                answer = (False, f"{type(exc).__name__}: {exc}")
            conn.send(answer)


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
