"""models/breakeven.py: screening lines and their crossings, utilization, commitment, price and
payback breakevens (issue 4), by hand and against the engine."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.breakeven import Line, crossing_hours, direction, screening_lines
from models.document import plan_document
from models.finance import end_of_month_factors
from models.plan import build_context, compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import base_plan, flat_profile


# Screening lines are cost per GPU-year of capacity: fixed + per_hour x hours used a year.
#   owned 20,000 + 0.10 h, on demand 3.00 h: they meet at 20,000 / (3.00 - 0.10) = 6,896.55 h
#   (78.7 % of 8,760); owned, the flatter line, is cheaper above it
#   owned 30,000 + 0.10 h: 30,000 / 2.90 = 10,344.8 h, past the year: no crossing
@pytest.mark.parametrize("owned, hours", [
    (Line(20_000.0, 0.10, 8_672.4), 20_000 / 2.90),
    (Line(30_000.0, 0.10, 8_672.4), None),             # past the hours a server can work
    (Line(20_000.0, 3.00, 8_672.4), None),             # parallel lines never meet
])
def test_crossing_of_two_screening_lines_by_hand(owned, hours):
    on_demand = Line(0.0, 3.00)
    found = crossing_hours(owned, on_demand)
    assert found == (None if hours is None else pytest.approx(hours, rel=1e-12))
    if hours is not None:
        assert found == pytest.approx(6_896.5517, abs=1e-4)
        assert owned.at(found) == pytest.approx(on_demand.at(found), rel=1e-12)


def test_the_flatter_line_is_cheaper_above_the_crossing():
    owned, on_demand = Line(20_000.0, 0.10), Line(0.0, 3.00)
    above = direction("owned", owned, "on_demand", on_demand)
    assert (above.cheaper, above.when, above.other) == ("owned", "above", "on_demand")
    assert above.message().text == "owned is cheaper than on_demand above this utilization"
    below = direction("on_demand", on_demand, "owned", owned)
    assert (below.cheaper, below.when) == ("on_demand", "below")


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
    plan = base_plan(flat_profile(16, "2027-01", 12),
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


def test_screening_lines_are_per_gpu_year():
    ctx = build_context(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    lines = screening_lines(ctx)
    assert_allclose(lines["on_demand"].per_hour, 6.88 * (1 + 0.5 / 86_400), rtol=1e-9)
    assert lines["owned"].max_hours == pytest.approx(8760 * 0.99)
