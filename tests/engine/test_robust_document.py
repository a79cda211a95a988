"""The robust plan as a strategy of the plan document (issue 27): ``strategies.robust`` is the
expectation over the demand paths of each path's schedule costed on its own demand; the paths
default to the demand growth range's ends and its own growth."""
from __future__ import annotations

import math

import pytest
from numpy.testing import assert_allclose

from models.plan import build_state
from tests.support.plans import PRODUCT, compute_plan
from models.robust import demand_paths
from models.robust_document import padded_rows, weighted
from models.scenario import Scenario
from models.strategies import on_demand_capacity
from tests.support.engine_cases import robust_case


def test_weighted_by_hand():
    # paths with probabilities 0.25 and 0.75:
    #   pv 100 and 200 -> 0.25 x 100 + 0.75 x 200 = 175
    #   cash {2027: 40} and {2027: 20, 2028: 8} -> 2027: 10 + 15 = 25; 2028: 0 + 6 = 6
    #   flags False / True -> True (any path); a text -> the first; None anywhere -> None
    p = [0.25, 0.75]
    out = weighted([{"pv": 100.0, "cash": {"2027": 40.0}, "spot": False, "m": "2027-01",
                     "job": None},
                    {"pv": 200.0, "cash": {"2027": 20.0, "2028": 8.0}, "spot": True,
                     "m": "2027-01", "job": 3.0}], p)
    assert out == {"pv": 175.0, "cash": {"2027": 25.0, "2028": 6.0}, "spot": True,
                   "m": "2027-01", "job": None}


def test_a_month_after_the_last_payment_carries_the_cumulative_cost():
    # a path whose payments end in 2027-02: in 2027-03 it pays 0, its cumulative stays 30
    rows = [{"month": "2027-01", "total_cost": 10.0, "cumulative_cost": 10.0,
             "discounted_cumulative_cost": 9.0, "after_horizon": False},
            {"month": "2027-02", "total_cost": 20.0, "cumulative_cost": 30.0,
             "discounted_cumulative_cost": 27.0, "after_horizon": True}]
    out = padded_rows(rows, ["2027-01", "2027-02", "2027-03"])
    assert out[2] == {"month": "2027-03", "total_cost": 0.0, "cumulative_cost": 30.0,
                      "discounted_cumulative_cost": 27.0, "after_horizon": True}


@pytest.mark.robust_default
def test_default_paths_are_the_growth_range_ends_and_the_growth():
    # growth 40 %, default range -20 / +30 points: 20 %, 40 %, 70 % at 0.25 / 0.5 / 0.25
    s = Scenario.model_validate({"profile": {"growth_annual": 0.4}})
    paths, from_range = demand_paths(s)
    assert from_range
    assert [(q.name, q.probability) for q in paths] == [("low", 0.25), ("likely", 0.5),
                                                        ("high", 0.25)]
    assert_allclose([q.growth_annual for q in paths], [0.2, 0.4, 0.7], rtol=1e-15)
    # a range of no width: no robust plan; a low end of 0: low and likely are one path
    none = s.with_changes(uncertainty={"ranges": {"profile.growth_annual": {"low": 0,
                                                                            "high": 0}}})
    assert demand_paths(none) == ((), True)
    one_side = s.with_changes(uncertainty={"ranges": {"profile.growth_annual": {
        "low": 0, "high": 0.3}}})
    assert [(q.name, q.probability) for q in demand_paths(one_side)[0]] == [
        ("low", 0.75), ("high", 0.25)]
    # growth -80 % with the low end -20 points: -100 % is no demand; the path is -90 %
    steep = Scenario.model_validate({"profile": {"growth_annual": -0.8}})
    assert demand_paths(steep)[0][0].growth_annual == -0.9
    # growth 1000 % a year, the most a plan may have: the high end stays at a demand
    # scenario's bound, 1000 %, one path with likely (probability 0.75)
    fastest = Scenario.model_validate({"profile": {"growth_annual": 10.0}})
    assert [(q.name, q.growth_annual, q.probability) for q in demand_paths(fastest)[0]] == [
        ("low", 9.8, 0.25), ("likely", 10.0, 0.75)]
    # the switch: no paths from the range, the range kept for the tornado and Monte Carlo
    switched = s.with_changes(staging={"scenarios_from_growth_range": False})
    assert demand_paths(switched) == ((), True)
    assert switched.uncertainty.ranges["profile.growth_annual"].high == 0.3
    # scenarios of its own win
    given = Scenario.model_validate({"staging": {"demand_scenarios": [
        {"name": "only", "growth_annual": 0.1, "probability": 1.0}]}})
    assert [q.name for q in demand_paths(given)[0]] == ["only"]
    assert demand_paths(given)[1] is False


@pytest.fixture(scope="module")
def robust_plan():
    s, profile = robust_case(5)
    s = s.with_changes(uncertainty={"draws": 0})
    return compute_plan(s, profile), profile


def test_the_entry_is_the_expectation_of_each_path(robust_plan):
    plan, profile = robust_plan
    doc = plan.document
    r, entry = plan.robust, doc["strategies"]["robust"]
    p = [q.probability for q in r.paths]
    # pv_cost: the expected PV, sum p_s PV_s
    assert_allclose(entry["pv_cost"], math.fsum(q * x.pv_cost for q, x in zip(p, r.paths)),
                    rtol=1e-12)
    assert_allclose(entry["pv_cost"], entry["expected_pv"], rtol=1e-12)
    # the monthly rows add up: their total costs to the total, the last discounted
    # cumulative to the PV (a path's months after its last payment carry it)
    monthly = entry["monthly"]
    assert_allclose(sum(row["total_cost"] for row in monthly), entry["total_cost"], rtol=1e-12)
    assert_allclose(monthly[-1]["discounted_cumulative_cost"], entry["pv_cost"], rtol=1e-12)
    # demand by month: the paths' own, weighted (the high path's is larger than the plan's)
    # (each path's context built on its own: the plan with the path's growth)
    ctxs = [build_state(plan.scenario.with_changes(profile={"growth_annual": q.growth_annual}),
                          profile) for q in r.paths]
    demand = sum(q * c.tables.useful_by_month for q, c in zip(p, ctxs))
    assert_allclose([row["demand_gpu_hours"] for row in monthly[:len(demand)]], demand,
                    rtol=1e-12)
    # the ratio of expectations, not the expectation of ratios
    useful_pv = math.fsum(q * c.useful_pv for q, c in zip(p, ctxs))
    assert_allclose(entry["cost_per_useful_gpu_hour"], entry["pv_cost"] / useful_pv,
                    rtol=1e-12)
    # the schedule and purchase orders: what is decided now, identical on every path
    until = entry["decide_now_until"]
    assert all(d["month"] <= until for d in entry["schedule"])
    assert entry["schedule"] == [d for d in entry["scenarios"][0]["schedule"]
                                 if d["month"] <= until]
    assert all(o["month"] <= until for o in entry["purchase_orders"])
    assert entry["scenarios_from_range"] is False


def test_savings_compare_with_on_demand_over_the_same_paths(robust_plan):
    plan, profile = robust_plan
    doc, r = plan.document, plan.robust
    # on demand on each path: its own demand priced on demand, weighted by probability
    on_demand = math.fsum(q.probability * c.evaluate("on_demand", on_demand_capacity()).pv_cost
                          for q, c in zip(r.paths, r.contexts))
    assert_allclose(r.held_fixed["on_demand"], on_demand, rtol=1e-12)
    assert_allclose(doc["savings_vs_on_demand"]["robust"],
                    on_demand - doc["strategies"]["robust"]["pv_cost"], rtol=1e-12)
    # the cloud-only plan decided now, its commitments held on every path
    cloud = math.fsum(q.probability * c.pv(plan.strategies["cloud_only"].plan)
                      for q, c in zip(r.paths, r.contexts))
    assert_allclose(doc["savings_vs_cloud_only"]["robust"],
                    cloud - doc["strategies"]["robust"]["pv_cost"], rtol=1e-12)
    # never the recommendation: it plans for several demands, the others for one
    assert doc["recommendation"] != "robust"
    assert "robust" not in plan.strategies


@pytest.mark.robust_default
def test_a_plan_without_scenarios_gets_the_growth_range_paths():
    s, profile = robust_case(6, paths=[])
    s = s.with_changes(uncertainty={"draws": 0})
    plan = compute_plan(s, profile, options=PRODUCT)
    entry = plan.document["strategies"]["robust"]
    assert entry["scenarios_from_range"] is True
    assert [q["name"] for q in entry["scenarios"]] == ["low", "likely", "high"]
    assert_allclose([q["growth_annual"] for q in entry["scenarios"]], [0.3, 0.5, 0.8],
                    rtol=1e-12)
    # the range without width: no robust plan
    off = s.with_changes(uncertainty={"ranges": {"profile.growth_annual": {"low": 0,
                                                                           "high": 0}}})
    assert "robust" not in compute_plan(off, profile, options=PRODUCT).document["strategies"]
