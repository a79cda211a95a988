"""The tornado and the Monte Carlo of a fleet of server types (issue 26): each type's price and
throughput move on their own, and every draw is dispatched by type in its own merit order.

The vectorised draws (models/draws.py, models/fleet_draws.py) are checked against the engine's
own context at each drawn value (models/uncertainty.draw_context), which dispatches and prices
one scenario at a time by a separate path (models/strategies.py owned_by_type)."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.assumption_values import base_value, low_high, with_values
from models.assumptions import assumption, assumptions_for
from models.capacity import Capacity
from models.draws import draw_pvs
from models.fleet_draws import fleet_draws
from models.plan import build_state
from models.staged import fleet_static_optimum, staged_optimum
from models.uncertainty import draw_context, monte_carlo, tornado
from models.scenario import Scenario
from tests.support.engine_cases import demand, hourly_profile

H100 = {"id": "h100", "server_price": 250_000}
B200 = {"id": "b200", "server_price": 520_000, "power_kw_max": 14.3, "power_kw_idle": 4.0,
        "relative_throughput": 2.2}


def fleet(seed: int = 3, **extra):
    rng = np.random.default_rng(seed)
    s = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": 12,
                    "discount_rate_annual": 0.08},
        "on_demand": {"price_per_gpu_hour": float(rng.uniform(5, 8))},
        "profile": {"growth_annual": 0.4},
        "commitments": [{"id": "1y", "term_months": 12, "discount": 0.4, "block_gpus": 8}],
        "staging": {"decision_interval_months": 6},
        "server_types": [H100, B200], "uncertainty": {"draws": 24}, **extra})
    steady, inter = demand(seed, 24.0)
    return s, hourly_profile(steady, inter)


def test_each_type_has_its_own_price_and_throughput_rows():
    s, _ = fleet()
    keys = [a.key for a in assumptions_for(s)]
    assert "server_price" not in keys           # the types' own prices replace it
    # h100 gives no throughput of its own: it is the owned servers' (1.0), the reference the
    # usage is measured in, so it is not drawn (issue 36: a type draws what it sets itself)
    assert keys[-3:] == ["server_price@h100", "server_price@b200", "relative_throughput@b200"]
    # each type's range is the owned field's, as a change from the type's own value:
    # B200 throughput 2.2 x (1 - 0.15) = 1.87 and 2.2 x (1 + 0.05) = 2.31
    assert low_high(s, "relative_throughput@b200") == pytest.approx((1.87, 2.31), rel=1e-12)
    # B200 price 520,000 x (1 - 0.10) = 468,000 and x (1 + 0.06) = 551,200
    assert low_high(s, "server_price@b200") == pytest.approx((468_000, 551_200), rel=1e-12)
    assert base_value(s, "server_price@h100") == 250_000
    assert assumption("relative_throughput@b200").server_type == "b200"
    one_type = Scenario.model_validate({})
    assert "relative_throughput" not in [a.key for a in assumptions_for(one_type)]
    moved = with_values(s, {"relative_throughput@b200": 1.9, "server_price@h100": 240_000})
    assert [t.relative_throughput for t in moved.server_types] == [None, 1.9]
    assert [t.server_price for t in moved.server_types] == [240_000, 520_000]


def test_tornado_of_a_fleet_matches_fresh_engine_contexts():
    s, profile = fleet()
    ctx = build_state(s, profile)
    staged = staged_optimum(ctx).plan
    caps = {"on_demand": Capacity(0, {}, True), "optimal": fleet_static_optimum(ctx).capacity,
            "staged": staged}
    rows = {r["assumption"]: r for r in tornado(ctx, caps, profile, judged="optimal")}
    assert rows["server_price@b200"]["server_type"] == "b200"
    assert "relative_throughput@h100" not in rows
    for key in ("server_price@h100", "server_price@b200", "relative_throughput@b200",
                "electricity_price", "availability"):
        lo, hi = low_high(s, key)
        for value, saving in ((lo, rows[key]["saving_low"]), (hi, rows[key]["saving_high"])):
            c = build_state(with_values(s, {key: value}), profile)
            expected = (c.evaluate("a", caps["on_demand"]).pv_cost
                        - c.evaluate("b", caps["optimal"]).pv_cost)
            assert_allclose(saving, expected, rtol=1e-9, atol=1e-6)


def test_monte_carlo_draws_of_a_fleet_equal_the_engine_at_each_draw():
    s, profile = fleet(5)
    ctx = build_state(s, profile)
    plans = {"staged": staged_optimum(ctx).plan,
             "optimal": ctx.capacity_plan(fleet_static_optimum(ctx).capacity)}
    mc = monte_carlo(ctx, plans, 24, seed=11)
    assert np.ptp(mc.values["relative_throughput@b200"]) > 0
    for i in range(24):
        c = draw_context(ctx, mc.values, i)
        for name, plan in plans.items():
            assert_allclose(mc.pv[name][i], c.pv(plan), rtol=1e-9)


def test_a_throughput_draw_can_change_which_type_takes_work_first():
    """B200 at 2.2: its busy energy per unit of work, (14.3 - 4.0) / 8 / 2.2 = 0.585 kW, is
    below H100's (10.2 - 3.0) / 8 = 0.9 kW (the owned defaults), so it takes work first; at a
    throughput of 1.2 it is 10.3 / 8 / 1.2 = 1.073 kW: H100 first. The draws' order follows, and the PV of
    each draw equals the engine's, whose merit order is computed from the drawn scenario."""
    s, profile = fleet(7)
    ctx = build_state(s, profile)
    assert [ctx.fleet[i].id for i in ctx.merit] == ["b200", "h100"]
    n = 2
    values = {a.key: np.full(n, base_value(s, a.key)) for a in assumptions_for(s)}
    for key in ("fx_rate", "relative_throughput", "server_price"):
        values[key] = np.full(n, base_value(s, key))
    values["relative_throughput@b200"] = np.array([2.2, 1.2])
    fd = fleet_draws(ctx, values)
    assert fd.order[:, 0].tolist() == [1, 0] and fd.order[:, 1].tolist() == [0, 1]
    # per server: 8 GPUs x 0.99 availability x throughput
    assert_allclose(fd.per_server[1], [8 * 0.99 * 2.2, 8 * 0.99 * 1.2], rtol=1e-15)
    plan = staged_optimum(ctx).plan
    priced = draw_pvs(ctx, values, {"x": plan})["x"]
    for i in range(n):
        c = draw_context(ctx, values, i)
        assert [c.fleet[j].id for j in c.merit] == (["b200", "h100"] if i == 0
                                                    else ["h100", "b200"])
        assert_allclose(priced[i], c.pv(plan), rtol=1e-9)
