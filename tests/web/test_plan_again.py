"""A plan that failed for a transient cause says so and offers "Plan again" (issue 40): a
budget, a memory cap or a worker that stopped is the server's limit, not the engine's answer
for the inputs. The engine's refusal keeps its wording and has no such button."""
from __future__ import annotations

import json
import time

from sqlalchemy import update

from service.plans.jobs import records
from service.web.db import write_session
from service.web.tables import PlanJob, PlanRecord
from tests.support.revisions import dearer_revision

URL = "/scenarios/1/revisions/2"


def failed_revision(app, error: str) -> int:
    """Revision 2 of scenario 1 (dearer servers) whose plan job failed with ``error``."""
    revision_id, _ana = dearer_revision(app, 330_000)
    with app.app_context():
        with write_session() as s:
            s.execute(update(PlanJob).where(PlanJob.revision_id == revision_id).values(
                state="failed", error=error, budget_seconds=records.BUDGETS["plan"],
                finished_at=time.time()))
    return revision_id


def test_a_plan_out_of_time_offers_plan_again_and_plans(app, login):
    revision_id = failed_revision(app, records.error_json(
        "This took longer than its budget of %(seconds)s s and was stopped.", cause="budget",
        seconds="60"))
    client = login("rita")         # a reviewer may ask too: nothing of the revision changes
    page = client.get(URL).get_data(as_text=True)
    assert "Planning stopped before the plan was complete" in page
    assert "longer than its budget of 60 s" in page and 'id="plan-again"' in page
    assert "The engine cannot plan this revision" not in page
    answer = client.post(URL + "/plan-again", {})
    assert answer.status_code == 302 and answer.headers["Location"].endswith(URL)
    with app.app_context():                       # the test client's queue runs it at once
        with write_session() as s:
            assert s.get(PlanRecord, revision_id) is not None
    page = client.get(URL).get_data(as_text=True)
    assert 'id="plan-again"' not in page and "Planning stopped" not in page


def test_the_engines_refusal_keeps_its_words_and_no_button(app, login):
    failed_revision(app, records.error_json("The engine cannot plan this: %(reason)s",
                                            reason="a test refusal"))
    client = login("ana")
    page = client.get(URL).get_data(as_text=True)
    assert "The engine cannot plan this revision" in page and 'id="plan-again"' not in page
    client.post(URL + "/plan-again", {})
    assert "a test refusal" in client.get(URL).get_data(as_text=True)


def test_the_job_document_says_its_cause_and_whether_it_can_run_again(app, login):
    failed_revision(app, records.error_json("x %(count)s", cause="worker", count=10))
    body = login("ana").get(URL + "/job").get_json()
    assert body["job"]["cause"] == "worker" and body["job"]["retryable"] is True


def test_korean_names_the_stop_and_the_button(app, login):
    failed_revision(app, records.error_json(
        "This took longer than its budget of %(seconds)s s and was stopped.", cause="budget",
        seconds="60"))
    client = login("ana")
    page = client.get(URL, headers={"Accept-Language": "ko"}).get_data(as_text=True)
    assert "Plan again" not in page and "Planning stopped" not in page
    assert 'id="plan-again"' in page
