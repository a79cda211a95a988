"""Server-side session ids: a session cookie is only honoured while its id is live.

Login stores a random id in ``web_sessions`` and in the (signed) cookie; logout marks it
revoked. A cookie without an id, with an unknown id, a revoked id or an id of another user is
treated as anonymous, so a cookie replayed after logout shows nothing.
"""
from __future__ import annotations

import secrets
from typing import Optional

from flask import session
from sqlalchemy.orm import Session

from service.web.tables import utc_now
from service.web.db import get_session, write_session
from service.web.tables import WebSession

KEY = "sid"


def start(s: Session, user_id: int) -> None:
    """Record a new session for ``user_id`` (in the caller's write transaction)."""
    sid = secrets.token_urlsafe(32)
    s.add(WebSession(id=sid, user_id=user_id))
    session[KEY] = sid


def is_live(user_id: Optional[int]) -> bool:
    sid = session.get(KEY)
    if user_id is None or not isinstance(sid, str):
        return False
    row = get_session().get(WebSession, sid)
    return row is not None and row.user_id == user_id and row.revoked_at is None


def revoke() -> None:
    sid = session.get(KEY)
    if isinstance(sid, str):
        with write_session() as s:
            row = s.get(WebSession, sid)
            if row is not None and row.revoked_at is None:
                row.revoked_at = utc_now()
