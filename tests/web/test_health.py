"""``/healthz`` and the banner when no worker takes jobs (issue 40): when the worker had died,
pages answered 200 and plans stayed queued forever with nothing to say so."""
from __future__ import annotations

import time

from service.web.health import STALLED_SECONDS
from service.web.db import write_session
from service.web.tables import PlanJob


def queued_job(app, age: float, key: str = "stalled") -> None:
    with app.app_context():
        with write_session() as s:
            t = time.time()
            s.add(PlanJob(kind="plan", key=key, engine="e", spec="{}", owner_key="user:1",
                          state="queued", created_at=t - age, queued_at=t - age,
                          budget_seconds=900.0, attempts=0))


def test_healthz_answers_without_login_with_the_queue(app):
    body = app.test_client().get("/healthz")
    assert body.status_code == 200
    data = body.get_json()
    assert data["status"] == "ok" and data["database"] == "ok"
    assert set(data["queue"]) == {"queued", "waiting", "running", "oldest_queued_seconds",
                                  "last_claim_seconds"}


def test_a_job_waiting_over_a_minute_with_no_claim_is_a_stall(app, login):
    queued_job(app, 30)
    assert app.test_client().get("/healthz").status_code == 200     # young: not yet
    assert "worker-banner" not in login("ana").get("/scenarios/").get_data(as_text=True)
    queued_job(app, STALLED_SECONDS + 90, key="old")
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    data = answer.get_json()
    assert data["status"] == "stalled" and data["queue"]["queued"] == 2
    assert data["queue"]["oldest_queued_seconds"] >= STALLED_SECONDS + 90
    page = login("ana").get("/scenarios/").get_data(as_text=True)
    assert 'id="worker-banner"' in page and "No plan worker has taken a job for 2 min" in page
    korean = login("ana").get("/scenarios/", headers={"Accept-Language": "ko"})
    assert 'id="worker-banner"' in korean.get_data(as_text=True)
    assert "No plan worker" not in korean.get_data(as_text=True)
    # signed out: no banner on the login page
    assert "worker-banner" not in app.test_client().get("/login").get_data(as_text=True)


def test_a_recent_claim_means_the_workers_are_busy_not_gone(app):
    queued_job(app, STALLED_SECONDS + 90)
    with app.app_context():
        with write_session() as s:
            t = time.time()
            s.add(PlanJob(kind="plan", key="busy", engine="e", spec="{}", owner_key="user:2",
                          state="running", created_at=t - 5, queued_at=t - 5, started_at=t - 5,
                          budget_seconds=900.0, attempts=1))
    assert app.test_client().get("/healthz").status_code == 200
