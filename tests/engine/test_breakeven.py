"""models/breakeven.py: screening lines and their crossings, utilization, commitment, price and
payback breakevens (issue 4), by hand and against the engine."""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import brentq

from models.screening import Line, crossing_hours, direction, screening_lines
from models.capacity import Capacity
from models.document import plan_document
from models.finance import end_of_month_factors
from models.plan import build_state
from tests.support.plans import compute_plan
from models.profile import PlanDemand
from models.scenario import Scenario
from tests.support.engine_cases import base_plan, flat_profile, growth_sample, payback_case


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
        ctx = build_state(s.with_changes(**{section: {key: x}}), profile)
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
    ctx = build_state(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    lines = screening_lines(ctx)
    assert_allclose(lines["on_demand"].per_hour, 6.88 * (1 + 0.5 / 86_400), rtol=1e-9)
    assert lines["owned"].max_hours == pytest.approx(8760 * 0.99)


# ---- issue 23: the marginal breakeven is about buying the NEXT server ------------------------

def next_server_scenario(**extra) -> Scenario:
    """Servers held (4, bought 2025-03), a 3-month lead time, 25 % tax paid 2 months late, the
    prorate rule, and every price in dollars reported in won at 1,400 KRW/USD rising 5 %/yr."""
    base = {"finance": {"start_month": "2027-01", "horizon_months": 36, "currency": "KRW",
                        "discount_rate_annual": 0.08, "tax_rate": 0.25,
                        "tax_payment_lag_months": 2, "horizon_end": "prorate"},
            "owned": {"currency": "USD", "lead_time_months": 3},
            "cloud_terms": {"currency": "USD"},
            "fx": {"rate": 1400.0, "trend_annual": 0.05},
            "on_demand": {"price_trend_annual": -0.10},
            "spot": {"discount": 0.45},
            "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
            "position": {"servers": [{"count": 4, "purchased": "2025-03", "price": 280_000,
                                      "install_cost": 20_000}]},
            "uncertainty": {"draws": 0}}
    for k, v in extra.items():
        base[k] = {**base[k], **v}
    return Scenario.model_validate(base)


def hand_marginal_breakevens(ctx) -> dict[str, float]:
    """The next server's screening breakevens from the design's rules (9.2), month by month.

    Months m = 0..35 (2027-01..2029-12), rate(m) = 1,400 x 1.05^(m/12) KRW per USD,
    e_m = (1+r_m)^-(m+1) (end of month), r_m = 1.08^(1/12) - 1; tax t = 0.25 paid 2 months
    later, so a deductible cost c in month m costs c (e_m - t e_{m+2}).
    One server bought at the start of month 0, online months 3..35 (lead time 3), sold at the
    end of month 35 at age 36 (resale 30 % of 300,000):
      capex (300,000 + 30,000) x rate(0), not discounted
      online months: maintenance 0.08 x 300,000 / 12 = 2,000, space 10.2 x 184.06 = 1,877.41,
        staff 200,000 / 50 / 12 = 333.33, idle energy 3.0 kW x 1.3 x 0.08 x hours_m, each in
        dollars x rate(m), deductible
      depreciation 330,000 x rate(0) / 60 a month in service (33 months), a tax item only
      resale 90,000 x rate(35) at e_35; gain = resale - 330,000 x rate(0) x (1 - 33/60),
        taxed t x gain at e_37 (a loss shields the same way)
    A GPU-hour used in month m: busy energy (10.2 - 3.0)/8 x 1.3 x 0.08 (owned), on demand
    6.88 x 0.9^(m/12) x (1 + 0.5/86,400) (1 s billing, 24 h sessions), spot 6.88 x 0.9^(m/12)
    x 0.55 x the expected billed per used time of 24 h sessions under 0.001 interruptions an
    instance-hour (a 60 s minimum: E[B]/E[U], design 9.2, issue 37 item 6), billed
    1/(1 - w_spot) per useful hour, where an owned hour does 1 - w_failure useful work
    (w from models/checkpoint.py, tested there). Both deductible, in dollars x rate(m).
    Break even where the server's PV equals 8 GPUs x u x sum over online months of
    hours_m x (cloud - owned)_m: u = server PV / (8 sum hours_m (cloud_m - owned_m)).
    The 4 servers held do not enter: the next server is bought on top of them.
    """
    H, t, lag = 36, 0.25, 2
    months = np.arange("2027-01", "2030-01", dtype="datetime64[M]")
    hours = ((months + 1).astype("datetime64[h]") - months.astype("datetime64[h]")).astype(float)
    rm = 1.08 ** (1 / 12) - 1
    e = (1 + rm) ** -np.arange(1, H + lag + 2)          # e[m] for m = 0 .. H + lag
    rate = 1400.0 * 1.05 ** (np.arange(H + lag + 1) / 12)
    after_tax = e[:H] - t * e[lag:H + lag]
    online = np.arange(H) >= 3
    running = (2000 + 10.2 * 184.06 + 200_000 / 50 / 12 + 3.0 * 1.3 * 0.08 * hours) * rate[:H]
    basis = 330_000 * rate[0]
    depreciation = np.where(online, basis / 60, 0.0)
    resale = 0.30 * 300_000 * rate[H - 1]
    gain = resale - basis * (1 - online.sum() / 60)
    server_pv = (basis + (running * online) @ after_tax - t * depreciation @ e[lag:H + lag]
                 - resale * e[H - 1] + t * gain * e[H - 1 + lag])
    busy = (10.2 - 3.0) / 8 * 1.3 * 0.08 * rate[:H]
    od = 6.88 * 0.9 ** (np.arange(H) / 12) * (1 + 0.5 / 86_400) * rate[:H]
    w_f, w_s = ctx.failure_waste.fraction, ctx.spot_waste.fraction
    lam_m, lam_L = 0.001 * 60 / 3600, 0.001 * 24          # lambda m, lambda L
    used = (1 - math.exp(-lam_L)) / 0.001                                      # [h]
    billed = (60 / 3600 + (math.exp(-lam_m) - math.exp(-lam_L)) / 0.001
              + math.exp(-lam_m) * 0.5 / 3600)                                 # [h]
    spot = (6.88 * 0.9 ** (np.arange(H) / 12) * billed / used * rate[:H] * 0.55
            / (1 - w_s) * (1 - w_f))
    weights = hours * online * after_tax
    return {name: server_pv / (8 * weights @ (cloud - busy))
            for name, cloud in (("on_demand", od), ("spot", spot))}


def swept_marginal_breakeven(ctx, name: str) -> float:
    """Brute force: the engine costs one more server on top of the position at flat extra
    demands u x 8 GPUs, the held servers kept busy, and finds where it costs what renting the
    extra demand does (on demand; spot taking all of interruptible work)."""
    s = ctx.scenario
    interruptible = name == "spot"
    if interruptible:
        ctx = ctx.repriced(s.with_changes(spot={"availability": 1.0}))
    w_f = ctx.failure_waste.fraction if interruptible else 0.0
    held = np.repeat(ctx.position.servers_online(ctx.horizon) * ctx.owned_per_server(),
                     ctx.calendar.hours.astype(int)) * (1 - w_f)

    def gap(u: float) -> float:
        total = held + u * s.owned.gpus_per_server * (1 - w_f)
        zero = np.zeros_like(total)
        c = ctx.with_demand(PlanDemand(zero if interruptible else total,
                                       total if interruptible else zero, len(total), 0))
        return (c.pv(Capacity(1, {}, use_spot=interruptible))
                - c.pv(Capacity(0, {}, use_spot=interruptible)))

    grid = np.linspace(0.01, s.owned.availability, 12)
    gaps = np.array([gap(u) for u in grid])
    i = int(np.flatnonzero(np.sign(gaps[:-1]) != np.sign(gaps[1:]))[0])
    return brentq(gap, grid[i], grid[i + 1], xtol=1e-12)


@pytest.mark.parametrize("extra", [
    {},                                                       # the case as described
    {"finance": {"horizon_end": "liquidate", "tax_rate": 0.0}},   # no tax, liquidate
])
def test_marginal_breakeven_prices_the_next_server_by_hand_and_by_sweep(extra):
    """Issue 23: with servers held the marginal breakeven spread the next server's PV over
    the held servers' online months too: 0.070 against on demand here, where the next server
    breaks even at 0.382 (5.4x too low)."""
    s = next_server_scenario(**extra)
    ctx = build_state(s, flat_profile(16, "2026-01", 12))
    doc = plan_document(compute_plan(s, flat_profile(16, "2026-01", 12)))
    marginal = doc["breakeven"]["utilization"]
    if not extra:
        hand = hand_marginal_breakevens(ctx)
        assert_allclose(marginal["on_demand"], hand["on_demand"], rtol=1e-9)
        assert_allclose(marginal["spot"], hand["spot"], rtol=1e-9)
    for name in ("on_demand", "spot"):
        assert_allclose(marginal[name], swept_marginal_breakeven(ctx, name), rtol=1e-8)


def test_marginal_and_all_in_verdicts_that_differ_say_why():
    """Issue 23: the growth sample (4 servers held, 200 TB stored and 20 TB out a month) says
    owning one more server is dearer than spot at every utilization at the margin, while one
    server alone beats spot above 49 % all-in: the all-in figure keeps the data on owned
    storage and network, 2,100 a month (200 TB x 10 + 20 TB x 5) instead of 6,400 in the cloud
    (200,000 GB x 0.023 + 20,000 GB x 0.09), a saving that does not grow with use. The plan
    says so in one sentence beside the figures."""
    s, profile = growth_sample()
    doc = plan_document(compute_plan(s, profile))
    be = doc["breakeven"]
    assert be["utilization"]["spot"] is None
    assert "dearer than spot at every achievable utilization" in be["reasons"]["utilization.spot"]
    assert 0.45 < be["utilization_all_in"]["spot"] < 0.55
    why = doc["rules"]["breakeven_difference"]
    assert "can disagree" in why and "data kept on owned storage" in why


def test_payback_of_a_schedule_that_ties_on_demand_then_costs_more():
    """Issue 23: 8 GPUs on demand until a 3-year commitment paid all upfront is signed in
    2027-04 (month 4): the first three months tie on demand, month 4 pays 8 x 26,304 h x
    6.88 x 0.36 at once (36 months of 2027-04..2030-03, 1,096 days), and the saving of 8 x
    6.88 x 1.0000058 a GPU-hour on demand (1 s billing) earns it back once the hours from
    2027-04 reach 0.36 x 26,304 / 1.0000058 = 9,469.39 h: 2027-04..2028-03 give 8,784 h,
    with 2028-04 9,504 h, so it pays back in month 16. It was "month 1" (the tie)."""
    plan = payback_case({"id": "3y", "term_months": 36, "discount": 0.64, "payment": "all",
                         "block_gpus": 8},
                        {"schedule": [{"month": "2027-04", "commit": {"3y": 8}}]})
    r, od = plan.strategies["proposed"], plan.strategies["on_demand"]
    saving = od.cumulative - r.cumulative
    assert_allclose(saving[:3], 0.0, atol=1e-6)          # months 1-3 tie
    assert (saving[3:15] < 0).all() and (saving[15:60] > 0).all()
    doc = plan_document(plan)
    assert doc["breakeven"]["payback_month"]["proposed"] == 16
    assert "payback_month.proposed" not in doc["breakeven"]["reasons"]


def test_a_plan_never_dearer_than_on_demand_says_so_instead_of_month_one():
    """A 1-month commitment paid upfront at 41 % off, renewed every month: each month pays
    0.59 of on demand at its start, so the plan never costs more than on demand (it was
    "pays back in month 1"). Servers at 3M each leave it the cheapest plan."""
    plan = payback_case({"id": "1m", "term_months": 1, "discount": 0.41, "payment": "all",
                         "block_gpus": 8}, {"committed_gpus": {"1m": 8}}, 3_000_000)
    doc = plan_document(plan)
    be = doc["breakeven"]
    for name in ("proposed", "optimal"):
        assert be["payback_month"][name] is None
        assert be["payback_month_discounted"][name] is None
        for key in (f"payback_month.{name}", f"payback_month_discounted.{name}"):
            assert be["reasons"][key] == ("never costs more than on demand in any month: "
                                          "nothing to pay back")
    assert plan.strategies["optimal"].capacity.committed == {"1m": 8}
    assert plan.recommendation in ("cloud_only", "optimal", "proposed")   # the same plan
    assert ("it never costs more than on demand in any month, so there is nothing to pay "
            "back") in doc["explanation"]
    assert "pays back" not in doc["explanation"]


@pytest.mark.parametrize("server_price, levels", [
    # servers at 3M: 16 flat GPUs on 3-year commitments (16 x 1.0), no server online
    (3_000_000, {"committed": 16.0}),
    # servers at 100k: 2 servers take the flat 16 GPUs (2 x 8 x 0.99 = 15.84), the rest
    # 0.16 GPUs run on demand
    (100_000, {"owned": 15.84}),
])
def test_load_duration_levels_name_only_the_capacity_the_plan_holds(server_price, levels):
    """Issue 23: a plan with 0 servers showed "owned servers 16.0 GPUs" (the committed level
    under the name of the owned one)."""
    s = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 36},
                                 "owned": {"server_price": server_price},
                                 "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
                                 "uncertainty": {"draws": 0}})
    plan = compute_plan(s, flat_profile(16, "2026-01", 12))
    got = plan_document(plan)["charts"]["load_duration"]["levels"]
    assert got.keys() == levels.keys()
    assert_allclose(list(got.values()), list(levels.values()), rtol=1e-12)


# ---- issue 37 item 5: breakevens against spot only where spot can run -----------------------

@pytest.mark.parametrize("spot, off", [
    ({"availability": 0.0}, "its availability is 0"),
    ({"availability": 0.8, "nodes_per_job": 64, "interruptions_per_instance_hour": 1.0,
      "restart_seconds": 3600}, "cannot run the interruptible work"),
])
def test_no_breakeven_against_spot_where_spot_takes_no_work(spot, off):
    """With availability 0 spot takes no share of the interruptible work (models.dispatch), so
    "owning is dearer than spot at every utilization" beside an all-in figure against it said
    nothing true; the spot comparisons go and one reason says why."""
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"}, "spot": spot})
    profile = flat_profile(40, "2026-01", 12, interruptible=True)
    plan = compute_plan(s, profile)
    be = plan_document(plan)["breakeven"]
    assert "spot" not in screening_lines(build_state(s, profile))
    assert "spot" not in be["utilization"] and "spot" not in be["utilization_all_in"]
    assert not [k for k in be["directions"] if k.endswith(".spot")]
    assert [k for k in be["reasons"] if "spot" in k] == ["spot"]
    assert off in be["reasons"]["spot"]
    assert "spot" not in plan_document(plan)["charts"]["screening"]["curves"]


def test_spot_that_can_run_keeps_its_breakevens():
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"}})
    be = plan_document(compute_plan(s, flat_profile(40, "2026-01", 12, interruptible=True)))[
        "breakeven"]
    assert "spot" in be["utilization"] and "spot" in be["utilization_all_in"]
    assert "spot" not in be["reasons"]
