"""models/draws.py: the PV cost of fixed capacities over many draws of the assumptions, through
the cost kernel. Checked by hand on the first worked example and against the engine's own
context draw by draw (the Monte Carlo of models/uncertainty.py calls draw_pvs)."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.assumption_sampling import sample
from models.assumption_values import base_value
from models.capacity import Capacity
from models.draws import draw_pvs
from models.plan import build_state
from models.scenario import Scenario
from models.strategies import on_demand_capacity
from models.uncertainty import draw_context, monte_carlo
from tests.support.engine_cases import capacities, daily_swing_profile, flat_profile, w1
from tests.support.engine_cases import context_of


def base_values(s: Scenario, draws: int) -> dict[str, np.ndarray]:
    """Every drawn assumption at its scenario value, ``draws`` times."""
    return {key: np.full(draws, base_value(s, key)) for key in sample(s, 1, 0)}


# Worked example 1 (tests/engine/test_worked_examples.py): 6 GPUs steady for 12 months.
# On demand, PV = 150,043.5173 at 3.00 per GPU-hour; every cost line is price x volume, so the
# PV scales with the drawn price: 2.00 -> 150,043.5173 x 2/3 = 100,029.0115,
# 4.00 -> 150,043.5173 x 4/3 = 200,058.0230. One owned server (7.76 GPUs available) serves all
# 6 GPUs: no on-demand hour, PV 115,198.5605 whatever the on-demand price.
WORKED_PRICES = np.array([3.00, 2.00, 4.00])
WORKED_ON_DEMAND_PV = [150_043.5173, 100_029.0115, 200_058.0230]
WORKED_OWNED_PV = 115_198.5605


@pytest.mark.parametrize("chunk", [1, 2, 500])
def test_draws_of_the_on_demand_price_by_hand(chunk):
    s = w1()
    ctx = build_state(s, flat_profile(6))
    values = {**base_values(s, 3), "on_demand_price": WORKED_PRICES}
    plans = {"on_demand": ctx.capacity_plan(on_demand_capacity()),
             "proposed": ctx.capacity_plan(Capacity(1, {}))}
    pv = draw_pvs(ctx, values, plans, chunk=chunk)    # chunks must not change a figure
    assert_allclose(pv["on_demand"], WORKED_ON_DEMAND_PV, atol=5e-4)
    assert_allclose(pv["proposed"], [WORKED_OWNED_PV] * 3, atol=5e-5)


def test_base_values_in_every_draw_give_the_plans_pv():
    s = w1()
    ctx = build_state(s, flat_profile(6))
    caps = {"on_demand": on_demand_capacity(), "proposed": Capacity(1, {})}
    pv = draw_pvs(ctx, base_values(s, 4), {n: ctx.capacity_plan(c) for n, c in caps.items()})
    for name, cap in caps.items():
        assert_allclose(pv[name], [ctx.evaluate(name, cap).pv_cost] * 4, rtol=1e-12)


def test_vectorised_draws_equal_engine_on_sample(engine_plan):
    ctx, caps = context_of(engine_plan), capacities(engine_plan)
    mc = monte_carlo(ctx, caps, 500, 7)
    for i in (0, 1, 137, 499):
        engine = draw_context(ctx, mc.values, i)
        for name, cap in caps.items():
            assert_allclose(mc.pv[name][i], engine.evaluate(name, cap).pv_cost, rtol=1e-9)


COMPLEX = [
    # loan financing, tax with MACRS, VAT-inclusive prices, partial upfront, lead time
    {"finance": {"tax_rate": 0.25, "tax_depreciation": "macrs_5", "horizon_months": 40},
     "owned": {"financing": {"kind": "loan", "apr": 0.09, "term_months": 48},
               "lead_time_months": 3, "useful_life_months": 24,
               "hardware_price_trend_annual": -0.1},
     "cloud_terms": {"prices_include_vat": True, "vat_rate": 0.2, "setup_fee": 5000,
                     "support_fraction": 0.05},
     "commitments": [{"id": "1y", "term_months": 12, "discount": 0.4, "payment": "partial"},
                     {"id": "3y", "term_months": 36, "discount": 0.6, "payment": "all"}],
     "cloud_data": {"storage_tb": 10, "egress_tb_per_month": 2},
     "spot": {"nodes_per_job": 4}},
    # a support minimum: the monthly path; absolute spot and committed prices
    {"cloud_terms": {"support_fraction": 0.03, "support_minimum_per_month": 20_000},
     "spot": {"price_per_gpu_hour": 2.0},
     "commitments": [{"id": "1y", "term_months": 12, "price_per_gpu_hour": 4.0}],
     "profile": {"growth_annual": 0.2}, "finance": {"horizon_months": 30}},
    # tax with cash purchases on the fast path
    {"finance": {"tax_rate": 0.3}, "owned": {"lead_time_months": 2},
     "cloud_terms": {"support_fraction": 0.1, "setup_fee": 1000}},
    # tax and a loan on the monthly path
    {"finance": {"tax_rate": 0.3}, "owned": {"financing": {"kind": "loan"}},
     "cloud_terms": {"support_minimum_per_month": 5000, "setup_fee": 1000}},
    # won reporting, cloud billed in dollars at a drawn rate with a trend: upfront, support
    # minimum, setup fee, data and VAT converted month by month
    {"finance": {"currency": "KRW", "tax_rate": 0.22, "horizon_months": 30},
     "owned": {"server_price": 420_000_000, "install_cost_per_server": 30_000_000,
               "electricity_price_per_kwh": 170, "space_price_per_kw_month": 200_000,
               "fte_cost_annual": 120_000_000, "storage_price_per_tb_month": 30_000},
     "fx": {"rate": 1400, "trend_annual": 0.04},
     "cloud_terms": {"currency": "USD", "prices_include_vat": True, "vat_rate": 0.1,
                     "setup_fee": 2000, "support_fraction": 0.03,
                     "support_minimum_per_month": 3000},
     "commitments": [{"id": "1y", "term_months": 12, "discount": 0.35, "payment": "all"},
                     {"id": "3y", "term_months": 36, "discount": 0.55, "payment": "partial"}],
     "cloud_data": {"storage_tb": 10, "egress_tb_per_month": 2}},
    # owned costs in euros with a loan and MACRS, reported in dollars
    {"finance": {"tax_rate": 0.25, "tax_depreciation": "macrs_5"},
     "owned": {"currency": "EUR", "financing": {"kind": "loan", "apr": 0.07},
               "lead_time_months": 2},
     "fx": {"rate": 1.08, "trend_annual": -0.05}},
]


@pytest.mark.parametrize("data", COMPLEX, ids=["loan-tax-vat-upfront", "support-minimum",
                                                "tax-cash", "tax-loan-support-minimum",
                                                "krw-usd-cloud", "eur-owned-loan"])
def test_vectorised_draws_equal_engine_on_complex_terms(data):
    s = Scenario.model_validate({**data, "finance": {**data.get("finance", {}),
                                                     "start_month": "2027-01"}})
    ctx = build_state(s, daily_swing_profile(interruptible=0.5))
    offers = [o.id for o in s.commitments]
    caps = {"on_demand": on_demand_capacity(), "cloud_only": Capacity(0, {offers[0]: 32}),
            "optimal": Capacity(6, {}), "proposed": Capacity(3, {offers[-1]: 24}),
            "nothing_on_spot": Capacity(12, {}, use_spot=False)}
    mc = monte_carlo(ctx, caps, 64, 11)
    for i in (0, 5, 63):
        engine = draw_context(ctx, mc.values, i)
        for name, cap in caps.items():
            assert_allclose(mc.pv[name][i], engine.evaluate(name, cap).pv_cost, rtol=1e-9)
