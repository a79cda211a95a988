"""A plan computed in this process (tests/support/service_plans.py, service/plans/planning.py):
a plan from a scenario and a usage file, with its phases heard, its charts, and the caches that
keep a revision's plan and workbook from being computed twice."""
from __future__ import annotations

import json

import pytest

from service.web.db import write_session
from service.web.tables import PlanJob
from sqlalchemy import select

from models.document import plan_document
from tests.support.plans import compute_plan
from models.scenario import Scenario
from service.ingest import read_usage
from models.refusals import Refusal
from tests.support.service_plans import plan_for
from tests.support.paths import SAMPLES

R1 = "/scenarios/1/revisions/1"
DAILY = SAMPLES / "usage_daily.csv"


def test_plan_for_hears_each_phase_and_plans_as_the_engine_does():
    # with a listener and draws, the plan is made twice: without draws ("planning"), then whole
    # ("uncertainty"); without draws once
    data = DAILY.read_bytes()
    scenario = Scenario.model_validate({"uncertainty": {"draws": 50}})
    heard: list[str] = []
    result = plan_for(scenario, data, DAILY.name, heard.append)
    assert heard == ["reading", "planning", "uncertainty"]
    engine = plan_document(compute_plan(scenario, read_usage(data, DAILY.name).profile))
    assert json.dumps(result.document, sort_keys=True) == json.dumps(engine, sort_keys=True)
    assert result.charts["months"] == result.document["months"]
    heard.clear()
    plan_for(scenario.with_changes(uncertainty={"draws": 0}), data, DAILY.name, heard.append)
    assert heard == ["reading", "planning"]


def test_a_bad_usage_file_is_a_planning_error_and_the_failed_phase():
    heard: list[str] = []
    with pytest.raises(Refusal, match="missing column timestamp"):
        plan_for(Scenario(), b"x,y\n1,2\n", "u.csv", heard.append)
    assert heard == ["reading", "failed"]


def test_xlsx_download_is_written_once_per_revision(login, app):
    # the workbook is a job's stored result: a second download (another user too) reads it
    client = login("ana")
    first = client.get(R1 + "/plan.xlsx").data
    assert first.startswith(b"PK")
    assert login("rita").get(R1 + "/plan.xlsx").data == first
    with app.app_context():
        with write_session() as s:
            jobs = s.scalars(select(PlanJob).where(PlanJob.kind == "workbook")).all()
            assert [(j.state, j.attempts, j.result) for j in jobs] == [("done", 1, first)]
