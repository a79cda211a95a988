"""The optimizer's hand cases, breakevens and recommendation (issue 4)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.breakeven import screening_lines
from models.finance import end_of_month_factors
from models.optimize import best_capacity
from models.document import plan_document
from models.plan import build_context, compute_plan
from models.scenario import Scenario
from models.strategies import Capacity
from tests.support.engine_cases import flat_profile, hourly_profile, merged

BASE = {"finance": {"start_month": "2027-01", "horizon_months": 12},
        "commitments": [], "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
        "owned": {"failures_per_server_year": 0}}


def plan_for(profile, **sections):
    return compute_plan(Scenario.model_validate(merged(BASE, **sections)), profile)


def test_flat_demand_above_the_breakeven_buys():
    plan = plan_for(flat_profile(16, "2027-01", 12), finance={"horizon_months": 60})
    opt = plan.strategies["optimal"]
    # 16 GPUs all the time: 3 servers (8 x 0.99 x 2 = 15.84 < 16 < 23.76), the rest bursts
    assert opt.capacity.servers >= 2
    assert opt.pv_cost < plan.strategies["on_demand"].pv_cost


def test_flat_demand_below_the_breakeven_rents():
    # 8 GPUs used 10 % of hours: far below the ~28 % utilization breakeven
    hours = np.zeros(24 * 365)
    hours[::10] = 8
    plan = plan_for(hourly_profile(hours), finance={"horizon_months": 60})
    assert plan.strategies["optimal"].capacity.servers == 0
    assert plan.recommendation in ("optimal", "cloud_only", "on_demand")
    assert_allclose(plan.strategies["optimal"].pv_cost, plan.strategies["on_demand"].pv_cost)


def test_a_short_peak_on_a_flat_base_owns_the_base_and_bursts_on_demand():
    # base 31.68 GPUs = 4 servers x 8 x 0.99; a 100-GPU peak for 3 hours a month
    hours = np.full(24 * 365, 31.68)
    hours[np.arange(12) * 730] = 100.0
    hours[np.arange(12) * 730 + 1] = 100.0
    hours[np.arange(12) * 730 + 2] = 100.0
    plan = plan_for(hourly_profile(hours), finance={"horizon_months": 36})
    opt = plan.strategies["optimal"]
    assert opt.capacity.servers == 4
    assert opt.on_demand_gpu_hours_by_month.sum() > 0
    assert plan.strategies["buy_for_peak"].capacity.servers == 13  # ceil(100 / 7.92)


def test_all_interruptible_work_with_cheap_reliable_spot_goes_to_spot():
    plan = plan_for(flat_profile(20, "2027-01", 12, interruptible=True),
                    spot={"discount": 0.8, "availability": 1.0,
                          "interruptions_per_instance_hour": 0.0001})
    opt = plan.strategies["optimal"]
    assert opt.capacity.servers == 0 and not opt.capacity.committed.get("1y")
    assert opt.on_demand_gpu_hours_by_month.sum() == 0
    assert opt.spot_gpu_hours_by_month.sum() > 0


def test_spot_for_a_2048_node_gang_wastes_about_16_percent_and_the_plan_says_so():
    plan = plan_for(flat_profile(16, "2027-01", 12, interruptible=True),
                    spot={"nodes_per_job": 2048, "interruptions_per_instance_hour": 0.000158,
                          "notice_seconds": 0, "checkpoint_seconds": 60,
                          "restart_seconds": 600})
    assert_allclose(plan.context.spot_waste.fraction, 0.158, atol=0.001)
    text = " ".join(w.text for w in plan.warnings) + plan.explanation.text
    assert "Spot wastes 15.8% of billed time" in text


def test_infeasible_spot_is_explained():
    plan = plan_for(flat_profile(16, "2027-01", 12, interruptible=True),
                    spot={"nodes_per_job": 4096, "interruptions_per_instance_hour": 0.01,
                          "notice_seconds": 0})
    assert not plan.context.spot_waste.feasible
    assert plan.strategies["optimal"].spot_gpu_hours_by_month.sum() == 0
    assert "Spot is infeasible for the interruptible work" in plan.explanation.text
    assert plan_document(plan)["waste"]["spot_feasible"] is False


def test_lead_time_of_six_months_keeps_the_first_six_months_on_cloud():
    plan = plan_for(flat_profile(40, "2027-01", 12), finance={"horizon_months": 36},
                    owned={"lead_time_months": 6})
    opt = plan.strategies["optimal"]
    assert opt.capacity.servers > 0
    assert opt.owned_gpu_hours_by_month[:6].sum() == 0
    assert opt.owned_gpu_hours_by_month[6] > 0


def test_default_h100_utilization_breakeven_is_about_28_percent():
    """Independent levelized cost of one default 8x H100 server over 60 months vs $6.88/GPU-h.

    Monthly rate r_m = 1.1^(1/12) - 1; PV of one hour-weighted GPU year: H = sum h_m / (1+r_m)^m
    (2027-01 .. 2031-12, 43,824 h). Fixed PV per server:
      capex 330,000 (undiscounted)
      + (maintenance 0.08 x 300,000 / 12 = 2,000 + space 10.2 x 184.06 = 1,877.41
         + staff 200,000 / 50 / 12 = 333.33) per month, discounted
      + idle energy 3.0 kW x 1.3 x 0.08 = 0.312 per hour, discounted by hours
      - resale 0.10 x 300,000 = 30,000 at the end of month 60
    Busy energy per GPU-hour: (10.2 - 3.0)/8 x 1.3 x 0.08 = 0.0936.
    On demand per GPU-hour: 6.88 x (1 + 0.5/86,400) (1 s billing, 24 h sessions).
    Breakeven utilization u: 8 u H x (p - 0.0936) = fixed PV  ->  u = fixed / (8 H (p - e)).
    """
    months = np.arange("2027-01", "2032-01", dtype="datetime64[M]")
    hours = ((months + 1).astype("datetime64[h]") - months.astype("datetime64[h]")).astype(float)
    end = end_of_month_factors(60, 0.10)
    H = hours @ end
    fixed = (330_000 + (2000 + 10.2 * 184.06 + 200_000 / 50 / 12) * end.sum()
             + 3.0 * 1.3 * 0.08 * H - 30_000 * end[-1])
    e = (10.2 - 3.0) / 8 * 1.3 * 0.08
    p = 6.88 * (1 + 0.5 / 86_400)
    u_independent = fixed / (8 * H * (p - e))
    assert 0.27 < u_independent < 0.29

    plan = compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    u_engine = plan_document(plan)["breakeven"]["utilization"]["on_demand"]
    assert_allclose(u_engine, u_independent, rtol=1e-9)


def test_commitment_breakeven_against_on_demand_is_one_minus_discount_without_trend():
    plan = plan_for(flat_profile(16, "2027-01", 12),
                    commitments=[{"id": "1y", "term_months": 12, "discount": 0.41}],
                    on_demand={"billing_increment_seconds": 0})
    assert_allclose(plan_document(plan)["breakeven"]["commitment_vs_on_demand"]["1y"], 0.59)


def test_screening_crossings_match_the_breakevens():
    plan = compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    crossing = [c for c in plan_document(plan)["charts"]["screening"]["crossings"]
                if c["sources"] == ["owned", "on_demand"]][0]
    assert_allclose(crossing["utilization"],
                    plan_document(plan)["breakeven"]["utilization"]["on_demand"])


def test_price_breakevens_tie_the_owning_plan_with_cloud_only():
    profile = flat_profile(40, "2026-01", 12)
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"}})
    plan = compute_plan(s, profile)
    be = plan_document(plan)["breakeven"]
    owning = plan.strategies["optimal"].capacity
    cloud = plan.strategies["cloud_only"].capacity
    for field, section, key in (("on_demand_price", "on_demand", "price_per_gpu_hour"),
                                ("server_price", "owned", "server_price")):
        x = be[field]
        assert x is not None and x > 0
        ctx = build_context(s.with_changes(**{section: {key: x}}), profile)
        assert_allclose(ctx.evaluate("a", owning).pv_cost, ctx.evaluate("b", cloud).pv_cost,
                        rtol=1e-9)


def test_payback_month_is_the_first_month_at_or_below_on_demand():
    plan = compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    m = plan_document(plan)["breakeven"]["payback_month"]["optimal"]
    opt, od = plan.strategies["optimal"], plan.strategies["on_demand"]
    assert opt.cumulative[m - 1] <= od.cumulative[m - 1]
    assert (opt.cumulative[: m - 1] > od.cumulative[: m - 1]).all()
    assert f"pays back in month {m}" in plan.explanation.text


def test_recommendation_text_names_servers_their_utilization_and_saving():
    plan = compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    text = plan.explanation.text
    r = plan.strategies["optimal"]
    n = r.capacity.servers
    # busy share of installed GPU-hours, as the plan's owned utilization reports it
    assert text.startswith(f"Buy {n} servers ({8 * n} GPUs) for the base load, busy "
                           f"{r.owned_utilization:.0%} of their installed GPU-hours.")
    assert "PV saving $" in text and "against on demand" in text


def test_fragile_answer_is_flagged():
    # choose an on-demand price where owning and renting are within 2 %
    profile = flat_profile(8, "2026-01", 12)
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"}, "commitments": []})
    tie = plan_document(compute_plan(s, profile))["breakeven"]["on_demand_price"]
    plan = compute_plan(s.with_changes(on_demand={"price_per_gpu_hour": tie * 1.005}), profile)
    assert plan.explanation.fragile is True
    assert "The answer is fragile" in plan.explanation.text


def test_lowering_the_on_demand_price_never_buys_more_servers():
    rng = np.random.default_rng(7)
    profile = hourly_profile(np.maximum(30 + rng.normal(0, 12, 24 * 365), 0))
    s = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 36}})
    counts = []
    for price in (8.0, 6.88, 5.0, 4.0, 3.0, 2.0, 1.0):
        ctx = build_context(s.with_changes(on_demand={"price_per_gpu_hour": price}), profile)
        counts.append(best_capacity(ctx)[0].servers)
    assert counts == sorted(counts, reverse=True), counts


def test_ties_go_to_the_smaller_capital_outlay():
    # with a 0 % discount rate, paying a term all upfront or monthly has the same PV; the
    # optimizer must pick the offer with no upfront outlay
    plan = plan_for(flat_profile(16, "2027-01", 12), finance={"discount_rate_annual": 0.0},
                    owned={"server_price": 10_000_000},
                    commitments=[{"id": "upfront", "discount": 0.5, "payment": "all"},
                                 {"id": "monthly", "discount": 0.5, "payment": "none"}])
    opt = plan.strategies["optimal"]
    assert opt.capacity.committed == {"upfront": 0, "monthly": 16}
    again = build_context(plan.scenario, flat_profile(16, "2027-01", 12)).evaluate(
        "x", Capacity(0, {"upfront": 16, "monthly": 0}))
    assert_allclose(again.pv_cost, opt.pv_cost, rtol=1e-12)  # a real tie


def test_zero_demand_buys_nothing_and_reports_no_cost_per_hour():
    plan = plan_for(flat_profile(0, "2027-01", 12))
    opt = plan.strategies["optimal"]
    assert opt.capacity.servers == 0 and sum(opt.capacity.committed.values()) == 0
    assert plan_document(plan)["strategies"]["optimal"]["cost_per_useful_gpu_hour"] is None


def test_screening_lines_are_per_gpu_year():
    ctx = build_context(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    lines = screening_lines(ctx)
    assert_allclose(lines["on_demand"].per_hour, 6.88 * (1 + 0.5 / 86_400), rtol=1e-9)
    assert lines["owned"].max_hours == pytest.approx(8760 * 0.99)
