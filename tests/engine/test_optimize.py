"""The optimizer's hand cases (issue 4); its breakevens are in test_breakeven.py, the
recommendation's words in test_explain.py."""
import numpy as np
from numpy.testing import assert_allclose

from models.capacity import Capacity
from models.optimize import best_capacity
from models.document import plan_document
from models.plan import build_state
from models.scenario import Scenario
from tests.support.engine_cases import base_plan, flat_profile, hourly_profile
from tests.support.engine_cases import context_of

def test_flat_demand_above_the_breakeven_buys():
    plan = base_plan(flat_profile(16, "2027-01", 12), finance={"horizon_months": 60})
    opt = plan.strategies["optimal"]
    # 16 GPUs all the time: 3 servers (8 x 0.99 x 2 = 15.84 < 16 < 23.76), the rest bursts
    assert opt.capacity.server_count >= 2
    assert opt.pv_cost < plan.strategies["on_demand"].pv_cost


def test_flat_demand_below_the_breakeven_rents():
    # 8 GPUs used 10 % of hours: far below the ~28 % utilization breakeven
    hours = np.zeros(24 * 365)
    hours[::10] = 8
    plan = base_plan(hourly_profile(hours), finance={"horizon_months": 60})
    assert plan.strategies["optimal"].capacity.server_count == 0
    assert plan.recommendation in ("optimal", "cloud_only", "on_demand")
    assert_allclose(plan.strategies["optimal"].pv_cost, plan.strategies["on_demand"].pv_cost)


def test_a_short_peak_on_a_flat_base_owns_the_base_and_bursts_on_demand():
    # base 31.68 GPUs = 4 servers x 8 x 0.99; a 100-GPU peak for 3 hours a month
    hours = np.full(24 * 365, 31.68)
    hours[np.arange(12) * 730] = 100.0
    hours[np.arange(12) * 730 + 1] = 100.0
    hours[np.arange(12) * 730 + 2] = 100.0
    plan = base_plan(hourly_profile(hours), finance={"horizon_months": 36})
    opt = plan.strategies["optimal"]
    assert opt.capacity.server_count == 4
    assert opt.on_demand_gpu_hours_by_month.sum() > 0
    assert plan.strategies["buy_for_peak"].capacity.server_count == 13  # ceil(100 / 7.92)


def test_all_interruptible_work_with_cheap_reliable_spot_goes_to_spot():
    plan = base_plan(flat_profile(20, "2027-01", 12, interruptible=True),
                    spot={"discount": 0.8, "availability": 1.0,
                          "interruptions_per_instance_hour": 0.0001})
    opt = plan.strategies["optimal"]
    assert opt.capacity.server_count == 0 and not opt.capacity.committed.get("1y")
    assert opt.on_demand_gpu_hours_by_month.sum() == 0
    assert opt.spot_gpu_hours_by_month.sum() > 0


def test_spot_for_a_2048_node_gang_wastes_about_16_percent_and_the_plan_says_so():
    plan = base_plan(flat_profile(16, "2027-01", 12, interruptible=True),
                    spot={"nodes_per_job": 2048, "interruptions_per_instance_hour": 0.000158,
                          "notice_seconds": 0, "checkpoint_seconds": 60,
                          "restart_seconds": 600})
    assert_allclose(context_of(plan).spot_waste.fraction, 0.158, atol=0.001)
    text = " ".join(w.text for w in plan.warnings) + plan.explanation.text
    assert "Spot wastes 15.8% of billed time" in text


def test_lead_time_of_six_months_keeps_the_first_six_months_on_cloud():
    plan = base_plan(flat_profile(40, "2027-01", 12), finance={"horizon_months": 36},
                    owned={"lead_time_months": 6})
    opt = plan.strategies["optimal"]
    assert opt.capacity.server_count > 0
    assert opt.owned_gpu_hours_by_month[:6].sum() == 0
    assert opt.owned_gpu_hours_by_month[6] > 0


def test_lowering_the_on_demand_price_never_buys_more_servers():
    rng = np.random.default_rng(7)
    profile = hourly_profile(np.maximum(30 + rng.normal(0, 12, 24 * 365), 0))
    s = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 36}})
    counts = []
    for price in (8.0, 6.88, 5.0, 4.0, 3.0, 2.0, 1.0):
        ctx = build_state(s.with_changes(on_demand={"price_per_gpu_hour": price}), profile)
        counts.append(best_capacity(ctx)[0].server_count)
    assert counts == sorted(counts, reverse=True), counts


def test_ties_go_to_the_smaller_capital_outlay():
    # with a 0 % discount rate, paying a term all upfront or monthly has the same PV; the
    # optimizer must pick the offer with no upfront outlay
    plan = base_plan(flat_profile(16, "2027-01", 12), finance={"discount_rate_annual": 0.0},
                    owned={"server_price": 10_000_000},
                    commitments=[{"id": "upfront", "discount": 0.5, "payment": "all"},
                                 {"id": "monthly", "discount": 0.5, "payment": "none"}])
    opt = plan.strategies["optimal"]
    assert {k: v for k, v in opt.capacity.committed.items() if v} == {"monthly": 16}
    again = build_state(plan.scenario, flat_profile(16, "2027-01", 12)).evaluate(
        "x", Capacity(0, {"upfront": 16, "monthly": 0}))
    assert_allclose(again.pv_cost, opt.pv_cost, rtol=1e-12)  # a real tie


def test_zero_demand_buys_nothing_and_reports_no_cost_per_hour():
    plan = base_plan(flat_profile(0, "2027-01", 12))
    opt = plan.strategies["optimal"]
    assert opt.capacity.server_count == 0 and sum(opt.capacity.committed.values()) == 0
    assert plan_document(plan)["strategies"]["optimal"]["cost_per_useful_gpu_hour"] is None


