"""Give the memory a large step freed back to the operating system, and hold Python's cycle
collector off while a call runs.

glibc keeps freed blocks for reuse, and once a large block has been freed it serves blocks
up to that size from its heap too; the heap never shrinks past a block still in use. Tagging
a large repository frees hundreds of megabytes of payloads that way: after a cold run of the
kernel's drivers/gpu/drm/amd the parent held 695 MB, of which its objects were some 30 MB
(80 MB once trimmed), and a search's postings build came on top of it. So the steps that
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
    process holds, 10-20 ms of a kept RepoMap's map after an edit of Django (bench/speed.py),
    and a call makes no cycles worth collecting midway. A collection due then runs after the
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
