"""Invariants of the engine, checked on random scenarios and profiles (hypothesis)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from models.capacity import Capacity
from models.lines import COST_LINES, CREDIT_LINES
from models.plan import build_state
from tests.support.plans import compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import hourly_profile

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw):
    hours = 24 * 7 * 6
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base = draw(st.floats(0, 40))
    steady = np.maximum(base + rng.normal(0, 5, hours), 0)
    inter = rng.choice([0.0, draw(st.floats(0, 30))], size=hours)
    scenario = {
        "finance": {"start_month": "2027-01", "horizon_months": draw(st.integers(1, 14)),
                    "discount_rate_annual": draw(st.floats(0.01, 0.3)),
                    "tax_rate": draw(st.sampled_from([0.0, 0.21]))},
        "owned": {"lead_time_months": draw(st.integers(0, 2)),
                  "availability": draw(st.floats(0.8, 1.0)),
                  "useful_life_months": draw(st.sampled_from([6, 12, 60])),
                  "financing": draw(st.sampled_from([{"kind": "cash"},
                                                     {"kind": "loan", "term_months": 24}]))},
        "on_demand": {"price_trend_annual": draw(st.floats(-0.4, 0.1)),
                      "billing_increment_seconds": 60},
        "spot": {"availability": draw(st.floats(0, 1))},
        "cloud_data": {"storage_tb": draw(st.floats(0, 50)), "egress_tb_per_month": 1},
        "cloud_terms": {"support_fraction": 0.05, "support_minimum_per_month": 100},
        "commitments": [{"id": "1y", "term_months": 12, "discount": 0.4, "block_gpus": 8,
                         "payment": draw(st.sampled_from(["none", "partial", "all"]))}],
    }
    servers = draw(st.integers(0, 8))
    committed = 8 * draw(st.integers(0, 4))
    return Scenario.model_validate(scenario), hourly_profile(steady, inter), servers, committed


@SETTINGS
@given(cases())
def test_no_cost_line_is_ever_negative(case):
    scenario, profile, servers, committed = case
    ctx = build_state(scenario, profile)
    r = ctx.evaluate("x", Capacity(servers, {"1y": committed}))
    for name in COST_LINES + CREDIT_LINES:
        assert (r.lines[name] >= -1e-9).all(), name


@SETTINGS
@given(cases())
def test_more_owned_capacity_never_increases_on_demand_hours(case):
    scenario, profile, servers, committed = case
    ctx = build_state(scenario, profile)
    fewer = ctx.evaluate("a", Capacity(servers, {"1y": committed}))
    more = ctx.evaluate("b", Capacity(servers + 1, {"1y": committed}))
    assert (more.on_demand_gpu_hours_by_month <= fewer.on_demand_gpu_hours_by_month + 1e-7).all()


@SETTINGS
@given(cases(), st.floats(0.1, 10))
def test_scaling_every_price_by_k_scales_every_cost_by_k(case, k):
    scenario, profile, servers, committed = case
    s = scenario
    scaled = s.with_changes(
        owned={"server_price": s.owned.server_price * k,
               "install_cost_per_server": s.owned.install_cost_per_server * k,
               "electricity_price_per_kwh": s.owned.electricity_price_per_kwh * k,
               "space_price_per_kw_month": s.owned.space_price_per_kw_month * k,
               "fte_cost_annual": s.owned.fte_cost_annual * k,
               "storage_price_per_tb_month": s.owned.storage_price_per_tb_month * k,
               "network_price_per_tb": s.owned.network_price_per_tb * k},
        on_demand={"price_per_gpu_hour": s.on_demand.price_per_gpu_hour * k},
        cloud_data={"storage_price_per_gb_month": s.cloud_data.storage_price_per_gb_month * k,
                    "egress_price_per_gb": s.cloud_data.egress_price_per_gb * k},
        cloud_terms={"support_minimum_per_month": s.cloud_terms.support_minimum_per_month * k})
    capacity = Capacity(servers, {"1y": committed})
    a = build_state(s, profile).evaluate("a", capacity)
    b = build_state(scaled, profile).evaluate("b", capacity)
    for name in COST_LINES + CREDIT_LINES:
        assert_allclose(b.lines[name], k * a.lines[name], rtol=1e-9, atol=1e-9)
    assert_allclose(b.pv_cost, k * a.pv_cost, rtol=1e-9)


@SETTINGS
@given(cases())
def test_pv_is_at_most_nominal_when_the_rate_is_positive(case):
    scenario, profile, servers, committed = case
    ctx = build_state(scenario.with_changes(finance={"tax_rate": 0.0}), profile)
    r = ctx.evaluate("x", Capacity(servers, {"1y": committed}))
    costs = sum(r.lines[n] for n in COST_LINES)
    rows = len(costs)   # the horizon and the months after it that are still paid
    start, end = ctx.book.start[:rows, 0], ctx.book.end[:rows, 0]
    pv_costs = sum(r.lines[n] * (start if n in ("capex", "commitment_upfront", "cloud_setup")
                                 else end) for n in COST_LINES)
    assert pv_costs.sum() <= costs.sum() + 1e-6


@SETTINGS
@given(cases())
def test_gpu_hours_by_source_add_up_to_demand_plus_overheads(case):
    scenario, profile, servers, committed = case
    ctx = build_state(scenario, profile)
    r = ctx.evaluate("x", Capacity(servers, {"1y": committed}))
    by_source = (r.owned_gpu_hours_by_month + r.committed_gpu_hours_by_month
                 + r.spot_gpu_hours_by_month + r.on_demand_gpu_hours_by_month)
    assert_allclose(by_source, ctx.tables.useful_by_month + r.volumes.overhead,
                    rtol=1e-9, atol=1e-6)


@SETTINGS
@given(cases())
def test_optimal_is_never_above_any_other_strategy(case):
    scenario, profile, servers, committed = case
    s = scenario.with_changes(proposed={"servers": servers, "committed_gpus": {"1y": committed}})
    plan = compute_plan(s, profile)
    best = plan.strategies["optimal"].pv_cost
    for name, r in plan.strategies.items():
        if name == "staged":   # a schedule may beat every static plan, never the other way
            assert r.pv_cost <= best * (1 + 1e-9) + 1e-6, name
        else:
            assert best <= r.pv_cost * (1 + 1e-9) + 1e-6, name
    assert plan.strategies["cloud_only"].pv_cost <= plan.strategies["on_demand"].pv_cost + 1e-6
