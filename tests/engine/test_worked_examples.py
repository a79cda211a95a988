"""The three worked examples of shared/worked-examples.md, figure by figure."""
from numpy.testing import assert_allclose

from tests.support.plans import compute_plan
from tests.support.engine_cases import flat_profile, w1, w2, w3
from tests.support.engine_cases import context_of

R_M = 1.12 ** (1 / 12) - 1  # 0.009488792934583


def test_month_hours_and_monthly_rate():
    plan = compute_plan(w1(), flat_profile(6))
    assert_allclose(plan.calendar.hours,
                    [744, 720, 744, 720, 744, 744, 720, 744, 720, 744, 744, 696])
    assert plan.calendar.total_hours == 8784  # 2028 is a leap year
    assert_allclose(R_M, 0.009488792934583, rtol=1e-12)


def test_w1_on_demand():
    r = compute_plan(w1(), flat_profile(6)).strategies["on_demand"]
    # month 1 = 6 x 744 x 3.00 x 1.0083333 = 13,503.60; month 2 = 6 x 720 x 3.025 = 13,068.00
    assert_allclose(r.total_by_month[:2], [13503.60, 13068.00], rtol=1e-12)
    assert_allclose(r.total_cost, 159429.60, rtol=1e-12)
    assert_allclose(r.pv_cost, 150043.5173, atol=5e-5)
    assert_allclose(r.cost_per_useful_gpu_hour, 3.0250, rtol=1e-12)


def test_w1_proposed_one_owned_server():
    plan = compute_plan(w1(), flat_profile(6))
    r = plan.strategies["proposed"]
    assert r.on_demand_gpu_hours_by_month.sum() == 0  # 8 x 0.97 = 7.76 GPUs >= 6
    assert_allclose(r.owned_utilization, 0.75)       # 6/8, relative to installed GPUs
    lines = r.lines
    # energy month 1 = [2.0 + (6.5-2.0) x 0.75] kW x 1.4 x 744 h x 0.12 = 671.832
    assert_allclose(lines["energy"][0], 671.832, rtol=1e-12)
    assert_allclose(lines["space"][0], 780.00)                 # 6.5 kW x 120
    assert_allclose(lines["maintenance"][0], 833.3333333333)   # 200,000 x 0.05 / 12
    assert_allclose(lines["staff"][0], 400.00)                 # 1/25 x 120,000 / 12
    opex = r.total_by_month.copy()
    opex[0] -= 210_000
    opex[-1] += 140_000
    assert_allclose(opex[:2], [2685.17, 2663.49], atol=0.005)
    assert_allclose(lines["capex"][0], 210_000)                # price + install, start of month 1
    assert_allclose(lines["resale_credit"][-1], 140_000)       # 0.7 x 200,000 at age 12
    assert_allclose(r.total_cost, 102_091.95, atol=0.005)
    assert_allclose(r.pv_cost, 115_198.5605, atol=5e-5)
    assert_allclose(r.cost_per_useful_gpu_hour, 2.3225, atol=5e-5)
    # no cloud is used, so no cloud data or terms are charged
    assert lines["storage"].sum() == lines["egress"].sum() == lines["cloud_setup"].sum() == 0


def test_w2_commitment_beside_on_demand():
    r = compute_plan(w2(), flat_profile(10)).strategies["proposed"]
    # committed rate fixed at signing: 3.00 x (1 - 0.35) = 1.95; month 1 = 8 x 744 x 1.95
    assert_allclose(r.lines["commitment"][0], 11_606.40, rtol=1e-12)
    # on demand 2 GPUs: month 1 = 2 x 744 x 3.00 x 1.0083333; month 12 with 0.8^(11/12)
    assert_allclose(r.lines["on_demand"][0], 4_501.20, rtol=1e-12)
    assert_allclose(r.lines["on_demand"][11], 3_431.87, atol=0.005)
    assert_allclose(r.total_cost, 185_122.63, atol=0.005)
    assert_allclose(r.pv_cost, 174_318.1023, atol=5e-5)


def test_w3_interruptible_on_spot():
    """W3 as issue 11 item 16 corrects it.

    M = 1/(1 x 0.002) h = 1,800,000 s. The notice (120 s) covers a checkpoint write (60 s), so
    every interruption is *noticed*: a final checkpoint (60 s) plus the restart (300 s), no
    work lost. With no unnoticed interruptions (failures are 0) there are no periodic
    checkpoints: tau = inf, and w = (60 + 300) / 1,800,000 = 0.0002 (0.020 %; the old rule
    took tau from the combined rate and gave 0.426 %).
    Billing, as an expectation over the interruption time (issue 37 item 6): a spot session
    wants L = 3,600 s and an interruption (lambda = 0.002/3,600 per s) ends it sooner.
    E[used] = (1 - e^-0.002)/lambda = 3,596.4024 s; E[billed] = 60 + e^-(60 lambda)
    (1 - e^-(3,540 lambda))/lambda + 30 e^-(60 lambda) = 3,626.4024 s: factor 1.0083417
    (the old rule billed one 1 h session: 3,630/3,600 = 1.0083333, month 1 2,701.26, total
    31,892.30, PV 30,014.7064). Spot price 3.00 x 0.3 = 0.90. Month 1 = 4 x 744 / 0.9998 x
    1.0083417 x 0.90 = 2,701.28; total = 4 x 8,784 / 0.9998 x 0.90 x 1.0083417 = 31,892.56;
    PV = sum of month_m / 1.12^(m/12) = 30,014.9545.
    """
    plan = compute_plan(w3(), flat_profile(4, interruptible=True))
    waste = context_of(plan).spot_waste
    assert_allclose(waste.mtbi_hours * 3600, 1_800_000)
    assert waste.interval_seconds == float("inf")
    assert waste.lost_seconds == 0
    assert_allclose(waste.fraction, 0.0002, rtol=1e-12)
    r = plan.strategies["proposed"]
    assert_allclose(context_of(plan).book.spot_billing, 3_626.4024 / 3_596.4024, rtol=1e-8)
    assert_allclose(r.lines["spot"][0], 2_701.28, atol=0.005)
    assert_allclose(r.total_cost, 31_892.56, atol=0.005)
    assert_allclose(r.pv_cost, 30_014.9545, atol=5e-5)
