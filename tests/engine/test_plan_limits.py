"""Every recommendation keeps the scenario's own limits (issue 37, item 1): a static strategy
that breaks the capital budget, the hall's servers or its power is shown with what it needs
against what the scenario allows, and never recommended nor a headline's basis.

Each figure is checked against an independent sum: the plan document's own monthly capex and
upfront lines by calendar year, servers online by month, and kW per server x PUE by hand."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.capacity import CapacityPlan, ServerCohort
from models.plan_limits import BUDGET, POWER, SERVERS, breaches
from models.scenario import Scenario
from tests.support.engine_cases import csv_profile, fleet_case
from tests.support.plans import Planner, compute_plan
from tests.support.paths import SAMPLE_USAGE

BUDGET_700K = {"capital_budget_per_year": 700_000}


@pytest.fixture(scope="module")
def sample_profile():
    return csv_profile(SAMPLE_USAGE)


def year_capital(doc_strategy: dict) -> dict[str, float]:
    """Capex and upfront commitment payments by calendar year, from the document's rows."""
    out: dict[str, float] = {}
    for row in doc_strategy["monthly"]:
        if row["after_horizon"]:
            continue
        out[row["month"][:4]] = out.get(row["month"][:4], 0.0) + row["capex"] + \
            row["commitment_upfront"]
    return out


def test_a_budget_the_best_static_plan_breaks_is_said_and_not_recommended(sample_profile):
    """The built-in defaults on the sample usage buy 8 servers now ($2.64M in year one); with
    a $700k budget a year that plan is shown as breaking it, and the staged plan, which keeps
    it, is recommended."""
    s = Scenario().with_changes(staging=BUDGET_700K, uncertainty={"draws": 0})
    plan = compute_plan(s, sample_profile, current_month="2026-12")
    doc = plan.document
    optimal = doc["strategies"]["optimal"]
    assert optimal["servers"] == {"owned": 8}
    [b] = optimal["breaches"]
    assert b["limit"] == BUDGET and b["allowed"] == 700_000 and b["when"] == "2027"
    assert_allclose(b["needed"], year_capital(optimal)["2027"], rtol=1e-12)
    # by hand: 8 x ($300,000 server + $30,000 install), paid in the first month
    assert_allclose(b["needed"], 8 * (s.owned.server_price + s.owned.install_cost_per_server),
                    rtol=1e-12)
    assert 8 * (s.owned.server_price + s.owned.install_cost_per_server) == 2_640_000
    chosen = doc["recommendation"]
    assert chosen not in ("optimal", "buy_for_peak") and not doc["strategies"][chosen]["breaches"]
    for name, st in doc["strategies"].items():     # every plan without a breach keeps it
        if not st["breaches"]:
            assert max(year_capital(st).values()) <= 700_000 * (1 + 1e-9), name
    text = plan.explanation.text
    assert "breaks the scenario's limits, so it is not recommended" in text
    assert "it spends $2.6M in 2027 against a capital budget of $700.0k a year." in text
    # the fragile runner-up and the cloud-only comparison never name a forbidden plan
    assert "optimal costs only" not in text


def test_the_hall_limit_in_servers(sample_profile):
    s = Scenario().with_changes(staging={"max_servers": 5}, uncertainty={"draws": 0})
    doc = compute_plan(s, sample_profile, current_month="2026-12").document
    [b] = doc["strategies"]["optimal"]["breaches"]
    online = [row["servers_online"] for row in doc["strategies"]["optimal"]["monthly"]]
    assert (b["limit"], b["needed"], b["allowed"]) == (SERVERS, max(online), 5)
    assert b["when"] == doc["months"][int(np.argmax(online))]
    chosen = doc["strategies"][doc["recommendation"]]
    assert not chosen["breaches"]
    assert max(r["servers_online"] for r in chosen["monthly"]) <= 5


def test_the_hall_power_of_a_fleet():
    """Two server types: the power each static plan needs is each type's servers online x its
    maximum draw x PUE, summed by hand; a hall below the best static plan's need refuses it."""
    s, profile = fleet_case(10, months=24)
    free = compute_plan(s, profile)
    kw = {k.id: (k.power_kw_max or s.owned.power_kw_max) * s.owned.pue for k in s.server_types}
    optimal = free.strategies["optimal"]
    need = sum(optimal.servers_online_by_type.get(t, np.zeros(24)) * w for t, w in kw.items())
    assert need.max() > 0
    hall = 0.5 * float(need.max())
    limited = compute_plan(s.with_changes(staging={"max_power_kw": hall}), profile)
    [b] = limited.strategies["optimal"].breaches
    assert b.limit == POWER and b.allowed == hall
    assert_allclose(b.needed, need.max(), rtol=1e-12)
    chosen = limited.strategies[limited.recommendation]
    assert not chosen.breaches
    online = sum(chosen.servers_online_by_type.get(t, np.zeros(24)) * w
                 for t, w in kw.items()) if chosen.servers_online_by_type else np.zeros(24)
    assert np.max(online, initial=0.0) <= hall * (1 + 1e-9)


def test_what_the_team_holds_is_not_counted_against_a_strategy(sample_profile):
    """Held servers over the hall limit: all on demand adds nothing and breaks nothing; the
    capital of a year counts only cohorts the position does not hold."""
    s = Scenario().with_changes(position={"servers": [{"count": 6, "purchased": "2026-01"}]},
                                staging={"max_servers": 4, "capital_budget_per_year": 300_000},
                                uncertainty={"draws": 0})
    planner = Planner(s, sample_profile, current_month="2026-12")
    planner.add_static()
    ctx = planner.context
    assert breaches(ctx, planner.results["on_demand"]) == ()
    held = ctx.position
    more = CapacityPlan(held.servers + (ServerCohort(1, 0, 0, ctx.horizon),), held.commitments)
    [b, c] = breaches(ctx, ctx.evaluate("more", more))
    assert (b.limit, c.limit) == (BUDGET, SERVERS) and c.needed == 7 and c.allowed == 4
    assert b.needed == s.owned.server_price + s.owned.install_cost_per_server   # one new server
