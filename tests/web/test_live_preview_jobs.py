"""The live preview of a heavy scenario (issue 28): beyond 120 months or 4 offers even the
static strategies take seconds, so the request only queues the preview job and answers."""
from __future__ import annotations

from service.scenarios.live_views import HEAVY_MONTHS, heavy
from models.scenario import Scenario


def test_a_long_horizon_or_many_offers_is_a_job_only():
    assert not heavy(Scenario())
    assert heavy(Scenario.model_validate({"finance": {"horizon_months": HEAVY_MONTHS + 12}}))
    offers = [{"id": f"o{i}", "term_months": 12, "discount": 0.3} for i in range(5)]
    assert heavy(Scenario.model_validate({"commitments": offers}))


def test_a_heavy_preview_answers_with_its_job_and_no_plan(login, app):
    from tests.support.client import form_data
    from service.web.db import write_session
    from service.web.tables import Revision
    client = login("ana")
    with app.app_context():
        with write_session() as s:
            data = form_data(s.get(Revision, 1).assumptions_dict)
    data["finance.horizon_months"] = str(HEAVY_MONTHS + 12)
    body = client.post("/scenarios/1/preview", data).get_json()
    assert body["valid"] and body["pending"] and "cards_html" not in body
    job = client.get(body["job_url"]).get_json()       # the immediate queue ran it
    assert job["job"]["state"] == "done" and "cards_html" in job
