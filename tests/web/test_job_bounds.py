"""A person's jobs are bounded and can be cancelled (issue 40): 60 API posts were accepted in
2.6 s and 200 heavy plans in 12 s, and nobody could stop their own job."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask import g
from sqlalchemy import select

from service.plans.jobs import records
from service.web.db import write_session
from service.web.tables import AuditEvent, User
from service.web.users import create_token
from tests.support.client import Browser
from tests.support.queued import queued_app as queued
from tests.support.revisions import dearer_revision


@pytest.fixture
def queued_app(tmp_path: Path, seeded_database: Path):
    """The seeded database behind an app whose jobs wait on a SQLite queue (no worker)."""
    with queued(tmp_path, seeded_database) as app:
        yield app


def bearer(app, name="ana"):
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.scalar(select(User).where(User.username == name)), "t")
    return {"Authorization": f"Bearer {token}", "Prefer": "respond-async"}


def body(i: int) -> dict:
    return {"scenario": {"uncertainty": {"draws": 0}},
            "usage": [{"timestamp": "2026-01", "gpu_hours": 1000 + i}]}


def test_a_persons_open_jobs_are_bounded_with_retry_after(queued_app):
    client, headers = queued_app.test_client(), bearer(queued_app)
    answers = [client.post("/api/v1/plans", json=body(i), headers=headers)
               for i in range(records.OPEN_PER_OWNER + 3)]
    assert [a.status_code for a in answers[:records.OPEN_PER_OWNER]] == \
        [202] * records.OPEN_PER_OWNER
    refused = answers[records.OPEN_PER_OWNER]
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == str(records.RETRY_AFTER_SECONDS)
    assert refused.get_json()["error"]["code"] == "too_many_requests"
    assert "waiting or running" in refused.get_json()["error"]["message"]
    # the same content again is its existing job, not a new one: never refused
    assert client.post("/api/v1/plans", json=body(0), headers=headers).status_code == 202
    # another person is not held up by the first one's jobs
    other = client.post("/api/v1/plans", json=body(1), headers=bearer(queued_app, "otto"))
    assert other.status_code == 202
    # one cancelled: room again
    first = answers[0].get_json()["id"]
    cancelled = client.delete(f"/api/v1/jobs/{first}", headers=headers)
    assert cancelled.status_code == 200 and cancelled.get_json()["state"] == "cancelled"
    assert client.post("/api/v1/plans", json=body(99), headers=headers).status_code == 202


def test_cancel_is_for_ones_own_open_job(queued_app):
    client, ana = queued_app.test_client(), bearer(queued_app)
    job = client.post("/api/v1/plans", json=body(1), headers=ana).get_json()["id"]
    otto = bearer(queued_app, "otto")
    assert client.delete(f"/api/v1/jobs/{job}", headers=otto).status_code == 404
    assert client.delete(f"/api/v1/jobs/{job}", headers=ana).status_code == 200
    again = client.delete(f"/api/v1/jobs/{job}", headers=ana)
    assert again.status_code == 409 and "already ended" in again.get_json()["error"]["message"]
    with queued_app.app_context():
        with write_session() as s:
            assert s.scalar(select(AuditEvent.details).where(
                AuditEvent.action == "api.cancel")) == f"job {job}"


def test_the_plan_page_cancels_its_owners_job(queued_app):
    """A revision saved (its plan job queued, no worker): its analyst sees Cancel, a reviewer
    does not; cancelling stops the job and says how to start it again."""
    from service.plans.stored import ensure_plan
    from service.web.db import get_session
    from service.web.tables import Revision
    revision_id, ana_id = dearer_revision(queued_app, 333_000)
    with queued_app.app_context():
        job = ensure_plan(get_session().get(Revision, revision_id), owner=f"user:{ana_id}")
    assert job.state == "queued"
    analyst = Browser(queued_app.test_client())
    analyst.login("ana")
    page = analyst.get("/scenarios/1/revisions/2").get_data(as_text=True)
    assert 'id="cancel-job"' in page
    reviewer = Browser(queued_app.test_client())
    reviewer.login("rita")
    assert 'id="cancel-job"' not in reviewer.get("/scenarios/1/revisions/2").get_data(
        as_text=True)
    assert reviewer.post("/scenarios/1/revisions/2/cancel", {}).status_code == 403
    answer = analyst.post("/scenarios/1/revisions/2/cancel", {})
    assert answer.status_code == 302
    with queued_app.app_context():
        assert records.fresh(job.id).state == "cancelled"


def test_a_job_shared_by_content_is_readable_by_each_who_asked(queued_app):
    """Issue 40: jobs are one per content, owned by the first to ask; the second user's job
    link answered 404. Share the computation, never the identity: each who asked may read it,
    only its starter may cancel it, and nobody else sees it."""
    client = queued_app.test_client()
    ana, otto, rex = (bearer(queued_app, n) for n in ("ana", "otto", "rex"))
    first = client.post("/api/v1/plans", json=body(7), headers=ana).get_json()
    second = client.post("/api/v1/plans", json=body(7), headers=otto).get_json()
    assert first["id"] == second["id"]
    assert client.get(f"/api/v1/jobs/{first['id']}", headers=otto).status_code == 200
    assert client.get(f"/api/v1/jobs/{first['id']}", headers=rex).status_code == 404
    refused = client.delete(f"/api/v1/jobs/{first['id']}", headers=otto)
    assert refused.status_code == 409 and "goes on for them" in \
        refused.get_json()["error"]["message"]
    assert client.delete(f"/api/v1/jobs/{first['id']}", headers=ana).status_code == 200


def test_two_revisions_of_one_content_get_their_own_workbook_label(app, login):
    """One analyst's revision 4 was labelled with another's "revision 2": a workbook job is per
    revision (its footer names it), the plan's computation shared."""
    from models.scenario import Scenario
    from service.plans.revisions import create_scenario
    from service.plans.stored import workbook_job
    from service.web.db import get_session
    from service.web.tables import Revision, ScenarioRecord
    with app.app_context():
        with write_session() as s:
            ana_first = s.get(ScenarioRecord, 1).latest
            otto = s.scalar(select(User).where(User.username == "otto"))
            copy = create_scenario(s, otto, Scenario.model_validate(ana_first.assumptions_dict),
                                   ana_first.usage_file)
            ids = (ana_first.id, copy.id)
        revisions = [get_session().get(Revision, i) for i in ids]
        assert revisions[0].content_hash == revisions[1].content_hash
        with app.test_request_context():
            g.user = get_session().get(User, revisions[1].author_id)
            jobs = [workbook_job(r, "en") for r in revisions]
    assert jobs[0].key != jobs[1].key
    labels = [json.loads(j.spec)["label"][:2] for j in jobs]
    assert labels[0][0] == labels[1][0] and [n for _, n in labels] == [1, 1]
    assert jobs[0].revision_id == ids[0] and jobs[1].revision_id == ids[1]
