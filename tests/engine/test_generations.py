"""A fleet of several server generations (issue 26): proofs of the optimum, each a test.

(a) the static and the staged optimum equal brute force on small cases (2 types, 2 decision
points); (b) neither is dearer than the best plan with one type of each type; (c) the engine's
costing of the staged schedule through ``proposed.schedule`` equals the optimizer's objective to
1e-9; (d) the hall limits (servers, power) and the budget are never exceeded; (e) one type is
today's plan.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.capacity import Capacity
from models.schedule_cohorts import ScheduleError, schedule_plan
from models.plan import build_state
from tests.support.plans import compute_plan
from models.document import plan_document
from models.scenario import Scenario, scenario_document
from models.scenario_schedule import Decision
from models.staged import fleet_static_optimum, staged_optimum
from models.staged_problem import decision_months
from tests.support.engine_cases import B200, demand, fleet_case, hourly_profile

NO_DRAWS = {"draws": 0}


@pytest.mark.parametrize("seed, b200_from", [(1, None), (2, "2027-07"), (3, None)])
def test_a_static_fleet_optimum_equals_brute_force(seed, b200_from):
    """Every count of 0-4 H100 and 0-3 B200 servers and 0-3 blocks of the offer, with and
    without spot: the MILP's static decision costs the least of them (B200 sold from month 7
    cannot be part of a static plan)."""
    s, profile = fleet_case(seed, b200_from)
    ctx = build_state(s, profile)
    found = fleet_static_optimum(ctx)
    assert found.gap == 0.0
    b200 = range(4) if b200_from is None else range(1)
    best = min(ctx.pv(Capacity(0, {"1y": 8 * k}, spot, servers_by_type={"h100": a, "b200": b}))
               for a in range(5) for b in b200 for k in range(4) for spot in (True, False))
    assert_allclose(ctx.pv(found.capacity), best, rtol=1e-9)
    assert_allclose(found.objective, ctx.pv(found.capacity), rtol=1e-9)


@pytest.mark.parametrize("seed, b200_from", [(4, None), (5, "2027-07")])
def test_a_staged_fleet_optimum_equals_brute_force(seed, b200_from):
    """Decisions in months 1 and 7, 0-3 H100, 0-2 B200 and 0-2 blocks at each: the staged
    optimum lies in that range and costs what the cheapest enumerated schedule costs."""
    s, profile = fleet_case(seed, b200_from)
    ctx = build_state(s, profile)
    assert decision_months(s, 12, "2027-01") == [0, 6]
    found = staged_optimum(ctx)
    assert found.gap == 0.0
    for d in found.decisions:
        assert d.buy.get("h100", 0) <= 3 and d.buy.get("b200", 0) <= 2 and not d.sell
        assert d.commit.get("1y", 0) <= 16
    best = np.inf
    for first in itertools.product(range(4), range(3), range(3)):
        if b200_from and first[1]:
            continue                                     # B200 not sold in month 1
        for second in itertools.product(range(4), range(3), range(3)):
            decisions = [Decision(month=month, buy={"h100": c[0], "b200": c[1]},
                                  commit={"1y": 8 * c[2]})
                         for month, c in (("2027-01", first), ("2027-07", second))]
            for use_spot in (True, False):
                plan = schedule_plan(s, decisions, "2027-01", 12, ctx.position, use_spot)
                best = min(best, ctx.pv(plan))
    assert_allclose(found.objective, best, rtol=1e-6)
    assert found.objective <= best * (1 + 1e-9)


@pytest.mark.parametrize("seed", [6, 7])
def test_b_never_dearer_than_the_best_plan_of_one_type(seed):
    s, profile = fleet_case(seed, months=24)
    both = compute_plan(s, profile).strategies
    for kind in s.server_types:
        alone = compute_plan(s.model_copy(update={"server_types": (kind,)}), profile).strategies
        for name in ("optimal", "staged"):
            assert both[name].pv_cost <= alone[name].pv_cost * (1 + 1e-9), (kind.id, name)


@pytest.mark.parametrize("seed", [8, 9])
def test_c_engine_costing_of_the_fleet_schedule_equals_the_objective(seed):
    s, profile = fleet_case(seed, "2027-07", months=24,
                            position={"servers": [{"count": 2, "purchased": "2025-03",
                                                   "type": "h100"}]})
    s = s.with_changes(staging={"allow_sales": True})
    found = staged_optimum(build_state(s, profile))
    proposed = s.with_changes(proposed={"schedule": [d.model_dump() for d in found.decisions]})
    plan = compute_plan(proposed, profile)
    assert_allclose(plan.strategies["proposed"].pv_cost, found.objective, rtol=1e-9)


def test_d_hall_power_and_budget_limits_hold():
    s, profile = fleet_case(10, months=24)
    free = compute_plan(s, profile).strategies["staged"]
    kinds = {k.id: (k.power_kw_max or s.owned.power_kw_max) * s.owned.pue
             for k in s.server_types}

    def power(r) -> np.ndarray:
        return sum(r.servers_online_by_type[t] * kw for t, kw in kinds.items())

    hall, kw = max(1, int(free.servers_online.max()) - 1), 0.7 * float(power(free).max())
    limited = compute_plan(s.with_changes(staging={"max_servers": hall, "max_power_kw": kw,
                                                   "capital_budget_per_year": 2e6}), profile)
    r = limited.strategies["staged"]
    assert r.servers_online.max() <= hall
    assert power(r).max() <= kw * (1 + 1e-9)
    first = np.datetime64("2027-01", "M")
    capex_by_year: dict[str, float] = {}
    for m, paid in enumerate(r.lines["capex"]):
        year = str(first + m)[:4]
        capex_by_year[year] = capex_by_year.get(year, 0.0) + float(paid)
    assert all(v <= 2e6 * (1 + 1e-9) for v in capex_by_year.values())
    assert r.pv_cost >= free.pv_cost * (1 - 1e-9)


def test_e_one_server_type_is_todays_plan():
    """A scenario whose only server type changes nothing prices every strategy as the
    scenario without server types (1e-9)."""
    s, profile = fleet_case(11, months=24)
    today = s.model_copy(update={"server_types": ()})
    one = s.model_copy(update={"server_types": (s.server_types[0].model_copy(
        update={"server_price": None}),)})
    a = compute_plan(today, profile).strategies
    b = compute_plan(one, profile).strategies
    assert a.keys() == b.keys()
    for name in a:
        assert_allclose(b[name].pv_cost, a[name].pv_cost, rtol=1e-9, err_msg=name)


def test_b200_does_more_work_per_gpu_hour_and_takes_work_first():
    """Demand is in work of the reference GPU: a B200 server of 8 GPUs at 2.2 and 99 % does
    8 x 0.99 x 2.2 = 17.424 GPU-hours of work an hour; with lower busy energy per unit of work
    ((14.3 - 4.0) / 8 / 2.2 = 0.585 kW against (10.2 - 3.0) / 8 = 0.9 kW) it takes work
    before the H100."""
    s, _ = fleet_case(12)
    ctx = build_state(s, hourly_profile(np.full(24 * 365, 30.0)))
    assert [ctx.fleet[i].id for i in ctx.merit] == ["b200", "h100"]
    assert_allclose(ctx.fleet[1].per_server, 17.424, rtol=1e-12)
    plan = ctx.capacity_plan(Capacity(0, {}, True, servers_by_type={"h100": 1, "b200": 1}))
    v = ctx.volumes(plan)
    hours = ctx.calendar.hours
    # a flat 30 GPUs is more than 17.424 + 7.92: both types run every hour
    assert_allclose(v.owned_by_type["b200"], 17.424 * hours, rtol=1e-9)
    assert_allclose(v.owned_by_type["h100"], 7.92 * hours, rtol=1e-9)


def test_resale_drops_when_the_successor_arrives():
    """An H100 bought in month 1 and sold at the end of month 12 returns 300,000 x 0.65 =
    195,000; with a B200 successor from 2027-07 and a 30 % drop, 195,000 x 0.7 = 136,500."""
    s = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": 12},
        "server_types": [{"id": "h100", "successor": "b200", "resale_drop_at_successor": 0.3},
                         {**B200, "available_from": "2027-07"}], "uncertainty": NO_DRAWS})
    steady, _ = demand(1, 20.0, interruptible=0.0)
    ctx = build_state(s, hourly_profile(steady))
    r = ctx.evaluate("x", Capacity(0, {}, True, servers_by_type={"h100": 1}))
    assert_allclose(r.lines["resale_credit"][11], 136_500, rtol=1e-12)


def test_schedule_buys_only_inside_a_types_window():
    s, profile = fleet_case(13, "2027-07")
    with pytest.raises(ScheduleError, match="b200 cannot be bought"):
        schedule_plan(s, [Decision(month="2027-01", buy={"b200": 1})], "2027-01", 12)


def test_unknown_types_are_refused():
    with pytest.raises(ValueError, match="unknown server type 'a100'"):
        Scenario.model_validate({"server_types": [{"id": "h100"}],
                                 "position": {"servers": [{"count": 1, "type": "a100"}]}})
    with pytest.raises(ValueError, match="successor names unknown type"):
        Scenario.model_validate({"server_types": [{"id": "h100", "successor": "x"}]})
    with pytest.raises(ValueError, match="power_kw_idle"):
        Scenario.model_validate({"server_types": [{"id": "h100", "power_kw_max": 2.0}]})


def test_the_plan_document_counts_servers_per_type():
    s, profile = fleet_case(14, "2027-07", months=24)
    doc = plan_document(compute_plan(s, profile))
    optimal, staged = doc["strategies"]["optimal"], doc["strategies"]["staged"]
    assert set(optimal["servers"]) == {"h100", "b200"} and optimal["servers"]["b200"] == 0
    row = staged["monthly"][12]
    assert sum(row["servers_online_by_type"].values()) == row["servers_online"]
    assert all("buy" in d or d["buy_servers"] == 0 for d in staged["schedule"])
    assert "server_types" in doc["scenario"]


def test_a_plan_of_one_type_echoes_its_scenario_as_before():
    s = Scenario.model_validate({"uncertainty": NO_DRAWS})
    echoed = scenario_document(s)
    assert "server_types" not in echoed and "max_power_kw" not in echoed["staging"]
    assert "servers_by_type" not in echoed["proposed"]


def test_purchase_orders_and_cash_by_year_per_type():
    """Each purchase is an order line per type, its cash the type's price x count (a B200 at
    its own price, an H100 at the scenario's); by year, purchases per type add up to the
    year's purchases."""
    s, profile = fleet_case(15, "2027-07", months=24)
    doc = plan_document(compute_plan(s, profile))["strategies"]["staged"]
    prices = {t.id: (t.server_price or s.owned.server_price) + s.owned.install_cost_per_server
              for t in s.server_types}
    buys = [o for o in doc["purchase_orders"] if o["action"] == "buy"]
    assert buys and all("type" in o for o in buys)
    for o in buys:   # no price trend: every server costs its type's price + install
        assert_allclose(o["cash"], o["quantity"] * prices[o["type"]], rtol=1e-12)
    cash = doc["cash"]
    for year, detail in cash["by_year_detail"].items():
        assert_allclose(sum(cash["purchases_by_type"].get(year, {}).values()),
                        detail["purchases"], rtol=1e-12, atol=1e-6)
