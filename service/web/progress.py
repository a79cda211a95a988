"""Progress of long requests (uploads, plans, workbooks): which phase the server is in.

The page makes a random id, sends it with the request (form field or query ``progress_id``)
and polls ``GET /scenarios/progress/<id>`` while it waits; the request records each phase in
the database, so any worker process or instance can answer the poll. Rows are small and
short-lived: rows older than a day are deleted when a new one is written. A progress row is
bookkeeping, not user data: writing it never fails the request it describes.
"""
from __future__ import annotations

import re
import time
from typing import Callable, Optional

from flask import g, request
from sqlalchemy import delete
from sqlalchemy.exc import SQLAlchemyError

from service.web.tables import ProgressRecord
from service.web.db import get_session, write_session
from service.i18n import N_, _

PHASES = ("reading", "planning", "uncertainty", "workbook", "done", "failed")
PHASE_TEXT = {"reading": N_("Reading the usage file"), "planning": N_("Planning every strategy"),
              "uncertainty": N_("Computing the uncertainty (tornado and Monte Carlo)"),
              "workbook": N_("Writing the workbook"), "done": N_("Done"),
              "failed": N_("Failed")}   # English; sent through _() in the reader's language
VALID_ID = re.compile(r"^[A-Za-z0-9_-]{16,40}$")
KEEP_SECONDS = 86_400
Reporter = Callable[[str], None]


def nothing(_phase: str) -> None:
    """The reporter of a request that did not ask for progress."""


def from_request() -> Reporter:
    """A reporter for this request's ``progress_id``, or one that does nothing."""
    progress_id = request.values.get("progress_id", "")
    user = g.get("user")
    if user is None or not VALID_ID.match(progress_id):
        return nothing
    user_id = user.id

    def report(phase: str) -> None:
        assert phase in PHASES, phase
        try:
            with write_session() as s:
                now = time.time()
                row = s.get(ProgressRecord, progress_id)
                if row is None:
                    s.execute(delete(ProgressRecord).where(
                        ProgressRecord.updated_at < now - KEEP_SECONDS))
                    s.add(ProgressRecord(id=progress_id, user_id=user_id, phase=phase,
                                         updated_at=now))
                elif row.user_id == user_id:
                    row.phase, row.updated_at = phase, now
        except SQLAlchemyError:
            pass  # progress is a courtesy: the work itself goes on

    return report


def lookup(progress_id: str, user_id: int) -> Optional[dict]:
    """The phase of a progress id of this user, or None (unknown, or someone else's)."""
    if not VALID_ID.match(progress_id):
        return None
    row = get_session().get(ProgressRecord, progress_id)
    if row is None or row.user_id != user_id:
        return None
    return {"phase": row.phase, "text": _(PHASE_TEXT[row.phase]),
            "done": row.phase in ("done", "failed")}
