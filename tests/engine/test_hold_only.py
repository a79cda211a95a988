"""A proposal of no decision (issue 37, item 5): "keep what is held, buy nothing" is planned
and said, not dropped. An empty ``proposed.schedule`` stays "no proposal" (every stored
scenario dumps one), so the proposal is its own field, ``proposed.hold_only``."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from models.document import plan_document
from models.schedule_words import schedule_words
from tests.support.engine_cases import growth_sample
from tests.support.plans import compute_plan

NOTHING = {"servers": None, "committed_gpus": {}, "schedule": []}


def held_scenario():
    scenario, profile = growth_sample()
    return scenario.with_changes(uncertainty={"draws": 0}, position={
        "servers": [{"count": 3, "purchased": "2025-06"}]}), profile


def test_keeping_only_what_is_held_is_planned_and_costs_the_static_proposal_of_no_server():
    scenario, profile = held_scenario()
    hold = compute_plan(scenario.with_changes(proposed={**NOTHING, "hold_only": True}),
                        profile, current_month="2026-12")
    # an independent path through the engine: the static proposal of 0 new servers and no
    # commitment, on top of the same position, priced by the static kernel, not the schedule's
    static = compute_plan(scenario.with_changes(proposed={**NOTHING, "servers": 0}),
                          profile, current_month="2026-12")
    assert hold.strategies["proposed"].pv_cost == pytest.approx(
        static.strategies["proposed"].pv_cost, rel=1e-12, abs=1e-6)
    # what is held runs: the three servers cover work that on demand alone would pay for
    assert hold.strategies["proposed"].pv_cost < hold.strategies["on_demand"].pv_cost
    doc = plan_document(hold)["strategies"]["proposed"]
    assert doc["schedule"] == [] and doc["servers_bought"] == {"owned": 0}
    assert doc["servers_held"] == {"owned": 3}
    # an empty schedule without the field is still no proposal
    none = compute_plan(scenario.with_changes(proposed=NOTHING), profile,
                        current_month="2026-12")
    assert "proposed" not in none.strategies


def test_a_schedule_of_no_decision_says_so():
    scenario, _ = held_scenario()
    [held] = schedule_words(scenario, (), "2027-01")
    assert held.template == "Keep what is held; buy, sell and sign nothing."
    bare, _ = growth_sample()
    [nothing] = schedule_words(bare.with_changes(position={"servers": [], "commitments": []}),
                               iter(()), "2027-01")
    assert nothing.template == "Buy, sell and sign nothing."


@pytest.mark.parametrize("other", [{"servers": 2}, {"servers": 0},
                                   {"schedule": [{"month": "2027-01", "buy_servers": 1}]}])
def test_keeping_only_what_is_held_refuses_any_other_proposal(other):
    scenario, _ = held_scenario()
    with pytest.raises(ValidationError, match="proposed.hold_only"):
        scenario.with_changes(proposed={**NOTHING, "hold_only": True, **other})
