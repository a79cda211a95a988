"""service/plans/cache.py: a plan from a scenario and a usage file, with its phases heard, its
charts, and the caches that keep a revision's plan and workbook from being computed twice."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import service.plans.cache
from models.document import plan_document
from models.plan import compute_plan
from models.scenario import Scenario
from service.ingest import read_usage
from service.plans.cache import PlanningError, plan_for
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
    with pytest.raises(PlanningError, match="missing column timestamp"):
        plan_for(Scenario(), b"x,y\n1,2\n", "u.csv", heard.append)
    assert heard == ["reading", "failed"]


def test_xlsx_download_is_written_once_per_revision(login, app, monkeypatch):
    client = login("ana")
    first = client.get(R1 + "/plan.xlsx").data
    cached = list((Path(app.instance_path) / "xlsx-cache").glob("*.xlsx"))
    assert len(cached) == 1 and cached[0].read_bytes() == first

    def no_recompute(_plan):
        raise AssertionError("the workbook was written again")
    monkeypatch.setattr(service.plans.cache, "plan_xlsx_bytes", no_recompute)
    assert client.get(R1 + "/plan.xlsx").data == first
