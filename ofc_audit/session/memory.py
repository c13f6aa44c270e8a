"""Giving freed memory back to the system between the stages of a long session.

glibc's allocator keeps the small blocks a stage frees (pandas' and Arrow's temporaries,
unpickled table pieces, Python objects) in its heap, so a process's RSS stays at the peak of
its worst stage and every later stage adds to it. ``malloc_trim(0)`` returns the free pages
of every heap. Measured at 100,000 hands (docs/PERFORMANCE.md, "Round 4: session memory"):
the session's parent holds about 60 MB less after the summaries. Elsewhere (another libc,
another system) this does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim


def release_memory() -> None:
    """Return the heap's free pages to the system (a few milliseconds)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
