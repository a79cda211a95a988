"""A plan by stages (models.plan.Planner, issue 28): the static stage, the staged stage and
the complete plan agree with compute_plan, and a live preview's re-priced schedule costs what
the engine charges for that schedule as a proposal."""
from __future__ import annotations

import json

from tests.support.plans import Planner, compute_plan
from tests.support.engine_cases import growth_sample


def test_stages_end_where_compute_plan_does():
    scenario, profile = growth_sample()
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    planner = Planner(scenario, profile, current_month="2026-12")
    planner.add_static()
    static = planner.plan("static")
    assert "staged" not in static.document["strategies"] and static.document["stage"] == "static"
    planner.add_staged()
    full = planner.plan("complete", uncertainty=True)
    whole = compute_plan(scenario, profile, current_month="2026-12")
    assert json.dumps(full.document, sort_keys=True) == json.dumps(whole.document, sort_keys=True)
    # the static strategies do not move when the schedule joins them
    for name, s in static.document["strategies"].items():
        assert s["pv_cost"] == full.document["strategies"][name]["pv_cost"], name


def test_a_repriced_schedule_costs_what_it_costs_as_a_proposal():
    # the preview's stage "repriced": the last solved schedule under edited assumptions (a
    # dearer server) is priced by the same kernel as proposed.schedule; an independent path
    # through the engine (the proposal) gives the same PV to 1e-9
    scenario, profile = growth_sample()
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    solved = compute_plan(scenario, profile, current_month="2026-12")
    schedule = solved.strategies["staged"].schedule
    edited = scenario.with_changes(owned={"server_price": scenario.owned.server_price * 1.2})
    planner = Planner(edited, profile, current_month="2026-12")
    planner.add_static()
    assert planner.add_repriced(schedule)
    repriced = planner.plan("repriced")
    proposal = compute_plan(edited.with_changes(proposed={"schedule": [
        d.model_dump(mode="json") for d in schedule], "servers": None,
        "committed_gpus": {}}), profile, current_month="2026-12")
    pv, expected = repriced.strategies["staged"].pv_cost, proposal.strategies["proposed"].pv_cost
    assert abs(pv - expected) <= 1e-9 * abs(expected)
    # a dearer server costs the same schedule more
    assert pv > solved.strategies["staged"].pv_cost
    assert repriced.document["stage"] == "repriced"

