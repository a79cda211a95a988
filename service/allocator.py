"""Memory allocator settings every buyrent process applies at start (the CLI and the web app).

The engine works on many short-lived numpy arrays of a few hundred kilobytes (a month-by-draw
cost line of the Monte Carlo is 87 x 500 doubles, 348 KB). Left to itself, glibc's malloc gives
memory at the top of its heap back to the system whenever a little is free there, and maps
large blocks afresh: each new array is then faulted in page by page and zeroed by the kernel
(44,600 page faults in a loop of 600 such arrays, none with the settings below). Keeping blocks
up to 32 MiB in the heap and trimming it only past 128 MiB free removes those faults: the plan
without its staged search took 123-136 ms instead of 172-176 ms in the same hour
(bench/engine.py), with the same peak memory (192 MB).

Only glibc has these knobs (``mallopt``); elsewhere nothing is changed.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import platform

M_TRIM_THRESHOLD = -1   # glibc's malloc.h
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20   # blocks below this come from the heap [bytes]
TRIM_THRESHOLD = 128 << 20  # free memory at the heap's top kept for reuse [bytes]

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
                    and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
