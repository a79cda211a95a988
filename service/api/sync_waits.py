"""How many API requests may wait for their plan at once, per user and in all.

A ``POST /api/v1/plans`` without ``Prefer: respond-async`` holds a request thread while its
plan computes (up to SYNC_SECONDS). Twelve such posts from one analyst held all 8 threads for
30 s each, and another user's page took 30 s instead of 25 ms (issue 40). A request waits only
while its user has fewer than SYNC_WAITS_PER_USER waits in flight and the process fewer than
SYNC_WAITS (defaults 1 and 2, of waitress's 8 threads); past either it answers 202 with the
job at once, as ``respond-async`` does. Counted per process (each gunicorn worker has its own).
"""
from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager
from typing import Iterator

PER_USER = 1
TOTAL = 2

_lock = threading.Lock()
_waiting: Counter = Counter()


@contextmanager
def slot(user_id: int, per_user: int = PER_USER, total: int = TOTAL) -> Iterator[bool]:
    """``True`` while this request may wait (its slot held until the block ends), else
    ``False`` (answer at once)."""
    with _lock:
        granted = _waiting[user_id] < per_user and sum(_waiting.values()) < total
        if granted:
            _waiting[user_id] += 1
    try:
        yield granted
    finally:
        if granted:
            with _lock:
                _waiting[user_id] -= 1
                if _waiting[user_id] <= 0:
                    del _waiting[user_id]
