"""Give the memory a large step freed back to the operating system, and hold Python's cycle
collector off while a call runs.

glibc keeps freed blocks for reuse, and once a large block has been freed it serves blocks
up to that size from its heap too; the heap never shrinks past a block still in use. Tagging
a large repository frees its payloads that way: after a cold run the parent holds many times
what its objects need, and a search's postings build comes on top of it (bench/RESULTS.md:
memory.give_back). So the steps that
free much call `give_back` (glibc's malloc_trim); elsewhere it does nothing.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import threading


def give_back() -> None:
    """Return the heap's free pages to the OS, where the C library can (glibc)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


_held = {"calls": 0, "resume": False}  # calls running, and whether the collector ran before the first
_held_lock = threading.Lock()


@contextlib.contextmanager
def collector_held():
    """The cycle collector off while any call of any RepoMap runs, and back on (if it was on)
    when the last ends: a full collection that falls due inside a call walks every object the
    process holds, a large share of a kept RepoMap's map after an edit (bench/RESULTS.md:
    memory.collector_held), and a call makes no cycles worth collecting midway. A collection due then runs after the
    call, between a chat loop's turns; the CLI keeps it off throughout."""
    with _held_lock:
        if _held["calls"] == 0:
            _held["resume"] = gc.isenabled()
            gc.disable()
        _held["calls"] += 1
    try:
        yield
    finally:
        with _held_lock:
            _held["calls"] -= 1
            if _held["calls"] == 0 and _held["resume"]:
                gc.enable()
