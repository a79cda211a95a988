"""Memory allocator settings every buyrent process applies at start (the CLI and the web app).

The engine works on many short-lived numpy arrays of a few hundred kilobytes (a month-by-draw
cost line of the Monte Carlo is 87 x 500 doubles, 348 KB). Left to itself, glibc's malloc gives
memory at the top of its heap back to the system whenever a little is free there, and maps
large blocks afresh: each new array is then faulted in page by page and zeroed by the kernel
(44,600 page faults in a loop of 600 such arrays, none with the settings below). Keeping blocks
up to 32 MiB in the heap and trimming it only past 128 MiB free removes those faults: 16,200
page faults per compute_plan of bench/engine.py became about 50 (a 64 MiB trim threshold left
8,700), and in paired runs the plan without its staged search took 120 ms instead of 148 ms,
with the same peak memory (192 MB). A threaded server would keep that much
free in each of its malloc arenas (one per thread up to 8 per core): two arenas bound it. The
demo server under bench/load.py (2 workers x 8 threads, 20 s a phase) peaked at 1,241 MB
resident, against 1,175 MB without any of these settings and 1,479 MB with unbounded arenas.

Only glibc has these knobs (``mallopt``); elsewhere nothing is changed.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import platform

M_TRIM_THRESHOLD = -1   # glibc's malloc.h
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD = 32 << 20   # blocks below this come from the heap [bytes]
TRIM_THRESHOLD = 128 << 20  # free memory at the heap's top kept for reuse [bytes]
ARENAS = 2                  # malloc arenas a process may have (each keeps its own free memory)

_applied = False


def tune_allocator() -> bool:
    """Keep numpy's temporary arrays in the heap (see the module notes); idempotent.

    Returns
    -------
    bool
        True when the settings are in force (glibc), False where the C library has no
        ``mallopt``.
    """
    global _applied
    if _applied:
        return True
    if platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _applied = bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
                    and libc.mallopt(M_ARENA_MAX, ARENAS))
    return _applied
