"""Brute-force login limit, counted in the database so every thread, process and instance
sharing it sees the same count.

Each failed login adds a row to ``login_failures``. A login (even with the right password) is
refused with 429 while this client address has ``LOGIN_MAX_FAILURES_PER_USER`` failures for
this user name, or ``LOGIN_MAX_FAILURES_PER_IP`` failures for any names, within the last
``LOGIN_WINDOW_SECONDS``. Both counts belong to the address: failures from a stranger's address
never lock the user out at theirs (a per-name count would let anyone lock out any reviewer with
ten wrong passwords), while one address still gets 10 guesses per name and 50 in all per
window. Nothing resets a counter early: failures age out of the window. Rows older than the
window are pruned when failures are recorded.
"""
from __future__ import annotations

import math
import time
from typing import Optional

from flask import current_app, request
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from service.i18n import N_, _, ngettext
from service.web.db import get_session, write_session
from service.web.tables import LoginFailure

DEFAULTS = {"LOGIN_MAX_FAILURES_PER_USER": 10, "LOGIN_MAX_FAILURES_PER_IP": 50,
            "LOGIN_WINDOW_SECONDS": 15 * 60}
MESSAGE = N_("Too many failed logins from this address. Wait %(minutes)s before trying "
             "again.")


def settings() -> tuple[int, int, float]:
    c = current_app.config
    return (int(c.get("LOGIN_MAX_FAILURES_PER_USER", DEFAULTS["LOGIN_MAX_FAILURES_PER_USER"])),
            int(c.get("LOGIN_MAX_FAILURES_PER_IP", DEFAULTS["LOGIN_MAX_FAILURES_PER_IP"])),
            float(c.get("LOGIN_WINDOW_SECONDS", DEFAULTS["LOGIN_WINDOW_SECONDS"])))


def client_ip() -> str:
    return (request.remote_addr or "unknown")[:64]


def _retry_after(s: Session, which, limit: int, since: float, window: float,
                 now: float) -> Optional[int]:
    """Seconds until fewer than ``limit`` failures matching ``which`` remain in the window,
    or None if below."""
    if limit <= 0:
        return None
    times = s.scalars(select(LoginFailure.at).where(which, LoginFailure.at > since)
                      .order_by(LoginFailure.at.desc()).limit(limit)).all()
    if len(times) < limit:
        return None
    # The limit-th newest failure must leave the window before the count drops below limit.
    return max(1, math.ceil(times[-1] + window - now))


def blocked(username: str) -> Optional[int]:
    """Retry-After seconds when this login attempt must be refused, else None."""
    per_user, per_ip, window = settings()
    now = time.time()
    since = now - window
    s = get_session()
    ip = client_ip()
    waits = [_retry_after(s, (LoginFailure.ip == ip) & (LoginFailure.username == username[:80]),
                          per_user, since, window, now),
             _retry_after(s, LoginFailure.ip == ip, per_ip, since, window, now)]
    s.rollback()  # end the read snapshot: the next check must see newer failures
    waits = [w for w in waits if w is not None]
    return max(waits) if waits else None


def record_failure(username: str) -> None:
    _, _, window = settings()
    now = time.time()
    with write_session() as s:
        s.add(LoginFailure(at=now, username=username[:80], ip=client_ip()))
        s.execute(delete(LoginFailure).where(LoginFailure.at < now - window))


def message(retry_after: int) -> str:
    minutes = max(1, math.ceil(retry_after / 60))
    return _(MESSAGE, minutes=ngettext("%(num)d minute", "%(num)d minutes", minutes))


def failures(username: str) -> int:
    """Failures of ``username`` in the current window (for tests and the admin)."""
    _, _, window = settings()
    with write_session() as s:
        return s.scalar(select(func.count()).select_from(LoginFailure).where(
            LoginFailure.username == username, LoginFailure.at > time.time() - window))
