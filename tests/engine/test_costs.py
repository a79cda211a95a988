"""Hand-checked cost lines, one table row per case with the arithmetic in a comment.

Base case unless a row changes it: plan from 2027-01, flat demand, no discounting surprises
(months: 744, 672, 744, 720 ... hours), one server of 8 GPUs at 100,000 with no install cost.
"""
import math

import numpy as np
import numpy_financial as npf
import pytest
from numpy.testing import assert_allclose

from models.finance import end_of_month_factors, start_of_month_factors
from tests.support.plans import compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import context_of, flat_profile, merged

OWNED = {"gpus_per_server": 8, "server_price": 100_000, "install_cost_per_server": 0,
         "power_kw_max": 10, "power_kw_idle": 2, "pue": 1.5, "electricity_price_per_kwh": 0.1,
         "space_price_per_kw_month": 100, "maintenance_fraction_annual": 0.12,
         "servers_per_fte": 10, "fte_cost_annual": 120_000, "availability": 1.0,
         "resale_fraction_by_year": [0.6, 0.3], "useful_life_months": 60,
         "failures_per_server_year": 0}
BASE = {"finance": {"start_month": "2027-01", "horizon_months": 12, "discount_rate_annual": 0.1},
        "owned": OWNED,
        "on_demand": {"price_per_gpu_hour": 2.0, "billing_increment_seconds": 0},
        "commitments": [], "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0}}


def proposed(gpus=4.0, months=12, interruptible=False, servers=1, committed=None, **sections):
    data = merged(BASE, **sections)
    data["finance"] = {**data["finance"], "horizon_months": months}
    data["proposed"] = {"servers": servers, "committed_gpus": committed or {}}
    plan = compute_plan(Scenario.model_validate(data),
                        flat_profile(gpus, "2027-01", months, interruptible))
    return plan.strategies["proposed"], plan


# (case, overrides, line, month index, expected) -- one server, 4 of 8 GPUs busy (50 %)
OWNED_CASES = [
    # energy = [2 + (10-2) x 0.5] kW x 1.5 x 744 h x 0.10 = 669.6
    ("energy at 50 %", {}, "energy", 0, 669.6),
    # February 2027 has 672 h: 6 x 1.5 x 672 x 0.1 = 604.8
    ("energy short month", {}, "energy", 1, 604.8),
    # space = 10 kW x 100 per kW-month
    ("space", {}, "space", 0, 1000.0),
    # maintenance = 100,000 x 0.12 / 12
    ("maintenance", {}, "maintenance", 0, 1000.0),
    # staff = 1 server / 10 per FTE x 120,000 / 12
    ("staff", {}, "staff", 0, 1000.0),
    # resale at age 12 months = 0.6 x 100,000, end of month 12
    ("resale credit", {}, "resale_credit", 11, 60_000.0),
    # capex = price + install at the start of month 1
    ("capex", {"install_cost_per_server": 5_000}, "capex", 0, 105_000.0),
    # power inflation 10 %/yr: month 7 energy = 669.6 x 1.1^(6/12) (July has 744 h)
    ("power inflation", {"_finance": {"power_price_inflation_annual": 0.1}}, "energy", 6,
     669.6 * 1.1 ** 0.5),
    # staff inflation 20 %/yr: month 12 staff = 1,000 x 1.2^(11/12)
    ("staff inflation", {"_finance": {"staff_cost_inflation_annual": 0.2}}, "staff", 11,
     1000 * 1.2 ** (11 / 12)),
]


@pytest.mark.parametrize("case, overrides, line, month, expected", OWNED_CASES,
                         ids=[c[0] for c in OWNED_CASES])
def test_owned_cost_lines(case, overrides, line, month, expected):
    finance = overrides.pop("_finance", {}) if "_finance" in overrides else {}
    r, _ = proposed(owned=overrides, finance=finance)
    assert_allclose(r.lines[line][month], expected, rtol=1e-12)


def test_resale_interpolated_by_month_and_fleet_age():
    # 18 months: age 18 between 0.6 (12) and 0.3 (24): 0.45 x 100,000 at the end of month 18
    r, _ = proposed(months=18)
    assert_allclose(r.lines["resale_credit"][17], 45_000.0)
    assert r.lines["resale_credit"][:17].sum() == 0


def test_lead_time_sends_the_first_months_to_the_cloud():
    # lead time 3: online from month 4; months 1-3 all on demand (4 x 744 x 2.00 in January)
    r, _ = proposed(owned={"lead_time_months": 3})
    assert_allclose(r.lines["on_demand"][0], 4 * 744 * 2.0)
    assert r.lines["energy"][:3].sum() == r.lines["space"][:3].sum() == 0
    assert r.lines["on_demand"][3:].sum() == 0
    assert_allclose(r.lines["capex"][0], 100_000)  # still paid at the start of month 1


def test_replacement_at_end_of_life_with_price_trend():
    # life 12 months, horizon 24, hardware -50 %/yr: the second server costs 50,000 at the
    # start of month 13; resale 0.6 x 100,000 at the end of month 12 and 0.6 x 50,000 at 24
    r, _ = proposed(months=24, owned={"useful_life_months": 12,
                                      "hardware_price_trend_annual": -0.5})
    assert_allclose(r.lines["capex"][[0, 12]], [100_000, 50_000])
    assert_allclose(r.lines["resale_credit"][[11, 23]], [60_000, 30_000])
    # maintenance follows the price of the fleet in service: 50,000 x 0.12 / 12
    assert_allclose(r.lines["maintenance"][[11, 12]], [1000, 500])


def test_relative_throughput_serves_demand_with_fewer_own_gpus():
    # theta = 2: 8 GPUs of demand need 4 owned GPU-hours per hour; utilization 4/8
    r, _ = proposed(gpus=8, owned={"relative_throughput": 2.0})
    assert_allclose(r.owned_gpu_hours_by_month[0], 4 * 744)
    assert_allclose(r.owned_utilization, 0.5)
    assert r.on_demand_gpu_hours_by_month.sum() == 0


def test_on_demand_falling_price_and_billing_rounding():
    # price_m = 2.00 x 0.5^((m-1)/12); rounding 60 s increments, 1 h sessions: x 1 + 30/3600
    r, _ = proposed(servers=0, on_demand={"price_trend_annual": -0.5,
                                          "billing_increment_seconds": 60,
                                          "mean_session_hours": 1})
    rounding = 1 + 30 / 3600
    assert_allclose(r.lines["on_demand"][0], 4 * 744 * 2.0 * rounding)
    assert_allclose(r.lines["on_demand"][6], 4 * 744 * 2.0 * 0.5 ** 0.5 * rounding)


OFFER = {"id": "1y", "term_months": 12, "discount": 0.5, "block_gpus": 4}


def commitment(payment, months=12, finance=None, **offer):
    r, plan = proposed(servers=0, committed={"1y": 4}, months=months, finance=finance or {},
                       commitments=[{**OFFER, "payment": payment, **offer}])
    return r, plan


def test_commitment_paid_monthly_vs_all_upfront_differs_only_by_timing():
    # rate fixed at signing: 2.00 x (1 - 0.5) = 1.00; 4 GPUs x 8,760 h (2027) = 35,040
    monthly, plan = commitment("none")
    upfront, _ = commitment("all")
    assert_allclose(monthly.lines["commitment"][0], 4 * 744 * 1.0)
    assert_allclose(monthly.total_cost, 35_040)
    assert_allclose(upfront.total_cost, 35_040)
    assert_allclose(upfront.lines["commitment_upfront"][0], 35_040)  # start of month 1
    assert_allclose(upfront.pv_cost, 35_040)                         # undiscounted
    end = end_of_month_factors(12, 0.1)
    assert_allclose(monthly.pv_cost, 4 * plan.calendar.hours @ end)  # each month at its end


def test_partial_upfront_pays_half_at_signing():
    r, plan = commitment("partial")
    assert_allclose(r.lines["commitment_upfront"][0], 17_520)
    assert_allclose(r.lines["commitment"][0], 0.5 * 4 * 744)


def test_commitment_renews_at_the_then_current_price():
    # trend -20 %: the second term is signed at 2.00 x 0.8 x 0.5 = 0.80 per GPU-hour
    r, _ = proposed(servers=0, committed={"1y": 4}, months=24,
                    on_demand={"price_trend_annual": -0.2},
                    commitments=[{**OFFER, "payment": "none"}])
    assert_allclose(r.lines["commitment"][[11, 12]], [4 * 744 * 1.0, 4 * 744 * 0.8])


@pytest.mark.parametrize("rule, counted", [
    # liquidate: a commitment cannot be exited, the whole upfront payment is counted
    ("liquidate", 1.0),
    # prorate: 12 of the 36 months fall inside the 12-month horizon: 12/36 of it
    ("prorate", 12 / 36)])
def test_upfront_term_past_the_horizon(rule, counted):
    r, plan = commitment("all", term_months=36, finance={"horizon_end": rule})
    hours_36 = (np.datetime64("2030-01", "h") - np.datetime64("2027-01", "h")).astype(float)
    assert_allclose(r.lines["commitment_upfront"][0], 4 * hours_36 * 1.0 * counted)
    # liquidate counts all of it, so only prorate has something left out to warn about
    warned = any("runs 2 years past the horizon" in w.text for w in plan.warnings)
    assert warned == (rule == "prorate")


def test_loan_payments_equal_numpy_financial_and_excel_pmt():
    # 100,000 with 20 % down: 80,000 at 6 % APR over 36 months
    r, plan = proposed(months=36, owned={"financing": {"kind": "loan", "apr": 0.06,
                                                       "term_months": 36,
                                                       "down_payment_fraction": 0.2}})
    rate = 0.06 / 12
    excel_pmt = 80_000 * rate / (1 - (1 + rate) ** -36)  # Excel PMT(rate, 36, -80000)
    assert_allclose(r.lines["loan_payment"][0], npf.pmt(rate, 36, -80_000), rtol=1e-12)
    assert_allclose(r.lines["loan_payment"][0], excel_pmt, rtol=1e-12)
    assert_allclose(r.lines["capex"][0], 20_000)
    assert_allclose(r.lines["loan_payment"].sum(), 36 * excel_pmt, rtol=1e-12)


def test_loan_balance_is_paid_off_at_the_horizon():
    r, plan = proposed(months=12, owned={"financing": {"kind": "loan", "apr": 0.06,
                                                       "term_months": 36,
                                                       "down_payment_fraction": 0.0}})
    rate = 0.06 / 12
    payment = npf.pmt(rate, 36, -100_000)
    balance = -npf.fv(rate, 12, -payment, 100_000)  # what is still owed after 12 payments
    assert_allclose(r.lines["loan_payment"][11], payment + balance, rtol=1e-10)
    assert any("paid off early" in w.text for w in plan.warnings)


def test_straight_line_tax_shield():
    # tax 25 %: deductible = energy + space + maintenance + staff + depreciation
    # depreciation = 100,000 / 60 per month; month 1 shield = 0.25 x (669.6 + 3,000 + 1,666.67)
    r, _ = proposed(finance={"tax_rate": 0.25})
    assert_allclose(r.lines["tax_shield"][0], 0.25 * (669.6 + 3000 + 100_000 / 60))
    # sale at age 12 for 60,000 against a book value of 80,000: the loss is deductible
    # (December against October: both months have 744 hours)
    assert_allclose(r.lines["tax_shield"][11] - r.lines["tax_shield"][9],
                    0.25 * 20_000, rtol=1e-9)


def test_macrs_5_tax_shield_and_tax_on_a_resale_gain():
    # MACRS year 1 = 20 % of 100,000 = 20,000, i.e. 1,666.67 a month; book after 12 months is
    # 80,000; resale 0.9 x 100,000 = 90,000 -> taxable gain 10,000 -> tax 2,500
    r, _ = proposed(finance={"tax_rate": 0.25, "tax_depreciation": "macrs_5"},
                    owned={"resale_fraction_by_year": [0.9, 0.3]})
    assert_allclose(r.lines["tax_shield"][0], 0.25 * (669.6 + 3000 + 20_000 / 12))
    assert_allclose(r.lines["tax_on_resale"][11], 2_500)


def test_cloud_data_terms_vat_setup_and_support():
    # 100 TB x 1,000 GB x 0.023 = 2,300 a month; 10 TB x 1,000 x 0.09 = 900 egress
    # prices include 20 % VAT: on demand 4 x 744 x 2.00 / 1.2; setup 1,200 / 1.2 at month 1
    # support 10 % of cloud spend, at least 1,200 / 1.2 = 1,000 a month
    r, _ = proposed(servers=0, cloud_data={"storage_tb": 100, "egress_tb_per_month": 10},
                    cloud_terms={"prices_include_vat": True, "vat_rate": 0.2,
                                 "setup_fee": 1_200, "support_fraction": 0.1,
                                 "support_minimum_per_month": 1_200})
    assert_allclose(r.lines["storage"][0], 2300 / 1.2)
    assert_allclose(r.lines["egress"][0], 900 / 1.2)
    assert_allclose(r.lines["on_demand"][0], 4 * 744 * 2.0 / 1.2)
    assert_allclose(r.lines["cloud_setup"], [1000] + [0] * 11)
    spend = (4 * 744 * 2.0 + 2300 + 900) / 1.2
    assert_allclose(r.lines["cloud_support"][0], max(0.1 * spend, 1000))


def test_no_cloud_charges_for_a_strategy_that_uses_no_cloud():
    r, _ = proposed(cloud_data={"storage_tb": 100, "egress_tb_per_month": 10},
                    cloud_terms={"setup_fee": 500, "support_minimum_per_month": 100})
    for line in ("storage", "egress", "cloud_setup", "cloud_support"):
        assert r.lines[line].sum() == 0


def test_failure_overhead_is_its_own_line_for_interruptible_work():
    # failures 1.4 per server-year on a 1-node gang: w from Daly, overhead = useful x w/(1-w)
    r, plan = proposed(interruptible=True, owned={"failures_per_server_year": 1.4})
    w = context_of(plan).failure_waste.fraction
    assert 0 < w < 0.01
    assert_allclose(r.volumes.overhead[0], 4 * 744 * w / (1 - w), rtol=1e-12)
    assert_allclose(r.owned_gpu_hours_by_month[0], 4 * 744 / (1 - w), rtol=1e-12)


def test_discounting_start_and_end_of_month():
    # purchase at the start of month 1 is not discounted; month-m costs by (1+r_m)^m
    r, plan = proposed()
    end, start = end_of_month_factors(12, 0.1), start_of_month_factors(12, 0.1)
    assert start[0] == 1.0
    assert_allclose(end[11], 1 / 1.1, rtol=1e-12)
    running = r.total_by_month.copy()
    running[0] -= 100_000
    assert_allclose(r.pv_cost, 100_000 + running @ end, rtol=1e-12)


def test_normal_cost_of_spot_bills_uninterrupted_sessions():
    """Issue 23: normal cost prices the same capacity as if nothing failed or was interrupted,
    so spot sessions are not cut short either. 1 GPU of interruptible work all of 2027 (8,760 h)
    on spot, no failures, no discounting; 0.5 interruptions an hour (lambda = 1/7,200 s) cut
    the 24 h sessions short.
      spot price 6.88 x (1 - 0.7) = 2.064 a GPU-hour, 60 s increments, a 60 s minimum
      normal: 8,760 h x 2.064 x (86,400 + 30)/86,400 (24 h sessions)      = 18,086.92
      (the old normal kept the 2 h sessions: x (7,200 + 30)/7,200          = 18,155.98)
      PV cost: 8,760 / (1 - w) x 2.064 x E[B]/E[U], w the spot waste, billed per used time
      over the interruption time (issue 37 item 6): E[U] = 7,200 (1 - e^-12) s,
      E[B] = 60 + 7,200 (e^-(1/120) - e^-12) + 30 e^-(1/120) s."""
    s = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": 12, "discount_rate_annual": 0},
        "on_demand": {"billing_increment_seconds": 60},
        "owned": {"failures_per_server_year": 0},
        "spot": {"interruptions_per_instance_hour": 0.5, "availability": 1.0},
        "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
        "proposed": {"servers": 0}, "uncertainty": {"draws": 0}})
    plan = compute_plan(s, flat_profile(1, "2026-01", 12, interruptible=True))
    r = plan.strategies["proposed"]
    w = context_of(plan).spot_waste.fraction
    assert_allclose(r.normal_cost_pv, 8760 * 2.064 * 86_430 / 86_400, rtol=1e-12)
    assert_allclose(r.normal_cost_pv, 18_086.92, atol=0.01)
    used = 7200 * (1 - math.exp(-12))
    billed = 60 + 7200 * (math.exp(-1 / 120) - math.exp(-12)) + 30 * math.exp(-1 / 120)
    assert_allclose(r.pv_cost, 8760 / (1 - w) * 2.064 * billed / used, rtol=1e-12)
    assert_allclose(r.failure_cost_pv, r.pv_cost - r.normal_cost_pv, rtol=1e-12)
