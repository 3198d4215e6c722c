"""Give the memory a large step freed back to the operating system.

glibc keeps freed blocks for reuse, and once a large block has been freed it serves blocks
up to that size from its heap too; the heap never shrinks past a block still in use. Tagging
a large repository frees hundreds of megabytes of payloads that way: after a cold run of the
kernel's drivers/gpu/drm/amd the parent held 695 MB, of which its objects were some 30 MB
(80 MB once trimmed), and a search's postings build came on top of it. So the steps that
free much call `give_back` (glibc's malloc_trim); elsewhere it does nothing.
"""

from __future__ import annotations

import functools


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
