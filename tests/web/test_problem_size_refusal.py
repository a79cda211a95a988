"""A scenario whose MILPs would pass the size bound is refused at save time, before a job is
queued, in English and in Korean (issue 40, item 2: nine demand scenarios x 240 monthly
decisions x 3 server types peaked at 7.2 GB in a job child)."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from service.web.db import write_session
from service.web.tables import PlanJob, Revision, User
from service.web.users import create_token

NINE = [{"name": f"p{i}", "growth_annual": 0.1 * i, "probability": 1 / 9} for i in range(9)]
TYPES = [{"id": "h100"},
         {"id": "b200", "available_from": "2027-07", "server_price": 515000,
          "relative_throughput": 2.2},
         {"id": "l40s", "server_price": 120000, "relative_throughput": 0.5}]


def counts(app) -> tuple[int, int]:
    with app.app_context():
        with write_session() as s:
            return (s.scalar(select(func.count()).select_from(Revision)),
                    s.scalar(select(func.count()).select_from(PlanJob)))


def too_large(app) -> dict:
    with app.app_context():
        with write_session() as s:
            data = s.get(Revision, 1).assumptions_dict
    return {**data, "finance": {**data["finance"], "horizon_months": 240},
            "server_types": TYPES,
            "staging": {**data.get("staging", {}), "decision_interval_months": 1,
                        "demand_scenarios": NINE}}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_api_refuses_a_scenario_too_large_to_plan_before_a_job(app, lang):
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "t")
    before = counts(app)
    response = app.test_client().post(
        "/api/v1/scenarios/1/revisions", json={"scenario": too_large(app), "note": "big"},
        headers={"Authorization": f"Bearer {token}", "Accept-Language": lang})
    assert response.status_code == 422
    message = response.get_json()["error"]["message"]
    assert counts(app) == before                      # no revision, no job queued
    if lang == "en":
        assert re.search(r"would have [\d,]+ variables x [\d,]+ constraints \(9 demand "
                         r"scenarios x 240 decision months\), more than the 25,000,000", message)
        assert "fewer demand scenarios, a longer decision interval or a shorter horizon" \
            in message
    else:
        assert "수요 시나리오 9개 × 의사결정 시점 240개" in message and "25,000,000" in message
        assert "계획 기간을 줄이세요" in message
        assert not re.search(r"[A-Za-z]{3,}", message), message


def test_preflight_counts_and_passes_a_scenario_inside_the_bound(app):
    """The default scenario decided monthly over 120 months with three demand scenarios is
    inside the bound: the save's check passes it (no plan is computed here)."""
    from models.scenario import Scenario
    from service.plans.revisions import preflight
    from models.problem_size import ProblemTooLarge
    data = too_large(app)
    with app.app_context():
        with write_session() as s:
            usage = s.get(Revision, 1).usage_file
            with pytest.raises(ProblemTooLarge):
                preflight(Scenario.model_validate(data), usage)
            data["finance"]["horizon_months"] = 120
            data["staging"]["demand_scenarios"] = [{**q, "probability": 1 / 3}
                                                   for q in NINE[:3]]
            data["server_types"] = []
            preflight(Scenario.model_validate(data), usage)


def test_a_plan_job_refuses_before_its_first_stage(app):
    """A job queued before the bound (or through a path without the save's check) is refused
    by its child before the static strategies: no stage is sent, the reason is the count."""
    from models.problem_size import ProblemTooLarge
    from models.scenario import Scenario
    from service.plans.jobs.compute import run_plan
    from tests.support.paths import SAMPLES
    sent = []
    spec = {"scenario": Scenario.model_validate(too_large(app)).model_dump_json(),
            "filename": "usage_hourly.csv", "month": "2026-12"}
    usage = (SAMPLES / "usage_hourly.csv").read_bytes()
    with pytest.raises(ProblemTooLarge, match="9 demand scenarios x 240 decision months"):
        run_plan(spec, {"usage": usage}, sent.append)
    assert sent == []
