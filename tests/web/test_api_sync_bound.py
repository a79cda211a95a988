"""Synchronous API posts are bounded (issue 40): twelve POST /api/v1/plans without
``Prefer: respond-async`` from one analyst held all 8 request threads for 30 s each, and another
user's page took 30 s. A user waits for one plan at a time, the server for two; past that the
answer is 202 with the job at once."""
from __future__ import annotations

import threading

import service.api.views as views
from service.web.db import write_session
from service.web.tables import User
from service.web.users import create_token

BODY = {"scenario": {"uncertainty": {"draws": 0}, "finance": {"horizon_months": 12}},
        "usage": [{"timestamp": "2026-01", "gpu_hours": 50000}]}


def tokens(app, *names):
    with app.app_context():
        with write_session() as s:
            return [create_token(s, s.query(User).filter_by(username=n).one(), "t")
                    for n in names]


def post(app, token, body=BODY):
    return app.test_client().post("/api/v1/plans", json=body,
                                  headers={"Authorization": f"Bearer {token}"})


def hold_first_wait(monkeypatch) -> tuple[threading.Event, threading.Event, list]:
    """Make the first request that waits for its plan wait until the test releases it; the
    later ones look once. Returns (entered, release, calls: the job ids that waited)."""
    entered, release = threading.Event(), threading.Event()
    real = views.wait_for
    calls: list = []

    def held(job, seconds):
        calls.append(job.id)
        if len(calls) == 1:
            entered.set()
            release.wait(60)
        return real(job, 0)

    monkeypatch.setattr(views, "wait_for", held)
    return entered, release, calls


def test_a_users_second_synchronous_post_answers_202_at_once(app, monkeypatch):
    entered, release, calls = hold_first_wait(monkeypatch)
    ana, otto = tokens(app, "ana", "otto")
    answers = {}
    first = threading.Thread(target=lambda: answers.setdefault("first", post(app, ana)))
    first.start()
    try:
        assert entered.wait(60)
        second = post(app, ana, {**BODY, "usage": [{"timestamp": "2026-02",
                                                    "gpu_hours": 40000}]})
        assert second.status_code in (200, 202)
        assert len(calls) == 1, "the second post of the same user waited too"
        if second.status_code == 202:
            assert second.headers["Location"].startswith("/api/v1/jobs/")
        # another user may still wait: the server's bound is two
        other = post(app, otto, {**BODY, "usage": [{"timestamp": "2026-03",
                                                    "gpu_hours": 30000}]})
        assert other.status_code in (200, 202) and len(calls) == 2
    finally:
        release.set()
        first.join(60)
    assert answers["first"].status_code in (200, 202)


def test_the_server_bound_counts_every_user(app, monkeypatch):
    app.config["SYNC_WAITS"] = 1
    entered, release, calls = hold_first_wait(monkeypatch)
    ana, otto = tokens(app, "ana", "otto")
    first = threading.Thread(target=lambda: post(app, ana))
    first.start()
    try:
        assert entered.wait(60)
        assert post(app, otto).status_code in (200, 202) and len(calls) == 1
    finally:
        release.set()
        first.join(60)
