"""Daly interval and waste (design 4.4); discounting, loans, resale, payback (design 3)."""
import math

import numpy as np
import numpy_financial as npf
import pytest
from numpy.testing import assert_allclose

from models.checkpoint import daly_interval, spot_rate_from_monthly_bucket, waste_fraction
from models.finance import (depreciation_by_age, end_of_month_factors, loan_schedule,
                            monthly_rate, never_dearer, payback_month, resale_fraction,
                            start_of_month_factors, trend_factors)


def test_daly_interval_for_60_s_checkpoints_and_396_h_mtbi_is_about_217_minutes():
    # sqrt(2 x 60 x 1,425,600) = 13,079.5 s; x (1 + sqrt(2.1e-5)/3 + 2.1e-5/9) - 60 = 13,039.6 s
    tau = daly_interval(60, 396 * 3600)
    assert_allclose(tau / 60, 217.33, atol=0.01)


def test_daly_falls_back_to_m_when_checkpoints_take_longer_than_2m():
    assert daly_interval(100, 40) == 40


def test_gang_of_2048_nodes_at_llama3_rates_wastes_about_16_percent():
    # M = 1/(2048 x 0.000158) h = 11,125 s; tau = 1,115.8 s; L = tau/2 (no notice), R = 600 s
    # w = 60/1115.8 + (557.9 + 600)/11125 = 0.0538 + 0.1041 = 0.158
    w = waste_fraction(nodes=2048, noticed_rate_per_node_hour=0.000158,
                       unnoticed_rate_per_node_hour=0, notice_seconds=0,
                       checkpoint_seconds=60, restart_seconds=600)
    assert_allclose(w.fraction, 0.158, atol=0.001)
    assert w.feasible


def test_waste_at_or_above_one_is_infeasible():
    w = waste_fraction(nodes=4096, noticed_rate_per_node_hour=0.01,
                       unnoticed_rate_per_node_hour=0, notice_seconds=0,
                       checkpoint_seconds=60, restart_seconds=600)
    assert w.fraction >= 1 and not w.feasible and w.billed_per_useful == math.inf


def test_notice_long_enough_loses_no_work_and_failures_always_do():
    common = dict(nodes=1, checkpoint_seconds=60, restart_seconds=300)
    noticed = waste_fraction(noticed_rate_per_node_hour=0.002, unnoticed_rate_per_node_hour=0,
                             notice_seconds=120, **common)
    assert noticed.lost_seconds == 0
    mixed = waste_fraction(noticed_rate_per_node_hour=0.001, unnoticed_rate_per_node_hour=0.001,
                           notice_seconds=120, **common)
    assert_allclose(mixed.lost_seconds, 0.5 * mixed.interval_seconds / 2)  # half the events


def test_spot_advisor_bucket_conversion():
    # the "> 20 %" bucket: lambda = -ln(0.8)/730 = 0.22314355/730 = 0.000305676 per hour
    assert_allclose(spot_rate_from_monthly_bucket(0.2), 0.000305676, rtol=1e-5)


def test_monthly_rate_and_discount_factors():
    r_m = monthly_rate(0.12)
    assert_allclose(r_m, 0.009488792934583, rtol=1e-12)
    assert_allclose(end_of_month_factors(12, 0.12)[-1], 1 / 1.12, rtol=1e-12)
    assert_allclose(start_of_month_factors(3, 0.12), [1, 1 / (1 + r_m), 1 / (1 + r_m) ** 2])


def test_end_of_month_pv_equals_numpy_financial_npv_with_a_zero_first_flow():
    # npf.npv does not discount its first value: prepend a zero for month 0
    flows = np.array([100.0, 250.0, 75.0])
    r_m = monthly_rate(0.10)
    assert_allclose(flows @ end_of_month_factors(3, 0.10), npf.npv(r_m, [0, *flows]),
                    rtol=1e-12)


def test_trend_factors():
    assert_allclose(trend_factors(13, -0.2)[[0, 12]], [1.0, 0.8])


@pytest.mark.parametrize("principal, apr, term", [(80_000, 0.06, 36), (1e6, 0.0, 12),
                                                  (250_000, 0.12, 60)])
def test_loan_schedule_matches_pmt_and_amortises_to_zero(principal, apr, term):
    payments, interest, payoff = loan_schedule(principal, apr, term, term)
    expected = npf.pmt(apr / 12, term, -principal)
    assert_allclose(payments, expected, rtol=1e-12)
    assert payoff == 0
    assert_allclose(payments.sum() - interest.sum(), principal, rtol=1e-9)  # principal repaid


def test_resale_fraction_interpolates_by_month():
    by_year = (0.65, 0.45, 0.30)
    assert resale_fraction(0, by_year) == 1.0
    assert_allclose(resale_fraction(6, by_year), (1 + 0.65) / 2)
    assert_allclose(resale_fraction(30, by_year), 0.45 + (0.30 - 0.45) / 2)
    assert resale_fraction(60, by_year) == 0.30  # the last value holds


def test_macrs_and_straight_line_depreciation():
    # fractions of the basis per month in service
    macrs = 1000 * depreciation_by_age("macrs_5", 60, 72)
    assert_allclose(macrs[:12].sum(), 200)   # year 1: 20 %
    assert_allclose(macrs.sum(), 1000)       # six years add up to the basis
    assert_allclose(1200 * depreciation_by_age("straight_line", 12, 24)[[0, 11, 12]],
                    [100, 100, 0])


@pytest.mark.parametrize("case, noticed, unnoticed, notice, expected", [
    # noticed only (notice 120 >= delta 60): each costs delta + R = 60 + 300 s; rate 0.002/h
    # w = 360 x 0.002 / 3600 = 0.0002; no periodic checkpoints
    ("noticed only", 0.002, 0.0, 120, 0.0002),
    # a notice shorter than a checkpoint write is no notice: work is lost as on a failure,
    # M = 1,800,000 s: tau = 14,656.97 s; w = 60/tau + (tau/2 + 300)/M
    #   = 0.0040936 + 0.0042381 = 0.0083317
    ("notice too short", 0.002, 0.0, 30, 0.0083317),
    # both kinds: tau from the unnoticed rate alone (0.001/h, M_u = 3,600,000 s):
    # tau_u = sqrt(2 x 60 x M_u)(1 + sqrt(60/2M_u)/3 + (60/2M_u)/9) - 60 = 20,744.6 s;
    # w = 60/tau_u + (tau_u/2 + 300)/M_u + (60 + 300)/M_n with M_n = 3,600,000 s
    #   = 0.0028923 + 0.0029645 + 0.0001 = 0.0059568
    ("both kinds", 0.001, 0.001, 120, 0.0059568),
])
def test_noticed_interruptions_cost_a_final_checkpoint_and_a_restart(case, noticed, unnoticed,
                                                                      notice, expected):
    w = waste_fraction(nodes=1, noticed_rate_per_node_hour=noticed,
                       unnoticed_rate_per_node_hour=unnoticed, notice_seconds=notice,
                       checkpoint_seconds=60, restart_seconds=300)
    assert_allclose(w.fraction, expected, atol=5e-8)


def test_payback_month():
    base = np.cumsum([10, 10, 10, 10])
    assert payback_month(np.cumsum([25, 0, 0, 0]), base) == 3  # 25 <= 30
    assert payback_month(np.cumsum([50, 0, 0, 0]), base) is None


# saving = baseline - plan, cumulative; payback is the first month from which it is > 0 and
# never falls below 0 again (issue 23)
@pytest.mark.parametrize("plan, base, month, never", [
    ([10, 10, 30, 0, 0, 0], [10, 10, 10, 10, 10, 10], 6, False),  # ties 2, dearer 2, even, ahead
    ([5, 30, 0, 0], [10, 10, 10, 10], 4, False),    # ahead in month 1, dearer 2-3, back in 4
    ([5, 30, 0, 0, 9], [10, 10, 10, 10, 10], 4, False),   # still ahead at the end
    ([5, 5, 30, 0], [10, 10, 10, 10], None, False),  # ends 0 (tie), no positive saving
    ([10, 5, 5], [10, 10, 10], None, True),          # tie, then ahead: never dearer
    ([10, 10], [10, 10], None, True),                # always ties: nothing to pay back
])
def test_payback_month_after_the_last_month_dearer(plan, base, month, never):
    plan, base = np.cumsum(plan, dtype=float), np.cumsum(base, dtype=float)
    assert payback_month(plan, base) == month
    assert never_dearer(plan, base) is never
