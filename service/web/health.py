"""``/healthz`` and the "no worker" banner: is the service up, and are its plans moving?

When the embedded worker that ``buyrent serve`` starts had died, pages answered 200 and plans
stayed queued forever, with nothing to say so (issue 40). ``/healthz`` (no login: a load
balancer's or a monitor's probe; counts only, nothing of anyone's plans) answers the
database's state, the queue's depth and the oldest waiting job's age, 200 while plans move and
503 when the database is away or a job has waited longer than STALLED_SECONDS with no job
claimed meanwhile. Every signed-in page shows a banner in the latter case.
"""
from __future__ import annotations

import time
from typing import Any, Optional

from flask import Blueprint, Flask, g, jsonify
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from service.i18n import _
from service.web.db import get_session
from service.web.tables import PlanJob

bp = Blueprint("health", __name__)
STALLED_SECONDS = 60.0    # a queued job this old, and no claim this recent: no worker works


def queue_state() -> dict[str, Any]:
    """Counts of the jobs by state, the oldest queued job's age and the last claim's [s]."""
    s = get_session()
    t = time.time()
    counts = dict(s.execute(select(PlanJob.state, func.count()).where(
        PlanJob.state.in_(("waiting", "queued", "running"))).group_by(PlanJob.state)).all())
    oldest = s.scalar(select(func.min(PlanJob.queued_at)).where(PlanJob.state == "queued"))
    last = s.scalar(select(func.max(PlanJob.started_at)))
    return {"queued": counts.get("queued", 0), "waiting": counts.get("waiting", 0),
            "running": counts.get("running", 0),
            "oldest_queued_seconds": None if oldest is None else round(t - oldest, 1),
            "last_claim_seconds": None if last is None else round(t - last, 1)}


def stalled(state: dict[str, Any]) -> bool:
    """A job queued for over STALLED_SECONDS and no job claimed within them."""
    oldest, last = state["oldest_queued_seconds"], state["last_claim_seconds"]
    return oldest is not None and oldest > STALLED_SECONDS and \
        (last is None or last > STALLED_SECONDS)


@bp.get("/healthz")
def healthz():
    try:
        state = queue_state()
    except SQLAlchemyError:
        get_session().rollback()
        return jsonify({"status": "down", "database": "unreachable"}), 503
    bad = stalled(state)
    return jsonify({"status": "stalled" if bad else "ok", "database": "ok",
                    "queue": state}), 503 if bad else 200


def banner() -> Optional[str]:
    """The signed-in page's warning when no worker has taken a job for a minute, else None."""
    if g.get("user") is None:
        return None
    try:
        state = queue_state()
    except SQLAlchemyError:
        get_session().rollback()
        return None
    if not stalled(state):
        return None
    return _("No plan worker has taken a job for %(minutes)s min: %(count)s plans are waiting. "
             "An administrator should check the worker (buyrent worker, or the one buyrent "
             "serve starts) and /healthz.", minutes=int(state["oldest_queued_seconds"] // 60),
             count=state["queued"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.context_processor(lambda: {"worker_banner": banner})
